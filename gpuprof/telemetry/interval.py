"""The bounds of the sampling interval, the one definition that the sampler, ``gpuprof.track``,
the command line and the app's settings check against. A leaf of telemetry: importing it costs
nothing (the CLI states the bounds in its help at every start-up)."""

from __future__ import annotations

import math

__all__ = ["MAX_INTERVAL_S", "MIN_INTERVAL_S", "checked_interval"]

#: Below 0.1 s a poll of 8 GPUs costs more than the interval; NVML itself refreshes most
#: counters every 100 ms.
MIN_INTERVAL_S = 0.1
#: Above a minute the plots and the exporter's staleness bound stop making sense.
MAX_INTERVAL_S = 60.0


def checked_interval(interval_s: float, what: str = "sampling interval") -> float:
    """``interval_s`` as seconds, or ``ValueError`` naming ``what`` when it is not a finite
    number within :data:`MIN_INTERVAL_S`–:data:`MAX_INTERVAL_S`."""
    try:
        value = float(interval_s)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number of seconds, got {interval_s!r}") from None
    if not (math.isfinite(value) and MIN_INTERVAL_S <= value <= MAX_INTERVAL_S):
        raise ValueError(
            f"{what} must be between {MIN_INTERVAL_S:g} and {MAX_INTERVAL_S:g} s, "
            f"got {interval_s!r}"
        )
    return value
