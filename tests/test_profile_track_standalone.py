"""``gpuprof.track`` standalone (issue 13): the block's own markers handed to the recorder in
memory, a longer interval's on disk at once, what a killed job keeps, the bound on markers
waiting in memory, the process tree from the kernel's children lists."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gpuprof.profile import markers as mk
from gpuprof.profile import track_standalone
from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.profile.storage import read_markers
from gpuprof.profile.track import track
from gpuprof.telemetry.store import SessionStore

ROOT = Path(__file__).resolve().parents[1]
_KERNEL_LISTS_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


@pytest.fixture(autouse=True)
def _standalone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(mk.ENV_VAR, raising=False)
    monkeypatch.delenv("GPUPROF_TORCH_DIR", raising=False)


def _steps_in(out: Path) -> list[StepMarker]:
    with SessionStore.open(out, warn=False) as store:
        return [m for m in read_markers(store) if isinstance(m, StepMarker)]


def _wait_for_steps(out: Path, n: int, timeout_s: float = 30.0) -> list[StepMarker]:
    """The recording's steps once it holds ``n`` (a correctness wait, not a speed test)."""
    deadline = time.monotonic() + timeout_s
    while True:
        steps = _steps_in(out)
        if len(steps) >= n or time.monotonic() > deadline:
            return steps
        time.sleep(0.05)


def test_own_markers_reach_the_recording_in_memory_while_the_block_runs(tmp_path: Path) -> None:
    out = tmp_path / "run.gpuprof"
    with track("in-memory", interval=0.1, out=out) as t:
        (beside,) = tmp_path.glob("run.gpuprof.*.markers")
        for _ in range(5):
            t.step(tokens=10, samples=2, flops=3e9)
        t.mark("eval")
        steps = _wait_for_steps(out, 5)
        assert [s.step for s in steps] == [1, 2, 3, 4, 5]
        assert steps[0].tokens == 10 and steps[0].samples == 2 and steps[0].flops == 3e9
        assert beside.stat().st_size == 0  # nothing went through the file
    with SessionStore.open(out) as store:
        found = read_markers(store)
    kinds = [m.kind for m in found if isinstance(m, PhaseMark)]
    assert kinds == ["start", "mark", "end"]
    assert [m.step for m in found if isinstance(m, StepMarker)] == [1, 2, 3, 4, 5]
    assert all(m.pid == os.getpid() and m.run == "in-memory" for m in found)


def test_a_longer_interval_keeps_every_marker_on_disk_at_once(tmp_path: Path) -> None:
    out = tmp_path / "slow.gpuprof"
    with track("on-disk", interval=1.0, out=out) as t:
        (beside,) = tmp_path.glob("slow.gpuprof.*.markers")
        for _ in range(3):
            t.step()
        found, skipped = mk.parse_lines(beside.read_bytes().splitlines())
        assert skipped == 0
        assert [m.step for m in found if isinstance(m, StepMarker)] == [1, 2, 3]
    assert [s.step for s in _steps_in(out)] == [1, 2, 3]
    assert not beside.exists()


@pytest.mark.slow
def test_a_killed_job_keeps_all_but_its_last_second(tmp_path: Path) -> None:
    """``kill -9`` two seconds after the last marker: every marker and sample is in the
    recording (at 0.1 s, one is at most 0.6 s from being committed)."""
    out = tmp_path / "killed.gpuprof"
    code = f"""
        import os, signal, time, gpuprof
        t = gpuprof.track("killed", interval=0.1, out={str(out)!r}).start()
        for _ in range(40):
            time.sleep(0.01)
            t.step(tokens=8)
        t.mark("last")
        time.sleep(2.0)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, mk.ENV_VAR: ""},
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    with SessionStore.open(out, warn=False) as store:
        assert store.state == "recording"  # not closed: killed
        found = read_markers(store)
        samples = store.count()
    assert [m.step for m in found if isinstance(m, StepMarker)] == list(range(1, 41))
    assert [m.label for m in found if isinstance(m, PhaseMark) and m.kind == "mark"] == ["last"]
    assert samples >= 10  # two seconds and more of polls at 0.1 s


@pytest.mark.slow
def test_markers_waiting_past_the_bound_warn_once_and_the_newest_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(track_standalone, "MAX_PENDING", 5)
    out = tmp_path / "stuck.gpuprof"
    with (
        caplog.at_level(logging.WARNING, logger="gpuprof.track"),
        track("stuck", interval=0.1, out=out) as t,
    ):
        recorder = t._channel.recorder if t._channel is not None else None
        assert recorder is not None
        _wait_for_phase(out, "start")
        with recorder._lock:  # the sampler thread cannot take them meanwhile
            for _ in range(12):
                t.step()
        _wait_for_steps(out, 5)
        for _ in range(2):
            t.step()
    warned = [r for r in caplog.records if "waited for the telemetry thread" in r.getMessage()]
    assert len(warned) == 1
    assert [s.step for s in _steps_in(out)] == [8, 9, 10, 11, 12, 13, 14]


def _wait_for_phase(out: Path, kind: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with SessionStore.open(out, warn=False) as store:
            if any(isinstance(m, PhaseMark) and m.kind == kind for m in read_markers(store)):
                return
        time.sleep(0.05)
    raise AssertionError(f"no {kind} marker in {out}")


@pytest.mark.skipif(not _KERNEL_LISTS_CHILDREN, reason="no /proc/PID/task/TID/children here")
def test_the_tree_comes_from_the_kernels_children_lists() -> None:
    child = subprocess.Popen(
        ["sh", "-c", "sleep 30 & echo $!; wait"], stdout=subprocess.PIPE, text=True
    )
    grandchild = 0
    try:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        found = track_standalone.tree_children([os.getpid()])
        assert child.pid in [p.pid for p in found[os.getpid()]]
        assert [p.pid for p in found[child.pid]] == [grandchild]
        assert all(p.pid != os.getppid() for kids in found.values() for p in kids)
    finally:
        if grandchild:
            with contextlib.suppress(OSError):
                os.kill(grandchild, signal.SIGKILL)
        child.kill()
        child.communicate()


#: Forks B (which, once ``argv[2]`` exists, starts C and writes its pid to ``argv[3]``),
#: prints B's pid, and exits once ``argv[1]`` exists.
ORPHANING = """
import os, subprocess, sys, time
def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.02)
pid = os.fork()
if pid == 0:
    wait_for(sys.argv[2])
    c = subprocess.Popen(["sleep", "30"])
    with open(sys.argv[3] + ".tmp", "w") as fh:
        fh.write(str(c.pid))
    os.rename(sys.argv[3] + ".tmp", sys.argv[3])
    time.sleep(30)
    os._exit(0)
print(pid, flush=True)
wait_for(sys.argv[1])
"""


def test_the_tree_finds_the_children_of_a_process_whose_parent_exited(tmp_path: Path) -> None:
    """B stays in the tree after its parent A exits (it is no longer below the block's
    process): a child it starts then is found all the same, as by a pass over every process."""
    from gpuprof.profile.tree import ProcessTree

    release_a, go, c_file = tmp_path / "release-a", tmp_path / "go", tmp_path / "c-pid"
    a = subprocess.Popen(
        [sys.executable, "-c", ORPHANING, str(release_a), str(go), str(c_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    b = c = 0
    try:
        assert a.stdout is not None
        b = int(a.stdout.readline())
        tree = ProcessTree(os.getpid(), children=track_standalone.tree_children)
        tree.refresh()
        assert {a.pid, b} <= tree.pids
        release_a.touch()
        a.wait(timeout=30)
        tree.refresh()
        go.touch()
        deadline = time.monotonic() + 30.0
        while not c_file.exists():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        c = int(c_file.read_text())
        tree.refresh()
        assert c in tree.pids
    finally:
        for pid in (c, b):
            if pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if a.poll() is None:
            a.kill()
        a.communicate()


@pytest.mark.slow
def test_a_standalone_profile_counts_a_child_process(tmp_path: Path) -> None:
    out = tmp_path / "tree.gpuprof"
    with track("tree", interval=0.1, out=out) as t:
        recorder = t._channel.recorder if t._channel is not None else None
        assert recorder is not None and recorder.tree is not None
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.0)"])
        recorder._next_tree_s = 0.0  # look at the tree at the next poll
        deadline = time.monotonic() + 30.0
        while child.pid not in recorder.tree.pids and time.monotonic() < deadline:
            time.sleep(0.05)
        child.wait()
    assert child.pid in recorder.tree.pids


def test_files_of_the_users_beside_the_recording_are_left_alone(tmp_path: Path) -> None:
    """The block's marker file and torch folder have names of their own: a file or folder
    the user keeps under ``OUT.markers`` / ``OUT.torch`` is neither truncated nor deleted."""
    out = tmp_path / "run.gpuprof"
    mine = out.with_name(out.name + ".markers")
    mine.write_text("my notes\n")
    folder = out.with_name(out.name + ".torch")
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    with track("neighbours", interval=1.0, out=out) as t:
        t.step()
    assert [s.step for s in _steps_in(out)] == [1]
    assert mine.read_text() == "my notes\n"
    assert (folder / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run.gpuprof",
        "run.gpuprof.markers",
        "run.gpuprof.torch",
    ]
