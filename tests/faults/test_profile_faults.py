"""Faults of job profiling (issue 13): what a recording, a job or a full disk can throw at it.

Readers: a recording's job markers (table ``job_markers``) and job profile (``meta`` row
``job_profile``) may hold anything; each hostile record is skipped with one warning naming the
file, the good ones still read, and the snapshots still play. Every hostile *file* is refused by
:func:`read_job_profile` in one line naming it, like every reader of recordings.
The job itself: whatever it writes into its marker file (floods, binary, lines of megabytes, a
half-written last line) and its ``--torch`` folder costs it only what was not a marker.
Writers: a recording that cannot be written (a full disk) or a place that cannot take it is one
error line naming the file; the job's exit status is still passed on.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.jsonout import loads_strict
from gpuprof.profile.job_files import torch_outputs
from gpuprof.profile.markers import encode
from gpuprof.profile.model import (
    JobProfile,
    StepMarker,
    TimeBreakdown,
    TimeShare,
)
from gpuprof.profile.storage import (
    MARKERS_TABLE,
    PROFILE_KEY,
    append_markers,
    read_job_profile,
    read_markers,
    read_markers_counted,
    write_job_profile,
)
from gpuprof.profile.summary import profile_json, summary_lines
from gpuprof.telemetry.codec import to_jsonable
from gpuprof.telemetry.store import SessionStore
from gpuprof.telemetry.store.read import _warned
from tests.faults.hostile import (
    FAULTS,
    GOOD_SESSION,
    TIMEOUT_S,
    assert_one_clear_error,
    hostile_files,
    python_job,
    run_gpuprof,
    run_profile,
)

T = 1_800_000_000.0
GOOD = StepMarker(T, 1, 0.5, tokens=10.0, run="r", pid=1)
PROFILE = JobProfile(name="j", command=("python", "x.py"), pid=1, started_s=T, ended_s=T + 5)


@pytest.fixture(autouse=True)
def _fresh_warnings():
    _warned.clear()  # warn_once is per process: each case sees its own warning
    yield
    _warned.clear()


def _job_recording(tmp_path: Path) -> Path:
    """The good session with one good marker and a good job profile in it."""
    path = tmp_path / "job.gpuprof"
    shutil.copyfile(GOOD_SESSION, path)
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE {MARKERS_TABLE} (id INTEGER PRIMARY KEY, time_s REAL, data TEXT)")
    conn.execute(
        f"INSERT INTO {MARKERS_TABLE}(time_s, data) VALUES (?, ?)",
        (T, encode(GOOD).decode().strip()),
    )
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?)",
        (PROFILE_KEY, json.dumps(to_jsonable(PROFILE))),
    )
    conn.commit()
    conn.close()
    return path


def _sql(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    conn = sqlite3.connect(path)
    for sql, args in statements:
        conn.execute(sql, args)
    conn.commit()
    conn.close()


def _marker_row(data: object, t: object = T) -> tuple[str, tuple[object, ...]]:
    return (f"INSERT INTO {MARKERS_TABLE}(time_s, data) VALUES (?, ?)", (t, data))


NESTED = "[" * 100_000 + "]" * 100_000
#: Hostile marker records: each is skipped (counted), the good marker still reads.
HOSTILE_MARKERS: dict[str, list[tuple[str, tuple[object, ...]]]] = {
    "garbage-text": [_marker_row("not a marker at all")],
    "random-blob": [_marker_row(bytes(range(256)) * 4)],
    "non-utf8-blob": [_marker_row(b'{"v":1,"kind":"step","t":1e9,"step":1,"run":"\xff"}')],
    "huge-text": [_marker_row("x" * (8 << 20))],
    "nested-json": [_marker_row(NESTED)],
    "nan-time": [_marker_row('{"v":1,"kind":"step","t":NaN,"step":1}')],
    "time-2200": [_marker_row('{"v":1,"kind":"step","t":7.3e9,"step":1}')],
    "huge-integer": [_marker_row('{"v":1,"kind":"step","t":1' + "0" * 400 + ',"step":1}')],
    "negative-step": [_marker_row('{"v":1,"kind":"step","t":1.8e9,"step":-4}')],
    "wrong-types": [_marker_row('{"v":1,"kind":"mark","t":"soon","label":["x"]}')],
    "newer-version": [_marker_row('{"v":2,"kind":"step","t":1.8e9,"step":1}')],
    "null-and-number-data": [_marker_row(None), _marker_row(12345)],
    "many-bad-rows": [
        (
            f"INSERT INTO {MARKERS_TABLE}(time_s, data) "
            "SELECT value, 'junk' FROM generate_series(1, 50000)",
            (),
        )
    ]
    if sqlite3.sqlite_version_info >= (3, 42)
    else [_marker_row("junk")] * 500,
}


@pytest.mark.parametrize("fault", list(HOSTILE_MARKERS))
def test_hostile_marker_records_are_skipped_with_one_warning(
    fault: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _job_recording(tmp_path)
    try:
        _sql(path, *HOSTILE_MARKERS[fault])
    except sqlite3.OperationalError:  # generate_series is not compiled in: rows one by one
        _sql(path, *([_marker_row("junk")] * 500))
    caplog.set_level(logging.WARNING)
    with SessionStore.open(path) as store:
        markers, skipped = read_markers_counted(store)
        assert markers == (GOOD,)
        assert skipped >= 1
        assert store.count() == 4  # the samples still play
    warnings = [r.getMessage() for r in caplog.records if "job marker" in r.getMessage()]
    assert len(warnings) == 1 and str(path) in warnings[0]


def test_a_markers_table_of_another_shape_is_no_markers(tmp_path: Path) -> None:
    path = tmp_path / "odd.gpuprof"
    shutil.copyfile(GOOD_SESSION, path)
    _sql(
        path,
        (f"CREATE TABLE {MARKERS_TABLE} (x)", ()),
        (f"INSERT INTO {MARKERS_TABLE} VALUES (1)", ()),
    )
    with SessionStore.open(path) as store:
        assert read_markers(store) == ()
        assert store.count() == 4


def _profile_value(value: object) -> tuple[str, tuple[object, ...]]:
    return ("UPDATE meta SET value = ? WHERE key = ?", (value, PROFILE_KEY))


def _profile_json(**changes: object) -> str:
    data = to_jsonable(PROFILE)
    data.update(changes)
    return json.dumps(data)


#: Hostile job profiles: each is ignored with one warning (None), never an exception.
HOSTILE_PROFILES: dict[str, tuple[str, tuple[object, ...]]] = {
    "not-json": _profile_value("{not json"),
    "a-list": _profile_value("[1, 2, 3]"),
    "a-blob": _profile_value(b"\x00\xff" * 100),
    "wrong-types": _profile_value(_profile_json(gpus="all of them", pid="one")),
    "missing-fields": _profile_value('{"name": "x"}'),
    "huge": _profile_value(_profile_json(name="x" * (5 << 20))),
    "nested": _profile_value('{"name": ' + NESTED + "}"),
    "nan-times": _profile_value(_profile_json(started_s="nan")),
    "ended-before-started": _profile_value(_profile_json(ended_s=T - 100)),
    "time-before-1970": _profile_value(_profile_json(started_s=-5.0)),
    "bad-finding": _profile_value(_profile_json(findings=[{"code": 1, "severity": "panic"}])),
}


@pytest.mark.parametrize("fault", list(HOSTILE_PROFILES))
def test_a_hostile_job_profile_is_ignored_with_one_warning(
    fault: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _job_recording(tmp_path)
    _sql(path, HOSTILE_PROFILES[fault])
    caplog.set_level(logging.WARNING)
    assert read_job_profile(path) is None
    with SessionStore.open(path) as store:
        assert read_markers(store) == (GOOD,)  # the rest of the job still reads
    warnings = [r.getMessage() for r in caplog.records if "job profile" in r.getMessage()]
    assert len(warnings) == 1 and str(path) in warnings[0]


def test_a_newer_or_odd_but_readable_profile_reads_and_prints_safely(tmp_path: Path) -> None:
    path = _job_recording(tmp_path)
    hostile_text = "job\x1b[31m\u202e\x07 --token=s3cret"
    _sql(
        path,
        _profile_value(
            _profile_json(
                schema_version=9, future_field={"x": 1}, name=hostile_text, notes=[hostile_text]
            )
        ),
    )
    profile = read_job_profile(path)
    assert profile is not None and profile.schema_version == 9
    text = "\n".join(summary_lines(profile))
    assert "s3cret" not in text
    doc = loads_strict(json.dumps(profile_json(profile)))
    assert "s3cret" not in json.dumps(doc)


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.slow
def test_hostile_files_are_one_error_naming_the_file(fault: str, tmp_path: Path) -> None:
    path = hostile_files(tmp_path)[fault]
    with pytest.raises(InputError) as err:
        read_job_profile(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message


# --- the job's marker file --------------------------------------------------------------------

#: Writes 5 good step markers among hostile lines into GPUPROF_MARKERS.
HOSTILE_JOB = r"""
import json, os, sys, time
fd = os.open(os.environ["GPUPROF_MARKERS"], os.O_WRONLY | os.O_APPEND)
def step(k):
    line = {"v": 1, "kind": "step", "t": time.time(), "step": k, "dt": 0.01, "run": "r", "pid": 1}
    os.write(fd, (json.dumps(line) + "\n").encode())
step(1)
os.write(fd, b"garbage\n" * 1000)                      # a flood of lines that are not markers
step(2)
os.write(fd, b"\xff\xfe\x00\x01" * 1000 + b"\n")       # binary
step(3)
os.write(fd, b"A" * (10 << 20))                        # 10 MiB without a newline ...
os.write(fd, b"\n")                                    # ... then its end
step(4)
os.write(fd, b"[" * 100000 + b"\n")                    # nesting beyond the parser
step(5)
os.write(fd, b'{"v":1,"kind":"step","t":')             # a half-written last line
"""


@pytest.mark.slow
def test_whatever_the_job_writes_costs_only_its_own_lines(tmp_path: Path) -> None:
    job = tmp_path / "hostile_job.py"
    job.write_text(HOSTILE_JOB)
    out, summary = tmp_path / "h.gpuprof", tmp_path / "h.json"
    ran = run_profile(
        tmp_path, [sys.executable, str(job)], "--out", str(out), "--json", str(summary)
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "Traceback" not in ran.stderr
    doc = loads_strict(summary.read_text())
    assert doc["steps"]["count"] == 5
    # 1000 garbage lines, the binary one, the long one, the nested one, the half line.
    assert doc["markers_skipped"] == 1004
    with SessionStore.open(out) as store:
        assert len(read_markers(store)) == 5


# --- what --torch leaves behind -----------------------------------------------------------------

_GOOD_BREAKDOWN = TimeBreakdown(
    device="cpu", steps=3, total_s=1.0, shares=(TimeShare("matmul", 1.0, 100.0),)
)
HOSTILE_BREAKDOWNS: dict[str, Callable[[Path], None]] = {
    "not-json": lambda p: p.write_text("{nope"),
    "a-list": lambda p: p.write_text("[]"),
    "wrong-shape": lambda p: p.write_text('{"device": 3, "steps": "many"}'),
    "nested": lambda p: p.write_text(NESTED),
    "huge": lambda p: p.write_bytes(b" " * (5 << 20) + b"{}"),
    "binary": lambda p: p.write_bytes(b"\xff\xfe\x00" * 100),
    "a-folder": lambda p: p.mkdir(),
}


@pytest.mark.parametrize("fault", list(HOSTILE_BREAKDOWNS))
def test_a_hostile_breakdown_file_is_a_note(fault: str, tmp_path: Path) -> None:
    folder = tmp_path / "torch"
    folder.mkdir()
    HOSTILE_BREAKDOWNS[fault](folder / "breakdown-1.json")
    notes: list[str] = []
    breakdown, trace = torch_outputs(folder, tmp_path / "run.gpuprof", notes)
    assert breakdown is None and trace is None
    assert len(notes) == 1 and "breakdown-1.json" in notes[0] and "\n" not in notes[0]
    # A good one from another process is still taken.
    (folder / "breakdown-2.json").write_text(json.dumps(to_jsonable(_GOOD_BREAKDOWN)))
    (folder / "trace-2.json").write_text('{"traceEvents": []}')
    breakdown, trace = torch_outputs(folder, tmp_path / "run.gpuprof", [])
    assert breakdown is not None and breakdown.shares == _GOOD_BREAKDOWN.shares
    assert trace == tmp_path / "run.trace.json" and breakdown.trace_file == "run.trace.json"


# --- writers ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_disk_is_one_error_and_the_jobs_status_still_counts(tmp_path: Path) -> None:
    out = tmp_path / "full.gpuprof"
    job = python_job("import sys, time; time.sleep(2); sys.exit(4)")
    ran = run_profile(tmp_path, job, "--demo", "--out", str(out), file_size_limit=120 * 1024)
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 4  # the job's failure comes first
    errors = [line for line in ran.error_lines if line.startswith("gpuprof: error:")]
    assert len(errors) == 1 and str(out) in errors[0], ran.stderr[-2000:]
    assert "Job profile" in ran.stderr  # the summary is still shown
    job = python_job("import time; time.sleep(2)")
    out = tmp_path / "f2.gpuprof"
    ran = run_profile(tmp_path, job, "--demo", "--out", str(out), file_size_limit=120 * 1024)
    assert ran.returncode == 2  # the job succeeded: the failed write decides
    assert sum(line.startswith("gpuprof: error:") for line in ran.error_lines) == 1


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--out", "{tmp}/missing/x.gpuprof"], "missing"),
        (["--out", "{tmp}/exists.gpuprof"], "exists.gpuprof"),
        (["--out", "{tmp}"], "--out"),
        (["--json", "{tmp}/missing/x.json"], "missing"),
        (["--out", "/proc/x.gpuprof"], "/proc/x.gpuprof"),
    ],
    ids=["missing-folder", "exists", "a-folder", "json-missing-folder", "unwritable"],
)
@pytest.mark.slow
def test_a_place_that_cannot_take_the_recording_stops_before_the_job(
    tmp_path: Path, args: list[str], names: str
) -> None:
    (tmp_path / "exists.gpuprof").write_text("keep me")
    ran_file = tmp_path / "the-job-ran"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    ran = run_gpuprof(
        ["profile", *argv, "--", sys.executable, "-c", f"open({str(ran_file)!r}, 'w')"], tmp_path
    )
    assert_one_clear_error(ran, names)
    assert not ran_file.exists()
    assert (tmp_path / "exists.gpuprof").read_text() == "keep me"


def test_writing_into_a_closed_or_read_only_store_is_refused(tmp_path: Path) -> None:
    path = _job_recording(tmp_path)
    with SessionStore.open(path) as store:
        with pytest.raises(InputError, match="not open for writing"):
            write_job_profile(store, PROFILE)
        with pytest.raises(InputError, match="not open for writing"):
            append_markers(store, [GOOD])


# --- a job whose command line or name is not UTF-8 --------------------------------------------

#: A Latin-1 byte that is not UTF-8: Python hands it to gpuprof as the lone surrogate '\udcff'
#: (surrogateescape), the way psutil gives such a command line of another process.
NOT_UTF8 = os.fsdecode(b"caf\xe9-\xff")
#: The job writes the bytes of its last argument to its first and exits 3.
ECHO_ARG = "import os, sys; open(sys.argv[1], 'wb').write(os.fsencode(sys.argv[2])); sys.exit(3)"


@pytest.mark.parametrize("where", ["argument", "name", "both"])
@pytest.mark.slow
def test_a_job_whose_command_or_name_is_not_utf8_runs_and_is_recorded(
    tmp_path: Path, where: str
) -> None:
    out, summary, echoed = tmp_path / "job.gpuprof", tmp_path / "job.json", tmp_path / "echoed"
    arg = NOT_UTF8 if where in ("argument", "both") else "plain"
    name = ["--name", NOT_UTF8] if where in ("name", "both") else []
    command = [sys.executable, "-c", ECHO_ARG, str(echoed), arg]
    outputs = ["--out", str(out), "--json", str(summary)]
    ran = run_gpuprof(
        ["profile", "--demo", "--interval", "0.1", *outputs, *name, "--", *command], tmp_path
    )
    assert "Traceback" not in ran.stderr and "error" not in ran.stderr.lower(), ran.stderr
    assert ran.returncode == 3, ran.stderr  # the job ran, and its exit code passed through
    assert echoed.read_bytes() == os.fsencode(arg)  # with the very bytes it was given
    with SessionStore.open(out, warn=False) as store:
        # Stored losslessly (ASCII JSON escapes, like a snapshot's command lines)...
        assert store.meta["job"]["command"] == command
        assert store.meta["job"]["name"] == (NOT_UTF8 if name else "")
        profile = read_job_profile(store)
    assert profile is not None and list(profile.command) == command
    # ...and shown as valid UTF-8 everywhere it leaves gpuprof.
    shown = loads_strict(summary.read_text(encoding="utf-8"))
    assert isinstance(shown, dict)
    replayed = run_gpuprof(["replay", "--json", str(out)], tmp_path)
    assert replayed.returncode == 0 and replayed.stdout, replayed.stderr


def test_a_recording_that_cannot_be_created_leaves_no_stub(tmp_path: Path) -> None:
    """Whatever stops :meth:`SessionStore.create` half-way, no empty file takes the name."""
    out = tmp_path / "stub.gpuprof"
    with pytest.raises(TypeError):
        SessionStore.create(out, meta={"not JSON": object()})
    assert list(tmp_path.iterdir()) == []


# --- attaching to a process whose first thread has ended ---------------------------------------

#: A live process whose main thread has ended (``pthread_exit``) while a worker thread runs on
#: until the file ``argv[1]`` exists: ``/proc/PID/stat`` says ``Z`` (``ps``: ``<defunct>``),
#: yet the process runs. Launchers and thread-pool servers end up so.
LEADER_GONE = """
import ctypes, os, sys, threading, time
def work():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.02)
threading.Thread(target=work).start()
ctypes.CDLL(None).pthread_exit(None)
"""


def _leader_gone(go: Path) -> subprocess.Popen[bytes]:
    """A running :data:`LEADER_GONE`, once its main thread has ended."""
    import psutil

    if not sys.platform.startswith("linux"):
        pytest.skip("the zombie thread-group leader is Linux's")
    target = subprocess.Popen([sys.executable, "-c", LEADER_GONE, str(go)])
    deadline = time.monotonic() + TIMEOUT_S
    while psutil.Process(target.pid).status() != psutil.STATUS_ZOMBIE:
        assert target.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    return target


def test_a_running_process_whose_main_thread_ended_is_alive(tmp_path: Path) -> None:
    import psutil

    from gpuprof.profile.tree import ProcessTree, has_exited

    go = tmp_path / "go"
    target = _leader_gone(go)
    try:
        tree = ProcessTree(target.pid)
        assert not has_exited(psutil.Process(target.pid)) and tree.root_alive
        assert tree.refresh().processes == 1  # read, not counted as gone
        go.touch()
        deadline = time.monotonic() + TIMEOUT_S
        while tree.root_alive:  # all its threads ended: now it has exited (not reaped yet)
            assert time.monotonic() < deadline, "still alive after its last thread ended"
            time.sleep(0.02)
        assert has_exited(psutil.Process(target.pid))
    finally:
        go.touch()
        target.wait(TIMEOUT_S)


PROFILE_CMD = [sys.executable, "-m", "gpuprof", "profile", "--demo", "--interval", "0.1"]


def test_attach_follows_a_process_whose_main_thread_ended(tmp_path: Path) -> None:
    """Such a process was "already exited" for ``--attach`` (refused, exit 2), and the profile
    of one that passed the check ended at its first poll while the job ran on."""
    go, out, summary = tmp_path / "go", tmp_path / "a.gpuprof", tmp_path / "a.json"
    target = _leader_gone(go)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GPUPROF_LANG="en")
    env.update(GPUPROF_DATA_DIR=str(tmp_path / "data"), GPUPROF_CONFIG_DIR=str(tmp_path / "cfg"))
    try:
        profiler = subprocess.Popen(
            [*PROFILE_CMD, "--attach", str(target.pid), "--out", str(out), "--json", str(summary)],
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + TIMEOUT_S
        while not out.exists() and profiler.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # a few polls while the job runs
        still_profiling = profiler.poll() is None
        go.touch()  # the job ends by itself: the profile follows it to its end
        _, err = profiler.communicate(timeout=TIMEOUT_S)
    finally:
        go.touch()
        target.wait(TIMEOUT_S)
    assert profiler.returncode == 0 and "exited" not in err, err
    assert still_profiling, err
    doc = loads_strict(summary.read_text(encoding="utf-8"))
    assert doc["attached"] is True and doc["pid"] == target.pid and doc["wall_s"] > 0
