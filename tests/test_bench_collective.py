"""Collectives through torch.distributed: gloo across 2 spawned processes on the CPU."""

from __future__ import annotations

import pytest

from gpuprof.bench.base import CollectiveResult, RunState
from gpuprof.bench.runner import Case, Runner


@pytest.mark.slow  # spawning two Python processes that import torch takes several seconds here
def test_gloo_all_reduce_and_all_gather_across_two_processes():
    from gpuprof.bench.collective import bus_factor, collective_bench

    case = Case("collective", "collectives", collective_bench(sizes=[8, 64 * 1024]), 60)
    run = Runner(device="cpu", cases=[case], capture_env=False, telemetry_interval_s=None).run()
    assert run.state is RunState.SUCCESS, run.cases[0].error
    results = run.results
    assert [(r.op, r.size_bytes) for r in results] == [
        ("all_reduce", 8),
        ("all_reduce", 65536),
        ("all_gather", 8),
        ("all_gather", 65536),
    ]
    for r in results:
        assert isinstance(r, CollectiveResult)
        assert r.status == "ok"  # values were checked after the collective
        assert (r.backend, r.world_size) == ("gloo", 2)
        assert r.algbw_bytes_s == pytest.approx(r.size_bytes / r.latency_p50_s)
        assert r.busbw_bytes_s == pytest.approx(r.algbw_bytes_s * bus_factor(r.op, 2))
        assert 0 < r.latency_p50_s <= r.latency_p99_s
        assert r.iterations >= 5


@pytest.mark.gpu
def test_nccl_collectives_need_two_gpus_or_say_so():
    import torch

    from gpuprof.bench.collective import collective_bench

    case = Case("collective", "collectives", collective_bench(sizes=[8, 1 << 20]), 60)
    run = Runner(device="cuda:0", cases=[case], capture_env=False, telemetry_interval_s=None).run()
    if torch.cuda.device_count() < 2:
        assert run.results[0].status == "skipped: needs 2 CUDA devices"
    else:
        assert all(r.status == "ok" and r.backend == "nccl" for r in run.results)
