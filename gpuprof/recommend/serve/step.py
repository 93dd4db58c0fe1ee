"""One engine step of a serving replica: its memory, compute and communication seconds (issue 22).

The step model of :mod:`gpuprof.recommend.serve` (continuous batching, vectorized over the
candidates × a grid of batch sizes; no per-row constant):

* **One engine step** (every sequence in flight advances one token; chunked prefill rides
  along): ``b`` decode tokens and, in steady state, ``b·P/O`` prompt tokens per step on average
  (each sequence brings ``P`` prompt tokens over its ``O`` steps). They come as full chunks of
  the step's token budget (``budget − b`` tokens), so a share ``(b·P/O)/(budget − b)`` of the
  steps carries a chunk and the rest only decode: the mean step is that mix
  (:func:`cycle_seconds`), not one step with the prompts spread thin, whose compute would hide
  under a memory-bound decode. A step's time ``τ = max(memory, compute) + communication``:
  *memory* reads the weights once (a mixture of experts only the experts the step's tokens are
  routed to, ``1 − (1 − N_act/N)^tokens``: :mod:`~gpuprof.recommend.decode`) and each
  sequence's KV cache at :data:`~gpuprof.recommend.decode.MEM_BW_EFFICIENCY` of the spec
  bandwidth; *compute* is ``2·N_act`` FLOPs per token plus attention (``4·L·h`` per token per
  cached position: decode over ``P + O/2``, a prompt over ``P/2`` on average): a decode token's
  at the peak × base efficiency of the weights' dtype; a prompt token's GEMMs (large: a chunk's
  tokens are their rows) at a tuned stack's share of that peak for the GPU's generation and its
  attention at the attention kernels' share of the 16-bit peak (the training constants of
  :mod:`~gpuprof.recommend.efficiency`, fitted to training runs only: an A100 runs a long
  prompt at 68 % of its peak, where 50 % made the 2,048-token first tokens 40 % slow), its
  dense GEMMs in waves of tiles over the GPU's SMs (a 128-token prompt leaves most SMs idle:
  :func:`~gpuprof.recommend.serve_kernels.wave_factor`). A step that carries a prompt chunk
  also pays :data:`EAGER_LAYER_S` per layer: engines replay CUDA graphs for decode-only steps,
  a prompt's kernels are launched one by one (memory side: the GPU waits); *communication* two
  tensor-parallel all-reduces per layer of the step's activations
  (:func:`~gpuprof.recommend.decode.allreduce_seconds`, at :data:`NCCL_LINK_EFFICIENCY` of a
  GPU link's line rate: NCCL's protocol overhead; GPUs with no GPU link over PCIe through the
  host bridge at NCCL's own figure, 20 GB/s for Gen4 x16: :func:`allreduce_link`) and, across
  nodes, one send per pipeline boundary over the network. With ``p`` stages each of ``p``
  micro-batches reads its stage's weights, so a GPU reads ``N·bytes/t`` per step. Two kernels
  tensor parallel does not shrink (:mod:`~gpuprof.recommend.serve_kernels`): *memory* also
  moves, on every GPU of the group, each token's residual + RMSNorm traffic and a mixture of
  experts' permute and finalize, ``(8 + [2 + 2k])·h`` 16-bit elements per token per layer
  (Megatron-LM duplicates layer norms and residuals across tensor-parallel GPUs, Shoeybi et al.
  2019; TensorRT-LLM's tensor-parallel MoE gives every GPU all tokens' hidden states, its
  expert-parallelism docs); and the routed experts' GEMM FLOPs grow by the tile quantization of
  their grouped GEMM (each expert's ``m`` tokens run as ``ceil(m/64)·64`` rows: NVIDIA's Matrix
  Multiplication Background guide), in expectation over uniform random routing. Each sequence
  that emits a token (the decoding ones and the prompts a step finishes) also carries its
  logits: the all-gather of the LM head's vocabulary slices (communication) and what the
  sampler moves per vocabulary entry (``--sampler``; memory, on every GPU of the group).
* **Throughput** of a replica at batch ``b``: ``b/τ`` output tokens/s, ``b/(O·τ)`` requests/s.
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
    dense_gemms,
    expert_tile_factor,
    replicated_bytes_per_token,
    sampling_bytes_per_token,
    wave_factor,
)
from gpuprof.recommend.workload import WEIGHT_BYTES, Workload

__all__ = [
    "EAGER_LAYER_S",
    "NCCL_LINK_EFFICIENCY",
    "NCCL_PCI_GEN3_X16",
    "P2P_TLP_OVERHEAD",
    "TOKEN_BUDGET",
    "Hardware",
    "Shape",
    "allreduce_link",
    "cycle_seconds",
    "shape_of",
    "step_seconds",
]

Arr = npt.NDArray[np.float64]

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
#: Seconds a layer's kernels cost per step beyond their work when launched one by one (no CUDA
#: graph): vLLM's CUDA graphs took a batch-1 decode step of Llama 2 7B (32 layers) from 1.2 s to
#: 1.05 s per 100 tokens (github vllm-project/vllm PR #1440): 1.5 ms a step, 47 us a layer.
#: Engines capture graphs for decode-only steps (vLLM, TensorRT-LLM's GptSession, LoRAX "only
#: during the decoding steps", predibase/lorax PR #154); a step that carries a prompt chunk
#: launches its kernels from the host, and for a short prompt that cost is most of the step.
EAGER_LAYER_S = 1.5e-3 / 32.0


@dataclass(frozen=True)
class Shape:
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
    replicated: float  # bytes per token every tensor-parallel GPU moves: serve_kernels
    sample_mem: float  # bytes per emitted token every GPU moves for its logits: serve_kernels
    sample_gather: float  # bytes of one emitted token's logits all-gathered across the group
    #: A layer's dense weight GEMMs (N, K, split N) and the share of the non-expert parameters
    #: they hold, for the wave quantization of a prompt's GEMMs (serve_kernels).
    gemms: tuple[tuple[float, float, bool], ...] = ()
    gemm_share: float = 0.0
    #: Attention data parallel (``--attention-dp``): each GPU runs attention, the LM head and
    #: the sampler for its own sequences; ``expert_total`` routed-expert parameters stay split.
    attention_dp: bool = False
    expert_total: float = 0.0

    @property
    def ctx(self) -> float:
        """Mean cached tokens of a sequence in flight."""
        return self.prompt + self.output / 2.0

    def kv_copies(self, tp: Arr) -> Arr:
        """Copies of each KV head a tensor-parallel group keeps: beyond ``kv_heads`` GPUs every
        GPU still holds a whole head (vLLM and TensorRT-LLM replicate it); with attention data
        parallel a GPU holds its own sequences' cache with all heads, one copy."""
        if self.attention_dp:
            return np.ones_like(np.asarray(tp, dtype=np.float64))
        return np.maximum(tp / self.kv_heads, 1.0)


def shape_of(w: Workload) -> Shape:
    layers, hidden = model_shape(w)
    attn = float(w.attn_width or hidden)
    kv_layer = w.kv_per_token_layer if w.kv_per_token_layer is not None else 2.0 * hidden
    grouped = w.attention_kernel == "grouped" or (w.kv_heads or 2) < 2 or kv_layer <= 0
    moe = w.experts > 1 and w.top_k > 0 and w.expert_params > 0
    sample_mem, sample_gather = sampling_bytes_per_token(w.vocab, w.sampler)
    expert_active = w.expert_params * w.top_k / w.experts if moe else 0.0
    dense = w.params_per_token - expert_active
    embed = 2.0 * float(w.vocab) * hidden
    gemms = dense_gemms(hidden, attn, kv_layer, max(dense - embed, 0.0) / max(layers, 1))
    covered = layers * sum(n * k for n, k, _ in gemms)
    gemm_share = min(covered / dense, 1.0) if dense > 0 else 0.0
    return Shape(
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
        expert_active=expert_active,
        replicated=replicated_bytes_per_token(hidden, layers, w.top_k, moe),
        sample_mem=sample_mem,
        sample_gather=sample_gather,
        gemms=gemms,
        gemm_share=gemm_share,
        attention_dp=w.attention_dp,
        expert_total=w.expert_params if moe else 0.0,
    )


@dataclass(frozen=True)
class Hardware:
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
    #: SMs per GPU (NaN or None: unknown, no wave quantization).
    sms: Arr | None = None


def step_seconds(
    s: Shape,
    hw: Hardware,
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
    if s.attention_dp:
        # Every GPU reads the whole non-expert weights (attention, norms, LM head) for its own
        # sequences; the routed experts stay split and read as the step's tokens route to them.
        e_share = moe_read_fraction(s.top_k / s.experts, per_micro) if s.experts else 0.0
        dense_w = s.params - s.expert_total
        w_mem = (dense_w + s.expert_total * e_share / hw.tp) * s.wbytes / bw
    tile = expert_tile_factor(per_micro, s.experts, s.top_k) if s.experts else 1.0
    # A prompt's dense GEMMs run in waves of tiles over the SMs (serve_kernels.wave_factor):
    # for a short prompt most SMs idle in the last wave; decode tokens stay at their base rate.
    wave: Arr | float = 1.0
    if hw.sms is not None and s.gemm_share > 0:
        waves = wave_factor(per_micro, hw.tp, hw.sms, s.gemms)
        wave = 1.0 + s.gemm_share * (waves - 1.0)
    dense = s.active - s.expert_active
    w_comp = 2.0 * dense * (b / rate + prefill * wave / pf_rate) + 2.0 * (
        s.expert_active * tile
    ) * (b / rate + prefill / pf_rate)
    rep_mem = tokens * s.replicated / hw.pp / bw
    # Sequences that emit a token: the decoding ones and the prompts this step finishes. Their
    # logits are sampled on the last stage only, so a pipeline does not split this.
    emit = b + np.where(np.asarray(prompt) > 0, prefill / np.maximum(prompt, 1.0), 0.0)
    # Attention data parallel: norms, residuals and the sampler run for a GPU's own sequences.
    dp_share = 1.0 / hw.tp if s.attention_dp else 1.0
    rep_mem = rep_mem * dp_share + emit * s.sample_mem * dp_share / bw
    kv_mem = b * ctx * s.kv_token * s.kv_read * s.kv_copies(hw.tp) / (hw.tp * hw.pp) / bw
    kv_comp = 4.0 * s.layers * s.attn * (b * ctx / rate + prefill * prompt / 2.0 / attn_rate)
    t_mem = np.where(w_mem >= w_comp, w_mem, 0.0) + np.where(kv_mem >= kv_comp, kv_mem, 0.0)
    # A step with prompt tokens runs eagerly (CUDA graphs replay decode batches only): its
    # layers' kernel launches show between the kernels, time the GPU waits (with the memory
    # side: neither math nor a link).
    t_mem = t_mem + rep_mem + np.where(np.asarray(prefill) > 0, s.layers * EAGER_LAYER_S, 0.0)
    t_comp = np.where(w_mem < w_comp, w_comp, 0.0) + np.where(kv_mem < kv_comp, kv_comp, 0.0)
    act = per_micro * s.hidden * 2.0
    # Attention data parallel drops the attention all-reduce; a MoE layer's all-gather of the
    # tokens before the experts and reduce-scatter after move one all-reduce's bytes.
    per_layer = (1.0 if s.experts else 0.0) if s.attention_dp else 2.0
    t_comm = per_layer * s.layers * allreduce_seconds(hw.tp, act, hw.link)
    if s.sample_gather > 0 and not s.attention_dp:
        gather = allgather_seconds(hw.tp, emit * s.sample_gather, hw.link)
        t_comm = t_comm + np.where(emit > 0, gather, 0.0)
    hop = ALLREDUCE_LATENCY[0] + act / hw.tp / hw.net
    t_comm = t_comm + np.where(hw.pp > 1, (hw.pp - 1.0) * hop, 0.0)
    return t_mem, t_comp, t_comm


def cycle_seconds(s: Shape, hw: Hardware, b: Arr, demand: Arr) -> tuple[Arr, Arr, Arr]:
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
    d = step_seconds(s, hw, b, np.zeros_like(b * room))
    full = step_seconds(s, hw, b, room + 0.0 * b)
    return tuple(d0 + share * (f0 - d0) for d0, f0 in zip(d, full, strict=True))  # type: ignore[return-value]


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
