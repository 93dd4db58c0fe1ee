"""The standalone tracker stores the marker lines as the job wrote them (issue 13's cost):
:meth:`MarkerTail.read_rows` + :func:`append_marker_rows` must give back, read from the
recording, exactly the markers :meth:`MarkerTail.read` + :func:`append_markers` give, skipping
and counting the same lines."""

from __future__ import annotations

from pathlib import Path

from gpuprof.profile.markers import MAX_LINE, encode
from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.profile.storage import append_marker_rows, append_markers, read_markers_counted
from gpuprof.profile.tail import MarkerTail
from gpuprof.telemetry.store import SessionStore

T0 = 1_800_000_000.0

GOOD = [
    StepMarker(T0 + 1, 1, 0.5, run="r", pid=7, tokens=64.0, samples=8.0, flops=1.2e13),
    PhaseMark(T0 + 1.5, "mark", "eval", run="Ünïcødé ✓ run", pid=7),
    StepMarker(T0 + 2, 2, None, run="r", pid=7),
]


def _lines() -> list[bytes]:
    hostile = [
        b"not json",
        b'{"v": 1, "t": 1e300, "kind": "step", "step": 1}',  # impossible time
        b"\xff\xfe latin-1 \xe9",
        b"[" * 5000 + b"]" * 5000,
        b"x" * (MAX_LINE + 10),  # over-long: dropped and counted once
        b"   ",
    ]
    good = [encode(m).rstrip(b"\n") for m in GOOD]
    # A hand-written line (spaces, CRLF, keys in another order) is a marker too.
    good.append(b' {"kind":"mark","label":"tail","pid":7,"run":"r","t":1800000003.0,"v":1} \r')
    return [good[0], hostile[0], good[1], hostile[1], hostile[2], good[2], *hostile[3:], good[3]]


def _store_both(tmp_path: Path, chunks: list[bytes]) -> tuple[tuple, int, tuple, int]:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    by_marker, by_row = MarkerTail(path), MarkerTail(path)
    a = SessionStore.create(tmp_path / "a.gpuprof")
    b = SessionStore.create(tmp_path / "b.gpuprof")
    for chunk in chunks:  # the job writes; both tails read after each write
        with open(path, "ab") as fh:
            fh.write(chunk)
        append_markers(a, by_marker.read())
        append_marker_rows(b, by_row.read_rows())
    append_markers(a, by_marker.drain())
    append_marker_rows(b, by_row.drain_rows())
    a.flush()
    b.flush()
    got_a, skipped_a = read_markers_counted(a)
    got_b, skipped_b = read_markers_counted(b)
    a.close()
    b.close()
    return got_a, by_marker.skipped + skipped_a, got_b, by_row.skipped + skipped_b


def test_rows_give_back_the_same_markers_as_re_encoding(tmp_path: Path) -> None:
    text = b"\n".join(_lines()) + b"\n"
    # Written in pieces that cut lines in two, the last line without its newline.
    chunks = [text[i : i + 97] for i in range(0, len(text), 97)]
    chunks[-1] = chunks[-1].rstrip(b"\n")
    got_a, skipped_a, got_b, skipped_b = _store_both(tmp_path, chunks)
    assert got_b == got_a
    assert len(got_b) == 4 and set(GOOD) <= set(got_b)
    assert skipped_b == skipped_a == 5  # not json, 1e300, latin-1, nested, over-long


def test_no_rows_store_nothing(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path / "a.gpuprof")
    assert append_marker_rows(store, []) == 0
    store.flush()
    assert read_markers_counted(store) == ((), 0)
    store.close()
