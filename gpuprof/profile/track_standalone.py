"""The recording of a ``gpuprof.track`` block run outside ``gpuprof profile`` (issue 13).

The block's process is the job. :class:`Recorder` runs a
:class:`~gpuprof.telemetry.session.TelemetrySession` on a background thread (NVML, or host only
without a driver; never SIMULATED) recording to ``out``.

How the markers reach the recording:

- the block's own process, at an interval of at most :data:`MEMORY_MAX_INTERVAL_S`, hands each
  marker line to :attr:`Recorder.pending` (a deque: one append, no system call) and the sampler
  thread moves them into the recording after each poll, as made (no file, no parsing). The store
  commits at least every :data:`~gpuprof.telemetry.store.COMMIT_INTERVAL_S`, so a process that
  is killed loses at most the markers and samples of its last second (``kill -9``: at most one
  interval plus one commit interval, 0.6 s at 0.1 s);
- forked workers, and the block's process at a longer interval, append their lines to
  ``OUT.markers`` beside the recording exactly as under ``gpuprof profile`` (a worker inherits
  the descriptor; a longer interval keeps every marker on disk at once); the sampler thread
  reads the new whole lines after each poll when the file grew
  (:class:`~gpuprof.profile.tail.MarkerTail`, the profiler's own reader, which checks them).

The sampler thread shares the job's interpreter, so it does as little as it can at each poll:
the CPU clock is read every :data:`CPU_FREQ_INTERVAL_S`, the host's memory, disk and network
every :data:`HOST_IO_INTERVAL_S`, and the process tree every :data:`TREE_INTERVAL_S`, found
from its live processes (the block's, and any whose parent exited) down through
``/proc/PID/task/TID/children`` (a full pass over ``/proc`` where the kernel does not list
children); no History rings are filled (nothing plots
them; the recording has every sample). At the end the job profile is built by
:func:`~gpuprof.profile.build.build_profile`, as ``gpuprof profile`` builds it, and stored in
the recording; the torch window's breakdown and trace are collected by
:func:`~gpuprof.profile.job_files.torch_outputs` (``RUN.trace.json`` beside ``RUN.gpuprof``).

Nothing here raises into the job: a failure is one warning and the job goes on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil

# Imported with this module (when a standalone block starts), not on the sampler thread's first
# poll: the job's first steps do not pay for it.
from gpuprof.profile.build import JobRun
from gpuprof.profile.job_files import default_out, torch_outputs
from gpuprof.profile.storage import (
    append_marker_rows,
    profile_of_store,
    write_job_profile,
)
from gpuprof.profile.tail import MarkerTail
from gpuprof.profile.tree import ProcessTree
from gpuprof.telemetry.history import History
from gpuprof.telemetry.host import HostSampler
from gpuprof.telemetry.model import Snapshot
from gpuprof.telemetry.nvml.source import NvmlSource
from gpuprof.telemetry.session import TelemetrySession
from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "CPU_FREQ_INTERVAL_S",
    "HOST_IO_INTERVAL_S",
    "MAX_PENDING",
    "MEMORY_MAX_INTERVAL_S",
    "TREE_INTERVAL_S",
    "Recorder",
    "new_session",
    "tree_children",
]

log = logging.getLogger("gpuprof.track")

#: Seconds between two looks at the job's process tree (CPU and memory of the host stats).
TREE_INTERVAL_S = 5.0
#: Seconds between two readings of the CPU clock.
CPU_FREQ_INTERVAL_S = 1.0
#: Seconds between two readings of the host's memory and its disk and network counters (their
#: rates are over that span); CPU use and every GPU field are read at every poll.
HOST_IO_INTERVAL_S = 0.5
#: The longest interval at which the block's process hands its markers over in memory; at a
#: longer one they go to the marker file (on disk at once, not an interval later).
MEMORY_MAX_INTERVAL_S = 0.5
#: Markers waiting in memory for the sampler thread, at most (a sampler stuck in the driver for
#: 45 minutes at 100 steps a second); past it the oldest are dropped, with one warning.
MAX_PENDING = 262_144

Row = tuple[float, str]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)  # POSIX; on Windows descriptors are not inherited


def _open_source() -> TelemetrySource:
    """NVML (host only without a driver), as ``open_source()``, with the CPU clock read every
    :data:`CPU_FREQ_INTERVAL_S` and the host's memory, disk and network every
    :data:`HOST_IO_INTERVAL_S` (repeated in between): it shares the job's process."""
    host = HostSampler(freq_interval_s=CPU_FREQ_INTERVAL_S, io_interval_s=HOST_IO_INTERVAL_S)
    return NvmlSource(host=host)


class _LatestOnly(History):
    """History for a session nothing plots: the latest snapshot, no rings (filling them costs
    about 0.1 ms of the job's interpreter a poll; the recording has every sample)."""

    def __init__(self) -> None:
        super().__init__(capacity=2)

    def append(self, snap: Snapshot) -> None:
        with self._lock:
            self._latest = snap


def new_session(interval_s: float) -> TelemetrySession:
    """The telemetry session of a standalone block, not started and not recording (what
    ``perf/profile_overhead.py`` polls alone)."""
    return TelemetrySession(_open_source(), interval_s=interval_s, history=_LatestOnly())


class Recorder:
    """A standalone block's telemetry session, its recording and the marker file beside it."""

    def __init__(
        self,
        out: Path,
        session: TelemetrySession,
        write_fd: int,
        interval_s: float,
        marker_name: str,
    ) -> None:
        self.out = out
        self.session = session
        self.interval_s = interval_s
        self.marker_path = out.with_name(marker_name)
        #: Where a ``torch_profiler=True`` window writes its trace and breakdown (a name of its
        #: own: it is deleted at the end, so it must never be a folder the user had).
        self.torch_dir = out.with_name(f"{marker_name.removesuffix('.markers')}.torch")
        #: The tracker's append-only descriptor of :attr:`marker_path`.
        self.write_fd = write_fd
        self.tail = MarkerTail(self.marker_path)
        #: ``(time_s, line)`` of the block's own markers, made by the tracker (the protocol's
        #: line without its newline) and taken by the sampler thread; None: they go to the file.
        self.pending: deque[Row] | None = (
            deque(maxlen=MAX_PENDING) if interval_s <= MEMORY_MAX_INTERVAL_S else None
        )
        self.tree: ProcessTree | None = None
        self._next_tree_s = 0.0
        self._lock = threading.Lock()
        self._failed = False
        self._finished = False
        self._overflow_warned = False
        self._stat_fd = -1  # read-only, for fstat: has a worker written to the marker file?

    @classmethod
    def start(cls, name: str, out: Path | None, interval_s: float) -> Recorder | None:
        """Start recording; None, with one warning, when that is impossible."""
        session = None
        recording: Path | None = None  # made here: removed again if the start fails
        try:
            out = out if out is not None else default_out(name)
            session = new_session(interval_s)
            recording = session.start_recording(out)
            # A name of its own (O_EXCL): a file of the user's beside the recording is never
            # truncated, nor deleted at the end.
            marker_name = f"{out.name}.{secrets.token_hex(4)}.markers"
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | _CLOEXEC
            write_fd = os.open(str(out.with_name(marker_name)), flags, 0o600)
        except Exception as e:
            if session is not None:
                session.close()
            _remove_recording(recording)
            where = out if out is not None else "the job"
            log.warning(
                "gpuprof.track: cannot record %s (%s); no telemetry or step markers, the job "
                "goes on",
                where,
                e,
            )
            return None
        recorder = cls(out, session, write_fd, interval_s, marker_name)
        try:
            with contextlib.suppress(OSError):
                recorder._stat_fd = os.open(recorder.marker_path, os.O_RDONLY | _CLOEXEC)
            recorder._start_tree()
            session.subscribe(lambda _snap: recorder.drain())
            session.start()  # a thread: none to be had at a process's thread limit
        except Exception as e:
            recorder._abandon()
            _remove_recording(recording)
            log.warning(
                "gpuprof.track: cannot record %s (%s); no telemetry or step markers, the job "
                "goes on",
                out,
                e,
            )
            return None
        return recorder

    def _abandon(self) -> None:
        """A recording that could not start: everything it opened closed, its marker file gone."""
        self._finished = True
        with contextlib.suppress(Exception):
            self.session.close()
        for fd in (self.write_fd, self._stat_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.write_fd = self._stat_fd = -1
        with contextlib.suppress(OSError):
            self.marker_path.unlink()

    def _start_tree(self) -> None:
        try:
            pid = os.getpid()
            # Without the kernel's children lists: the tree's own pass over every process.
            listed = os.path.exists(f"/proc/{pid}/task/{pid}/children")
            self.tree = ProcessTree(pid, children=tree_children if listed else None)
            self.tree.refresh()
            self._next_tree_s = time.monotonic() + TREE_INTERVAL_S
        except Exception as e:
            self.tree = None
            log.warning("gpuprof.track: cannot follow the process tree (%s); no host stats", e)

    def drain(self, *, final: bool = False) -> None:
        """Move the new markers into the recording: those handed over in memory, and the new
        whole lines of the marker file when it grew (the sampler thread after each poll;
        ``final``: everything left, at the end)."""
        with self._lock:
            try:
                if self.tree is not None and (final or time.monotonic() >= self._next_tree_s):
                    self._next_tree_s = time.monotonic() + TREE_INTERVAL_S
                    self.tree.refresh()
                found = self._take_pending()
                if final:
                    found += self.tail.drain_rows()
                elif self._file_grew():
                    # The lines as written, once checked: no re-encoding (~20 µs a marker).
                    found += self.tail.read_rows()
                rec = self.session.recording  # None once the recording failed (disk full)
                if rec is not None and found:
                    append_marker_rows(rec.store, found)
            except Exception as e:
                if not self._failed:
                    self._failed = True
                    log.warning("gpuprof.track: cannot store markers in %s (%s)", self.out, e)

    def _take_pending(self) -> list[Row]:
        pending = self.pending
        if not pending:
            return []
        n = len(pending)
        if n >= MAX_PENDING and not self._overflow_warned:
            self._overflow_warned = True
            log.warning(
                "gpuprof.track: %d markers waited for the telemetry thread of %s, the most kept "
                "in memory; older ones may be missing from the recording",
                n,
                self.out,
            )
        # The tracker appends at the right meanwhile: take only the n there now.
        take = pending.popleft
        return [take() for _ in range(n)]

    def _file_grew(self) -> bool:
        fd = self._stat_fd
        try:
            size = os.fstat(fd).st_size if fd >= 0 else os.stat(self.marker_path).st_size
        except OSError:
            return False
        return size > self.tail.offset

    def finish(self, *, run: str, started_s: float, window: Any, dtype: str | None = None) -> None:
        """The end of the outermost block: the job profile into the recording, then close."""
        if self._finished:
            return
        self._finished = True
        ended_s = time.time()
        try:
            self.session.sampler.stop(timeout=2.0)
            with contextlib.suppress(Exception):
                self.session.poll_once()  # the end: the last energy reading
            self.drain(final=True)
            rec = self.session.recording
            if rec is not None:
                self._store_profile(rec.store, run, started_s, ended_s, window, dtype)
        except Exception:
            log.warning(
                "gpuprof.track: cannot store the job profile in %s", self.out, exc_info=True
            )
        finally:
            self.session.close()
            fd, self._stat_fd = self._stat_fd, -1
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
            with contextlib.suppress(OSError):
                self.marker_path.unlink()
            with contextlib.suppress(OSError):
                shutil.rmtree(self.torch_dir)

    def _store_profile(
        self,
        store: Any,
        run: str,
        started_s: float,
        ended_s: float,
        window: Any,
        dtype: str | None,
    ) -> None:
        notes = ["gpuprof.track outside gpuprof profile: the job is this process and its children"]
        torch_dir = self.torch_dir if window is not None and self.torch_dir.is_dir() else None
        breakdown, _trace = torch_outputs(torch_dir, self.out, notes)
        info = self.tree.finish() if self.tree is not None else None
        job = JobRun(
            name=run,
            command=tuple(sys.argv),
            pid=os.getpid(),
            started_s=started_s,
            ended_s=max(ended_s, started_s),
            interval_s=self.interval_s,
            notes=tuple(notes),
            dtype=dtype,
        )
        profile = profile_of_store(
            store, job, tree=info, tail_skipped=self.tail.skipped, breakdown=breakdown
        )
        write_job_profile(store, profile)


def tree_children(roots: Sequence[int]) -> dict[int, list[psutil.Process]]:
    """``{ppid: [child processes]}`` of ``roots`` (the tree's live processes: one whose parent
    exited is no longer below this one) and their descendants, from the kernel's
    ``/proc/PID/task/TID/children`` lists (a few files: a training process has few children
    and threads, where a pass over every process of the machine reads them all)."""
    out: dict[int, list[psutil.Process]] = {}
    frontier = list(dict.fromkeys(roots))
    seen = set(frontier)
    while frontier:
        pid = frontier.pop()
        kids: list[psutil.Process] = []
        for child in _children_of(pid):
            if child in seen:
                continue
            seen.add(child)
            with contextlib.suppress(psutil.Error):
                kids.append(psutil.Process(child))
                frontier.append(child)
        if kids:
            out[pid] = kids
    return out


def _children_of(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (none when it is gone)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                found.extend(int(p) for p in fh.read().split())
        except (OSError, ValueError):
            continue
    return found


def _remove_recording(path: Path | None) -> None:
    """A recording this block made but could not start: no empty file left behind."""
    if path is None:
        return
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(OSError):
            p.unlink()
