"""Frozen records of a job profile (issue 13).

A *job* is a command run under ``gpuprof profile`` (or a process attached to) and its process
tree. Its recording holds the telemetry snapshots, the markers the job sent
(:mod:`gpuprof.profile.markers`) and, once the job ended, one :class:`JobProfile` that
summarizes it. Units live in field names, as in :mod:`gpuprof.telemetry.model`; ``None`` is
unknown (not measured, not supported), never zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuprof.findings import Finding

__all__ = [
    "GpuJobStats",
    "HostJobStats",
    "JobProfile",
    "OpTime",
    "Phase",
    "PhaseMark",
    "Projection",
    "RankBreakdown",
    "RunFacts",
    "StepMarker",
    "StepStats",
    "TimeBreakdown",
    "TimeShare",
    "SCHEMA_VERSION",
    "BREAKDOWN_CATEGORIES",
]

#: The version of :class:`JobProfile`'s JSON (``docs/profile-schema.md``).
SCHEMA_VERSION = 1

#: Where device time goes, in this order (:class:`TimeBreakdown`); the shares sum to 100 %.
BREAKDOWN_CATEGORIES = (
    "matmul",  # GEMM / convolution kernels (aten::mm, addmm, bmm, matmul, linear, conv, cutlass, sm90_xmma ...)
    "attention",  # flash / memory-efficient / SDPA attention kernels
    "other compute",  # every other kernel (elementwise, norms, reductions, optimizer)
    "collectives",  # NCCL all-reduce, all-gather, reduce-scatter, broadcast ...
    "memcpy",  # host-to-device, device-to-host and device-to-device copies and memsets
    "idle",  # gaps between kernels on the device within the profiled window
)


@dataclass(frozen=True, slots=True)
class StepMarker:
    """The end of one step of the job (``track(...).step()``), at ``time_s`` (Unix seconds)."""

    time_s: float
    step: int  # 1-based within its run
    duration_s: float | None = None  # since the previous step (the first: since the start)
    tokens: float | None = None
    samples: float | None = None
    flops: float | None = None  # floating-point operations of this step
    run: str = ""
    pid: int = 0


@dataclass(frozen=True, slots=True)
class PhaseMark:
    """A labelled instant: a ``track`` block's ``start`` / ``end``, or a ``mark("eval")``."""

    time_s: float
    kind: str  # "start", "mark" or "end"
    label: str = ""
    run: str = ""
    pid: int = 0


@dataclass(frozen=True, slots=True)
class StepStats:
    """What the step markers say: step times, throughput, achieved TFLOPS and MFU."""

    count: int
    p50_s: float | None = None
    p90_s: float | None = None
    p99_s: float | None = None
    mean_s: float | None = None
    #: Change of the median step time from the first to the last quarter of the steps, in %
    #: (positive: steps got slower).
    trend_pct: float | None = None
    tokens_per_s: float | None = None
    samples_per_s: float | None = None
    achieved_tflops: float | None = None  # over all GPUs of the job
    peak_tflops: float | None = None  # the spec peak of the job's GPUs at mfu_dtype
    mfu_pct: float | None = None
    mfu_dtype: str | None = None
    note: str = ""  # how the numbers were derived or why one is missing


@dataclass(frozen=True, slots=True)
class Phase:
    """A span of the job: ``startup`` (until the first GPU activity), ``steady``, ``tail``."""

    name: str
    start_s: float
    end_s: float

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass(frozen=True, slots=True)
class GpuJobStats:
    """One GPU the job touched, over the job's wall time."""

    index: int
    name: str = ""
    uuid: str | None = None
    util_gpu_mean_pct: float | None = None
    sm_active_mean_pct: float | None = None
    tensor_active_mean_pct: float | None = None
    dram_active_mean_pct: float | None = None
    prof_unavailable: str | None = None  # why the three above are None
    mem_peak_bytes: int | None = None  # the whole GPU
    mem_mean_bytes: float | None = None
    job_mem_peak_bytes: int | None = None  # the job's own processes
    others_mem_peak_bytes: int | None = None  # other processes on this GPU (not the job's)
    power_mean_w: float | None = None
    energy_j: float | None = None  # NVML's total-energy counter, end minus start
    clock_sm_mean_mhz: float | None = None
    throttle_s: tuple[tuple[str, float], ...] = ()  # (ClockEventReason name, seconds)
    pcie_rx_bytes: float | None = None
    pcie_tx_bytes: float | None = None
    nvlink_rx_bytes: float | None = None
    nvlink_tx_bytes: float | None = None


@dataclass(frozen=True, slots=True)
class HostJobStats:
    """The job's process tree on the host."""

    cpu_mean_pct: float | None = None  # of one core, summed over the tree
    cpu_peak_pct: float | None = None
    rss_peak_bytes: int | None = None  # of the tree at its peak
    read_bytes: int | None = None  # disk I/O of the tree (/proc/PID/io)
    write_bytes: int | None = None
    net_rx_bytes: int | None = None  # the host's network (per-process counters need root)
    net_tx_bytes: int | None = None
    processes_peak: int | None = None


@dataclass(frozen=True, slots=True)
class TimeShare:
    """Device time in one of :data:`BREAKDOWN_CATEGORIES`."""

    category: str
    time_s: float
    share_pct: float


@dataclass(frozen=True, slots=True)
class OpTime:
    """One kernel or operator among the top ones by device time."""

    name: str
    category: str
    time_s: float
    count: int
    share_pct: float


@dataclass(frozen=True, slots=True)
class RankBreakdown:
    """One process's own window when several processes of the job (DDP ranks) profiled one."""

    pid: int
    rank: int | None = None  # torch.distributed's rank (RANK); None: not known
    steps: int = 0
    total_s: float = 0.0
    shares: tuple[TimeShare, ...] = ()
    dataloader_wait_s_per_step: float | None = None
    trace_file: str | None = None  # its Chrome/Perfetto trace, next to the recording


@dataclass(frozen=True, slots=True)
class TimeBreakdown:
    """Where the device time went over a window of profiled steps (``torch.profiler``)."""

    device: str  # "cuda" or "cpu"
    steps: int  # steps in the active window
    total_s: float  # the window's wall time
    shares: tuple[TimeShare, ...] = ()
    top: tuple[OpTime, ...] = ()  # at most 15, longest first
    dataloader_wait_s_per_step: float | None = None
    trace_file: str | None = None  # the Chrome/Perfetto trace, next to the recording
    note: str = ""
    rank: int | None = None  # the rank of the one process it comes from (None: merged/unknown)
    ranks: tuple[RankBreakdown, ...] = ()  # merged from several processes: each one's own


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What a job's run was, which telemetry does not hold: its name, command and process,
    when it started and ended, and how it ended. Both the run being profiled
    (:class:`gpuprof.profile.build.JobRun`) and its :class:`JobProfile` begin with them."""

    name: str
    command: tuple[str, ...]
    pid: int
    started_s: float
    ended_s: float
    attached: bool = False
    exit_code: int | None = None  # None: unknown (attached) or killed by a signal
    exit_signal: str | None = None  # e.g. "SIGINT"


@dataclass(frozen=True, slots=True)
class JobProfile(RunFacts):
    """Everything gpuprof measured about one job; stored inside its recording."""

    source: str = "nvml"  # SourceKind value of the telemetry: "simulated" is labelled so
    interval_s: float = 1.0
    gpu_indices: tuple[int, ...] = ()
    gpu_seconds: float = 0.0  # wall time x GPUs the job used
    gpus: tuple[GpuJobStats, ...] = ()
    host: HostJobStats = HostJobStats()
    phases: tuple[Phase, ...] = ()
    steps: StepStats | None = None
    breakdown: TimeBreakdown | None = None
    findings: tuple[Finding, ...] = ()
    markers_skipped: int = 0  # marker lines that were not markers
    notes: tuple[str, ...] = ()
    schema_version: int = SCHEMA_VERSION

    @property
    def wall_s(self) -> float:
        return self.ended_s - self.started_s


@dataclass(frozen=True, slots=True)
class Projection:
    """The job on one catalog instance: estimated step time, job time and cost."""

    provider: str
    instance_type: str
    region: str
    gpu_model: str
    gpu_count: int
    fits: bool
    step_s: float | None
    job_hours: float | None
    cost_ondemand_usd: float | None
    cost_spot_usd: float | None
    cost_reserved_usd: float | None
    compute_ratio: float | None  # achieved-TFLOPS ratio there / here
    memory_ratio: float | None  # bandwidth ratio there / here
    derivation: str  # how the numbers were derived, in one sentence
    gpu_fraction: float | None = None  # a partition's share of one GPU (gpu_count is then 1)
    mem_need_bytes: int | None = None  # the job's measured peak per GPU
    mem_per_gpu_bytes: int | None = None  # the instance's memory per GPU
    speedup_vs_here: float | None = None  # step here / step there (> 1: faster there)
    #: Issue 23: the step, job time and costs may be ``low``…``high`` × the projection (10th–
    #: 90th percentile over pairs of published runs: :func:`gpuprof.recommend.band.
    #: projection_band`); None on the GPUs measured (the measurement itself) or without one.
    time_ratio_low: float | None = None
    time_ratio_high: float | None = None
    band_basis: str = ""  # the pairs it rests on, in words (English)
    band_rows: int = 0  # how many pairs
