"""The small protocols of telemetry backends: every source (NVML, simulated, replay, remote)
is a :class:`TelemetrySource`; a replay is also a :class:`ReplayControl`. :class:`KeptFacts` is
the part of a source that only hands out facts it keeps (:class:`StaticFacts`, which a recording
shares)."""

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

__all__ = ["CLOSE_TIMEOUT_S", "KeptFacts", "ReplayControl", "StaticFacts", "TelemetrySource"]

#: The longest a source's ``close()`` waits by default (for a call stuck in the driver).
CLOSE_TIMEOUT_S = 1.0


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

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Release the source, waiting at most ``timeout_s`` for a call in flight (NVML then
        skips ``nvmlShutdown``); sources with nothing to wait for ignore it."""
        ...


@runtime_checkable
class ReplayControl(Protocol):
    """Play / pause / seek / speed of a replayed recording (:class:`ReplaySource`)."""

    @property
    def position_s(self) -> float: ...

    @property
    def duration_s(self) -> float: ...

    @property
    def paused(self) -> bool: ...

    @property
    def finished(self) -> bool: ...

    @property
    def speed(self) -> float: ...

    @speed.setter
    def speed(self, value: float) -> None: ...

    def seek(self, t_s: float) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class StaticFacts:
    """A source's static facts kept as values: ``_system``, ``_devices``, ``_topology``.

    The subclass sets them (the defaults say nothing: no GPU, no links); a recording
    (:class:`~gpuprof.telemetry.store.SessionStore`) keeps those of the source it recorded.
    """

    _system: SystemInfo = SystemInfo()
    _devices: tuple[DeviceInfo, ...] = ()
    _topology: Topology = Topology()

    def system_info(self) -> SystemInfo:
        return self._system

    def devices(self) -> tuple[DeviceInfo, ...]:
        return self._devices

    def topology(self) -> Topology:
        return self._topology


class KeptFacts(StaticFacts):
    """The static half of a :class:`TelemetrySource` whose facts are values it keeps.

    Beside :class:`StaticFacts`' facts, a subclass sets ``_status`` (default: OK) and adds
    ``kind``, ``label`` and ``poll()``; ``close()`` releases nothing. Sources that read their
    facts lazily (NVML, amdsmi) do not use it.
    """

    _status: SourceStatus = SourceStatus()

    def status(self) -> SourceStatus:
        return self._status

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Nothing to release: the facts are plain values."""
