"""Time and cost of a workload on every candidate configuration, vectorized with numpy.

Formulas (the details pane shows them; :data:`FORMULAS`):

* time = workload FLOPs ÷ (GPUs × spec peak for the dtype × efficiency); efficiency = base ×
  scaling. FP8 training runs only the linear layers' GEMMs in FP8: the attention score/context
  matmuls of a named architecture are timed at the 16-bit peak (Transformer Engine's FP8 recipe
  covers Linear / LayerNormLinear / LayerNormMLP; FP8 dot-product attention is an opt-in beta
  feature, ``DelayedScaling.fp8_dpa = False`` by default: github NVIDIA/TransformerEngine
  transformer_engine/common/recipe/__init__.py).
* LLM inference: decode steps of the batch that fits, each ``max(compute, memory) +
  tensor-parallel all-reduces``, plus prefill when a prompt length is given; the model and its
  sources are in :mod:`gpuprof.recommend.decode` (memory: weights read — for a mixture of experts
  only the routed experts' — and KV cache at 70 % of peak bandwidth; all-reduces: measured NCCL
  latency + ring bandwidth term, two per layer per step).
* base efficiency: measured here when the same GPU model was benchmarked locally (GEMM achieved
  ÷ spec peak, times published MFU ÷ typical GEMM ceiling), else a published achievable ratio
  (:data:`BASE_EFFICIENCY`, each with its source).
* Training on several GPUs: the fastest tensor × pipeline × data parallel layout that fits
  (ZeRO-1), each step costed with its tensor-parallel all-reduces on NVLink, the pipeline
  bubble, and the data-parallel gradient all-reduce overlapped with the backward pass over the
  instance's network; scaling = ideal time ÷ that time. Model and sources:
  :mod:`gpuprof.recommend.parallel`.
* Inference: scaling = 1 / (1 + all-reduce / step) (``step without ÷ step with``). The
  bandwidth is the slowest hop: NVLink / NVSwitch (spec per-GPU figure ÷ 2 per direction), else
  PCIe x16 of the spec's generation, and across nodes the instance network ÷ GPUs per node.
* spot: +10 % time for checkpointing and restarts after interruptions (assumption).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.instances import Instance
from gpuprof.catalog.specs import DTYPES, GpuSpec
from gpuprof.i18n import N_
from gpuprof.recommend.decode import MEM_BW_EFFICIENCY, decode_step_seconds, prefill_seconds
from gpuprof.recommend.efficiency import DEFAULT_STACK, TRAIN_EFFICIENCY, TrainEfficiency
from gpuprof.recommend.formulas import FORMULAS
from gpuprof.recommend.memory import (
    HEADROOM,
    GiB,
    kv_bytes_per_token,
    memory_need,
    model_shape,
)
from gpuprof.recommend.parallel import row_groups, train_layout
from gpuprof.recommend.roofline import training_work
from gpuprof.recommend.serve import ServeArrays, serve_estimates
from gpuprof.recommend.workload import WEIGHT_BYTES, Workload

__all__ = [
    "BASE_EFFICIENCY",
    "FORMULAS",
    "GEMM_CEILING",
    "MEM_BW_EFFICIENCY",
    "SPOT_OVERHEAD",
    "CandidateArrays",
    "Estimates",
    "base_efficiency",
    "build_arrays",
    "estimate",
]

Arr = npt.NDArray[np.float64]

#: Extra time on spot/preemptible capacity: checkpoint writes + lost work after interruptions.
SPOT_OVERHEAD = 0.10
#: Typical achievable share of the spec peak for a large GEMM (ml-engineering MAMF table).
GEMM_CEILING = (
    0.83,
    N_("ml-engineering MAMF table: A100 SXM 85.9%, GH200 83.0%, A100 PCIe 82.2% of spec"),
)
#: PCIe x16 bandwidth per direction, GB/s, by generation (unknown generation → gen3).
PCIE_GBS = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}

#: (efficiency, where it comes from) by kind of workload. The sources stay English in results
#: (JSON, reports); they are marked for the catalog and translated where shown (``tr_text``).
BASE_EFFICIENCY: dict[str, tuple[float, str]] = {
    "llm-train": (
        0.45,
        N_(
            "published MFU: PaLM 540B 46.2% (Chowdhery et al. 2022); Megatron-LM 1T params on "
            "3072 A100 52% of peak (Narayanan et al. 2021); ml-engineering: ~50% MFU 'is "
            "considered a win' -> 45% assumed"
        ),
    ),
    "sample-train": (0.35, N_("assumption: CNN/small-model training runs below LLM MFU -> 35%")),
    "llm-inference": (
        0.50,
        N_(
            "assumption: 50% of peak for prefill math; decode bounded by memory "
            "bandwidth at 70% of peak"
        ),
    ),
    "sample-inference": (0.40, N_("assumption: batched per-sample inference -> 40% of peak")),
    "hpc-fp64": (
        0.70,
        N_(
            "TOP500 HPL Rmax/Rpeak of GPU systems ~0.65-0.75 (Frontier 65%, Summit 74%)"
            " -> 70% (HPL is a best case)"
        ),
    ),
    "render": (
        0.30,
        N_("assumption: rendering is not GEMM-bound; FP32 rate x 30% as a proxy"),
    ),
}


def _kind(w: Workload) -> str:
    if w.scenario == "hpc-fp64":
        return "hpc-fp64"
    if w.scenario == "render":
        return "render"
    per_sample = w.flops_per_sample is not None or (w.samples is not None and w.tokens is None)
    if w.is_training:
        return "sample-train" if per_sample else "llm-train"
    return "sample-inference" if not w.is_llm_inference else "llm-inference"


def base_efficiency(
    w: Workload,
    spec: GpuSpec | None,
    measured_tflops: float | None,
    train_eff: TrainEfficiency = TRAIN_EFFICIENCY,
) -> tuple[float, str, bool]:
    """(efficiency, source text, measured?) for one GPU model.

    LLM training takes its stack's fitted share of the matmul peak (:mod:`.efficiency`)."""
    eff, source = BASE_EFFICIENCY[_kind(w)]
    if _kind(w) == "llm-train":
        arch = spec.architecture if spec else None
        gen = train_eff.generation_share(arch)
        eff = train_eff.gemm_share(w.stack) * gen
        source = N_("{source}; stack {stack}: {eff:.0%} of the matmul peak").format(
            source=train_eff.source, stack=w.stack, eff=eff
        )
        if gen != 1.0 and spec is not None:
            # One template around the other, so that tr_text translates the whole line.
            source = N_("{source}; fitted generation factor for {gpu}: × {g:.2f}").format(
                source=source, gpu=spec.key, g=gen
            )
    dtype = w.compute_dtype
    peak = spec.peak_tflops(dtype) if spec else None
    if measured_tflops and peak:
        ratio = min(1.0, measured_tflops / peak)
        scaled = ratio * eff / GEMM_CEILING[0]
        detail = N_(
            "{dtype} GEMM {tflops:.0f} TFLOPS = {ratio:.0%} of spec {peak:g}; x {eff:.0%} "
            "published/assumed ÷ {ceiling:.0%} typical GEMM ceiling ({why})"
        ).format(
            dtype=dtype,
            tflops=measured_tflops,
            ratio=ratio,
            peak=peak,
            eff=eff,
            ceiling=GEMM_CEILING[0],
            why=GEMM_CEILING[1],
        )
        text = N_("measured here: {detail}").format(detail=detail)
        return scaled, text, True
    return eff, source, False


def _prompt_shares(
    measured: str | None, spec: GpuSpec | None, train_eff: TrainEfficiency
) -> tuple[str, tuple[float, float]]:
    """Serving: the efficiency source text and (share of the matmul peak, share of the 16-bit
    peak) a prompt's GEMMs and attention run at: a tuned stack's fitted training constants for
    the GPU's generation (:mod:`.efficiency`; a prompt chunk's GEMMs are as large as a training
    micro-batch's). ``measured``: the local measurement's text, which scales both."""
    arch = spec.architecture if spec else None
    gemm = train_eff.gemm_share(DEFAULT_STACK) * train_eff.generation_share(arch)
    attn = train_eff.attention_share(DEFAULT_STACK, arch)
    if measured is not None:
        text = N_(
            "{source}; serving: a prompt's GEMMs at {gemm:.0%} of the peak and its attention at "
            "{attn:.0%} of the 16-bit peak (a tuned stack's fitted training shares)"
        ).format(source=measured, gemm=gemm, attn=attn)
    else:
        text = N_(
            "assumption: 50% of peak for a decode token's math; a prompt's GEMMs at {gemm:.0%} "
            "of the peak and its attention at {attn:.0%} of the 16-bit peak (a tuned stack's "
            "fitted training shares); decode bounded by memory bandwidth at 70% of peak"
        ).format(gemm=gemm, attn=attn)
    return text, (gemm, attn)


@dataclass(frozen=True)
class CandidateArrays:
    """Per-instance numbers the estimate needs, one array entry per instance."""

    instances: tuple[Instance, ...]
    count: Arr  # GPUs per instance (fractional for GPU partitions)
    mem_bytes: Arr  # usable-before-headroom bytes per GPU device
    peak: dict[str, Arr]  # FLOP/s per GPU by dtype (NaN unknown)
    mem_bw: Arr  # bytes/s per GPU (NaN unknown)
    intra_bw: Arr  # bytes/s per GPU per direction inside a node
    net_bw_node: Arr  # bytes/s per node (NaN unknown)
    #: The PCIe generation a GPU's peers talk over; NaN where a GPU link (NVLink) joins them.
    pcie_gen: Arr
    supported: dict[str, Arr]  # 1 yes, 0 no, NaN unknown
    price_ondemand: Arr
    price_spot: Arr
    price_r1: Arr
    price_r3: Arr
    model_idx: npt.NDArray[np.int64]  # index into models
    models: tuple[str, ...]
    sm_count: Arr | None = None  # SMs per GPU (NaN unknown): a short prompt's GEMM waves

    def __len__(self) -> int:
        return len(self.instances)

    @cached_property
    def groups(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Rows alike for a training layout (GPU model, GPUs, memory, network): they differ
        only in price or region (:func:`gpuprof.recommend.parallel.row_groups`)."""
        return row_groups(
            self.count, self.model_idx.astype(np.float64), self.mem_bytes, self.net_bw_node
        )


_NUMS = operator.attrgetter(
    "gpu_count",
    "gpu_mem_gib",
    "network_gbps",
    "price_ondemand_usd_hr",
    "price_spot_usd_hr",
    "price_reserved_1y_usd_hr",
    "price_reserved_3y_usd_hr",
)


def _f(value: float | None) -> float:
    return math.nan if value is None else float(value)


def build_arrays(instances: Sequence[Instance], specs: Mapping[str, GpuSpec]) -> CandidateArrays:
    """Gather the numbers once per catalog (the per-workload work is then pure numpy)."""
    models: dict[str, int] = {}
    idx = np.fromiter(
        (models.setdefault(i.gpu_model if i.gpu_known else "", len(models)) for i in instances),
        dtype=np.int64,
        count=len(instances),
    )
    # None → NaN via dtype=float; one C-level pass per instance.
    cols = np.array(list(map(_NUMS, instances)), dtype=np.float64).reshape(len(instances), 7).T
    count = cols[0]
    mem = cols[1] * GiB * np.minimum(count, 1.0)
    net = cols[2] * 1e9 / 8.0
    prices = cols[3:7]
    names = tuple(models)
    m_specs = [specs.get(name) for name in names]
    m_peak = {
        d: np.array([_f(s.peak_tflops(d)) * 1e12 if s else math.nan for s in m_specs])
        for d in DTYPES
    }
    m_sup = {}
    for d in DTYPES:
        vals = []
        for s in m_specs:
            ok = s.supports(d) if s else None
            vals.append(math.nan if ok is None else float(ok))
        m_sup[d] = np.array(vals)
    m_bw = np.array([_f(s.memory_bw_gbs) * 1e9 if s else math.nan for s in m_specs])
    m_sms = np.array([float(s.sm_count) if s and s.sm_count else math.nan for s in m_specs])
    m_intra = np.array(
        [
            (
                s.peer_link_gbs_bidir / 2.0
                if s and s.peer_link_gbs_bidir
                else PCIE_GBS.get((s.pcie_gen if s else None) or 3, 16.0)
            )
            * 1e9
            for s in m_specs
        ]
    )
    m_pcie = np.array(
        [
            math.nan if s and s.peer_link_gbs_bidir else float((s.pcie_gen if s else None) or 3)
            for s in m_specs
        ]
    )
    # Instances that state a fabric in the catalog but whose spec lacks it keep PCIe: say less.
    return CandidateArrays(
        instances=tuple(instances),
        count=count,
        mem_bytes=mem,
        peak={d: a[idx] for d, a in m_peak.items()},
        mem_bw=m_bw[idx],
        sm_count=m_sms[idx],
        intra_bw=m_intra[idx],
        net_bw_node=net,
        pcie_gen=m_pcie[idx],
        supported={d: a[idx] for d, a in m_sup.items()},
        price_ondemand=prices[0],
        price_spot=prices[1],
        price_r1=prices[2],
        price_r3=prices[3],
        model_idx=idx,
        models=names,
    )


@dataclass(frozen=True)
class Estimates:
    """Results per instance for its chosen node count (NaN = unknown)."""

    nodes: Arr
    gpus: Arr
    need_bytes: Arr  # per GPU
    fits: npt.NDArray[np.bool_]  # memory only
    supported: Arr  # precision supported: 1/0/NaN
    seconds: Arr
    efficiency: Arr
    base_eff: Arr
    scaling: Arr
    achieved_flops: Arr  # whole job, FLOP/s
    measured: npt.NDArray[np.bool_]
    eff_source_idx: npt.NDArray[np.int64]
    eff_sources: tuple[str, ...]
    memory_bound: npt.NDArray[np.bool_]
    #: LLM inference: concurrent sequences used, the requested batch or the most that fit in
    #: memory beside the weights when fewer do (NaN for other workloads).
    batch: Arr | None = None
    #: Training: the parallel layout, columns tensor, pipeline, data, context parallel and
    #: virtual stages per GPU (NaN otherwise).
    layout: Arr | None = None
    #: Serving (:mod:`gpuprof.recommend.serve`): the traffic estimate; ``seconds`` is NaN.
    serving: ServeArrays | None = None


def _node_options(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    if out[-1] != limit:
        out.append(limit)
    return out


def estimate(
    w: Workload,
    arr: CandidateArrays,
    specs: Mapping[str, GpuSpec],
    local_measurements: Mapping[str, Mapping[str, float]] | None = None,
    train_eff: TrainEfficiency = TRAIN_EFFICIENCY,
) -> Estimates:
    """Fit, time and efficiency for every candidate; picks the node count per instance.

    ``train_eff``: the training constants (``perf/truth.py`` passes refitted ones)."""
    dtype = w.compute_dtype
    flops = w.total_flops()
    # Base efficiency per GPU model (few models, so a small Python loop).
    sources: list[str] = []
    m_eff = np.empty(len(arr.models))
    m_src = np.empty(len(arr.models), dtype=np.int64)
    m_measured = np.zeros(len(arr.models), dtype=bool)
    m_prompt = np.ones((len(arr.models), 2))  # serving: a prompt's GEMM and attention shares
    for j, name in enumerate(arr.models):
        spec = specs.get(name)
        measured = (local_measurements or {}).get(name, {}).get(dtype)
        eff, src, was = base_efficiency(w, spec, measured, train_eff)
        if w.is_serving:
            src, m_prompt[j] = _prompt_shares(src if was else None, spec, train_eff)
        if src not in sources:
            sources.append(src)
        m_eff[j], m_src[j], m_measured[j] = eff, sources.index(src), was
    base = m_eff[arr.model_idx]
    # The attention matmuls' rate relative to the linear layers' (issue 23), per GPU model.
    m_attn = np.array(
        [
            train_eff.attention_share(w.stack, s.architecture if s else None)
            / max(
                train_eff.gemm_share(w.stack)
                * train_eff.generation_share(s.architecture if s else None),
                1e-9,
            )
            for s in (specs.get(name) for name in arr.models)
        ]
    )
    peak = arr.peak[dtype]
    supported = arr.supported.get(dtype, np.full(len(arr), np.nan))
    wb = WEIGHT_BYTES[w.precision]
    layers, hidden = model_shape(w)
    kind = _kind(w)
    per_node = np.maximum(np.ceil(arr.count), 1.0)
    usable = arr.mem_bytes * (1.0 - HEADROOM)

    if w.is_serving:
        # A prompt's tokens at :func:`_prompt_shares`, scaled as ``base`` is by a local
        # measurement; decode tokens stay at ``base``.
        scale = base / BASE_EFFICIENCY["llm-inference"][0]
        p16 = np.where(np.isfinite(arr.peak["bf16"]), arr.peak["bf16"], peak)
        share = m_prompt[arr.model_idx]
        prompt_rates = (peak * share[:, 0] * scale, p16 * share[:, 1] * scale)
        return _serving(w, arr, base, peak, supported, m_measured, m_src, sources, prompt_rates)
    # FP8 training: the attention matmuls stay 16-bit (their share timed at the bf16 peak).
    peak16 = np.where(np.isfinite(arr.peak["bf16"]), arr.peak["bf16"], peak)
    # Seconds per GPU-FLOP/s of base-efficiency rate: the whole job's compute is this ÷ G.
    work, compute_work = training_work(
        w,
        llm=kind == "llm-train",
        flops=flops,
        base=base,
        peak=peak,
        peak16=peak16,
        mem_bw=arr.mem_bw,
        train_eff=train_eff,
        layers=layers,
        hidden=hidden,
        attention=base * m_attn[arr.model_idx],
    )
    # A whole pretraining run: restarts, checkpoints, evaluations (fitted to published runs'
    # GPU-hours against their steady throughput).
    run = 1.0 + (
        train_eff.run_overhead if w.scenario == "pretrain" and kind == "llm-train" else 0.0
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        best = _choose_nodes(w, arr, kind, flops, work, per_node, usable, layers, hidden, wb, run)
        # Efficiency reads as the matmul share achieved in steady state (MFU-like): the
        # memory-bound time is part of the step, the run overhead not part of the efficiency.
        best["scaling"] = best["scaling"] * compute_work / work * run
    return Estimates(
        nodes=best["nodes"],
        gpus=best["gpus"],
        need_bytes=best["need"],
        fits=best["fits"] > 0,
        supported=supported,
        seconds=best["seconds"],
        efficiency=base * best["scaling"],
        base_eff=base,
        scaling=best["scaling"],
        achieved_flops=best["achieved"],
        measured=m_measured[arr.model_idx],
        eff_source_idx=m_src[arr.model_idx],
        eff_sources=tuple(sources),
        memory_bound=best["membound"] > 0,
        batch=best["batch"],
        layout=best["layout"],
    )


def _serving(
    w: Workload,
    arr: CandidateArrays,
    base: Arr,
    peak: Arr,
    supported: Arr,
    m_measured: npt.NDArray[np.bool_],
    m_src: npt.NDArray[np.int64],
    sources: list[str],
    prompt_rates: tuple[Arr, Arr],
) -> Estimates:
    """Serving traffic: continuous batching per candidate (:mod:`gpuprof.recommend.serve`).

    Rows that differ only in price or region (same GPU, count, memory, network and
    efficiency) are estimated once: a 10,000-row catalog has a few hundred such groups."""
    first, inverse = row_groups(
        arr.count, arr.model_idx.astype(np.float64), arr.mem_bytes, arr.net_bw_node, base
    )
    flops = peak * base
    one = serve_estimates(
        w,
        count=arr.count[first],
        mem_bytes=arr.mem_bytes[first],
        mem_bw=arr.mem_bw[first],
        flops_per_gpu=flops[first],
        intra_bw=arr.intra_bw[first],
        net_bw_node=arr.net_bw_node[first],
        node_options=[w.nodes] if w.nodes else _node_options(w.node_limit),
        pcie_gen=arr.pcie_gen[first],
        prefill_flops_per_gpu=prompt_rates[0][first],
        attention_flops_per_gpu=prompt_rates[1][first],
        sm_count=None if arr.sm_count is None else arr.sm_count[first],
    )
    sv = ServeArrays(**{f: getattr(one, f)[inverse] for f in ServeArrays.__dataclass_fields__})
    nan = np.full(len(arr), np.nan)
    return Estimates(
        nodes=sv.nodes,
        gpus=arr.count * sv.nodes,
        need_bytes=sv.need_bytes,
        fits=sv.fits,
        supported=supported,
        seconds=nan,
        efficiency=base,
        base_eff=base,
        scaling=np.ones(len(arr)),
        achieved_flops=nan,
        measured=m_measured[arr.model_idx],
        eff_source_idx=m_src[arr.model_idx],
        eff_sources=tuple(sources),
        memory_bound=sv.t_memory_s > sv.t_compute_s,
        batch=sv.batch_best,
        serving=sv,
    )


def _choose_nodes(
    w: Workload,
    arr: CandidateArrays,
    kind: str,
    flops: float,
    work: Arr,
    per_node: Arr,
    usable: Arr,
    layers: int,
    hidden: int,
    wb: float,
    run: float = 1.0,
) -> dict[str, Arr]:
    best: dict[str, Arr] | None = None
    training = kind in ("llm-train", "sample-train")
    for n_nodes in [w.nodes] if w.nodes else _node_options(w.node_limit):
        multi = n_nodes > 1
        g = arr.count * n_nodes
        devices = per_node * n_nodes
        batch = np.full(len(arr), np.nan)
        layout = None
        if training:
            layout = train_layout(
                w,
                per_sample=kind == "sample-train",
                per_node=arr.count,
                nodes=n_nodes,
                work=work,
                intra_bw=arr.intra_bw,
                net_bw_node=arr.net_bw_node,
                usable=usable,
                layers=layers,
                hidden=hidden,
                groups=arr.groups,
                mem_bw=arr.mem_bw,
            )
            need, fits = layout.need, layout.fits
        elif kind == "llm-inference":
            # The batch that fits: KV cache for as many sequences as the memory left beside
            # the (sharded) weights holds, at most the requested batch; none = does not fit.
            per_seq = kv_bytes_per_token(w) * float(w.seq_len)
            weights = w.params * wb / devices
            batch = np.full(len(arr), float(w.global_batch))
            if per_seq > 0:
                room = np.maximum(usable - weights, 0.0) * devices
                batch = np.minimum(batch, np.floor(room / per_seq))
            need = weights + per_seq * np.maximum(batch, 1.0) / devices
            fits = batch >= 1.0
        else:
            need = memory_need(w, devices).total
            fits = need <= usable
        if multi:  # multi-node needs a known network and whole GPUs
            fits &= np.isfinite(arr.net_bw_node) & (arr.count >= 1)
        link = arr.intra_bw
        if multi:
            link = np.minimum(link, arr.net_bw_node / per_node)
        t_compute = work / g  # before scaling
        t_memory = np.zeros_like(t_compute)
        if layout is not None:
            seconds, scaling = layout.seconds * run, layout.scaling / run
        else:
            ratio = np.zeros_like(t_compute)
            if kind == "llm-inference":
                t_compute, t_memory, ratio = _inference_times(
                    w, batch, devices, flops / t_compute, arr.mem_bw, link, layers, hidden, wb
                )
            scaling = 1.0 / (1.0 + ratio)
            seconds = np.maximum(t_compute, t_memory) / scaling
        achieved = flops / seconds
        cand = {
            "nodes": np.full(len(arr), float(n_nodes)),
            "gpus": g,
            "need": need,
            "fits": fits.astype(np.float64),
            "seconds": seconds,
            "scaling": scaling,
            "achieved": achieved,
            "membound": (t_memory > t_compute).astype(np.float64),
            "batch": batch,
            "layout": (
                np.full((len(arr), 6), np.nan)
                if layout is None
                else np.stack(
                    [layout.tp, layout.pp, layout.dp, layout.cp, layout.vp, layout.ep], axis=1
                )
            ),
        }
        if best is None:
            best = cand
            continue
        # Take more nodes only where fewer did not fit, or missed the deadline and this is faster.
        prev_fits = best["fits"] > 0
        take = ~prev_fits & fits
        if w.deadline_hours is not None:
            late = best["seconds"] > w.deadline_hours * 3600.0
            take |= prev_fits & fits & late & (seconds < best["seconds"])
        for k in best:
            best[k] = np.where(take[:, None] if best[k].ndim == 2 else take, cand[k], best[k])
    assert best is not None
    return best


def _inference_times(
    w: Workload,
    batch: Arr,
    devices: Arr,
    rate: Arr,
    mem_bw: Arr,
    link: Arr,
    layers: int,
    hidden: int,
    wb: float,
) -> tuple[Arr, Arr, Arr]:
    """(compute s, memory s, all-reduce ÷ the slower of them) of a whole LLM inference job.

    ``rate`` is the configuration's FLOP/s at base efficiency; the model is in :mod:`.decode`.
    Prefill (``prompt_len``) runs before its batch decodes, so it adds to both bounds.
    """
    b = np.maximum(batch, 1.0)
    steps = np.maximum(w.work_units / b, 1.0)
    active = w.params_per_token
    step_c, step_m, step_comm = decode_step_seconds(
        params=w.params,
        active_params=active,
        weight_bytes=wb,
        # A decode step reads the cache as long as the sequence is so far: from the prompt to
        # the full length, so on average halfway between (the memory fit takes the full length)
        kv_bytes_per_seq=kv_bytes_per_token(w) * (float(w.seq_len) + float(w.prompt_len)) / 2.0,
        layers=layers,
        hidden=hidden,
        batch=b,
        gpus=devices,
        mem_bw=mem_bw,
        flops_rate=rate,
        link_bytes_s=link,
    )
    t_compute, t_memory, t_comm = steps * step_c, steps * step_m, steps * step_comm
    if w.prompt_len > 0:
        batches = np.maximum(w.work_units / float(w.seq_len - w.prompt_len) / b, 1.0)
        # The batch's prompts go through together: prompt_len x b tokens per prefill.
        t_pre = batches * prefill_seconds(
            active_params=active,
            layers=layers,
            hidden=hidden,
            prompt_tokens=float(w.prompt_len) * b,
            gpus=devices,
            flops_rate=rate,
            link_bytes_s=link,
        )
        t_compute, t_memory = t_compute + t_pre, t_memory + t_pre
    ratio = np.where(devices > 1, t_comm / np.maximum(t_compute, t_memory), 0.0)
    return t_compute, t_memory, ratio
