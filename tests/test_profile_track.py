"""``gpuprof.track``: markers in the protocol, standalone recordings, faults, forks, threads."""

from __future__ import annotations

import itertools
import logging
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

import gpuprof
from gpuprof.profile import markers as mk
from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.profile.storage import read_job_profile, read_markers
from gpuprof.profile.track import Tracker, track
from gpuprof.telemetry.model import SourceKind
from gpuprof.telemetry.store import SessionStore

ROOT = Path(__file__).resolve().parents[1]
_ids = itertools.count()


def unique(name: str) -> str:
    """Run names are unique per process: each test takes its own."""
    return f"{name}-{os.getpid()}-{next(_ids)}"


def read(path: Path) -> tuple[list[mk.Marker], int]:
    return mk.parse_lines(path.read_bytes().splitlines())


def run_python(
    code: str, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
        timeout=timeout,
    )


@pytest.fixture
def marker_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "markers.jsonl"
    path.touch()
    monkeypatch.setenv(mk.ENV_VAR, str(path))
    monkeypatch.delenv("GPUPROF_TORCH_DIR", raising=False)
    return path


def test_markers_in_the_protocol(marker_file: Path) -> None:
    name = unique("train")
    with gpuprof.track(name) as t:
        t.step(tokens=512, samples=32, flops=1.5e12)
        t.step(tokens=512)
        t.mark("eval")
        t.step()
    assert t.steps == 3
    found, skipped = read(marker_file)
    assert skipped == 0
    assert [type(m).__name__ for m in found] == [
        "PhaseMark",
        "StepMarker",
        "StepMarker",
        "PhaseMark",
        "StepMarker",
        "PhaseMark",
    ]
    start, s1, s2, eval_, s3, end = found
    assert isinstance(start, PhaseMark) and start.kind == "start"
    assert isinstance(end, PhaseMark) and end.kind == "end"
    assert isinstance(eval_, PhaseMark) and (eval_.kind, eval_.label) == ("mark", "eval")
    assert all(m.run == name and m.pid == os.getpid() for m in found)
    assert isinstance(s1, StepMarker) and isinstance(s2, StepMarker) and isinstance(s3, StepMarker)
    assert [s1.step, s2.step, s3.step] == [1, 2, 3]
    assert (s1.tokens, s1.samples, s1.flops) == (512, 32, 1.5e12)
    assert (s2.tokens, s2.samples, s2.flops) == (512, None, None)
    assert s3.tokens is None
    times = [m.time_s for m in found]
    assert times == sorted(times)
    # Each duration is the time since the step before (the first: since the start).
    assert s1.duration_s is not None and s1.duration_s <= s1.time_s - start.time_s + 1e-3
    assert all(s.duration_s is not None and s.duration_s >= 0 for s in (s1, s2, s3))
    # The hand-formatted step line is the protocol: it survives a round trip through encode.
    for line in marker_file.read_bytes().splitlines():
        marker = mk.decode_line(line)
        assert mk.decode_line(mk.encode(marker)) == marker


def test_repeated_and_nested_tracks_get_their_own_run_names(marker_file: Path) -> None:
    name = unique("job")
    with track(name) as outer:
        with track(name) as inner:
            inner.step()
        outer.step()
    with track(name) as again:
        again.step()
    assert len({outer.run, inner.run, again.run}) == 3
    assert outer.run == name and inner.run == f"{name}-2" and again.run == f"{name}-3"
    found, _ = read(marker_file)
    runs = [m.run for m in found if isinstance(m, StepMarker)]
    assert runs == [inner.run, outer.run, again.run]


def test_bad_step_counts_are_left_out_with_one_warning(
    marker_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track(unique("bad")) as t:
        t.step(tokens=float("nan"), samples=-1, flops="lots")  # type: ignore[arg-type]
        t.step(tokens=float("inf"), samples=8)
    found, skipped = read(marker_file)
    steps = [m for m in found if isinstance(m, StepMarker)]
    assert skipped == 0 and len(steps) == 2
    assert (steps[0].tokens, steps[0].samples, steps[0].flops) == (None, None, None)
    assert (steps[1].tokens, steps[1].samples) == (None, 8)
    assert len([r for r in caplog.records if "not a finite" in r.getMessage()]) == 1


def test_a_label_that_cannot_be_made_text_never_raises(marker_file: Path) -> None:
    """``mark`` never raises into the loop, not even for a label whose ``str()`` fails."""

    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    with track(unique("label")) as t:
        t.mark(Broken())  # type: ignore[arg-type]
        t.step()
    found, skipped = read(marker_file)
    labels = [m.label for m in found if isinstance(m, PhaseMark) and m.kind == "mark"]
    assert skipped == 0 and labels == ["?"]
    assert len([m for m in found if isinstance(m, StepMarker)]) == 1


def test_a_block_ended_by_another_thread_never_writes_to_a_reused_descriptor(
    marker_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step in one thread while another thread ends the block: the marker file's descriptor
    is not closed under the write, whose number the next file opened would take (here a file
    put at that number at once): the line went into that file."""
    victim = tmp_path / "next-file-opened"
    t = track(unique("race")).start()
    channel = t._channel
    assert channel is not None
    fd, real_write = channel.fd, os.write
    ender: list[threading.Thread] = []

    def end_and_reuse() -> None:
        channel.close()  # what the last block's stop() does
        reused = os.open(victim, os.O_WRONLY | os.O_CREAT, 0o600)  # often that number itself
        if reused != fd:
            os.dup2(reused, fd)
            os.close(reused)

    def write_meanwhile(n: int, data: bytes) -> int:
        if n == fd and not ender:
            ender.append(threading.Thread(target=end_and_reuse))
            ender[0].start()
            ender[0].join(timeout=0.5)  # a correctness wait: done unless it waits for the write
        return real_write(n, data)

    monkeypatch.setattr(os, "write", write_meanwhile)
    try:
        t.step()
    finally:
        monkeypatch.undo()
        ender[0].join()
        t.stop()
        os.close(fd)  # the file put at that number
    assert victim.read_bytes() == b""
    steps = [m for m in read(marker_file)[0] if isinstance(m, StepMarker)]
    assert len(steps) == 1


def test_a_full_disk_turns_markers_off_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    monkeypatch.setenv(mk.ENV_VAR, "/dev/full")  # every write: ENOSPC
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track(unique("full")) as t:
        for _ in range(50):
            t.step(tokens=1)
        t.mark("eval")
    assert t.steps == 50
    warned = [r.getMessage() for r in caplog.records if "cannot write markers" in r.getMessage()]
    assert len(warned) == 1 and "/dev/full" in warned[0]


def test_a_marker_file_that_cannot_be_opened_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(mk.ENV_VAR, str(tmp_path / "no-such-folder" / "m.jsonl"))
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track(unique("gone")) as t:
        t.step()
        t.mark("x")
    assert t.steps == 1
    assert len([r for r in caplog.records if "no-such-folder" in r.getMessage()]) == 1


def test_a_file_size_limit_mid_job_leaves_the_job_running(tmp_path: Path) -> None:
    # RLIMIT_FSIZE: the marker file stops growing at 2 KiB (EFBIG); the job finishes.
    markers = tmp_path / "m.jsonl"
    done = run_python(
        """
        import resource, gpuprof
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        with gpuprof.track("limited") as t:
            for _ in range(200):
                t.step(tokens=1)
        print("finished", t.steps)
        """,
        {mk.ENV_VAR: str(markers)},
    )
    assert done.returncode == 0, done.stderr
    assert "finished 200" in done.stdout
    assert done.stderr.count("cannot write markers") == 1, done.stderr
    found, _ = read(markers)
    steps = [m for m in found if isinstance(m, StepMarker)]
    assert 0 < len(steps) < 200
    assert [s.step for s in steps] == list(range(1, len(steps) + 1))


def test_markers_written_before_a_crash_are_kept(tmp_path: Path) -> None:
    markers = tmp_path / "m.jsonl"
    done = run_python(
        """
        import os, gpuprof
        t = gpuprof.track("crash").start()
        for _ in range(7):
            t.step()
        os._exit(9)  # no clean-up, no buffers flushed
        """,
        {mk.ENV_VAR: str(markers)},
    )
    assert done.returncode == 9
    found, skipped = read(markers)
    assert skipped == 0
    assert [m.step for m in found if isinstance(m, StepMarker)] == list(range(1, 8))


def test_forked_workers_write_their_own_pid(tmp_path: Path) -> None:
    markers = tmp_path / "m.jsonl"
    done = run_python(
        """
        import os, gpuprof
        with gpuprof.track("forks") as t:
            children = []
            for k in range(3):
                pid = os.fork()
                if pid == 0:
                    for _ in range(20):
                        t.step(samples=1)
                    t.mark("worker")
                    os._exit(0)
                children.append(pid)
            for _ in range(20):
                t.step(samples=1)
            for pid in children:
                os.waitpid(pid, 0)
            print(" ".join(map(str, [os.getpid(), *children])))
        """,
        {mk.ENV_VAR: str(markers)},
    )
    assert done.returncode == 0, done.stderr
    pids = [int(p) for p in done.stdout.split()]
    found, skipped = read(markers)
    assert skipped == 0
    steps = [m for m in found if isinstance(m, StepMarker)]
    assert {m.pid for m in steps} == set(pids)
    for pid in pids:
        assert len([m for m in steps if m.pid == pid]) == 20
    worker_marks = [m for m in found if isinstance(m, PhaseMark) and m.label == "worker"]
    assert {m.pid for m in worker_marks} == set(pids[1:])
    ends = [m for m in found if isinstance(m, PhaseMark) and m.kind == "end"]
    assert [m.pid for m in ends] == [pids[0]]  # the block ends once, in the parent


def test_thread_safe(marker_file: Path) -> None:
    threads, per_thread = 8, 250
    with track(unique("threads")) as t:

        def work() -> None:
            for _ in range(per_thread):
                t.step(tokens=3)

        pool = [threading.Thread(target=work) for _ in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
    found, skipped = read(marker_file)
    steps = [m for m in found if isinstance(m, StepMarker)]
    assert skipped == 0
    assert sorted(m.step for m in steps) == list(range(1, threads * per_thread + 1))
    assert t.steps == threads * per_thread


def test_standalone_records_telemetry_markers_and_the_job_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    monkeypatch.delenv("GPUPROF_TORCH_DIR", raising=False)
    out = tmp_path / "run.gpuprof"
    name = unique("alone")
    with track(name, interval=0.1, out=out) as t:
        assert t.recording == out
        for _ in range(12):
            t.step(tokens=100, samples=4)
        t.mark("eval")
    assert not list(tmp_path.glob("run.gpuprof*.markers"))
    with SessionStore.open(out) as store:
        assert store.count() >= 1
        assert store.source_kind is not SourceKind.SIMULATED
        assert store.state == "closed"
        found = read_markers(store)
        profile = read_job_profile(store)
    steps = [m for m in found if isinstance(m, StepMarker)]
    assert [m.step for m in steps] == list(range(1, 13))
    assert [m.label for m in found if isinstance(m, PhaseMark) and m.kind == "mark"] == ["eval"]
    assert profile is not None
    assert profile.name == name and profile.pid == os.getpid()
    assert profile.steps is not None and profile.steps.count == 12
    assert profile.steps.tokens_per_s is not None and profile.steps.tokens_per_s > 0


def test_standalone_default_out_is_in_the_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    monkeypatch.delenv("GPUPROF_TORCH_DIR", raising=False)
    with track("my run/1") as t:
        t.step()
        out = t.recording
    assert out is not None and out.exists()
    assert out.parent == Path(os.environ["GPUPROF_DATA_DIR"]) / "jobs"
    assert out.name.endswith("-my-run-1.gpuprof")


def test_standalone_that_cannot_record_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    out = tmp_path / "missing" / "run.gpuprof"
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track("x", out=out) as t:
        t.step()
        t.mark("m")
    assert t.steps == 1 and t.recording is None
    assert len([r for r in caplog.records if "cannot record" in r.getMessage()]) == 1


def test_standalone_whose_sampler_cannot_start_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No thread to be had (a process at its thread limit): one warning, the job goes on, and
    nothing opened for the recording is left open."""
    from gpuprof.telemetry.session import TelemetrySession

    def no_thread(_self: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    monkeypatch.setattr(TelemetrySession, "start", no_thread)
    fds_before = set(os.listdir("/proc/self/fd"))
    out = tmp_path / "run.gpuprof"
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track("x", out=out) as t:
        t.step()
        t.mark("m")
    assert t.steps == 1 and t.recording is None
    assert len([r for r in caplog.records if "cannot record" in r.getMessage()]) == 1
    assert set(os.listdir("/proc/self/fd")) <= fds_before
    assert list(tmp_path.iterdir()) == []  # no empty recording (nor its -wal) left behind


def test_standalone_whose_marker_file_cannot_be_made_leaves_no_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import secrets

    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    monkeypatch.setattr(secrets, "token_hex", lambda _n: "taken")
    out = tmp_path / "run.gpuprof"
    (tmp_path / "run.gpuprof.taken.markers").mkdir()  # the marker file's name is a folder
    with caplog.at_level(logging.WARNING, logger="gpuprof.track"), track("x", out=out) as t:
        t.step()
    assert t.recording is None
    assert len([r for r in caplog.records if "cannot record" in r.getMessage()]) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["run.gpuprof.taken.markers"]


def test_standalone_forked_worker_markers_reach_the_recording(tmp_path: Path) -> None:
    out = tmp_path / "run.gpuprof"
    done = run_python(
        f"""
        import os, gpuprof
        with gpuprof.track("fork-alone", out={str(out)!r}) as t:
            pid = os.fork()
            if pid == 0:
                for _ in range(5):
                    t.step()
                os._exit(0)
            os.waitpid(pid, 0)
            t.step()
        print(pid)
        """,
        {mk.ENV_VAR: ""},
    )
    assert done.returncode == 0, done.stderr
    child = int(done.stdout.split()[-1])
    with SessionStore.open(out) as store:
        steps = [m for m in read_markers(store) if isinstance(m, StepMarker)]
        profile = read_job_profile(store)
    assert len([m for m in steps if m.pid == child]) == 5
    assert len(steps) == 6
    assert profile is not None and profile.steps is not None and profile.steps.count == 6


class FakeWindow:
    def __init__(self) -> None:
        self.steps = 0
        self.closed = 0

    def step(self) -> None:
        self.steps += 1

    def close(self) -> None:
        self.closed += 1


def test_the_torch_window_is_stepped_and_closed(
    marker_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.profile import torch_window

    window = FakeWindow()
    monkeypatch.setenv(torch_window.ENV_VAR, str(tmp_path / "torch"))
    monkeypatch.setattr(torch_window, "window_from_env", lambda: window)
    with track(unique("torch")) as t:
        for _ in range(4):
            t.step()
    assert (window.steps, window.closed) == (4, 1)


def test_without_the_torch_window_module_one_warning(
    marker_file: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import gpuprof.profile

    monkeypatch.setitem(sys.modules, "gpuprof.profile.torch_window", None)  # ImportError
    monkeypatch.delattr(gpuprof.profile, "torch_window", raising=False)
    with (
        caplog.at_level(logging.WARNING, logger="gpuprof.track"),
        track(unique("notorch"), torch_profiler=True) as t,
    ):
        t.step()
        t.step()
    assert t.steps == 2
    warned = [r.getMessage() for r in caplog.records if "no time breakdown" in r.getMessage()]
    assert len(warned) == 1 and "no torch profiler support" in warned[0]


@pytest.mark.parametrize("interval", [0.0, 0.05, 61, float("nan"), "fast"])
def test_interval_is_checked_before_the_job_starts(interval: Any) -> None:
    with pytest.raises(ValueError, match="interval"):
        Tracker("x", interval=interval)


def test_import_and_track_cost_no_torch_nor_qt(tmp_path: Path) -> None:
    done = run_python(
        f"""
        import sys
        import gpuprof
        assert "gpuprof.profile" not in sys.modules, "import gpuprof loads the profile package"
        assert "numpy" not in sys.modules, "import gpuprof loads numpy"
        with gpuprof.track("under-profile") as t:  # the marker file of `gpuprof profile`
            t.step(tokens=1)
        import os
        del os.environ["{mk.ENV_VAR}"]
        with gpuprof.track("standalone", out={str(tmp_path / "r.gpuprof")!r}) as t:
            t.step(tokens=1)
        gpuprof.flops_per_token(1e9, 2048)
        heavy = [m for m in ("torch", "PySide6", "pyqtgraph") if m in sys.modules]
        print("heavy:", heavy)
        """,
        {mk.ENV_VAR: str(tmp_path / "m.jsonl"), "GPUPROF_TORCH_DIR": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "heavy: []" in done.stdout, done.stdout


@pytest.mark.slow
def test_train_small_standalone(tmp_path: Path) -> None:
    """The test job of tests/data runs standalone with real torch and leaves its profile,
    with the torch window's breakdown and its trace beside the recording."""
    pytest.importorskip("torch")
    out = tmp_path / "train.gpuprof"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "data" / "train_small.py"),
            *("--steps", "10", "--mark-eval", "--exit-code", "3", "--out", str(out)),
            "--torch-profiler",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, mk.ENV_VAR: "", "GPUPROF_TORCH_DIR": ""},
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip().endswith("done 10 steps")
    profile = read_job_profile(out)
    assert profile is not None and profile.steps is not None
    assert profile.steps.count == 10
    assert profile.steps.achieved_tflops is not None and profile.steps.achieved_tflops > 0
    with SessionStore.open(out) as store:
        labels = [m.label for m in read_markers(store) if isinstance(m, PhaseMark)]
    assert labels.count("eval") == 2
    assert profile.breakdown is not None and profile.breakdown.device == "cpu"
    assert sum(s.share_pct for s in profile.breakdown.shares) == pytest.approx(100.0, abs=0.01)
    assert (tmp_path / "train.trace.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.gpuprof", "train.trace.json"]


@pytest.mark.slow
def test_a_block_left_open_is_ended_at_exit(tmp_path: Path) -> None:
    out = tmp_path / "open.gpuprof"
    done = run_python(
        f"""
        import gpuprof
        t = gpuprof.track("left-open", out={str(out)!r}).start()
        for _ in range(4):
            t.step()
        """,
        {mk.ENV_VAR: ""},
    )
    assert done.returncode == 0, done.stderr
    profile = read_job_profile(out)
    assert profile is not None and profile.steps is not None and profile.steps.count == 4
    with SessionStore.open(out) as store:
        assert store.state == "closed"
        ends = [m for m in read_markers(store) if isinstance(m, PhaseMark) and m.kind == "end"]
    assert len(ends) == 1
