"""``gpuprof profile`` on a terminal (issue 13): the job may read it, Ctrl-C and Ctrl-Z behave.

Every test runs the real ``python -m gpuprof profile`` as the session leader of a real
pseudo-terminal (``pty.fork``: the pty is its controlling terminal and it is in the
foreground, as under a shell) with a real child job. Before the job was given the terminal,
a job that read it was stopped by SIGTTIN for ever: the first test hung. The Ctrl-Z tests run it
under a small shell with job control instead (FG_SHELL, JOB_SHELL), as a user's shell runs it:
the session leader's own group is orphaned, where the kernel discards stops from the terminal.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuprof.profile.foreground import TerminalHandoff
from gpuprof.profile.storage import read_job_profile
from tests.faults.hostile import ROOT, TIMEOUT_S, gpuprof_env
from tests.vtscreen import Screen

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

    def __init__(
        self,
        args: list[str],
        home: Path,
        *,
        size: tuple[int, int] | None = None,
        term: str = "xterm",
        stdin_null: bool = False,
        shell: list[str] | None = None,
    ) -> None:
        """``size``: (rows, columns) of the pty (else 0 x 0: unknown, as nobody sized it);
        ``stdin_null``: standard input not the terminal (no handoff: gpuprof keeps it);
        ``shell``: the session leader instead of gpuprof, given gpuprof's argv after its own."""
        env = gpuprof_env(
            home, PYTHONPATH=str(ROOT), COLUMNS=str(size[1]) if size else "200", TERM=term
        )
        if size:
            env["LINES"] = str(size[0])
        argv = [*(shell or []), sys.executable, "-m", "gpuprof", *args]
        pid, fd = pty.fork()
        if pid == 0:  # the child: session leader, the pty its controlling terminal
            try:
                os.chdir(home)
                if size:
                    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
                if stdin_null:
                    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
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

    def start(*args: str, **kwargs: Any) -> PtyRun:
        run = PtyRun(list(args), tmp_path, **kwargs)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.kill()  # only when a failed test left it running


def _profile(out: Path, *cmd: str) -> list[str]:
    return ["profile", "--interval", "0.1", "--out", str(out), "--", *cmd]


@pytest.mark.slow
def test_the_job_reads_the_terminal(tmp_path: Path, on_pty) -> None:
    out = tmp_path / "read.gpuprof"
    run = on_pty(*_profile(out, sys.executable, "-c", "print('got:' + input().upper())"))
    run.send(b"hello gpuprof\n")
    assert run.wait() == 0, run.text()
    assert "got:HELLO GPUPROF" in run.text()
    assert "saved the recording" in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 0


@pytest.mark.slow
def test_a_job_that_reads_at_once_is_not_left_stopped(tmp_path: Path, on_pty) -> None:
    """``sh`` reads before a Python job would have started: if it reads in the instant before
    the terminal is its own, it is continued once it is."""
    out = tmp_path / "sh.gpuprof"
    run = on_pty(*_profile(out, "sh", "-c", 'read line; echo "sh got:$line"; exit 4'))
    run.send(b"typed ahead\n")
    assert run.wait() == 4, run.text()
    assert "sh got:typed ahead" in run.text()


def _catcher_started(tmp_path: Path, on_pty: Any, name: str) -> tuple[Any, Path, Path]:
    """``gpuprof profile`` of the signal catcher on a terminal, once the job has set its
    handlers: (the terminal, the file the job writes what it got to, the recording)."""
    script, got = tmp_path / "catcher.py", tmp_path / "got.txt"
    script.write_text(CATCHER)
    out = tmp_path / f"{name}.gpuprof"
    run = on_pty(*_profile(out, sys.executable, str(script), str(got)))
    deadline = time.monotonic() + TIMEOUT_S
    while not Path(f"{got}.ready").exists():
        assert time.monotonic() < deadline, run.text()
        run._read(0.05)
    return run, got, out


@pytest.mark.slow
def test_ctrl_c_reaches_the_job_once_then_the_profile_is_saved(tmp_path: Path, on_pty) -> None:
    run, got, out = _catcher_started(tmp_path, on_pty, "int")
    run.send(b"\x03")  # Ctrl-C at the terminal (ISIG): SIGINT to the foreground group
    assert run.wait() == 7, run.text()  # the job's own exit code after it handled it
    assert got.read_text().split() == ["SIGINT"]  # once: gpuprof did not forward a second one
    assert "saved the recording" in run.text() and "Traceback" not in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 7


@pytest.mark.slow
def test_sigterm_to_gpuprof_still_goes_to_the_job_on_a_terminal(tmp_path: Path, on_pty) -> None:
    """The job holds the terminal; a SIGTERM sent to gpuprof itself is forwarded to it."""
    run, got, _ = _catcher_started(tmp_path, on_pty, "term")
    assert os.tcgetpgrp(run.fd) != os.getpgid(run.pid)  # the job's group has the terminal
    os.kill(run.pid, signal.SIGTERM)
    assert run.wait() == 7, run.text()
    assert got.read_text().split() == ["SIGTERM"]
    assert "saved the recording" in run.text()


@pytest.mark.slow
def test_a_job_killed_in_raw_mode_leaves_the_terminal_as_it_was(tmp_path: Path, on_pty) -> None:
    """A full-screen program killed by a signal leaves the terminal raw: gpuprof puts back the
    modes of before the job (as a shell does), then prints its summary."""

    out = tmp_path / "raw.gpuprof"
    job = "import os, signal, tty\ntty.setraw(0)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    run = on_pty(*_profile(out, sys.executable, "-c", job))
    before = termios.tcgetattr(run.fd)[3]  # lflag, as the pty started: canonical, echo
    assert before & termios.ICANON and before & termios.ECHO
    run.expect(b"saved the recording")
    after = termios.tcgetattr(run.fd)[3]
    assert run.wait() == 128 + signal.SIGKILL, run.text()
    assert after & termios.ICANON and after & termios.ECHO


#: How the two shells below start their command (argv[1:]) as a job of theirs: ``pid``, its
#: process group, in the foreground.
_SPAWN = """
pid = os.fork()
if pid == 0:  # as a shell's child: its own group, in the foreground, before the exec
    os.setpgid(0, 0)
    os.tcsetpgrp(0, os.getpid())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execvp(sys.argv[1], sys.argv[1:])
try:
    os.setpgid(pid, pid)
except PermissionError:
    pass  # the child got there first and has run its command
os.tcsetpgrp(0, pid)
"""

#: The session leader of the pty for the Ctrl-Z tests: a shell with job control reduced to what
#: they need. Its command (argv[1:]) runs in a process group of its own in the foreground (so
#: that group is not orphaned: stops from the terminal apply to it); each time it stops, the
#: shell says whether that group held the terminal, takes it, then does ``fg``.
FG_SHELL = (
    """
import os, signal, sys
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
"""
    + _SPAWN
    + """
while True:
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        break
    held = os.tcgetpgrp(0) == pid
    os.tcsetpgrp(0, os.getpgrp())
    print("shell: stopped, the terminal " + ("given back" if held else "not given back"), flush=True)
    os.tcsetpgrp(0, pid)
    os.killpg(pid, signal.SIGCONT)
print(f"shell: exit {os.waitstatus_to_exitcode(status)}", flush=True)
"""
)
#: Stops itself as Ctrl-Z would stop it, then reads the terminal once continued.
STOPPER = (
    "import os, signal, sys\n"
    "print('stopping', flush=True)\n"
    "os.kill(os.getpid(), signal.SIGTSTP)\n"
    "sys.stdout.write('again? ')\n"
    "sys.stdout.flush()\n"
    "print('again:' + input().upper())\n"
)


def _shell(tmp_path: Path, source: str, *wrapper: str) -> list[str]:
    """The argv of the session leader for ``on_pty(shell=...)``: the shell ``source``, then
    ``wrapper`` (gpuprof's argv follows)."""
    shell = tmp_path / "shell.py"
    shell.write_text(source)
    return [sys.executable, str(shell), *wrapper]


@pytest.mark.slow
def test_ctrl_z_stops_gpuprof_with_the_job_and_fg_continues_both(tmp_path: Path, on_pty) -> None:
    """The job stops (here it sends itself SIGTSTP, as Ctrl-Z would): gpuprof takes the
    terminal back and stops too, so the shell sees it stopped; continued in the foreground
    (``fg``), it gives the job the terminal again and the job goes on reading it."""
    out = tmp_path / "tstp.gpuprof"
    run = on_pty(*_profile(out, sys.executable, "-c", STOPPER), shell=_shell(tmp_path, FG_SHELL))
    run.expect(b"shell: stopped, the terminal given back")
    run.expect(b"again? ")
    run.send(b"resumed\n")
    assert run.wait() == 0, run.text()
    assert "again:RESUMED" in run.text() and "shell: exit 0" in run.text()
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 0


def test_ctrl_z_under_a_wrapper_stops_the_wrapper_too(tmp_path: Path, on_pty) -> None:
    """gpuprof run by ``sh -c`` (make, a script): the shell waits for the wrapper, which is in
    gpuprof's process group. Ctrl-Z stops that whole group, as it would without gpuprof; when
    gpuprof stopped alone, the shell never saw a stop and the terminal hung."""
    out = tmp_path / "wrapped.gpuprof"
    wrapper = ("sh", "-c", '"$@"; echo "wrapped: $?"', "sh")
    run = on_pty(
        *_profile(out, sys.executable, "-c", STOPPER), shell=_shell(tmp_path, FG_SHELL, *wrapper)
    )
    run.expect(b"shell: stopped, the terminal given back", timeout=20)
    run.expect(b"again? ")
    run.send(b"resumed\n")
    assert run.wait() == 0, run.text()
    assert "again:RESUMED" in run.text() and "wrapped: 0" in run.text()


@pytest.mark.parametrize("size", [None, (24, 100)], ids=["line", "bar"])
@pytest.mark.slow
def test_ctrl_z_without_job_control_does_not_stop_gpuprof_for_ever(
    size, tmp_path: Path, on_pty
) -> None:
    """gpuprof leads its session (``ssh -t host gpuprof profile ...``, a container's command):
    its group is orphaned and no shell could continue it. As for any program there, Ctrl-Z
    does not stop it: the job is continued at once and goes on reading the terminal."""
    out = tmp_path / "orphan.gpuprof"
    run = on_pty(*_profile(out, sys.executable, "-c", STOPPER), size=size)
    run.expect(b"again? ", timeout=20)
    run.send(b"resumed\n")
    assert run.wait(timeout=20) == 0, run.text()
    assert "again:RESUMED" in run.text()


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


# -- the live status on the bottom row (issue 13) -------------------------------------------

ROWS, COLS = 24, 100
PROMPT = "Continue? [y/n] "
#: Three lines, a prompt without a newline, then the answer read from the terminal.
ASKER = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: it dies of SIGINT (exit 130 passed on)
for i in range(3):
    print(f"line {i}", flush=True)
sys.stdout.write("Continue? [y/n] ")
sys.stdout.flush()
with open(sys.argv[1], "w") as fh:
    fh.write(str(os.getpid()))
print("answer:" + input(), flush=True)
"""
#: Where the status is drawn: the cursor saved, the last row, that row cleared.
DRAW = f"\x1b7\x1b[{ROWS};1H\x1b[2K".encode()


def _status_row(line: str) -> bool:
    return " · GPUs " in line and " · steps " in line


def _ask(tmp_path: Path, on_pty, *args: str, **kwargs: Any) -> tuple[PtyRun, Path]:
    """gpuprof running ASKER on a ROWS x COLS pty, once the prompt is on the terminal."""
    script, ready = tmp_path / "ask.py", tmp_path / "ready"
    script.write_text(ASKER)
    out = tmp_path / "ask.gpuprof"
    cmd = ["profile", *args, "--out", str(out), "--", sys.executable, str(script), str(ready)]
    run = on_pty(*cmd, **{"size": (ROWS, COLS), **kwargs})
    run.expect(PROMPT.encode())
    deadline = time.monotonic() + TIMEOUT_S
    while not ready.exists() or not ready.read_text():
        assert time.monotonic() < deadline, run.text()
        run._read(0.05)
    return run, ready


def _draws_after(run: PtyRun, offset: int, n: int, draw: bytes = DRAW) -> None:
    """Until the status was drawn ``n`` times after ``offset`` in the output."""
    deadline = time.monotonic() + TIMEOUT_S
    while run.output[offset:].count(draw) < n:
        assert time.monotonic() < deadline, f"no {n} status draws: {run.text()!r}"
        run._read(0.05)


def _assert_the_terminal_whole_again(run: PtyRun) -> Screen:
    """At the end: the last scroll-region setting is the reset, the summary comes after it, no
    status is left on screen, and the screen's region is the whole of it."""
    data = run.output
    last_reset = data.rfind(b"\x1b[r")
    assert last_reset >= 0, run.text()
    assert re.search(rb"\x1b\[\d+;\d+r", data[last_reset:]) is None, run.text()
    assert b"saved the recording" in data[last_reset:]
    screen = Screen(ROWS, COLS).feed(data)
    assert screen.region is None and screen.regions[-1] is None
    assert not any(_status_row(line) for line in screen.display()), screen.display()
    return screen


@pytest.mark.slow
def test_the_status_keeps_to_the_last_row_and_leaves_the_prompt_intact(tmp_path, on_pty) -> None:
    run, _ready = _ask(tmp_path, on_pty, "--interval", "0.1")
    asked = run.output.index(PROMPT.encode())
    _draws_after(run, asked, 3)  # the status went on updating while the job asked
    screen = Screen(ROWS, COLS).feed(run.output)
    assert screen.region == (1, ROWS - 1), screen.regions
    assert screen.row(screen.y) == PROMPT.rstrip() and screen.x == len(PROMPT), screen.display()
    assert screen.y < ROWS - 1
    assert [screen.row(screen.y - k) for k in (3, 2, 1)] == ["line 0", "line 1", "line 2"]
    assert _status_row(screen.row(-1)), screen.display()
    run.send(b"y\n")
    assert run.wait() == 0, run.text()
    screen = _assert_the_terminal_whole_again(run)
    shown = screen.display()
    assert PROMPT + "y" in shown and "answer:y" in shown, shown
    assert shown.index(PROMPT + "y") + 1 == shown.index("answer:y")


@pytest.mark.parametrize("how", ["ctrl-c", "killed"])
@pytest.mark.slow
def test_the_scroll_region_is_reset_when_the_job_is_interrupted(how, tmp_path, on_pty) -> None:
    run, ready = _ask(tmp_path, on_pty, "--interval", "0.1")
    _draws_after(run, 0, 2)
    if how == "ctrl-c":
        run.send(b"\x03")  # to the job's group, which holds the terminal
        expected = 128 + signal.SIGINT
    else:
        os.kill(int(ready.read_text()), signal.SIGKILL)
        expected = 128 + signal.SIGKILL
    assert run.wait() == expected, run.text()
    screen = _assert_the_terminal_whole_again(run)
    assert any(line.startswith(PROMPT.rstrip()) for line in screen.display()), screen.display()


def _resize(run: PtyRun, rows: int, cols: int) -> int:
    """The terminal resized (as an emulator does: the size set on the pty, SIGWINCH to its
    foreground group); returns the output's length at that point."""
    fcntl.ioctl(run.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return len(run.output)


def _assert_after_resize(run: PtyRun, at: int, rows: int, cols: int) -> None:
    assert f"\x1b[1;{rows - 1}r".encode() in run.output[at:], run.text()
    screen = Screen(ROWS, COLS).feed(run.output[:at])
    screen.resize(rows, cols)
    screen.feed(run.output[at:])
    assert screen.region == (1, rows - 1), screen.regions
    assert _status_row(screen.row(rows - 1)), screen.display()
    assert screen.row(screen.y) == PROMPT.rstrip() and screen.x == len(PROMPT), screen.display()


@pytest.mark.slow
def test_a_resize_while_the_job_holds_the_terminal_is_seen_at_the_next_poll(
    tmp_path, on_pty
) -> None:
    """The terminal signals its foreground group, the job: gpuprof sees the new size itself."""
    run, _ready = _ask(tmp_path, on_pty, "--interval", "0.1")
    _draws_after(run, 0, 1)
    at = _resize(run, 30, 90)
    _draws_after(run, at, 2, b"\x1b7\x1b[30;1H\x1b[2K")
    _assert_after_resize(run, at, 30, 90)
    run.send(b"y\n")
    assert run.wait() == 0, run.text()
    assert run.output.rfind(b"\x1b[r") > run.output.rfind(b"\x1b[1;29r")


@pytest.mark.slow
def test_sigwinch_sets_the_region_again_at_once(tmp_path, on_pty) -> None:
    """A minute between polls: only the SIGWINCH handler can have drawn at the new size."""
    run, _ready = _ask(tmp_path, on_pty, "--interval", "60")
    _draws_after(run, 0, 1)  # the first poll, at the start
    at = _resize(run, 20, 80)
    os.kill(run.pid, signal.SIGWINCH)  # what the terminal sends when gpuprof holds it
    _draws_after(run, at, 1, b"\x1b7\x1b[20;1H\x1b[2K")
    _assert_after_resize(run, at, 20, 80)
    run.send(b"y\n")
    assert run.wait() == 0, run.text()


@pytest.mark.slow
def test_ctrl_z_gives_the_shell_the_whole_terminal_and_fg_takes_the_row_back(
    tmp_path, on_pty
) -> None:
    out = tmp_path / "tstp.gpuprof"
    run = on_pty(
        *_profile(out, sys.executable, "-c", STOPPER),
        size=(ROWS, COLS),
        shell=_shell(tmp_path, FG_SHELL),
    )
    run.expect(b"shell: stopped")
    stopped = run.output.index(b"shell: stopped")  # before: what gpuprof wrote before it stopped
    screen = Screen(ROWS, COLS).feed(run.output[:stopped])
    assert screen.regions and screen.regions[-1] is None and screen.region is None, run.text()
    assert not _status_row(screen.row(-1))
    run.expect(b"again? ")  # the shell's fg
    assert f"\x1b[1;{ROWS - 1}r".encode() in run.output[stopped:], run.text()
    run.send(b"resumed\n")
    assert run.wait() == 0, run.text()
    assert "again:RESUMED" in run.text()
    _assert_the_terminal_whole_again(run)


@pytest.mark.slow
def test_a_dumb_terminal_gets_no_status_while_the_job_holds_it(tmp_path, on_pty) -> None:
    """Nothing to reserve a row with: the status is not drawn over the job's line at all."""
    run, _ready = _ask(tmp_path, on_pty, "--interval", "0.1", term="dumb")
    asked = len(run.output)
    run._read(0.5)
    run.send(b"y\n")
    assert run.wait() == 0, run.text()
    assert b"\x1b[" not in run.output[:asked] and b"\r\x1b[K" not in run.output
    assert " · steps " not in run.text()
    assert PROMPT + "y" in Screen(ROWS, COLS).feed(run.output).display()


@pytest.mark.slow
def test_a_dumb_terminal_gpuprof_holds_gets_the_rewritten_line(tmp_path, on_pty) -> None:
    """Standard input not the terminal: the job cannot ask there, gpuprof keeps the terminal,
    and the status is the one line rewritten in place, as before."""
    out = tmp_path / "quiet.gpuprof"
    job = "import time\nfor _ in range(30):\n    time.sleep(0.1)\n"
    run = on_pty(*_profile(out, sys.executable, "-c", job), term="dumb", stdin_null=True)
    assert run.wait() == 0, run.text()
    assert re.search(r"\r[^\r\n]* · GPUs [^\r\n]* · steps ", run.text()), run.text()
    assert b"\x1b[r" not in run.output and b"\x1b7" not in run.output


def test_the_status_is_cut_to_the_width_and_made_safe() -> None:
    from gpuprof.commands.profile_status import fit

    assert fit("a\x1b[2Jb\nc", 80) == "a\ufffd[2Jb c"
    assert fit("步数" * 10, 7) == "步数步"  # wide characters: two cells each
    assert fit("x" * 50, 20) == "x" * 20


def test_the_screen_model_scrolls_only_the_region() -> None:
    screen = Screen(4, 10).feed("a\r\nb\r\nc\x1b[1;3r\x1b[4;1Hbar\x1b[3;1H\nd")
    assert screen.display() == ["b", "c", "d", "bar"] and screen.regions == [(1, 3)]


def _sized_pty(rows: int, cols: int) -> tuple[int, int]:
    """A fresh pty (master, slave) of ``rows`` x ``cols``."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


def _drain(fd: int) -> bytes:
    data = b""
    while select.select([fd], [], [], 0.2)[0]:
        data += os.read(fd, 65536)
    return data


def test_an_exception_in_the_run_still_gives_the_terminal_back() -> None:
    """The status bar on a pty of its own (not the controlling terminal): an exception out of
    the run leaves the region reset and the bottom row clear."""
    from gpuprof.commands.profile_status import StatusBar
    from gpuprof.profile.runner import LiveStatus

    master, slave = _sized_pty(10, 100)
    out = os.fdopen(slave, "w", encoding="utf-8")
    try:
        bar = StatusBar(out, term="xterm")
        assert bar.mode == "bar"
        with pytest.raises(RuntimeError), bar:
            out.write("job output\r\n")
            bar(LiveStatus(elapsed_s=3.0, pid=1, steps=5))
            screen = Screen(10, 100).feed(_drain(master))
            assert screen.region == (1, 9) and "steps 5" in screen.row(-1)
            raise RuntimeError("boom")
        screen.feed(_drain(master))
        assert screen.region is None and screen.row(-1) == ""
        assert screen.row(screen.y - 1) == "job output" and screen.x == 0
        bar(LiveStatus(elapsed_s=4.0, pid=1))  # after the end: nothing more is drawn
        assert not select.select([master], [], [], 0.1)[0]
    finally:
        out.close()
        os.close(master)


#: A status bar on the terminal of standard error, drawn once, then a wait (what gpuprof is
#: while it builds the profile and prints the summary, the job over).
BAR_THEN_WAIT = """
import sys, time
from gpuprof.commands.profile_status import StatusBar
from gpuprof.profile.runner import LiveStatus
with StatusBar(sys.stderr, term="xterm") as bar:
    bar(LiveStatus(elapsed_s=3.0, pid=1, steps=5))
    print("ready", flush=True)
    time.sleep(60)
"""


@contextlib.contextmanager
def _bar_then_wait(
    preexec_fn: Callable[[], object],
) -> Iterator[tuple[subprocess.Popen[bytes], int, bytes]]:
    """BAR_THEN_WAIT on a 10 x 100 pty (``preexec_fn`` sets its signals): the process, the
    pty's master and what it showed up to "ready"; killed at the end if still running."""
    master, slave = _sized_pty(10, 100)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm")
    proc = subprocess.Popen(
        [sys.executable, "-c", BAR_THEN_WAIT],
        stdout=slave,
        stderr=slave,
        env=env,
        preexec_fn=preexec_fn,
    )
    os.close(slave)
    try:
        data = b""
        deadline = time.monotonic() + TIMEOUT_S
        while b"ready" not in data:
            assert time.monotonic() < deadline and proc.poll() is None, data
            if select.select([master], [], [], 0.1)[0]:
                data += os.read(master, 65536)
        yield proc, master, data
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_that_ends_gpuprof_after_the_job_resets_the_region(signo: int) -> None:
    """Once the job is over the runner no longer catches SIGTERM / SIGHUP: gpuprof dies of it
    as before, but with the terminal whole again (the region was left set)."""
    # As from a terminal: the signal's default disposition (under nohup SIGHUP is ignored, and
    # the bar rightly leaves an ignored signal alone: see the test below)
    with _bar_then_wait(lambda: signal.signal(signo, signal.SIG_DFL)) as (proc, master, data):
        screen = Screen(10, 100).feed(data)
        assert screen.region == (1, 9) and "steps 5" in screen.row(-1)
        proc.send_signal(signo)
        assert proc.wait(timeout=TIMEOUT_S) == -signo
        with contextlib.suppress(OSError):  # EIO once nobody holds the slave
            while select.select([master], [], [], 0.2)[0]:
                more = os.read(master, 65536)
                if not more:
                    break
                screen.feed(more)
        assert screen.region is None and screen.row(-1) == "", screen.display()


@pytest.mark.slow
def test_an_ignored_hangup_stays_ignored_under_the_bar() -> None:
    """Under ``nohup`` (SIGHUP ignored) the bar installs no handler for it: gpuprof lives on."""
    with _bar_then_wait(lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) as (proc, _, _):
        proc.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=1.0)  # a correctness wait: it must not die of the hang-up


def test_no_bar_on_a_dumb_or_unsized_terminal() -> None:
    from gpuprof.commands.profile_status import StatusBar

    master, slave = pty.openpty()
    out = os.fdopen(slave, "w", encoding="utf-8")
    try:
        assert StatusBar(out, term="xterm").mode == "line"  # 0 x 0: nobody sized it
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 10, 40, 0, 0))
        assert StatusBar(out, term="xterm").mode == "bar"
        assert StatusBar(out, term="dumb").mode == "line"
        assert StatusBar(out, term="").mode == "line"
    finally:
        out.close()
        os.close(master)


# -- under a shell with job control: bg, then fg ---------------------------------------------

#: The session leader of the pty, a shell with job control reduced to what the test needs:
#: gpuprof in a process group of its own in the foreground; once it stops (Ctrl-Z), the
#: terminal back to the shell in its own modes (readline's: not canonical, no echo) and ``bg``;
#: once it stops again or ends, whether its modes were left alone, then ``fg`` (the modes of before
#: readline, the terminal and SIGCONT to gpuprof's group), and gpuprof's exit code.
JOB_SHELL = (
    """
import os, signal, sys, termios
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
cooked = termios.tcgetattr(0)
"""
    + _SPAWN
    + """
_, status = os.waitpid(pid, os.WUNTRACED)
assert os.WIFSTOPPED(status), status
os.tcsetpgrp(0, os.getpgrp())
readline = termios.tcgetattr(0)
readline[3] &= ~(termios.ICANON | termios.ECHO)
termios.tcsetattr(0, termios.TCSANOW, readline)
print("shell: bg", flush=True)
os.killpg(pid, signal.SIGCONT)
_, status = os.waitpid(pid, os.WUNTRACED)
kept = termios.tcgetattr(0)[3] == readline[3]
print("shell: modes " + ("kept" if kept else "changed by gpuprof"), flush=True)
if not os.WIFSTOPPED(status):  # it ended in the background
    print(f"shell: exit {os.waitstatus_to_exitcode(status)}", flush=True)
    sys.exit(0)
termios.tcsetattr(0, termios.TCSANOW, cooked)
os.tcsetpgrp(0, pid)
print("shell: fg", flush=True)
os.killpg(pid, signal.SIGCONT)
_, status = os.waitpid(pid, 0)
print(f"shell: exit {os.waitstatus_to_exitcode(status)}", flush=True)
"""
)


@pytest.mark.slow
def test_bg_then_a_read_leaves_the_shells_modes_and_fg_gives_the_job_the_shells(
    tmp_path: Path, on_pty
) -> None:
    """Ctrl-Z, ``bg``, the job reads (SIGTTIN: gpuprof stops again, in the background): gpuprof
    does not set the modes of the terminal the shell holds, and on ``fg`` the job reads with
    the modes the shell gave it, not the shell's own of the moment it stopped."""
    out = tmp_path / "bg.gpuprof"
    job = (
        "import os, signal, termios\n"
        "print('stopping', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGTSTP)\n"
        "line = input()\n"
        "canon = termios.tcgetattr(0)[3] & termios.ICANON\n"
        "print('job read ' + line + (' canonical' if canon else ' raw'), flush=True)\n"
    )
    run = on_pty(*_profile(out, sys.executable, "-c", job), shell=_shell(tmp_path, JOB_SHELL))
    run.expect(b"shell: fg")
    run.send(b"typed\n")
    assert run.wait() == 0, run.text()
    assert "shell: modes kept" in run.text()
    assert "job read typed canonical" in run.text()
    assert "shell: exit 0" in run.text()


@pytest.mark.slow
def test_a_job_killed_in_the_background_leaves_the_shells_modes(tmp_path: Path, on_pty) -> None:
    """Ctrl-Z, ``bg``, then the job dies of a signal: gpuprof, in the background, does not put
    the modes of before the job on the terminal the shell holds (under its line editor)."""
    out = tmp_path / "bgkill.gpuprof"
    job = (
        "import os, signal\n"
        "os.kill(os.getpid(), signal.SIGTSTP)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    run = on_pty(*_profile(out, sys.executable, "-c", job), shell=_shell(tmp_path, JOB_SHELL))
    run.wait()
    assert f"shell: exit {128 + signal.SIGKILL}" in run.text(), run.text()
    assert "shell: modes kept" in run.text()
