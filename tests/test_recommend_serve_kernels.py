"""Serving kernels tensor parallel does not shrink (issue 22, third pass): the residual/RMSNorm
and MoE permute/finalize traffic every GPU of the group moves, tile quantization of the
routed experts' grouped GEMM, and the logits each emitted token carries through the sampler
(gpuprof/recommend/serve_kernels.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpuprof.recommend.decode import MEM_BW_EFFICIENCY, allgather_seconds
from gpuprof.recommend.serve.step import Hardware, shape_of, step_seconds
from gpuprof.recommend.serve_kernels import (
    ACT_BYTES,
    EXPERT_TILE_M,
    LOGIT_GATHER_BYTES,
    SAMPLER_BYTES_PER_VOCAB,
    WAVE_TILE,
    dense_gemms,
    expert_tile_factor,
    replicated_bytes_per_token,
    sampling_bytes_per_token,
    wave_factor,
)
from gpuprof.recommend.workload import Workload
from tests.helpers.workloads import serving


def _hw(tp: float, mem_bw: float = 4.8e12, flops: float = 1e15) -> Hardware:
    one = np.array([1.0])
    return Hardware(np.array([tp]), one, one * mem_bw, one * flops, one * 370e9, one * 50e9)


def test_a_few_tokens_per_expert_cost_a_whole_tile() -> None:
    # Two experts, top-1: 8 tokens give each expert ~4, 64 tokens ~32; both fit one 64-row
    # tile per expert, so the grouped GEMM does the same math for 8 tokens as for 64.
    padded_8 = 8.0 * float(expert_tile_factor(8.0, 2, 1)[()])
    padded_64 = 64.0 * float(expert_tile_factor(64.0, 2, 1)[()])
    assert padded_8 == pytest.approx(2 * EXPERT_TILE_M, rel=0.01)
    assert padded_64 == pytest.approx(padded_8, rel=0.01)
    # One token top-2 of 8 experts: two experts, a tile each: 64x the routed rows.
    assert float(expert_tile_factor(1.0, 8, 2)[()]) == pytest.approx(EXPERT_TILE_M, rel=0.1)


def test_the_tile_factor_falls_to_one_with_many_tokens_per_expert() -> None:
    n = np.array([1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 8192.0])
    f = expert_tile_factor(n, 8, 2)
    assert np.all(np.diff(f) < 0)  # fewer tokens per expert: more padding per token
    assert np.all(f >= 1.0)
    assert float(f[-1]) < 1.03  # Mixtral's full 8,192-token step: ~2,048 rows per expert
    assert np.all(expert_tile_factor(n, 1, 1) == 1.0)  # a dense model: no experts


def test_random_routing_imbalance_pads_more_than_an_even_split() -> None:
    # 256 tokens top-2 over 8 experts: 64 rows each if split evenly (exactly one tile, factor
    # 1); routed at random about half the experts get more than 64 and start a second tile.
    f = float(expert_tile_factor(256.0, 8, 2)[()])
    assert 1.2 < f < 1.6


def test_replicated_bytes_per_token_count_the_norms_and_the_moe_permute() -> None:
    h, layers = 4096.0, 32.0
    dense = replicated_bytes_per_token(h, layers, 0, moe=False)
    assert dense == pytest.approx(8 * h * ACT_BYTES * layers)  # two fused add + RMSNorm
    top2 = replicated_bytes_per_token(h, layers, 2, moe=True)
    assert top2 - dense == pytest.approx((2 + 2 * 2) * h * ACT_BYTES * layers)
    assert replicated_bytes_per_token(h, layers, 8, moe=True) > top2  # a copy per routed expert


def test_replicated_traffic_does_not_shrink_with_tensor_parallel() -> None:
    s = shape_of(serving("mixtral-8x7b", precision="fp8", rate_per_s=0.001))
    bare = dataclasses.replace(s, replicated=0.0)
    tokens = np.array([4096.0])
    extra = []
    for tp in (1.0, 8.0):
        with_rep = step_seconds(s, _hw(tp), tokens, np.zeros(1))[0]
        without = step_seconds(bare, _hw(tp), tokens, np.zeros(1))[0]
        extra.append(float((with_rep - without)[0]))
    expected = 4096.0 * s.replicated / (4.8e12 * MEM_BW_EFFICIENCY)
    assert extra == pytest.approx([expected, expected])
    # Its share of the step grows with the tensor-parallel size (the weights' share shrinks).
    share = [
        e / float(sum(step_seconds(s, _hw(tp), tokens, np.zeros(1)))[0])
        for e, tp in zip(extra, (1.0, 8.0), strict=True)
    ]
    assert share[1] > 2 * share[0]


def test_tile_quantization_makes_a_small_moe_step_compute_heavier() -> None:
    # Qwen3-235B: 128 experts top-8; a decode step of 64 sequences gives each expert ~4 tokens,
    # each paying a 64-row tile. With bandwidth to spare (compute bound), the weight GEMMs'
    # time grows by the routed experts' share times the tile factor; a dense model's does not.
    s = shape_of(serving("qwen3-235b-a22b", precision="fp8", rate_per_s=0.001))
    flat = dataclasses.replace(s, experts=0)
    b = np.array([64.0])
    fast_memory = _hw(8.0, mem_bw=1e18)
    tiled = float(step_seconds(s, fast_memory, b, np.zeros(1))[1][0])
    even = float(step_seconds(flat, fast_memory, b, np.zeros(1))[1][0])
    f = float(expert_tile_factor(64.0, 128, 8)[()])
    assert f > 8.0
    attn = even - 2.0 * s.active * 64.0 / (8.0 * 1e15)  # attention FLOPs, the same in both
    gemm = 2.0 * (s.active + s.expert_active * (f - 1.0)) * 64.0 / (8.0 * 1e15)
    assert tiled == pytest.approx(attn + gemm, rel=1e-9)
    assert tiled > 5.0 * even
    dense = shape_of(serving("llama-3.1-70b", precision="fp8", rate_per_s=0.001))
    assert dense.experts == 0 and dense.expert_active == 0.0


def test_every_gpu_moves_the_logits_of_each_emitted_token_by_its_sampler() -> None:
    w = serving("mixtral-8x7b", precision="fp8", rate_per_s=0.001, prompt_len=128, output_len=2048)
    s = shape_of(w)
    assert s.sample_mem == SAMPLER_BYTES_PER_VOCAB["argmax"] * 32000  # Mixtral's vocabulary
    assert s.sample_gather == LOGIT_GATHER_BYTES * 32000
    dec = shape_of(w.with_(sampler="decoder"))
    # TensorRT-LLM's decoder copies, softmaxes and samples float32 logits: more than an argmax
    assert dec.sample_mem > 2 * s.sample_mem
    b, none = np.array([3000.0]), np.zeros(1)
    for tp in (1.0, 8.0):  # every GPU of the group samples all of them: tp does not shrink it
        extra = step_seconds(dec, _hw(tp), b, none)[0] - step_seconds(s, _hw(tp), b, none)[0]
        expected = 3000.0 * (dec.sample_mem - s.sample_mem) / (4.8e12 * MEM_BW_EFFICIENCY)
        assert float(extra[0]) == pytest.approx(expected)
    # the vocabulary-parallel LM head's all-gather: only under tensor parallel
    bare = dataclasses.replace(s, sample_gather=0.0)
    assert (
        float((step_seconds(s, _hw(1.0), b, none)[2] - step_seconds(bare, _hw(1.0), b, none)[2])[0])
        == 0.0
    )
    gather = step_seconds(s, _hw(8.0), b, none)[2] - step_seconds(bare, _hw(8.0), b, none)[2]
    assert float(gather[0]) == pytest.approx(float(allgather_seconds(8.0, 3000 * 64000.0, 370e9)))
    # a prompt finished in the step emits its first token too
    chunk = np.array([1280.0])  # ten 128-token prompts
    more = (
        step_seconds(s, _hw(1.0), b, chunk)[0]
        - step_seconds(dataclasses.replace(s, sample_mem=0.0), _hw(1.0), b, chunk)[0]
    )
    assert float(more[0]) == pytest.approx(3010.0 * s.sample_mem / (4.8e12 * MEM_BW_EFFICIENCY))


def test_an_unknown_vocabulary_costs_no_sampling() -> None:
    s = shape_of(Workload("serve", params=7e9, rate_per_s=1.0, prompt_len=100, output_len=100))
    assert s.sample_mem == 0.0 and s.sample_gather == 0.0
    assert sampling_bytes_per_token(0, "decoder") == (0.0, 0.0)


def test_a_short_prompts_gemm_runs_one_partial_wave() -> None:
    # 128 tokens x a 4,096-wide projection: 32 tiles of 128 x 128, one wave on 108 SMs whose
    # other 76 SMs idle: the math takes 108 tiles' time. 8,192 tokens: 2,048 tiles in 19
    # waves, within 0.2 % of ideal. An unknown SM count leaves the math as it is.
    one = ((4096.0, 4096.0, True),)
    short = float(wave_factor(np.array(128.0), np.array(1.0), np.array(108.0), one)[()])
    assert short == pytest.approx(108.0 / 32.0)
    long = float(wave_factor(np.array(8192.0), np.array(1.0), np.array(108.0), one)[()])
    assert long == pytest.approx(19.0 * 108.0 / 2048.0)
    assert float(wave_factor(np.array(128.0), np.array(1.0), np.array(np.nan), one)[()]) == 1.0
    # One token: a shorter tile (no padded rows counted), the same 76 idle SMs.
    single = float(wave_factor(np.array(1.0), np.array(1.0), np.array(108.0), one)[()])
    assert single == pytest.approx(short)
    # Tensor parallel splits N of a column GEMM (fewer tiles per GPU: more idle SMs) but not
    # of a row GEMM (it splits K).
    col = float(wave_factor(np.array(128.0), np.array(4.0), np.array(108.0), one)[()])
    row = ((4096.0, 4096.0, False),)
    assert col == pytest.approx(108.0 / 8.0)
    assert float(wave_factor(np.array(128.0), np.array(4.0), np.array(108.0), row)[()]) == (
        pytest.approx(short)
    )
    assert WAVE_TILE == 128.0


def test_dense_gemms_recover_the_mlp_width() -> None:
    # Llama 2 7B's layer: h 4,096, MHA (K+V 8,192), MLP 11,008 (SwiGLU): QKV, output, gate,
    # up and down; a layer with no room for an MLP as wide as h keeps attention only.
    h, f = 4096.0, 11008.0
    layer = h * (2.0 * h + 2.0 * h) + 3.0 * h * f
    gemms = dense_gemms(h, h, 2.0 * h, layer)
    assert [g[0] for g in gemms] == pytest.approx([3.0 * h, h, f, f, h])
    assert [g[2] for g in gemms] == [True, False, True, True, False]
    assert len(dense_gemms(h, h, 2.0 * h, 4.0 * h * h + 3.0 * h * 100.0)) == 2


def test_wave_quantization_slows_a_short_prompt_only() -> None:
    # Llama 2 7B on 108 SMs, bandwidth to spare: a 128-token prompt's GEMM math grows by the
    # wave factor (x ~1.9), a 8,192-token chunk's barely, a decode step's not at all.
    s = shape_of(serving("llama-2-7b", precision="bf16", rate_per_s=0.001))
    base = _hw(1.0, mem_bw=1e18)
    sms = dataclasses.replace(base, sms=np.array([108.0]))
    zero = np.zeros(1)

    def ratio(b: float, prefill: float) -> float:
        with_waves = step_seconds(s, sms, np.array([b]), np.array([prefill]), ctx=0.0, prompt=1.0)
        without = step_seconds(s, base, np.array([b]), np.array([prefill]), ctx=0.0, prompt=1.0)
        return float(with_waves[1][0] / without[1][0])

    assert ratio(0.0, 128.0) > 1.6
    assert ratio(0.0, 8192.0) < 1.05
    assert ratio(64.0, 0.0) == pytest.approx(1.0)
    assert float(step_seconds(s, sms, np.array([64.0]), zero)[0][0]) == pytest.approx(
        float(step_seconds(s, base, np.array([64.0]), zero)[0][0])
    )
