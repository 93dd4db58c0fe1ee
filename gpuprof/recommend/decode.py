"""LLM inference step times: decode, prefill and the tensor-parallel all-reduces (issue 16).

The model, per configuration of ``n`` GPUs serving ``b`` concurrent sequences (tensor parallel
across all ``n``; every array broadcasts):

* **Decode step** (one new token for each of the ``b`` sequences) takes
  ``max(compute, memory) + all-reduces``. *Memory*: every step streams the weights it uses and
  the KV cache once from HBM at :data:`MEM_BW_EFFICIENCY` of the spec bandwidth
  (``(weights read + KV cache) / n / (bw × 0.70)``); *compute*: ``2·N_active·b`` FLOPs at the
  GPU's peak × efficiency. Small batches are memory bound, large ones compute bound.
* **Mixture of experts**: a decode step reads only the experts its tokens were routed to. With
  ``a = N_active / N_total`` the share of the weights one token touches, ``b`` tokens read
  ``1 − (1 − a)^b`` of them (each parameter counted as touched independently with probability
  ``a``): the active parameters at batch 1 (gpt-fast's Mixtral gathers only the top-2 experts'
  weights per token, ``w1[expert_indices]`` in mixtral-moe/model.py), every expert at large
  batch. Memory always holds all of them.
* **Tensor-parallel all-reduces**: two per layer per step (after attention and after the MLP;
  Megatron-LM's layout, Shoeybi et al. 2019), each ``b × hidden × 2`` bytes (16-bit
  activations), timed as a ring all-reduce ``α(n) + 2(n−1)/n × bytes / link``. At decode
  sizes (kilobytes) the latency ``α(n)`` dominates; it is :data:`ALLREDUCE_LATENCY` — a fit to
  NCCL all-reduce times measured for tiny messages on one DGX-A100 (NVLink/NVSwitch) with 2 to
  8 GPUs. The all-reduces sit on the critical path of the step: they add, not overlap.
* **Prefill** (``prompt_len`` tokens per sequence, when the workload gives it): compute bound,
  ``2·N_active`` FLOPs per prompt token at peak × efficiency, plus the same two all-reduces per
  layer with the whole prompt's activations (bandwidth bound at prompt sizes). Sequences =
  generated tokens ÷ tokens generated per sequence (``seq_len − prompt_len``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "ALLREDUCE_LATENCY",
    "MEM_BW_EFFICIENCY",
    "allgather_seconds",
    "allreduce_seconds",
    "decode_step_seconds",
    "moe_read_fraction",
    "prefill_seconds",
]

Arr = npt.NDArray[np.float64]

#: Achievable fraction of peak memory bandwidth for streaming reads (decode). Checked against
#: gpt-fast (pytorch-labs/gpt-fast README): Llama-2 7B bf16 batch 1 on one A100-80GB reads
#: 13.5 GB per token at 104.9 tok/s = 1.41 TB/s = 69 % of the 2.039 TB/s spec.
MEM_BW_EFFICIENCY = 0.70

#: (α₀ seconds, seconds per ring step, source): α(n) = α₀ + per_step × 2(n−1).
ALLREDUCE_LATENCY = (
    5.56e-6,
    1.98e-6,
    "NCCL all-reduce latency for tiny messages (8-128 B, ring, one channel) measured on a "
    "DGX-A100 by all_reduce_perf: 2 GPUs 10.0, 3: 13.76, 4: 16.88, 5: 20.8, 6: 25.2, "
    "7: 29.5, 8: 33.7 us (github NVIDIA/nccl-tests issue #123); least-squares line over "
    "the ring's 2(n-1) steps: 5.56 + 1.98 x 2(n-1) us (33.3 us for 8 GPUs)",
)


def _arr(x: Arr | float) -> Arr:
    return np.asarray(x, dtype=np.float64)


def allreduce_seconds(n: Arr | float, nbytes: Arr | float, link_bytes_s: Arr | float) -> Arr:
    """One ring all-reduce of ``nbytes`` over ``n`` GPUs: ``α(n) + 2(n−1)/n × bytes / link``.

    ``link_bytes_s`` is the per-direction bandwidth of the slowest hop. Zero for one GPU.
    """
    n = _arr(n)
    alpha0, per_step, _ = ALLREDUCE_LATENCY
    steps = 2.0 * np.maximum(n - 1.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = alpha0 + per_step * steps + steps / np.maximum(n, 1.0) * _arr(nbytes) / link_bytes_s
    return np.where(n > 1.0, t, 0.0)


def allgather_seconds(n: Arr | float, nbytes: Arr | float, link_bytes_s: Arr | float) -> Arr:
    """One ring all-gather whose result is ``nbytes`` on every GPU: ``n − 1`` ring steps, each
    at the per-step latency of :data:`ALLREDUCE_LATENCY` (an all-reduce takes ``2(n − 1)``),
    plus ``(n − 1)/n × bytes / link``. Zero for one GPU."""
    n = _arr(n)
    alpha0, per_step, _ = ALLREDUCE_LATENCY
    steps = np.maximum(n - 1.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = alpha0 + per_step * steps + steps / np.maximum(n, 1.0) * _arr(nbytes) / link_bytes_s
    return np.where(n > 1.0, t, 0.0)


def moe_read_fraction(active_fraction: float, batch: Arr | float) -> Arr:
    """Share of the weights one decode step of ``batch`` tokens reads: ``1 − (1 − a)^b``.

    ``active_fraction`` is ``N_active / N_total`` (1 for a dense model → always 1).
    """
    a = min(max(float(active_fraction), 0.0), 1.0)
    b = np.maximum(_arr(batch), 1.0)
    return 1.0 - np.power(1.0 - a, b)


def decode_step_seconds(
    *,
    params: float,
    active_params: float,
    weight_bytes: float,
    kv_bytes_per_seq: float,
    layers: int,
    hidden: int,
    batch: Arr | float,
    gpus: Arr | float,
    mem_bw: Arr | float,
    flops_rate: Arr | float,
    link_bytes_s: Arr | float,
) -> tuple[Arr, Arr, Arr]:
    """(compute, memory, all-reduce) seconds of one decode step; the step takes
    ``max(compute, memory) + all-reduce``.

    ``weight_bytes`` per parameter, ``kv_bytes_per_seq`` the KV cache one sequence reads,
    ``mem_bw`` bytes/s per GPU (spec), ``flops_rate`` FLOP/s of the whole configuration
    (peak × efficiency × GPUs), ``link_bytes_s`` per direction.
    """
    b = np.maximum(_arr(batch), 1.0)
    n = np.maximum(_arr(gpus), 1.0)
    share = moe_read_fraction(active_params / params if params > 0 else 1.0, b)
    read = (params * weight_bytes * share + kv_bytes_per_seq * b) / n
    t_memory = read / (_arr(mem_bw) * MEM_BW_EFFICIENCY)
    t_compute = 2.0 * active_params * b / _arr(flops_rate)
    t_comm = 2.0 * layers * allreduce_seconds(n, b * hidden * 2.0, link_bytes_s)
    return t_compute, t_memory, t_comm


def prefill_seconds(
    *,
    active_params: float,
    layers: int,
    hidden: int,
    prompt_tokens: Arr | float,
    gpus: Arr | float,
    flops_rate: Arr | float,
    link_bytes_s: Arr | float,
) -> Arr:
    """Seconds to prefill ``prompt_tokens`` tokens of one sequence (compute + all-reduces)."""
    p = _arr(prompt_tokens)
    t_compute = 2.0 * active_params * p / _arr(flops_rate)
    t_comm = 2.0 * layers * allreduce_seconds(gpus, p * hidden * 2.0, link_bytes_s)
    return np.where(p > 0, t_compute + t_comm, 0.0)
