"""Attention data parallel in the serving step model (issue 22, ``--attention-dp``)."""

from __future__ import annotations

import numpy as np

from gpuprof.cli import build_parser
from gpuprof.commands.recommend.args import workload_of
from gpuprof.recommend.serve.step import Hardware, shape_of, step_seconds
from tests.helpers.workloads import serving


def _hw(tp: float) -> Hardware:
    def one(x: float) -> np.ndarray:
        return np.array([[x]], dtype=np.float64)

    return Hardware(
        tp=one(tp), pp=one(1.0), mem_bw=one(4.8e12), flops=one(5e14), link=one(370e9), net=one(5e10)
    )


def _qwen(dp: bool):  # type: ignore[no-untyped-def]
    return shape_of(
        serving(
            "qwen3-235b-a22b",
            precision="fp8",
            prompt_len=128,
            output_len=2048,
            rate_per_s=1.0,
            attention_dp=dp,
        )
    )


def test_attention_dp_keeps_one_copy_of_each_kv_head() -> None:
    tp = np.array([8.0])
    assert _qwen(False).kv_copies(tp)[0] == 2.0  # 4 KV heads over 8 GPUs: replicated
    assert _qwen(True).kv_copies(tp)[0] == 1.0


def test_attention_dp_drops_the_attention_all_reduce_and_the_logits_gather() -> None:
    b = np.array([[512.0]])
    none = np.zeros_like(b)
    _, _, comm_tp = step_seconds(_qwen(False), _hw(8.0), b, none)
    _, _, comm_dp = step_seconds(_qwen(True), _hw(8.0), b, none)
    # One all-reduce's bytes per MoE layer (all-gather + reduce-scatter) instead of two
    # all-reduces per layer and the vocabulary all-gather: less than half.
    assert 0.0 < comm_dp[0, 0] < comm_tp[0, 0] / 2.0


def test_attention_dp_reads_whole_attention_weights_on_every_gpu() -> None:
    b = np.array([[1.0]])
    none = np.zeros_like(b)
    tp, dp = _qwen(False), _qwen(True)
    mem_tp, _, _ = step_seconds(tp, _hw(8.0), b, none)
    mem_dp, _, _ = step_seconds(dp, _hw(8.0), b, none)
    dense_bytes = (dp.params - dp.expert_total) * dp.wbytes
    # At batch 1 the weight reads dominate: the non-expert weights are read whole per GPU.
    assert mem_dp[0, 0] * 4.8e12 > dense_bytes * 0.5
    assert mem_dp[0, 0] != mem_tp[0, 0]


def test_the_attention_dp_flag_reaches_the_workload() -> None:
    base = ["recommend", "--scenario", "serve", "--model", "qwen3-235b-a22b", "--rate", "1"]
    args = build_parser().parse_args([*base, "--attention-dp"])
    assert workload_of(args).attention_dp is True
    assert workload_of(build_parser().parse_args(base)).attention_dp is False
