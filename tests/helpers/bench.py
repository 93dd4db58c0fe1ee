"""Benchmark results made in a test (no torch): the copy results beside
:func:`tests.fakes.fixtures.gemm_result`."""

from __future__ import annotations

from typing import Any

from gpuprof.bench.base import CollectiveResult, MemoryResult


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


def all_reduce_result(
    case: str,
    world: int,
    busbw_bytes_s: float,
    *,
    p50_s: float,
    p99_s: float,
    backend: str = "nccl",
    size: int = 2**30,
    dtype: str = "bf16",
) -> CollectiveResult:
    """An all-reduce of ``size`` bytes over ``world`` ranks at ``busbw_bytes_s`` bus bandwidth
    (its algorithm bandwidth derived as nccl-tests does: busbw × n / 2(n-1)), 20 iterations
    with the latencies given."""
    return CollectiveResult(
        bench="collective",
        case=case,
        op="all_reduce",
        backend=backend,
        world_size=world,
        size_bytes=size,
        dtype=dtype,
        iterations=20,
        latency_p50_s=p50_s,
        latency_p99_s=p99_s,
        algbw_bytes_s=busbw_bytes_s * world / (2 * (world - 1)),
        busbw_bytes_s=busbw_bytes_s,
    )
