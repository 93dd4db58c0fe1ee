"""Benchmark results made in a test (no torch): the copy results beside
:func:`tests.fakes.fixtures.gemm_result`."""

from __future__ import annotations

from typing import Any

from gpuprof.bench.base import MemoryResult


def memory_result(
    case: str,
    bandwidth_bytes_s: float,
    *,
    direction: str = "host",
    pinned: bool | None = None,
    size: int = 2**30,
    max_bytes_s: float | None = None,
    **fields: Any,
) -> MemoryResult:
    """A copy of ``size`` bytes in ``direction`` measured at ``bandwidth_bytes_s`` (bytes
    copied a second; the median of 5 samples, the fastest at ``max_bytes_s``, the median if not
    given); ``fields``: MemoryResult's others (traffic_factor, verified, throttle_reasons, ...)."""
    return MemoryResult(
        bench="memory",
        case=case,
        direction=direction,
        pinned=pinned,
        size_bytes=size,
        samples=5,
        time_median_s=size / bandwidth_bytes_s,
        bandwidth_bytes_s=bandwidth_bytes_s,
        bandwidth_max_bytes_s=bandwidth_bytes_s if max_bytes_s is None else max_bytes_s,
        **fields,
    )
