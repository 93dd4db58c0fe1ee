"""Serving as the engines do it (issue 22, second pass): the KV heads tensor parallel cannot
split, the cache an engine holds per sequence (--kv-admission), how decode attention reads a
grouped-query cache (--attention-kernel), and the published serving rows they are checked on."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from gpuprof.catalog.instances import Catalog
from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.catalog.specs import load_specs
from gpuprof.commands.recommend.config import one_config_catalog
from gpuprof.errors import InputError
from gpuprof.recommend.models import find_model, load_models
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.serve import ServeArrays
from gpuprof.recommend.workload import ATTENTION_KERNELS, KV_ADMISSION, SAMPLERS, Workload
from tests.helpers.cli import recommend_cli
from tests.helpers.workloads import serving

DATA = Path(__file__).parent / "data"


def _one(catalog: Catalog, gpu: str, gpus: int, w: Workload) -> ServeArrays | Any:
    cat, nodes = one_config_catalog(catalog, gpu, gpus)
    row = recommend(w.with_(nodes=nodes, node_limit=max(16, nodes)), cat, limit=1).rows[0]
    assert row.serving is not None
    return row.serving


def test_the_model_rows_say_how_tensor_parallel_can_split_their_cache() -> None:
    models = load_models(None)
    qwen = find_model("qwen3-235b-a22b", models).workload_fields()
    assert qwen["kv_heads"] == 4 and qwen["attn_width"] == 64 * 128  # wider than hidden 4096
    llama = find_model("llama-3.1-70b", models).workload_fields()
    assert llama["kv_heads"] == 8 and llama["attn_width"] == 8192
    # MLA caches one latent per token and layer: every GPU keeps it whole.
    assert find_model("deepseek-v3", models).workload_fields()["kv_heads"] == 1


def test_past_the_kv_heads_every_gpu_keeps_a_copy_of_a_head(catalog: Catalog) -> None:
    # Qwen3-235B has 4 KV heads: at TP8 each head is on two GPUs, so the 8 GPUs hold half the
    # tokens they would if the cache split 8 ways, and each decode step reads twice the bytes.
    w = serving("qwen3-235b-a22b", precision="fp8", rate_per_s=1, prompt_len=1000, output_len=1000)
    four = _one(catalog, "H200", 8, w.with_(tp=8))
    split = _one(catalog, "H200", 8, w.with_(tp=8, kv_heads=8))
    assert four.kv_cache_tokens == pytest.approx(split.kv_cache_tokens / 2, rel=1e-6)
    assert four.batch_max < split.batch_max
    # Within the heads nothing changes: TP4 splits 4 KV heads exactly.
    at4 = _one(catalog, "H200", 8, w.with_(tp=4, precision="fp8"))
    at4_split = _one(catalog, "H200", 8, w.with_(tp=4, kv_heads=8))
    assert at4.kv_cache_tokens == pytest.approx(at4_split.kv_cache_tokens, rel=1e-6)


def test_reserving_the_whole_sequence_holds_fewer_of_them(catalog: Catalog) -> None:
    w = serving("llama-3.1-8b", precision="fp8", rate_per_s=1, prompt_len=128, output_len=2048)
    demand = _one(catalog, "H100", 1, w)
    reserve = _one(catalog, "H100", 1, w.with_(kv_admission="reserve"))
    assert demand.kv_cache_tokens == pytest.approx(reserve.kv_cache_tokens)
    # on demand: 128 + 1024 tokens a sequence on average; reserved: 128 + 2048
    assert reserve.batch_max == pytest.approx(demand.batch_max * 1152 / 2176, abs=2)


def test_per_head_attention_reads_the_cache_once_per_query_head(catalog: Catalog) -> None:
    w = serving(
        "llama-2-70b", precision="fp8", rate_per_s=1, prompt_len=2048, output_len=2048, batch=64
    )
    grouped = _one(catalog, "H100", 2, w.with_(tp=2))
    per_head = _one(catalog, "H100", 2, w.with_(tp=2, attention_kernel="per-head"))
    assert per_head.kv_cache_tokens == pytest.approx(grouped.kv_cache_tokens)  # same memory
    # the capacity falls: 64 query heads over 8 KV heads read the cache 8 times
    assert per_head.capacity_tokens_per_s_per_instance < (
        0.6 * grouped.capacity_tokens_per_s_per_instance
    )
    # a model without grouped-query attention reads it once either way
    mha = serving("llama-2-7b", rate_per_s=1, prompt_len=2048, output_len=2048, batch=16)
    a = _one(catalog, "H100", 1, mha)
    b = _one(catalog, "H100", 1, mha.with_(attention_kernel="per-head"))
    assert a.capacity_tokens_per_s_per_instance == pytest.approx(
        b.capacity_tokens_per_s_per_instance
    )


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"attention_kernel": "flash"}, "unknown attention kernel"),
        ({"kv_admission": "lazy"}, "unknown KV admission"),
        ({"sampler": "beam"}, "unknown sampler"),
        ({"kv_heads": 0}, "kv_heads must be"),
        ({"attn_width": 0}, "attn_width must be"),
    ],
)
def test_bad_engine_inputs_are_one_clear_error(kw: dict[str, Any], needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        Workload(scenario="serve", params=7e9, rate_per_s=1, output_len=100, **kw)


@pytest.mark.slow
def test_the_cli_takes_the_engine_flags_and_reports_them() -> None:
    base = ("--scenario", "serve", "--model", "llama-2-70b", "--precision", "fp8")
    traffic = ("--rate", "1", "--prompt-len", "128", "--output-len", "2048")
    where = ("--gpu", "H100", "--gpus", "4", "--tp", "4", "--json")
    plain = recommend_cli(*base, *traffic, *where)
    engine = recommend_cli(
        *base, *traffic, *where, "--kv-admission", "reserve", "--attention-kernel", "per-head"
    )
    assert plain.returncode == 0 and engine.returncode == 0, plain.stderr + engine.stderr
    a, b = json.loads(plain.stdout), json.loads(engine.stdout)
    assert b["workload"]["kv_admission"] == "reserve"
    assert b["workload"]["attention_kernel"] == "per-head"
    assert a["workload"]["kv_admission"] == "on-demand"
    sa, sb = a["rows"][0]["serving"], b["rows"][0]["serving"]
    assert sb["batch_max"] < sa["batch_max"]
    assert sb["capacity_tokens_per_s_per_instance"] < sa["capacity_tokens_per_s_per_instance"]
    bad = recommend_cli(*base, *traffic, *where, "--kv-admission", "sometimes")
    assert bad.returncode == 2 and "--kv-admission" in bad.stderr
    decoder = recommend_cli(*base, *traffic, *where, "--sampler", "decoder")
    assert decoder.returncode == 0, decoder.stderr
    c = json.loads(decoder.stdout)
    assert c["workload"]["sampler"] == "decoder" and a["workload"]["sampler"] == "argmax"
    sc = c["rows"][0]["serving"]
    assert sc["capacity_tokens_per_s_per_instance"] < sa["capacity_tokens_per_s_per_instance"]


def _serving_rows() -> list[dict[str, str]]:
    text = (DATA / "published_serving.csv").read_text("utf-8")
    return list(csv.DictReader(ln for ln in text.splitlines() if not ln.startswith("#")))


def test_every_published_serving_row_says_its_source_and_engine() -> None:
    rows = _serving_rows()
    models = load_models(None)
    assert len(rows) >= 100 and len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["kind"] == "serve", r["id"]
        assert r["metric"] in ("output_tokens_per_s", "ttft_ms"), r["id"]
        # a time to first token is of one request alone
        assert r["metric"] != "ttft_ms" or (r["batch"] == "1" and r["output_len"] == "1")
        assert "github" in r["source"] and r["group"], r["id"]
        assert r["kv_admission"] in KV_ADMISSION and r["attention_kernel"] in ATTENTION_KERNELS
        assert r["sampler"] in ("", *SAMPLERS), r["id"]
        # TensorRT engines (v0.17's trtllm-bench build) sample with the C++ decoder
        assert (r["sampler"] == "decoder") == (r["group"] == "trtllm-v0.17"), r["id"]
        assert int(r["prompt_len"]) > 0 and int(r["output_len"]) > 0
        assert float(r["published"]) > 0 and int(r["gpus"]) in (1, 2, 4, 8)
        find_model(r["model"], models)  # a known architecture (raises if not)


def test_the_serving_rows_span_generations_parallelism_and_mixtures_of_experts() -> None:
    rows = _serving_rows()
    specs = load_specs()
    arch = set()
    for r in rows:
        spec = specs.get(normalize_gpu_model(r["gpu"]) or "")
        assert spec is not None, r["gpu"]
        arch.add(spec.architecture)
    assert {"Ampere", "Hopper", "Ada Lovelace"} <= arch
    assert {int(r["gpus"]) for r in rows} == {1, 2, 4, 8}
    models = load_models(None)
    kinds = {find_model(r["model"], models).kind for r in rows}
    assert kinds == {"llm", "moe"}
    assert len({r["group"] for r in rows}) >= 3
