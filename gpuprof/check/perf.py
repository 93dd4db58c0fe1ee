"""Performance against a reference: the benchmark cases a check runs and how they are graded.

The measurements are the existing benchmarks' (:mod:`gpuprof.bench`), driven by their runner;
this module only picks the cases and turns their results into scorecard items, each with the
reference it was compared with (:mod:`gpuprof.check.reference`) and the spec peak.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpuprof.bench.base import CollectiveResult, GemmResult, MemoryResult, P2PResult, Result
from gpuprof.bench.plan import Case
from gpuprof.catalog.specs import GpuSpec
from gpuprof.check.model import CheckItem, Status, Thresholds
from gpuprof.check.reference import Reference, lookup
from gpuprof.i18n import N_

__all__ = [
    "CPU_GEMM_SHAPES",
    "CaseBudget",
    "grade_results",
    "pcie_bytes_s",
    "perf_budgets",
    "perf_cases",
]

#: The CPU's quick calibration: small squares, so the whole check stays within seconds.
CPU_GEMM_SHAPES = [("", 256, 256, 256), ("", 512, 512, 512)]
_CPU_HOST_SIZES = [8 * 1024 * 1024, 32 * 1024 * 1024]
_CUDA_GEMM = ("bf16", "fp16", "tf32", "fp8")
# PCIe payload per lane and direction (GB/s) after 128b/130b encoding: 8, 16, 32 GT/s.
_PCIE_LANE_GBS = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.877}
_CPU_HINT = N_("the CPU was busy or its clock varied during the run: rerun on an idle machine")
#: The CPU's case budgets scale with the level.
_CPU_FACTOR = {"quick": 1.0, "standard": 3.0, "burn-in": 3.0}
#: Seconds per case on a GPU, per level, and the GEMM dtypes each level runs. Chosen so that
#: the whole check fits its time budget on an 8-GPU node (quick 3 min, standard 10 min) by the
#: estimate of :mod:`gpuprof.check.plan`; the per-GPU cases run once per GPU, one GPU after the
#: other, so they are short; P2P and collectives run once for the node. The host copies get
#: more than D2D: they time pageable sizes before the pinned ones that are graded.
_GPU_BUDGET_S: dict[str, dict[str, float]] = {
    "quick": {"gemm": 2.0, "h2d": 2.0, "d2h": 2.0, "d2d": 1.0, "p2p": 12.0},
    "standard": {
        "gemm": 5.0,
        "h2d": 4.0,
        "d2h": 4.0,
        "d2d": 3.0,
        "p2p": 30.0,
        "collective": 40.0,
    },
}
#: quick: BF16 only (the tensor-core path every later dtype shares); standard: all four.
_GPU_GEMM = {"quick": ("bf16",), "standard": _CUDA_GEMM}


def pcie_bytes_s(gen: int | None, width: int | None) -> float | None:
    """The link's payload rate per direction in bytes/s (PCIe spec rates); None if unknown."""
    lane = _PCIE_LANE_GBS.get(gen or 0)
    return lane * width * 1e9 if lane and width else None


@dataclass(frozen=True, slots=True)
class CaseBudget:
    """One benchmark case of a check and its time budget (what the runner is given)."""

    bench: str
    name: str
    budget_s: float
    arg: str  # the dtype or copy direction ("" for P2P and collectives)


def perf_budgets(device: str, level: str, gpu_count: int) -> list[CaseBudget]:
    """The cases of a check on ``device`` (``cpu`` or ``cuda:N``) with their budgets, without
    building them (the planner reads these; :func:`perf_cases` builds the same list)."""
    if device == "cpu":
        f = _CPU_FACTOR.get(level, 1.0)
        return [
            CaseBudget("gemm", "gemm fp32", 5.0 * f, "fp32"),
            CaseBudget("memory", "memory host", 3.0 * f, "host"),
        ]
    key = "quick" if level == "quick" else "standard"
    budget = _GPU_BUDGET_S[key]
    out = [CaseBudget("gemm", f"gemm {d}", budget["gemm"], d) for d in _GPU_GEMM[key]]
    out += [CaseBudget("memory", f"memory {d}", budget[d], d) for d in ("h2d", "d2h", "d2d")]
    if gpu_count >= 2:
        out.append(CaseBudget("p2p", "p2p", budget["p2p"], ""))
        if "collective" in budget:
            out.append(CaseBudget("collective", "collectives", budget["collective"], ""))
    return out


def perf_cases(device: str, level: str, gpu_count: int) -> list[Case]:
    """The benchmark cases of a check on ``device`` (``cpu`` or ``cuda:N``)."""
    from gpuprof.bench.collective import collective_bench
    from gpuprof.bench.gemm import gemm_bench
    from gpuprof.bench.memory import memory_bench
    from gpuprof.bench.p2p import p2p_bench

    cases: list[Case] = []
    for b in perf_budgets(device, level, gpu_count):
        cpu = device == "cpu"
        if b.bench == "gemm":
            fn = gemm_bench(b.arg, CPU_GEMM_SHAPES if cpu else None)
        elif b.bench == "memory":
            fn = memory_bench(b.arg, _CPU_HOST_SIZES if cpu else None)
        elif b.bench == "p2p":
            fn = p2p_bench()
        else:
            fn = collective_bench()
        cases.append(Case(b.bench, b.name, fn, b.budget_s))
    return cases


def _perf(item_id: str, status: Status, **kw: object) -> CheckItem:
    return CheckItem(item_id=item_id, group="performance", status=status, **kw)  # type: ignore[arg-type]


def _graded(
    item_id: str,
    measured: float,
    ref: Reference | None,
    peak: float | None,
    thresholds: Thresholds,
    *,
    unit: str,
    hint: str,
) -> CheckItem:
    if ref is None:
        return _perf(
            item_id,
            Status.SKIP,
            measured=round(measured, 3),
            unit=unit,
            reason=N_("no reference and no spec peak for this GPU"),
        )
    ratio = measured / ref.value
    status = thresholds.grade(ratio)
    of_peak = f"{100 * measured / peak:.0f}% of spec peak {peak:g}" if peak else ""
    return _perf(
        item_id,
        status,
        measured=round(measured, 3),
        expected=round(ref.value, 3),
        ratio=round(ratio, 4),
        unit=unit,
        reason=of_peak,
        hint="" if status is Status.PASS else hint,
        source=f"{ref.kind}: {ref.source}" if not ref.source.startswith(ref.kind) else ref.source,
    )


def grade_results(
    results: Sequence[Result],
    *,
    device: str,
    spec: GpuSpec | None,
    thresholds: Thresholds,
    golden: Mapping[tuple[str, str], Reference] | None = None,
    pcie: tuple[int | None, int | None] = (None, None),
) -> list[CheckItem]:
    """Scorecard items from benchmark results (one per dtype / direction / link / collective)."""
    cpu = device == "cpu"
    model = "CPU" if cpu else (spec.key if spec else "")
    items: list[CheckItem] = []
    gemms: dict[str, list[GemmResult]] = {}
    for r in results:
        if isinstance(r, GemmResult) and r.ok:
            gemms.setdefault(r.dtype, []).append(r)
    skipped = [r for r in results if not r.ok]
    ref: Reference | None
    for dtype, rows in gemms.items():
        best = max(rows, key=lambda g: g.tflops_median)
        item_id = f"perf.gemm_{dtype}"
        if cpu and golden and ("CPU", f"gemm_{dtype}") in golden:
            ref = golden[("CPU", f"gemm_{dtype}")]
            peak = None
        elif cpu:
            ref = Reference(
                model,
                f"gemm_{dtype}",
                best.tflops_max,
                "TFLOPS",
                "calibration",
                N_("calibration: the best iteration of this run on this CPU (not published)"),
            )
            peak = None
        else:
            peak = spec.peak_tflops(dtype) if spec else None
            ref = lookup(model, f"gemm_{dtype}", peak=peak, unit="TFLOPS", golden=golden)
        items.append(
            _graded(
                item_id,
                best.tflops_median,
                ref,
                peak,
                thresholds,
                unit="TFLOPS",
                hint=_CPU_HINT
                if cpu
                else N_(
                    "check clocks, power cap and throttle reasons (`nvidia-smi -q -d PERFORMANCE`)"
                ),
            )
        )
    mems: dict[str, list[MemoryResult]] = {}
    for r in results:
        if isinstance(r, MemoryResult) and r.ok and r.pinned is not False:
            mems.setdefault(r.direction, []).append(r)
    for direction, mrows in mems.items():
        # The largest copy: past the caches, as the reference is meant.
        best_m = max(mrows, key=lambda m: (m.size_bytes, m.bandwidth_bytes_s))
        measured = best_m.bandwidth_bytes_s * best_m.traffic_factor / 1e9
        item_id = f"perf.memcpy_{direction}"
        mref: Reference | None
        if cpu and golden and ("CPU", item_id[5:]) in golden:
            mref = golden[("CPU", item_id[5:])]
            mpeak = None
        elif cpu:
            mref = Reference(
                model,
                item_id,
                best_m.bandwidth_max_bytes_s * best_m.traffic_factor / 1e9,
                "GB/s",
                "calibration",
                N_("calibration: the fastest sample of this run on this CPU (not published)"),
            )
            mpeak = None
        elif direction == "d2d":
            mpeak = spec.memory_bw_gbs if spec else None
            mref = lookup(model, f"memcpy_{direction}", peak=mpeak, unit="GB/s", golden=golden)
        else:
            link = pcie_bytes_s(*pcie)
            mpeak = link / 1e9 if link else None
            mref = lookup(model, f"memcpy_{direction}", peak=mpeak, unit="GB/s", golden=golden)
        items.append(
            _graded(
                item_id,
                measured,
                mref,
                mpeak,
                thresholds,
                unit="GB/s",
                hint=_CPU_HINT
                if cpu
                else N_(
                    "check the PCIe link (gen/width at load) and NUMA placement of the host buffer"
                ),
            )
        )
    items.extend(_p2p_items(results, model, spec, thresholds, golden))
    items.extend(_collective_items(results, model, spec, thresholds, golden))
    for r in skipped:
        items.append(
            _perf(f"perf.{r.bench}_{r.case}".replace(" ", "_"), Status.SKIP, reason=r.status)
        )
    return items


def _link_peak_gbs(spec: GpuSpec | None) -> float | None:
    if spec is None or not spec.interconnect_gbs_bidir:
        return None
    return spec.interconnect_gbs_bidir / 2  # one direction


def _p2p_items(
    results: Sequence[Result],
    model: str,
    spec: GpuSpec | None,
    thresholds: Thresholds,
    golden: Mapping[tuple[str, str], Reference] | None,
) -> list[CheckItem]:
    out: list[CheckItem] = []
    peak = _link_peak_gbs(spec)
    for r in results:
        if not (isinstance(r, P2PResult) and r.ok):
            continue
        ref = lookup(model, "p2p_uni", peak=peak, unit="GB/s", golden=golden)
        for i, row in enumerate(r.uni_bw_on_bytes_s):
            for j, v in enumerate(row):
                if i == j or v is None:
                    continue
                out.append(
                    _graded(
                        f"perf.p2p_{r.devices[i]}_{r.devices[j]}",
                        v / 1e9,
                        ref,
                        peak,
                        thresholds,
                        unit="GB/s",
                        hint=N_(
                            "check the fabric manager (nvidia-fabricmanager) service and `nvidia-smi topo -m`"
                        ),
                    )
                )
    return out


def _collective_items(
    results: Sequence[Result],
    model: str,
    spec: GpuSpec | None,
    thresholds: Thresholds,
    golden: Mapping[tuple[str, str], Reference] | None,
) -> list[CheckItem]:
    rows = [r for r in results if isinstance(r, CollectiveResult) and r.ok and r.op == "all_reduce"]
    if not rows:
        return []
    largest = max(rows, key=lambda c: c.size_bytes)
    peak = _link_peak_gbs(spec)
    # Published busbw is per world size (nccl-tests on a whole 8-GPU node, say): keyed by it.
    metric = f"allreduce_busbw_{largest.world_size}gpu"
    ref = lookup(model, metric, peak=peak, unit="GB/s", golden=golden)
    item = _graded(
        "perf.allreduce_busbw",
        largest.busbw_bytes_s / 1e9,
        ref,
        peak,
        thresholds,
        unit="GB/s",
        hint=N_("check NCCL_* settings, the fabric manager and NVLink state"),
    )
    p99 = _perf(
        "perf.allreduce_p99",
        Status.PASS,
        measured=round(largest.latency_p99_s * 1e6, 1),
        unit="µs",
        reason=N_("latency at the largest size; no published reference"),
    )
    return [item, p99]
