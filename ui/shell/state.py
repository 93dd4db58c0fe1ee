"""What every tab reads: the history, the latest snapshot, static facts and view choices."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SourceStatus, SystemInfo, Topology
from gpuprof.telemetry.session import TelemetrySession
from gpuprof.telemetry.source import TelemetrySource

__all__ = ["Measurements", "StaticFacts", "UiState"]

#: What the recommender is told was measured here: {GPU name: {dtype: TFLOPS}}.
Measurements = dict[str, dict[str, float]]


@dataclass(frozen=True)
class StaticFacts:
    """The static facts of a source, read once in a thread when the source changes."""

    source: TelemetrySource
    system: SystemInfo
    devices: tuple[DeviceInfo, ...]
    topology: Topology
    status: SourceStatus
    measured: Measurements  # benchmarks run here earlier, for these GPU models

    @classmethod
    def read(cls, session: TelemetrySession) -> StaticFacts:
        """Read them (slow: the session reads its source's facts once, NVML's static queries;
        then the results database). ``source`` is the one they were asked of: a window that
        changed source meanwhile drops them."""
        from gpuprof.recommend.calibrate import local_measurements

        src = session.source
        facts = session.static()
        devices = facts.devices
        measured = local_measurements(gpu_names=[d.name for d in devices]) if devices else {}
        return cls(src, facts.system, devices, facts.topology, facts.status, measured)


#: What the tabs read before the window has a session: nothing.
_NO_HISTORY = History(capacity=2)


@dataclass
class UiState:
    """Mutable view state owned by the main window; tabs read it in ``refresh()``.

    ``session`` is the window's :class:`TelemetrySession` (None until it has one); tabs read
    its History through :attr:`history`, never a copy. ``time_window_s == 0`` means the whole
    history. ``view_end_s`` pins the right edge (paused, or replay scrubbing); ``None`` follows
    the latest sample.
    """

    session: TelemetrySession | None = None
    latest: Snapshot | None = None
    system: SystemInfo = field(default_factory=SystemInfo)
    devices: dict[int, DeviceInfo] = field(default_factory=dict)
    topology: Topology = field(default_factory=Topology)
    status: SourceStatus = field(default_factory=SourceStatus)
    selected_gpus: set[int] | None = None
    time_window_s: int = 600
    paused: bool = False
    view_end_s: float | None = None
    updates: int = 0  # bumps on each new snapshot and new static facts

    @property
    def history(self) -> History:
        """The session's History (one for the session's life; empty without a session)."""
        return self.session.history if self.session is not None else _NO_HISTORY

    @property
    def generation(self) -> tuple[int, int]:
        """What tabs compare to skip redraws: the session's generation (History reset or
        reloaded) and the view's :attr:`updates`."""
        session = self.session
        return (session.generation if session is not None else -1, self.updates)

    def gpu_indices(self) -> list[int]:
        """Indices seen so far: from static facts and from the latest snapshot."""
        seen = set(self.devices)
        if self.latest is not None:
            seen.update(g.index for g in self.latest.gpus)
        return sorted(seen)

    def visible_gpus(self) -> list[int]:
        all_gpus = self.gpu_indices()
        if self.selected_gpus is None:
            return all_gpus
        return [i for i in all_gpus if i in self.selected_gpus]

    def end_time(self) -> float | None:
        """The right edge of the plots (Unix seconds), or ``None`` before any data."""
        if self.view_end_s is not None:
            return self.view_end_s
        return self.latest.time_s if self.latest is not None else None

    def device_name(self, index: int) -> str:
        info = self.devices.get(index)
        return info.name if info is not None else ""
