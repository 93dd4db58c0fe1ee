"""Per-iteration timers and the statistics over them.

On a GPU each iteration is bracketed by two CUDA events and the elapsed times are read after one
synchronize at the end (mamf-finder and nvbandwidth do the same); on the CPU a clock is read around
each call, with a synchronize hook for work that runs asynchronously. The clock and the event
factory are injected so that tests drive the math with a fake clock and fake events.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "CudaEventTimer",
    "IterationTimer",
    "Stats",
    "WallTimer",
    "measure",
    "percentile",
    "summarize",
    "timer_for_device",
]


class IterationTimer(Protocol):
    """Brackets iterations with :meth:`begin` / :meth:`end`; :meth:`durations_s` reads them."""

    def begin(self) -> None: ...

    def end(self) -> None: ...

    def durations_s(self) -> list[float]: ...


class WallTimer:
    """A host clock around each iteration; ``sync`` (e.g. ``torch.cuda.synchronize``) runs first."""

    def __init__(
        self, clock: Callable[[], float] = time.perf_counter, sync: Callable[[], Any] | None = None
    ) -> None:
        self._clock = clock
        self._sync = sync
        self._t0: float | None = None
        self._durations: list[float] = []

    def begin(self) -> None:
        if self._sync is not None:
            self._sync()
        self._t0 = self._clock()

    def end(self) -> None:
        if self._sync is not None:
            self._sync()
        if self._t0 is None:
            raise RuntimeError("end() without begin()")
        self._durations.append(self._clock() - self._t0)
        self._t0 = None

    def durations_s(self) -> list[float]:
        return list(self._durations)


class CudaEventTimer:
    """CUDA events around each iteration (``cudaEventRecord`` / ``cudaEventElapsedTime``).

    ``event_factory()`` returns an object with ``record()`` and ``elapsed_time(end) -> ms``, like
    ``torch.cuda.Event(enable_timing=True)``; ``synchronize()`` waits for the device.
    """

    def __init__(self, event_factory: Callable[[], Any], synchronize: Callable[[], Any]) -> None:
        self._new = event_factory
        self._synchronize = synchronize
        self._open: Any = None
        self._pairs: list[tuple[Any, Any]] = []

    def begin(self) -> None:
        start = self._new()
        start.record()
        self._open = start

    def end(self) -> None:
        if self._open is None:
            raise RuntimeError("end() without begin()")
        stop = self._new()
        stop.record()
        self._pairs.append((self._open, stop))
        self._open = None

    def durations_s(self) -> list[float]:
        self._synchronize()
        return [float(start.elapsed_time(stop)) / 1000.0 for start, stop in self._pairs]


def timer_for_device(device: str, clock: Callable[[], float] = time.perf_counter) -> IterationTimer:
    """CUDA events on ``cuda:N``, the host clock on ``cpu``. Imports torch only for CUDA."""
    if device.startswith("cuda"):
        import torch

        dev = torch.device(device)
        return CudaEventTimer(
            lambda: torch.cuda.Event(enable_timing=True),  # type: ignore[no-untyped-call]
            lambda: torch.cuda.synchronize(dev),
        )
    return WallTimer(clock)


def measure(
    fn: Callable[[], Any],
    *,
    timer: IterationTimer,
    iterations: int,
    warmup: int = 1,
    min_iterations: int = 3,
    max_time_s: float | None = None,
    before: Callable[[], Any] | None = None,
    check: Callable[[], Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Run ``fn`` ``warmup`` times untimed, then time up to ``iterations`` calls one by one.

    ``before`` runs before every call outside the timed bracket (the L2 flush). Timing stops early
    once ``min_iterations`` are done and ``max_time_s`` of host time has passed. ``check`` runs
    between calls (it raises to cancel). Returns each timed call's duration in seconds.
    """
    for _ in range(warmup):
        if check is not None:
            check()
        if before is not None:
            before()
        fn()
    t_start = clock()
    for i in range(iterations):
        if check is not None:
            check()
        if before is not None:
            before()
        timer.begin()
        fn()
        timer.end()
        done = i + 1
        if max_time_s is not None and done >= min_iterations and clock() - t_start >= max_time_s:
            break
    return timer.durations_s()


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default method); ``pct`` in 0..100."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class Stats:
    """Durations in seconds over ``n`` timed iterations."""

    n: int
    mean_s: float
    median_s: float
    min_s: float
    max_s: float
    p99_s: float


def summarize(durations_s: Sequence[float]) -> Stats:
    if not durations_s:
        raise ValueError("no timed iterations")
    return Stats(
        n=len(durations_s),
        mean_s=statistics.fmean(durations_s),
        median_s=statistics.median(durations_s),
        min_s=min(durations_s),
        max_s=max(durations_s),
        p99_s=percentile(durations_s, 99.0),
    )
