"""Host CPU % and resident memory of the GPU processes (``top``'s %CPU, RES).

On Linux one read of ``/proc/PID/stat`` gives both (utime + stime, rss pages) and the start
time, which tells a reused pid apart; kept open between polls (one ``pread``, about 1 µs of
the ~3 µs a process takes: 0.16 ms for 50 on an idle 2-core machine, two to five times that on a
busy one). psutil's ``cpu_times()`` plus ``memory_info()`` read two files through more layers,
about 35 µs a process. Even 0.16 ms is a fifth of a whole poll (``perf/sampler.py``), hence the
cadence below. Elsewhere (and with an injected psutil stand-in) :class:`ProcessUsageReader` keeps
a ``psutil.Process`` per pid, checked by its create time. A vanished pid, or one this user may
not read, gives ``None``, never an error.

CPU % is per process, of one core (a process using four cores shows 400 %), over the interval
since its previous reading; the first reading of a process has none. Readings closer together
than ``min_interval_s`` repeat the last value: the kernel's CPU time moves in clock ticks
(10 ms), so a rate over a few milliseconds would be noise.

Cadence: with ``interval_s`` (the NVML source sets :data:`PROCESS_HOST_INTERVAL_S` while nobody
watches these columns, 0 while the Processes tab is shown or the exporter serves per-process
series) a call reads the files only once ``interval_s`` passed since the last reading, and
otherwise returns that reading, without a system call: CPU % is then the mean over the
interval. A process seen for the first time is read at once, and once more at the next call, so
that it has a CPU % after one poll rather than one interval.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import psutil

__all__ = ["PROCESS_HOST_INTERVAL_S", "HostUsage", "ProcessUsageReader"]

#: How often the GPU processes' CPU % and RSS are read while nobody watches them (seconds).
PROCESS_HOST_INTERVAL_S = 5.0


@dataclass(frozen=True, slots=True)
class HostUsage:
    """A process's host side at one poll: CPU % of one core and resident memory in bytes."""

    cpu_pct: float | None = None
    rss_bytes: int | None = None


NO_USAGE = HostUsage()


@dataclass(slots=True)
class _Seen:
    key: float  # the process's start (ticks since boot, or create time): a new key, a new process
    cpu_s: float
    at_s: float
    cpu_pct: float | None


def _sysconf(name: str, default: int) -> int:
    try:
        value = os.sysconf(name)
    except (AttributeError, ValueError, OSError):
        return default
    return value if value > 0 else default


class ProcessUsageReader:
    """CPU % and RSS per pid; call :meth:`read` once per poll with every GPU process's pid.

    ``ps`` is the psutil module (a stand-in selects the psutil path), ``clock`` a monotonic
    clock in seconds, ``proc_root`` the procfs mount (tests pass a folder), ``interval_s`` the
    cadence of the readings (0: at every call; see the module doc and :meth:`set_interval`).
    """

    def __init__(
        self,
        *,
        ps: Any = None,
        clock: Callable[[], float] = time.monotonic,
        proc_root: str = "/proc",
        min_interval_s: float = 0.2,
        max_open: int = 1024,
        interval_s: float = 0.0,
    ) -> None:
        self._ps = psutil if ps is None else ps
        self._clock = clock
        self._proc_root = proc_root
        self._min_interval_s = min_interval_s
        self._lock = threading.Lock()
        self._seen: dict[int, _Seen] = {}
        self._procs: dict[int, Any] = {}  # psutil path: one Process object per pid
        self._fds: dict[int, int] = {}  # procfs path: /proc/PID/stat kept open per pid
        self._max_open = max_open
        self._procfs = (
            self._ps is psutil
            and sys.platform.startswith("linux")
            and os.path.isdir(os.path.join(proc_root, "self"))
        )
        self._tick_s = 1.0 / _sysconf("SC_CLK_TCK", 100)
        self._page = _sysconf("SC_PAGE_SIZE", 4096)
        self._interval_s = max(0.0, float(interval_s))
        self._read_s = float("-inf")  # when every pid was last read
        self._last: dict[int, HostUsage] = {}  # that reading (and the pids read since)
        self._fresh: set[int] = set()  # read once, no CPU % yet: read again at the next call
        self.readings = 0  # files (or psutil objects) read: what the cadence saves

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def set_interval(self, interval_s: float) -> None:
        """Read every ``interval_s`` seconds from now on (0: at every call); a shorter interval
        that is already over reads at the next call."""
        with self._lock:
            self._interval_s = max(0.0, float(interval_s))

    def read(self, pids: Collection[int]) -> Mapping[int, HostUsage]:
        """:class:`HostUsage` for every pid in ``pids`` (read-only; it may hold pids that left
        since the last reading); pids not asked for are forgotten at the next reading."""
        with self._lock:
            now = self._clock()
            if now - self._read_s >= self._interval_s:
                self._read_s = now
                return self._read_all(pids, now)
            # Between readings: the last one, and only new processes read now.
            last = self._last
            todo = [p for p in pids if p not in last or p in self._fresh] if pids else ()
            if not todo:
                return last
            out = self._last = dict(last)
            for pid in todo:
                out[pid] = self._one(pid, now)
            return out

    def _read_all(self, pids: Collection[int], now: float) -> dict[int, HostUsage]:
        out: dict[int, HostUsage] = {}
        for pid in pids:
            if pid not in out:
                out[pid] = self._one(pid, now)
        for pid in self._seen.keys() - out.keys():
            del self._seen[pid]
        for pid in self._procs.keys() - out.keys():
            del self._procs[pid]
        for pid in self._fds.keys() - out.keys():
            self._close(pid)
        self._fresh &= out.keys()
        self._last = out
        return out

    def _one(self, pid: int, now: float) -> HostUsage:
        self.readings += 1
        raw = self._stat(pid) if self._procfs else self._psutil(pid)
        if raw is None:
            self._seen.pop(pid, None)
            self._fresh.discard(pid)
            return NO_USAGE
        key, cpu_s, rss = raw
        seen = self._seen.get(pid)
        if seen is None or seen.key != key or cpu_s < seen.cpu_s:
            self._seen[pid] = _Seen(key, cpu_s, now, None)
            self._fresh.add(pid)
            return HostUsage(None, rss)
        dt = now - seen.at_s
        if dt >= self._min_interval_s:
            seen.cpu_pct = max(0.0, 100.0 * (cpu_s - seen.cpu_s) / dt)
            seen.cpu_s, seen.at_s = cpu_s, now
            self._fresh.discard(pid)
        return HostUsage(seen.cpu_pct, rss)

    def _stat(self, pid: int) -> tuple[float, float, int] | None:
        """(start ticks, CPU seconds, RSS bytes) from ``/proc/PID/stat``.

        The file stays open between polls and is read again at offset 0 (procfs makes it
        afresh): one system call instead of three. An open file belongs to its process: once
        that process is gone the read fails, even if the pid was given to another.
        """
        fd = self._fds.get(pid)
        data = None
        if fd is not None:
            try:
                data = os.pread(fd, 4096, 0)
            except OSError:
                self._close(pid)
        if data is None:
            try:
                fd = os.open(f"{self._proc_root}/{pid}/stat", os.O_RDONLY)
            except (OSError, ValueError):
                return None
            try:
                data = os.pread(fd, 4096, 0)
            except OSError:
                os.close(fd)
                return None
            if len(self._fds) < self._max_open:
                self._fds[pid] = fd
            else:
                os.close(fd)
        try:
            # The name (field 2) is in parentheses and may hold spaces and ')'.
            rest = data[data.rindex(b")") + 2 :].split(None, 23)
            utime, stime = int(rest[11]), int(rest[12])  # fields 14, 15
            start = float(rest[19])  # field 22, ticks since boot
            rss = int(rest[21]) * self._page  # field 24, pages
        except (ValueError, IndexError):
            return None
        if rest[0] in (b"Z", b"X"):  # a zombie has no memory and uses no CPU
            return None
        return start, (utime + stime) * self._tick_s, rss

    def _close(self, pid: int) -> None:
        fd = self._fds.pop(pid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """Close the files kept open (also done when the reader is collected)."""
        with self._lock:
            for pid in list(self._fds):
                self._close(pid)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()

    def _psutil(self, pid: int) -> tuple[float, float, int] | None:
        proc = self._procs.get(pid)
        try:
            if proc is None or not proc.is_running():
                proc = self._procs[pid] = self._ps.Process(pid)
            with proc.oneshot():
                times = proc.cpu_times()
                rss = int(proc.memory_info().rss)
                key = float(proc.create_time())
        except Exception:  # NoSuchProcess, AccessDenied, ZombieProcess, a stand-in without it
            self._procs.pop(pid, None)
            return None
        return key, float(times.user) + float(times.system), rss
