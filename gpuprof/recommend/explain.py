"""Reasons and warnings for one recommendation row, including the seed documents' pitfalls."""

from __future__ import annotations

from dataclasses import dataclass

from gpuprof.catalog.instances import Instance
from gpuprof.catalog.money import shown_as_of
from gpuprof.catalog.specs import GpuSpec
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.recommend.estimate import SPOT_OVERHEAD
from gpuprof.recommend.memory import HEADROOM
from gpuprof.recommend.workload import Workload
from gpuprof.units import fmt_bytes, fmt_duration, fmt_pct, fmt_usd

__all__ = ["RowFacts", "UTIL_THRESHOLD_PCT", "global_warnings", "row_notes"]

#: Below this local GPU utilization, buying a bigger GPU will not help (seed: "利用率>70%时再升级").
UTIL_THRESHOLD_PCT = 70.0
_TOP_CLASS = ("H100", "H200", "GH200", "B200", "B300", "GB200", "GB300", "MI300X", "MI355X")


@dataclass(frozen=True)
class RowFacts:
    """The numbers :func:`row_notes` talks about (already computed by the ranking)."""

    fits: bool
    supported: bool | None
    need_bytes: float
    mem_bytes: float
    gpus: float
    nodes: int
    seconds: float | None
    efficiency: float | None
    base_eff: float
    scaling: float
    eff_source: str
    cost_usd: float | None
    cost_basis: str
    meets_deadline: bool | None
    within_budget: bool | None
    memory_bound: bool
    batch: float | None = None  # LLM inference: concurrent sequences that fit (and are used)
    layout: tuple[int, int, int] | None = None  # training: tensor, pipeline, data parallel
    #: training (issue 23): context parallel size, virtual pipeline stages per GPU, and
    #: whether data parallelism shards the weights too (FSDP) rather than ZeRO-1
    context_parallel: int = 1
    virtual_stages: int = 1
    expert_parallel: int = 1
    full_shard: bool = False
    #: serving: the share of the memory left after the weights the KV cache takes (no headroom)
    kv_free_fraction: float | None = None


def global_warnings(w: Workload, local_util_pct: float | None) -> tuple[str, ...]:
    out = []
    if local_util_pct is not None and local_util_pct < UTIL_THRESHOLD_PCT:
        out.append(
            tr(
                "local GPU utilization is {util} (< {threshold:.0f}%): fix the input pipeline first "
                "(DataLoader workers/prefetch, DALI, faster storage) — a bigger GPU would idle too "
                "(seed pitfall: BERT on H100 at <30% utilization cost 2.8× an A100 setup)",
                util=fmt_pct(local_util_pct),
                threshold=UTIL_THRESHOLD_PCT,
            )
        )
    if w.spot and w.is_serving:
        out.append(
            tr(
                "spot: serving on spot capacity needs spare replicas elsewhere; an interruption "
                "drops the requests in flight (the rows assume none)"
            )
        )
    elif w.spot:
        out.append(
            tr(
                "spot: +{pct:.0f}% time assumed for checkpoints and restarts; save checkpoints often "
                "(interruptions come with little or no notice) and keep inference on on-demand or "
                "reserved capacity",
                pct=SPOT_OVERHEAD * 100,
            )
        )
    return tuple(out)


def row_notes(
    w: Workload, inst: Instance, spec: GpuSpec | None, f: RowFacts
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reasons, warnings) for one candidate."""
    reasons: list[str] = []
    warnings: list[str] = []
    usable = f.mem_bytes * (1.0 - HEADROOM)
    share = f.need_bytes / f.mem_bytes if f.mem_bytes else float("nan")
    if f.fits and f.kv_free_fraction is not None:
        reasons.append(
            tr(
                "fits: {need} per GPU of {mem} ({share:.0%}): the weights, one step's activations "
                "and the KV cache in {kv:.0%} of the rest",
                need=fmt_bytes(f.need_bytes),
                mem=fmt_bytes(f.mem_bytes),
                share=share,
                kv=f.kv_free_fraction,
            )
        )
    elif f.fits:
        reasons.append(
            tr(
                "fits: {need} per GPU of {mem} ({share:.0%}; limit {limit:.0%} keeps {headroom:.0%} headroom)",
                need=fmt_bytes(f.need_bytes),
                mem=fmt_bytes(f.mem_bytes),
                share=share,
                limit=1 - HEADROOM,
                headroom=HEADROOM,
            )
        )
    else:
        warnings.append(
            tr(
                "does not fit: needs {need} per GPU, {usable} usable on {gpu} even on {nodes} node(s)",
                need=fmt_bytes(f.need_bytes),
                usable=fmt_bytes(usable),
                gpu=inst.gpu_model,
                nodes=f.nodes,
            )
        )
    if f.nodes > 1:
        reasons.append(
            tr("{nodes} nodes × {gpus:g} GPUs (as asked)", nodes=f.nodes, gpus=inst.gpu_count)
            if w.nodes
            else tr(
                "{nodes} nodes × {gpus:g} GPUs (fewer did not fit or missed the deadline)",
                nodes=f.nodes,
                gpus=inst.gpu_count,
            )
        )
        warnings.append(
            tr(
                "multi-node: put all nodes in one zone (placement group / same AZ) and check the "
                "network with iperf3 and nccl-tests first; in the seed's case cross-zone sync took "
                "40% of step time"
            )
        )
    if f.layout is not None and f.gpus > 1:
        tp, pp, dp = f.layout
        text = (
            tr(
                "layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (ZeRO-1), "
                "the fastest that fits",
                tp=tp,
                pp=pp,
                dp=dp,
            )
            if f.fits
            else tr(
                "layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (ZeRO-1), "
                "the one that needs the least memory (none fits)",
                tp=tp,
                pp=pp,
                dp=dp,
            )
        )
        if f.full_shard:  # FSDP (issue 23): its own sentence, so that it translates whole
            text = (
                tr(
                    "layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (FSDP: "
                    "weights, gradients and optimizer sharded), the fastest that fits",
                    tp=tp,
                    pp=pp,
                    dp=dp,
                )
                if f.fits
                else tr(
                    "layout: tensor parallel {tp} × pipeline {pp} × data parallel {dp} (FSDP: "
                    "weights, gradients and optimizer sharded), the one that needs the least "
                    "memory (none fits)",
                    tp=tp,
                    pp=pp,
                    dp=dp,
                )
            )
        if f.context_parallel > 1:
            text += "; " + tr("context parallel {c}", c=f.context_parallel)
        if f.virtual_stages > 1:
            text += "; " + tr("interleaved 1F1B, {v} stages per GPU", v=f.virtual_stages)
        if f.expert_parallel > 1:
            text += "; " + tr("expert parallel {e}", e=f.expert_parallel)
        reasons.append(text)
    if f.fits and f.batch is not None and w.batch is None:
        reasons.append(
            tr(
                "batch {b:.0f}: the most sequences whose KV cache fits beside the weights",
                b=f.batch,
            )
        )
    if f.fits and f.batch is not None and w.batch is not None and f.batch < w.batch:
        reasons.append(
            tr(
                "{b:.0f} of the {want} requested sequences fit in memory beside the weights: "
                "estimated at batch {b:.0f}",
                b=f.batch,
                want=w.global_batch,
            )
        )
    if f.seconds is not None and f.efficiency is not None:
        kind = tr("memory-bandwidth bound (decode)") if f.memory_bound else tr("compute bound")
        reasons.append(
            tr(
                "≈ {time} at {eff:.0%} efficiency (base {base:.0%} × scaling {scaling:.0%}; {kind}); "
                "base from {source}",
                time=fmt_duration(f.seconds),
                eff=f.efficiency,
                base=f.base_eff,
                scaling=f.scaling,
                kind=kind,
                source=tr_text(f.eff_source),
            )
        )
    elif w.is_serving and f.fits:
        pass  # serving rows carry their own numbers (rank.serving.serving_notes)
    elif not inst.gpu_known:
        warnings.append(
            tr("GPU {name!r} is not in the spec table: time unknown", name=inst.gpu_name)
        )
    else:
        warnings.append(
            tr(
                "no {dtype} rate for {gpu} in the sources: time unknown",
                dtype=w.compute_dtype,
                gpu=inst.gpu_model,
            )
        )
    if f.cost_usd is not None:
        # the date as every table shows it: "2026-01-21 (old)" (catalog.asof.price_dated)
        as_of = shown_as_of(inst) or tr("unknown date")
        reasons.append(_price_note(f.cost_usd, f.cost_basis, as_of))
    elif f.seconds is not None and inst.provider != "local":
        warnings.append(_no_price_note(f.cost_basis))
    if f.meets_deadline is False:
        warnings.append(
            tr(
                "misses the deadline of {deadline}",
                deadline=fmt_duration((w.deadline_hours or 0) * 3600),
            )
        )
    if f.within_budget is False:
        warnings.append(tr("over the budget of {budget}", budget=fmt_usd(w.budget_usd)))
    # Compatibility: precision support, CUDA generation, non-CUDA accelerators.
    if f.supported is False and spec is not None:
        need = {"bf16": "8.0 (Ampere)", "fp8": "8.9 (Ada/Hopper)", "tf32": "8.0"}.get(
            w.compute_dtype, ""
        )
        cc = ".".join(map(str, spec.cuda_cc)) if spec.cuda_cc else "?"
        text = (
            N_("{precision} is not supported on {gpu} (compute capability {cc}; needs ≥ {need})")
            if need
            else N_("{precision} is not supported on {gpu} (compute capability {cc})")
        )
        warnings.append(tr(text, precision=w.precision, gpu=inst.gpu_model, cc=cc, need=need))
    if spec is not None and not spec.is_nvidia:
        stack = "ROCm" if (spec.vendor or "").upper() == "AMD" else "AWS Neuron SDK"
        warnings.append(
            tr("not a CUDA device: needs a {stack} build of the framework", stack=stack)
        )
    elif spec is not None and spec.cuda_cc is not None and spec.cuda_cc < (5, 0):
        warnings.append(
            tr(
                "compute capability {major}.{minor}: CUDA 12 dropped Kepler; current PyTorch builds "
                "need CUDA 11.7+ (seed) — check driver/toolkit compatibility",
                major=spec.cuda_cc[0],
                minor=spec.cuda_cc[1],
            )
        )
    if w.scenario == "hpc-fp64" and spec is not None:
        fp64 = spec.peak_tflops("fp64")
        if fp64 is None:
            warnings.append(tr("FP64 rate of {gpu} is not in the sources", gpu=inst.gpu_model))
        elif spec.fp32_tflops and fp64 < spec.fp32_tflops / 8:
            warnings.append(
                tr(
                    "weak FP64: {fp64:g} TFLOPS (FP32 {fp32:g}); pick a data-center part "
                    "(V100/A100/H100/MI300X) for FP64 work",
                    fp64=fp64,
                    fp32=spec.fp32_tflops,
                )
            )
    if f.fits and w.params > 0 and share < 0.25:
        if f.gpus > 1 and w.deadline_hours is None and w.throughput_per_s is None:
            warnings.append(
                tr(
                    "oversized: the job uses {share:.0%} of each GPU's memory on {gpus:g} GPUs; "
                    "fewer or smaller GPUs would do",
                    share=share,
                    gpus=f.gpus,
                )
            )
        elif any(inst.gpu_model.startswith(t) for t in _TOP_CLASS):
            warnings.append(
                tr(
                    "oversized GPU for a {billions:.2g}B-parameter model ({share:.0%} of memory): "
                    "a smaller GPU is likely cheaper per result",
                    billions=w.params / 1e9,
                    share=share,
                )
            )
    if inst.source.startswith("seed:"):
        warnings.append(tr("figures from a seed document, not verified against a catalog"))
    if "add n1" in inst.notes:
        warnings.append(tr("GCP GPU attachment: price excludes the n1 host VM"))
    if inst.gpu_count < 1:
        warnings.append(
            tr("GPU partition ({count:g} of a GPU): memory and rate scaled", count=inst.gpu_count)
        )
    return tuple(reasons), tuple(warnings)


def _price_note(cost_usd: float, basis: str, as_of: str) -> str:
    """The job's cost on ``basis`` (``--billing``) and the prices' date, one sentence."""
    if basis == "spot":
        return tr("{cost} spot (prices as of {date})", cost=fmt_usd(cost_usd), date=as_of)
    if basis == "on-demand":
        return tr("{cost} on-demand (prices as of {date})", cost=fmt_usd(cost_usd), date=as_of)
    if basis == "monthly":
        return tr(
            "{cost} on a monthly subscription, in whole months (prices as of {date})",
            cost=fmt_usd(cost_usd),
            date=as_of,
        )
    from gpuprof.recommend.rank.billing import basis_label

    return tr(
        "{cost} {basis} (prices as of {date})",
        cost=fmt_usd(cost_usd),
        basis=basis_label(basis),
        date=as_of,
    )


def _no_price_note(basis: str) -> str:
    """What a row lacks to be priced on ``basis`` (``--billing``)."""
    if basis == "spot":
        return tr("no spot price in the catalog")
    if basis == "on-demand":
        return tr("no on-demand price in the catalog")
    from gpuprof.recommend.rank.billing import basis_label

    return tr("no {basis} price in the catalog", basis=basis_label(basis))


def fmt_duration_ms(seconds: float) -> str:
    """Latency: milliseconds below 10 s, else the usual duration."""
    if seconds < 10.0:
        return f"{seconds * 1000.0:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000.0:.1f} ms"
    return fmt_duration(seconds)
