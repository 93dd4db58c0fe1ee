"""The inference step model and FP8 attention (issue 16), with numbers worked out by hand.

Constants used below: A100 80GB SXM memory 2039 GB/s × 0.70 = 1427.3 GB/s; its bf16 peak 312
TFLOPS × 0.50 (inference base efficiency) = 156 TFLOPS; NVLink 600 GB/s both ways = 300 GB/s per
direction; NCCL all-reduce latency α(n) = 5.56 + 1.98 × 2(n−1) µs (33.28 µs on 8 GPUs).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.catalog.instances import Instance
from gpuprof.catalog.specs import load_specs
from gpuprof.errors import InputError
from gpuprof.recommend.decode import (
    Arr,
    allreduce_seconds,
    decode_step_seconds,
    moe_read_fraction,
    prefill_seconds,
)
from gpuprof.recommend.estimate import build_arrays, estimate
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer
from tests.helpers.workloads import model_workload

BW = 2039e9  # A100 80GB SXM, bytes/s
RATE_1 = 312e12 * 0.5  # one A100, bf16 at the inference base efficiency
LINK = 300e9


def _f(x: object) -> float:
    return float(np.asarray(x))


def _step(
    params: float, active: float, layers: int, hidden: int, kv_per_seq: float, **kw: float
) -> tuple[Arr, Arr, Arr]:
    n = kw.get("gpus", 1.0)
    return decode_step_seconds(
        params=params,
        active_params=active,
        weight_bytes=2.0,
        kv_bytes_per_seq=kv_per_seq,
        layers=layers,
        hidden=hidden,
        batch=kw.get("batch", 1.0),
        gpus=n,
        mem_bw=BW,
        flops_rate=RATE_1 * n,
        link_bytes_s=LINK,
    )


def test_allreduce_is_latency_plus_ring_bandwidth() -> None:
    # 8 GPUs, 8 KiB: 5.56 + 1.98 × 14 = 33.28 µs, plus 14/8 × 8192 B / 300 GB/s = 0.0478 µs.
    assert _f(allreduce_seconds(8, 8192, LINK)) == pytest.approx(33.3278e-6, rel=1e-4)
    # 2 GPUs, 1 GB: 9.52 µs + 2/2 × 1e9 / 300e9 = 3.3428533 ms (bandwidth bound).
    assert _f(allreduce_seconds(2, 1e9, LINK)) == pytest.approx(3.3428533e-3, rel=1e-6)
    assert _f(allreduce_seconds(1, 1e9, LINK)) == 0.0


def test_moe_reads_the_routed_experts_only() -> None:
    a = 12.9 / 46.7  # Mixtral 8x7B: active / total = 0.27623
    assert _f(moe_read_fraction(a, 1)) == pytest.approx(0.276231, rel=1e-5)
    # Two tokens: 1 − 0.723769² = 0.476158; many tokens: every expert.
    assert _f(moe_read_fraction(a, 2)) == pytest.approx(0.476158, rel=1e-5)
    assert _f(moe_read_fraction(a, 1000)) == pytest.approx(1.0)
    assert _f(moe_read_fraction(1.0, 1)) == 1.0  # dense


def test_batch_1_decode_of_llama2_7b_on_one_a100_is_memory_bound() -> None:
    # Weights 6.74e9 × 2 B = 13.48e9 B; KV 32 layers × 2 × 4096 × 2 B × 256 tokens = 134,217,728 B.
    kv = 32 * 2 * 4096 * 2 * 256
    c, m, comm = _step(6.74e9, 6.74e9, 32, 4096, kv)
    # (13.48e9 + 0.134e9) / 1427.3e9 = 9.5384 ms → 104.8 tokens/s (gpt-fast measured 104.9).
    assert _f(m) == pytest.approx(9.5384e-3, rel=1e-4)
    assert _f(c) == pytest.approx(2 * 6.74e9 / 156e12)  # 86.4 µs: far below
    assert _f(comm) == 0.0


def test_large_batch_decode_turns_compute_bound() -> None:
    # Batch 512 of 32-token contexts: memory (13.48e9 + 512 × 16,777,216) / 1427.3e9 = 15.463 ms;
    # compute 2 × 6.74e9 × 512 / 156e12 = 44.242 ms — the math bounds the step.
    kv = 32 * 2 * 4096 * 2 * 32
    c, m, _ = _step(6.74e9, 6.74e9, 32, 4096, kv, batch=512)
    assert _f(m) == pytest.approx(15.463e-3, rel=1e-4)
    assert _f(c) == pytest.approx(44.242e-3, rel=1e-4)
    assert _f(c) > _f(m)


def test_tensor_parallel_llama2_70b_on_8_a100s_pays_160_allreduces() -> None:
    # Weights 140e9 B / 8 = 17.5e9; KV 80 × 2 × 8 × 128 × 2 B × 256 = 83,886,080 B / 8 → memory
    # 17.5105e9 / 1427.3e9 = 12.268 ms. All-reduces: 2 × 80 × (33.28 µs + 14/8 × 16,384 B /
    # 300 GB/s) = 160 × 33.3756 µs = 5.340 ms. Step 17.608 ms → 56.8 tokens/s (published 62.5).
    kv = 80 * 2 * 8 * 128 * 2 * 256
    _, m, comm = _step(70e9, 70e9, 80, 8192, kv, gpus=8.0)
    assert _f(m) == pytest.approx(12.268e-3, rel=1e-4)
    assert _f(comm) == pytest.approx(5.3401e-3, rel=1e-4)
    assert 1.0 / (_f(m) + _f(comm)) == pytest.approx(56.79, rel=1e-3)


def test_mixtral_batch_1_on_8_a100s_reads_its_active_parameters() -> None:
    # Read (46.7e9 × 2 B × 12.9/46.7 = 25.8e9 B + KV 32 × 2048 × 2 B × 256 = 33,554,432 B) / 8
    # = 3.22919e9 B per GPU → 2.2625 ms; all-reduces 64 × 33.3278 µs = 2.1330 ms → 227.5 tok/s
    # (gpt-fast: 227.82). Reading all 46.7B weights would give 6.55 ms + 2.13 ms: 115 tok/s.
    kv = 32 * 2048 * 2 * 256
    _, m, comm = _step(46.7e9, 12.9e9, 32, 4096, kv, gpus=8.0)
    assert _f(m) == pytest.approx(2.26247e-3, rel=1e-4)
    assert _f(comm) == pytest.approx(2.13298e-3, rel=1e-4)
    assert 1.0 / (_f(m) + _f(comm)) == pytest.approx(227.5, rel=1e-3)


def test_prefill_is_compute_plus_bandwidth_bound_allreduces() -> None:
    # 70B, 8 A100s, a 1000-token prompt: 2 × 70e9 × 1000 / (8 × 156e12) = 112.18 ms; all-reduces
    # 160 × (33.28 µs + 14/8 × 1000 × 8192 × 2 B / 300 GB/s = 95.573 µs) = 20.617 ms.
    t = prefill_seconds(
        active_params=70e9,
        layers=80,
        hidden=8192,
        prompt_tokens=1000.0,
        gpus=8.0,
        flops_rate=8 * RATE_1,
        link_bytes_s=LINK,
    )
    assert _f(t) == pytest.approx(112.179e-3 + 20.617e-3, rel=1e-4)


def _one(gpu: str, count: float, mem: float = 80.0) -> Instance:
    return offer("x", gpu, count, mem, 1.0)


def _seconds(w: Workload, inst: Instance) -> float:
    specs = load_specs()
    return float(estimate(w, build_arrays([inst], specs), specs).seconds[0])


def test_the_estimator_times_gptfast_70b_tp8_as_worked_above() -> None:
    w = model_workload("inference", "llama-2-70b", tokens=1e6, seq_len=256, batch=1)
    s = _seconds(w, _one("A100 80GB SXM", 8))
    # 1e6 steps × 17.608 ms (the spec table's A100 numbers are the ones in the header).
    assert s == pytest.approx(1e6 * 17.608e-3, rel=2e-3)


def test_prefill_adds_its_time_to_the_job() -> None:
    base = model_workload("inference", "llama-2-7b", tokens=1e6, seq_len=256, batch=1)
    inst = _one("A100 80GB SXM", 1)
    # prompt 56 → 200 tokens generated per sequence → 5000 prefills of 2 × 6.74e9 × 56 FLOPs at
    # 156 TFLOPS = 4.8390 ms each: +24.195 s on one GPU (no all-reduces). And each of the 1e6
    # decode steps (memory-bound at batch 1) reads the cache at its mean length, (256 + 56) / 2
    # = 156 tokens instead of 128: 28 × 524,288 B (32 layers × 32 KV heads × 128 × K,V × 2 B)
    # more at 2,039 GB/s × 0.70 = 10.285 µs a step: +10.285 s.
    more = _seconds(base.with_(prompt_len=56), inst) - _seconds(base, inst)
    prefill = 5000 * 2 * 6.74e9 * 56 / 156e12
    decode = 1e6 * 28 * 524_288 / (2039e9 * 0.70)
    assert more == pytest.approx(prefill + decode, rel=1e-6)
    with pytest.raises(InputError):
        base.with_(prompt_len=256)


def test_fp8_training_times_attention_at_the_bf16_peak() -> None:
    w = model_workload("pretrain", "llama-3-8b", precision="fp8", tokens=1e9, seq_len=8192)
    spec = load_specs()["H100 SXM"]
    fp8, bf16 = spec.peak_tflops("fp8"), spec.peak_tflops("bf16")
    assert fp8 and bf16
    # Per token: linear 6 × 8.03e9 = 4.818e10 FLOPs in FP8, attention 12 × 32 × 4096 × 8192 =
    # 1.28849e10 in BF16; the linear layers at the stack's fitted share of their peak, the
    # attention at its own fitted share of the 16-bit peak (issue 23: fused attention kernels
    # are not GEMMs); the memory-bound operators add the same time whatever the matmul dtype.
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY as te

    g = te.gemm["tuned"] * te.generation_share("Hopper")
    a = te.attention_share("tuned", "Hopper")
    assert te.attention is not None and a == pytest.approx(
        te.attention * te.attention_generation["Hopper"]
    )
    membound = 1e9 * te.bytes_per_token_layer_hidden * 32 * 4096 / (3350e9 * 0.70)
    linear, attn = 6 * 8.03e9, 12 * 32 * 4096 * 8192
    run = 1 + te.run_overhead  # a whole pretraining run
    expected = (1e9 * (linear / (fp8 * 1e12 * g) + attn / (bf16 * 1e12 * a)) + membound) * run
    assert _seconds(w, _one("H100 SXM", 1)) == pytest.approx(expected, rel=1e-9)
    assert w.attention_flops() == pytest.approx(1e9 * attn)
    # bf16 training: the linear layers at the bf16 peak, attention as in FP8.
    wb = w.with_(precision="bf16")
    assert _seconds(wb, _one("H100 SXM", 1)) == pytest.approx(
        (1e9 * (linear / (bf16 * 1e12 * g) + attn / (bf16 * 1e12 * a)) + membound) * run,
        rel=1e-9,
    )
    # FP8 in another stack: its linear layers at fp8_other of the tuned FP8 rate (fitted), its
    # attention at that stack's own share on Hopper (attention_other, fitted).
    wf = w.with_(stack="fsdp")
    gf = te.gemm["fsdp"] * te.generation_share("Hopper")
    af = te.attention_share("fsdp", "Hopper")
    assert af < a  # FlashAttention-2-class kernels against Transformer Engine's fused attention
    expected = 1e9 * (linear / (fp8 * 1e12 * gf * te.fp8_other) + attn / (bf16 * 1e12 * af))
    assert _seconds(wf, _one("H100 SXM", 1)) == pytest.approx((expected + membound) * run)
