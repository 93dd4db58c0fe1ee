"""What a recommendation is: its rows (a job's or a serving configuration's), this machine, and
what every row builder shares (finite-or-None, the Pareto front, the catalog's warnings)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.asof import stale_note
from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.money import published_prices
from gpuprof.i18n import tr
from gpuprof.recommend.band import Band
from gpuprof.recommend.estimate import FORMULAS, CandidateArrays, Estimates
from gpuprof.recommend.explain import RowFacts, global_warnings
from gpuprof.recommend.rank.billing import unpriced_note
from gpuprof.recommend.serve import ServeArrays
from gpuprof.recommend.workload import Workload

__all__ = [
    "Candidates",
    "LocalMachine",
    "Recommendation",
    "RecommendationRow",
    "ServingRow",
    "catalog_warnings",
    "estimate_facts",
    "opt",
    "pareto_front",
]


@dataclass(frozen=True, slots=True)
class Candidates:
    """What a ranking and each of its rows read: the workload, the catalog, the catalog's
    candidate arrays and their estimates."""

    w: Workload
    catalog: Catalog
    arr: CandidateArrays
    est: Estimates

    def viable(self, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The candidates in ``mask`` that fit, in a precision their GPU is not known to lack."""
        ok: npt.NDArray[np.bool_] = self.est.fits & ~(self.est.supported == 0) & mask
        return ok

    def doubtful(self) -> npt.NDArray[np.bool_]:
        """The candidates whose catalog row the data doubts (``Instance.doubt``)."""
        return np.array([bool(i.doubt) for i in self.arr.instances], dtype=bool)

    def with_unpriced_notes(
        self, rows: tuple[RecommendationRow, ...]
    ) -> tuple[RecommendationRow, ...]:
        """``rows`` with :func:`~gpuprof.recommend.rank.billing.unpriced_note` on each viable one
        without a price on the workload's billing basis."""
        return tuple(
            replace(r, warnings=(*r.warnings, unpriced_note(self.w.billing, r.instance)))
            if r.cost_usd is None and r.viable
            else r
            for r in rows
        )

    def recommendation(
        self,
        objective: str,
        rows: tuple[RecommendationRow, ...],
        mask: npt.NDArray[np.bool_],
        viable: npt.NDArray[np.bool_],
        local_row: RecommendationRow | None,
        local_util_pct: float | None,
    ) -> Recommendation:
        """What every ranking says: its rows among ``mask``'s candidates, how many were
        ``viable``, this machine's row and the warnings about the workload."""
        return Recommendation(
            workload=self.w,
            objective=objective,
            rows=rows,
            candidates=int(mask.sum()),
            viable=int(viable.sum()),
            local=local_row,
            warnings=global_warnings(self.w, local_util_pct),
        )


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
    cost_basis: str  # the ranking's basis (Workload.billing): "on-demand", "spot", "monthly" …
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
    #: Training (issue 23): context parallel size and virtual pipeline stages per GPU.
    context_parallel: int = 1
    virtual_stages: int = 1
    #: Training a mixture of experts: the expert-parallel size (1: dense, or none chosen).
    expert_parallel: int = 1
    #: Serving traffic: the continuous-batching estimate (then ``hours`` is None and every
    #: ``cost_*`` is USD per hour of ``instances_needed`` instances); None for a job.
    serving: ServingRow | None = None
    #: LLM training: the error band of ``hours`` and ``cost_usd`` from the cross-validated
    #: errors of comparable published runs (:mod:`gpuprof.recommend.band`); None otherwise.
    band: Band | None = None
    #: A monthly subscription (包月): a job in whole months (at least one) of its instances;
    #: serving: one month (730 h) of ``instances_needed`` instances. None: no monthly price.
    cost_monthly_usd: float | None = None
    #: Serving: the cost per million output tokens of those instances on the monthly price.
    usd_per_million_monthly: float | None = None

    def cost_span(self) -> tuple[float, float] | None:
        """``cost_usd`` over the error band (None: no band or no cost). A monthly subscription
        is paid in whole months, so its span is the months the band's hours would bill."""
        band, cost = self.band, self.cost_usd
        if band is None or cost is None:
            return None
        if self.cost_basis == "monthly" and self.hours and self.instances_needed is None:
            from gpuprof.recommend.rank.billing import months_billed

            per_month = cost / float(months_billed(self.hours))
            low, high = (float(months_billed(self.hours * r)) for r in (band.low, band.high))
            return per_month * low, per_month * high
        return cost * band.low, cost * band.high

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
            "cost_monthly_usd": self.cost_monthly_usd,
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
            "usd_per_million_monthly": self.usd_per_million_monthly,
            "layout": (
                None
                if self.layout is None
                else {
                    **dict(zip(("tp", "pp", "dp"), self.layout, strict=True)),
                    "cp": self.context_parallel,
                    "vp": self.virtual_stages,
                    "ep": self.expert_parallel,
                }
            ),
            "cost_unit": "usd_per_hour" if self.serving is not None else "usd",
            "serving": None if self.serving is None else self.serving.to_dict(),
            "band": (
                None
                if self.band is None
                else self.band.to_dict(self.hours, self.cost_usd, self.usd_per_million)
                | _cost_span(self.cost_span())
            ),
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
    #: Issue 23: nothing priced meets the deadline or budget within ``node_limit`` nodes, but
    #: this many would (the smallest power of two tried), and the sentence that says so.
    nodes_needed: int | None = None
    advice: tuple[str, ...] = ()
    #: A job: the shortest time of any candidate that fits, priced or not, shown or not (the
    #: rows shown may be the cheapest few, each at its cheapest node count).
    fastest_hours: float | None = None

    @property
    def pareto(self) -> tuple[RecommendationRow, ...]:
        return tuple(r for r in self.rows if r.pareto)


def _cost_span(span: tuple[float, float] | None) -> dict[str, float | None]:
    low, high = span or (None, None)
    return {"cost_usd_low": low, "cost_usd_high": high}


def opt(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def pareto_front(
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


def catalog_warnings(inst: Instance, warnings: tuple[str, ...]) -> tuple[str, ...]:
    """``warnings`` with what the catalog says of ``inst``: a doubted row first, stale prices
    last."""
    if inst.doubt:
        warnings = (tr("doubtful catalog row: {why}", why=inst.doubt), *warnings)
    # one judgement of a price's date for every view (gpuprof.catalog.asof.staleness)
    note = stale_note(inst.as_of) if any(p is not None for p in published_prices(inst)) else ""
    return (*warnings, note) if note else warnings


def estimate_facts(
    est: Estimates, arr: CandidateArrays, i: int, nodes: int, basis: str
) -> RowFacts:
    """What the estimate says of candidate ``i``, read the same way for a job's row and for a
    serving row; the row's own time, efficiency, cost and verdicts are left empty (``None``,
    scaling 1) for its builder to ``replace``."""
    sup = est.supported[i]
    return RowFacts(
        fits=bool(est.fits[i]),
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
