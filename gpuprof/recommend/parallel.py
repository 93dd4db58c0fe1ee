"""Training on a cluster: the parallel layout and the time of one optimizer step (issue 16).

A job runs on ``nodes`` instances of ``n`` GPUs each (``G = nodes × n``). For every layout of
tensor (``t``), pipeline (``p``) and data (``d``) parallelism the step time is costed as below;
the estimate keeps, per candidate, the fastest layout whose memory fits (:func:`train_layout`).

* **Layout** (Megatron-LM's rank order: tensor innermost, then data, then pipeline): ``t`` in
  1, 2, 4, 8 and at most the GPUs of one node (tensor parallelism stays on NVLink), ``p`` a
  power of two or a multiple of the node count, at most the layer count, and
  ``d = floor(G / (t·p))`` model replicas (GPUs left over idle). Stages hold whole layers:
  when ``p`` does not divide ``L`` the fullest stage has ``ceil(L/p)`` of them and every
  micro-batch waits for it (its compute, all-reduces, gradients and memory are costed).
  Optimizer states are sharded over the data-parallel group (ZeRO stage 1, Rajbhandari et al.
  2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", Fig. 1
  ``P_os``: ``2Ψ + 2Ψ + 12Ψ/N_d``); see :func:`gpuprof.recommend.memory.memory_need`.
* **Micro-batches**: LLM training runs micro-batches of one sequence; a replica does
  ``m = B / d`` of them per step (``B`` = global batch). A pipeline stage takes ``τ`` per
  micro-batch and the step ``(m + p − 1) · τ``: the 1F1B schedule's bubble is ``(p − 1)/m`` of
  the ideal time (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
  Clusters Using Megatron-LM", sec. 2.2.1; no interleaving assumed). Per-sample workloads (CNNs)
  are data parallel only, one micro-batch of ``B / d`` samples per GPU.
* **Tensor parallel**: ``τ`` = compute + per layer of the stage four all-reduces (two forward,
  two backward: the ``f``/``g`` operators of Shoeybi et al. 2019, "Megatron-LM", sec. 3) of
  ``s × h × 2`` bytes (16-bit activations) among the ``t`` GPUs on NVLink. They sit on the
  critical path (no overlap of tensor-parallel communication with the GEMMs is assumed;
  Transformer Engine can overlap part of it when enabled).
* **Pipeline**: each micro-batch sends its activations forward and its gradients back once per
  stage boundary, ``s × h × 2 / t`` bytes per GPU (the scatter/gather optimization, Narayanan
  et al. 2021 sec. 4.1), over the network when the job spans nodes; added to ``τ``.
* **Data parallel**: gradients ``2 bytes × N_trainable / (t·p)`` per GPU, a ring all-reduce
  over ``d`` GPUs: ``2(d−1)/d × bytes / busbw`` (nccl-tests doc/PERFORMANCE.md: an all-reduce's
  bus bandwidth is its algorithm bandwidth × 2(n−1)/n, comparable to the hardware's peak link
  bandwidth). ZeRO-1 splits it into a reduce-scatter and an all-gather of half the time each
  (same volume as the all-reduce: ZeRO paper sec. 7.2.1). **Overlap**: the reduce-scatter runs
  during the last micro-batch's backward pass (2/3 of its compute: backward = 2× forward), the
  all-gather during the first micro-batch's forward (1/3); only the part beyond those windows is
  exposed (bucketed gradient reduction overlapped with backward computation: Li et al. 2020,
  "PyTorch Distributed: Experiences on Accelerating Data Parallel Training", VLDB, sec. 3.2.3;
  with gradient accumulation the reduction happens at the last micro-batch only, DDP's
  ``no_sync``; Megatron-LM ``--overlap-grad-reduce`` / ``--overlap-param-gather``).
* **Bandwidths**: inside a node the spec's NVLink/NVSwitch figure per direction (else PCIe);
  across nodes the instance's network (``network_gbps`` of the catalog, e.g. p5.48xlarge 3,200
  Gbit/s = 400 GB/s per node) shared by the ``t`` data-parallel groups that cross each node
  (one ring per NIC rail: the node's links carry a ring's inter-node traffic together), at most
  the NVLink figure — line rate, an upper bound: nccl-tests across nodes measure less.
  Pipeline sends use the node's network ÷ its GPUs.

* **Stacks** (issue 23, ``Workload.stack``): ``fsdp`` (llm-foundry / Composer) is data
  parallel only with the weights sharded too (ZeRO-3: FSDP FULL_SHARD; its all-gathers and
  reduce-scatter, 1.5 all-reduces of volume per step, prefetched under the step's compute);
  ``torchtitan`` shards like FSDP but also takes tensor and pipeline parallelism; ``tuned``
  (Megatron-LM / NeMo) and ``torchtitan`` interleave pipeline stages, ``v`` = 2 or 4 virtual
  stages per GPU where the layers split evenly (bubble ``(p − 1)/v``, ``v`` × the pipeline
  sends), and split sequences of 8,192 tokens and more over ``c`` = 2, 4, 8 GPUs (context
  parallel: activations ÷ ``c``, each layer's K/V passed around the ring forward and back,
  gradients reduced over the data × context parallel GPUs).

* **Expert parallel** (issue 23; a mixture of experts, ``Workload.experts``, in the ``tuned`` and
  ``torchtitan`` stacks): ``e`` = 1, 2, 4 … up to the experts (dividing them) GPUs of the
  data × context parallel group split the routed experts (Megatron-Core's
  ``--expert-model-parallel-size``, rank order tp-cp-ep-dp-pp: the EP group is a sub-group of
  data parallel), or, for ``e`` beyond ``d·c``, of the tensor × data × context GPUs with whole
  experts per GPU (moe/README.md "MoE Parallel Folding", expert tensor parallel 1). The routed
  experts' weights and gradients are ``÷ e`` on each GPU (the dense part and shared experts as before; the
  distributed optimizer already shards every state over all GPUs); their gradients are reduced
  over the ``d·c / e`` GPUs that hold the same experts, the dense part's over ``d·c``. Every
  MoE layer (every layer of the stage assumed one: DeepSeek-V3 has 58 of 61) adds four
  all-to-alls per micro-batch (dispatch and combine, forward and backward; Megatron-Core's
  ``alltoall`` token dispatcher) of ``tokens × hidden × top_k × 2`` bytes per GPU (16-bit
  activations; the GPU's ``s / (t·c)`` tokens under sequence parallelism), ``(e − 1) / e`` of
  them leaving the GPU: over NVLink to the EP peers in the node (``n / (t·c)`` of them), over
  the GPU's share of the node's network to the rest (:func:`moe_alltoall_seconds`); on the
  critical path (no overlap with the expert GEMMs assumed: DeepSeek's DualPipe hides them,
  Megatron-Core's default does not). Compute uses the active parameters (``6·N_active``),
  balanced over the experts. The search picks ``e`` like the other sizes: the fastest that fits.
  A layout can say ``etp1`` (expert tensor parallel 1: whole experts per GPU, the EP group
  folded over tensor × data parallel even where data parallel alone would hold it, so EP8
  under TP4 sits in one node) and ``deepep`` (a dispatcher that sends a token across the
  network once per remote node holding one of its experts and forwards it over NVLink there:
  DeepEP; DeepSeek-V3's report sec. 3.2.2), both as the Megatron-MoE ModelZoo states its runs.
  Each micro-batch also reads the GPU's routed-expert weights twice (forward, input gradient;
  three times under full recomputation) and accumulates their FP32 gradients: with a few
  hundred tokens per expert those passes are memory-bound, the excess is added
  (:func:`~gpuprof.recommend.moe_dispatch.expert_weight_seconds`, when the GPU's bandwidth is given).

* **A layout given** (issue 23, ``Workload.layout``; ``perf/truth.py`` costs each published
  run at its own, e.g. NeMo's ``"tp4 pp8 cp1 vp6 mbs2"``): those sizes only, the rest searched.
  ``mbsN``: N sequences per micro-batch (a replica's batch in fewer micro-batches, so a bigger
  bubble: torchtitan splits it into as many as there are stages); ``overlap``: the tensor-
  parallel all-reduces hidden under the GEMMs they feed (torchtitan's AsyncTP, Megatron-Core's
  ``--tp-comm-overlap``), only what exceeds the micro-batch's compute exposed. Checked as
  ratios within torchtitan's H100 runs: 70B TP8 without / with AsyncTP 829 / 876 tokens/s/GPU,
  405B 1F1B / interleaved 100 / 128 (docs/performance.md Tables 4, 5). The search itself
  assumes no overlap (whether a stack enables it is per run).

Checked against NVIDIA NeMo's published GPT-3 175B runs on 128 and 512 H100 (TP4 PP8; ``perf/
truth.py``). For scale: published large-run MFU on H100 is 38–43 % in BF16 (Llama 3 405B on 8K
to 16K H100: 43 %, 41 %, 38 %; Dubey et al. 2024, "The Llama 3 Herd of Models", arXiv
2407.21783, Table 4), which this model reaches with 1,024 H100 on p5 (base 45 % × scaling).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.decode import allreduce_seconds
from gpuprof.recommend.memory import memory_need
from gpuprof.recommend.moe_dispatch import (
    expert_weight_seconds,
    moe_alltoall_seconds,
    remote_nodes_per_token,
)
from gpuprof.recommend.workload import Workload

__all__ = [
    "EP_STACKS",
    "LAYOUT_FLAGS",
    "LAYOUT_WORDS",
    "TP_SIZES",
    "TrainLayout",
    "moe_alltoall_seconds",
    "pinned_layout",
    "remote_nodes_per_token",
    "row_groups",
    "train_layout",
]

Arr = npt.NDArray[np.float64]

#: Tensor-parallel sizes tried (within one node).
TP_SIZES = (1, 2, 4, 8)
#: Backward share of a micro-batch's compute (forward 2N, backward 4N FLOPs per token).
BACKWARD_SHARE = 2.0 / 3.0
#: All-reduces per transformer layer per micro-batch (two forward, two backward).
TP_ALLREDUCES_PER_LAYER = 4.0
#: Stacks whose data parallelism shards the weights too (FSDP FULL_SHARD / FSDP2): ZeRO-3.
FULL_SHARD_STACKS = frozenset({"fsdp", "torchtitan"})
#: Stacks that scale by data parallelism alone (llm-foundry/Composer FSDP: no tensor or
#: pipeline parallelism).
DATA_PARALLEL_ONLY = frozenset({"fsdp"})
#: Stacks that interleave pipeline stages (Megatron-LM / NeMo, torchtitan).
INTERLEAVING_STACKS = frozenset({"tuned", "torchtitan"})
#: Stacks that split a sequence over GPUs (context parallelism), and from what length.
CONTEXT_PARALLEL_STACKS = frozenset({"tuned", "torchtitan"})
CP_MIN_SEQ = 8192
#: Stacks with expert parallelism for a mixture of experts (Megatron-Core / NeMo, torchtitan).
EP_STACKS = frozenset({"tuned", "torchtitan"})
#: Largest expert-parallel size tried (DeepSeek-V3 trained with 64, its paper sec. 3.2.1).
EP_MAX = 256
#: All-to-alls per MoE layer per micro-batch: dispatch and combine, forward and backward.
EP_ALLTOALLS_PER_LAYER = 4.0


@dataclass(frozen=True)
class TrainLayout:
    """The chosen layout per candidate and its time (arrays, one entry per candidate)."""

    tp: Arr
    pp: Arr
    dp: Arr
    seconds: Arr  # whole job
    scaling: Arr  # ideal (all GPUs computing, nothing else) ÷ seconds
    need: Arr  # bytes per GPU
    fits: npt.NDArray[np.bool_]
    cp: Arr  # context parallel size (issue 23)
    vp: Arr  # virtual pipeline stages per GPU (interleaved 1F1B)
    ep: Arr  # expert parallel size (a mixture of experts; 1 for a dense model)

    def take(self, rows: npt.NDArray[np.intp]) -> TrainLayout:
        """These entries at ``rows`` (e.g. a shared evaluation spread back over its rows)."""
        return TrainLayout(**{k: getattr(self, k)[rows] for k in self.__dataclass_fields__})


@dataclass(frozen=True)
class LayoutInputs:
    """What the layout search reads of each candidate (arrays, one entry per candidate)."""

    per_node: Arr  # GPUs per node (fractional for a GPU partition)
    work: Arr  # the job's GPU-seconds at base efficiency (compute only)
    intra_bw: Arr  # bytes/s per GPU per direction inside a node
    net_bw_node: Arr  # bytes/s of one node's network (NaN unknown)
    usable: Arr  # bytes of memory per GPU
    mem_bw: Arr  # bytes/s of each GPU's memory (NaN: the experts' weight traffic not costed)

    def groups(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """:func:`row_groups` of these arrays: candidates alike in all of them are costed once."""
        return row_groups(*(getattr(self, k) for k in self.__dataclass_fields__))

    def take(self, rows: npt.NDArray[np.intp]) -> LayoutInputs:
        """The candidates at ``rows``."""
        return LayoutInputs(**{k: getattr(self, k)[rows] for k in self.__dataclass_fields__})


#: Words of a layout text (:func:`pinned_layout`): sizes, and ``overlap``.
LAYOUT_WORDS = ("tp", "pp", "cp", "vp", "ep", "etp", "mbs")
#: Words without a size: ``overlap`` (tensor-parallel communication under the GEMMs) and
#: ``deepep`` (a node-deduplicating MoE dispatcher: :func:`moe_alltoall_seconds`).
LAYOUT_FLAGS = ("overlap", "deepep")


def pinned_layout(text: str) -> dict[str, int]:
    """What a layout text fixes: ``"TP4 PP8 CP2 VP4"`` → ``{"tp": 4, "pp": 8, "cp": 2, "vp":
    4}``; ``epN``: N-way expert parallel (a mixture of experts); ``mbsN``: N sequences per micro-batch (torchtitan splits a replica's batch into as
    many micro-batches as pipeline stages); ``overlap``: tensor-parallel communication
    overlapped with the GEMMs (torchtitan's AsyncTP, Megatron-Core's ``tp_comm_overlap``);
    ``deepep``: the MoE dispatch sends a token once per remote node (DeepEP). Case and order free (:class:`~gpuprof.recommend.workload.Workload` refuses other words)."""
    out: dict[str, int] = {}
    for word in text.lower().replace(",", " ").split():
        if word in LAYOUT_FLAGS:
            out[word] = 1
            continue
        key = word.rstrip("0123456789")
        num = word[len(key) :]
        if key in LAYOUT_WORDS and num.isdigit() and int(num) >= 1:
            out[key] = int(num)
    return out


def _cp_options(w: Workload) -> tuple[int, ...]:
    """Context-parallel sizes tried: 1, and 2, 4, 8 for long sequences in stacks that split
    them (Megatron-Core / NeMo ``context_parallel_size``, torchtitan's CP)."""
    if w.stack not in CONTEXT_PARALLEL_STACKS or w.seq_len < CP_MIN_SEQ:
        return (1,)
    return (1, 2, 4, 8)


def _ep_options(w: Workload) -> tuple[int, ...]:
    """Expert-parallel sizes tried: 1, and for a mixture of experts in a stack that has expert
    parallelism the powers of two that divide its routed experts, up to :data:`EP_MAX`."""
    if w.experts < 2 or w.stack not in EP_STACKS:
        return (1,)
    return tuple(
        e for e in (2**i for i in range(9)) if e <= min(w.experts, EP_MAX) and not w.experts % e
    )


def _virtual_options(p: int, layers: int, stack: str) -> tuple[int, ...]:
    """Virtual pipeline stages per GPU tried: 1, and for stacks that interleave (Megatron's
    ``--num-layers-per-virtual-pipeline-stage``, torchtitan's interleaved 1F1B) 2 and 4 where
    the layers split evenly into ``p × v`` chunks."""
    if p <= 1 or stack not in INTERLEAVING_STACKS:
        return (1,)
    return tuple(v for v in (1, 2, 4) if v == 1 or layers % (p * v) == 0)


def _pp_options(layers: int, nodes: int) -> list[int]:
    opts = {1}
    p = 2
    while p <= layers:
        opts.add(p)
        p *= 2
    for k in (1, 2, 4, 8):
        if nodes * k <= layers:
            opts.add(nodes * k)
    return sorted(opts)


def train_layout(
    w: Workload,
    *,
    per_sample: bool,
    per_node: Arr,
    nodes: int,
    work: Arr,
    intra_bw: Arr,
    net_bw_node: Arr,
    usable: Arr,
    layers: int,
    hidden: int,
    groups: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None,
    mem_bw: Arr | None = None,
) -> TrainLayout:
    """The fastest layout that fits, per candidate (the smallest memory need when none fits).

    The arrays are :class:`LayoutInputs`' (``mem_bw`` None: the experts' weight traffic is not
    costed). Catalog rows that differ only in price or region share one evaluation (``groups``:
    the :func:`row_groups` of those arrays, when the caller has them already).
    """
    bw = np.full_like(work, np.nan) if mem_bw is None else mem_bw
    cand = LayoutInputs(per_node, work, intra_bw, net_bw_node, usable, bw)
    first, inverse = groups if groups is not None else cand.groups()
    if len(first) < len(per_node):
        return _layouts(w, per_sample, nodes, cand.take(first), layers, hidden).take(inverse)
    return _layouts(w, per_sample, nodes, cand, layers, hidden)


def row_groups(*cols: Arr) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """(first row of each distinct combination of ``cols``, each row's combination)."""
    keys = [np.nan_to_num(np.asarray(c, dtype=np.float64), nan=-1.0, posinf=-2.0) for c in cols]
    order = np.lexsort(keys[::-1])
    ranked = np.stack([k[order] for k in keys])
    new = np.ones(len(order), dtype=bool)
    new[1:] = (ranked[:, 1:] != ranked[:, :-1]).any(axis=0)
    ids = np.cumsum(new) - 1
    inverse = np.empty(len(order), dtype=np.intp)
    inverse[order] = ids
    return order[new], inverse


def _layouts(
    w: Workload, per_sample: bool, nodes: int, cand: LayoutInputs, layers: int, hidden: int
) -> TrainLayout:
    per_node, work, usable = cand.per_node, cand.work, cand.usable
    intra_bw, net_bw_node, mem_bw = cand.intra_bw, cand.net_bw_node, cand.mem_bw
    g_total = per_node * float(nodes)
    s = 1.0 if per_sample else float(w.seq_len)
    seqs = max(w.work_units / s, 1e-12)
    batch = min(float(w.global_batch), seqs)
    steps = max(seqs / batch, 1.0)
    batch = seqs / steps
    work_seq = work / seqs  # GPU-seconds per sequence (sample)
    part = np.where(g_total < 1.0, 1.0 / np.maximum(g_total, 1e-12), 1.0)  # GPU partitions
    trainable = w.params * (w.lora_trainable_fraction if w.scenario == "finetune-lora" else 1.0)
    act = s * hidden * 2.0  # one sequence's activations, 16-bit
    inter = net_bw_node / np.maximum(per_node, 1.0)
    ideal = work / np.maximum(g_total, 1e-12)
    zero3 = not per_sample and w.stack in FULL_SHARD_STACKS
    tps = (1,) if per_sample or w.stack in DATA_PARALLEL_ONLY else TP_SIZES
    pps = [1] if per_sample or w.stack in DATA_PARALLEL_ONLY else _pp_options(layers, nodes)
    g_max = float(np.max(g_total, initial=1.0))
    cps = (1,) if per_sample else _cp_options(w)
    eps = (1,) if per_sample else _ep_options(w)
    pin = pinned_layout(w.layout) if not per_sample else {}
    # A layout held fixed (a published run's): its sizes whatever the stack's own search tries.
    tps = (pin["tp"],) if "tp" in pin else tps
    pps = [pin["pp"]] if "pp" in pin else pps
    cps = (pin["cp"],) if "cp" in pin else cps
    eps = (pin["ep"],) if "ep" in pin and w.experts > 1 else eps  # a dense model has no experts
    every = [
        (t, p, v, c, e)
        for t in tps
        for c in cps
        for p in pps
        for v in ((pin["vp"],) if "vp" in pin and p > 1 else _virtual_options(p, layers, w.stack))
        for e in eps
    ]
    # Those that some candidate has the GPUs for (EP folded over tensor parallel needs p·c·e;
    # the exact check per candidate is ``valid``); all of them when none (a layout held fixed
    # that no candidate can run: every candidate then says it does not fit).
    quads = [
        (t, p, v, c, e)
        for t, p, v, c, e in every
        if (t * p * c == 1 or t * p * c <= g_max) and (e == 1 or p * c * max(e, t) <= g_max)
    ] or every
    # Every layout at once: rows are layouts (K x 1), columns candidates (1 x N).
    t = np.array([[float(q[0])] for q in quads])
    p = np.array([[float(q[1])] for q in quads])
    v = np.array([[float(q[2])] for q in quads])
    c = np.array([[float(q[3])] for q in quads])
    e = np.array([[float(q[4])] for q in quads])
    mp = t * p
    valid = (np.mod(np.maximum(per_node, 1.0), t) == 0) & ((per_node >= t) | (t == 1.0))
    valid &= (mp * c <= g_total) | (mp * c == 1.0)
    d = np.maximum(np.floor(g_total / (mp * c)), 1.0)
    # The EP group is carved from data × context parallel, the experts split t ways too (expert
    # tensor parallel = t); or, past d·c, from tensor × data × context with whole experts
    # (Megatron-Core's MoE parallel folding, expert tensor parallel 1: e.g. TP2 EP32 on 256
    # GPUs at PP8). ``ep_shard``: the routed experts' split beyond the t·p of the dense part.
    fold = (np.mod(d * c, e) != 0) | ((pin.get("etp", 0) == 1) & (e > 1.0))
    valid &= (np.mod(t * d * c, e) == 0) | (e == 1.0)
    ep_shard = np.where(fold, e / t, e)
    mb = batch / d if per_sample else np.full_like(d, float(pin.get("mbs", 1)))  # per micro-batch
    m = np.maximum(batch / (d * mb), 1.0)
    # Stages hold whole layers: the step waits for the fullest, ceil(L / p) of them.
    stage_layers = np.ceil(layers / p)
    fullest = stage_layers * p / layers  # its share of the model ÷ 1/p (1 when p divides L)
    tau_c = work_seq * mb * part / (mp * c) * fullest
    local = act / c  # a context-parallel GPU holds s / c of the sequence's tokens
    tau_tp = np.where(
        t > 1.0,
        stage_layers * TP_ALLREDUCES_PER_LAYER * allreduce_seconds(t, local, intra_bw),
        0.0,
    )
    pp_link = inter if nodes > 1 else intra_bw
    # Context parallel (ring attention): per layer, every chunk's K and V pass the c − 1
    # other GPUs in the forward and their gradients in the backward, on NVLink while t × c
    # GPUs fit in a node, else over the network; costed on the critical path (ring attention
    # overlaps part of it with the attention).
    cp_link = np.where((t * c > per_node) & (nodes > 1), np.minimum(intra_bw, inter), intra_bw)
    kv = w.kv_per_token_layer if w.kv_per_token_layer is not None else 2.0 * hidden
    cp_bytes = 2.0 * (c - 1.0) / c * s * kv * 2.0 / t
    with np.errstate(divide="ignore", invalid="ignore"):
        # Interleaved: each micro-batch crosses v times as many stage boundaries.
        tau_pp = np.where(p > 1.0, 2.0 * local / t / pp_link * v, 0.0)
        tau_cp = np.where(c > 1.0, stage_layers * cp_bytes / cp_link, 0.0)
    if "overlap" in pin:  # tensor-parallel communication hidden under the GEMMs it feeds
        tau_tp = np.maximum(tau_tp - tau_c, 0.0)
    # Expert parallel: each MoE layer's dispatch and combine, forward and backward. Whole
    # experts per GPU (folded) take consecutive ranks, whatever the attention's TP and CP:
    # Megatron-Core orders the expert grid etp-ep-dp-pp apart from the attention's (MoE
    # parallel folding, arXiv 2504.14960), so EP8 stays in a node under TP4 CP8; unfolded, the
    # EP group strides over the tensor × context parallel GPUs.
    tau_ep = (
        stage_layers
        * EP_ALLTOALLS_PER_LAYER
        * moe_alltoall_seconds(
            e,
            mb * s / (c * t),
            float(hidden),
            float(w.top_k),
            peers_in_node=np.maximum(per_node, 1.0) / np.where(fold, 1.0, t * c),
            intra_bw=intra_bw,
            inter_bw=inter if nodes > 1 else intra_bw,
            experts=w.experts if "deepep" in pin else 0,
        )
        if w.experts > 1
        else np.zeros_like(tau_c)
    )
    # The routed experts' weight reads and FP32 gradient accumulation per micro-batch beyond
    # what their GEMMs' math hides (:func:`expert_weight_seconds`); the math is the experts'
    # share of the FLOPs (6 × their active weights per token), balanced like the rest.
    tau_w = np.zeros_like(tau_c)
    if w.experts > 1 and w.expert_params > 0.0 and not per_sample:
        active = w.expert_params * w.top_k / w.experts
        share = min(6.0 * active * w.work_units / max(w.total_flops(), 1e-30), 1.0)
        tau_w = expert_weight_seconds(
            w.expert_params / (mp * ep_shard) * fullest,
            tau_c * share,
            mem_bw,
            recompute=w.recompute == "full",
        )
    tau = tau_c + tau_tp + tau_pp + tau_cp + tau_ep + tau_w
    # 1F1B: the bubble is (p − 1) micro-batch times; interleaved over v virtual stages per
    # GPU, (p − 1) / v (Narayanan et al. 2021 sec. 2.2.2).
    pipeline = (m + (p - 1.0) / v) * tau
    # Data-parallel group: inside the node while t·d GPUs fit in it, else across nodes.
    across = (t * d > per_node) & (nodes > 1)
    dp_bw = np.where(across, np.minimum(intra_bw, net_bw_node / t), intra_bw)
    # Gradients are reduced over the data × context parallel GPUs (they hold the same weights).
    # (the fullest stage's); a mixture of experts' routed experts over the d·c / e GPUs that
    # hold the same experts, 1/e of them each.
    expert = trainable * (w.expert_params / w.params if w.experts > 1 else 0.0)
    t_dp = allreduce_seconds(d * c, 2.0 * (trainable - expert) / mp * fullest, dp_bw)
    if expert > 0.0:
        t_dp = t_dp + allreduce_seconds(
            d * c / ep_shard, 2.0 * expert / (mp * ep_shard) * fullest, dp_bw
        )
    if zero3:
        # FSDP FULL_SHARD: the weights are all-gathered for the forward and again for the
        # backward, the gradients reduce-scattered: 1.5 all-reduces' volume per step,
        # prefetched under the step's compute (one round per step assumed: gradient
        # accumulation without re-gathering).
        exposed = np.maximum(1.5 * t_dp - m * tau_c, 0.0)
    else:
        exposed = np.maximum(t_dp / 2.0 - BACKWARD_SHARE * tau_c, 0.0) + np.maximum(
            t_dp / 2.0 - (1.0 - BACKWARD_SHARE) * tau_c, 0.0
        )
    step = pipeline + exposed
    seconds = np.where(valid, steps * step, math.inf)
    need = np.where(
        valid,
        memory_need(w, d * mp * c, tp=t, pp=p, cp=c, ep=ep_shard, zero3=zero3).total,
        math.inf,
    )
    fits = valid & (need <= usable)
    # The fastest layout that fits; where none fits, the one that needs the least memory.
    any_fits = fits.any(axis=0)
    # (A GPU without a rate for the dtype has NaN seconds: any layout that fits beats none.)
    key = np.where(any_fits, np.where(fits, np.nan_to_num(seconds, nan=1e300), math.inf), need)
    pick = np.argmin(key, axis=0)[None, :]

    def at(a: Arr) -> Arr:
        out: Arr = np.take_along_axis(np.broadcast_to(a, key.shape), pick, axis=0)[0]
        return out

    with np.errstate(divide="ignore", invalid="ignore"):
        best = {
            "tp": at(t),
            "pp": at(p),
            "cp": at(c),
            "vp": at(v),
            "ep": at(e),
            "dp": at(d),
            "seconds": at(seconds),
            "need": at(need),
            "fits": at(fits.astype(np.float64)),
        }
        scaling = np.where(np.isfinite(best["seconds"]), ideal / best["seconds"], np.nan)
    return TrainLayout(
        tp=best["tp"],
        pp=best["pp"],
        dp=best["dp"],
        seconds=best["seconds"],
        scaling=scaling,
        need=best["need"],
        fits=best["fits"] > 0,
        cp=best["cp"],
        vp=best["vp"],
        ep=best["ep"],
    )
