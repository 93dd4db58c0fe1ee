"""What the perf scripts share: the repository on sys.path, Qt offscreen, timing helpers."""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
