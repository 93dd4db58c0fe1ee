"""Demo telemetry for reports and their tests: one scripted cycle of the simulator (SIMULATED)."""

from __future__ import annotations

import time
from typing import Any

from gpuprof.telemetry.model import Snapshot

__all__ = ["demo_snapshots"]


def demo_snapshots(
    scenario: str = "h100x8",
    duration_s: float = 720.0,
    step_s: float = 2.0,
    *,
    end_s: float | None = None,
) -> tuple[Any, list[Snapshot]]:
    """A :class:`SimulatedSource` and ``duration_s`` of its scripted workload sampled every
    ``step_s`` on a stepped clock ending at ``end_s`` (default now): all SIMULATED."""
    from gpuprof.telemetry.sources import SimulatedSource

    end = time.time() if end_s is None else end_s
    start = end - duration_s
    n = int(duration_s / step_s)
    ticks = iter([start + k * step_s for k in range(n)])
    source = SimulatedSource(scenario, clock=lambda: next(ticks), start_s=start)
    return source, [source.poll() for _ in range(n)]
