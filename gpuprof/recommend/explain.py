"""Reasons and warnings for one recommendation row, including the seed documents' pitfalls."""

from __future__ import annotations

from dataclasses import dataclass

from gpuprof.catalog.instances import Instance
from gpuprof.catalog.specs import GpuSpec
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


def global_warnings(w: Workload, local_util_pct: float | None) -> tuple[str, ...]:
    out = []
    if local_util_pct is not None and local_util_pct < UTIL_THRESHOLD_PCT:
        out.append(
            f"local GPU utilization is {fmt_pct(local_util_pct)} (< {UTIL_THRESHOLD_PCT:.0f}%): fix "
            "the input pipeline first (DataLoader workers/prefetch, DALI, faster storage) — a "
            "bigger GPU would idle too (seed pitfall: BERT on H100 at <30% utilization cost 2.8× "
            "an A100 setup)"
        )
    if w.spot:
        out.append(
            f"spot: +{10}% time assumed for checkpoints and restarts; save checkpoints often "
            "(interruptions come with little or no notice) and keep inference on on-demand or "
            "reserved capacity"
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
    if f.fits:
        reasons.append(
            f"fits: {fmt_bytes(f.need_bytes)} per GPU of {fmt_bytes(f.mem_bytes)} "
            f"({share:.0%}; limit {1 - HEADROOM:.0%} keeps {HEADROOM:.0%} headroom)"
        )
    else:
        warnings.append(
            f"does not fit: needs {fmt_bytes(f.need_bytes)} per GPU, {fmt_bytes(usable)} usable "
            f"on {inst.gpu_model} even on {f.nodes} node(s)"
        )
    if f.nodes > 1:
        reasons.append(f"{f.nodes} nodes × {inst.gpu_count:g} GPUs (fewer did not fit or missed the deadline)")
        warnings.append(
            "multi-node: put all nodes in one zone (placement group / same AZ) and check the "
            "network with iperf3 and nccl-tests first; in the seed's case cross-zone sync took "
            "40% of step time"
        )
    if f.seconds is not None and f.efficiency is not None:
        kind = "memory-bandwidth bound (decode)" if f.memory_bound else "compute bound"
        reasons.append(
            f"≈ {fmt_duration(f.seconds)} at {f.efficiency:.0%} efficiency "
            f"(base {f.base_eff:.0%} × scaling {f.scaling:.0%}; {kind}); base from {f.eff_source}"
        )
    elif not inst.gpu_known:
        warnings.append(f"GPU {inst.gpu_name!r} is not in the spec table: time unknown")
    else:
        warnings.append(f"no {w.compute_dtype} rate for {inst.gpu_model} in the sources: time unknown")
    if f.cost_usd is not None:
        reasons.append(f"{fmt_usd(f.cost_usd)} {f.cost_basis} (prices as of {inst.as_of or 'unknown date'})")
    elif f.seconds is not None and inst.provider != "local":
        warnings.append(f"no {f.cost_basis} price in the catalog")
    if f.meets_deadline is False:
        warnings.append(f"misses the deadline of {fmt_duration((w.deadline_hours or 0) * 3600)}")
    if f.within_budget is False:
        warnings.append(f"over the budget of {fmt_usd(w.budget_usd)}")
    # Compatibility: precision support, CUDA generation, non-CUDA accelerators.
    if f.supported is False and spec is not None:
        need = {"bf16": "8.0 (Ampere)", "fp8": "8.9 (Ada/Hopper)", "tf32": "8.0"}.get(w.compute_dtype, "")
        cc = ".".join(map(str, spec.cuda_cc)) if spec.cuda_cc else "?"
        warnings.append(
            f"{w.precision} is not supported on {inst.gpu_model} (compute capability {cc}"
            + (f"; needs ≥ {need}" if need else "") + ")"
        )
    if spec is not None and not spec.is_nvidia:
        stack = "ROCm" if (spec.vendor or "").upper() == "AMD" else "AWS Neuron SDK"
        warnings.append(f"not a CUDA device: needs a {stack} build of the framework")
    elif spec is not None and spec.cuda_cc is not None and spec.cuda_cc < (5, 0):
        warnings.append(
            f"compute capability {spec.cuda_cc[0]}.{spec.cuda_cc[1]}: CUDA 12 dropped Kepler; "
            "current PyTorch builds need CUDA 11.7+ (seed) — check driver/toolkit compatibility"
        )
    if w.scenario == "hpc-fp64" and spec is not None:
        fp64 = spec.peak_tflops("fp64")
        if fp64 is None:
            warnings.append(f"FP64 rate of {inst.gpu_model} is not in the sources")
        elif spec.fp32_tflops and fp64 < spec.fp32_tflops / 8:
            warnings.append(
                f"weak FP64: {fp64:g} TFLOPS (FP32 {spec.fp32_tflops:g}); pick a data-center part "
                "(V100/A100/H100/MI300X) for FP64 work"
            )
    if f.fits and w.params > 0 and share < 0.25:
        if f.gpus > 1 and w.deadline_hours is None and w.throughput_per_s is None:
            warnings.append(
                f"oversized: the job uses {share:.0%} of each GPU's memory on {f.gpus:g} GPUs; "
                "fewer or smaller GPUs would do"
            )
        elif any(inst.gpu_model.startswith(t) for t in _TOP_CLASS):
            warnings.append(
                f"oversized GPU for a {w.params / 1e9:.2g}B-parameter model ({share:.0%} of memory): "
                "a smaller GPU is likely cheaper per result"
            )
    if inst.source.startswith("seed:"):
        warnings.append("figures from a seed document, not verified against a catalog")
    if "add n1" in inst.notes:
        warnings.append("GCP GPU attachment: price excludes the n1 host VM")
    if inst.gpu_count < 1:
        warnings.append(f"GPU partition ({inst.gpu_count:g} of a GPU): memory and rate scaled")
    return tuple(reasons), tuple(warnings)
