"""Performance against a reference: the benchmark cases a check runs and how they are graded.

The measurements are the existing benchmarks' (:mod:`gpuprof.bench`), driven by their runner;
this module only picks the cases and turns their results into scorecard items, each with the
reference it was compared with (:mod:`gpuprof.check.reference`) and the spec peak.

A device whose speed varies from run to run (a CPU shared with other work, its clock moving)
runs the same cases several times (:func:`perf_runs`). Each item is graded on the median of the
runs, and only when they agree: a spread ((max − min) / median) wider than the thresholds'
margin (:attr:`~gpuprof.check.model.Thresholds.margin`) makes the item INFO, "too noisy to
grade", rather than a PASS, WARN or FAIL that the next run would contradict. The rule is the
same on every device; a single run (a GPU's) has no spread and is graded as it is.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from gpuprof.bench.base import CollectiveResult, GemmResult, MemoryResult, P2PResult, Result
from gpuprof.bench.plan import Case
from gpuprof.catalog.specs import GpuSpec
from gpuprof.check.model import CheckItem, Status, Thresholds
from gpuprof.check.reference import Reference, lookup
from gpuprof.i18n import N_

__all__ = [
    "CPU_GEMM_SHAPES",
    "CaseBudget",
    "grade_runs",
    "pcie_bytes_s",
    "perf_budgets",
    "perf_cases",
    "perf_runs",
    "spread_of",
]

#: The CPU's quick calibration: small squares, so the whole check stays within seconds.
CPU_GEMM_SHAPES = [("", 256, 256, 256), ("", 512, 512, 512)]
_CPU_HOST_SIZES = [8 * 1024 * 1024, 32 * 1024 * 1024]
_CUDA_GEMM = ("bf16", "fp16", "tf32", "fp8")
# PCIe payload per lane and direction (GB/s) after 128b/130b encoding: 8, 16, 32 GT/s.
_PCIE_LANE_GBS = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.877}
_CPU_HINT = N_("the CPU was busy or its clock varied during the run: rerun on an idle machine")
_GPU_NOISE_HINT = N_(
    "the runs disagree: look for other work on the GPU, and at clocks and throttle reasons "
    "(`nvidia-smi -q -d PERFORMANCE`)"
)
#: The CPU's case budgets (seconds per run) scale with the level. Each run must reach the
#: largest copy (32 MiB, past the caches) even on a busy machine, or runs would be graded on
#: different sizes: 2 s for the copies, 3 s for the two products.
_CPU_FACTOR = {"quick": 1.0, "standard": 3.0, "burn-in": 3.0}
_CPU_BUDGET_S = {"gemm": 3.0, "memory": 2.0}
#: Runs of the same cases: a CPU's speed varies with whatever else the machine does, so it is
#: measured three times and graded on the median, when the runs agree. A GPU runs once (its
#: budgets are sized for an 8-GPU node; see :mod:`gpuprof.check.plan`).
_CPU_RUNS = 3
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
    """One benchmark case of a check, its time budget per run (what the runner is given) and
    how many runs measure it (:func:`perf_runs`)."""

    bench: str
    name: str
    budget_s: float
    arg: str  # the dtype or copy direction ("" for P2P and collectives)
    runs: int = 1


def perf_runs(device: str) -> int:
    """How many times a check runs its cases on ``device``: 3 on the CPU, else 1."""
    return _CPU_RUNS if device == "cpu" else 1


def perf_budgets(device: str, level: str, gpu_count: int) -> list[CaseBudget]:
    """The cases of a check on ``device`` (``cpu`` or ``cuda:N``) with their budgets, without
    building them (the planner reads these; :func:`perf_cases` builds the same list)."""
    if device == "cpu":
        f = _CPU_FACTOR.get(level, 1.0)
        runs = perf_runs(device)
        return [
            CaseBudget("gemm", "gemm fp32", _CPU_BUDGET_S["gemm"] * f, "fp32", runs),
            CaseBudget("memory", "memory host", _CPU_BUDGET_S["memory"] * f, "host", runs),
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
    """The benchmark cases of one run of a check on ``device`` (``cpu`` or ``cuda:N``); a
    check makes :func:`perf_runs` such runs."""
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


def _sig(value: float) -> float:
    """Six significant digits for the JSON (a CPU's 0.000134 TFLOPS is not rounded to 0)."""
    return float(f"{value:.6g}")


def spread_of(values: Sequence[float]) -> float | None:
    """How much repeated runs disagree: (max − min) / median; None for fewer than two runs (or
    a median of nothing measured, which grades as what it is)."""
    if len(values) < 2:
        return None
    median = statistics.median(values)
    return (max(values) - min(values)) / median if median > 0 else None


def _percents(*ratios: float) -> list[str]:
    """Ratios as percentages, with the decimals that keep different values apart ("spread
    10.4% > margin 10%", not "10% > 10%")."""
    digits = 0
    while digits < 3 and len({round(100 * r, digits) for r in ratios}) < len(set(ratios)):
        digits += 1
    return [f"{100 * r:.{digits}f}" for r in ratios]


def _graded(
    item_id: str,
    runs: Sequence[float],
    ref: Reference | None,
    peak: float | None,
    thresholds: Thresholds,
    *,
    unit: str,
    hint: str,
    noise_hint: str,
    no_reference: str = N_("no reference and no spec peak for this GPU"),
    planned: int = 1,
) -> CheckItem:
    """One item from its value in each run that measured it (of ``planned`` runs): graded on
    their median when they agree and a reference exists, INFO (measured, not graded) when
    they disagree, when only one of several runs measured it, or with nothing to compare."""
    measured = statistics.median(runs)
    raw = spread_of(runs)
    # Rounded once: what the JSON keeps is what was compared with the margin.
    spread = None if raw is None else round(raw, 4)
    about = (
        N_("median of {n} runs, spread {s}%").format(n=len(runs), s=f"{100 * spread:.0f}")
        if spread is not None
        else ""
    )
    seen = {
        "measured": _sig(measured),
        "unit": unit,
        "runs": tuple(_sig(v) for v in runs),
        "spread": spread,
    }
    if ref is None:
        return _perf(item_id, Status.INFO, reason=_joined(no_reference, about), **seen)
    ratio = measured / ref.value
    source = f"{ref.kind}: {ref.source}" if not ref.source.startswith(ref.kind) else ref.source
    compared = {"expected": _sig(ref.value), "ratio": round(ratio, 4), "source": source, **seen}
    if planned > 1 and len(runs) < 2:
        few = N_("measured in {n} of {m} runs: too few to grade").format(n=len(runs), m=planned)
        return _perf(item_id, Status.INFO, reason=few, hint=noise_hint, **compared)
    if spread is not None and spread > thresholds.margin:
        s, m = _percents(spread, thresholds.margin)
        noisy = N_("too noisy to grade: spread {s}% > margin {m}% over {n} runs").format(
            s=s, m=m, n=len(runs)
        )
        return _perf(item_id, Status.INFO, reason=noisy, hint=noise_hint, **compared)
    status = thresholds.grade(ratio)
    of_peak = f"{100 * measured / peak:.0f}% of spec peak {peak:g}" if peak else ""
    return _perf(
        item_id,
        status,
        reason=_joined(of_peak, about),
        hint="" if status is Status.PASS else hint,
        **compared,
    )


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


K = TypeVar("K", bound=Hashable)


def _series(
    runs: Sequence[Sequence[Result]], values_of: Callable[[Sequence[Result]], Mapping[K, float]]
) -> dict[K, list[float]]:
    """Each measurement's value in every run that made it, in run order."""
    out: dict[K, list[float]] = {}
    for results in runs:
        for key, value in values_of(results).items():
            out.setdefault(key, []).append(value)
    return out


def _gemm_tflops(results: Sequence[Result]) -> dict[tuple[str, str], float]:
    """(dtype, shape) → TFLOPS (median iteration) of one run; the best if measured twice."""
    out: dict[tuple[str, str], float] = {}
    for r in results:
        if isinstance(r, GemmResult) and r.ok:
            key = (r.dtype, r.case)
            out[key] = max(out.get(key, 0.0), r.tflops_median)
    return out


def _copy_gbs(results: Sequence[Result]) -> dict[tuple[str, int], float]:
    """(direction, size) → memory traffic in GB/s (median sample) of one run; pinned copies
    only for h2d/d2h (pageable ones are not graded)."""
    out: dict[tuple[str, int], float] = {}
    for r in results:
        if isinstance(r, MemoryResult) and r.ok and r.pinned is not False:
            key = (r.direction, r.size_bytes)
            gbs = r.bandwidth_bytes_s * r.traffic_factor / 1e9
            out[key] = max(out.get(key, 0.0), gbs)
    return out


def grade_runs(
    runs: Sequence[Sequence[Result]],
    *,
    device: str,
    spec: GpuSpec | None,
    thresholds: Thresholds,
    golden: Mapping[tuple[str, str], Reference] | None = None,
    pcie: tuple[int | None, int | None] = (None, None),
) -> list[CheckItem]:
    """Scorecard items (one per dtype / direction / link / collective) from the results of the
    same cases run ``len(runs)`` times, each graded on the median of its runs.

    On the CPU nothing is published and there is no spec peak: an item is graded only against a
    golden machine's value (``golden``, keyed ``("CPU", metric)``), else it is INFO with what
    was measured. Comparing a run with its own best iteration, as this once did, graded the
    run's noise, not the machine.
    """
    cpu = device == "cpu"
    model = "CPU" if cpu else (spec.key if spec else "")
    hint_noise = _CPU_HINT if cpu else _GPU_NOISE_HINT
    no_reference = (
        N_("no reference for this CPU: save one with --save-reference on a known-good machine")
        if cpu
        else N_("no reference and no spec peak for this GPU")
    )
    items: list[CheckItem] = []
    ref: Reference | None
    gemm = _series(runs, _gemm_tflops)
    for dtype in dict.fromkeys(d for d, _shape in gemm):
        shapes = {shape: v for (d, shape), v in gemm.items() if d == dtype}
        # The shape this device does best (on the median of the runs), as mamf-finder
        # reports; of the shapes measured in the most runs, so that a shape one busy run
        # skipped is not graded on the others alone.
        values = max(shapes.values(), key=lambda v: (len(v), statistics.median(v)))
        if cpu:
            ref = (golden or {}).get(("CPU", f"gemm_{dtype}"))
            peak = None
        else:
            peak = spec.peak_tflops(dtype) if spec else None
            ref = lookup(model, f"gemm_{dtype}", peak=peak, unit="TFLOPS", golden=golden)
        items.append(
            _graded(
                f"perf.gemm_{dtype}",
                values,
                ref,
                peak,
                thresholds,
                unit="TFLOPS",
                hint=_CPU_HINT
                if cpu
                else N_(
                    "check clocks, power cap and throttle reasons (`nvidia-smi -q -d PERFORMANCE`)"
                ),
                noise_hint=hint_noise,
                no_reference=no_reference,
                planned=len(runs),
            )
        )
    copies = _series(runs, _copy_gbs)
    for direction in dict.fromkeys(d for d, _size in copies):
        # The largest copy (past the caches, as the reference is meant) of those measured in
        # the most runs.
        size = max(
            (z for d, z in copies if d == direction), key=lambda z: (len(copies[(direction, z)]), z)
        )
        metric = f"memcpy_{direction}"
        mpeak: float | None
        if cpu:
            ref = (golden or {}).get(("CPU", metric))
            mpeak = None
        elif direction == "d2d":
            mpeak = spec.memory_bw_gbs if spec else None
            ref = lookup(model, metric, peak=mpeak, unit="GB/s", golden=golden)
        else:
            link = pcie_bytes_s(*pcie)
            mpeak = link / 1e9 if link else None
            ref = lookup(model, metric, peak=mpeak, unit="GB/s", golden=golden)
        items.append(
            _graded(
                f"perf.{metric}",
                copies[(direction, size)],
                ref,
                mpeak,
                thresholds,
                unit="GB/s",
                hint=_CPU_HINT
                if cpu
                else N_(
                    "check the PCIe link (gen/width at load) and NUMA placement of the host buffer"
                ),
                noise_hint=hint_noise,
                no_reference=no_reference,
                planned=len(runs),
            )
        )
    between = _LinkGrading(model, spec, thresholds, golden)
    items.extend(_p2p_items(runs, between))
    items.extend(_collective_items(runs, between))
    # What no run measured, once (a shape skipped in one run and measured in another is not).
    measured = {r.key for results in runs for r in results if r.ok}
    skipped: dict[str, Result] = {}
    for results in runs:
        for r in results:
            if not r.ok and r.key not in measured:
                skipped.setdefault(r.key, r)
    for r in skipped.values():
        items.append(
            _perf(f"perf.{r.bench}_{r.case}".replace(" ", "_"), Status.SKIP, reason=r.status)
        )
    return items


@dataclass(frozen=True, slots=True)
class _LinkGrading:
    """What the GPU-to-GPU items (peer copies, all-reduce) are graded against: the GPU model's
    references and its spec's link peak, one direction."""

    model: str
    spec: GpuSpec | None
    thresholds: Thresholds
    golden: Mapping[tuple[str, str], Reference] | None

    @property
    def peak_gbs(self) -> float | None:
        bidir = self.spec.interconnect_gbs_bidir if self.spec else None
        return bidir / 2 if bidir else None  # one direction

    def reference(self, metric: str) -> Reference | None:
        return lookup(self.model, metric, peak=self.peak_gbs, unit="GB/s", golden=self.golden)


def _p2p_gbs(results: Sequence[Result]) -> dict[tuple[int, int], float]:
    """(source GPU, destination GPU) → unidirectional GB/s with peer access, of one run."""
    out: dict[tuple[int, int], float] = {}
    for r in results:
        if not (isinstance(r, P2PResult) and r.ok):
            continue
        for i, row in enumerate(r.uni_bw_on_bytes_s):
            for j, v in enumerate(row):
                if i != j and v is not None:
                    out[(r.devices[i], r.devices[j])] = v / 1e9
    return out


def _p2p_items(runs: Sequence[Sequence[Result]], link: _LinkGrading) -> list[CheckItem]:
    pairs = _series(runs, _p2p_gbs)
    if not pairs:
        return []
    ref = link.reference("p2p_uni")
    return [
        _graded(
            f"perf.p2p_{src}_{dst}",
            values,
            ref,
            link.peak_gbs,
            link.thresholds,
            unit="GB/s",
            hint=N_(
                "check the fabric manager (nvidia-fabricmanager) service and `nvidia-smi topo -m`"
            ),
            noise_hint=_GPU_NOISE_HINT,
            planned=len(runs),
        )
        for (src, dst), values in pairs.items()
    ]


def _largest_allreduce(results: Sequence[Result]) -> CollectiveResult | None:
    rows = [r for r in results if isinstance(r, CollectiveResult) and r.ok and r.op == "all_reduce"]
    return max(rows, key=lambda c: c.size_bytes) if rows else None


def _collective_items(runs: Sequence[Sequence[Result]], link: _LinkGrading) -> list[CheckItem]:
    largest = [c for c in map(_largest_allreduce, runs) if c is not None]
    if not largest:
        return []
    # Published busbw is per world size (nccl-tests on a whole 8-GPU node, say): keyed by it.
    item = _graded(
        "perf.allreduce_busbw",
        [c.busbw_bytes_s / 1e9 for c in largest],
        link.reference(f"allreduce_busbw_{largest[0].world_size}gpu"),
        link.peak_gbs,
        link.thresholds,
        unit="GB/s",
        hint=N_("check NCCL_* settings, the fabric manager and NVLink state"),
        noise_hint=_GPU_NOISE_HINT,
        planned=len(runs),
    )
    p99_us = [c.latency_p99_s * 1e6 for c in largest]
    spread = spread_of(p99_us)
    # Measured, never graded: nothing published to hold it against.
    p99 = _perf(
        "perf.allreduce_p99",
        Status.INFO,
        measured=round(statistics.median(p99_us), 1),
        runs=tuple(round(v, 1) for v in p99_us),
        spread=None if spread is None else round(spread, 4),
        unit="µs",
        reason=N_("latency at the largest size; no published reference"),
    )
    return [item, p99]
