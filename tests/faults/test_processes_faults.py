"""Processes under faults: what the process readers take from the system (``/proc/PID/cgroup``,
``/proc/PID/stat``, the kubelet's files) and what ``gpuprof kill`` takes from the user.

Every hostile file of :func:`hostile_files` in place of each system file gives "unknown" (no
container, no pod name, no CPU or memory figures), never an exception or a wrong value; every
hostile PID is one usage error naming it; text from a process reaches the terminal neutralised.
"""

from __future__ import annotations

import argparse
import io
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gpuprof.telemetry.containers import ContainerResolver, Placement, PodDirectory
from gpuprof.telemetry.procstat import HostUsage, ProcessUsageReader
from tests.faults.hostile import assert_one_clear_error, hostile_files, run_gpuprof

POD_UID = "af2eb608-5a1f-42fa-bff3-e8059ec0f31f"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return hostile_files(tmp_path_factory.mktemp("hostile"))


def _place(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        dest.mkdir()
    elif src.exists():
        shutil.copyfile(src, dest)
    # missing: leave nothing there


def test_hostile_cgroup_files_give_no_container(hostile: dict[str, Path], tmp_path: Path) -> None:
    handled = 0
    for k, (name, path) in enumerate(sorted(hostile.items())):
        pid = 100 + k
        _place(path, tmp_path / "proc" / str(pid) / "cgroup")
        got = ContainerResolver(proc_root=str(tmp_path / "proc"), root=str(tmp_path)).placement(pid)
        assert got == Placement(), name
        handled += 1
    assert handled == len(hostile) >= 10


def test_hostile_kubelet_hosts_files_name_no_pod(hostile: dict[str, Path], tmp_path: Path) -> None:
    for name, path in sorted(hostile.items()):
        root = tmp_path / name
        _place(path, root / "var" / "lib" / "kubelet" / "pods" / POD_UID / "etc-hosts")
        got = PodDirectory(str(root)).lookup(POD_UID)
        assert got == (None, None), name


def test_hostile_log_folder_names_are_ignored(tmp_path: Path) -> None:
    logs = tmp_path / "var" / "log" / "pods"
    logs.mkdir(parents=True)
    for entry in (
        f"NS_Upper_{POD_UID}",  # not DNS names
        f"a_b_c_{POD_UID}",  # one part too many
        f"ns_\u202eevil_{POD_UID}",
        f"ns_name\x1b[31m_{POD_UID}",
        f"_name_{POD_UID}",
    ):
        (logs / entry).mkdir()
    assert PodDirectory(str(tmp_path)).lookup(POD_UID) == (None, None)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")
def test_hostile_stat_files_give_no_figures(hostile: dict[str, Path], tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    reader = ProcessUsageReader(proc_root=str(proc))
    pids = []
    for k, (name, path) in enumerate(sorted(hostile.items())):
        pid = 100 + k
        _place(path, proc / str(pid) / "stat")
        pids.append((pid, name))
    got = reader.read([pid for pid, _ in pids])
    for pid, name in pids:
        usage = got[pid]
        # A file of 'A's or random bytes may hold a ")" by chance: no CPU % either way.
        assert usage.cpu_pct is None, name
        assert usage == HostUsage() or name in ("random-bytes", "huge", "truncated"), (name, usage)
    reader.close()


@pytest.mark.parametrize(
    "value", ["0", "-1", "nan", "inf", "1e999", "abc", "", "2.5", "0x10", " ", "--"]
)
@pytest.mark.slow
def test_hostile_pid_is_one_usage_error(value: str, tmp_path: Path) -> None:
    ran = run_gpuprof(["kill", f"{value}", "--yes"], tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    errors = [line for line in ran.error_lines if "error" in line]
    assert len(errors) == 1, ran.stderr


@pytest.mark.parametrize("value", ["99999999", "4194305", "9" * 40])
@pytest.mark.slow
def test_a_pid_no_process_has_is_one_clear_error(value: str, tmp_path: Path) -> None:
    ran = run_gpuprof(["kill", value, "--yes"], tmp_path)
    assert_one_clear_error(ran, f"no process with pid {value}")


def test_text_of_a_process_reaches_the_terminal_neutralised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpuprof.commands import kill as kill_cmd

    monkeypatch.setattr(kill_cmd, "gpu_use", lambda pid: [])
    hostile_arg = "\x1b]0;owned\x07\x1b[2J\u202etxt.exe --password=hunter2"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", hostile_arg])
    try:

        class Tty(io.StringIO):
            def isatty(self) -> bool:
                return True

        out = io.StringIO()
        args = argparse.Namespace(pid=proc.pid, signal="TERM", yes=False)
        assert kill_cmd.cmd_kill(args, stdin=Tty("n\n"), stdout=out) == 1
        text = out.getvalue()
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "hunter2" not in text and "--password=***" in text
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


#: Ways to write a pid that ``int()`` takes and a pid must not: spaces, a sign, ``_``, an
#: exponent, other scripts' digits. Each is made from a child's own pid, so a regression signals
#: only that child (and the test sees it).
NOT_ONLY_DIGITS = {
    "space before": " {p}",
    "space after": "{p} ",
    "tab": "\t{p}",
    "newline": "{p}\n",
    "plus sign": "+{p}",
    "underscore": "{p1}_{rest}",
    "exponent": "{p}e0",
    "arabic-indic digits": "{arabic}",
}


@pytest.mark.parametrize("form", list(NOT_ONLY_DIGITS.values()), ids=list(NOT_ONLY_DIGITS))
def test_a_pid_with_anything_but_digits_is_refused(form: str, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        p = str(proc.pid)
        arabic = p.translate({ord(d): chr(0x0660 + int(d)) for d in "0123456789"})
        value = form.format(p=p, p1=p[0], rest=p[1:], arabic=arabic)
        ran = run_gpuprof(["kill", value, "--yes"], tmp_path)
        assert_one_clear_error(ran, "PID")
        assert "about to send" not in ran.stdout
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_pid_in_plain_digits_is_read_as_it_is(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        ran = run_gpuprof(["kill", f"0{proc.pid}", "--yes"], tmp_path)  # a leading 0 is digits
        assert ran.returncode == 0, ran.stderr
        assert proc.wait(timeout=10) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
