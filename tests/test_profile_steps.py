"""Step statistics against hand-worked numbers (gpuprof/profile/steps.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
import pytest

from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.profile.steps import flops_per_token, percentile, step_stats, step_times

T0 = 1_700_000_000.0


def steps(
    durations: Sequence[float | None],
    *,
    tokens: Sequence[float | None] | None = None,
    samples: Sequence[float | None] | None = None,
    flops: Sequence[float | None] | None = None,
    run: str = "r",
    pid: int = 1,
    t0: float = T0,
) -> list[StepMarker]:
    """Consecutive steps of one run: step k ends at t0 + the sum of the first k durations."""
    out = []
    t = t0
    for k, dt in enumerate(durations):
        t += dt if dt is not None else 1.0
        out.append(
            StepMarker(
                time_s=t,
                step=k + 1,
                duration_s=dt,
                tokens=tokens[k] if tokens else None,
                samples=samples[k] if samples else None,
                flops=flops[k] if flops else None,
                run=run,
                pid=pid,
            )
        )
    return out


def test_percentiles_by_hand() -> None:
    # n = 5, rank h = 4q: P50 -> x[2] = 3; P90 -> h 3.6: 4 + 0.6 x (5 - 4) = 4.6; P99 -> 4.96.
    stats = step_stats(steps([5.0, 1.0, 4.0, 2.0, 3.0]))
    assert stats is not None
    assert stats.count == 5
    assert stats.p50_s == pytest.approx(3.0)
    assert stats.p90_s == pytest.approx(4.6)
    assert stats.p99_s == pytest.approx(4.96)
    assert stats.mean_s == pytest.approx(3.0)
    assert "Hyndman & Fan 7" in stats.note


def test_percentile_matches_numpy_linear() -> None:
    rng = random.Random(7)
    for n in (1, 2, 3, 10, 101):
        values = sorted(rng.uniform(0.01, 2.0) for _ in range(n))
        for q in (0.0, 0.5, 0.9, 0.99, 1.0):
            assert percentile(values, q) == pytest.approx(np.percentile(values, q * 100))
    with pytest.raises(ValueError):
        percentile([], 0.5)
    with pytest.raises(ValueError):
        percentile([1.0], 1.5)


def test_trend_median_of_last_quarter_against_first() -> None:
    # 8 steps: quarters of 2; first median 1.0, last median 2.0 -> +100 %.
    slower = step_stats(steps([1.0, 1.0, 1.5, 1.5, 1.5, 1.5, 2.0, 2.0]))
    assert slower is not None and slower.trend_pct == pytest.approx(100.0)
    # 12 steps: quarters of 3; first median 2.0 (2, 2, 9), last median 1.0 -> -50 %.
    faster = step_stats(steps([2.0, 9.0, 2.0] + [1.5] * 6 + [1.0, 1.0, 3.0]))
    assert faster is not None and faster.trend_pct == pytest.approx(-50.0)


def test_few_steps_give_no_trend_with_a_note() -> None:
    stats = step_stats(steps([1.0, 2.0, 3.0]))
    assert stats is not None
    assert stats.trend_pct is None
    assert "trend needs at least 8 steps (3)" in stats.note
    assert stats.p50_s == pytest.approx(2.0)


def test_tokens_and_samples_per_second() -> None:
    # tokens on the first two steps only: 200 tokens over their 1.0 s -> 200 tokens/s;
    # samples on all three: 24 over 2.0 s -> 12 samples/s.
    stats = step_stats(
        steps([0.5, 0.5, 1.0], tokens=[100, 100, None], samples=[8, 8, 8]),
    )
    assert stats is not None
    assert stats.tokens_per_s == pytest.approx(200.0)
    assert stats.samples_per_s == pytest.approx(12.0)


def test_ranks_stepping_together_add_up() -> None:
    # Two processes, each 3 steps of 1 s over the same 3 s and 100 tokens a step: the job does
    # 600 tokens in 3 s (200/s), not 600 in the 6 s of summed durations.
    a = steps([1.0, 1.0, 1.0], tokens=[100] * 3, pid=1)
    b = steps([1.0, 1.0, 1.0], tokens=[100] * 3, pid=2)
    stats = step_stats(a + b)
    assert stats is not None
    assert stats.tokens_per_s == pytest.approx(200.0)
    assert stats.count == 6
    assert "2 runs or processes" in stats.note
    # One after the other (a second run in the same process): 600 tokens in 6 s.
    later = steps([1.0, 1.0, 1.0], tokens=[100] * 3, run="r-2", t0=T0 + 10)
    seq = step_stats(a + later)
    assert seq is not None and seq.tokens_per_s == pytest.approx(100.0)


def test_achieved_tflops_and_mfu() -> None:
    # 2e12 flops per 0.5 s step -> 4 TFLOPS; peak 10 TFLOPS per GPU x 2 GPUs -> MFU 20 %.
    stats = step_stats(
        steps([0.5] * 4, flops=[2e12] * 4), gpu_count=2, peak_tflops=10.0, dtype="bf16"
    )
    assert stats is not None
    assert stats.achieved_tflops == pytest.approx(4.0)
    assert stats.peak_tflops == pytest.approx(20.0)
    assert stats.mfu_pct == pytest.approx(20.0)
    assert stats.mfu_dtype == "bf16"
    assert "x 2 GPUs" in stats.note


def test_no_flops_no_tflops_nor_mfu_with_a_note() -> None:
    stats = step_stats(steps([0.5] * 4, tokens=[10] * 4), gpu_count=1, peak_tflops=10.0)
    assert stats is not None
    assert stats.achieved_tflops is None and stats.mfu_pct is None and stats.peak_tflops is None
    assert "no flops" in stats.note


def test_mfu_needs_a_peak_and_a_gpu() -> None:
    marks = steps([0.5] * 4, flops=[2e12] * 4)
    no_peak = step_stats(marks, gpu_count=1, peak_tflops=None, dtype="fp8")
    assert no_peak is not None
    assert no_peak.achieved_tflops == pytest.approx(4.0)
    assert no_peak.mfu_pct is None and "no spec peak known for fp8" in no_peak.note
    no_gpu = step_stats(marks, gpu_count=0, peak_tflops=10.0)
    assert no_gpu is not None and no_gpu.mfu_pct is None and "no GPU" in no_gpu.note
    nan_peak = step_stats(marks, gpu_count=1, peak_tflops=math.nan)
    assert nan_peak is not None and nan_peak.mfu_pct is None


def test_no_steps_is_none() -> None:
    assert step_stats([]) is None
    assert step_stats([PhaseMark(time_s=T0, kind="start", run="r", pid=1)]) is None


def test_missing_durations_come_from_the_previous_step() -> None:
    marks = steps([2.0, 2.0, 2.0])
    # The decoder allows dt to be absent: the second and third are 2 s after the one before.
    bare = [StepMarker(time_s=m.time_s, step=m.step, run=m.run, pid=m.pid) for m in marks]
    stats = step_stats(bare)
    assert stats is not None
    assert stats.count == 3
    assert stats.p50_s == pytest.approx(2.0)
    assert stats.mean_s == pytest.approx(2.0)


def test_enormous_counts_are_unknown_not_infinite() -> None:
    stats = step_stats(steps([1.0] * 3, tokens=[1e308] * 3, flops=[1e308] * 3))
    assert stats is not None
    assert stats.tokens_per_s is None and stats.achieved_tflops is None


def test_step_times_in_a_window() -> None:
    marks: list[StepMarker | PhaseMark] = list(steps([1.0] * 5))  # ends at T0+1 .. T0+5
    marks.append(PhaseMark(time_s=T0 + 3.5, kind="mark", label="eval", run="r", pid=1))
    assert step_times(reversed(marks), T0 + 2, T0 + 4) == [T0 + 2, T0 + 3, T0 + 4]
    assert step_times(marks, T0 + 10, T0 + 20) == []


def test_flops_per_token_formulas() -> None:
    n = 1e9
    assert flops_per_token(n, 2048) == 6e9  # Kaplan: 6N training
    assert flops_per_token(n, 2048, training=False) == 2e9  # 2N forward
    # PaLM appendix B: + 12 x layers x d_model x seq_len (training), a third of it forward.
    assert flops_per_token(n, 2048, n_layers=24, d_model=2048) == 6e9 + 12 * 24 * 2048 * 2048
    assert flops_per_token(n, 2048, training=False, n_layers=24, d_model=2048) == (
        2e9 + 4 * 24 * 2048 * 2048
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((0, 2048), {}, ValueError),
        ((-1e9, 2048), {}, ValueError),
        ((math.nan, 2048), {}, ValueError),
        ((1e9, 0), {}, ValueError),
        (("1e9", 2048), {}, TypeError),
        ((True, 2048), {}, TypeError),
        ((1e9, 2048), {"n_layers": 24}, ValueError),
        ((1e9, 2048), {"n_layers": 0, "d_model": 512}, ValueError),
    ],
)
def test_flops_per_token_refuses_nonsense(
    args: tuple[object, ...], kwargs: dict[str, int], error: type[Exception]
) -> None:
    with pytest.raises(error):
        flops_per_token(*args, **kwargs)  # type: ignore[arg-type]


def test_exported_lazily_from_the_package() -> None:
    import gpuprof

    assert gpuprof.flops_per_token is flops_per_token
    assert "track" in dir(gpuprof)
