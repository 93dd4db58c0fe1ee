"""Hostile torch.profiler traces and breakdown files (issue 13, "where the time goes").

Two readers of outside input: :func:`summarize_trace` (a Chrome trace a job's torch.profiler
wrote, or any file a user points at) and :func:`read_breakdown` (the ``breakdown-<pid>.json`` a
job wrote). Every hostile file is one :class:`InputError` of one line naming the file, never
another exception, a hang or a crash; damaged single events are skipped and counted. The
writer side (the job's :class:`TorchWindow`) never breaks the job and never leaves half a file.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuprof.errors import InputError
from gpuprof.profile import torch_breakdown
from gpuprof.profile.torch_breakdown import read_breakdown, summarize_trace
from tests.faults.hostile import ROOT, hostile_files

GOOD_TRACE = ROOT / "tests" / "data" / "trace-h100-small.json"


def _one_clear_error(read: Callable[[Path], Any], path: Path) -> str:
    """``read(path)`` fails with one InputError line that names the file."""
    with pytest.raises(InputError) as info:
        read(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 600, message
    assert path.name in message, message
    return message


def _trace_faults(folder: Path) -> dict[str, Path]:
    """Hostile traces made from the good one: damage a generic file would not show."""
    good = GOOD_TRACE.read_bytes()
    doc = json.loads(good)
    out: dict[str, Path] = {}

    def put(name: str, content: bytes | str) -> None:
        path = folder / f"{name}.json"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        out[name] = path

    put("cut-in-half", good[: len(good) // 2])
    put("cut-mid-string", good[: good.index(b"sm90_xmma") + 5])
    put("nested-deeply", "[" * 200_000 + "]" * 200_000)
    put("nested-in-events", '{"traceEvents": [' + "[" * 200_000 + "]" * 200_000 + "]}")
    put("events-a-string", json.dumps({"traceEvents": "kernel"}))
    put("events-an-object", json.dumps({"traceEvents": {"ph": "X"}}))
    put("events-a-number", json.dumps({"traceEvents": 1e308}))
    put("no-events-key", json.dumps({k: v for k, v in doc.items() if k != "traceEvents"}))
    put("a-string", json.dumps("traceEvents"))
    put("a-number", "42")
    put("null", "null")
    put("no-events", json.dumps({"traceEvents": []}))
    put(
        "only-metadata",
        json.dumps({"traceEvents": [e for e in doc["traceEvents"] if e["ph"] == "M"]}),
    )
    damaged = [
        {**e, "ts": "soon"} if i % 3 == 0 else {**e, "dur": None} if i % 3 == 1 else [e]
        for i, e in enumerate(doc["traceEvents"])
    ]
    put("every-event-damaged", json.dumps({"traceEvents": damaged}))
    put("nan-times", good.replace(b'"dur": ', b'"dur": NaN, "x": '))
    put("infinite-times", good.replace(b'"ts": ', b'"ts": -Infinity, "y": '))
    put(
        "times-1e300",
        json.dumps(
            {
                "traceEvents": [
                    {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 1e300, "dur": 1e300}
                ]
            }
        ),
    )
    put(
        "empty-window",
        json.dumps(
            {
                "traceEvents": [
                    {
                        "ph": "X",
                        "cat": "user_annotation",
                        "name": "ProfilerStep#1",
                        "ts": 5,
                        "dur": 0,
                    }
                ]
            }
        ),
    )
    put("utf16-bom-garbage", b"\xff\xfe" + os.urandom(2048))
    put("latin1", '{"traceEvents": [{"ph": "X", "name": "caf\xe9"}]}'.encode("latin-1"))
    put("gzip-truncated", gzip.compress(good)[:2000])
    put("gzip-garbage", b"\x1f\x8b\x08\x00" + os.urandom(4096))
    return out


@pytest.fixture(scope="module")
def generic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """tests/faults/hostile.py's files (empty, truncated, random, non-UTF-8, NULs, 24 MiB line,
    a folder, missing, SQLite files): none is a trace or a breakdown."""
    return hostile_files(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _trace_faults(tmp_path_factory.mktemp("traces"))


GENERIC = (
    "empty",
    "truncated",
    "random-bytes",
    "non-utf8-text",
    "nul-bytes",
    "huge",
    "a-folder",
    "missing",
    "newer-version",
    "foreign-sqlite",
)
TRACE_FAULTS = (
    "cut-in-half",
    "cut-mid-string",
    "nested-deeply",
    "nested-in-events",
    "events-a-string",
    "events-an-object",
    "events-a-number",
    "no-events-key",
    "a-string",
    "a-number",
    "null",
    "no-events",
    "only-metadata",
    "every-event-damaged",
    "nan-times",
    "infinite-times",
    "times-1e300",
    "empty-window",
    "utf16-bom-garbage",
    "latin1",
    "gzip-truncated",
    "gzip-garbage",
)
READERS: dict[str, Callable[[Path], Any]] = {
    "summarize_trace": summarize_trace,
    "read_breakdown": read_breakdown,
}


@pytest.mark.parametrize("fault", GENERIC)
@pytest.mark.parametrize("reader", list(READERS))
def test_generic_hostile_files_are_one_clear_error(
    reader: str, fault: str, generic: dict[str, Path]
) -> None:
    _one_clear_error(READERS[reader], generic[fault])


@pytest.mark.parametrize("fault", TRACE_FAULTS)
def test_hostile_traces_are_one_clear_error(fault: str, traces: dict[str, Path]) -> None:
    message = _one_clear_error(summarize_trace, traces[fault])
    assert "Traceback" not in message


@pytest.mark.parametrize("fault", TRACE_FAULTS)
def test_hostile_traces_as_breakdowns_are_one_clear_error(
    fault: str, traces: dict[str, Path]
) -> None:
    _one_clear_error(read_breakdown, traces[fault])


def test_the_good_trace_reads(traces: dict[str, Path]) -> None:
    """The faults above fail for the fault: the file they were made from summarizes."""
    assert summarize_trace(GOOD_TRACE).steps == 2


def test_special_files_never_block(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer for ever
    for reader in READERS.values():
        assert "not a regular file" in _one_clear_error(reader, fifo)
    with pytest.raises(InputError, match="/dev/zero: not a regular file"):
        summarize_trace("/dev/zero")  # never ends


def test_oversized_and_bomb_traces_are_refused_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch_breakdown, "MAX_TRACE_BYTES", 1 << 20)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 << 20))
    assert "larger than the 1 MiB" in _one_clear_error(summarize_trace, big)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b'{"traceEvents": [' + b" " * (64 << 20) + b"]}"))
    assert bomb.stat().st_size < 1 << 20
    assert "compression bomb" in _one_clear_error(summarize_trace, bomb)


def test_damaged_events_beside_good_ones_are_skipped_not_fatal(tmp_path: Path) -> None:
    doc = json.loads(GOOD_TRACE.read_bytes())
    doc["traceEvents"] += [
        None,
        7,
        "x",
        {"ph": "X", "ts": {}, "dur": 1},
        {"ph": "X", "name": "k", "cat": "kernel", "ts": 1, "dur": 1, "pid": [0]},
    ]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(doc))
    b = summarize_trace(path)
    assert "5 damaged trace events skipped" in b.note
    assert {s.category: s.share_pct for s in b.shares}["matmul"] == pytest.approx(40.0)


def test_a_huge_but_valid_trace_is_summarized(tmp_path: Path) -> None:
    """200,000 kernels on four streams: read and summarized, shares still sum to 100 %."""
    events = [
        {
            "ph": "X",
            "cat": "kernel",
            "name": f"gemm_{i % 50}",
            "pid": 0,
            "tid": i % 4,
            "ts": i * 2.0,
            "dur": 3.0,
        }
        for i in range(200_000)
    ]
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"traceEvents": events}))
    b = summarize_trace(path)
    assert sum(s.share_pct for s in b.shares) == pytest.approx(100.0)
    assert {s.category: s.share_pct for s in b.shares}["matmul"] == pytest.approx(100.0, abs=0.01)
    assert len(b.top) == 15


# --- breakdown files ---------------------------------------------------------------------------------

_GOOD_BREAKDOWN = {
    "device": "cuda",
    "steps": 2,
    "total_s": 0.02,
    "shares": [
        {"category": "matmul", "time_s": 0.01, "share_pct": 50.0},
        {"category": "idle", "time_s": 0.01, "share_pct": 50.0},
    ],
    "top": [{"name": "gemm", "category": "matmul", "time_s": 0.01, "count": 2, "share_pct": 50.0}],
}


def _bad(**change: Any) -> dict[str, Any]:
    return {**_GOOD_BREAKDOWN, **change}


BREAKDOWN_FAULTS: dict[str, Any] = {
    "unknown-device": _bad(device="tpu"),
    "device-a-list": _bad(device=["cuda"]),
    "steps-text": _bad(steps="2"),
    "negative-total": _bad(total_s=-1.0),
    "shares-a-string": _bad(shares="matmul"),
    "unknown-category": _bad(shares=[{"category": "magic", "time_s": 0.02, "share_pct": 100.0}]),
    "shares-not-100": _bad(shares=[{"category": "matmul", "time_s": 0.01, "share_pct": 50.0}]),
    "negative-share": _bad(
        shares=[
            {"category": "matmul", "time_s": 0.03, "share_pct": 150.0},
            {"category": "idle", "time_s": -0.01, "share_pct": -50.0},
        ]
    ),
    "too-many-top": _bad(top=[_GOOD_BREAKDOWN["top"][0]] * 16),
    "top-count-text": _bad(top=[{**_GOOD_BREAKDOWN["top"][0], "count": "2"}]),
    "no-device": {k: v for k, v in _GOOD_BREAKDOWN.items() if k != "device"},
    "a-list": [_GOOD_BREAKDOWN],
}


@pytest.mark.parametrize("fault", list(BREAKDOWN_FAULTS))
def test_hostile_breakdowns_are_one_clear_error(fault: str, tmp_path: Path) -> None:
    path = tmp_path / f"breakdown-{fault}.json"
    path.write_text(json.dumps(BREAKDOWN_FAULTS[fault]))
    _one_clear_error(read_breakdown, path)


def test_breakdown_with_nan_or_oversized_is_refused(tmp_path: Path) -> None:
    nan = tmp_path / "breakdown-nan.json"
    nan.write_text(json.dumps(_GOOD_BREAKDOWN).replace("0.02", "NaN"))
    _one_clear_error(read_breakdown, nan)
    big = tmp_path / "breakdown-big.json"
    big.write_text(json.dumps({**_GOOD_BREAKDOWN, "note": "x" * (2 << 20)}))
    assert "larger than" in _one_clear_error(read_breakdown, big)


def test_the_good_breakdown_reads(tmp_path: Path) -> None:
    path = tmp_path / "breakdown-1.json"
    path.write_text(json.dumps(_GOOD_BREAKDOWN))
    assert read_breakdown(path).top[0].count == 2


# --- the writer inside the job -------------------------------------------------------------------

_JOB = textwrap.dedent(
    """
    import logging, resource, sys, torch
    logging.basicConfig(format="%(message)s")
    from gpuprof.profile.torch_window import breakdown_path, open_window
    if sys.argv[2] == "block":  # the breakdown's name is taken by a folder
        breakdown_path(sys.argv[1]).mkdir(parents=True)
    elif sys.argv[2] != "-":
        limit = int(sys.argv[2])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    window = open_window(sys.argv[1], (0, 1, 3))
    a = torch.randn(64, 64)
    for _ in range(6):
        for _ in range(40):
            a = torch.relu(a @ a) * 0.01
        if window is not None:
            window.step()
    if window is not None:
        window.close()
    print("job done")
    """
)


def _job(out: Path, fault: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _JOB, str(out), fault],
        capture_output=True,
        text=True,
        timeout=240,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=False,
    )


@pytest.mark.parametrize("fault", ["30000", "block"])
def test_a_failed_write_never_breaks_the_job_nor_leaves_half_a_file(
    tmp_path: Path, fault: str
) -> None:
    """A file-size limit (a disk that fills up) cuts the trace at 30 kB, or the breakdown
    cannot be written (its name is a folder): the job ends normally, says why once, and no
    partial file is left."""
    out = tmp_path / "torch"
    done = _job(out, fault)
    assert done.returncode == 0 and "job done" in done.stdout, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "no time breakdown" in done.stderr
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.endswith(".tmp")], names
    for path in out.glob("trace-*.json"):
        summarize_trace(path)  # a trace that is there is whole
    assert not [p for p in out.glob("breakdown-*.json") if p.is_file()]


def test_a_folder_that_cannot_be_made_never_breaks_the_job(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = _job(blocker / "torch", "-")
    assert done.returncode == 0 and "job done" in done.stdout, done.stderr[-2000:]
    assert "cannot start torch.profiler" in done.stderr


def test_the_job_writes_both_files_without_limits(tmp_path: Path) -> None:
    """The two limits above fail for the limit: unlimited, the job writes trace and breakdown."""
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == resource.RLIM_INFINITY
    out = tmp_path / "torch"
    done = _job(out, "-")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list(out.glob("trace-*.json"))) == 1
    (breakdown,) = out.glob("breakdown-*.json")
    assert read_breakdown(breakdown).steps == 3


@pytest.mark.parametrize("fault", ["shares-not-100", "negative-share", "unknown-device", "a-list"])
def test_gpuprof_profile_leaves_a_hostile_breakdown_out_with_a_note(
    fault: str, tmp_path: Path
) -> None:
    """``gpuprof profile --torch`` reads the job's breakdown through read_breakdown: a bad one
    is a note on the profile, never a failure or a wrong breakdown; the trace is still kept."""
    from gpuprof.profile.job_files import torch_outputs

    torch_dir = tmp_path / "torch"
    torch_dir.mkdir()
    (torch_dir / "breakdown-77.json").write_text(json.dumps(BREAKDOWN_FAULTS[fault]))
    (torch_dir / "trace-77.json").write_bytes(GOOD_TRACE.read_bytes())
    notes: list[str] = []
    breakdown, trace = torch_outputs(torch_dir, tmp_path / "RUN.gpuprof", notes)
    assert breakdown is None
    assert any("breakdown-77.json" in n and "left out" in n for n in notes), notes
    assert trace is not None and trace.parent == tmp_path and trace.is_file()


def test_gpuprof_profile_keeps_the_trace_of_the_breakdown_it_shows(tmp_path: Path) -> None:
    """Two processes of the job each wrote theirs: the trace kept is the shown one's."""
    from gpuprof.profile.job_files import torch_outputs

    torch_dir = tmp_path / "torch"
    torch_dir.mkdir()
    (torch_dir / "breakdown-10.json").write_text(json.dumps(BREAKDOWN_FAULTS["unknown-device"]))
    (torch_dir / "trace-10.json").write_text("{}")
    (torch_dir / "breakdown-20.json").write_text(json.dumps(_GOOD_BREAKDOWN))
    (torch_dir / "trace-20.json").write_bytes(GOOD_TRACE.read_bytes())
    notes: list[str] = []
    breakdown, trace = torch_outputs(torch_dir, tmp_path / "RUN.gpuprof", notes)
    assert breakdown is not None and breakdown.top[0].name == "gemm"
    assert trace is not None and summarize_trace(trace).steps == 2
