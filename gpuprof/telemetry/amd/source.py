"""The AMD telemetry source: amdsmi's GPUs as the same frozen samples NVML gives.

Static facts (``amd-smi static``) are read once, at the first use; ECC / RAS counts every
``slow_interval_s``; the rest at every poll (``amd-smi metric``). amdsmi itself is reached only
through :mod:`gpuprof.telemetry.amd.lib`. A missing library or driver is a state with a hint,
never an exception; one failing field is ``None`` with its reason in ``GpuSample.absent``.

In CPX mode amdsmi lists each compute partition of an MI300X as its own GPU: the source shows
them as such, each with ``DeviceInfo.compute_partition`` / ``memory_partition`` (the analogue
of MIG). Power, temperatures and counters that belong to the socket are on partition 0 only;
the others read "N/A" and say so.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpuprof.telemetry.amd.lib import (
    STATUS_DRIVER_NOT_LOADED,
    STATUS_NO_PERM,
    AmdQuery,
    AmdSmiUnavailable,
    DeviceState,
    error_code,
    error_reason,
    load_amdsmi,
)
from gpuprof.telemetry.amd.read import (
    read_device_info,
    read_processes,
    read_topology,
    sample_gpu,
)
from gpuprof.telemetry.host import process_sample
from gpuprof.telemetry.model import (
    GpuSample,
    ProcessSample,
    SourceKind,
    SourceState,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.polling import PolledSource, PollOptions
from gpuprof.telemetry.procstat import NO_USAGE

if TYPE_CHECKING:
    from typing import Unpack

__all__ = ["AmdSmiSource"]

log = logging.getLogger(__name__)

_CLOSED = SourceStatus(
    state=SourceState.ERROR,
    message="amdsmi is closed (the source was shut down)",
    hint="Open the source again to resume.",
)


class AmdSmiSource(PolledSource[AmdQuery, DeviceState]):
    """Live telemetry from amdsmi: the :class:`~gpuprof.telemetry.source.TelemetrySource` for AMD.

    ``smi``: an amdsmi-compatible module (default: the real one, imported lazily); the
    ``options`` (clock, host reader, slow interval, ...) are :class:`PolledSource`'s.
    The start, the locking, the polling and the bounded close are
    :class:`~gpuprof.telemetry.polling.PolledSource`'s; this class reads amdsmi.
    """

    polled_kind = SourceKind.AMDSMI
    closed_status = _CLOSED

    def __init__(self, *, smi: Any = None, **options: Unpack[PollOptions]) -> None:
        super().__init__(**options)
        self._smi_override = smi

    @property
    def kind(self) -> SourceKind:
        return SourceKind.AMDSMI if self._base_status.ok else SourceKind.NONE

    @property
    def label(self) -> str:
        return "amdsmi" if self._base_status.ok else "host only — no AMD GPU library or driver"

    # -- amdsmi, plugged into the skeleton ---------------------------------------------------

    def _fail(self, state: SourceState, message: str, hint: str) -> None:
        self._base_status = SourceStatus(state=state, message=message, hint=hint)

    def _do_start(self) -> None:
        try:
            smi = self._smi_override if self._smi_override is not None else load_amdsmi()
        except AmdSmiUnavailable as exc:
            self._fail(
                SourceState.LIBRARY_NOT_FOUND,
                str(exc),
                "Install ROCm's amd-smi-lib (libamd_smi.so) and the amdsmi Python package "
                "of the same ROCm version; set ROCM_PATH if ROCm is not in /opt/rocm.",
            )
            return
        q = self._query = AmdQuery(smi, self.diagnostics)
        try:
            q.call("amdsmi_init", q.const("AmdSmiInitFlags", "INIT_AMD_GPUS"))
        except Exception as exc:
            self.diagnostics.record(None, "amdsmi_init", type(exc).__name__, str(exc))
            code = error_code(exc)
            state = {
                STATUS_DRIVER_NOT_LOADED: SourceState.DRIVER_NOT_LOADED,
                STATUS_NO_PERM: SourceState.NO_PERMISSION,
            }.get(code if code is not None else -1, SourceState.ERROR)
            self._fail(
                state,
                f"amdsmi_init failed: {error_reason(exc)}",
                "Check that the amdgpu driver is loaded (lsmod | grep amdgpu) and that you "
                "may open /dev/kfd and /dev/dri (the video and render groups).",
            )
            return
        self._initialized = True
        try:
            handles = list(q.call("amdsmi_get_processor_handles") or [])
        except Exception as exc:
            handles = []
            q.failed(None, "processor_handles", "amdsmi_get_processor_handles", exc)
        if not handles:
            self._fail(SourceState.NO_GPUS, "amdsmi lists no AMD GPU", "Check `amd-smi list`.")
            return
        for index, handle in enumerate(handles):
            dev = DeviceState(index=index, handle=handle)
            dev.info = read_device_info(q, dev)
            self._devices.append(dev)

    def _device_status(self, base: SourceStatus) -> SourceStatus:
        if any(d.process_denied for d in self._devices):
            return SourceStatus(
                state=SourceState.NO_PERMISSION,
                message="Not permitted to list the processes using the GPUs (amdsmi: NO_PERM)",
                hint="Run as root; every other metric keeps updating.",
                process_info_permitted=False,
            )
        return base

    def _read_system(self, q: AmdQuery, info: SystemInfo) -> SystemInfo:
        """The host, plus the amdgpu driver version (``amd-smi static --driver``)."""
        if not self._devices:
            return info
        driver = q.get(self._devices[0], "driver", "amdsmi_get_gpu_driver_info", reasons={})
        version = driver.get("driver_version") if isinstance(driver, dict) else None
        if isinstance(version, str) and version.strip() not in ("", "N/A"):
            info = replace(info, driver_version=version.strip())
        return info

    def _read_topology(self, q: AmdQuery) -> Topology:
        return read_topology(q, self._devices)

    def _sample(
        self, q: AmdQuery, now: float, slow: bool
    ) -> tuple[tuple[GpuSample, ...], tuple[ProcessSample, ...]]:
        gpus: list[GpuSample] = []
        raw: list[tuple[DeviceState, dict[int, tuple[str | None, int | None, float | None]]]]
        raw = []
        for dev in self._devices:
            gpus.append(sample_gpu(q, dev, now, slow))
            raw.append((dev, read_processes(q, dev, now)))
        return tuple(gpus), self._process_samples(raw)

    def _process_samples(
        self,
        raw: list[tuple[DeviceState, dict[int, tuple[str | None, int | None, float | None]]]],
    ) -> tuple[ProcessSample, ...]:
        pids = [pid for _dev, procs in raw for pid in procs]
        infos = self._proc_cache.lookup(pids) if pids else {}
        usage = self._proc_cache.host_usage(pids) if pids else {}
        out = []
        for dev, procs in raw:
            for pid, (name, vram, busy) in procs.items():
                host = usage.get(pid) or NO_USAGE
                out.append(
                    process_sample(
                        pid,
                        dev.index,
                        infos.get(pid),
                        host,
                        gpu_mem_bytes=vram,
                        sm_util_pct=busy,
                        fallback_name=name,
                    )
                )
        return tuple(out)

    def _release(self) -> None:
        """``amdsmi_shut_down`` if this source initialised amdsmi (the close waits at most
        ``timeout_s`` for a poll in flight, else skips it: a driver in trouble must not hang
        exit). A closed source stays closed."""
        q = self._query
        if self._initialized and q is not None:
            self._initialized = False
            try:
                q.call("amdsmi_shut_down")
            except Exception as exc:  # closing must not raise
                log.warning("amdsmi_shut_down failed: %s", exc)

    def _warn_busy(self, timeout_s: float) -> None:
        log.warning("amdsmi: a call did not return in %.1f s; skipping amdsmi_shut_down", timeout_s)
