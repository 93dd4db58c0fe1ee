"""A scriptable telemetry source and a synchronous sampler for the GUI tests."""

from __future__ import annotations

import threading
from typing import Any

from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    HostSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceState,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.sampler import Sampler

GiB = 2**30

#: A command line longer than any column.
_LONG_CMDLINE = "python train.py --model llama-7b --batch-size 32 " + "x" * 200
#: The processes a FakeSource shows unless told otherwise: (pid, GPU, GiB used, SM %, name,
#: user, command line).
_PROCESSES = (
    (4242, 0, 30, 91.0, "python", "alice", _LONG_CMDLINE),
    (1001, 1, 2, 5.0, "Xorg", "root", "/usr/lib/xorg/Xorg :0"),
    (777, 1, 12, 40.0, "vllm", "bob", "vllm serve mistral"),
)


def _default_processes() -> tuple[ProcessSample, ...]:
    return tuple(
        ProcessSample(
            pid=pid,
            gpu_index=gpu,
            gpu_mem_bytes=gib * GiB,
            sm_util_pct=sm,
            name=name,
            user=user,
            cmdline=cmdline,
        )
        for pid, gpu, gib, sm, name, user, cmdline in _PROCESSES
    )


class FakeSource:
    """``n_gpus`` H100-like GPUs whose values follow ``step``; a GPU can be marked lost.

    ``time_s`` starts at 1.7e9 and advances by ``dt_s`` per poll (no wall clock).
    """

    def __init__(
        self,
        n_gpus: int = 2,
        *,
        dt_s: float = 1.0,
        kind: SourceKind = SourceKind.SIMULATED,
        processes: tuple[ProcessSample, ...] | None = None,
        block: threading.Event | None = None,
    ) -> None:
        self.kind = kind
        self.label = "FAKE" if kind is not SourceKind.SIMULATED else "SIMULATED — fake"
        self.n = n_gpus
        self.dt_s = dt_s
        self.t = 1.7e9
        self.step = 0
        self.lost: set[int] = set()
        self.throttled: dict[int, tuple[str, ...]] = {}
        self.polls = 0
        self.closed = False
        self.block = block  # poll() waits on it: a hanging driver call
        self.status_override: SourceStatus | None = None
        self.processes = processes if processes is not None else _default_processes()

    def system_info(self) -> SystemInfo:
        return SystemInfo(
            hostname="testbox",
            os="Linux",
            driver_version="550.54.15",
            cuda_driver_version="12.4",
            nvml_version="12.550.54.15",
        )

    def devices(self) -> tuple[DeviceInfo, ...]:
        return tuple(
            DeviceInfo(
                index=i,
                name="NVIDIA H100 80GB HBM3",
                uuid=f"GPU-{i:04d}",
                memory_total_bytes=80 * GiB,
                sm_clock_max_mhz=1980,
                power_default_limit_w=700.0,
                temp_slowdown_c=87.0,
                pcie_gen_max=5,
                pcie_width_max=16,
                nvlink_count=18,
            )
            for i in range(self.n)
        )

    def topology(self) -> Topology:
        idx = tuple(range(self.n))
        matrix = tuple(tuple("X" if i == j else "NV18" for j in idx) for i in idx)
        return Topology(gpu_indices=idx, matrix=matrix)

    def status(self) -> SourceStatus:
        if self.status_override is not None:
            return self.status_override
        if self.n == 0:
            return SourceStatus(
                state=SourceState.LIBRARY_NOT_FOUND, message="libnvidia-ml.so.1 not found"
            )
        if self.lost:
            return SourceStatus(
                state=SourceState.GPU_LOST,
                message="GPU fell off the bus",
                lost_gpus=tuple(sorted(self.lost)),
            )
        return SourceStatus()

    def gpu(self, i: int) -> GpuSample:
        if i in self.lost:
            return GpuSample(index=i, lost=True)
        k = self.step
        return GpuSample(
            index=i,
            util_gpu_pct=float((k * 7 + i * 10) % 100),
            util_mem_pct=30.0,
            mem_total_bytes=80 * GiB,
            mem_used_bytes=(10 + i) * GiB,
            power_w=300.0 + 10 * i + k,
            power_limit_w=700.0,
            temp_gpu_c=50.0 + i,
            clock_sm_mhz=1980.0,
            clock_mem_mhz=2619.0,
            pcie_gen=5,
            pcie_width=16,
            pcie_rx_bytes_s=1e9,
            pcie_tx_bytes_s=5e8,
            nvlink_rx_bytes_s=1e11,
            nvlink_tx_bytes_s=1e11,
            throttle_reasons=self.throttled.get(i, ()),
        )

    def poll(self) -> Snapshot:
        if self.block is not None:
            self.block.wait(30)
        self.polls += 1
        self.step += 1
        self.t += self.dt_s
        host = HostSample(
            cpu_pct=25.0,
            mem_total_bytes=512 * GiB,
            mem_used_bytes=100 * GiB,
            load_avg=(1.0, 0.5, 0.25),
        )
        return Snapshot(
            time_s=self.t,
            source=self.kind,
            host=host,
            gpus=tuple(self.gpu(i) for i in range(self.n)),
            processes=self.processes if self.n else (),
            status=self.status(),
        )

    def close(self, timeout_s: float = 1.0) -> None:
        self.closed = True


class ManualSampler(Sampler):
    """The real Sampler without its thread: polled only by ``poll_once()`` (the tests' hand)."""

    def __init__(self, source: Any, interval_s: float = 1.0, history: Any = None) -> None:
        super().__init__(source, interval_s=interval_s, history=history)
        self.started = False

    def start(self) -> None:
        self.started = True

    def stop(self, timeout: float = 1.0) -> None:
        self.started = False
        super().stop(timeout)
