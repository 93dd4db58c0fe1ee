"""``gpuprof profile`` on a terminal (issue 13): the job may read it, Ctrl-C and Ctrl-Z behave.

Every test runs the real ``python -m gpuprof profile`` as the session leader of a real
pseudo-terminal (``pty.fork``: the pty is its controlling terminal and it is in the
foreground, as under a shell) with a real child job. Before the job was given the terminal,
a job that read it was stopped by SIGTTIN for ever: the first test hung.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from gpuprof.profile.foreground import TerminalHandoff
from gpuprof.profile.storage import read_job_profile
from tests.faults.hostile import ROOT, TIMEOUT_S

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals")

#: Catches SIGINT / SIGTERM: writes the signal's name to argv[1], exits 7.
CATCHER = """
import signal, sys, time
got = sys.argv[1]
def caught(signo, _frame):
    with open(got, "a") as fh:
        fh.write(signal.Signals(signo).name + "\\n")
    sys.exit(7)
signal.signal(signal.SIGINT, caught)
signal.signal(signal.SIGTERM, caught)
open(got + ".ready", "w").close()
for _ in range(600):
    time.sleep(0.1)
"""


class PtyRun:
    """``python -m gpuprof ARGS`` on a fresh pty; read what it shows, type, wait for it."""

    def __init__(self, args: list[str], home: Path) -> None:
        env = dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            GPUPROF_DATA_DIR=str(home / "data"),
            GPUPROF_CONFIG_DIR=str(home / "config"),
            GPUPROF_LANG="en",
            COLUMNS="200",
        )
        argv = [sys.executable, "-m", "gpuprof", *args]
        pid, fd = pty.fork()
        if pid == 0:  # the child: session leader, the pty its controlling terminal
            try:
                os.chdir(home)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = b""
        self.status: int | None = None

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: every process holding the terminal has exited
            return False
        self.output += data
        return bool(data)

    def expect(self, text: bytes, timeout: float = TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert time.monotonic() < deadline, f"no {text!r} in {self.text()!r}"
            if not self._read(0.1):
                assert text in self.output, f"no {text!r} in {self.text()!r}"

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_stopped(self, timeout: float = TIMEOUT_S) -> None:
        """Until gpuprof itself is stopped (what a shell sees after Ctrl-Z)."""
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
            if pid:
                assert os.WIFSTOPPED(status), f"not stopped: {status} {self.text()!r}"
                return
            assert time.monotonic() < deadline, f"gpuprof never stopped: {self.text()!r}"
            self._read(0.05)

    def wait(self, timeout: float = TIMEOUT_S) -> int:
        """gpuprof's exit code (the job's, passed through); a hang fails the test."""
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._read(0.05):  # what is left on the terminal
                    pass
                os.close(self.fd)
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"gpuprof hung on the terminal: {self.text()!r}")
            self._read(0.05)

    def kill(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(self.pid), signal.SIGKILL)  # its session's first group
            os.waitpid(self.pid, 0)
            self.status = -9
            os.close(self.fd)

    def text(self) -> str:
        return self.output.decode("utf-8", "replace")


@pytest.fixture
def on_pty(tmp_path: Path):
    runs: list[PtyRun] = []

    def start(*args: str) -> PtyRun:
        run = PtyRun(list(args), tmp_path)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.kill()  # only when a failed test left it running


def _profile(out: Path, *cmd: str) -> list[str]:
    return ["profile", "--interval", "0.1", "--out", str(out), "--", *cmd]


def test_the_job_reads_the_terminal(tmp_path: Path, on_pty) -> None:
    out = tmp_path / "read.gpuprof"
    run = on_pty(*_profile(out, sys.executable, "-c", "print('got:' + input().upper())"))
    run.send(b"hello gpuprof\n")
    assert run.wait() == 0, run.text()
    assert "got:HELLO GPUPROF" in run.text()
    assert "saved the recording" in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 0


def test_a_job_that_reads_at_once_is_not_left_stopped(tmp_path: Path, on_pty) -> None:
    """``sh`` reads before a Python job would have started: if it reads in the instant before
    the terminal is its own, it is continued once it is."""
    out = tmp_path / "sh.gpuprof"
    run = on_pty(*_profile(out, "sh", "-c", 'read line; echo "sh got:$line"; exit 4'))
    run.send(b"typed ahead\n")
    assert run.wait() == 4, run.text()
    assert "sh got:typed ahead" in run.text()


def test_ctrl_c_reaches_the_job_once_then_the_profile_is_saved(tmp_path: Path, on_pty) -> None:
    script, got = tmp_path / "catcher.py", tmp_path / "got.txt"
    script.write_text(CATCHER)
    out = tmp_path / "int.gpuprof"
    run = on_pty(*_profile(out, sys.executable, str(script), str(got)))
    deadline = time.monotonic() + TIMEOUT_S
    while not Path(f"{got}.ready").exists():
        assert time.monotonic() < deadline, run.text()
        run._read(0.05)
    run.send(b"\x03")  # Ctrl-C at the terminal (ISIG): SIGINT to the foreground group
    assert run.wait() == 7, run.text()  # the job's own exit code after it handled it
    assert got.read_text().split() == ["SIGINT"]  # once: gpuprof did not forward a second one
    assert "saved the recording" in run.text() and "Traceback" not in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 7


def test_sigterm_to_gpuprof_still_goes_to_the_job_on_a_terminal(tmp_path: Path, on_pty) -> None:
    """The job holds the terminal; a SIGTERM sent to gpuprof itself is forwarded to it."""
    script, got = tmp_path / "catcher.py", tmp_path / "got.txt"
    script.write_text(CATCHER)
    out = tmp_path / "term.gpuprof"
    run = on_pty(*_profile(out, sys.executable, str(script), str(got)))
    deadline = time.monotonic() + TIMEOUT_S
    while not Path(f"{got}.ready").exists():
        assert time.monotonic() < deadline, run.text()
        run._read(0.05)
    assert os.tcgetpgrp(run.fd) != os.getpgid(run.pid)  # the job's group has the terminal
    os.kill(run.pid, signal.SIGTERM)
    assert run.wait() == 7, run.text()
    assert got.read_text().split() == ["SIGTERM"]
    assert "saved the recording" in run.text()


def test_a_job_killed_in_raw_mode_leaves_the_terminal_as_it_was(tmp_path: Path, on_pty) -> None:
    """A full-screen program killed by a signal leaves the terminal raw: gpuprof puts back the
    modes of before the job (as a shell does), then prints its summary."""
    import termios

    out = tmp_path / "raw.gpuprof"
    job = "import os, signal, tty\ntty.setraw(0)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    run = on_pty(*_profile(out, sys.executable, "-c", job))
    before = termios.tcgetattr(run.fd)[3]  # lflag, as the pty started: canonical, echo
    assert before & termios.ICANON and before & termios.ECHO
    run.expect(b"saved the recording")
    after = termios.tcgetattr(run.fd)[3]
    assert run.wait() == 128 + signal.SIGKILL, run.text()
    assert after & termios.ICANON and after & termios.ECHO


def test_ctrl_z_stops_gpuprof_with_the_job_and_fg_continues_both(tmp_path: Path, on_pty) -> None:
    """The job stops (here it sends itself SIGTSTP, as Ctrl-Z would): gpuprof takes the
    terminal back and stops too, so the shell sees it stopped; continued in the foreground
    (``fg``), it gives the job the terminal again and the job goes on reading it."""
    out = tmp_path / "tstp.gpuprof"
    job = (
        "import os, signal\n"
        "print('stopping', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGTSTP)\n"
        "print('again:' + input().upper())\n"
    )
    run = on_pty(*_profile(out, sys.executable, "-c", job))
    run.wait_stopped()
    assert os.tcgetpgrp(run.fd) == os.getpgid(run.pid)  # the terminal is gpuprof's again
    os.kill(run.pid, signal.SIGCONT)  # what the shell's fg does (gpuprof's group leads the pty)
    run.send(b"resumed\n")
    assert run.wait() == 0, run.text()
    assert "again:RESUMED" in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 0


def test_no_handoff_without_a_controlling_terminal_in_the_foreground() -> None:
    r, w = os.pipe()
    try:
        assert TerminalHandoff.open(r) is None  # a pipe
    finally:
        os.close(r)
        os.close(w)
    master, slave = pty.openpty()
    try:
        # A terminal, but not this process's controlling one (tcgetpgrp: ENOTTY).
        assert TerminalHandoff.open(slave) is None
    finally:
        os.close(master)
        os.close(slave)
