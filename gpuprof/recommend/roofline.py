"""The GPU-seconds of an LLM training job on each candidate: the roofline of
:mod:`gpuprof.recommend.efficiency` (issue 23), before the parallel layout adds communication.

* Matmuls: the linear layers' FLOPs at the dtype's peak × the stack's GEMM share × the GPU
  generation's factor (FP8 in a stack other than the tuned default × ``fp8_other``: those
  stacks' FP8 recipes reach less of the FP8 peak than Transformer Engine's).
* Attention score/context matmuls (``12·L·h·s`` per token): at the 16-bit peak in every
  precision (Transformer Engine's FP8 recipe covers the linear layers only) × their own fitted
  share, ``attention × attention_generation`` (fused attention kernels are not GEMMs: issue 23).
* Memory-bound operators: ``k × hidden`` bytes per token per layer at
  :data:`~gpuprof.recommend.decode.MEM_BW_EFFICIENCY` of the bandwidth.
* Full activation recomputation: the linear layers and memory-bound operators ×
  ``recompute_full`` (fitted), the attention × 4/3 (its forward again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.decode import MEM_BW_EFFICIENCY
from gpuprof.recommend.efficiency import DEFAULT_STACK, TrainEfficiency
from gpuprof.recommend.workload import RECOMPUTE

if TYPE_CHECKING:
    from gpuprof.recommend.workload import Workload

__all__ = ["memory_bound_seconds", "training_work"]

Arr = npt.NDArray[np.float64]


def memory_bound_seconds(
    w: Workload, mem_bw: Arr, train_eff: TrainEfficiency, layers: int, hidden: int
) -> Arr:
    """GPU-seconds of a training job's memory-bound operators: ``k × hidden`` bytes per token
    per layer (:mod:`.efficiency`) at :data:`MEM_BW_EFFICIENCY` of the memory bandwidth."""
    per_token = train_eff.bytes_per_token_layer_hidden * float(layers) * float(hidden)
    tokens = w.work_units * (float(w.seq_len) if w.tokens is None and w.samples else 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: Arr = per_token * tokens / (mem_bw * MEM_BW_EFFICIENCY)
    return out


def training_work(
    w: Workload,
    *,
    llm: bool,
    flops: float,
    base: Arr,
    peak: Arr,
    peak16: Arr,
    mem_bw: Arr,
    train_eff: TrainEfficiency,
    layers: int,
    hidden: int,
    attention: Arr | None = None,
) -> tuple[Arr, Arr]:
    """(the job's GPU-seconds at ``base`` efficiency, of which matmuls) per candidate.

    ``peak``: FLOP/s at the job's dtype; ``peak16``: the 16-bit peak (attention);
    ``attention``: the attention matmuls' share of ``peak16`` (None: ``base``)."""
    fp8 = w.compute_dtype == "fp8"
    attn = w.attention_flops() if llm else 0.0
    linear = base * (train_eff.fp8_other if fp8 and llm and w.stack != DEFAULT_STACK else 1.0)
    attn_rate = base if attention is None else attention
    with np.errstate(divide="ignore", invalid="ignore"):
        t_attn: Arr = attn / (peak16 * attn_rate)
        matmul: Arr = (flops - attn) / (peak * linear) + t_attn
        if not llm:
            return matmul, matmul
        work: Arr = (
            matmul
            - t_attn
            + np.nan_to_num(memory_bound_seconds(w, mem_bw, train_eff, layers, hidden))
        )
        redo = train_eff.recompute_factor(w.recompute)  # the forward again, operators and all
        # Full recomputation runs the attention forward again: 4/3 of its FLOPs, whatever the
        # micro-batch (the fitted factor of the rest is less: its GEMMs grow with the batch).
        attn_redo = RECOMPUTE["full"] if w.recompute == "full" else 1.0
    return work * redo + t_attn * attn_redo, matmul
