"""The all-to-all of a mixture of experts' token dispatch in training (issue 23): the bytes one
GPU of an expert-parallel group sends per dispatch or combine, over NVLink inside its node and
the network past it (:func:`moe_alltoall_seconds`), and what a node-deduplicating dispatcher
(DeepEP) saves (:func:`remote_nodes_per_token`), and the routed experts' weight traffic per
micro-batch that their small GEMMs cannot hide (:func:`expert_weight_seconds`). Used by
:mod:`gpuprof.recommend.parallel`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.decode import MEM_BW_EFFICIENCY

__all__ = ["expert_weight_seconds", "moe_alltoall_seconds", "remote_nodes_per_token"]

#: Bytes per weight each GEMM pass of a micro-batch moves: the forward (and its recomputation)
#: and the input-gradient GEMM read the 16-bit weights; the weight-gradient GEMM accumulates into
#: the FP32 main gradient, read and written (Megatron-LM's gradient-accumulation fusion and FP32
#: ``main_grads_dtype``, both on by default: megatron/training/arguments.py).
READ_BYTES = 2.0
ACCUMULATE_BYTES = 8.0

Arr = npt.NDArray[np.float64]


def remote_nodes_per_token(nodes: Arr | float, experts: int, top_k: int) -> Arr:
    """Expected number of *other* nodes a token's ``top_k`` distinct experts (of ``experts``
    spread evenly over ``nodes`` nodes, uniform random routing) fall on: ``(N − 1) × (1 −
    C(E − E/N, k) / C(E, k))``, the chance that a given remote node holds none of the picks
    being the hypergeometric's zero term."""
    n = np.maximum(np.asarray(nodes, dtype=np.float64), 1.0)
    k = max(int(top_k), 0)
    e = float(max(experts, 1))
    per_node = e / n
    miss = np.ones_like(n)
    for i in range(k):  # product over the picks without replacement
        miss = miss * np.clip((e - per_node - i) / (e - i), 0.0, 1.0)
    out: Arr = (n - 1.0) * (1.0 - miss)
    return out


def moe_alltoall_seconds(
    ep: Arr | float,
    tokens: Arr | float,
    hidden: float,
    top_k: float,
    *,
    peers_in_node: Arr | float,
    intra_bw: Arr | float,
    inter_bw: Arr | float,
    experts: int = 0,
) -> Arr:
    """One all-to-all (a dispatch or a combine) of an MoE layer on one GPU of an ``ep``-wide
    expert-parallel group: ``tokens × hidden × top_k × 2`` bytes (16-bit), ``(ep − 1) / ep`` of
    them sent away; to the ``peers_in_node − 1`` others in the node at ``intra_bw`` (NVLink)
    and to the rest at ``inter_bw`` (the GPU's share of the node's network), both at once.
    Zero for ``ep`` 1.

    ``experts`` > 0: a node-deduplicating dispatcher (DeepEP's normal kernels; DeepSeek-V3's
    own, arXiv 2412.19437 sec. 3.2.2: a token "transmitted via IB to the GPUs with the same
    in-node index on their target nodes ... instantly forwarded via NVLink"): a token crosses
    the network once per remote node holding one of its experts
    (:func:`remote_nodes_per_token`), not once per expert as the plain all-to-all sends it
    (Megatron-Core's ``alltoall`` dispatcher permutes one row per token and expert)."""
    e = np.asarray(ep, dtype=np.float64)
    nbytes = np.asarray(tokens, dtype=np.float64) * hidden * top_k * 2.0
    local = np.minimum(e, np.maximum(np.asarray(peers_in_node, dtype=np.float64), 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        near = nbytes * (local - 1.0) / e / intra_bw
        remote = nbytes * (e - local) / e
        if experts > 0 and top_k > 0:
            once = np.asarray(tokens, dtype=np.float64) * hidden * 2.0
            remote = np.minimum(
                remote, once * remote_nodes_per_token(e / local, experts, int(top_k))
            )
        far = np.where(e > local, remote / inter_bw, 0.0)
    return np.where(e > 1.0, np.maximum(near, far), 0.0)


def expert_weight_seconds(
    weights: Arr | float, compute_s: Arr | float, mem_bw: Arr | float, *, recompute: bool
) -> Arr:
    """Seconds per micro-batch that a GPU's routed-expert GEMMs wait on memory beyond their math.

    ``weights``: routed-expert weights on the GPU (elements, the pipeline stage's layers);
    ``compute_s``: those GEMMs' math per micro-batch (forward, input and weight gradients, and
    the forward again when ``recompute``, equal shares). Each pass is a roofline, the larger of
    its share of ``compute_s`` and its bytes (:data:`READ_BYTES` or :data:`ACCUMULATE_BYTES` per
    weight) at :data:`~gpuprof.recommend.decode.MEM_BW_EFFICIENCY` of ``mem_bw``; the excess is
    returned. A dense GEMM has thousands of tokens per weight and never waits: an expert's few
    hundred do (H100: the weight-gradient pass is memory-bound below ~900 tokens per expert)."""
    rate = np.asarray(mem_bw, dtype=np.float64) * MEM_BW_EFFICIENCY
    reads = 3.0 if recompute else 2.0
    share = np.asarray(compute_s, dtype=np.float64) / (reads + 1.0)
    w = np.asarray(weights, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: Arr = reads * np.maximum(w * READ_BYTES / rate - share, 0.0) + np.maximum(
            w * ACCUMULATE_BYTES / rate - share, 0.0
        )
    return np.nan_to_num(out, nan=0.0, posinf=0.0)
