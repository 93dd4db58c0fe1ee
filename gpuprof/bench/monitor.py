"""Telemetry while a benchmark runs: GPU readings, and the throttle reasons seen per result."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuprof.telemetry.reasons import BENIGN, ClockEventReason

__all__ = ["BENIGN_CLOCK_REASONS", "TelemetryPoint"]

#: Names of the clock-event reasons that do not mean the GPU slowed itself down (settings, idle):
#: they never flag a result. Any other name does, including one this version does not know.
BENIGN_CLOCK_REASONS = frozenset(r.key for r in ClockEventReason if r & BENIGN)


@dataclass(frozen=True, slots=True)
class TelemetryPoint:
    """One GPU reading taken while the run went on (Unix time)."""

    time_s: float
    gpu_index: int
    sm_clock_mhz: float | None = None
    mem_clock_mhz: float | None = None
    power_w: float | None = None
    temp_gpu_c: float | None = None
    util_gpu_pct: float | None = None
    throttle_reasons: tuple[str, ...] = ()


class _Monitor:
    """Telemetry while a run goes on: a client of a
    :class:`~gpuprof.telemetry.session.TelemetrySession` on ``source``, polled in the
    background every ``interval_s`` (``None``: only on demand) and at each result.

    The run keeps its own :class:`TelemetryPoint` list, so the session's History holds only a
    few samples; the source stays the caller's.
    """

    def __init__(
        self, source: Any, interval_s: float | None, wall_clock: Callable[[], float]
    ) -> None:
        from gpuprof.telemetry.sampler import MAX_INTERVAL_S, MIN_INTERVAL_S
        from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession

        self._background = bool(interval_s)
        interval = min(max(float(interval_s or 1.0), MIN_INTERVAL_S), MAX_INTERVAL_S)
        self._session = TelemetrySession(
            source, interval_s=interval, history_capacity=MINIMAL_HISTORY
        )
        self._session.subscribe(self._on_snapshot)
        self._wall = wall_clock
        self._points: list[TelemetryPoint] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._background:
            self._session.start()

    def stop(self) -> None:
        self._session.close(close_source=False)

    def sample(self) -> None:
        """Poll now (the runner calls this right after each result)."""
        try:
            self._session.poll_once()
        except Exception:
            return  # the sampler counted it; a result never fails for its telemetry

    def _on_snapshot(self, snap: Any) -> None:
        now = self._wall()
        pts = [
            TelemetryPoint(
                time_s=now,
                gpu_index=g.index,
                sm_clock_mhz=g.clock_sm_mhz,
                mem_clock_mhz=g.clock_mem_mhz,
                power_w=g.power_w,
                temp_gpu_c=g.temp_gpu_c,
                util_gpu_pct=g.util_gpu_pct,
                throttle_reasons=tuple(g.throttle_reasons),
            )
            for g in snap.gpus
            if not g.lost
        ]
        with self._lock:
            self._points.extend(pts)

    def points(self) -> tuple[TelemetryPoint, ...]:
        with self._lock:
            return tuple(self._points)

    def reasons_between(self, gpu_index: int | None, t0: float, t1: float) -> tuple[str, ...]:
        """Throttle reasons (benign ones dropped) seen on ``gpu_index`` in (t0, t1], sorted.

        The runner samples right after each result, so the window of a result runs from just after
        the previous result's sample to its own; background samples fill long windows.
        """
        seen: set[str] = set()
        with self._lock:
            for p in self._points:
                if (gpu_index is None or p.gpu_index == gpu_index) and t0 < p.time_s <= t1:
                    seen.update(r for r in p.throttle_reasons if r not in BENIGN_CLOCK_REASONS)
        return tuple(sorted(seen))
