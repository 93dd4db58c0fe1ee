"""LLM serving: continuous batching per configuration, latency at load, replicas, cost (issue 22).

Traffic: requests arrive at ``λ`` per second (``--rate``, or ``--throughput`` output tokens/s ÷
the output length ``O``), each with a prompt of ``P`` tokens and ``O`` generated tokens (means).
For every candidate configuration — a catalog instance, a node count and a tensor-parallel size
``t`` (pipeline ``p`` = the nodes; a mixture of experts spreads its experts over the ``t`` GPUs,
expert parallel ``e = t``) — the model below gives the throughput of one engine replica, the
latency at the load it gets, the replicas the rate needs and what they cost. Everything is
numpy over the candidates × a grid of batch sizes; no per-row constant.

* **Memory**: per GPU the weights ``N·bytes/(t·p)``, the activations of one step's tokens
  (:data:`TOKEN_BUDGET` tokens × ``34·h`` bytes ÷ ``t``, one layer's working set: Korthikanti
  et al. 2022, as in :mod:`.memory`) and the KV cache in :data:`KV_FREE_FRACTION` of what is
  left. Tensor parallel splits the cache by KV head: past ``kv_heads`` GPUs each GPU keeps a
  copy of one head (a latent cache, MLA, is one head every GPU keeps).
  A sequence in flight holds on average ``P + O/2`` tokens of cache (paged attention allocates
  blocks as tokens are generated; vLLM, Kwon et al. 2023), so the cache holds
  ``b_max = KV bytes ÷ ((P + O/2) × KV bytes per token)`` sequences, at most ``--batch``
  (else :data:`~gpuprof.recommend.workload.MAX_SEQS`).
* **One engine step** (every sequence in flight advances one token; chunked prefill rides
  along): ``b`` decode tokens and, in steady state, ``b·P/O`` prompt tokens per step on
  average (each sequence brings ``P`` prompt tokens over its ``O`` steps). They come as full
  chunks of the step's token budget (``budget − b`` tokens), so a share ``(b·P/O)/(budget −
  b)`` of the steps carries a chunk and the rest only decode: the mean step is that mix
  (:func:`_cycle`), not one step with the prompts spread thin, whose compute would hide under
  a memory-bound decode. A step's time ``τ = max(memory, compute) + communication``: *memory* reads the weights once (a mixture of experts only the experts the
  step's tokens are routed to, ``1 − (1 − N_act/N)^tokens``: :mod:`.decode`) and each
  sequence's KV cache at :data:`~gpuprof.recommend.decode.MEM_BW_EFFICIENCY` of the spec
  bandwidth; *compute* is ``2·N_act`` FLOPs per token plus attention (``4·L·h`` per token per
  cached position: decode over ``P + O/2``, a prompt over ``P/2`` on average): a decode
  token's at the peak × base efficiency of the weights' dtype; a prompt token's GEMMs (large:
  a chunk's tokens are their rows) at a tuned stack's share of that peak for the GPU's
  generation and its attention at the attention kernels' share of the 16-bit peak (the
  training constants of :mod:`.efficiency`, fitted to training runs only: an A100 runs a long
  prompt at 68 % of its peak, where 50 % made the 2,048-token first tokens 40 % slow). A step
  that carries a prompt chunk also pays :data:`EAGER_LAYER_S` per layer: engines replay CUDA
  graphs for decode-only steps, a prompt's kernels are launched one by one (memory side:
  the GPU waits); *communication* two tensor-parallel all-reduces per
  layer of the step's activations (:func:`~gpuprof.recommend.decode.allreduce_seconds`, at
  :data:`NCCL_LINK_EFFICIENCY` of a GPU link's line rate: NCCL's protocol overhead; GPUs with
  no GPU link over PCIe through the host bridge at NCCL's own figure, 20 GB/s for Gen4 x16:
  :func:`allreduce_link`) and,
  across nodes, one send per pipeline boundary over the network. With ``p`` stages each of
  ``p`` micro-batches reads its stage's weights, so a GPU reads ``N·bytes/t`` per step.
  Two kernels tensor parallel does not shrink (:mod:`.serve_kernels`): *memory* also moves,
  on every GPU of the group, each token's residual + RMSNorm traffic and a mixture of
  experts' permute and finalize, ``(8 + [2 + 2k])·h`` 16-bit elements per token per layer
  (Megatron-LM duplicates layer norms and residuals across tensor-parallel GPUs, Shoeybi et
  al. 2019; TensorRT-LLM's tensor-parallel MoE gives every GPU all tokens' hidden states,
  its expert-parallelism docs); and the routed experts' GEMM FLOPs grow by the tile
  quantization of their grouped GEMM (each expert's ``m`` tokens run as ``ceil(m/64)·64``
  rows: NVIDIA's Matrix Multiplication Background guide), in expectation over uniform random
  routing. Each sequence that emits a token (the decoding ones and the prompts a step
  finishes) also carries its logits: the all-gather of the LM head's vocabulary slices
  (communication) and what the sampler moves per vocabulary entry (``--sampler``; memory, on
  every GPU of the group).
* **Throughput** of a replica at batch ``b``: ``b/τ`` output tokens/s, ``b/(O·τ)`` requests/s.
* **Latency at load** (the batch in flight follows the load by Little's law, ``b = λ_r·O·τ``):
  TPOT p50 = ``τ``; TPOT p99 = ``τ`` with the prefill of ``b + 2.33·√b`` arrivals over a
  request's life instead of ``b`` (Poisson arrivals; a request's TPOT is the mean over its
  tokens, so its tail is that of the load it meets). TTFT = the rounds its prompt needs
  (``ceil(P / (budget − b))``, each a step with that chunk) + the wait for the prefill slot,
  an M/D/1 queue (Poisson arrivals, deterministic service ``s = P·τ/(budget − b)``, load
  ``ρ = (b·P/O)/(budget − b)``): mean wait ``ρ·s/(2(1 − ρ))`` (Pollaczek–Khinchine; the mean
  stands for the median), p99 wait ``s·ln(ρ/0.01)/(1 − ρ) ÷ 2`` (the M/M/1 waiting-time tail
  ``P(W > t) = ρ·e^{−(1−ρ)t/s}``, halved for deterministic service: Kingman's heavy-traffic
  approximation scales the wait by ``(c_a² + c_s²)/2``). ``ρ ≥ 1``: the prompts outrun the
  budget; that batch cannot be sustained.
* **The batch**: the throughput-best ``b ≤ b_max`` whose TTFT and TPOT (at ``--slo`` p50 or
  p99) meet the targets; with no targets the best is the largest that runs. **Replicas**
  ``R = ceil(λ / (b*/(O·τ(b*))))``; instances ``ceil(R / replicas per instance)``; the load
  then spreads over all of them, and the row's batch, TTFT and TPOT are at that load.
* **Bound** of a row: ``latency target`` (a larger batch would miss it), ``communication``
  (the all-reduces take most of the step), ``compute``, ``memory capacity`` (the KV cache is
  full and the step is bandwidth bound: more memory would batch more), ``memory bandwidth``.
* **Cost**: instances × nodes × price per hour; per million output tokens (the ranking) and
  split by the share of step time the prompts take: per million input and per million output
  tokens (as API prices are quoted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.decode import (
    ALLREDUCE_LATENCY,
    MEM_BW_EFFICIENCY,
    allgather_seconds,
    allreduce_seconds,
    moe_read_fraction,
)
from gpuprof.recommend.memory import kv_bytes_per_token, model_shape
from gpuprof.recommend.serve_kernels import (
    expert_tile_factor,
    replicated_bytes_per_token,
    sampling_bytes_per_token,
)
from gpuprof.recommend.workload import MAX_SEQS, WEIGHT_BYTES, Workload

__all__ = [
    "BOUNDS",
    "EAGER_LAYER_S",
    "KV_FREE_FRACTION",
    "TOKEN_BUDGET",
    "ServeArrays",
    "ServeConfig",
    "serve_estimates",
    "tp_options",
]

Arr = npt.NDArray[np.float64]

#: Share of the memory left after the weights and one step's activations that the engine gives
#: its KV cache: TensorRT-LLM's default ``free_gpu_memory_fraction`` (KvCacheConfig; its
#: published benchmarks use 0.95). Serving engines own their GPUs: no training-style headroom.
KV_FREE_FRACTION = 0.9
#: Share of a link's line rate NCCL moves data at: "450GB/s is the line rate. With the protocol
#: overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s" (NCCL's maintainer,
#: github NVIDIA/nccl-tests issue #212, on H100). The tensor-parallel all-reduces run at it.
NCCL_LINK_EFFICIENCY = 370.0 / 450.0
#: A PCIe link as NCCL models it (NVIDIA/nccl src/graph/topo.cc, ``kvDictPciGen``: a lane's
#: rate in 100 Mb/s units — 60 at 8 GT/s, doubling each generation — × the width ÷ 80): 12 GB/s
#: for a Gen3 x16 link (topo.h: ``PCI_BW 12.0 // PCI Gen3 x16``), 24 GB/s for Gen4, 48 for
#: Gen5. Its NVLink figure is the same kind of number: ``SM90_NVLINK_BW 20.6`` GB/s × 18 links
#: = the 370 GB/s above, so it already counts the protocol's overhead.
NCCL_PCI_GEN3_X16 = 12e9
#: GPU-to-GPU traffic through the host bridge costs more PCIe bandwidth than the data it moves:
#: "Intel CPU convert GPU P2P traffic into 64B PCI TLPs, so GPU to GPU traffic consumes more PCI
#: bandwidth" (NCCL topo.h, ``INTEL_P2P_OVERHEAD(bw) = bw*6/5``). GPUs without a GPU link
#: (L40S, L4, A10) meet through it in the servers clouds rent.
P2P_TLP_OVERHEAD = 6.0 / 5.0
#: Tokens one engine step takes (decode + prefill chunk): TensorRT-LLM's default
#: ``max_num_tokens`` (8192, tensorrt_llm BuildConfig / LLM API); vLLM's chunked prefill
#: budget ``max_num_batched_tokens`` is of the same order.
TOKEN_BUDGET = 8192.0
#: Activation bytes per token of a step per unit of hidden size: one layer's working set,
#: ``34·s·h`` (Korthikanti et al. 2022, as :mod:`.memory` uses for training).
ACT_BYTES_PER_TOKEN_HIDDEN = 34.0
#: The batch sizes tried per configuration (geometric, 1 … MAX_SEQS) plus its own b_max.
BATCH_GRID = np.unique(np.round(np.geomspace(1.0, float(MAX_SEQS), 72)))
#: With no TTFT target, replicas are sized for at most this share of their capacity: near
#: capacity the queue's wait grows as 1 / (1 − load) (M/D/1), so some headroom is the norm.
MAX_LOAD = 0.9
#: Seconds a layer's kernels cost per step beyond their work when launched one by one (no CUDA
#: graph): vLLM's CUDA graphs took a batch-1 decode step of Llama 2 7B (32 layers) from 1.2 s to
#: 1.05 s per 100 tokens (github vllm-project/vllm PR #1440): 1.5 ms a step, 47 us a layer.
#: Engines capture graphs for decode-only steps (vLLM, TensorRT-LLM's GptSession, LoRAX "only
#: during the decoding steps", predibase/lorax PR #154); a step that carries a prompt chunk
#: launches its kernels from the host, and for a short prompt that cost is most of the step.
EAGER_LAYER_S = 1.5e-3 / 32.0
#: Standard normal quantile of 0.99.
Z99 = 2.326
#: Tensor-parallel sizes tried inside a node.
TP_SIZES = (1, 2, 4, 8)
#: What limits a row, in the order the model names them.
BOUNDS = ("latency target", "communication", "compute", "memory capacity", "memory bandwidth")


@dataclass(frozen=True)
class ServeConfig:
    """One layout of a candidate: ``tp`` GPUs × ``pp`` nodes per replica, ``dp`` replicas on
    each group of ``nodes`` instances (arrays broadcast over candidates)."""

    nodes: int
    tp: Arr
    pp: Arr
    dp: Arr
    valid: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ServeArrays:
    """The serving estimate of every candidate (NaN where unknown); one chosen layout each."""

    nodes: Arr
    tp: Arr
    pp: Arr
    ep: Arr
    dp: Arr  # replicas per instance group
    fits: npt.NDArray[np.bool_]
    need_bytes: Arr  # per GPU at b_max (weights + activations + KV)
    batch_max: Arr  # sequences the KV cache holds (and the engine allows)
    batch_best: Arr  # the throughput-best batch meeting the targets
    batch: Arr  # sequences in flight at the row's load
    kv_tokens: Arr  # KV-cache capacity of one replica, tokens
    replicas: Arr
    instances: Arr
    req_s_replica: Arr  # capacity of one replica at batch_best, requests/s
    tokens_s_instance: Arr  # output tokens/s one instance group sustains at batch_best
    load: Arr  # λ ÷ the capacity of all the instances
    ttft_p50_s: Arr
    ttft_p99_s: Arr
    tpot_p50_s: Arr
    tpot_p99_s: Arr
    prefill_share: Arr  # of the step time at load, for the input/output cost split
    meets: npt.NDArray[np.bool_]  # the latency targets (True when none)
    bound_idx: npt.NDArray[np.int64]  # into BOUNDS
    step_s: Arr  # τ at load
    t_memory_s: Arr
    t_compute_s: Arr
    t_comm_s: Arr
    #: The chosen layout's hardware per GPU (for :mod:`gpuprof.recommend.trace`).
    mem_bw: Arr
    flops: Arr
    link: Arr
    net: Arr
    pf_flops: Arr  # the prompt tokens' GEMMs
    attn_flops: Arr  # the prompt tokens' attention


def tp_options(count: Arr, nodes: int) -> list[ServeConfig]:
    """Layouts per candidate: one node runs ``count / t`` replicas of ``t`` GPUs each (``t`` in
    :data:`TP_SIZES`, ≤ the GPUs; a GPU partition runs one replica); several nodes run
    pipeline-parallel replicas over all of them with ``t`` = the node's GPUs (at most 8, the
    rest as more replicas)."""
    count = np.asarray(count, dtype=np.float64)
    whole = np.maximum(np.floor(count), 1.0)
    out = []
    if nodes == 1:
        for t in TP_SIZES:
            valid = (count >= t) | ((t == 1) & (count > 0))
            valid &= (whole % t == 0) | (count < 1)
            dp = np.where(count < 1, 1.0, np.floor(whole / t))
            out.append(ServeConfig(1, np.full_like(count, t), np.ones_like(count), dp, valid))
        return out
    tp = np.minimum(whole, 8.0)
    valid = (count >= 1) & (whole % tp == 0)
    out.append(ServeConfig(nodes, tp, np.full_like(count, float(nodes)), whole / tp, valid))
    return out


@dataclass(frozen=True)
class _Shape:
    """The workload's numbers the step model needs (scalars)."""

    params: float
    active: float
    wbytes: float
    kv_token: float  # bytes per token over all layers
    layers: int
    hidden: int
    prompt: float
    output: float
    kv_heads: float  # pieces tensor parallel can split the cache into (inf: any number)
    attn: float  # query heads × head size
    kv_read: float  # bytes read per cached byte in a decode step (per-head kernels: the group)
    held: float  # cached tokens the scheduler holds per sequence in flight
    experts: int  # routed experts (0: dense)
    top_k: int
    expert_active: float  # routed-expert parameters one token uses (``expert_params·k/E``)
    replicated: float  # bytes per token every tensor-parallel GPU moves: .serve_kernels
    sample_mem: float  # bytes per emitted token every GPU moves for its logits: .serve_kernels
    sample_gather: float  # bytes of one emitted token's logits all-gathered across the group

    @property
    def ctx(self) -> float:
        """Mean cached tokens of a sequence in flight."""
        return self.prompt + self.output / 2.0

    def kv_copies(self, tp: Arr) -> Arr:
        """Copies of each KV head a tensor-parallel group keeps: beyond ``kv_heads`` GPUs every
        GPU still holds a whole head (vLLM and TensorRT-LLM replicate it)."""
        return np.maximum(tp / self.kv_heads, 1.0)


def _shape(w: Workload) -> _Shape:
    layers, hidden = model_shape(w)
    attn = float(w.attn_width or hidden)
    kv_layer = w.kv_per_token_layer if w.kv_per_token_layer is not None else 2.0 * hidden
    grouped = w.attention_kernel == "grouped" or (w.kv_heads or 2) < 2 or kv_layer <= 0
    moe = w.experts > 1 and w.top_k > 0 and w.expert_params > 0
    sample_mem, sample_gather = sampling_bytes_per_token(w.vocab, w.sampler)
    return _Shape(
        params=w.params,
        active=w.params_per_token,
        wbytes=WEIGHT_BYTES[w.precision],
        kv_token=kv_bytes_per_token(w),
        layers=layers,
        hidden=hidden,
        prompt=float(w.prompt_len),
        output=float(max(w.gen_len, 1)),
        kv_heads=float(w.kv_heads) if w.kv_heads else math.inf,
        attn=attn,
        kv_read=1.0 if grouped else max(2.0 * attn / kv_layer, 1.0),
        held=(
            float(w.prompt_len) + float(max(w.gen_len, 1)) / 2.0
            if w.kv_admission == "on-demand"
            else float(w.prompt_len + max(w.gen_len, 1))
        ),
        experts=w.experts if moe else 0,
        top_k=w.top_k if moe else 0,
        expert_active=w.expert_params * w.top_k / w.experts if moe else 0.0,
        replicated=replicated_bytes_per_token(hidden, layers, w.top_k, moe),
        sample_mem=sample_mem,
        sample_gather=sample_gather,
    )


@dataclass(frozen=True)
class _Hw:
    """Per-candidate hardware of one layout, columns (n, 1) to broadcast over the batch grid."""

    tp: Arr
    pp: Arr
    mem_bw: Arr
    flops: Arr  # per GPU, peak × base efficiency
    link: Arr  # tensor-parallel all-reduce bandwidth per direction
    net: Arr  # pipeline send bandwidth per GPU across nodes
    #: Per GPU: the prompt tokens' weight GEMMs (None: ``flops``) and their attention's rate.
    pf_flops: Arr | None = None
    attn_flops: Arr | None = None


def _step(
    s: _Shape,
    hw: _Hw,
    b: Arr,
    prefill: Arr,
    *,
    ctx: Arr | float | None = None,
    prompt: Arr | float | None = None,
) -> tuple[Arr, Arr, Arr]:
    """(memory-bound, compute-bound, communication) seconds of one step of ``b`` decode tokens
    and ``prefill`` prompt tokens on one replica; the step takes their sum.

    Per-kernel roofline: the weight GEMMs take ``max(weights read, 2·N_act·tokens FLOPs)`` and
    attention ``max(KV read, attention FLOPs)``; they run one after the other, so the step
    adds the two (a single max over the whole step would let attention's KV reads hide under
    the GEMMs' math, which no engine's kernels do). Each term counts as memory- or compute-
    bound by which side of its max wins. ``ctx`` (cached tokens per decoding sequence) and
    ``prompt`` (the prompt length prefill attends over) default to the traffic's means."""
    ctx = s.ctx if ctx is None else ctx
    prompt = s.prompt if prompt is None else prompt
    tokens = b + prefill
    per_micro = tokens / hw.pp
    bw = hw.mem_bw * MEM_BW_EFFICIENCY
    rate = hw.tp * hw.pp * hw.flops
    pf_rate = rate if hw.pf_flops is None else hw.tp * hw.pp * hw.pf_flops
    attn_rate = rate if hw.attn_flops is None else hw.tp * hw.pp * hw.attn_flops
    share = moe_read_fraction(s.active / s.params if s.params > 0 else 1.0, per_micro)
    w_mem = s.params * s.wbytes * share / hw.tp / bw
    tile = expert_tile_factor(per_micro, s.experts, s.top_k) if s.experts else 1.0
    w_comp = 2.0 * (s.active + s.expert_active * (tile - 1.0)) * (b / rate + prefill / pf_rate)
    rep_mem = tokens * s.replicated / hw.pp / bw
    # Sequences that emit a token: the decoding ones and the prompts this step finishes. Their
    # logits are sampled on the last stage only, so a pipeline does not split this.
    emit = b + np.where(np.asarray(prompt) > 0, prefill / np.maximum(prompt, 1.0), 0.0)
    rep_mem = rep_mem + emit * s.sample_mem / bw
    kv_mem = b * ctx * s.kv_token * s.kv_read * s.kv_copies(hw.tp) / (hw.tp * hw.pp) / bw
    kv_comp = 4.0 * s.layers * s.attn * (b * ctx / rate + prefill * prompt / 2.0 / attn_rate)
    t_mem = np.where(w_mem >= w_comp, w_mem, 0.0) + np.where(kv_mem >= kv_comp, kv_mem, 0.0)
    # A step with prompt tokens runs eagerly (CUDA graphs replay decode batches only): its
    # layers' kernel launches show between the kernels, time the GPU waits (with the memory
    # side: neither math nor a link).
    t_mem = t_mem + rep_mem + np.where(np.asarray(prefill) > 0, s.layers * EAGER_LAYER_S, 0.0)
    t_comp = np.where(w_mem < w_comp, w_comp, 0.0) + np.where(kv_mem < kv_comp, kv_comp, 0.0)
    act = per_micro * s.hidden * 2.0
    t_comm = 2.0 * s.layers * allreduce_seconds(hw.tp, act, hw.link)
    if s.sample_gather > 0:
        gather = allgather_seconds(hw.tp, emit * s.sample_gather, hw.link)
        t_comm = t_comm + np.where(emit > 0, gather, 0.0)
    hop = ALLREDUCE_LATENCY[0] + act / hw.tp / hw.net
    t_comm = t_comm + np.where(hw.pp > 1, (hw.pp - 1.0) * hop, 0.0)
    return t_mem, t_comp, t_comm


def _cycle(s: _Shape, hw: _Hw, b: Arr, demand: Arr) -> tuple[Arr, Arr, Arr]:
    """(memory, compute, communication) seconds of the mean step of ``b`` decoding sequences
    when prompts arrive at ``demand`` tokens per step: chunked prefill fills a step's token
    budget with prompt chunks (``budget − b`` tokens: TensorRT-LLM's scheduler and vLLM's
    chunked prefill both fill ``max_num_tokens`` / ``max_num_batched_tokens``), so a share
    ``demand / (budget − b)`` of the steps carries a full chunk and the rest decode only. The
    mean is that mix, not one step with the prompts spread thin over every step: a chunk is
    compute bound, and its work cannot hide under the weight reads of a memory-bound decode
    step (spread thin, it would)."""
    room = np.maximum(TOKEN_BUDGET - b, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.clip(demand / room, 0.0, 1.0)
    d = _step(s, hw, b, np.zeros_like(b * room))
    full = _step(s, hw, b, room + 0.0 * b)
    return tuple(d0 + share * (f0 - d0) for d0, f0 in zip(d, full, strict=True))  # type: ignore[return-value]


def _queue_wait(rho: Arr, service: Arr) -> tuple[Arr, Arr]:
    """(mean, p99) wait of an M/D/1 queue at load ``rho`` with service time ``service``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(rho > 0, rho * service / (2.0 * (1.0 - rho)), 0.0)
        p99 = np.where(
            rho > 0.01, service * np.log(np.maximum(rho, 0.01) / 0.01) / (1.0 - rho) / 2.0, 0.0
        )
    busy = rho >= 1.0
    return np.where(busy, np.inf, mean), np.where(busy, np.inf, p99)


def _latency(
    s: _Shape, hw: _Hw, b: Arr, tau: Arr, rho_c: Arr
) -> tuple[Arr, Arr, Arr, Arr, npt.NDArray[np.bool_]]:
    """(TTFT p50, TTFT p99, TPOT p50, TPOT p99, sustainable) at batch ``b`` in steady state,
    the replica's compute at ``rho_c`` of its capacity."""
    room = TOKEN_BUDGET - b
    demand = b * s.prompt / s.output
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(s.prompt > 0, demand / room, 0.0)
        ok = (room > 0) & (rho < 1.0)
        chunk = np.minimum(s.prompt, np.maximum(room, 1.0))
        rounds = np.maximum(np.ceil(s.prompt / np.maximum(room, 1.0)), 1.0)
        m, c, x = _step(s, hw, b, np.maximum(demand, chunk))
        tau_pf = m + c + x
        # Two queues a prompt can wait in: for room in the step's token budget, and for the
        # replica's compute when it runs near capacity; the longer wait counts.
        budget_mean, budget_99 = _queue_wait(rho, s.prompt * tau / np.maximum(room, 1.0))
        alone = _step(s, hw, np.zeros_like(b), np.full_like(b, s.prompt))[1]
        comp_mean, comp_99 = _queue_wait(rho_c, alone)
        first = rounds * tau_pf
        m, c, x = _cycle(s, hw, b, demand * (1.0 + Z99 / np.sqrt(np.maximum(b, 1.0))))
        tpot99 = m + c + x
    ttft50 = np.where(ok, first + np.maximum(budget_mean, comp_mean), np.inf)
    ttft99 = np.where(ok, first + np.maximum(budget_99, comp_99), np.inf)
    return ttft50, ttft99, tau, np.where(ok, tpot99, np.inf), ok


def _meets(
    w: Workload, ttft50: Arr, ttft99: Arr, tpot50: Arr, tpot99: Arr
) -> npt.NDArray[np.bool_]:
    ttft = ttft99 if w.slo_percentile == "p99" else ttft50
    tpot = tpot99 if w.slo_percentile == "p99" else tpot50
    ok = np.ones(np.shape(ttft), dtype=bool)
    if w.ttft_s is not None:
        ok &= ttft <= w.ttft_s
    if w.tpot_s is not None:
        ok &= tpot <= w.tpot_s
    return ok


def _layout_eval(
    w: Workload,
    s: _Shape,
    cfg: ServeConfig,
    usable: Arr,
    hw: _Hw,
    lam: float,
) -> dict[str, Arr]:
    """The serving numbers of one layout for every candidate (1-D arrays)."""
    devices = cfg.tp * cfg.pp
    weights = s.params * s.wbytes / devices
    acts = TOKEN_BUDGET * ACT_BYTES_PER_TOKEN_HIDDEN * s.hidden / cfg.tp
    free = np.maximum(usable - weights - acts, 0.0) * KV_FREE_FRACTION
    kv_room = free * devices / s.kv_copies(cfg.tp)
    kv_tokens = kv_room / s.kv_token if s.kv_token > 0 else np.full_like(usable, np.inf)
    cap = float(w.batch) if w.batch is not None else float(MAX_SEQS)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_max = np.minimum(np.floor(kv_tokens / s.held), cap)
    fits = cfg.valid & (b_max >= 1.0) & np.isfinite(hw.mem_bw) & np.isfinite(hw.flops)
    b_max = np.where(fits, b_max, 1.0)
    grid = np.minimum(BATCH_GRID[None, :], b_max[:, None])
    grid = np.concatenate([grid, b_max[:, None]], axis=1)
    col = _Hw(
        hw.tp[:, None],
        hw.pp[:, None],
        hw.mem_bw[:, None],
        hw.flops[:, None],
        hw.link[:, None],
        hw.net[:, None],
        None if hw.pf_flops is None else hw.pf_flops[:, None],
        None if hw.attn_flops is None else hw.attn_flops[:, None],
    )
    demand = grid * s.prompt / s.output
    m, c, x = _cycle(s, col, grid, demand)
    tau = m + c + x
    runs = _latency(s, col, grid, tau, np.zeros_like(grid))[4]
    with np.errstate(divide="ignore", invalid="ignore"):
        req_s = np.where(runs, grid / (s.output * tau), 0.0)
        cap = req_s.max(axis=1, initial=0.0)
        rho_c = req_s / cap[:, None]
    ttft50, ttft99, tpot50, tpot99, runs = _latency(s, col, grid, tau, rho_c)
    meets = _meets(w, ttft50, ttft99, tpot50, tpot99) & runs
    # The throughput-best batch that meets the targets (ties: the larger); none meets → the
    # throughput-best that runs, flagged.
    any_meets: npt.NDArray[np.bool_] = np.asarray(meets.any(axis=1), dtype=bool)
    pick_from = np.where(any_meets[:, None], meets, runs)
    score = np.where(pick_from, req_s, -1.0)
    best_j = score.shape[1] - 1 - np.argmax(score[:, ::-1], axis=1)
    rows = np.arange(len(usable))
    b_best = grid[rows, best_j]
    cap_req = req_s[rows, best_j]
    runs_any = runs.any(axis=1)
    fits &= runs_any
    # A larger batch that runs but misses a target: the target bounds this row.
    larger_runs = (runs & (grid > b_best[:, None])).any(axis=1)
    target_bound = any_meets & larger_runs & (req_s.max(axis=1, initial=0.0) > cap_req * 1.001)
    dp = np.maximum(cfg.dp, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # No TTFT target: leave the queue MAX_LOAD of the capacity (its wait ~ 1/(1 - load)).
        usable_req = cap_req * (MAX_LOAD if w.ttft_s is None else 1.0)
        replicas = np.maximum(np.ceil(lam / usable_req * (1.0 - 1e-9)), 1.0)
        instances = np.ceil(replicas / dp)
        lam_r = lam / (instances * dp)
    b_load = _batch_at(grid, req_s, runs & (grid <= b_best[:, None]), lam_r, b_best)
    dem_l = b_load * s.prompt / s.output
    m_l, c_l, x_l = _cycle(s, hw, b_load, dem_l)
    tau_l = m_l + c_l + x_l
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_load = np.minimum(lam_r / cap, 1.0)
    t50, t99, p50, p99, _ = _latency(s, hw, b_load, tau_l, rho_load)
    m_d, c_d, x_d = _step(s, hw, b_load, np.zeros_like(b_load))
    tau_decode = m_d + c_d + x_d
    with np.errstate(divide="ignore", invalid="ignore"):
        prefill_share = np.where(tau_l > 0, np.clip(1.0 - tau_decode / tau_l, 0.0, 1.0), 0.0)
    meets_row = _meets(w, t50, t99, p50, p99) & any_meets
    # The bound at the chosen batch.
    m_b, c_b, x_b = _cycle(s, hw, b_best, b_best * s.prompt / s.output)
    bound = np.where(
        target_bound,
        0,
        np.where(
            x_b > m_b + c_b,
            1,
            np.where(c_b >= m_b, 2, np.where(b_best >= b_max, 3, 4)),
        ),
    ).astype(np.int64)
    need = weights + acts + b_max * s.held * s.kv_token * s.kv_copies(cfg.tp) / devices
    cap_tokens = cap_req * s.output * cfg.dp
    with np.errstate(divide="ignore", invalid="ignore"):
        load = lam / (cap_req * instances * cfg.dp)
    return {
        "fits": fits.astype(np.float64),
        "need": need,
        "b_max": b_max,
        "b_best": b_best,
        "b_load": b_load,
        "kv_tokens": kv_tokens,
        "replicas": replicas,
        "instances": instances,
        "req_s": cap_req,
        "tokens_s": cap_tokens,
        "load": load,
        "ttft50": t50,
        "ttft99": t99,
        "tpot50": p50,
        "tpot99": p99,
        "prefill_share": prefill_share,
        "meets": meets_row.astype(np.float64),
        "bound": bound.astype(np.float64),
        "step": tau_l,
        "t_mem": m_l,
        "t_comp": c_l,
        "t_comm": x_l,
    }


def _batch_at(grid: Arr, req_s: Arr, ok: npt.NDArray[np.bool_], lam_r: Arr, b_best: Arr) -> Arr:
    """The mean batch in flight when a replica gets ``lam_r`` requests/s: where the capacity
    curve ``req_s(b)`` (nondecreasing in ``b``) reaches it, linear between grid points; below
    the first point the load is a fraction of a sequence (Little's law at ``τ(1)``)."""
    rows = np.arange(grid.shape[0])
    reach = np.where(ok, req_s, -np.inf) >= lam_r[:, None]
    j = np.argmax(reach, axis=1)
    found = reach[rows, j]
    j0 = np.maximum(j - 1, 0)
    r0, r1 = req_s[rows, j0], req_s[rows, j]
    g0, g1 = grid[rows, j0], grid[rows, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = g0 + np.clip((lam_r - r0) / (r1 - r0), 0.0, 1.0) * (g1 - g0)
        light = g1 * lam_r / r1
    out = np.where(j > 0, np.where(r1 > r0, between, g1), light)
    return np.where(found & np.isfinite(out), out, b_best)


def allreduce_link(intra_bw: Arr, pcie_gen: Arr | None = None) -> Arr:
    """The bandwidth (bytes/s per direction) a tensor-parallel all-reduce moves data at inside
    a node: a GPU link at :data:`NCCL_LINK_EFFICIENCY` of its line rate; GPUs that meet only
    over PCIe (``pcie_gen`` not NaN) at NCCL's figure for their link
    (:data:`NCCL_PCI_GEN3_X16` × 2^(gen − 3)) ÷ :data:`P2P_TLP_OVERHEAD`: 20 GB/s for Gen4 x16."""
    link = np.asarray(intra_bw, dtype=np.float64) * NCCL_LINK_EFFICIENCY
    if pcie_gen is None:
        return link
    gen = np.asarray(pcie_gen, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        pcie = NCCL_PCI_GEN3_X16 * np.power(2.0, gen - 3.0) / P2P_TLP_OVERHEAD
    return np.where(np.isnan(gen), link, pcie)


def serve_estimates(
    w: Workload,
    *,
    count: Arr,
    mem_bytes: Arr,
    mem_bw: Arr,
    flops_per_gpu: Arr,
    intra_bw: Arr,
    net_bw_node: Arr,
    node_options: list[int],
    pcie_gen: Arr | None = None,
    prefill_flops_per_gpu: Arr | None = None,
    attention_flops_per_gpu: Arr | None = None,
) -> ServeArrays:
    """The serving estimate of every candidate (``count`` GPUs per node, per-GPU arrays).

    ``flops_per_gpu`` is the peak for the weights' dtype × the base efficiency. Per candidate
    the layout (node count, tensor parallel) with the most output tokens/s per node that fits
    and meets the targets wins; more nodes only where fewer do not fit.
    """
    s = _shape(w)
    lam = w.requests_per_s
    usable = mem_bytes  # the KV cache takes KV_FREE_FRACTION of what is left
    per_node = np.maximum(np.ceil(count), 1.0)
    best: dict[str, Arr] | None = None
    # Tensor parallel stays inside a node; pipeline hops cross the network.
    link = allreduce_link(intra_bw, pcie_gen)
    for n in node_options:
        for cfg in tp_options(count, n):
            valid = cfg.valid & (np.isfinite(net_bw_node) if n > 1 else True)
            if w.tp is not None:  # asked for: that tensor-parallel size only
                valid = valid & (cfg.tp == w.tp)
            cfg = ServeConfig(cfg.nodes, cfg.tp, cfg.pp, cfg.dp, valid)
            hw = _Hw(
                cfg.tp,
                cfg.pp,
                mem_bw,
                flops_per_gpu,
                link,
                net_bw_node / per_node,
                prefill_flops_per_gpu,
                attention_flops_per_gpu,
            )
            cand = _layout_eval(w, s, cfg, usable, hw, lam)
            cand.update(tp=cfg.tp, pp=cfg.pp, dp=cfg.dp, nodes=np.full_like(count, float(n)))
            cand.update(hw_link=link + 0.0 * count, hw_net=net_bw_node / per_node)
            if best is None:
                best = cand
                continue
            fits_new, fits_old = cand["fits"] > 0, best["fits"] > 0
            meets_new = cand["meets"] > 0
            meets_old = best["meets"] > 0
            per_node_new = cand["tokens_s"] / n
            per_node_old = best["tokens_s"] / best["nodes"]
            same_nodes = best["nodes"] == n
            better = fits_new & (
                ~fits_old
                | (same_nodes & meets_new & ~meets_old)
                | (same_nodes & (meets_new == meets_old) & (per_node_new > per_node_old))
            )
            for k in best:
                best[k] = np.where(better, cand[k], best[k])
    assert best is not None
    moe = w.active_params is not None and w.active_params < w.params
    return ServeArrays(
        nodes=best["nodes"],
        tp=best["tp"],
        pp=best["pp"],
        ep=best["tp"] if moe else np.ones_like(best["tp"]),
        dp=best["dp"],
        fits=best["fits"] > 0,
        need_bytes=best["need"],
        batch_max=best["b_max"],
        batch_best=best["b_best"],
        batch=best["b_load"],
        kv_tokens=best["kv_tokens"],
        replicas=best["replicas"],
        instances=best["instances"],
        req_s_replica=best["req_s"],
        tokens_s_instance=best["tokens_s"],
        load=best["load"],
        ttft_p50_s=best["ttft50"],
        ttft_p99_s=best["ttft99"],
        tpot_p50_s=best["tpot50"],
        tpot_p99_s=best["tpot99"],
        prefill_share=best["prefill_share"],
        meets=best["meets"] > 0,
        bound_idx=best["bound"].astype(np.int64),
        step_s=best["step"],
        t_memory_s=best["t_mem"],
        t_compute_s=best["t_comp"],
        t_comm_s=best["t_comm"],
        mem_bw=mem_bw,
        flops=flops_per_gpu,
        link=best["hw_link"],
        net=best["hw_net"],
        pf_flops=flops_per_gpu if prefill_flops_per_gpu is None else prefill_flops_per_gpu,
        attn_flops=flops_per_gpu if attention_flops_per_gpu is None else attention_flops_per_gpu,
    )


def finite(x: float) -> float | None:
    """``x`` or None when it is not a finite number."""
    return float(x) if math.isfinite(x) else None
