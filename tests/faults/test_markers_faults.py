"""Hostile marker files: the reader (``gpuprof.profile.markers.parse_lines``) skips and counts
every line that is not a marker, keeps every one that is, and never raises.

A job writes its marker file itself (``gpuprof.track``, or anything else that opens the file
named by ``GPUPROF_MARKERS``), so what the profiler reads there is outside input: garbage,
lines of megabytes, numbers JSON cannot hold, a line cut by a crash, bytes that are not UTF-8.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.profile.markers import MAX_LINE, decode_line, encode, parse_lines
from gpuprof.profile.model import PhaseMark, StepMarker
from tests.faults.hostile import hostile_files

T = 1_700_000_000.5


def _line(**fields: object) -> bytes:
    data: dict[str, object] = {"v": 1, "kind": "step", "t": T, "run": "r", "pid": 7, "step": 1}
    data.update(fields)
    return json.dumps({k: v for k, v in data.items() if v is not ...}).encode()


GOOD = [
    encode(PhaseMark(time_s=T, kind="start", run="r", pid=7)),
    encode(
        StepMarker(time_s=T + 1, step=1, duration_s=1.0, tokens=512, flops=1e12, run="r", pid=7)
    ),
    encode(PhaseMark(time_s=T + 1.5, kind="mark", label="eval", run="r", pid=7)),
    encode(StepMarker(time_s=T + 2, step=2, duration_s=1.0, run="r", pid=8)),
    encode(PhaseMark(time_s=T + 3, kind="end", run="r", pid=7)),
]

#: One line each; none is a marker.
HOSTILE: dict[str, bytes] = {
    "garbage": b"this is not json",
    "random-bytes": bytes(range(256)) * 4,
    "nul-bytes": b"\0" * 512,
    "non-utf8": b'{"v":1,"kind":"step","run":"caf\xe9","t":1700000000,"pid":1,"step":1}',
    "utf16": '{"v":1,"kind":"end","t":1700000000,"run":"r","pid":1}'.encode("utf-16"),
    "huge-line": b'{"v":1,"kind":"mark","label":"' + b"A" * (24 << 20) + b'"}',
    "just-over-max": _line(run="x" * MAX_LINE),
    "partial-last-line": GOOD[1][: len(GOOD[1]) // 2],
    "nan-time": _line(t=float("nan")),
    "nan-literal-dt": _line().replace(b'"step": 1', b'"step": 1, "dt": NaN'),
    "infinity-tokens": _line().replace(b'"step": 1', b'"step": 1, "tokens": Infinity'),
    "1e999-flops": _line().replace(b'"step": 1', b'"step": 1, "flops": 1e999'),
    "400-digit-integer": _line(tokens=10**400),
    "400-digit-time": _line(t=10**400),
    "negative-samples": _line(samples=-3),
    "negative-dt": _line(dt=-0.5),
    "dt-before-1970": _line(dt=T + 10),
    "time-zero": _line(t=0),
    "time-1e300": _line(t=1e300),
    "time-year-2200": _line(t=7_258_118_400.0),
    "time-as-text": _line(t="1700000000"),
    "time-missing": _line(t=...),
    "bool-pid": _line(pid=True),
    "negative-pid": _line(pid=-1),
    "float-pid": _line(pid=1.5),
    "bool-step": _line(step=True),
    "negative-step": _line(step=-1),
    "text-step": _line(step="1"),
    "run-not-text": _line(run=["r"]),
    "label-not-text": _line(kind="mark", label={"a": 1}),
    "unknown-kind": _line(kind="explode"),
    "version-2": _line(v=2),
    "version-text": _line(v="1"),
    "no-version": _line(v=...),
    "json-array": b"[1, 2, 3]",
    "json-string": b'"step"',
    "json-number": b"42",
    "json-null": b"null",
    "empty-object": b"{}",
    "deeply-nested": b"[" * 3000 + b"]" * 3000,
    "nested-label": _line(kind="mark").replace(
        b"}", b', "label": ' + b"[" * 900 + b"]" * 900 + b"}"
    ),
}


def test_every_hostile_line_is_skipped_and_counted() -> None:
    for name, line in HOSTILE.items():
        with pytest.raises((ValueError, RecursionError)):
            decode_line(line)
        found, skipped = parse_lines([line])
        assert (found, skipped) == ([], 1), name


def test_good_lines_among_hostile_ones_are_all_kept() -> None:
    lines: list[bytes | str] = []
    for k, bad in enumerate(HOSTILE.values()):
        lines.append(GOOD[k % len(GOOD)])
        lines.append(bad)
    lines.append(GOOD[0].decode())  # text lines too
    found, skipped = parse_lines(lines)
    assert skipped == len(HOSTILE)
    assert len(found) == len(HOSTILE) + 1
    assert found[: len(GOOD)] == [decode_line(g) for g in GOOD]


def test_blank_lines_are_neither_markers_nor_skipped() -> None:
    assert parse_lines([b"", b"\n", b"   \r\n", "\t"]) == ([], 0)


def test_hostile_files_read_as_lines(tmp_path: Path) -> None:
    """The suite's hostile files, read the way a profiler reads a marker file, give no
    marker and no exception; every non-blank line is counted."""
    files = hostile_files(tmp_path / "hostile")
    for name, path in files.items():
        if not path.is_file():
            continue
        lines = path.read_bytes().splitlines()
        found, skipped = parse_lines(lines)
        assert found == [], name
        assert skipped == len([ln for ln in lines if ln.strip()]), name


def test_a_marker_file_cut_by_a_crash(tmp_path: Path) -> None:
    """A job killed in the middle of a write leaves a partial last line: it is skipped, the
    lines before it are kept."""
    data = b"".join(GOOD)
    for cut in range(2, len(GOOD[-1])):  # cut=1 takes only the newline: the line is whole
        text = data[: len(data) - cut]
        found, skipped = parse_lines(text.splitlines())
        assert found == [decode_line(g) for g in GOOD[:-1]]
        assert skipped == 1
