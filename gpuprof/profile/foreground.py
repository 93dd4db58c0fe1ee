"""The terminal for a job started by ``gpuprof profile``, as a shell gives it to its foreground job.

The job runs in a process group of its own, so that gpuprof can signal its whole process tree.
The terminal lets only its *foreground* process group read from it: any other group that reads
is stopped by ``SIGTTIN`` (a script asking ``y/n``, ``input()``, a debugger prompt would hang).
So when gpuprof's standard input is its controlling terminal and gpuprof is in the foreground,
:class:`TerminalHandoff` makes the job's group the foreground group right after the job starts
(``tcsetpgrp``) and takes the terminal back when it ends, with ``SIGTTOU`` blocked while doing
so (a background process may then set the foreground group: POSIX ``tcsetpgrp``). The terminal
modes in force before the job are restored when the job died of a signal (a killed full-screen
program leaves the terminal raw).

Consequences, the same as under a shell: Ctrl-C (and Ctrl-\\\\) at the terminal reach the job's
group directly, not gpuprof, which saves the profile once the job exits; a SIGINT, SIGTERM or
SIGHUP sent to gpuprof itself is still forwarded to the job. Ctrl-Z stops the job: gpuprof then
takes the terminal back and stops its own process group (SIGTSTP, as Ctrl-Z would have, so a
wrapper it runs under, ``sh -c`` or make, stops with it), so that the shell shows it stopped; on
``fg`` it gives the terminal back to the job and continues it (on ``bg`` it continues the job in
the background, and leaves the shell's terminal modes alone). Where no shell could continue it
(gpuprof leads its session: an orphaned group) the stop is discarded, as for any program there,
and the job is continued at once. A job that read the terminal in the instant between its start and the handoff is
continued once the terminal is its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["TerminalHandoff", "around_stops"]

log = logging.getLogger(__name__)

#: Stops for reading or setting the terminal from the background (none on Windows, where this
#: module is imported but :meth:`TerminalHandoff.open` gives no handoff).
_TTY_STOPS = tuple(getattr(signal, n) for n in ("SIGTTIN", "SIGTTOU") if hasattr(signal, n))

#: (before, after) pairs: run just before gpuprof stops itself with a stopped job, and once
#: it is continued (:func:`around_stops`).
_stop_hooks: list[tuple[Callable[[], None], Callable[[], None]]] = []


@contextlib.contextmanager
def around_stops(before: Callable[[], None], after: Callable[[], None]) -> Iterator[None]:
    """While inside: ``before()`` runs just before gpuprof stops itself alongside a job stopped
    at the terminal (Ctrl-Z), ``after()`` once it is continued and the terminal is settled
    (the live status gives the shell the whole terminal, then takes its row back)."""
    hook = (before, after)
    _stop_hooks.append(hook)
    try:
        yield
    finally:
        _stop_hooks.remove(hook)


def _run_hooks(which: int) -> None:
    for hook in list(_stop_hooks):
        try:
            hook[which]()
        except Exception:
            log.exception("a hook around a stop failed")


@contextlib.contextmanager
def _ttou_blocked() -> Iterator[None]:
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _get_modes(fd: int) -> Any:
    with contextlib.suppress(Exception):
        import termios

        return termios.tcgetattr(fd)
    return None


def _set_modes(fd: int, modes: Any) -> None:
    if modes is None:
        return
    with contextlib.suppress(Exception):
        import termios

        with _ttou_blocked():
            termios.tcsetattr(fd, termios.TCSADRAIN, modes)


class TerminalHandoff:
    """The controlling terminal on ``fd``, lent to a job's process group (see the module doc)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.own_pgrp = os.getpgrp()
        self.job_pgid: int | None = None
        self._mask: set[int | signal.Signals] | None = None
        self._modes: Any = _get_modes(fd)

    @classmethod
    def open(cls, fd: int = 0) -> TerminalHandoff | None:
        """A handoff for ``fd`` (standard input) when it is this process's controlling terminal
        and this process is in its foreground group; else ``None`` (a pipe, a file, no
        terminal, started in the background with ``&``, or not a POSIX system)."""
        if sys.platform == "win32":
            return None
        try:
            if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
                return None
        except OSError:  # ENOTTY: a terminal, but not our controlling one
            return None
        return cls(fd)

    def _set_foreground(self, pgid: int) -> bool:
        try:
            with _ttou_blocked():
                os.tcsetpgrp(self.fd, pgid)
        except OSError as e:
            log.debug("tcsetpgrp(%d, %d) failed: %s", self.fd, pgid, e)
            return False
        return True

    def _foreground(self) -> int | None:
        try:
            return os.tcgetpgrp(self.fd)
        except OSError:
            return None

    def give(self, pgid: int) -> None:
        """Make the job's group ``pgid`` the terminal's foreground group. Until
        :meth:`take_back`, SIGTTOU stays blocked in this thread: gpuprof's own status line may
        then be written even when the terminal stops background writers (``stty tostop``)."""
        self.job_pgid = pgid
        if self._mask is None:
            self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU})
        self._set_foreground(pgid)

    def take_back(self, *, restore_modes: bool = False) -> None:
        """The terminal back to gpuprof's group (when the job's still has it); ``restore_modes``:
        the terminal modes of before the job as well, unless the terminal is neither's (gpuprof
        in the background after ``bg``: the shell's, whose modes are its own)."""
        if self.job_pgid is None:
            return
        holder = self._foreground()
        if holder == self.job_pgid:
            self._set_foreground(self.own_pgrp)
        if restore_modes and holder in (self.job_pgid, self.own_pgrp):
            _set_modes(self.fd, self._modes)
        self.job_pgid = None
        if self._mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
            self._mask = None

    def job_stopped(self, stopsig: int) -> None:
        """The job's process (``wait`` with ``WUNTRACED``) stopped on ``stopsig``: continue it
        when it only read the terminal before it was its own, else stop alongside it (Ctrl-Z)
        and continue it when gpuprof is continued."""
        pgid = self.job_pgid
        if pgid is None:
            return
        holder = self._foreground()
        if stopsig in _TTY_STOPS and holder == pgid:
            self._continue(pgid)  # it read the terminal in the instant before the handoff
            return
        # Only a terminal gpuprof or the job holds is settled for the shell. In the background
        # (``bg``, then the job read the terminal) it is the shell's: its modes are left alone,
        # and the modes read now would be the shell's own, not the job's.
        job_modes = None
        if holder in (pgid, self.own_pgrp):
            job_modes = _get_modes(self.fd)
            if holder == pgid:
                self._set_foreground(self.own_pgrp)
            _set_modes(self.fd, self._modes)
        _run_hooks(0)
        self._stop_own_group()  # the shell sees gpuprof stopped: "fg" or "bg"
        # Continued. In the foreground (fg): the job gets the terminal (and the modes it had
        # when it stopped in the foreground; else those the shell gave, as a shell's own job).
        if self._foreground() == self.own_pgrp:
            _set_modes(self.fd, job_modes)
            self._set_foreground(pgid)
        _run_hooks(1)
        self._continue(pgid)

    def _stop_own_group(self) -> None:
        """Stop gpuprof's process group as Ctrl-Z would have, had the job been in it: SIGTSTP
        to the group, so that a wrapper gpuprof runs under (``sh -c``, make) stops too and the
        shell, which waits for that wrapper, sees the stop. In an orphaned group (gpuprof leads
        its session: ``ssh -t host gpuprof ...``, no shell to continue it) the kernel discards
        the stop, as for any program there; when gpuprof ignores SIGTSTP, it goes on as well.
        The stop takes effect before this returns (the default action, not a handler)."""
        in_main = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGTSTP) if in_main else signal.SIG_DFL
        if previous is None:  # set outside Python: the default is what it gets back
            previous = signal.SIG_DFL
        if previous == signal.SIG_IGN:
            return
        if in_main:
            signal.signal(signal.SIGTSTP, signal.SIG_DFL)  # not the status bar's handler
        try:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.own_pgrp, signal.SIGTSTP)
        finally:
            if in_main:
                signal.signal(signal.SIGTSTP, previous)

    @staticmethod
    def _continue(pgid: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGCONT)
