"""The small protocol every telemetry backend implements (NVML, simulated, replay)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gpuprof.telemetry.model import (
    DeviceInfo,
    Snapshot,
    SourceKind,
    SourceStatus,
    SystemInfo,
    Topology,
)

__all__ = ["TelemetrySource"]


@runtime_checkable
class TelemetrySource(Protocol):
    """A source of :class:`Snapshot`s. ``poll()`` never raises for one failing field.

    ``label`` is what the status bar shows: "NVML", "SIMULATED — 8×H100 NVSwitch",
    "REPLAY — run.gpuprof". Static facts are read once and cached by the source.
    """

    @property
    def kind(self) -> SourceKind: ...

    @property
    def label(self) -> str: ...

    def system_info(self) -> SystemInfo: ...

    def devices(self) -> tuple[DeviceInfo, ...]: ...

    def topology(self) -> Topology: ...

    def status(self) -> SourceStatus: ...

    def poll(self) -> Snapshot: ...

    def close(self) -> None: ...
