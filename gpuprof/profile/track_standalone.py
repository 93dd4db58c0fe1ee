"""The recording of a ``gpuprof.track`` block run outside ``gpuprof profile`` (issue 13).

The block's process is the job. :class:`Recorder` runs a
:class:`~gpuprof.telemetry.session.TelemetrySession` on a background thread (NVML, or host only
without a driver; never SIMULATED) recording to ``out``. The tracker appends its markers to
``OUT.markers`` beside it exactly as under ``gpuprof profile``; after each poll the sampler
thread moves the new whole lines into the recording (:class:`~gpuprof.profile.tail.MarkerTail`,
the profiler's own reader), so a crash loses at most one interval of markers in the recording
and none in the file left beside it. The process tree is followed every
:data:`TREE_INTERVAL_S` (a pass over ``/proc`` costs milliseconds: not at every poll of a
process that is training). At the end the job profile is built by
:func:`~gpuprof.profile.build.build_profile`, as ``gpuprof profile`` builds it, and stored in
the recording; the torch window's breakdown and trace are collected by
:func:`~gpuprof.profile.job_files.torch_outputs` (``RUN.trace.json`` beside ``RUN.gpuprof``).

Nothing here raises into the job: a failure is one warning and the job goes on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Imported with this module (when a standalone block starts), not on the sampler thread's first
# poll: the job's first steps do not pay for it.
from gpuprof.profile.build import JobRun, build_profile
from gpuprof.profile.job_files import default_out, torch_outputs
from gpuprof.profile.storage import (
    append_marker_rows,
    read_markers_counted,
    write_job_profile,
)
from gpuprof.profile.tail import MarkerTail
from gpuprof.profile.tree import ProcessTree
from gpuprof.telemetry.host import HostSampler
from gpuprof.telemetry.nvml import NvmlSource
from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession
from gpuprof.telemetry.source import TelemetrySource

__all__ = ["CPU_FREQ_INTERVAL_S", "TREE_INTERVAL_S", "Recorder"]

log = logging.getLogger("gpuprof.track")

#: Seconds between two looks at the job's process tree (CPU and memory of the host stats).
TREE_INTERVAL_S = 5.0
#: Seconds between two readings of the CPU clock (the host's other fields: every poll).
CPU_FREQ_INTERVAL_S = 1.0


def _open_source() -> TelemetrySource:
    """NVML (host only without a driver), as ``open_source()``, with the CPU clock read every
    :data:`CPU_FREQ_INTERVAL_S` (repeated in between): it shares the job's process."""
    return NvmlSource(host=HostSampler(freq_interval_s=CPU_FREQ_INTERVAL_S))


class Recorder:
    """A standalone block's telemetry session, its recording and the marker file beside it."""

    def __init__(
        self, out: Path, session: TelemetrySession, write_fd: int, interval_s: float
    ) -> None:
        self.out = out
        self.session = session
        self.interval_s = interval_s
        self.marker_path = out.with_name(out.name + ".markers")
        #: Where a ``torch_profiler=True`` window writes its trace and breakdown.
        self.torch_dir = out.with_name(out.name + ".torch")
        #: The tracker's append-only descriptor of :attr:`marker_path`.
        self.write_fd = write_fd
        self.tail = MarkerTail(self.marker_path)
        self.tree: ProcessTree | None = None
        self._next_tree_s = 0.0
        self._lock = threading.Lock()
        self._failed = False
        self._finished = False

    @classmethod
    def start(cls, name: str, out: Path | None, interval_s: float) -> Recorder | None:
        """Start recording; None, with one warning, when that is impossible."""
        session = None
        try:
            out = out if out is not None else default_out(name)
            session = TelemetrySession(
                _open_source(), interval_s=interval_s, history_capacity=MINIMAL_HISTORY
            )
            session.start_recording(out)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
            write_fd = os.open(str(out.with_name(out.name + ".markers")), flags, 0o600)
        except Exception as e:
            if session is not None:
                session.close()
            where = out if out is not None else "the job"
            log.warning(
                "gpuprof.track: cannot record %s (%s); no telemetry or step markers, the job "
                "goes on",
                where,
                e,
            )
            return None
        recorder = cls(out, session, write_fd, interval_s)
        recorder._start_tree()
        session.subscribe(lambda _snap: recorder.drain())
        session.start()
        return recorder

    def _start_tree(self) -> None:
        try:
            self.tree = ProcessTree(os.getpid())
            self.tree.refresh()
            self._next_tree_s = time.monotonic() + TREE_INTERVAL_S
        except Exception as e:
            self.tree = None
            log.warning("gpuprof.track: cannot follow the process tree (%s); no host stats", e)

    def drain(self, *, final: bool = False) -> None:
        """Move the new whole lines of the marker file into the recording (the sampler
        thread after each poll; ``final``: everything left, at the end)."""
        with self._lock:
            try:
                if self.tree is not None and (final or time.monotonic() >= self._next_tree_s):
                    self._next_tree_s = time.monotonic() + TREE_INTERVAL_S
                    self.tree.refresh()
                # The lines as written, once checked: no re-encoding (~20 µs a marker).
                found = self.tail.drain_rows() if final else self.tail.read_rows()
                store = self.session._store  # None once the recording failed (disk full)
                if store is not None and found:
                    append_marker_rows(store, found)
            except Exception as e:
                if not self._failed:
                    self._failed = True
                    log.warning("gpuprof.track: cannot store markers in %s (%s)", self.out, e)

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
            store = self.session._store
            if store is not None:
                self._store_profile(store, run, started_s, ended_s, window, dtype)
        except Exception:
            log.warning(
                "gpuprof.track: cannot store the job profile in %s", self.out, exc_info=True
            )
        finally:
            self.session.close()
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
        store.flush()
        markers, skipped = read_markers_counted(store)
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
        profile = build_profile(
            job,
            store.snapshots(),
            devices=store.devices(),
            tree=info,
            markers=markers,
            markers_skipped=self.tail.skipped + skipped,
            breakdown=breakdown,
            source=store.source_kind,
        )
        write_job_profile(store, profile)
