"""The trace simulation reports its progress and can be cancelled (the Recommend tab runs it in a
worker): ``tick`` gets a share of the work done that only grows up to 1, a True answer stops it
with TraceCancelled, and ticking changes no result."""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.catalog.instances import load_catalog
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.trace import TICK_STEPS, Trace, TraceCancelled, simulate_top
from tests.helpers.workloads import serving


def _rec_and_trace(n: int = 3000):
    w = serving("llama-3.1-8b", rate_per_s=20, prompt_len=500, output_len=100)
    rec = recommend(w, load_catalog(), limit=20)
    k = np.arange(n)
    trace = Trace("mem", k * 0.05, 300 + (k * 37) % 400, 50 + (k * 53) % 100)
    return rec, trace


@pytest.mark.slow
def test_tick_reports_growing_progress_and_does_not_change_the_result() -> None:
    rec, trace = _rec_and_trace()
    seen: list[float] = []
    ticked = simulate_top(rec, trace, tick=lambda f: seen.append(f) is not None)
    plain = simulate_top(rec, trace)
    assert len(ticked) == len(plain) > 1
    assert sum(r.steps for _, r in plain[:1]) > TICK_STEPS  # several ticks per row
    assert len(seen) > len(plain) and seen == sorted(seen)
    assert 0.0 <= seen[0] < 0.5 < seen[-1] <= 1.0
    for (_, a), (_, b) in zip(ticked, plain, strict=True):
        assert a.to_dict() == b.to_dict()


def test_a_true_tick_cancels_the_simulation() -> None:
    rec, trace = _rec_and_trace()
    calls = []

    def tick(f: float) -> bool:
        calls.append(f)
        return len(calls) >= 3

    with pytest.raises(TraceCancelled):
        simulate_top(rec, trace, tick=tick)
    assert len(calls) == 3  # stopped at the tick that said so
