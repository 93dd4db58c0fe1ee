"""What the perf scripts share: the repository on sys.path, Qt offscreen, timing helpers, the
busy GPU's profiling activity."""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: GPM's profiling activity of a busy GPU (issue 12), in %: what the sampler's fake NVML reports
#: (tests.fakes.fake_gpm.FakeGpmActivity) and the exporter serves (GpuSample's ``prof_*``).
BUSY_GPM_PCT = {
    "sm_active_pct": 82.0,
    "sm_occupancy_pct": 31.0,
    "tensor_active_pct": 55.0,
    "tensor_hmma_pct": 55.0,
    "tensor_imma_pct": 0.0,
    "tensor_dfma_pct": 0.0,
    "dram_active_pct": 37.0,
    "fp64_active_pct": 0.0,
    "fp32_active_pct": 10.0,
    "fp16_active_pct": 5.0,
}


def setup(*, qt: bool = False) -> None:
    """Make ``gpuprof`` importable from the checkout; with ``qt``, render offscreen."""
    if qt:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def times_ms(fn: Callable[[], object], repeat: int) -> list[float]:
    """The wall time of each of ``repeat`` calls of ``fn``, in ms."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return times


def median_ms(fn: Callable[[], object], repeat: int, digits: int = 2) -> float:
    """The median wall time of ``repeat`` calls of ``fn``, in ms (``digits`` decimals)."""
    return round(statistics.median(times_ms(fn, repeat)), digits)


def calibration_s() -> float:
    """Seconds for a fixed pure-Python loop (10 million additions, best of three; ~0.4 s on an
    idle desktop core): how fast this machine is right now, to read a script's figures against."""
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best
