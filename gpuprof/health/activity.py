"""Health findings from profiling activity (NVML GPM; DCGM's ``DCGM_FI_PROF_*``).

NVML's "GPU utilization" only says that some kernel ran during the sample period. The profiling
counters say how busy the SMs, tensor cores and DRAM were, which tells three common problems
apart (each must hold without a break for :data:`PROF_MIN_DURATION_S`):

* ``sm_idle_while_busy``: utilization high, SM active low — small kernels, launch-bound or
  sync-heavy code keeps a few SMs busy while the rest wait;
* ``tensor_cores_idle``: a job keeps the SMs busy with FP32 math and the tensor cores near
  zero — BF16/TF32 would run it several times faster;
* ``memory_bandwidth_bound``: DRAM active high while the math pipes are moderate.

A sample without the values a check needs (no GPM, the first poll) breaks a run and never
counts for or against a finding: absent is not zero.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterable, Sequence

from gpuprof.findings import Finding, Severity
from gpuprof.i18n import tr
from gpuprof.telemetry.model import GpuSample
from gpuprof.units import fmt_duration, fmt_pct

__all__ = [
    "DEFAULT_INTERVAL_S",
    "DRAM_BOUND_MAX_PIPE_PCT",
    "DRAM_BOUND_PCT",
    "PROF_MIN_DURATION_S",
    "PROF_MIN_SAMPLES",
    "SM_IDLE_SM_ACTIVE_PCT",
    "SM_IDLE_UTIL_PCT",
    "TENSOR_IDLE_FP32_PCT",
    "TENSOR_IDLE_PCT",
    "TENSOR_IDLE_SM_ACTIVE_PCT",
    "check_prof",
]

#: "GPU busy": NVML's GPU utilization from this on (percent of time a kernel ran) ...
SM_IDLE_UTIL_PCT = 80.0
#: ... while the SMs were active (at least one warp resident) less than this share of cycles.
SM_IDLE_SM_ACTIVE_PCT = 30.0
#: A job's math keeps the SMs active at least this share of cycles (percent) ...
TENSOR_IDLE_SM_ACTIVE_PCT = 50.0
#: ... the tensor cores count as idle at or below this (percent of cycles) ...
TENSOR_IDLE_PCT = 1.0
#: ... while the FP32 pipes are active at least this share of cycles (percent).
TENSOR_IDLE_FP32_PCT = 20.0
#: Memory-bandwidth bound: DRAM active at least this share of cycles (percent) ...
DRAM_BOUND_PCT = 60.0
#: ... while no math pipe (tensor, FP64/FP32/FP16) is active this share of cycles or more.
DRAM_BOUND_MAX_PIPE_PCT = 40.0
#: A pattern counts when it holds without a break for this long (seconds) ...
PROF_MIN_DURATION_S = 30.0
#: ... and over at least this many samples (each GPM value is a mean between two polls).
PROF_MIN_SAMPLES = 3
#: Seconds per sample when the caller has no times (the sampler's default interval).
DEFAULT_INTERVAL_S = 1.0

# A condition on one sample: True / False, or None when a value it needs is absent.
_Cond = Callable[[GpuSample], bool | None]


def check_prof(
    index: int,
    series: Sequence[GpuSample],
    running: Sequence[bool],
    times: Sequence[float] | None,
    gpu: str,
) -> Iterable[Finding]:
    """The profiling findings of GPU ``index`` over ``series`` (oldest first, lost samples
    included); ``running[k]``: a job held the GPU at sample ``k``; ``times``: each sample's
    Unix time (``None``: :data:`DEFAULT_INTERVAL_S` apart)."""
    if times is None or len(times) != len(series):
        times = [k * DEFAULT_INTERVAL_S for k in range(len(series))]
    run = _sustained(series, times, _sm_idle)
    if run is not None:
        util = _mean(run, "util_gpu_pct")
        sm = _mean(run, "prof_sm_active_pct")
        yield Finding(
            "sm_idle_while_busy",
            Severity.WARNING,
            tr("{gpu}: GPU busy but SMs mostly idle", gpu=gpu),
            tr(
                "GPU utilization read {u}, but the SMs were active only {s} of the cycles, "
                "for {d}: kernels ran all the time, yet they kept few SMs busy.",
                u=fmt_pct(util),
                s=fmt_pct(sm),
                d=fmt_duration(_span(run, times)),
            ),
            tr(
                "Typical causes: many small kernels (launch-bound), small batches, or frequent "
                "host synchronisation (.item(), .cpu(), torch.cuda.synchronize()). Batch more "
                "work per kernel, capture the step in CUDA graphs or torch.compile, and keep "
                "synchronisation out of the training loop."
            ),
            index,
        )
    jobs = [s if ok else None for s, ok in zip(series, running, strict=False)]
    run = _sustained(jobs, times, _tensor_idle)
    if run is not None:
        yield Finding(
            "tensor_cores_idle",
            Severity.WARNING,
            tr("{gpu}: tensor cores idle during a training job", gpu=gpu),
            tr(
                "The SMs were active {s} and the FP32 pipes {f}, but the tensor cores only {t}, "
                "for {d}: the math runs in FP32 on the CUDA cores.",
                s=fmt_pct(_mean(run, "prof_sm_active_pct")),
                f=fmt_pct(_mean(run, "prof_fp32_active_pct")),
                t=fmt_pct(_mean(run, "prof_tensor_active_pct"), digits=1),
                d=fmt_duration(_span(run, times)),
            ),
            tr(
                "Use mixed precision (torch.autocast with bfloat16) or allow TF32 "
                "(torch.backends.cuda.matmul.allow_tf32 = True, or "
                "torch.set_float32_matmul_precision('high')): tensor cores run that math "
                "several times faster than FP32."
            ),
            index,
        )
    run = _sustained(series, times, _memory_bound)
    if run is not None:
        yield Finding(
            "memory_bandwidth_bound",
            Severity.INFO,
            tr("{gpu}: memory-bandwidth bound", gpu=gpu),
            tr(
                "DRAM was active {m} of the cycles while the tensor cores were active {t} "
                "(SMs {s}), for {d}: the work waits on memory bandwidth, not on math.",
                m=fmt_pct(_mean(run, "prof_dram_active_pct")),
                t=fmt_pct(_mean(run, "prof_tensor_active_pct")),
                s=fmt_pct(_mean(run, "prof_sm_active_pct")),
                d=fmt_duration(_span(run, times)),
            ),
            tr(
                "Do more math per byte: fuse element-wise operations (torch.compile), use "
                "fused kernels such as FlashAttention, larger batches, and BF16/FP8 "
                "activations. A GPU with more memory bandwidth helps this job more than one "
                "with more FLOPS."
            ),
            index,
        )


def _sm_idle(s: GpuSample) -> bool | None:
    if s.util_gpu_pct is None or s.prof_sm_active_pct is None:
        return None
    return s.util_gpu_pct >= SM_IDLE_UTIL_PCT and s.prof_sm_active_pct < SM_IDLE_SM_ACTIVE_PCT


def _tensor_idle(s: GpuSample) -> bool | None:
    sm, tensor, fp32 = s.prof_sm_active_pct, s.prof_tensor_active_pct, s.prof_fp32_active_pct
    if sm is None or tensor is None or fp32 is None:
        return None
    return (
        sm >= TENSOR_IDLE_SM_ACTIVE_PCT
        and tensor <= TENSOR_IDLE_PCT
        and fp32 >= TENSOR_IDLE_FP32_PCT
    )


def _memory_bound(s: GpuSample) -> bool | None:
    if s.prof_dram_active_pct is None or s.prof_tensor_active_pct is None:
        return None
    pipes = [
        v
        for v in (
            s.prof_tensor_active_pct,
            s.prof_fp64_active_pct,
            s.prof_fp32_active_pct,
            s.prof_fp16_active_pct,
        )
        if v is not None
    ]
    return s.prof_dram_active_pct >= DRAM_BOUND_PCT and max(pipes) < DRAM_BOUND_MAX_PIPE_PCT


def _sustained(
    series: Sequence[GpuSample | None], times: Sequence[float], cond: _Cond
) -> list[tuple[int, GpuSample]] | None:
    """The longest unbroken run of samples where ``cond`` holds, if it lasts at least
    :data:`PROF_MIN_DURATION_S` over :data:`PROF_MIN_SAMPLES` samples; a lost sample, one
    without the values (``cond`` is None) or one outside a job (``None`` in ``series``) breaks
    a run."""
    best: tuple[int, int] | None = None  # first, last index
    best_s = 0.0
    first: int | None = None
    for k, s in enumerate(series):
        if s is not None and not s.lost and cond(s) is True:
            first = k if first is None else first
            span = times[k] - times[first]
            if best is None or span > best_s:
                best, best_s = (first, k), span
        else:
            first = None
    if best is None:
        return None
    a, b = best
    if b - a + 1 < PROF_MIN_SAMPLES or _duration(best, times) < PROF_MIN_DURATION_S:
        return None
    return [(k, s) for k in range(a, b + 1) if (s := series[k]) is not None]


def _duration(run: tuple[int, int], times: Sequence[float]) -> float:
    """How long the samples ``run`` (first, last index) cover: first to last plus one sampling
    interval (each GPM value is a mean over the interval before its sample)."""
    first, last = run
    return times[last] - times[first] + _step(times)


def _step(times: Sequence[float]) -> float:
    steps = [b - a for a, b in itertools.pairwise(times) if b > a]
    return statistics.median(steps) if steps else DEFAULT_INTERVAL_S


def _span(run: Sequence[tuple[int, GpuSample]], times: Sequence[float]) -> float:
    return _duration((run[0][0], run[-1][0]), times)


def _mean(run: Sequence[tuple[int, GpuSample]], attr: str) -> float | None:
    values = [v for _, s in run if (v := getattr(s, attr)) is not None]
    return sum(values) / len(values) if values else None
