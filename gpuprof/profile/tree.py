"""A job's process tree on the host, followed poll by poll (psutil).

:class:`ProcessTree` finds the root's descendants at every :meth:`~ProcessTree.refresh` (the
children of every process of the tree still alive, so a grandchild whose parent exited stays in
it) and keeps each process it ever saw: a pid that exited stays counted. What a process did is
read from the kernel's cumulative counters (``/proc/PID/stat`` and ``/proc/PID/io``, through
psutil): CPU time (its own and that of the children it reaped), disk bytes read and written.

The tree's total of a counter adds each process's last reading once: a process alive now, or
one that exited while its parent in the tree was gone (nobody in the tree reaped it). A process
that exited under a living parent is left out: the kernel adds a reaped child's counters to its
parent's (``cutime``/``cstime`` and the whole-process I/O), so counting both would count it
twice. The root of a job gpuprof started is reaped by gpuprof: its final counters come from
``wait4``'s rusage (:meth:`ProcessTree.set_root_final`), which includes the descendants it
reaped.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psutil

__all__ = ["ProcessTree", "TreeInfo", "TreeSample", "has_exited"]


def has_exited(proc: psutil.Process) -> bool:
    """Whether ``proc`` has ended (a zombie not yet reaped counts). ``/proc/PID/stat`` gives the
    state of the process's first thread: one whose first thread ended (``pthread_exit``) while
    others run reads ``Z`` too (``ps``: ``<defunct>``), yet runs, and still counts its threads
    (``/proc/PID/status``); a zombie of a process that ended has only its first thread left.
    :class:`psutil.Error` (the pid is gone) propagates."""
    if proc.status() != psutil.STATUS_ZOMBIE:
        return False
    try:
        return int(proc.num_threads()) <= 1
    except psutil.Error:
        return True  # reaped between the two reads


@dataclass(frozen=True, slots=True)
class TreeSample:
    """The tree at one poll: CPU % of one core summed over it, resident memory, live processes."""

    time_s: float
    cpu_pct: float | None
    rss_bytes: int | None
    processes: int


@dataclass(frozen=True, slots=True)
class TreeInfo:
    """What :class:`ProcessTree` saw over the job (input to ``build_profile``)."""

    pids: frozenset[int] = frozenset()
    samples: tuple[TreeSample, ...] = ()
    cpu_s: float | None = None  # CPU seconds of the tree (user + system)
    read_bytes: int | None = None
    write_bytes: int | None = None
    net_rx_bytes: int | None = None  # the host's network over the job
    net_tx_bytes: int | None = None


@dataclass(slots=True)
class _Proc:
    pid: int
    ppid: int | None
    handle: Any  # psutil.Process
    cpu_s: float | None = None
    rss_bytes: int | None = None
    read_bytes: int | None = None
    write_bytes: int | None = None
    last_seen_s: float = 0.0
    exited_s: float | None = None
    final: bool = False  # counters from wait4: nothing more to read


#: Host network counters are kept for a job only when they can be read (containers may not).
def _net() -> tuple[int, int] | None:
    try:
        c = psutil.net_io_counters()
    except (OSError, psutil.Error):
        return None
    return None if c is None else (int(c.bytes_recv), int(c.bytes_sent))


class ProcessTree:
    """The process tree under ``root_pid``; :meth:`refresh` from one thread at a time."""

    def __init__(
        self,
        root_pid: int,
        *,
        clock: Callable[[], float] = time.time,
        children: Callable[[Sequence[int]], dict[int, list[psutil.Process]]] | None = None,
    ) -> None:
        self.root_pid = int(root_pid)
        self._clock = clock
        #: ``{ppid: [child processes]}`` now, of the given pids (the tree's live processes) and
        #: their descendants at least (default: of every process, one pass over them all).
        self._children = children or _children_map
        self._lock = threading.Lock()
        self._procs: dict[tuple[int, float], _Proc] = {}
        self._pids: set[int] = {self.root_pid}
        self._samples: list[TreeSample] = []
        self._last_total: tuple[float, float] | None = None  # (time, cpu_s)
        self._net_start = _net()
        self._net_end: tuple[int, int] | None = None
        try:
            self._root: psutil.Process | None = psutil.Process(self.root_pid)
            self._add(self._root, self._clock())
        except psutil.Error:
            self._root = None

    @property
    def pids(self) -> frozenset[int]:
        """Every pid seen in the tree so far (thread-safe)."""
        with self._lock:
            return frozenset(self._pids)

    def _add(self, proc: psutil.Process, now: float) -> _Proc | None:
        try:
            key = (proc.pid, proc.create_time())
        except psutil.Error:
            return None
        entry = self._procs.get(key)
        if entry is None:
            try:
                ppid: int | None = proc.ppid()
            except psutil.Error:
                ppid = None
            entry = self._procs[key] = _Proc(proc.pid, ppid, proc, last_seen_s=now)
            with self._lock:
                self._pids.add(proc.pid)
        return entry

    def _read(self, entry: _Proc, now: float) -> bool:
        """Read ``entry``'s counters; False when it is gone."""
        proc = entry.handle
        try:
            with proc.oneshot():
                if has_exited(proc):
                    return False  # its counters are final and its parent's now (or soon)
                t = proc.cpu_times()
                entry.cpu_s = t.user + t.system + t.children_user + t.children_system
                entry.rss_bytes = int(proc.memory_info().rss)
                with contextlib.suppress(psutil.AccessDenied, AttributeError):
                    io = proc.io_counters()
                    entry.read_bytes = int(io.read_bytes)
                    entry.write_bytes = int(io.write_bytes)
        except psutil.Error:
            return False
        entry.last_seen_s = now
        return True

    def refresh(self) -> TreeSample:
        """Find the tree's processes now, read their counters, and record one sample."""
        now = self._clock()
        frontier = [e.pid for e in self._procs.values() if e.exited_s is None and not e.final]
        children = self._children(tuple(frontier))
        visited = set(frontier)
        while frontier:
            for child in children.get(frontier.pop(), ()):
                if child.pid not in visited:
                    visited.add(child.pid)
                    self._add(child, now)
                    frontier.append(child.pid)
        live: list[_Proc] = []
        for entry in self._procs.values():
            if entry.exited_s is not None or entry.final:
                continue
            if self._read(entry, now):
                live.append(entry)
            else:
                entry.exited_s = now
        sample = self._sample(now, live)
        with self._lock:
            self._samples.append(sample)
        return sample

    def _sample(self, now: float, live: list[_Proc]) -> TreeSample:
        cpu_total = self._total("cpu_s")
        cpu_pct = None
        if cpu_total is not None and self._last_total is not None:
            t0, c0 = self._last_total
            if now > t0:
                cpu_pct = max(0.0, 100.0 * (cpu_total - c0) / (now - t0))
        if cpu_total is not None:
            self._last_total = (now, cpu_total)
        rss = [e.rss_bytes for e in live if e.rss_bytes is not None]
        return TreeSample(now, cpu_pct, sum(rss) if rss else None, len(live))

    def _counted(self, entry: _Proc) -> bool:
        if entry.exited_s is None or entry.final:
            return True
        parents = [p for p in self._procs.values() if p.pid == entry.ppid and p.pid != entry.pid]
        # Reaped by a parent in the tree that outlived it: its counters are in the parent's.
        return not any(p.exited_s is None or p.exited_s > entry.exited_s for p in parents)

    def _total(self, attr: str) -> float | None:
        values = [
            getattr(e, attr)
            for e in self._procs.values()
            if getattr(e, attr) is not None and self._counted(e)
        ]
        return float(sum(values)) if values else None

    def set_root_final(self, rusage: Any) -> None:
        """The root's final counters from ``os.wait4``'s rusage (it and what it reaped)."""
        root = next((e for e in self._procs.values() if e.pid == self.root_pid), None)
        if root is None:
            return
        root.cpu_s = float(rusage.ru_utime + rusage.ru_stime)
        root.read_bytes = int(rusage.ru_inblock) * 512
        root.write_bytes = int(rusage.ru_oublock) * 512
        root.exited_s = root.exited_s or self._clock()
        root.final = True

    def finish(self) -> TreeInfo:
        """What the tree did over the job (call once, at the end)."""
        self._net_end = _net()
        net_rx = net_tx = None
        if self._net_start is not None and self._net_end is not None:
            net_rx = max(0, self._net_end[0] - self._net_start[0])
            net_tx = max(0, self._net_end[1] - self._net_start[1])
        read = self._total("read_bytes")
        write = self._total("write_bytes")
        with self._lock:
            return TreeInfo(
                pids=frozenset(self._pids),
                samples=tuple(self._samples),
                cpu_s=self._total("cpu_s"),
                read_bytes=None if read is None else int(read),
                write_bytes=None if write is None else int(write),
                net_rx_bytes=net_rx,
                net_tx_bytes=net_tx,
            )

    @property
    def root_alive(self) -> bool:
        """Whether the root process still runs (a zombie does not: :func:`has_exited`)."""
        if self._root is None:
            return False
        try:
            return bool(self._root.is_running() and not has_exited(self._root))
        except psutil.Error:
            return False


def _children_map(_pids: Sequence[int] = ()) -> dict[int, list[psutil.Process]]:
    """``{ppid: [child processes]}`` of every process now: one pass over ``/proc``."""
    out: dict[int, list[psutil.Process]] = {}
    for proc in psutil.process_iter(["ppid"]):
        ppid = proc.info.get("ppid")
        if isinstance(ppid, int):
            out.setdefault(ppid, []).append(proc)
    return out
