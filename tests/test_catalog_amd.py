"""AMD Instinct instances in the catalog (issue 26): MI300X rows with sourced prices, the MI325X
spec row, and the recommender ranking MI300X instances."""

from __future__ import annotations

import json

from gpuprof.catalog.instances import load_catalog
from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.catalog.specs import load_specs
from gpuprof.cli import main


def test_mi300x_instances_have_sourced_prices() -> None:
    rows = [i for i in load_catalog(overlays=False).instances if i.gpu_model == "MI300X"]
    assert {(i.provider, i.gpu_count) for i in rows} >= {("OCI", 8), ("RunPod", 1), ("RunPod", 8)}
    for i in rows:
        assert i.price_ondemand_usd_hr and i.price_ondemand_usd_hr > 0
        assert i.source and i.as_of
    runpod8 = next(i for i in rows if i.provider == "RunPod" and i.gpu_count == 8)
    assert runpod8.price_ondemand_usd_hr == 19.92 and "skypilot-catalog" in runpod8.source


def test_mi325x_is_a_known_gpu_with_cited_specs() -> None:
    assert normalize_gpu_model("AMD Instinct MI325X", 256) == "MI325X"
    spec = load_specs()["MI325X"]
    assert spec.memory_gib == 256 and spec.bf16_tflops == 1307.4 and "SECONDARY" in spec.source


def test_recommender_ranks_mi300x_instances(capsys) -> None:
    code = main(
        [
            "recommend",
            "--scenario",
            "finetune-lora",
            "--params",
            "70e9",
            "--precision",
            "bf16",
            "--tokens",
            "1e8",
            "--limit",
            "300",
            "--json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    amd = [r for r in rows if r["gpu_model"] == "MI300X" and r["cost_usd"]]
    assert {r["provider"] for r in amd} >= {"OCI", "RunPod"}
    assert all(r["rank"] >= 1 for r in amd)
