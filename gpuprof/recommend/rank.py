"""Rank catalog instances for a workload: fitting first, then the objective; Pareto front.

``recommend(workload, catalog)`` is the entry point for the CLI, the GUI tab and reports.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.instances import STALE_DAYS, Catalog, Instance, is_stale
from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend.estimate import (
    FORMULAS,
    SPOT_OVERHEAD,
    CandidateArrays,
    Estimates,
    build_arrays,
    estimate,
)
from gpuprof.recommend.explain import RowFacts, global_warnings, row_notes, serving_notes
from gpuprof.recommend.serve import BOUNDS, ServeArrays
from gpuprof.recommend.workload import Workload
from gpuprof.units import NA, fmt_usd

__all__ = [
    "OBJECTIVES",
    "LocalMachine",
    "Recommendation",
    "RecommendationRow",
    "ServingRow",
    "recommend",
    "serving_arrays_of",
]

OBJECTIVES = ("auto", "cheapest", "fastest")
_ARRAYS: weakref.WeakKeyDictionary[Catalog, CandidateArrays] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class LocalMachine:
    """The GPUs in front of the user: NVML names with counts, optional measured TFLOPS per dtype.

    With mixed GPUs the most numerous model stands for the machine (a job runs on one kind).
    """

    gpus: tuple[tuple[str, int], ...]
    measured_tflops: Mapping[str, float] = field(default_factory=dict)  # per GPU, by dtype
    util_pct: float | None = None

    @classmethod
    def from_names(cls, names: Iterable[str], **kwargs: object) -> LocalMachine:
        counts: dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        return cls(tuple(counts.items()), **kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ServingRow:
    """A serving row's numbers (:mod:`gpuprof.recommend.serve`), all for the same layout and
    ``instances`` count. Seconds, tokens, USD; percentiles p50/p99 of requests."""

    tp: int
    pp: int
    ep: int
    replicas_per_instance: int
    replicas: int
    instances: int
    batch: float  # mean sequences in flight per replica at this load
    batch_best: int  # the throughput-best batch that meets the targets
    batch_max: int  # sequences the KV cache holds
    kv_cache_tokens: float  # per replica
    request_rate_per_s: float  # the traffic
    output_tokens_per_s: float
    input_tokens_per_s: float
    capacity_tokens_per_s_per_instance: float  # output tokens/s at batch_best
    load: float  # traffic ÷ capacity of the instances
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    tpot_p50_s: float | None
    tpot_p99_s: float | None
    slo_percentile: str
    ttft_target_s: float | None
    tpot_target_s: float | None
    meets_targets: bool
    bound: str
    step_s: float
    usd_per_hour: float | None
    usd_per_million_output: float | None  # split by the step time prompts take
    usd_per_million_input: float | None

    @property
    def ttft_s(self) -> float | None:
        return self.ttft_p99_s if self.slo_percentile == "p99" else self.ttft_p50_s

    @property
    def tpot_s(self) -> float | None:
        return self.tpot_p99_s if self.slo_percentile == "p99" else self.tpot_p50_s

    def to_dict(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True)
class RecommendationRow:
    """One candidate configuration (an instance × nodes). Money in USD, time in hours."""

    instance: Instance
    rank: int
    nodes: int
    gpus_total: float
    fits: bool
    viable: bool  # fits and the precision is not known to be unsupported
    mem_need_per_gpu_bytes: float
    mem_per_gpu_bytes: float
    hours: float | None
    hours_spot: float | None
    price_per_hour_usd: float | None  # for the chosen basis, all nodes
    cost_usd: float | None  # for the chosen basis
    cost_basis: str  # "on-demand" or "spot"
    cost_ondemand_usd: float | None
    cost_spot_usd: float | None
    cost_reserved_1y_usd: float | None
    cost_reserved_3y_usd: float | None
    efficiency: float | None
    efficiency_base: float
    scaling_efficiency: float
    efficiency_source: str
    efficiency_measured: bool
    achieved_tflops: float | None  # whole job
    usd_per_pflop_hour: float | None
    meets_deadline: bool | None
    within_budget: bool | None
    pareto: bool
    speedup_vs_local: float | None  # > 1: this candidate is that many times faster than here
    reasons: tuple[str, ...]
    warnings: tuple[str, ...]
    #: A throughput target: instances that together sustain it, and their cost per million
    #: tokens (or samples); ``price_per_hour_usd`` / ``cost_usd`` are then for all of them.
    instances_needed: int | None = None
    usd_per_million: float | None = None
    #: Training: (tensor, pipeline, data) parallel sizes of the estimate; None otherwise.
    layout: tuple[int, int, int] | None = None
    #: Serving traffic: the continuous-batching estimate (then ``hours`` is None and every
    #: ``cost_*`` is USD per hour of ``instances_needed`` instances); None for a job.
    serving: ServingRow | None = None

    @property
    def label(self) -> str:
        inst = self.instance
        n = f"{self.nodes}× " if self.nodes > 1 else ""
        return f"{inst.provider} {n}{inst.instance}"

    def to_dict(self) -> dict[str, object]:
        inst = self.instance
        return {
            "rank": self.rank,
            "provider": inst.provider,
            "instance": inst.instance,
            "region": inst.region,
            "gpu_model": inst.gpu_model,
            "gpus_per_node": inst.gpu_count,
            "nodes": self.nodes,
            "gpus_total": self.gpus_total,
            "fits": self.fits,
            "viable": self.viable,
            "mem_need_per_gpu_bytes": self.mem_need_per_gpu_bytes,
            "mem_per_gpu_bytes": self.mem_per_gpu_bytes,
            "hours": self.hours,
            "hours_spot": self.hours_spot,
            "price_per_hour_usd": self.price_per_hour_usd,
            "cost_usd": self.cost_usd,
            "cost_basis": self.cost_basis,
            "cost_ondemand_usd": self.cost_ondemand_usd,
            "cost_spot_usd": self.cost_spot_usd,
            "cost_reserved_1y_usd": self.cost_reserved_1y_usd,
            "cost_reserved_3y_usd": self.cost_reserved_3y_usd,
            "efficiency": self.efficiency,
            "efficiency_base": self.efficiency_base,
            "scaling_efficiency": self.scaling_efficiency,
            "efficiency_source": self.efficiency_source,
            "efficiency_measured": self.efficiency_measured,
            "achieved_tflops": self.achieved_tflops,
            "usd_per_pflop_hour": self.usd_per_pflop_hour,
            "meets_deadline": self.meets_deadline,
            "within_budget": self.within_budget,
            "pareto": self.pareto,
            "speedup_vs_local": self.speedup_vs_local,
            "price_as_of": inst.as_of,
            "source": inst.source,
            "instances_needed": self.instances_needed,
            "usd_per_million": self.usd_per_million,
            "layout": (
                None
                if self.layout is None
                else dict(zip(("tp", "pp", "dp"), self.layout, strict=True))
            ),
            "cost_unit": "usd_per_hour" if self.serving is not None else "usd",
            "serving": None if self.serving is None else self.serving.to_dict(),
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Recommendation:
    workload: Workload
    objective: str
    rows: tuple[RecommendationRow, ...]  # ranked, at most ``limit``
    candidates: int  # instances considered
    viable: int  # of which fit (and support the precision)
    local: RecommendationRow | None
    warnings: tuple[str, ...]
    formulas: tuple[str, ...] = FORMULAS
    #: (hours, cost_usd, pareto) of every viable candidate with both numbers: the scatter plot.
    #: Serving: (output tokens/s per instance, USD per million output tokens, pareto).
    scatter: tuple[tuple[float, float, bool], ...] = ()
    #: What the scatter's two numbers are: ("hours", "cost_usd") or, for serving,
    #: ("tokens_per_s_per_instance", "usd_per_million").
    scatter_axes: tuple[str, str] = ("hours", "cost_usd")
    #: Serving: the estimate arrays and each row's index in them (for a trace simulation).
    serving_arrays: ServeArrays | None = field(default=None, repr=False, compare=False)
    row_index: tuple[int, ...] = field(default=(), repr=False, compare=False)

    @property
    def pareto(self) -> tuple[RecommendationRow, ...]:
        return tuple(r for r in self.rows if r.pareto)


def _arrays(catalog: Catalog) -> CandidateArrays:
    arr = _ARRAYS.get(catalog)
    if arr is None:
        arr = build_arrays(catalog.instances, catalog.specs)
        _ARRAYS[catalog] = arr
    return arr


def _opt(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def _pareto(
    hours: npt.NDArray[np.float64], cost: npt.NDArray[np.float64], ok: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """Rows not dominated in (hours, cost): sort by hours then cost, keep strictly cheaper ones."""
    out = np.zeros(len(hours), dtype=bool)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return out
    order = idx[np.lexsort((cost[idx], hours[idx]))]
    c = cost[order]
    prev_min = np.minimum.accumulate(np.concatenate(([np.inf], c[:-1])))
    out[order[c < prev_min]] = True
    return out


def _normalize_measurements(
    m: Mapping[str, Mapping[str, float]] | None,
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, rates in (m or {}).items():
        key = normalize_gpu_model(name) or name
        out.setdefault(key, {}).update({d.lower(): float(v) for d, v in rates.items()})
    return out


def recommend(
    workload: Workload,
    catalog: Catalog,
    *,
    objective: str = "auto",
    providers: Sequence[str] | None = None,
    local: LocalMachine | None = None,
    local_measurements: Mapping[str, Mapping[str, float]] | None = None,
    local_util_pct: float | None = None,
    limit: int | None = 50,
) -> Recommendation:
    """Rank every instance of ``catalog`` for ``workload``.

    ``objective``: "cheapest" (that meets the deadline / throughput target), "fastest" (within
    the budget) or "auto" (cheapest when a deadline or throughput is set, fastest when only a
    budget is, else cheapest). ``local_measurements`` maps a GPU (spec key or NVML name) to
    achieved TFLOPS per dtype from this machine's benchmarks; they set the efficiency of that
    GPU model everywhere. ``local_util_pct`` is the GPU utilization seen here (seed pitfall).
    """
    w = workload
    if objective not in OBJECTIVES:
        raise InputError(
            tr("unknown objective {o!r}; use one of {all}", o=objective, all=", ".join(OBJECTIVES))
        )
    measurements = _normalize_measurements(local_measurements)
    if local is not None:
        key = _local_key(local)
        if key and local.measured_tflops:
            measurements.setdefault(key, {}).update(local.measured_tflops)
        if local_util_pct is None:
            local_util_pct = local.util_pct
    arr = _arrays(catalog)
    est = estimate(w, arr, catalog.specs, measurements)
    mask = np.ones(len(arr), dtype=bool)
    if providers:
        wanted = {p.strip().lower() for p in providers if p.strip()}
        mask = np.array([i.provider.lower() in wanted for i in arr.instances], dtype=bool)

    if est.serving is not None:
        return _recommend_serving(
            w, catalog, arr, est, est.serving, mask, local, measurements, local_util_pct, limit
        )
    deadline = w.deadline_hours
    # A throughput target without a deadline is a rate to sustain: replicas of an instance
    # reach it together; rank by what they cost over the window the target allows.
    window = None
    if deadline is None and w.throughput_per_s:
        window = w.work_units / w.throughput_per_s / 3600.0
    if objective == "auto":
        objective = "fastest" if (deadline is None and w.budget_usd is not None) else "cheapest"

    hours = est.seconds / 3600.0
    use_spot = w.spot & np.isfinite(arr.price_spot)
    nodes = est.nodes
    price = np.where(use_spot, arr.price_spot, arr.price_ondemand) * nodes
    hours_basis = np.where(use_spot, hours * (1.0 + SPOT_OVERHEAD), hours)
    cost = hours_basis * price
    replicas = np.full(len(arr), np.nan)
    if window is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            replicas = np.maximum(np.ceil(hours_basis / window * (1.0 - 1e-9)), 1.0)
        price = price * replicas
        cost = price * window
        hours_basis = hours_basis / replicas
    viable = est.fits & ~(est.supported == 0) & mask
    has_time = np.isfinite(hours)
    has_cost = np.isfinite(cost)
    meets = np.ones(len(arr), dtype=bool) if deadline is None else hours_basis <= deadline
    within = np.ones(len(arr), dtype=bool) if w.budget_usd is None else cost <= w.budget_usd
    ok = meets & within
    metric = (
        np.where(has_cost, cost, np.inf)
        if objective == "cheapest"
        else np.where(has_time, hours_basis, np.inf)
    )
    tie = (
        np.where(has_time, hours_basis, np.inf)
        if objective == "cheapest"
        else np.where(has_cost, cost, np.inf)
    )
    # A row the data doubts (Instance.doubt) is listed with a warning but never wins silently:
    # it ranks after every undoubted row that is as good on the constraints.
    doubtful = np.array([bool(i.doubt) for i in arr.instances], dtype=bool)
    order = np.lexsort((tie, metric, doubtful, ~has_cost, ~ok, ~has_time, ~viable, ~mask))
    order = order[mask[order]]
    pareto = _pareto(hours_basis, cost, viable & has_time & has_cost)

    local_row = None
    local_seconds = math.nan
    if local is not None:
        local_row = _local_row(w, local, catalog, measurements)
        if local_row is not None and local_row.hours is not None:
            local_seconds = local_row.hours * 3600.0

    take = order if limit is None else order[:limit]
    rows = tuple(
        _row(
            w,
            catalog,
            arr,
            est,
            int(i),
            rank + 1,
            price,
            cost,
            hours_basis,
            use_spot,
            viable,
            pareto,
            deadline,
            meets,
            within,
            local_seconds,
            float(replicas[int(i)]) if math.isfinite(replicas[int(i)]) else 1.0,
        )
        for rank, i in enumerate(take)
    )
    if window is not None:
        rows = tuple(
            _sustained(w, r, float(replicas[int(i)]), window)
            for r, i in zip(rows, take, strict=True)
        )
    sc = np.flatnonzero(viable & has_time & has_cost)
    scatter = tuple(
        zip(hours_basis[sc].tolist(), cost[sc].tolist(), pareto[sc].tolist(), strict=True)
    )
    return Recommendation(
        workload=w,
        objective=objective,
        rows=rows,
        candidates=int(mask.sum()),
        viable=int(viable.sum()),
        local=local_row,
        warnings=global_warnings(w, local_util_pct),
        scatter=scatter,
    )


def _sustained(
    w: Workload, row: RecommendationRow, replicas: float, window: float
) -> RecommendationRow:
    """The row with the instances that sustain ``w.throughput_per_s`` and their cost."""
    if not math.isfinite(replicas) or row.price_per_hour_usd is None:
        return row
    millions = w.throughput_per_s * 3600.0 / 1e6 if w.throughput_per_s else math.nan
    per_m = row.price_per_hour_usd / millions if millions > 0 else None
    note = tr(
        "{n} × this instance sustain {rate:.4g}/s: {usd}/h, {per_m} per million",
        n=int(replicas),
        rate=w.throughput_per_s or 0.0,
        usd=fmt_usd(row.price_per_hour_usd),
        per_m=fmt_usd(per_m) if per_m is not None else NA,
    )
    inst = row.instance

    def for_window(price: float | None) -> float | None:
        # The same replicas, provisioned for the whole window, on each price basis.
        return None if price is None else price * row.nodes * replicas * window

    return replace(
        row,
        instances_needed=int(replicas),
        usd_per_million=per_m,
        meets_deadline=None,
        # each replica's share on spot, as ``hours`` is on the ranking basis (was one
        # instance doing all the work while ``hours`` was a replica's share)
        hours_spot=None if row.hours_spot is None else row.hours_spot / replicas,
        cost_ondemand_usd=for_window(inst.price_ondemand_usd_hr),
        cost_spot_usd=for_window(inst.price_spot_usd_hr),
        cost_reserved_1y_usd=for_window(inst.price_reserved_1y_usd_hr),
        cost_reserved_3y_usd=for_window(inst.price_reserved_3y_usd_hr),
        reasons=(note, *row.reasons),
    )


def _row(
    w: Workload,
    catalog: Catalog,
    arr: CandidateArrays,
    est: Estimates,
    i: int,
    rank: int,
    price: npt.NDArray[np.float64],
    cost: npt.NDArray[np.float64],
    hours_basis: npt.NDArray[np.float64],
    use_spot: npt.NDArray[np.bool_],
    viable: npt.NDArray[np.bool_],
    pareto: npt.NDArray[np.bool_],
    deadline: float | None,
    meets: npt.NDArray[np.bool_],
    within: npt.NDArray[np.bool_],
    local_seconds: float,
    split: float = 1.0,
) -> RecommendationRow:
    """One ranked row. ``split``: replicas that share the work (a throughput target), so the
    time the reasons state is each replica's, like the row's ``hours``."""
    inst = arr.instances[i]
    spec = catalog.spec_for(inst)
    nodes = int(est.nodes[i])
    hours = _opt(est.seconds[i] / 3600.0)
    seconds = _opt(est.seconds[i] / split)
    eff = _opt(est.efficiency[i]) if hours is not None else None
    sup = est.supported[i]
    cost_i = _opt(cost[i])
    basis = "spot" if use_spot[i] else "on-demand"

    def job_cost(p: float, spot: bool = False) -> float | None:
        if hours is None or not math.isfinite(p):
            return None
        return hours * (1.0 + SPOT_OVERHEAD if spot else 1.0) * p * nodes

    achieved = _opt(est.achieved_flops[i])
    price_i = _opt(price[i])
    facts = RowFacts(
        fits=bool(est.fits[i]),
        supported=None if math.isnan(sup) else bool(sup),
        need_bytes=float(est.need_bytes[i]),
        mem_bytes=float(arr.mem_bytes[i]),
        gpus=float(est.gpus[i]),
        nodes=nodes,
        seconds=seconds,
        efficiency=eff,
        base_eff=float(est.base_eff[i]),
        scaling=float(est.scaling[i]),
        eff_source=est.eff_sources[int(est.eff_source_idx[i])],
        cost_usd=cost_i,
        cost_basis=basis,
        meets_deadline=None if deadline is None or hours is None else bool(meets[i]),
        within_budget=None if w.budget_usd is None or cost_i is None else bool(within[i]),
        memory_bound=bool(est.memory_bound[i]),
        batch=None if est.batch is None else _opt(float(est.batch[i])),
        layout=_layout(est, i),
    )
    reasons, warnings = row_notes(w, inst, spec, facts)
    if inst.doubt:
        warnings = (tr("doubtful catalog row: {why}", why=inst.doubt), *warnings)
    if is_stale(inst.as_of):
        warnings = (
            *warnings,
            tr(
                "prices as of {d} are over {n} days old (gpuprof catalog update)",
                d=inst.as_of,
                n=STALE_DAYS,
            ),
        )
    speedup = None
    if seconds is not None and math.isfinite(local_seconds):
        speedup = local_seconds / seconds
    return RecommendationRow(
        instance=inst,
        rank=rank,
        nodes=nodes,
        gpus_total=float(est.gpus[i]),
        fits=facts.fits,
        viable=bool(viable[i]),
        mem_need_per_gpu_bytes=facts.need_bytes,
        mem_per_gpu_bytes=facts.mem_bytes,
        hours=_opt(hours_basis[i]) if hours is not None else None,
        hours_spot=hours * (1.0 + SPOT_OVERHEAD) if hours is not None else None,
        price_per_hour_usd=price_i,
        cost_usd=cost_i,
        cost_basis=basis,
        cost_ondemand_usd=job_cost(arr.price_ondemand[i]),
        cost_spot_usd=job_cost(arr.price_spot[i], spot=True),
        cost_reserved_1y_usd=job_cost(arr.price_r1[i]),
        cost_reserved_3y_usd=job_cost(arr.price_r3[i]),
        efficiency=eff,
        efficiency_base=facts.base_eff,
        scaling_efficiency=facts.scaling,
        efficiency_source=facts.eff_source,
        efficiency_measured=bool(est.measured[i]),
        achieved_tflops=achieved / 1e12 if achieved is not None else None,
        usd_per_pflop_hour=(price_i / (achieved / 1e15)) if price_i and achieved else None,
        meets_deadline=facts.meets_deadline,
        within_budget=facts.within_budget,
        pareto=bool(pareto[i]),
        speedup_vs_local=speedup,
        reasons=reasons,
        warnings=warnings,
        layout=facts.layout,
    )


def _layout(est: Estimates, i: int) -> tuple[int, int, int] | None:
    if est.layout is None or not np.isfinite(est.layout[i]).all():
        return None
    tp, pp, dp = (int(x) for x in est.layout[i])
    return tp, pp, dp


def _local_key(local: LocalMachine) -> str | None:
    if not local.gpus:
        return None
    name, _ = max(local.gpus, key=lambda nc: nc[1])
    return normalize_gpu_model(name)


def _local_row(
    w: Workload, local: LocalMachine, catalog: Catalog, measurements: dict[str, dict[str, float]]
) -> RecommendationRow | None:
    if not local.gpus:
        return None
    name, count = max(local.gpus, key=lambda nc: nc[1])
    key = normalize_gpu_model(name)
    spec = catalog.specs.get(key) if key else None
    inst = Instance(
        provider="local",
        instance="this machine",
        gpu_model=key or name,
        gpu_name=name,
        gpu_known=key is not None,
        gpu_count=float(count),
        gpu_mem_gib=spec.memory_gib if spec else None,
        source="local",
        as_of="",
    )
    one = Catalog(catalog.specs, (inst,))
    # A single machine: no second node.
    rec_w = w.with_(node_limit=1, spot=False, budget_usd=None)
    arr = build_arrays(one.instances, one.specs)
    est = estimate(rec_w, arr, one.specs, measurements)
    if est.serving is not None:
        no = np.zeros(1, dtype=bool)
        viable_one = est.fits & ~(est.supported == 0)
        return _serving_row(rec_w, one, arr, est, est.serving, 0, 0, no, viable_one, no)
    nan = np.array([math.nan])
    ones = np.ones(1, dtype=bool)
    viable = est.fits & ~(est.supported == 0)
    hours_b = est.seconds / 3600.0
    return _row(
        rec_w,
        one,
        arr,
        est,
        0,
        0,
        nan,
        nan,
        hours_b,
        ~ones,
        viable,
        ~ones,
        None,
        ones,
        ones,
        math.nan,
    )


def _recommend_serving(
    w: Workload,
    catalog: Catalog,
    arr: CandidateArrays,
    est: Estimates,
    sv: ServeArrays,
    mask: npt.NDArray[np.bool_],
    local: LocalMachine | None,
    measurements: dict[str, dict[str, float]],
    local_util_pct: float | None,
    limit: int | None,
) -> Recommendation:
    """Serving: rank by the cost per million output tokens of the instances the rate needs
    (those meeting the latency targets first); the scatter is cost per million vs throughput
    per instance."""
    use_spot = w.spot & np.isfinite(arr.price_spot)
    per_h = np.where(use_spot, arr.price_spot, arr.price_ondemand) * sv.nodes * sv.instances
    # The scatter's y: the row's own cost per million output tokens (its whole instances at
    # this traffic), so that a point and its table row say the same number.
    millions = w.requests_per_s * w.gen_len * 3600.0 / 1e6
    with np.errstate(invalid="ignore", divide="ignore"):
        per_m_inst = per_h / millions if millions > 0 else np.full(len(arr), np.nan)
    viable = est.fits & ~(est.supported == 0) & mask
    has_cost = np.isfinite(per_h)
    tpot = sv.tpot_p99_s if w.slo_percentile == "p99" else sv.tpot_p50_s
    doubtful = np.array([bool(i.doubt) for i in arr.instances], dtype=bool)
    metric = np.where(has_cost, per_h, np.inf)
    order = np.lexsort((tpot, metric, doubtful, ~has_cost, ~sv.meets, ~viable, ~mask))
    order = order[mask[order]]
    ok = viable & has_cost & np.isfinite(per_m_inst) & (sv.tokens_s_instance > 0)
    pareto = _pareto(-sv.tokens_s_instance, per_m_inst, ok)
    take = order if limit is None else order[:limit]
    rows = tuple(
        _serving_row(w, catalog, arr, est, sv, int(i), rank + 1, use_spot, viable, pareto)
        for rank, i in enumerate(take)
    )
    local_row = None
    if local is not None:
        local_row = _local_row(w, local, catalog, measurements)
    sc = np.flatnonzero(ok)
    scatter = tuple(
        zip(
            sv.tokens_s_instance[sc].tolist(),
            per_m_inst[sc].tolist(),
            pareto[sc].tolist(),
            strict=True,
        )
    )
    return Recommendation(
        workload=w,
        objective="cheapest",
        rows=rows,
        candidates=int(mask.sum()),
        viable=int(viable.sum()),
        local=local_row,
        warnings=global_warnings(w, local_util_pct),
        scatter=scatter,
        scatter_axes=("tokens_per_s_per_instance", "usd_per_million"),
        serving_arrays=sv,
        row_index=tuple(int(i) for i in take),
    )


def serving_arrays_of(rec: Recommendation, row: RecommendationRow) -> tuple[ServeArrays, int]:
    """The serving estimate behind ``row`` of ``rec`` and the row's index in it."""
    if rec.serving_arrays is None or row.rank < 1:
        raise ValueError("not a ranked serving row")
    return rec.serving_arrays, rec.row_index[row.rank - 1]


def _serving_row(
    w: Workload,
    catalog: Catalog,
    arr: CandidateArrays,
    est: Estimates,
    sv: ServeArrays,
    i: int,
    rank: int,
    use_spot: npt.NDArray[np.bool_],
    viable: npt.NDArray[np.bool_],
    pareto: npt.NDArray[np.bool_],
) -> RecommendationRow:
    """One serving row: every number for the same layout and instance count."""
    inst = arr.instances[i]
    spec = catalog.spec_for(inst)
    nodes = int(sv.nodes[i])
    instances = int(sv.instances[i]) if math.isfinite(sv.instances[i]) else 1
    fits = bool(est.fits[i])

    def per_hour(price: float) -> float | None:
        return _opt(price * nodes * instances) if fits else None

    basis = "spot" if use_spot[i] else "on-demand"
    usd_h = per_hour(arr.price_spot[i] if use_spot[i] else arr.price_ondemand[i])
    lam = w.requests_per_s
    out_m = lam * w.gen_len * 3600.0 / 1e6
    in_m = lam * w.prompt_len * 3600.0 / 1e6
    share = float(sv.prefill_share[i])
    facts = ServingRow(
        tp=int(sv.tp[i]),
        pp=int(sv.pp[i]),
        ep=int(sv.ep[i]),
        replicas_per_instance=int(sv.dp[i]),
        replicas=int(sv.replicas[i]) if math.isfinite(sv.replicas[i]) else 0,
        instances=instances,
        batch=round(float(sv.batch[i]), 2),
        batch_best=int(sv.batch_best[i]),
        batch_max=int(sv.batch_max[i]),
        kv_cache_tokens=float(sv.kv_tokens[i]),
        request_rate_per_s=lam,
        output_tokens_per_s=lam * w.gen_len,
        input_tokens_per_s=lam * w.prompt_len,
        capacity_tokens_per_s_per_instance=float(sv.tokens_s_instance[i]),
        load=float(sv.load[i]),
        ttft_p50_s=_opt(float(sv.ttft_p50_s[i])),
        ttft_p99_s=_opt(float(sv.ttft_p99_s[i])),
        tpot_p50_s=_opt(float(sv.tpot_p50_s[i])),
        tpot_p99_s=_opt(float(sv.tpot_p99_s[i])),
        slo_percentile=w.slo_percentile,
        ttft_target_s=w.ttft_s,
        tpot_target_s=w.tpot_s,
        meets_targets=bool(sv.meets[i]),
        bound=BOUNDS[int(sv.bound_idx[i])],
        step_s=float(sv.step_s[i]),
        usd_per_hour=usd_h,
        usd_per_million_output=(
            usd_h * (1.0 - share) / out_m if usd_h is not None and out_m > 0 else None
        ),
        usd_per_million_input=(usd_h * share / in_m if usd_h is not None and in_m > 0 else None),
    )
    sup = est.supported[i]
    row_facts = RowFacts(
        fits=fits,
        supported=None if math.isnan(sup) else bool(sup),
        need_bytes=float(est.need_bytes[i]),
        mem_bytes=float(arr.mem_bytes[i]),
        gpus=float(est.gpus[i]),
        nodes=nodes,
        seconds=None,
        efficiency=None,
        base_eff=float(est.base_eff[i]),
        scaling=1.0,
        eff_source=est.eff_sources[int(est.eff_source_idx[i])],
        cost_usd=None,
        cost_basis=basis,
        meets_deadline=None,
        within_budget=None,
        memory_bound=bool(est.memory_bound[i]),
    )
    reasons, warnings = row_notes(w, inst, spec, row_facts)
    s_reasons, s_warnings = serving_notes(w, inst, facts, fits)
    reasons = (*s_reasons, *reasons)
    warnings = (*s_warnings, *warnings)
    if inst.doubt:
        warnings = (tr("doubtful catalog row: {why}", why=inst.doubt), *warnings)
    if is_stale(inst.as_of):
        warnings = (
            *warnings,
            tr(
                "prices as of {d} are over {n} days old (gpuprof catalog update)",
                d=inst.as_of,
                n=STALE_DAYS,
            ),
        )
    return RecommendationRow(
        instance=inst,
        rank=rank,
        nodes=nodes,
        gpus_total=float(est.gpus[i]),
        fits=fits,
        viable=bool(viable[i]),
        mem_need_per_gpu_bytes=float(est.need_bytes[i]),
        mem_per_gpu_bytes=float(arr.mem_bytes[i]),
        hours=None,
        hours_spot=None,
        price_per_hour_usd=usd_h,
        cost_usd=usd_h,
        cost_basis=basis,
        cost_ondemand_usd=per_hour(arr.price_ondemand[i]),
        cost_spot_usd=per_hour(arr.price_spot[i]),
        cost_reserved_1y_usd=per_hour(arr.price_r1[i]),
        cost_reserved_3y_usd=per_hour(arr.price_r3[i]),
        efficiency=None,
        efficiency_base=float(est.base_eff[i]),
        scaling_efficiency=1.0,
        efficiency_source=row_facts.eff_source,
        efficiency_measured=bool(est.measured[i]),
        achieved_tflops=None,
        usd_per_pflop_hour=None,
        meets_deadline=None,
        within_budget=None,
        pareto=bool(pareto[i]),
        speedup_vs_local=None,
        reasons=reasons,
        warnings=warnings,
        instances_needed=instances if fits else None,
        usd_per_million=usd_h / out_m if usd_h is not None and out_m > 0 else None,
        serving=facts,
    )
