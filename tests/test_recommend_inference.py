"""LLM inference estimates with a named architecture (issue 16): the batch that fits is used.

Hand-worked: Llama-2 70B in bf16 on 2 × A100 80GB keeps 85 % of 2 × 80 GiB = 146,028,888,064 B;
the weights take 140e9 B, leaving 6,028,888,064 B; one 4096-token sequence caches
80 × 2 × 8 × 128 × 2 B × 4096 = 1,342,177,280 B, so 4 of 512 requested sequences fit.
"""

from __future__ import annotations

import pytest

from tests.helpers.cli import recommend_cli

BASE = ("--scenario", "inference", "--model", "llama-2-70b", "--tokens", "1e8", "--seq-len", "4096")


@pytest.mark.slow
def test_the_batch_that_fits_is_computed_and_used() -> None:
    ran = recommend_cli(*BASE, "--batch", "512", "--gpu", "A100-80GB", "--gpus", "2")
    assert ran.returncode == 0, ran.stderr
    assert "4 of the 512 requested sequences fit in memory beside the weights" in ran.stdout
    # need = 70 GB of weights + 2 sequences' cache per GPU = 67.7 GiB
    assert "67.7 GiB per GPU" in ran.stdout
    assert "memory-bandwidth bound" in ran.stdout


def test_a_batch_that_fits_is_kept_and_not_mentioned() -> None:
    ran = recommend_cli(*BASE, "--batch", "4", "--gpu", "A100-80GB", "--gpus", "2")
    assert ran.returncode == 0, ran.stderr
    assert "requested sequences fit" not in ran.stdout


def test_weights_alone_over_memory_do_not_fit() -> None:
    ran = recommend_cli(*BASE, "--batch", "1", "--gpu", "A100-80GB", "--gpus", "1", "--json")
    assert ran.returncode == 0, ran.stderr
    assert '"fits": false' in ran.stdout


def test_a_throughput_target_ranks_by_the_cost_of_sustaining_it() -> None:
    import json

    ran = recommend_cli(
        "--scenario",
        "inference",
        "--model",
        "llama-3.1-8b",
        "--throughput",
        "20000",
        "--batch",
        "64",
        "--seq-len",
        "2048",
        "--limit",
        "5",
        "--json",
    )
    assert ran.returncode == 0, ran.stderr
    rows = json.loads(ran.stdout)["rows"]
    assert rows and all(r["instances_needed"] >= 1 for r in rows)
    # not a job with a deadline: no row "misses" the target, replicas reach it
    assert all(r["meets_deadline"] is None for r in rows)
    costs = [r["cost_usd"] for r in rows]
    assert costs == sorted(costs)
    for r in rows:
        # one hour of the target = 72M tokens: $/M = ($/h for all replicas) / 72
        assert r["usd_per_million"] == pytest.approx(r["price_per_hour_usd"] / 72.0)
        # serving is a rate, not a job: no hours, and the costs are per hour of the same
        # instances (issue 22: hours for 15 instances, hours_spot for one, no more)
        assert r["hours"] is None and r["hours_spot"] is None and r["cost_unit"] == "usd_per_hour"
        assert r["cost_usd"] == pytest.approx(r["price_per_hour_usd"])
        assert r["serving"]["instances"] == r["instances_needed"]
        assert r["serving"]["batch_max"] <= 64  # --batch caps the sequences in flight
