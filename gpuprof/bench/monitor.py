"""Telemetry while a benchmark runs: GPU readings, and the throttle reasons seen per result."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["BENIGN_CLOCK_REASONS", "TelemetryPoint"]

#: Clock-event reasons that do not mean the GPU slowed itself down.
BENIGN_CLOCK_REASONS = frozenset(
    {"gpu_idle", "applications_clocks_setting", "display_clock_setting"}
)


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
    """Polls the telemetry source in the background and on demand (at each result)."""

    def __init__(
        self, source: Any, interval_s: float | None, wall_clock: Callable[[], float]
    ) -> None:
        self._source = source
        self._interval_s = interval_s
        self._wall = wall_clock
        self._points: list[TelemetryPoint] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._interval_s:
            self._thread = threading.Thread(
                target=self._loop, name="gpuprof-bench-telemetry", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        assert self._interval_s
        while not self._stop.wait(self._interval_s):
            self.sample()

    def sample(self) -> None:
        try:
            snap = self._source.poll()
        except Exception:
            return
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
