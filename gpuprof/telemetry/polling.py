"""The skeleton the vendor libraries' sources share (NVML's and amdsmi's): the library is
started once, under a lock, on first use; static facts, the system's and the topology, are read
once and kept; a poll samples the host, then every GPU and its processes under the lock, with
the slow fields every ``slow_interval_s``; closing stops new work and waits a bounded time for
the work in flight, so that a driver in trouble never hangs an exit.

A vendor's source subclasses :class:`PolledSource` and plugs in its reader: how the library is
started (:meth:`~PolledSource._do_start`), what one poll reads
(:meth:`~PolledSource._sample`), the system's facts and the topology, its status beyond the
library's own, and how the library is released (:meth:`~PolledSource._release`). NVML adds a
process-wide gate around every span of driver work (:meth:`~PolledSource._span`); the library
module itself stays imported by the vendor's own modules only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Generic, Protocol, TypedDict, TypeVar

from gpuprof.telemetry.diagnostics import Diagnostics
from gpuprof.telemetry.host import HostSampler, ProcessInfoCache
from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    HostSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceStatus,
    SystemInfo,
    Topology,
)

__all__ = ["Closed", "PolledSource", "PollOptions"]


class Closed(BaseException):
    """The source is closing: abandon the work and make no more driver calls.

    A ``BaseException`` so that it passes through the ``except Exception`` around each query
    (one failing field never breaks a poll) straight to the public method that began the work.
    """


class PollOptions(TypedDict, total=False):
    """What every polled source takes (``**options: Unpack[PollOptions]``), defaults as in
    :class:`PolledSource`."""

    host: HostSampler | None
    processes: ProcessInfoCache | None
    clock: Callable[[], float]
    wall_clock: Callable[[], float]
    slow_interval_s: float
    diagnostics: Diagnostics | None


class _Device(Protocol):
    """What the skeleton reads of a vendor's per-GPU state."""

    info: DeviceInfo | None
    process_denied: bool


Q = TypeVar("Q")
D = TypeVar("D", bound=_Device)


class PolledSource(Generic[Q, D]):
    """A :class:`~gpuprof.telemetry.source.TelemetrySource` over a vendor's library, reached
    through a query helper of type ``Q``, with per-GPU state of type ``D``.

    ``host`` / ``processes``: the host's and the GPU processes' readers (made here when not
    given); ``clock``: monotonic seconds (rates, the slow fields' schedule); ``wall_clock``:
    Unix time for :attr:`Snapshot.time_s`; ``slow_interval_s``: how often the slow fields
    (ECC and the like) are read; ``diagnostics``: where failing calls are recorded.
    """

    #: The snapshot's source when the library answers.
    polled_kind: SourceKind
    #: The status once closed.
    closed_status: SourceStatus

    def __init__(
        self,
        *,
        host: HostSampler | None = None,
        processes: ProcessInfoCache | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        slow_interval_s: float = 10.0,
        diagnostics: Diagnostics | None = None,
    ) -> None:
        self._host = host if host is not None else HostSampler(clock=clock)
        self._proc_cache = processes if processes is not None else ProcessInfoCache(clock=clock)
        self._clock = clock
        self._wall_clock = wall_clock
        self._slow_interval_s = slow_interval_s
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        # Held for exactly the spans of driver work.
        self._lock = threading.RLock()
        self._query: Q | None = None
        self._closing = False  # close() began: no new driver calls
        self._started = False
        self._initialized = False  # the library was initialised and its shutdown is owed
        self._base_status = SourceStatus()
        self._devices: list[D] = []
        self._system: SystemInfo | None = None
        self._topology: Topology | None = None
        self._next_slow_s = float("-inf")

    # -- what a vendor plugs in ------------------------------------------------------------------

    def _do_start(self) -> None:
        """Load and initialise the library, open the devices; failures set ``_base_status``.
        Runs once, under the lock."""
        raise NotImplementedError

    def _span(self, q: Q) -> contextlib.AbstractContextManager[object]:
        """Around every locked span of driver work (NVML: its process-wide gate)."""
        return contextlib.nullcontext()

    def _shut_out(self) -> bool:
        """No more driver calls: closing (NVML: or the interpreter exiting)."""
        return self._closing

    def _device_status(self, base: SourceStatus) -> SourceStatus:
        """The status once the library answers (``base`` is OK): lost GPUs, denied processes."""
        return base

    def _read_system(self, q: Q, info: SystemInfo) -> SystemInfo:
        """The host's ``info`` with the driver's versions; under the lock and the span."""
        return info

    def _read_topology(self, q: Q) -> Topology:
        """The GPU×GPU links; under the lock and the span."""
        raise NotImplementedError

    def _sample(
        self, q: Q, now: float, slow: bool
    ) -> tuple[tuple[GpuSample, ...], tuple[ProcessSample, ...]]:
        """Every GPU and every GPU process; under the lock and the span; never raises for a
        field (:class:`Closed` when closing began)."""
        raise NotImplementedError

    def _release(self) -> None:
        """Shut the library down if it was initialised; under the lock, once the work in
        flight is done. Never raises."""
        raise NotImplementedError

    def _warn_busy(self, timeout_s: float) -> None:
        """Log that the library's shutdown is skipped: a call did not return in time."""
        raise NotImplementedError

    # -- the skeleton ----------------------------------------------------------------------------

    def _start(self) -> bool:
        """Start the library once (locked); ``True`` when GPUs can be queried."""
        if self._shut_out():
            return False
        if not self._started:
            with self._lock:
                if not self._started and not self._closing:
                    try:
                        self._do_start()
                    except Closed:
                        return False
                    self._started = True
        return self._base_status.ok

    def status(self) -> SourceStatus:
        """The backend state, with a message and a hint for the user."""
        self._start()
        if self._shut_out():
            return self.closed_status
        base = self._base_status
        return self._device_status(base) if base.ok else base

    def system_info(self) -> SystemInfo:
        """The host plus the driver's versions; read once."""
        ok = self._start()
        system = self._system
        if system is not None:
            return system
        if self._shut_out():
            return self._host.system_info()  # no driver call, and not cached
        with self._lock:
            if self._system is not None:
                return self._system
            info = self._host.system_info()
            q = self._query
            if (ok or self._initialized) and q is not None:
                try:
                    with self._span(q):
                        info = self._read_system(q, info)
                except Closed:
                    return info
            self._system = info
            return info

    def devices(self) -> tuple[DeviceInfo, ...]:
        """Static facts per GPU."""
        if not self._start():
            return ()
        return tuple(d.info for d in self._devices if d.info is not None)

    def topology(self) -> Topology:
        """The GPU×GPU links; read once (again after a GPU is lost)."""
        if not self._start():
            return Topology()
        topology = self._topology
        if topology is not None:
            return topology
        with self._lock:
            q = self._query
            if self._topology is None and q is not None and not self._closing:
                try:
                    with self._span(q):
                        self._topology = self._read_topology(q)
                except Closed:
                    return Topology()
            return self._topology or Topology()

    def poll(self) -> Snapshot:
        """One :class:`Snapshot`: host, every GPU, every GPU process. Never raises for a field."""
        ok = self._start()
        host = self._host.sample()
        wall = self._wall_clock()
        if not ok:
            return Snapshot(time_s=wall, source=SourceKind.NONE, host=host, status=self.status())
        with self._lock:
            q = self._query
            if q is None or self._closing:
                return self._closed_snapshot(wall, host)
            try:
                with self._span(q):
                    now = self._clock()
                    slow = now >= self._next_slow_s
                    if slow:
                        self._next_slow_s = now + self._slow_interval_s
                    gpus, processes = self._sample(q, now, slow)
            except Closed:
                return self._closed_snapshot(wall, host)
        return Snapshot(
            time_s=wall,
            source=self.polled_kind,
            host=host,
            gpus=gpus,
            processes=processes,
            status=self.status(),
        )

    def _closed_snapshot(self, wall: float, host: HostSample) -> Snapshot:
        return Snapshot(time_s=wall, source=SourceKind.NONE, host=host, status=self.closed_status)

    def close(self, timeout_s: float = 1.0) -> None:
        """Stop new driver calls, wait at most ``timeout_s`` for a call in flight, then shut the
        library down; when the call has not returned by then, skip the shutdown (logged)."""
        self._stop_queries()
        self._shut_down(timeout_s)

    def _stop_queries(self) -> None:
        self._closing = True

    def _shut_down(self, timeout_s: float) -> bool:
        """:meth:`_release` once the lock is free; ``False`` when still busy after ``timeout_s``."""
        if not self._lock.acquire(timeout=timeout_s):
            self._warn_busy(timeout_s)
            return False
        try:
            self._release()
        finally:
            self._lock.release()
        return True
