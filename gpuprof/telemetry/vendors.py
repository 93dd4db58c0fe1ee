"""Which GPUs this machine has: NVIDIA through NVML, AMD through amdsmi, or both.

:func:`open_local_source` is what ``open_source()`` gives when no replay, demo or remote
exporter is asked for. Without the amdsmi package the answer is the NVML source, exactly as
before (nothing AMD is started). With it, amdsmi is initialised once to see whether it lists
GPUs; a box with both vendors gets a :class:`MultiVendorSource`: the NVIDIA GPUs first (their
NVML indices), then the AMD ones numbered on from there, so every GPU has one index in every
view, recording and export.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.source import TelemetrySource

if TYPE_CHECKING:
    from gpuprof.telemetry.amd.source import AmdSmiSource

__all__ = ["MultiVendorSource", "open_local_source"]


def _open_amd() -> AmdSmiSource | None:
    """An AMD source that lists GPUs, or None (amdsmi absent, unusable or without GPUs)."""
    from gpuprof.telemetry.amd.lib import amdsmi_installed

    if not amdsmi_installed():
        return None
    from gpuprof.telemetry.amd.source import AmdSmiSource

    amd = AmdSmiSource()
    if amd.devices():
        return amd
    amd.close()
    return None


def open_local_source() -> TelemetrySource:
    """NVML (host only without a driver), amdsmi, or both on a mixed box."""
    from gpuprof.telemetry.nvml.source import NvmlSource

    nvidia = NvmlSource()
    amd = _open_amd()
    if amd is None:
        return nvidia
    if nvidia.devices():
        return MultiVendorSource(nvidia, amd)
    nvidia.close()
    return amd


def _shift_gpu(sample: GpuSample, offset: int) -> GpuSample:
    return replace(sample, index=sample.index + offset) if offset else sample


def _shift_process(sample: ProcessSample, offset: int) -> ProcessSample:
    return replace(sample, gpu_index=sample.gpu_index + offset) if offset else sample


class MultiVendorSource:
    """NVIDIA and AMD GPUs of one box as one source (the first source's host sample)."""

    def __init__(self, *sources: TelemetrySource) -> None:
        self.sources = sources
        self._offsets: tuple[int, ...] | None = None

    def _offset_list(self) -> tuple[int, ...]:
        if self._offsets is None:
            offsets, n = [], 0
            for source in self.sources:
                offsets.append(n)
                n += len(source.devices())
            self._offsets = tuple(offsets)
        return self._offsets

    @property
    def kind(self) -> SourceKind:
        return self.sources[0].kind

    @property
    def label(self) -> str:
        return " + ".join(s.label for s in self.sources)

    def system_info(self) -> SystemInfo:
        infos = [s.system_info() for s in self.sources]
        drivers = [i.driver_version for i in infos if i.driver_version]
        return replace(infos[0], driver_version=" / ".join(drivers) or None)

    def devices(self) -> tuple[DeviceInfo, ...]:
        out: list[DeviceInfo] = []
        for source, offset in zip(self.sources, self._offset_list(), strict=True):
            out.extend(replace(d, index=d.index + offset) for d in source.devices())
        return tuple(out)

    def topology(self) -> Topology:
        """Each vendor's matrix on the diagonal; GPUs of different vendors meet at ``SYS``."""
        parts = [
            (s.topology(), off) for s, off in zip(self.sources, self._offset_list(), strict=True)
        ]
        indices = [i + off for t, off in parts for i in t.gpu_indices]
        rows: list[tuple[str | None, ...]] = []
        for t, off in parts:
            for r, row in enumerate(t.matrix):
                full: list[str | None] = ["SYS"] * len(indices)
                for c, label in enumerate(row):
                    full[indices.index(t.gpu_indices[c] + off)] = label
                full[indices.index(t.gpu_indices[r] + off)] = "X"
                rows.append(tuple(full))
        return Topology(gpu_indices=tuple(indices), matrix=tuple(rows))

    def status(self) -> SourceStatus:
        statuses = [s.status() for s in self.sources]
        worst = next((st for st in statuses if not st.ok), statuses[0])
        lost = tuple(
            i + off
            for st, off in zip(statuses, self._offset_list(), strict=True)
            for i in st.lost_gpus
        )
        return replace(
            worst,
            lost_gpus=lost,
            process_info_permitted=all(st.process_info_permitted for st in statuses),
        )

    def poll(self) -> Snapshot:
        snaps = [s.poll() for s in self.sources]
        gpus: list[GpuSample] = []
        procs: list[ProcessSample] = []
        for snap, off in zip(snaps, self._offset_list(), strict=True):
            gpus.extend(_shift_gpu(g, off) for g in snap.gpus)
            procs.extend(_shift_process(p, off) for p in snap.processes)
        return Snapshot(
            time_s=snaps[0].time_s,
            source=snaps[0].source,
            host=snaps[0].host,
            gpus=tuple(gpus),
            processes=tuple(procs),
            status=self.status(),
        )

    def _watch(self, what: str, watched: bool) -> None:
        for source in self.sources:
            watch: Any = getattr(source, f"watch_{what}", None)
            if watch is not None:
                watch(watched)

    def watch_process_host(self, watched: bool) -> None:
        self._watch("process_host", watched)

    def watch_gpm(self, watched: bool) -> None:
        """NVML GPM for the NVIDIA GPUs while a view shows it (amdsmi has none)."""
        self._watch("gpm", watched)

    def close(self, timeout_s: float = 1.0) -> None:
        for source in self.sources:
            close: Any = source.close
            try:
                close(timeout_s)
            except TypeError:
                close()
