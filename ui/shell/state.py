"""What every tab reads: the history, the latest snapshot, static facts and view choices."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuprof.telemetry.model import DeviceInfo, Snapshot, SourceStatus, SystemInfo, Topology
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
    def read(cls, src: TelemetrySource) -> StaticFacts:
        """Read them (slow: NVML static queries and the results database)."""
        from gpuprof.recommend.calibrate import local_measurements

        devices = src.devices()
        measured = local_measurements(gpu_names=[d.name for d in devices]) if devices else {}
        return cls(src, src.system_info(), devices, src.topology(), src.status(), measured)


@dataclass
class UiState:
    """Mutable view state owned by the main window; tabs read it in ``refresh()``.

    ``history`` is a :class:`gpuprof.telemetry.history.History`. ``time_window_s == 0`` means
    the whole history. ``view_end_s`` pins the right edge (paused, or replay scrubbing); ``None``
    follows the latest sample.
    """

    history: Any
    latest: Snapshot | None = None
    system: SystemInfo = field(default_factory=SystemInfo)
    devices: dict[int, DeviceInfo] = field(default_factory=dict)
    topology: Topology = field(default_factory=Topology)
    status: SourceStatus = field(default_factory=SourceStatus)
    selected_gpus: set[int] | None = None
    time_window_s: int = 600
    paused: bool = False
    view_end_s: float | None = None
    generation: int = 0  # bumps on each new snapshot; tabs skip redraws when unchanged

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
