"""Terminate (SIGTERM) or kill (SIGKILL) a process, after checking it is still the one chosen.

A process is the pair (pid, start time): between the moment a user picks a row and the moment
the signal goes, the process may have exited and its pid been given to another. So
:func:`describe` takes the pair, and :func:`send_signal` signals only if the pid still has that
start time. Where Linux has pidfds (5.3+), the check and the signal go through one pidfd, so the
process cannot be swapped between them; elsewhere ``os.kill`` follows the check at once.

Refused, each with one clear line (:class:`SignalRefused`, exit 2 in the CLI): a pid that is
gone (or a zombie), a pid that is now another process, another user's process unless gpuprof
runs as root, the init process, a kernel thread (kthreadd and its workers: root may signal them,
and nothing good comes of it), gpuprof itself, and whatever the kernel does not permit.
Used by ``gpuprof kill`` and the Processes tab; never for SIMULATED or REPLAY rows, whose pids
are not processes of this machine (the callers check the snapshot's source).
"""

from __future__ import annotations

import enum
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from gpuprof.errors import GpuprofError
from gpuprof.i18n import tr

__all__ = [
    "ProcessTarget",
    "Refusal",
    "Sig",
    "SignalRefused",
    "describe",
    "is_kernel_thread",
    "is_same_process",
    "send_signal",
    "wait_gone",
]

#: psutil's create time is boot time + start ticks: two reads of one process agree to the tick.
_SAME_START_S = 0.05

#: PF_KTHREAD in the flags of ``/proc/PID/stat`` (field 9), set for every kernel thread. More
#: reliable than "no exe" (a process may lose its exe) or "parent is kthreadd" (pid 2 itself).
_PF_KTHREAD = 0x00200000


class Sig(str, enum.Enum):
    """The two signals offered: a polite request to exit, and the one that cannot be caught."""

    TERM = "TERM"
    KILL = "KILL"

    @property
    def number(self) -> int:
        return int(signal.SIGTERM if self is Sig.TERM else signal.SIGKILL)

    @property
    def label(self) -> str:
        return f"SIG{self.value}"


class Refusal(str, enum.Enum):
    """Why a signal was not sent."""

    GONE = "gone"
    REUSED = "reused"
    NOT_OWNER = "not_owner"
    PROTECTED = "protected"
    DENIED = "denied"


class SignalRefused(GpuprofError):
    """Nothing was signalled; :attr:`reason` says why and the message says it to the user."""

    def __init__(self, reason: Refusal, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ProcessTarget:
    """What will be signalled: the facts a confirmation shows, and the identity checked."""

    pid: int
    start_time_s: float  # Unix seconds (psutil's create_time)
    name: str | None = None
    user: str | None = None
    uid: int | None = None  # real uid of the owner
    cmdline: str | None = None

    @property
    def label(self) -> str:
        """``pid 4242 (python3)`` for messages."""
        if self.name:
            return tr("pid {p} ({n})", p=self.pid, n=self.name)
        return tr("pid {p}", p=self.pid)


def _gone(pid: int) -> SignalRefused:
    return SignalRefused(
        Refusal.GONE,
        tr("no process with pid {p} is running (it has exited); nothing was signalled", p=pid),
    )


def _reused(pid: int, name: object, start: float) -> SignalRefused:
    return SignalRefused(
        Refusal.REUSED,
        tr(
            "pid {p} is now a different process ({n}, started {s}); nothing was signalled",
            p=pid,
            n=name or "?",
            s=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(start)),
        ),
    )


def _text(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except (psutil.AccessDenied, OSError):
        return None


def is_kernel_thread(pid: int, *, proc: Path = Path("/proc")) -> bool:
    """Whether ``pid`` is a kernel thread (PF_KTHREAD); False when it is gone or there is no
    ``/proc`` (not Linux). The command name in field 2 may hold spaces and ``)``: the fields
    are counted from its last ``)``."""
    try:
        stat = (proc / str(pid) / "stat").read_bytes()
    except OSError:
        return False
    fields = stat[stat.rfind(b")") + 1 :].split()
    try:
        return bool(int(fields[6]) & _PF_KTHREAD)  # fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return False


def _kernel_thread(pid: int, name: object) -> SignalRefused:
    label = tr("pid {p} ({n})", p=pid, n=name) if name else tr("pid {p}", p=pid)
    return SignalRefused(
        Refusal.PROTECTED,
        tr("{t} is a kernel thread; gpuprof does not signal kernel threads", t=label),
    )


def describe(pid: int, *, expected_start_s: float | None = None, ps: Any = None) -> ProcessTarget:
    """The process now at ``pid``; :class:`SignalRefused` when there is none (GONE), when it is
    a kernel thread (PROTECTED: refused before anything is shown or asked) or, given the start
    time of the process the user chose, when the pid is now another one (REUSED)."""
    ps = psutil if ps is None else ps
    if pid <= 0:  # os.kill(0 or -n) would signal a whole process group
        raise SignalRefused(Refusal.PROTECTED, tr("pid must be a positive number, got {p}", p=pid))
    try:
        proc = ps.Process(pid)
        with proc.oneshot():
            if proc.status() == psutil.STATUS_ZOMBIE:
                raise _gone(pid)
            start = float(proc.create_time())
            name = _text(proc.name)
            user = _text(proc.username)
            uids = _text(proc.uids)
            cmd = _text(proc.cmdline)
    except (psutil.NoSuchProcess, ProcessLookupError):
        raise _gone(pid) from None
    if expected_start_s is not None and abs(start - expected_start_s) > _SAME_START_S:
        raise _reused(pid, name, start)
    if is_kernel_thread(pid):
        raise _kernel_thread(pid, name)
    return ProcessTarget(
        pid=pid,
        start_time_s=start,
        name=str(name) if name else None,
        user=str(user) if user else None,
        uid=int(uids.real) if uids is not None else None,
        cmdline=" ".join(str(p) for p in cmd) if cmd else None,
    )


def _check_allowed(target: ProcessTarget, euid: int) -> None:
    if target.pid == os.getpid():
        raise SignalRefused(
            Refusal.PROTECTED, tr("{t} is gpuprof itself; nothing was signalled", t=target.label)
        )
    if euid != 0 and target.uid is not None and target.uid != euid:
        owner = target.user or str(target.uid)
        raise SignalRefused(
            Refusal.NOT_OWNER,
            tr(
                "{t} belongs to user {u}; only root may signal another user's process "
                "(nothing was signalled)",
                t=target.label,
                u=owner,
            ),
        )
    if target.pid == 1:
        raise SignalRefused(
            Refusal.PROTECTED,
            tr("{t} is the init process; gpuprof does not signal it", t=target.label),
        )


def is_same_process(target: ProcessTarget, *, ps: Any = None) -> bool:
    """Whether ``target.pid`` is still the process described (same start time, not a zombie)."""
    ps = psutil if ps is None else ps
    try:
        proc = ps.Process(target.pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return abs(float(proc.create_time()) - target.start_time_s) <= _SAME_START_S
    except (psutil.NoSuchProcess, ProcessLookupError):
        return False
    except psutil.AccessDenied:
        return True  # the start time is readable for every process on Linux; elsewhere trust it


def _verify(target: ProcessTarget, ps: Any) -> None:
    try:
        proc = ps.Process(target.pid)
        status = proc.status()
        start = float(proc.create_time())
    except (psutil.NoSuchProcess, ProcessLookupError):
        raise _gone(target.pid) from None
    if status == psutil.STATUS_ZOMBIE:
        raise _gone(target.pid)
    if abs(start - target.start_time_s) > _SAME_START_S:
        raise _reused(target.pid, _text(proc.name), start)
    if is_kernel_thread(target.pid):  # whatever made the target, the signal checks again
        raise _kernel_thread(target.pid, target.name)


def send_signal(
    target: ProcessTarget, sig: Sig, *, euid: int | None = None, ps: Any = None
) -> None:
    """Send ``sig`` to ``target`` if it is still that process and this user may signal it.

    ``euid`` is the effective uid to judge by (default: this process's; tests pass another).
    Raises :class:`SignalRefused` and sends nothing otherwise.
    """
    ps = psutil if ps is None else ps
    _check_allowed(target, os.geteuid() if euid is None else euid)
    pidfd = None
    pidfd_open = getattr(os, "pidfd_open", None)
    send_pidfd = getattr(signal, "pidfd_send_signal", None)
    if pidfd_open is not None and send_pidfd is not None:
        try:
            pidfd = pidfd_open(target.pid)
        except ProcessLookupError:
            raise _gone(target.pid) from None
        except OSError:
            pidfd = None  # an old kernel (ENOSYS) or a sandbox: os.kill below
    try:
        # With a pidfd open, a match here means the pidfd is this very process: a pid is not
        # reused while its process lives, and the pidfd keeps naming the process it opened.
        _verify(target, ps)
        try:
            if pidfd is not None and send_pidfd is not None:
                send_pidfd(pidfd, sig.number)
            else:
                os.kill(target.pid, sig.number)
        except ProcessLookupError:
            raise _gone(target.pid) from None
        except PermissionError as exc:
            raise SignalRefused(
                Refusal.DENIED,
                tr(
                    "not permitted to signal {t}: {e} (nothing was signalled)",
                    t=target.label,
                    e=exc.strerror or exc,
                ),
            ) from None
    finally:
        if pidfd is not None:
            os.close(pidfd)


def wait_gone(
    target: ProcessTarget,
    timeout_s: float,
    *,
    ps: Any = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """Whether ``target`` exited within ``timeout_s`` (a zombie counts as exited)."""
    deadline = clock() + timeout_s
    while True:
        if not is_same_process(target, ps=ps):
            return True
        if clock() >= deadline:
            return False
        sleep(0.05)
