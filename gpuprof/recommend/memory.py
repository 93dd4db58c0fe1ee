"""GPU memory a workload needs, per GPU, for a given number of GPUs.

Choices (say them, then keep them):

* **Training** runs a parallel layout (:mod:`gpuprof.recommend.parallel` picks it): weights and
  gradients are split over the ``tp × pp`` GPUs of one model replica, the optimizer states
  over all GPUs (ZeRO stage 1 across the ``dp = gpus / (tp·pp)`` replicas; ZeRO paper,
  Rajbhandari et al. 2020, Fig. 1 ``P_os``: ``2Ψ + 2Ψ + 12Ψ/N_d``). Bytes per parameter for
  full training with Adam: 2 (bf16/fp16 weights) + 2 (grads) + 12 (4 fp32 master weights + 8
  two fp32 moments); fp32 training 4 + 4 + 8. With ``tp = pp = 1`` this is plain data
  parallelism with ZeRO-1; ``tp·pp = gpus`` shards everything (the ZeRO-3 total).
* **Activations** assume activation checkpointing with micro-batch 1 per GPU (gradient
  accumulation reaches the global batch): the saved layer inputs, ``2·s·h·L`` bytes (16-bit),
  plus one layer's working set while it is recomputed, ``34·s·h`` bytes (Korthikanti et al.
  2022, "Reducing Activation Recomputation", with flash attention so the ``5·a·s²`` term is gone),
  divided by ``tp`` (sequence parallelism splits them, same paper); a pipeline's first stage
  keeps ``p`` micro-batches of its ``ceil(L/p)`` layers in flight (1F1B), so ``pp`` leaves it
  whole when it divides ``L``; stages hold whole layers, so weights, gradients and optimizer
  states are the fullest stage's ``ceil(L/p)/L`` share.
  Per-sample workloads (CNNs, ``flops_per_sample``) get no activation term: headroom covers them.
* **LoRA**: frozen weights at the workload precision (int4 = QLoRA) sharded like full training,
  plus trainable adapters (``lora_trainable_fraction`` of N, default 0.5 %) at 16 bytes/param.
* **LLM inference**: weights + KV cache ``2·L·h·s·b·kv_bytes`` (K and V for every layer,
  sequence position and concurrent sequence), sharded over the GPUs (tensor/pipeline parallel).
  KV is 16-bit unless the precision is fp8 (1 byte) or fp32 (4), or ``kv_dtype`` says otherwise. ``h`` there stands for the K+V
  width per token and layer over two: with ``--model`` it is the architecture's own
  (``kv_heads·head_dim``, grouped-query attention: Llama-2 70B caches 8 of 64 heads, 8× less;
  DeepSeek-V3's latent attention 576 elements), see :func:`kv_bytes_per_token`; a bare
  ``--params`` assumes full multi-head attention (``2·h``), on the safe side.
* **Shape from N**: ``N ≈ 12·L·h²`` (GPT block) with ``h = 128·L`` (GPT-3 175B: L=96,
  h=12288; Llama 7B: 32, 4096) → ``L = round((N / 196608)^(1/3))``, ``h = 128·L``.
* **Headroom**: a configuration fits when the need is at most 85 % of the GPU's memory (the
  seeds' 15–20 % buffer; CUDA context, fragmentation, allocator caches).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.workload import WEIGHT_BYTES, Workload

__all__ = ["HEADROOM", "MemoryNeed", "kv_bytes_per_token", "memory_need", "model_shape"]

#: Fraction of GPU memory kept free.
HEADROOM = 0.15
GiB = float(2**30)

Arr = npt.NDArray[np.float64]


def model_shape(w: Workload) -> tuple[int, int]:
    """(layers, hidden) from the workload's overrides or ``N = 12·L·(128·L)²``."""
    if w.layers and w.hidden:
        return w.layers, w.hidden
    layers = w.layers or max(1, round((w.params / 196608.0) ** (1.0 / 3.0)))
    hidden = w.hidden or 128 * layers
    return layers, hidden


def kv_bytes_per_token(w: Workload) -> float:
    """Bytes of KV cache one token adds over all layers: ``L · (K+V elements) · bytes``."""
    layers, hidden = model_shape(w)
    elems = w.kv_per_token_layer if w.kv_per_token_layer is not None else 2.0 * hidden
    return layers * elems * w.kv_bytes


@dataclass(frozen=True)
class MemoryNeed:
    """Bytes per GPU by component (arrays broadcast like ``gpus``)."""

    weights: Arr
    grads: Arr
    optimizer: Arr
    activations: Arr
    kv_cache: Arr
    working_set: Arr

    @property
    def total(self) -> Arr:
        return (
            self.weights
            + self.grads
            + self.optimizer
            + self.activations
            + self.kv_cache
            + self.working_set
        )

    def breakdown(self, i: int = 0) -> dict[str, float]:
        names = ("weights", "grads", "optimizer", "activations", "kv_cache", "working_set")
        return {
            n: float(np.broadcast_to(getattr(self, n), self.total.shape).flat[i]) for n in names
        }


def memory_need(
    w: Workload,
    gpus: Arr | float,
    *,
    tp: Arr | float = 1.0,
    pp: Arr | float = 1.0,
    cp: Arr | float = 1.0,
    ep: Arr | float = 1.0,
    zero3: bool = False,
) -> MemoryNeed:
    """Bytes per GPU when the job runs on ``gpus`` GPUs in total (vectorized over ``gpus``).

    Training: ``tp × pp`` GPUs hold one model replica (tensor × pipeline parallel), the rest
    are data-parallel replicas with ZeRO-1 optimizer sharding (``zero3``: weights and
    gradients sharded over all GPUs too, as FSDP's FULL_SHARD). A mixture of experts' routed
    experts (``w.expert_params``) are split ``ep`` ways on top (expert parallel): their weights
    and gradients are ``÷ ep``; the optimizer states are over all GPUs either way. Inference
    shards over all GPUs.
    """
    g = np.maximum(np.asarray(gpus, dtype=np.float64), 1.0)
    tp_a = np.maximum(np.asarray(tp, dtype=np.float64), 1.0)
    pp_a = np.maximum(np.asarray(pp, dtype=np.float64), 1.0)
    mp = np.minimum(tp_a * pp_a, g)
    g = g + np.zeros_like(mp)
    zero = np.zeros_like(g)
    layers, hidden = model_shape(w)
    # Pipeline stages hold whole layers: the first (fullest) has ceil(L/p) of the L.
    stage = np.where(pp_a > 1.0, np.ceil(layers / pp_a) * pp_a / layers, 1.0)
    n = w.params * stage
    wb = WEIGHT_BYTES[w.precision]
    act_scale = 2.0 if w.precision in ("fp32", "fp64") else 1.0
    per_sample = w.flops_per_sample is not None or (
        w.samples is not None and w.tokens is None and w.scenario == "inference"
    )
    if w.is_training:
        s = float(w.seq_len)
        acts = (
            zero
            if per_sample
            else zero
            + (2.0 * s * hidden * layers * stage + 34.0 * s * hidden)
            * act_scale
            / (tp_a * np.maximum(np.asarray(cp, dtype=np.float64), 1.0))
        )
        if w.scenario == "finetune-lora":
            trainable = n * w.lora_trainable_fraction
            return MemoryNeed(
                n * wb / mp, trainable * 2.0 / mp, trainable * 14.0 / g, acts, zero, zero
            )
        wbytes = 4.0 if w.precision == "fp32" else 2.0  # fp8 training keeps 16-bit weights (TE)
        opt = 8.0 if w.precision == "fp32" else 12.0
        shard = g if zero3 else mp
        # Expert parallel: the routed experts split ep ways (already over all GPUs in ZeRO-3).
        experts = w.expert_params * stage if w.experts > 1 else 0.0
        ep_a = 1.0 if zero3 else np.maximum(np.asarray(ep, dtype=np.float64), 1.0)
        held = (n - experts) / shard + experts / (shard * ep_a)
        return MemoryNeed(held * wbytes, held * wbytes, n * opt / g, acts, zero, zero)
    if w.scenario == "inference":
        if per_sample:  # small models: every GPU holds a replica (data parallel)
            return MemoryNeed(zero + n * wb, zero, zero, zero, zero, zero)
        kv = kv_bytes_per_token(w) * float(w.seq_len) * float(w.global_batch)
        return MemoryNeed(n * wb / g, zero, zero, zero, kv / g, zero)
    # hpc-fp64 / render: the working set is split across GPUs (domain decomposition).
    return MemoryNeed(n * wb / g, zero, zero, zero, zero, w.working_set_bytes / g)
