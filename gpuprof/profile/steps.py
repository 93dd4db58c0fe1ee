"""Step statistics from a job's step markers, and the FLOPs of a transformer per token.

How each number is derived (the same words go into :attr:`StepStats.note` where it matters):

- **Step time** is each step marker's ``duration_s`` (the tracker's time since the previous
  step of the same run and process; the first step counts from the ``track`` block's start, so
  it carries the warm-up). P50/P90/P99 use linear interpolation between the closest ranks
  (Hyndman & Fan's definition 7; numpy's default ``"linear"``, Excel's ``PERCENTILE.INC``):
  for ``n`` sorted values and quantile ``q`` the rank is ``h = (n - 1)·q`` and the value
  ``x[⌊h⌋] + (h - ⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋])``.
- **Trend**: the median step time of the last quarter of the steps (in time order) against the
  median of the first quarter, in % (positive: slower). Needs at least :data:`TREND_MIN_STEPS`.
- **Throughput** (tokens/s, samples/s) and **achieved TFLOPS**: the sum of the counts over the
  steps that carry them, divided by the time those steps cover (the union of their
  ``[end - duration, end]`` intervals). For one process that is the sum of their durations;
  for several ranks stepping at once (one tracker per rank) the counts add up over the same
  wall time, so the figure is the whole job's.
- **MFU**: achieved TFLOPS / (spec peak per GPU at the dtype × GPUs of the job).
  :attr:`StepStats.peak_tflops` holds that denominator (all the job's GPUs).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

from gpuprof.profile.markers import Marker
from gpuprof.profile.model import StepMarker, StepStats

__all__ = [
    "TREND_MIN_STEPS",
    "flops_per_token",
    "percentile",
    "step_stats",
    "step_times",
]

#: Fewer steps than this give no trend (a quarter would be one step or less).
TREND_MIN_STEPS = 8
PERCENTILE_METHOD = "linear interpolation between closest ranks (Hyndman & Fan 7)"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ascending ``sorted_values`` (Hyndman & Fan definition 7)."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q!r} outside 0-1")
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def _with_durations(steps: list[StepMarker]) -> list[tuple[StepMarker, float | None]]:
    """Each step (time order) with its duration: the marker's, else the time since the
    previous step of the same run and process."""
    last: dict[tuple[str, int], float] = {}
    out: list[tuple[StepMarker, float | None]] = []
    for m in steps:
        key = (m.run, m.pid)
        dt = m.duration_s
        if dt is None and key in last:
            dt = max(0.0, m.time_s - last[key])
        last[key] = m.time_s
        out.append((m, dt))
    return out


def _covered_s(intervals: list[tuple[float, float]]) -> float:
    """Seconds covered by the union of ``(start, end)`` intervals."""
    total = 0.0
    cur_start = cur_end = -math.inf
    for start, end in sorted(intervals):
        if start > cur_end:
            if cur_end > cur_start:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    if cur_end > cur_start:
        total += cur_end - cur_start
    return total


def _rate(timed: list[tuple[StepMarker, float | None]], field: str) -> float | None:
    """Sum of ``field`` over the steps carrying it, per second of the time they cover."""
    total = 0.0
    intervals: list[tuple[float, float]] = []
    for m, dt in timed:
        value = getattr(m, field)
        if value is None or dt is None:
            continue
        total += value
        intervals.append((m.time_s - dt, m.time_s))
    if not intervals:
        return None
    covered = _covered_s(intervals)
    rate = total / covered if covered > 0 else math.nan
    return rate if math.isfinite(rate) else None  # counts of 1e300 add up to infinity


def step_stats(
    markers: Iterable[Marker],
    *,
    gpu_count: int = 1,
    peak_tflops: float | None = None,
    dtype: str | None = None,
) -> StepStats | None:
    """What the step markers say (see the module doc); ``None`` when there are no steps.

    ``peak_tflops``: the spec peak of one of the job's GPUs at ``dtype`` (dense), or ``None``
    when unknown; ``gpu_count``: the GPUs the job used (0: none, no MFU).
    """
    steps = sorted(
        (m for m in markers if isinstance(m, StepMarker)), key=lambda m: (m.time_s, m.pid)
    )
    if not steps:
        return None
    notes: list[str] = []
    timed = _with_durations(steps)
    durations = [dt for _, dt in timed if dt is not None]
    streams = {(m.run, m.pid) for m in steps}
    if len(streams) > 1:
        notes.append(f"{len(steps)} steps from {len(streams)} runs or processes")
    p50 = p90 = p99 = mean = trend = None
    if durations:
        ordered = sorted(durations)
        p50, p90, p99 = (percentile(ordered, q) for q in (0.5, 0.9, 0.99))
        mean = math.fsum(durations) / len(durations)
        notes.append(f"step-time percentiles by {PERCENTILE_METHOD}")
    else:
        notes.append("no step durations: step times unknown")
    if len(durations) >= TREND_MIN_STEPS:
        quarter = len(durations) // 4
        first = statistics.median(durations[:quarter])
        last = statistics.median(durations[-quarter:])
        if first > 0:
            trend = (last - first) / first * 100.0
    else:
        notes.append(f"trend needs at least {TREND_MIN_STEPS} steps ({len(durations)})")
    tokens_per_s = _rate(timed, "tokens")
    samples_per_s = _rate(timed, "samples")
    flops_per_s = _rate(timed, "flops")
    achieved = flops_per_s / 1e12 if flops_per_s is not None else None
    total_peak = mfu = None
    if achieved is None:
        notes.append(
            "no flops in the steps: achieved TFLOPS and MFU unknown "
            "(pass step(flops=...), e.g. gpuprof.flops_per_token(params, seq_len) x tokens)"
        )
    elif gpu_count < 1:
        notes.append("no GPU used: MFU does not apply")
    elif peak_tflops is None or not math.isfinite(peak_tflops) or peak_tflops <= 0:
        notes.append(f"no spec peak known for {dtype or 'the dtype'}: MFU unknown")
    else:
        total_peak = peak_tflops * gpu_count
        mfu = achieved / total_peak * 100.0
        notes.append(
            f"MFU = achieved TFLOPS / ({peak_tflops:g} TFLOPS {dtype or ''} peak"
            f" x {gpu_count} GPU{'s' if gpu_count != 1 else ''})".replace("  ", " ")
        )
    return StepStats(
        count=len(steps),
        p50_s=p50,
        p90_s=p90,
        p99_s=p99,
        mean_s=mean,
        trend_pct=trend,
        tokens_per_s=tokens_per_s,
        samples_per_s=samples_per_s,
        achieved_tflops=achieved,
        peak_tflops=total_peak,
        mfu_pct=mfu,
        # The precision the job declared (track(dtype=...), gpuprof profile --dtype), with or
        # without an MFU: a projection times the job at it (issue 23: a CPU job's FP32 was
        # dropped and BF16 assumed).
        mfu_dtype=dtype or None,
        note="; ".join(notes),
    )


def step_times(markers: Iterable[Marker], t0: float, t1: float) -> list[float]:
    """The end times (Unix s) of the steps in ``[t0, t1]``, ascending: the Telemetry time
    axis's step ticks."""
    return sorted(m.time_s for m in markers if isinstance(m, StepMarker) and t0 <= m.time_s <= t1)


def flops_per_token(
    params: float,
    seq_len: int,
    *,
    training: bool = True,
    n_layers: int | None = None,
    d_model: int | None = None,
) -> float:
    """Floating-point operations per token of a dense transformer with ``params`` parameters.

    Training (forward + backward): ``6·N``; inference (forward only): ``2·N`` — Kaplan et al.,
    "Scaling Laws for Neural Language Models" (2020), section 2.1, and Hoffmann et al.
    (Chinchilla, 2022), appendix F. Given ``n_layers`` and ``d_model`` the attention scores
    and their weighted sum over ``seq_len`` tokens of context are added as in Chowdhery et al.
    (PaLM, 2022), appendix B: ``+ 12·n_layers·d_model·seq_len`` for training, a third of it
    (``4·n_layers·d_model·seq_len``) for a forward pass; no discount for a causal mask.
    Embedding parameters may be left out of ``params`` (PaLM does; Kaplan counts non-embedding
    parameters). Multiply by the tokens of a step for ``step(flops=...)``.
    """
    for name, value in (("params", params), ("seq_len", seq_len)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    per_token = (6.0 if training else 2.0) * float(params)
    if (n_layers is None) != (d_model is None):
        raise ValueError("give both n_layers and d_model for the attention term, or neither")
    if n_layers is not None and d_model is not None:
        if n_layers <= 0 or d_model <= 0:
            raise ValueError("n_layers and d_model must be positive")
        per_token += (12.0 if training else 4.0) * n_layers * d_model * float(seq_len)
    return per_token
