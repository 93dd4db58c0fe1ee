"""A job's recording turned into its :class:`~gpuprof.profile.model.JobProfile`.

:func:`build_profile` reads the snapshots once, in time order (a recording of days streams
through it: what it keeps per sample is a few numbers, and the series handed to the health
checks is thinned to at most :data:`MAX_SERIES` samples per GPU), with the markers the job sent
and what :class:`~gpuprof.profile.tree.ProcessTree` saw of its processes.

Which GPUs are the job's: those where a process of its tree shows in NVML's process list. When
the source lists no processes at all (not permitted, a container that hides them, the
simulator), every GPU counts and a note says so. Memory held by other processes on the job's
GPUs is ``others_mem_peak_bytes``, never the job's.

How each number is derived:

- means are over the samples that carry the value (absent is not zero);
- energy is NVML's total-energy counter, last minus first reading; without it (or when it went
  backwards) the power readings are integrated and a note says so;
- throttle time, PCIe and NVLink bytes integrate each sample over the time since the previous
  one (at most :data:`MAX_GAP_INTERVALS` intervals: a stalled sampler is not a throttled GPU);
  bytes prefer GPM's PCIe/NVLink rates (a mean over the interval) to NVML's 20 ms PCIe sample;
- phases: ``startup`` until the first sample with a job GPU above :data:`ACTIVE_UTIL_PCT`,
  ``tail`` after the last sustained activity (two samples in a row), ``steady`` in between;
  without GPU activity the first and last step markers bound the steady phase; each
  ``mark("label")`` adds a phase named by its label, until the next mark of its run or its end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gpuprof.findings import Finding
from gpuprof.i18n import N_
from gpuprof.profile.markers import Marker
from gpuprof.profile.model import (
    GpuJobStats,
    HostJobStats,
    JobProfile,
    Phase,
    PhaseMark,
    RunFacts,
    StepMarker,
    StepStats,
    TimeBreakdown,
)
from gpuprof.profile.tree import TreeInfo
from gpuprof.telemetry.model import DeviceInfo, GpuSample, Snapshot, SourceKind

__all__ = [
    "ACTIVE_UTIL_PCT",
    "MAX_GAP_INTERVALS",
    "MAX_SERIES",
    "JobRun",
    "build_profile",
    "job_gpus",
]

#: A GPU counts as active (for the phases) above this utilization, in percent.
ACTIVE_UTIL_PCT = 5.0
#: The longest time one sample stands for, in sampling intervals.
MAX_GAP_INTERVALS = 3.0
#: The health checks see at most this many samples per GPU (every k-th beyond).
MAX_SERIES = 20_000


@dataclass(frozen=True, slots=True)
class JobRun(RunFacts):
    """The run being profiled: its facts and how it was sampled."""

    interval_s: float = 1.0
    notes: tuple[str, ...] = ()
    dtype: str | None = None  # for MFU: the spec peak at this dtype


@dataclass
class _Mean:
    total: float = 0.0
    n: int = 0

    def add(self, value: float | None) -> None:
        if value is not None and math.isfinite(value):
            self.total += value
            self.n += 1

    @property
    def value(self) -> float | None:
        return self.total / self.n if self.n else None


def _peak(old: int | None, new: int | None) -> int | None:
    if new is None:
        return old
    return new if old is None or new > old else old


@dataclass
class _Gpu:
    """Everything kept of one GPU while the snapshots stream by."""

    index: int
    uuid: str | None = None
    util: _Mean = field(default_factory=_Mean)
    sm: _Mean = field(default_factory=_Mean)
    tensor: _Mean = field(default_factory=_Mean)
    dram: _Mean = field(default_factory=_Mean)
    prof_unavailable: str | None = None
    mem: _Mean = field(default_factory=_Mean)
    mem_peak: int | None = None
    job_mem_peak: int | None = None
    others_mem_peak: int | None = None
    all_mem_peak: int | None = None  # every process on it (when all are counted as the job)
    power: _Mean = field(default_factory=_Mean)
    power_j: float = 0.0  # power integrated over time
    power_covered_s: float = 0.0
    energy_first: float | None = None
    energy_last: float | None = None
    energy_backwards: bool = False
    clock: _Mean = field(default_factory=_Mean)
    throttle: dict[str, float] = field(default_factory=dict)
    pcie_rx: float | None = None
    pcie_tx: float | None = None
    nvlink_rx: float | None = None
    nvlink_tx: float | None = None
    has_job: bool = False
    series: list[GpuSample] = field(default_factory=list)
    running: list[bool] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    stride: int = 1
    seen: int = 0

    def add(self, g: GpuSample, t: float, dt: float | None, job: bool, others: bool) -> None:
        self.uuid = self.uuid or g.uuid
        self.seen += 1
        if self.seen % self.stride == 0:
            self.series.append(g)
            self.running.append(job)
            self.times.append(t)
            if len(self.series) > MAX_SERIES:
                self.series, self.running = self.series[::2], self.running[::2]
                self.times = self.times[::2]
                self.stride *= 2
        if g.lost:
            return
        self.util.add(g.util_gpu_pct)
        self.sm.add(g.prof_sm_active_pct)
        self.tensor.add(g.prof_tensor_active_pct)
        self.dram.add(g.prof_dram_active_pct)
        if g.prof_unavailable:
            self.prof_unavailable = g.prof_unavailable
        self.mem.add(g.mem_used_bytes)
        self.mem_peak = _peak(self.mem_peak, g.mem_used_bytes)
        self.power.add(g.power_w)
        self.clock.add(g.clock_sm_mhz)
        if g.energy_total_j is not None and math.isfinite(g.energy_total_j):
            if self.energy_last is not None and g.energy_total_j < self.energy_last:
                self.energy_backwards = True
            if self.energy_first is None:
                self.energy_first = g.energy_total_j
            self.energy_last = g.energy_total_j
        if dt is None:
            return
        if g.power_w is not None and math.isfinite(g.power_w):
            self.power_j += g.power_w * dt
            self.power_covered_s += dt
        for reason in g.clock_events.throttle_names:
            self.throttle[reason] = self.throttle.get(reason, 0.0) + dt
        rx = g.prof_pcie_rx_bytes_s if g.prof_pcie_rx_bytes_s is not None else g.pcie_rx_bytes_s
        tx = g.prof_pcie_tx_bytes_s if g.prof_pcie_tx_bytes_s is not None else g.pcie_tx_bytes_s
        self.pcie_rx = _integrate(self.pcie_rx, rx, dt)
        self.pcie_tx = _integrate(self.pcie_tx, tx, dt)
        self.nvlink_rx = _integrate(self.nvlink_rx, g.nvlink_rx_bytes_s, dt)
        self.nvlink_tx = _integrate(self.nvlink_tx, g.nvlink_tx_bytes_s, dt)

    def energy(self, notes: list[str]) -> float | None:
        counter_ok = self.energy_first is not None and self.energy_last is not None
        if counter_ok and not self.energy_backwards:
            return float(self.energy_last) - float(self.energy_first)  # type: ignore[arg-type]
        if self.power_covered_s > 0:
            why = N_("went backwards") if self.energy_backwards else N_("is not reported")
            notes.append(
                N_(
                    "GPU {i}: energy integrated from power readings (the total-energy counter {why})"
                ).format(i=self.index, why=why)
            )
            return self.power_j
        return None


def _integrate(total: float | None, rate: float | None, dt: float) -> float | None:
    if rate is None or not math.isfinite(rate) or rate < 0:
        return total
    return (total or 0.0) + rate * dt


def job_gpus(snapshots: Iterable[Snapshot], pids: frozenset[int]) -> set[int]:
    """The GPUs where a process of ``pids`` shows in a snapshot's process list."""
    return {p.gpu_index for s in snapshots for p in s.processes if p.pid in pids}


@dataclass
class _Scan:
    gpus: dict[int, _Gpu] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    utils: list[dict[int, float]] = field(default_factory=list)  # per sample: GPU -> util %
    job_gpus: set[int] = field(default_factory=set)
    any_process: bool = False
    process_info_denied: bool = False
    source: SourceKind | None = None
    status_message: str = ""
    samples: int = 0


def _scan(snapshots: Iterable[Snapshot], pids: frozenset[int], interval_s: float) -> _Scan:
    scan = _Scan()
    prev_t: float | None = None
    max_gap = max(MAX_GAP_INTERVALS * interval_s, 0.5)
    for snap in snapshots:
        t = snap.time_s
        dt = None if prev_t is None else min(max(0.0, t - prev_t), max_gap)
        prev_t = t
        scan.samples += 1
        scan.source = scan.source or snap.source
        if not snap.status.process_info_permitted:
            scan.process_info_denied = True
        if snap.status.message:
            scan.status_message = snap.status.message
        job_mem: dict[int, int] = {}
        others_mem: dict[int, int] = {}
        on_gpu_job: set[int] = set()
        on_gpu_others: set[int] = set()
        for p in snap.processes:
            scan.any_process = True
            mine = p.pid in pids
            (on_gpu_job if mine else on_gpu_others).add(p.gpu_index)
            if mine:
                scan.job_gpus.add(p.gpu_index)
            if p.gpu_mem_bytes is not None:
                bucket = job_mem if mine else others_mem
                bucket[p.gpu_index] = bucket.get(p.gpu_index, 0) + p.gpu_mem_bytes
        utils: dict[int, float] = {}
        for g in snap.gpus:
            acc = scan.gpus.get(g.index)
            if acc is None:
                acc = scan.gpus[g.index] = _Gpu(g.index)
            acc.add(g, t, dt, g.index in on_gpu_job, g.index in on_gpu_others)
            acc.job_mem_peak = _peak(acc.job_mem_peak, job_mem.get(g.index))
            if g.index in job_mem or g.index in others_mem:
                both = job_mem.get(g.index, 0) + others_mem.get(g.index, 0)
                acc.all_mem_peak = _peak(acc.all_mem_peak, both)
            if g.index in on_gpu_others:
                acc.others_mem_peak = _peak(acc.others_mem_peak, others_mem.get(g.index))
            if g.index in on_gpu_job:
                acc.has_job = True
            if g.util_gpu_pct is not None and not g.lost:
                utils[g.index] = g.util_gpu_pct
        scan.times.append(t)
        scan.utils.append(utils)
    return scan


def _phases(
    run: JobRun, scan: _Scan, gpus: Sequence[int], markers: Sequence[Marker], notes: list[str]
) -> tuple[Phase, ...]:
    start, end = run.started_s, run.ended_s
    active = [
        t
        for t, u in zip(scan.times, scan.utils, strict=True)
        if start <= t <= end and any(u.get(i, 0.0) > ACTIVE_UTIL_PCT for i in gpus)
    ]
    first = last = None
    if active:
        first = active[0]
        # The last sustained activity: the last active sample whose predecessor was active too.
        was_active = False
        sustained: float | None = None
        for t, u in zip(scan.times, scan.utils, strict=True):
            now_active = start <= t <= end and any(u.get(i, 0.0) > ACTIVE_UTIL_PCT for i in gpus)
            if now_active and was_active:
                sustained = t
            was_active = now_active
        last = sustained if sustained is not None else active[-1]
    else:
        steps = [m for m in markers if isinstance(m, StepMarker) and start <= m.time_s <= end]
        if steps:
            s0 = steps[0]
            first = max(start, s0.time_s - (s0.duration_s or 0.0))
            last = steps[-1].time_s
            notes.append(N_("phases from the step markers (no GPU activity was seen)"))
        else:
            notes.append(N_("phases not detected: no GPU activity and no step markers"))
    out: list[Phase] = []
    if first is not None and last is not None:
        for name, a, b in (("startup", start, first), ("steady", first, last), ("tail", last, end)):
            if b > a:
                out.append(Phase(name, a, b))
    out.extend(_mark_phases(markers, start, end))
    return tuple(out)


def _job_name(run: JobRun, markers: Sequence[Marker]) -> str:
    """The job's name: a name given (``gpuprof profile --name``) as it is; one named after its
    command takes the ``track("name")`` block's when the markers come from exactly one named
    block (issue 23: ``gpuprof profile -- python train.py`` around ``track("tiny-lm")`` was
    named ``train``)."""
    from gpuprof.profile.job_files import job_name

    if run.name not in (job_name(run.command), f"pid {run.pid}", ""):
        return run.name
    names = {m.run for m in markers if isinstance(m, PhaseMark) and m.kind == "start" and m.run}
    if len(names) == 1:
        (name,) = names
        if name != "job":  # track()'s default says nothing the command does not
            return name
    return run.name


def _mark_phases(markers: Sequence[Marker], start: float, end: float) -> list[Phase]:
    """One phase per ``mark(label)``: until the next mark or end of the same run (or job end)."""
    out: list[Phase] = []
    by_run: dict[tuple[str, int], list[PhaseMark]] = {}
    for m in markers:
        if isinstance(m, PhaseMark) and m.kind in ("mark", "end"):
            by_run.setdefault((m.run, m.pid), []).append(m)
    for marks in by_run.values():
        marks.sort(key=lambda m: m.time_s)
        for k, m in enumerate(marks):
            if m.kind != "mark":
                continue
            stop = marks[k + 1].time_s if k + 1 < len(marks) else end
            a, b = max(start, m.time_s), min(end, stop)
            if b >= a:
                out.append(Phase(m.label or "mark", a, b))
    out.sort(key=lambda p: p.start_s)
    return out


def _step_stats(
    markers: Sequence[Marker], gpu_count: int, peak: float | None, dtype: str | None
) -> StepStats | None:
    try:
        from gpuprof.profile.steps import step_stats
    except ImportError:  # pragma: no cover - the API module ships with this one
        return None
    return step_stats(markers, gpu_count=gpu_count, peak_tflops=peak, dtype=dtype)


def _peak_tflops(devices: Sequence[DeviceInfo], dtype: str | None) -> float | None:
    """The spec peak (dense TFLOPS) of one of the job's GPUs at ``dtype``; None if unknown or
    the GPUs differ."""
    if not devices or not dtype:
        return None
    from gpuprof.catalog.names import gpu_for_nvml_name

    peaks = set()
    for d in devices:
        gib = d.memory_total_bytes / 2**30 if d.memory_total_bytes else None
        spec = gpu_for_nvml_name(d.name, gib)
        peaks.add(spec.peak_tflops(dtype) if spec is not None else None)
    peak = peaks.pop() if len(peaks) == 1 else None
    return peak


def _findings(
    devices: Sequence[DeviceInfo], scan: _Scan, gpus: Sequence[int]
) -> tuple[Finding, ...]:
    from gpuprof.health.diagnose import diagnose_series

    wanted = [d for d in devices if d.index in gpus]
    series = {i: scan.gpus[i].series for i in gpus if i in scan.gpus}
    running = {i: scan.gpus[i].running for i in gpus if i in scan.gpus}
    times = {i: scan.gpus[i].times for i in gpus if i in scan.gpus}
    return tuple(diagnose_series(wanted, series, running, times=times))


def _host(tree: TreeInfo | None, wall_s: float) -> HostJobStats:
    if tree is None:
        return HostJobStats()
    cpu = [s.cpu_pct for s in tree.samples if s.cpu_pct is not None]
    rss = [s.rss_bytes for s in tree.samples if s.rss_bytes is not None]
    mean = None
    if tree.cpu_s is not None and wall_s > 0:
        mean = 100.0 * tree.cpu_s / wall_s
    elif cpu:
        mean = sum(cpu) / len(cpu)
    return HostJobStats(
        cpu_mean_pct=mean,
        cpu_peak_pct=max(cpu) if cpu else None,
        rss_peak_bytes=max(rss) if rss else None,
        read_bytes=tree.read_bytes,
        write_bytes=tree.write_bytes,
        net_rx_bytes=tree.net_rx_bytes,
        net_tx_bytes=tree.net_tx_bytes,
        processes_peak=max((s.processes for s in tree.samples), default=None),
    )


def build_profile(
    run: JobRun,
    snapshots: Iterable[Snapshot],
    *,
    devices: Sequence[DeviceInfo] = (),
    tree: TreeInfo | None = None,
    markers: Sequence[Marker] = (),
    markers_skipped: int = 0,
    breakdown: TimeBreakdown | None = None,
    source: SourceKind | None = None,
) -> JobProfile:
    """The job profile of ``run`` from its snapshots (time order) and what else was seen."""
    pids = tree.pids if tree is not None else frozenset({run.pid})
    scan = _scan(snapshots, pids, run.interval_s)
    kind = source or scan.source or SourceKind.NONE
    notes = list(run.notes)
    wall = max(0.0, run.ended_s - run.started_s)
    all_gpus = sorted(scan.gpus)
    everyone = False  # every GPU and every process on it counted as the job's
    if kind is SourceKind.NONE:
        why = f" ({scan.status_message})" if scan.status_message else ""
        notes.append(N_("no GPU telemetry{why}: host only").format(why=why))
    if kind is SourceKind.SIMULATED:
        gpus, everyone = all_gpus, True
        notes.append(
            N_("SIMULATED telemetry: every simulated GPU and process is counted as the job's")
        )
    elif scan.process_info_denied or (all_gpus and not scan.any_process):
        gpus, everyone = all_gpus, True
        notes.append(
            N_(
                "no GPU process information (not permitted, or hidden from this container): "
                "every GPU is counted as the job's"
            )
        )
    else:
        gpus = sorted(i for i in scan.job_gpus if i in scan.gpus)
        if all_gpus and not gpus:
            notes.append(N_("the job's processes never showed on a GPU: no GPU is counted"))
    names = {d.index: d for d in devices}
    stats: list[GpuJobStats] = []
    for i in gpus:
        acc = scan.gpus[i]
        prof_missing = acc.sm.n == 0 and acc.tensor.n == 0 and acc.dram.n == 0
        stats.append(
            GpuJobStats(
                index=i,
                name=names[i].name if i in names else "",
                uuid=acc.uuid or (names[i].uuid if i in names else None),
                util_gpu_mean_pct=acc.util.value,
                sm_active_mean_pct=acc.sm.value,
                tensor_active_mean_pct=acc.tensor.value,
                dram_active_mean_pct=acc.dram.value,
                prof_unavailable=(acc.prof_unavailable or "not reported") if prof_missing else None,
                mem_peak_bytes=acc.mem_peak,
                mem_mean_bytes=acc.mem.value,
                job_mem_peak_bytes=acc.all_mem_peak if everyone else acc.job_mem_peak,
                others_mem_peak_bytes=None if everyone else acc.others_mem_peak,
                power_mean_w=acc.power.value,
                energy_j=acc.energy(notes),
                clock_sm_mean_mhz=acc.clock.value,
                throttle_s=tuple(sorted(acc.throttle.items(), key=lambda kv: -kv[1])),
                pcie_rx_bytes=acc.pcie_rx,
                pcie_tx_bytes=acc.pcie_tx,
                nvlink_rx_bytes=acc.nvlink_rx,
                nvlink_tx_bytes=acc.nvlink_tx,
            )
        )
    job_devices = [names[i] for i in gpus if i in names]
    steps = _step_stats(markers, len(gpus), _peak_tflops(job_devices, run.dtype), run.dtype)
    findings = _findings(devices, scan, gpus) if devices and gpus else ()
    if scan.samples == 0:
        notes.append(N_("no telemetry samples were recorded"))
    phases = _phases(run, scan, gpus, markers, notes)
    return JobProfile(
        name=_job_name(run, markers),
        command=tuple(run.command),
        pid=run.pid,
        started_s=run.started_s,
        ended_s=run.ended_s,
        attached=run.attached,
        exit_code=run.exit_code,
        exit_signal=run.exit_signal,
        source=kind.value,
        interval_s=run.interval_s,
        gpu_indices=tuple(gpus),
        gpu_seconds=wall * len(gpus),
        gpus=tuple(stats),
        host=_host(tree, wall),
        phases=phases,
        steps=steps,
        breakdown=breakdown,
        findings=findings,
        markers_skipped=markers_skipped,
        notes=tuple(dict.fromkeys(notes)),
    )
