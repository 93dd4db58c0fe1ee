"""The simulated source (``--demo``): a scripted workload on a made-up machine. Always SIMULATED.

:class:`SimulatedSource` plays idle, ramp-up, training with periodic dips, a power/thermal
throttling episode, an evaluation pass that is memory-bandwidth bound, a launch-bound stretch
(small kernels: GPU utilization near 100% while the SMs are mostly idle), a data-loader starved
phase (GPU utilization well below 70%) and cool-down, on one of the machines in
:data:`~gpuprof.telemetry.scenarios.SCENARIOS`. Where the scenario's GPU has GPM (Hopper), the
profiling activity (``prof_*``) follows the phase: tensor cores busy in training's GEMMs, DRAM
in the memory-bound pass, few SMs in the launch-bound stretch; elsewhere it is absent with the
reason. The noise is a deterministic hash of (seed, keys), so the same seed and clock readings
give the same snapshots.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.telemetry.model import (
    EccCounts,
    GpuSample,
    HostSample,
    NvLinkSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceState,
    SourceStatus,
    Topology,
)
from gpuprof.telemetry.nvml.gpm import PROF_NOT_SUPPORTED
from gpuprof.telemetry.reasons import ClockEventReason
from gpuprof.telemetry.scenarios import MIB, SCENARIOS
from gpuprof.telemetry.source import KeptFacts

__all__ = [
    "CYCLE_S",
    "DEMO_START_OFFSET_S",
    "PHASES",
    "THERMAL_S",
    "THROTTLE_S",
    "SimulatedSource",
    "demo_start_s",
    "phase_at",
]

#: One pass through the scripted workload, in seconds; it then repeats.
CYCLE_S = 720.0
#: Phase boundaries within a cycle (seconds from the start).
PHASES: tuple[tuple[str, float, float], ...] = (
    ("idle", 0.0, 30.0),
    ("ramp", 30.0, 90.0),
    ("training", 90.0, 330.0),
    ("memory_bound", 330.0, 375.0),  # evaluation: token generation, DRAM-bandwidth bound
    ("launch_bound", 375.0, 420.0),  # small kernels: "GPU util" ~100%, most SMs idle
    ("starved", 420.0, 600.0),
    ("cooldown", 600.0, 660.0),
    ("idle", 660.0, 720.0),
)
#: Power-capped stretch inside the training phase; the last GPU also slows down thermally.
THROTTLE_S = (250.0, 320.0)
THERMAL_S = (280.0, 310.0)

#: Power (and heat) per % utilization, relative to training's GEMMs, where the SMs do less.
_POWER_SHARE = {"memory_bound": 0.7, "launch_bound": 0.3}
#: NVML's memory utilization (% of time the memory was read or written) per % utilization.
_MEM_UTIL_SHARE = {"memory_bound": 0.9, "launch_bound": 0.1}
#: Per phase: SM active per % utilization; then, as shares of SM active, occupancy and tensor
#: activity; DRAM active per % utilization; FP32 and FP16 pipe activity per SM active.
_PROF_SHARES: dict[str, tuple[float, float, float, float, float, float]] = {
    "idle": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "ramp": (0.85, 0.40, 0.60, 0.35, 0.15, 0.08),
    "training": (0.92, 0.38, 0.68, 0.42, 0.12, 0.06),
    "memory_bound": (0.62, 0.78, 0.12, 0.88, 0.25, 0.18),
    "launch_bound": (0.18, 0.30, 0.15, 0.05, 0.20, 0.05),
    "starved": (0.90, 0.38, 0.66, 0.40, 0.12, 0.06),
    "cooldown": (0.85, 0.35, 0.55, 0.35, 0.12, 0.05),
}
#: A GPU without GPM (before Hopper, GeForce): absent, with the reason.
_NO_GPM: dict[str, Any] = {"prof_unavailable": PROF_NOT_SUPPORTED}


_MASK64 = 0xFFFFFFFFFFFFFFFF


def _mix(x: int) -> int:
    """splitmix64 finalizer: a fast, well-spread integer hash."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def _noise(seed: int, *keys: int) -> float:
    """A deterministic number in [-1, 1) for (seed, keys)."""
    x = _mix(seed & 0xFFFFFFFFFFFFFFFF)
    for k in keys:
        x = _mix(x ^ (k & 0xFFFFFFFFFFFFFFFF))
    return (x >> 11) / float(1 << 52) - 1.0


def _noise_array(seed: int, *keys: int | np.ndarray) -> np.ndarray:
    """:func:`_noise` for many keys at once: any key may be an integer array (broadcast).

    The same splitmix64 steps in ``uint64`` arithmetic (which wraps like the masks above), so
    ``_noise_array(s, a, ks)[j] == _noise(s, a, ks[j])`` exactly.
    """
    x: int | np.ndarray = _mix(seed & _MASK64)
    for k in keys:
        if isinstance(x, int) and not isinstance(k, np.ndarray):
            x = _mix(x ^ (k & _MASK64))
            continue
        key: np.ndarray | np.uint64
        if isinstance(k, np.ndarray):
            key = np.asarray(k, dtype=np.int64).view(np.uint64)
        else:
            key = np.uint64(k & _MASK64)
        x = _mix_array(np.asarray(x, dtype=np.uint64) ^ key)
    arr = np.asarray(x, dtype=np.uint64)
    return (arr >> np.uint64(11)).astype(np.float64) / float(1 << 52) - 1.0


def _mix_array(x: np.ndarray) -> np.ndarray:
    """:func:`_mix` on a ``uint64`` array (multiplication wraps modulo 2**64)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    out: np.ndarray = x ^ (x >> np.uint64(31))
    return out


#: Where a demo is in the script when it starts: 3 min in, the middle of "training", so it
#: shows load at once and the power-cap episode a minute later (not the idle warm-up).
DEMO_START_OFFSET_S = 180.0


def demo_start_s(now_s: float, history_s: float = 0.0) -> float:
    """The script's start for a demo that is :data:`DEMO_START_OFFSET_S` into a pass at
    ``now_s`` and has at least ``history_s`` seconds of script before it (whole passes earlier).

    The script repeats every :data:`CYCLE_S`, so the demo keeps its busy phases for as long as
    it runs; this only chooses where in the loop "now" is.
    """
    passes = math.ceil(max(0.0, history_s - DEMO_START_OFFSET_S) / CYCLE_S)
    return now_s - DEMO_START_OFFSET_S - passes * CYCLE_S


def phase_at(elapsed_s: float) -> str:
    """The name of the scripted phase at ``elapsed_s`` seconds from the start."""
    e = elapsed_s % CYCLE_S
    for name, a, b in PHASES:
        if a <= e < b:
            return name
    return "idle"


class SimulatedSource(KeptFacts):
    """A deterministic, scripted machine for demos, screenshots and tests. Always SIMULATED.

    ``clock`` returns Unix seconds (default :func:`time.time`); the snapshot time is the clock
    reading and the workload phase follows ``clock() - start_s``. The same seed and the same
    sequence of clock readings give the same snapshots.
    """

    kind = SourceKind.SIMULATED

    def __init__(
        self,
        scenario: str = "h100x8",
        seed: int = 0,
        clock: Callable[[], float] | None = None,
        *,
        start_s: float | None = None,
    ) -> None:
        try:
            self.scenario = SCENARIOS[scenario]
        except KeyError:
            names = ", ".join(SCENARIOS)
            raise InputError(
                tr("unknown demo scenario {s!r} (choose one of: {names})", s=scenario, names=names)
            ) from None
        self.seed = int(seed)
        self._clock = clock or time.time
        self.start_s = float(self._clock()) if start_s is None else float(start_s)
        self.label = self.scenario.label
        self._system = self.scenario.system
        self._lock = threading.Lock()
        self._energy_j = [1.0e6 * (3 + i) for i in range(self.scenario.gpu_count)]
        self._last_t: float | None = None
        sc = self.scenario
        self._devices = tuple(
            replace(
                sc.device,
                index=i,
                uuid=f"GPU-51a0{sc.key[:4].encode().hex()}-{self.seed & 0xFFFF:04x}-0000-0000-{i:012x}",
                pci_bus_id=sc.bus_ids[i],
                serial=None if not sc.ecc else f"SIM{i:010d}",
            )
            for i in range(sc.gpu_count)
        )
        n = sc.gpu_count
        self._topology = Topology(
            gpu_indices=tuple(range(n)),
            matrix=tuple(tuple("X" if i == j else sc.link for j in range(n)) for i in range(n)),
        )
        self._status = SourceStatus(SourceState.OK, message="simulated data, not measured")

    @classmethod
    def demo(
        cls,
        scenario: str = "h100x8",
        *,
        seed: int = 0,
        clock: Callable[[], float] | None = None,
        history_s: float = 0.0,
    ) -> SimulatedSource:
        """The ``--demo`` source: in the training phase now (:func:`demo_start_s`), with
        ``history_s`` seconds of script behind it for a window that shows the past."""
        clock = clock or time.time
        return cls(scenario, seed, clock, start_s=demo_start_s(float(clock()), history_s))

    # -- TelemetrySource (the static facts are KeptFacts') -------------------------------------

    def poll(self) -> Snapshot:
        with self._lock:
            t = float(self._clock())
            dt = 0.0 if self._last_t is None else max(0.0, t - self._last_t)
            self._last_t = t
            e = t - self.start_s
            gpus = tuple(self._gpu(i, e, dt) for i in range(self.scenario.gpu_count))
            return Snapshot(
                time_s=t,
                source=SourceKind.SIMULATED,
                host=self._host(e),
                gpus=gpus,
                processes=self._processes(e, gpus),
                status=self._status,
            )

    # -- the script ------------------------------------------------------------------------

    def _util(self, gpu: int, e: float) -> float:
        """GPU utilization in % at ``e`` seconds from the start (before integer rounding)."""
        c = e % CYCLE_S
        tick = math.floor(e)
        jitter = _noise(self.seed, 1, gpu, tick)
        phase = phase_at(e)
        if phase == "idle":
            return 0.0
        if phase == "ramp":
            return max(0.0, 96.0 * (c - 30.0) / 60.0 + 2.0 * jitter)
        if phase == "training":
            # Evaluation / checkpoint every 45 s: a 4 s dip, the same on every rank.
            if (c - 90.0) % 45.0 < 4.0:
                return 12.0 + 6.0 * abs(jitter)
            return min(100.0, 97.0 + 3.0 * jitter)
        if phase in ("memory_bound", "launch_bound"):
            # A kernel runs all the time: NVML's utilization says busy whatever the SMs do.
            return min(100.0, 98.5 + 1.5 * jitter)
        if phase == "starved":
            # The data loader cannot keep up: bursts of work between waits, mean about 45%.
            burst = _noise(self.seed, 2, tick // 3) > -0.1
            return (78.0 if burst else 8.0) + 12.0 * jitter
        # cooldown: the job drains
        return max(0.0, 60.0 * (660.0 - c) / 60.0 + 3.0 * jitter)

    def _load(self, gpu: int, e: float) -> float:
        """How hard the GPU works in % (what power and heat follow): utilization, scaled down
        where the SMs are mostly idle while a kernel runs."""
        return self._util(gpu, e) * _POWER_SHARE.get(phase_at(e), 1.0)

    def _smoothed(self, gpu: int, e: float) -> float:
        """Load averaged over the last minute: drives temperature lag."""
        return sum(self._load(gpu, e - 10.0 * k) for k in range(6)) / 6.0

    def _gpu(self, i: int, e: float, dt: float) -> GpuSample:
        sc, dev = self.scenario, self._devices[i]
        c = e % CYCLE_S
        tick = math.floor(e)
        u = max(0.0, min(100.0, self._util(i, e)))
        busy = u >= 1.0
        active_job = 30.0 <= c < 660.0
        limit = float(dev.power_default_limit_w or 0.0)
        gpu_bias = 1.0 + 0.02 * _noise(self.seed, 3, i)
        load = u * _POWER_SHARE.get(phase_at(e), 1.0)
        power = sc.idle_power_w + (sc.busy_power_w - sc.idle_power_w) * (load / 100.0) ** 0.9
        power = power * gpu_bias + 4.0 * _noise(self.seed, 4, i, tick)
        max_sm = float(dev.sm_clock_max_mhz or 0)
        sm = max_sm if busy else sc.idle_sm_mhz
        events = ClockEventReason(0) if busy else ClockEventReason.GPU_IDLE
        temp = sc.idle_temp_c + (sc.busy_temp_c - sc.idle_temp_c) * self._smoothed(i, e) / 100.0
        temp += 1.5 * _noise(self.seed, 5, i) + 0.4 * _noise(self.seed, 6, i, tick)
        throttled = THROTTLE_S[0] <= c < THROTTLE_S[1] and u > 50.0
        if throttled:
            # Sustained load pushes the draw past the limit: the driver caps power, clocks drop.
            power = limit - 1.5 + 1.5 * _noise(self.seed, 7, i, tick)
            sm = round(max_sm * (0.80 + 0.03 * _noise(self.seed, 8, i, tick)) / 15.0) * 15.0
            events |= ClockEventReason.SW_POWER_CAP
            if i == sc.gpu_count - 1:
                temp = max(temp, float(dev.temp_max_operating_c or temp) + 1.0)
                if THERMAL_S[0] <= c < THERMAL_S[1]:
                    sm = round(max_sm * 0.66 / 15.0) * 15.0
                    events |= ClockEventReason.SW_THERMAL_SLOWDOWN
                    temp = float(dev.temp_slowdown_c or temp) - 0.5
        elif busy:
            power = min(power, limit - 8.0)
            sm = max_sm - 15.0 * (tick % 3 == 0)
        power = max(sc.idle_power_w * 0.8, power)
        self._energy_j[i] += power * dt
        mem_used = sc.idle_mem_used_bytes
        if active_job:
            ramp = min(1.0, (c - 30.0) / 20.0)
            mem_used = int(sc.job_mem_bytes * ramp + 256 * MIB * (1 + _noise(self.seed, 9, i)))
        if i == 0 and sc.graphics_process is not None:
            mem_used += sc.graphics_process[2]
        total = int(dev.memory_total_bytes or 0)
        mem_used = min(mem_used, total - sc.mem_reserved_bytes)
        mem_clock = (
            float(dev.mem_clock_max_mhz or 0)
            if busy or sc.idle_mem_mhz == dev.mem_clock_max_mhz
            else sc.idle_mem_mhz
        )
        video = sc.idle_video_mhz if not busy else float(dev.video_clock_max_mhz or 0) * 0.85
        # Traffic: input batches over PCIe; gradients over NVLink during training steps.
        phase = phase_at(e)
        pcie_scale = {
            "training": 1.0,
            "ramp": u / 100.0,
            "memory_bound": 0.2,
            "launch_bound": 0.1,
            "starved": 0.35,
            "cooldown": 0.2,
        }.get(phase, 0.0)
        pcie_rx = 560e3 + sc.pcie_busy_bytes_s * pcie_scale * (
            1.0 + 0.1 * _noise(self.seed, 10, i, tick)
        )
        pcie_tx = 570e3 + 0.3 * sc.pcie_busy_bytes_s * pcie_scale * (
            1.0 + 0.1 * _noise(self.seed, 11, i, tick)
        )
        nv_scale = {"training": 1.0, "ramp": 1.0, "cooldown": 1.0, "starved": 0.25}.get(
            phase, 0.05
        ) * (u / 100.0)
        nvlinks: tuple[NvLinkSample, ...] = ()
        nv_rx = nv_tx = None
        if dev.nvlink_count:
            per_link = sc.nvlink_bytes_s_per_gpu * nv_scale / dev.nvlink_count
            links = np.arange(dev.nvlink_count)
            rx = per_link * (1.0 + 0.05 * _noise_array(self.seed, 12, i, links, tick))
            tx = per_link * (1.0 + 0.05 * _noise_array(self.seed, 13, i, links, tick))
            nvlinks = tuple(
                NvLinkSample(
                    link=k,
                    active=True,
                    version=4,
                    remote_type="switch",
                    rx_bytes_s=round(r),
                    tx_bytes_s=round(x),
                )
                for k, r, x in zip(range(dev.nvlink_count), rx.tolist(), tx.tolist(), strict=True)
            )
            nv_rx = float(sum(link.rx_bytes_s or 0.0 for link in nvlinks))
            nv_tx = float(sum(link.tx_bytes_s or 0.0 for link in nvlinks))
        ecc = EccCounts.clean() if sc.ecc else None
        fans = tuple(
            float(round(30.0 + 0.55 * (temp - sc.idle_temp_c) * 2.0)) for _ in range(sc.fans)
        )
        rx_s, tx_s = round(pcie_rx), round(pcie_tx)
        prof = self._prof(i, e, u, phase, (rx_s, tx_s, nv_rx, nv_tx))
        return GpuSample(
            index=i,
            uuid=dev.uuid,
            util_gpu_pct=float(round(u)),
            util_mem_pct=float(round(u * _MEM_UTIL_SHARE.get(phase, 0.55))),
            util_enc_pct=0.0,
            util_dec_pct=0.0,
            mem_total_bytes=total,
            mem_used_bytes=mem_used,
            mem_free_bytes=total - sc.mem_reserved_bytes - mem_used,
            mem_reserved_bytes=sc.mem_reserved_bytes,
            clock_graphics_mhz=sm,
            clock_sm_mhz=sm,
            clock_mem_mhz=mem_clock,
            clock_video_mhz=float(round(video)),
            clock_app_graphics_mhz=float(dev.graphics_clock_max_mhz or 0),
            clock_app_mem_mhz=float(dev.mem_clock_max_mhz or 0),
            pstate=sc.busy_pstate if busy else sc.idle_pstate,
            power_w=round(power, 2),
            power_limit_w=limit,
            power_enforced_limit_w=limit,
            energy_total_j=round(self._energy_j[i], 3),
            temp_gpu_c=float(round(temp)),
            temp_mem_c=float(round(temp + 6.0)) if sc.ecc else None,
            fan_speed_pct=fans,
            throttle_mask=int(events),
            throttle_reasons=events.throttle_names,
            pcie_gen=int(dev.pcie_gen_max or 0) if busy else sc.pcie_gen_idle,
            pcie_width=dev.pcie_width_max,
            pcie_rx_bytes_s=rx_s,
            pcie_tx_bytes_s=tx_s,
            pcie_replay_count=sc.pcie_replays,
            nvlinks=nvlinks,
            nvlink_rx_bytes_s=nv_rx,
            nvlink_tx_bytes_s=nv_tx,
            ecc=ecc,
            **prof,
        )

    def _prof(
        self,
        i: int,
        e: float,
        u: float,
        phase: str,
        traffic: tuple[float, float, float | None, float | None],
    ) -> dict[str, Any]:
        """GPM activity (``prof_*``) of GPU ``i`` at utilization ``u`` in ``phase``.

        The relations that hold on real GPUs hold here: tensor ≤ SM active ≤ utilization,
        occupancy ≤ SM active (a warp is resident only on an active SM), HMMA ≤ any tensor.
        GPM's PCIe and NVLink rates are the same traffic as the counters'.
        """
        if not self.scenario.gpm:
            return _NO_GPM
        sm_share, occ, tensor, dram, fp32, fp16 = _PROF_SHARES.get(phase, _PROF_SHARES["idle"])
        tick = math.floor(e)
        n = [_noise(self.seed, 30 + k, i, tick) for k in range(4)]
        sm = min(100.0, u * sm_share * (1.0 + 0.03 * n[0]))
        tensor_pct = sm * tensor * (1.0 + 0.04 * n[1])
        rx, tx, nv_rx, nv_tx = traffic
        return {
            "prof_sm_active_pct": round(sm, 2),
            "prof_sm_occupancy_pct": round(sm * occ * (1.0 + 0.05 * n[2]), 2),
            "prof_tensor_active_pct": round(min(sm, tensor_pct), 2),
            "prof_tensor_hmma_pct": round(min(sm, tensor_pct), 2),  # BF16: all of it is HMMA
            "prof_tensor_imma_pct": 0.0,
            "prof_tensor_dfma_pct": 0.0,
            "prof_dram_active_pct": round(min(100.0, u * dram * (1.0 + 0.04 * n[3])), 2),
            "prof_fp64_active_pct": 0.0,
            "prof_fp32_active_pct": round(sm * fp32, 2),
            "prof_fp16_active_pct": round(sm * fp16, 2),
            "prof_pcie_rx_bytes_s": rx,
            "prof_pcie_tx_bytes_s": tx,
            "prof_nvlink_rx_bytes_s": nv_rx,
            "prof_nvlink_tx_bytes_s": nv_tx,
            "prof_nvdec_pct": 0.0,
            "prof_nvjpg_pct": 0.0,
        }

    def _processes(self, e: float, gpus: tuple[GpuSample, ...]) -> tuple[ProcessSample, ...]:
        """The job's ranks (and a workstation's Xorg) with plausible host sides. Their pids are
        made up: no process of this machine, never to be signalled (the UI offers no action)."""
        sc = self.scenario
        c = e % CYCLE_S
        tick = math.floor(e)
        out: list[ProcessSample] = []
        if sc.graphics_process is not None:
            name, user, mem = sc.graphics_process
            out.append(
                ProcessSample(
                    pid=1873,
                    gpu_index=0,
                    kind="graphics",
                    gpu_mem_bytes=mem,
                    sm_util_pct=0.0,
                    mem_util_pct=0.0,
                    name=name,
                    user=user,
                    cmdline="/usr/lib/xorg/Xorg vt1 -displayfd 3",
                    host_cpu_pct=round(1.5 + abs(_noise(self.seed, 30, tick)), 1),
                    host_rss_bytes=183 * 2**20,
                    start_time_s=self.start_s - 86_400.0,  # since the desktop session began
                )
            )
        if 30.0 <= c < 660.0:
            job = int(e // CYCLE_S)
            # A rank's Python thread keeps one core busy launching kernels and feeding the
            # GPU; starved, it waits on the loader; memory-bound, kernels are long.
            cpu = {"memory_bound": 60.0, "launch_bound": 100.0, "starved": 100.0}.get(
                phase_at(e), 80.0 if phase_at(e) == "cooldown" else 105.0
            )
            pod = sc.process_pod
            container = hashlib.sha256(f"{sc.key}-{self.seed}-{job}".encode()).hexdigest()
            for g in gpus:
                mem = (g.mem_used_bytes or 0) - (
                    sc.graphics_process[2] if sc.graphics_process and g.index == 0 else 0
                )
                rss_growth = min(1.0, (c - 30.0) / 120.0)  # the loader's buffers fill up
                out.append(
                    ProcessSample(
                        pid=41230 + 97 * job + g.index,
                        gpu_index=g.index,
                        kind="compute",
                        gpu_mem_bytes=max(0, mem - sc.idle_mem_used_bytes),
                        sm_util_pct=g.util_gpu_pct,
                        mem_util_pct=g.util_mem_pct,
                        name="python3",
                        user=sc.process_user,
                        cmdline=sc.process_cmd.format(rank=g.index),
                        host_cpu_pct=round(
                            max(0.0, cpu + 8.0 * _noise(self.seed, 31, g.index, tick)), 1
                        ),
                        host_rss_bytes=int(sc.process_rss_bytes * (0.6 + 0.4 * rss_growth)),
                        start_time_s=self.start_s + job * CYCLE_S + 30.0,
                        container_id=container if pod is not None else None,
                        pod_name=pod[0] if pod is not None else None,
                        pod_namespace=pod[1] if pod is not None else None,
                    )
                )
        return tuple(out)

    def _host(self, e: float) -> HostSample:
        sc = self.scenario
        tick = math.floor(e)
        phase = phase_at(e)
        base = {
            "idle": 2.0,
            "ramp": 20.0,
            "training": 28.0,
            "memory_bound": 15.0,
            "launch_bound": 35.0,  # the Python threads launching kernels
            "starved": 93.0,
            "cooldown": 10.0,
        }[phase]
        per_core = base + 6.0 * _noise_array(self.seed, 20, np.arange(sc.host_cores), tick)
        cores = tuple(float(round(max(0.0, min(100.0, v)), 1)) for v in per_core.tolist())
        cpu = round(sum(cores) / len(cores), 1)
        load1 = round(sc.host_cores * base / 100.0 * (1.0 + 0.05 * _noise(self.seed, 21, tick)), 2)
        mem_used = int(sc.host_mem_bytes * (0.04 if phase == "idle" else 0.22))
        disk_read = {"training": 0.8e9, "starved": 1.3e9, "ramp": 2.5e9}.get(phase, 1e6)
        disk_write = 1.5e9 if phase == "training" and ((e % CYCLE_S) - 90.0) % 45.0 < 4.0 else 20e6
        return HostSample(
            cpu_pct=cpu,
            cpu_per_core_pct=cores,
            cpu_freq_mhz=2000.0 + 13.0 * base,
            load_avg=(load1, round(load1 * 0.9, 2), round(load1 * 0.8, 2)),
            mem_total_bytes=sc.host_mem_bytes,
            mem_used_bytes=mem_used,
            mem_available_bytes=sc.host_mem_bytes - mem_used,
            swap_total_bytes=0,
            swap_used_bytes=0,
            disk_read_bytes_s=round(disk_read * (1.0 + 0.1 * _noise(self.seed, 22, tick))),
            disk_write_bytes_s=round(disk_write * (1.0 + 0.1 * _noise(self.seed, 23, tick))),
            net_rx_bytes_s=round(40e6 * (1.0 + 0.2 * _noise(self.seed, 24, tick))),
            net_tx_bytes_s=round(5e6 * (1.0 + 0.2 * _noise(self.seed, 25, tick))),
            temps_c=tuple(
                (name, float(round(38.0 + 0.4 * base + 2.0 * _noise(self.seed, 26, k))))
                for k, name in enumerate(sc.host_temps)
            ),
        )
