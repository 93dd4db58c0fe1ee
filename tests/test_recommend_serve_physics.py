"""Serving physics of issue 22's second pass: chunked prefill comes in full chunks of the step's
token budget (its work does not hide under a memory-bound decode step), and GPUs without a GPU
link all-reduce over PCIe at NCCL's own figure for the link."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gpuprof.catalog.instances import Catalog
from gpuprof.commands.recommend.config import one_config_catalog
from gpuprof.recommend.rank import Recommendation, recommend, serving_arrays_of
from gpuprof.recommend.serve.step import (
    NCCL_LINK_EFFICIENCY,
    TOKEN_BUDGET,
    Hardware,
    Shape,
    allreduce_link,
    cycle_seconds,
    shape_of,
    step_seconds,
)
from gpuprof.recommend.workload import Workload
from tests.helpers.workloads import serving


def _one(catalog: Catalog, gpu: str, gpus: int, w: Workload) -> Recommendation:
    cat, nodes = one_config_catalog(catalog, gpu, gpus)
    return recommend(w.with_(nodes=nodes, node_limit=max(16, nodes), tp=gpus), cat, limit=1)


def _hw(rec: Recommendation) -> tuple[Any, int, Hardware]:
    sv, i = serving_arrays_of(rec, rec.rows[0])
    return sv, i, sv.hardware(i)


def _at_best_batch(
    catalog: Catalog, model: str, prompt_len: int
) -> tuple[Any, int, Hardware, Shape, np.ndarray]:
    """``model`` in FP8 served on one H100 with ``prompt_len``-token prompts and 500-token
    answers: its serving arrays, row, hardware, shape and best batch (as a 1-element array)."""
    w = serving(model, precision="fp8", rate_per_s=0.001, prompt_len=prompt_len, output_len=500)
    rec = _one(catalog, "H100", 1, w)
    sv, i, hw = _hw(rec)
    return sv, i, hw, shape_of(rec.workload), np.array([float(sv.batch_best[i])])


def test_prefill_comes_in_full_chunks_that_do_not_hide_under_decode(catalog: Catalog) -> None:
    # Llama 3.1 70B in FP8 on one H100 at 5000/500: few sequences fit, decode reads the weights
    # (memory bound) and each sequence brings 10 prompt tokens per step.
    sv, i, hw, s, b = _at_best_batch(catalog, "llama-3.1-70b", prompt_len=5000)
    demand = b * s.prompt / s.output
    room = TOKEN_BUDGET - b
    decode = sum(step_seconds(s, hw, b, np.zeros(1)))
    chunk = sum(step_seconds(s, hw, b, room))
    spread = sum(step_seconds(s, hw, b, demand))
    mixed = sum(cycle_seconds(s, hw, b, demand))
    # The mean step mixes decode-only steps and steps with a full chunk ...
    assert float(mixed[0]) == pytest.approx(float((decode + demand / room * (chunk - decode))[0]))
    # ... and costs more than the prompts spread thin over every step, whose compute hid under
    # the weight reads of a memory-bound step.
    m, c, _ = step_seconds(s, hw, b, np.zeros(1))
    assert float(m[0]) > float(c[0])  # decode alone is memory bound
    assert float(mixed[0]) > 1.05 * float(spread[0])
    # The estimate's capacity is b / that mean step.
    tokens_s = float(sv.tokens_s_instance[i])
    assert tokens_s == pytest.approx(float(b[0] / mixed[0]), rel=1e-6)


def test_a_decode_only_workload_is_unchanged_by_the_chunk_mix(catalog: Catalog) -> None:
    _, _, hw, s, b = _at_best_batch(catalog, "llama-3.1-8b", prompt_len=0)
    assert float(sum(cycle_seconds(s, hw, b, np.zeros(1)))[0]) == pytest.approx(
        float(sum(step_seconds(s, hw, b, np.zeros(1)))[0])
    )


def test_pcie_gpus_all_reduce_at_nccls_pcie_figure_and_nvlink_at_its_efficiency() -> None:
    intra = np.array([450e9, 32e9, 16e9, 64e9])
    gen = np.array([np.nan, 4.0, 3.0, 5.0])
    link = allreduce_link(intra, gen)
    assert link[0] == pytest.approx(450e9 * NCCL_LINK_EFFICIENCY)  # NVLink: 370 GB/s
    # NCCL's PCIe model: 12 GB/s per Gen3 x16, doubling per generation, ÷ 6/5 through the
    # host bridge (P2P TLP overhead).
    assert link[1] == pytest.approx(20e9)
    assert link[2] == pytest.approx(10e9)
    assert link[3] == pytest.approx(40e9)
    assert np.array_equal(allreduce_link(intra), intra * NCCL_LINK_EFFICIENCY)


def test_l40s_tensor_parallel_pays_the_pcie_all_reduce(catalog: Catalog) -> None:
    w = serving("llama-3.1-70b", precision="fp8", rate_per_s=0.001, prompt_len=128, output_len=2048)
    l40s = _one(catalog, "L40S", 4, w)
    sv, i, hw = _hw(l40s)
    assert float(sv.link[i]) == pytest.approx(20e9)
    h100 = _one(catalog, "H100", 4, w)
    sv_h, j, hw_h = _hw(h100)
    assert float(sv_h.link[j]) > 15 * float(sv.link[i])
    # at the same batch, communication is a larger share of an L40S step than of an H100 step
    s = shape_of(l40s.workload)
    b = np.array([256.0])
    m, c, x = cycle_seconds(s, hw, b, b * s.prompt / s.output)
    mh, ch, xh = cycle_seconds(s, hw_h, b, b * s.prompt / s.output)
    assert float((x / (m + c + x))[0]) > 1.5 * float((xh / (mh + ch + xh))[0])
    # the all-reduces: two per layer, a ring at 20 GB/s, and the all-gather of the logits of
    # the sequences that emit a token; affine in the bytes, so the mean of decode-only and
    # full-chunk steps is the ring over the mean tokens (and emitting sequences) of a step
    from gpuprof.recommend.decode import allgather_seconds, allreduce_seconds

    tokens = float(b[0] * (1 + s.prompt / s.output))
    ring = 2 * s.layers * allreduce_seconds(4.0, tokens * s.hidden * 2.0, 20e9)
    emit = float(b[0] * (1 + 1 / s.output))
    gather = allgather_seconds(4.0, emit * s.sample_gather, 20e9)
    assert s.sample_gather == 2.0 * 128256  # Llama 3.1's vocabulary, 16-bit logits
    assert float(x[0]) == pytest.approx(float(ring + gather))


@pytest.mark.parametrize("gpu", ["A100 80GB SXM", "H100"])
def test_prompt_tokens_run_at_the_generations_gemm_share_and_decode_tokens_at_the_base(
    catalog: Catalog, gpu: str
) -> None:
    from gpuprof.catalog.specs import load_specs
    from gpuprof.recommend.efficiency import DEFAULT_STACK, TRAIN_EFFICIENCY

    w = serving("llama-2-7b", precision="fp16", rate_per_s=0.001, prompt_len=2048, output_len=1)
    rec = _one(catalog, gpu, 1, w)
    sv, i, hw = _hw(rec)
    row = rec.rows[0]
    spec = load_specs()[row.instance.gpu_model]
    arch = spec.architecture
    peak = float(sv.flops[i]) / row.efficiency_base
    assert peak == pytest.approx((spec.peak_tflops("fp16") or 0) * 1e12)
    gemm = TRAIN_EFFICIENCY.gemm_share(DEFAULT_STACK) * TRAIN_EFFICIENCY.generation_share(arch)
    assert float(sv.pf_flops[i]) == pytest.approx(peak * gemm)
    att = TRAIN_EFFICIENCY.attention_share(DEFAULT_STACK, arch)
    assert float(sv.attn_flops[i]) == pytest.approx((spec.peak_tflops("bf16") or 0) * 1e12 * att)
    # A long prompt alone is compute bound: its GEMMs at the prompt rate (their dense share in
    # waves of tiles over the GPU's SMs), its causal attention (half the P x P product) at the
    # attention rate; a decode token's GEMMs at the base rate.
    from gpuprof.recommend.serve_kernels import wave_factor

    s = shape_of(rec.workload)
    p = np.array([2048.0])
    c = step_seconds(s, hw, np.zeros(1), p, ctx=0.0, prompt=2048.0)[1]
    assert float(sv.sms[i]) == spec.sm_count
    waves = float(wave_factor(p, hw.tp, np.asarray(sv.sms[i]), s.gemms)[0])
    assert 1.0 < waves < 1.1
    gemms = 2.0 * s.active * 2048.0 * (1.0 + s.gemm_share * (waves - 1.0)) / float(sv.pf_flops[i])
    attention = 4.0 * s.layers * s.attn * 2048.0 * 1024.0 / float(sv.attn_flops[i])
    assert float(c[0]) == pytest.approx(gemms + attention)
    base_only = Hardware(hw.tp, hw.pp, hw.mem_bw, hw.flops, hw.link, hw.net)
    b = np.array([4096.0])
    assert float(step_seconds(s, hw, b, np.zeros(1), ctx=0.0)[1][0]) == pytest.approx(
        float(step_seconds(s, base_only, b, np.zeros(1), ctx=0.0)[1][0])
    )


def test_a_step_with_a_prompt_pays_eager_kernel_launches_a_decode_step_does_not(
    catalog: Catalog,
) -> None:
    from gpuprof.recommend.serve import EAGER_LAYER_S

    w = serving("llama-2-7b", precision="fp8", rate_per_s=0.001, prompt_len=1, output_len=1)
    rec = _one(catalog, "H100", 1, w)
    _, _, hw = _hw(rec)
    s = shape_of(rec.workload)
    # One token either way: the same weights read, the same logits sampled; no cache to read.
    decode = step_seconds(s, hw, np.ones(1), np.zeros(1), ctx=0.0, prompt=1.0)
    prompt = step_seconds(s, hw, np.zeros(1), np.ones(1), ctx=0.0, prompt=1.0)
    assert EAGER_LAYER_S > 0.0
    assert float(prompt[0][0] - decode[0][0]) == pytest.approx(s.layers * EAGER_LAYER_S)
    assert float(prompt[2][0]) == pytest.approx(float(decode[2][0]))
