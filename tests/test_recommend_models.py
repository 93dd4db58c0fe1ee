"""Model architectures (resources/models.csv) and what ``--model`` changes (issue 16).

Hand-worked numbers: the KV cache of one token is ``layers × (K+V elements) × 2 bytes``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuprof.errors import InputError
from gpuprof.recommend.memory import kv_bytes_per_token, memory_need
from gpuprof.recommend.models import find_model, load_models
from gpuprof.recommend.workload import Workload
from tests.helpers.cli import recommend_cli

MODELS = load_models()


def _wl(model: str, **kw: object) -> Workload:
    fields = {"scenario": "inference", "tokens": 1e6, **kw}
    fields.update(find_model(model, MODELS).workload_fields())
    return Workload(**fields)  # type: ignore[arg-type]


def test_the_shipped_file_has_the_families_the_issue_names_each_with_a_source() -> None:
    for name in (
        "llama-2-7b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3.1-405b",
        "mistral-7b",
        "mixtral-8x7b",
        "mixtral-8x22b",
        "qwen2.5-7b",
        "qwen2.5-72b",
        "deepseek-v3",
        "gemma-2-27b",
        "vit-l-16",
        "dit-xl-2",
    ):
        assert name in MODELS, name
    assert all(m.source for m in MODELS.values())
    assert {m.kind for m in MODELS.values()} >= {"llm", "moe", "vision", "diffusion"}


@pytest.mark.parametrize(
    ("model", "kv_bytes"),
    [
        ("llama-2-7b", 32 * 2 * 32 * 128 * 2),  # MHA: 512 KiB per token
        ("llama-2-70b", 80 * 2 * 8 * 128 * 2),  # GQA 8 of 64 heads: 320 KiB
        ("llama-3.1-405b", 126 * 2 * 8 * 128 * 2),  # 504 KiB
        ("qwen2.5-7b", 28 * 2 * 4 * 128 * 2),  # 56 KiB
        ("gemma-2-9b", 42 * 2 * 8 * 256 * 2),  # head_dim 256: 336 KiB
        ("deepseek-v3", 61 * 576 * 2),  # MLA latent 512 + RoPE key 64
    ],
)
def test_kv_cache_per_token_comes_from_the_kv_heads(model: str, kv_bytes: int) -> None:
    assert kv_bytes_per_token(_wl(model)) == kv_bytes


def test_llama2_70b_serving_cache_is_8x_smaller_than_the_mha_default() -> None:
    # 64 sequences of 4096 tokens on 8 GPUs: 327,680 B × 4096 × 64 / 8 = 10 GiB per GPU.
    wl = _wl("llama-2-70b", seq_len=4096, batch=64)
    need = memory_need(wl, 8.0)
    assert float(need.kv_cache) == 10 * 2**30
    assert float(need.weights) == 70e9 * 2 / 8
    bare = Workload(scenario="inference", params=70e9, tokens=1e6, seq_len=4096, batch=64)
    # the bare default (71 layers, hidden 9088, full MHA) is ~8× bigger
    assert float(memory_need(bare, 8.0).kv_cache) / float(need.kv_cache) > 7.5


def test_moe_flops_use_active_parameters_and_memory_the_total() -> None:
    wl = _wl("mixtral-8x7b", tokens=1e6)
    assert wl.total_flops() == pytest.approx(2 * 12.9e9 * 1e6)  # 2.58e16
    assert float(memory_need(wl, 2.0).weights) == pytest.approx(46.7e9 * 2 / 2)
    train = _wl("deepseek-v3", scenario="pretrain", tokens=1e9)
    # 6 × 37e9 (active) + attention 12 × 61 × (128 heads × 128) × 4096 per token: scores at
    # the attention's own width, not the 7,168 hidden
    assert train.total_flops() == pytest.approx((6 * 37e9 + 12 * 61 * 16384 * 4096) * 1e9)
    assert float(memory_need(train, 1024.0).optimizer) == pytest.approx(671e9 * 12 / 1024)


def test_dense_models_keep_params_as_the_flop_count() -> None:
    wl = _wl("llama-3.1-8b", tokens=1e6)
    assert wl.active_params is None
    assert wl.total_flops() == pytest.approx(2 * 8030261248 * 1e6)


def test_vision_models_have_no_kv_cache() -> None:
    assert kv_bytes_per_token(_wl("vit-l-16")) == 0.0


def test_names_match_loosely_and_an_unknown_one_is_one_clear_error() -> None:
    assert find_model("Llama 3.1 70B", MODELS).name == "llama-3.1-70b"
    assert find_model("QWEN2.5_72B", MODELS).name == "qwen2.5-72b"
    with pytest.raises(InputError, match=r"unknown model 'llama-9'.*llama"):
        find_model("llama-9", MODELS)


def test_active_params_above_the_total_are_refused() -> None:
    with pytest.raises(InputError, match="active parameters"):
        Workload(scenario="inference", params=7e9, active_params=8e9, tokens=1.0)


def test_cli_model_fills_the_workload_and_says_the_architecture() -> None:
    ran = recommend_cli(
        "--scenario", "inference", "--model", "mixtral-8x7b", "--tokens", "1e9", "--json"
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["workload"]["params"] == 46.7e9 and out["workload"]["active_params"] == 12.9e9
    assert out["workload"]["kv_per_token_layer"] == 2 * 8 * 128
    assert out["architecture"].startswith("architecture: mixtral-8x7b (32 layers")


def test_cli_bare_params_states_the_default_architecture() -> None:
    ran = recommend_cli(
        "--scenario", "inference", "--params", "6.7e9", "--tokens", "1e9", "--limit", "1"
    )
    assert ran.returncode == 0, ran.stderr
    # N = 12·L·(128·L)² → L = round((6.7e9 / 196608)^(1/3)) = 32, h = 4096
    assert "architecture: default from --params (32 layers, hidden 4096, full multi-head" in (
        ran.stdout
    )


def test_cli_model_and_params_together_is_one_error() -> None:
    ran = recommend_cli("--scenario", "inference", "--model", "mistral-7b", "--params", "7e9")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert "--model or --params" in ran.stderr


def test_cli_lists_the_models_as_json() -> None:
    ran = recommend_cli("--list-models", "--json")
    assert ran.returncode == 0, ran.stderr
    names = [m["name"] for m in json.loads(ran.stdout)]
    assert names == list(MODELS)
    assert np.all([m["source"] for m in json.loads(ran.stdout)])


def test_a_named_model_adds_attention_flops_to_training() -> None:
    # Llama-2 7B, s = 4096: 6 × 6.74e9 + 12 × 32 × 4096 × 4096 = 40.44e9 + 6.442e9 per token
    wl = _wl("llama-2-7b", scenario="pretrain", tokens=1e6, seq_len=4096)
    assert wl.total_flops() == pytest.approx((6 * 6.74e9 + 12 * 32 * 4096 * 4096) * 1e6)
    lora = _wl("llama-2-7b", scenario="finetune-lora", tokens=1e6, seq_len=4096)
    assert lora.total_flops() == pytest.approx((4 * 6.74e9 + 8 * 32 * 4096 * 4096) * 1e6)
    # a bare --params keeps the plain 6·N rule
    bare = Workload(scenario="pretrain", params=6.74e9, tokens=1e6, seq_len=4096)
    assert bare.total_flops() == pytest.approx(6 * 6.74e9 * 1e6)


def test_every_published_run_has_a_source_and_a_known_model() -> None:
    import csv
    from pathlib import Path

    from gpuprof.recommend.efficiency import STACKS

    data = Path(__file__).parent / "data"
    extra = load_models(data / "published_models.csv")  # architectures of the runs (issue 23)
    lines = [
        ln
        for ln in (data / "published_runs.csv").read_text("utf-8").splitlines()
        if not ln.startswith("#")
    ]
    rows = list(csv.DictReader(lines))
    assert len(rows) >= 10
    training = [r for r in rows if r["kind"] in ("train", "finetune", "lora")]
    # Issue 23: at least 60 training rows from at least 10 publications, each with its stack.
    assert len(training) >= 60 and len({r["group"] for r in training}) >= 10
    assert all(r["stack"] in STACKS for r in training)
    for row in rows:
        assert row["source"].strip(), row["id"]
        assert row["metric"] in (
            "tokens_per_s_per_gpu",
            "gpu_hours",
            "tokens_per_s",
            "output_tokens_per_s",
            "step_seconds",
        ), row["id"]
        if row["kind"] == "serve":  # issue 22: the traffic it was measured at
            assert int(row["prompt_len"]) > 0 and int(row["output_len"]) > 0, row["id"]
        assert float(row["published"]) > 0
        known = row["model"] in MODELS or row["model"] in extra
        assert known or float(row["params"] or 0) > 0, row["id"]
