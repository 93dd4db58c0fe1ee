"""Ranking a job (training, fine-tuning, batch inference, HPC, rendering): time and cost per
configuration, the deadline and budget, a throughput target's replicas, the Pareto front of time
vs cost."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from gpuprof.i18n import tr
from gpuprof.recommend.band import Band, inference_band, training_band
from gpuprof.recommend.estimate import SPOT_OVERHEAD, CandidateArrays, Estimates
from gpuprof.recommend.explain import row_notes
from gpuprof.recommend.parallel import FULL_SHARD_STACKS
from gpuprof.recommend.rank.billing import basis_hours, hourly_price, months_billed
from gpuprof.recommend.rank.billing import job_cost as basis_cost
from gpuprof.recommend.rank.rows import (
    Candidates,
    Recommendation,
    RecommendationRow,
    catalog_warnings,
    estimate_facts,
    opt,
    pareto_front,
)
from gpuprof.recommend.workload import Workload
from gpuprof.units import NA, fmt_usd

__all__ = ["job_costs", "job_row", "priced_and_meeting", "rank_jobs"]


def rank_jobs(
    c: Candidates,
    mask: npt.NDArray[np.bool_],
    objective: str,
    local_row: RecommendationRow | None,
    local_util_pct: float | None,
    limit: int | None,
) -> Recommendation:
    """A job: rank by cost (or time, ``objective``), those that fit and meet the deadline and
    the budget first; ``local_row`` is this machine's row (or None)."""
    w, arr, est = c.w, c.arr, c.est
    deadline = w.deadline_hours
    # A throughput target without a deadline is a rate to sustain: replicas of an instance
    # reach it together; rank by what they cost over the window the target allows.
    window = None
    if deadline is None and w.throughput_per_s:
        window = w.work_units / w.throughput_per_s / 3600.0
    if objective == "auto":
        objective = "fastest" if (deadline is None and w.budget_usd is not None) else "cheapest"

    hours = est.seconds / 3600.0
    price, cost, hours_basis, replicas = job_costs(w, arr, est, window)
    viable = c.viable(mask)
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
    doubtful = c.doubtful()
    if objective == "cheapest":
        # Issue 23: a row without a price cannot be the cheapest; it comes after every priced
        # row, even one that misses the deadline (and says so).
        order = np.lexsort((tie, metric, doubtful, ~ok, ~has_cost, ~has_time, ~viable, ~mask))
    else:
        order = np.lexsort((tie, metric, doubtful, ~has_cost, ~ok, ~has_time, ~viable, ~mask))
    order = order[mask[order]]
    pareto = pareto_front(hours_basis, cost, viable & has_time & has_cost)
    local_seconds = math.nan
    if local_row is not None and local_row.hours is not None:
        local_seconds = local_row.hours * 3600.0

    take = order if limit is None else order[:limit]
    rows = tuple(
        job_row(
            c,
            int(i),
            rank + 1,
            price,
            cost,
            hours_basis,
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
            sustained(w, r, float(replicas[int(i)]), window)
            for r, i in zip(rows, take, strict=True)
        )
    if objective == "cheapest":
        rows = c.with_unpriced_notes(rows)
    sc = np.flatnonzero(viable & has_time & has_cost)
    scatter = tuple(
        zip(hours_basis[sc].tolist(), cost[sc].tolist(), pareto[sc].tolist(), strict=True)
    )
    timed = hours_basis[viable & has_time]
    rec = c.recommendation(objective, rows, mask, viable, local_row, local_util_pct)
    return replace(rec, fastest_hours=float(timed.min()) if timed.size else None, scatter=scatter)


def job_costs(
    w: Workload, arr: CandidateArrays, est: Estimates, window: float | None
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """(price per hour, cost, hours, replicas) of every row on the ranking basis
    (``w.billing``, :mod:`.billing`), each for the row's own nodes (and replicas, for a
    throughput target over ``window`` hours); NaN price and cost where the row has no price on
    the basis."""
    hours_basis = basis_hours(est.seconds / 3600.0, w.billing)
    price = hourly_price(arr, w.billing) * est.nodes
    cost = basis_cost(arr, w.billing, hours_basis, est.nodes)
    replicas: npt.NDArray[np.float64] = np.full(len(arr), np.nan)
    if window is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            replicas = np.maximum(np.ceil(hours_basis / window * (1.0 - 1e-9)), 1.0)
        price = price * replicas
        cost = basis_cost(arr, w.billing, np.full(len(arr), window), est.nodes * replicas)
        hours_basis = hours_basis / replicas
    return price, cost, hours_basis, replicas


def priced_and_meeting(c: Candidates, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Rows that fit, have a price and meet the deadline and the budget (issue 23: whether a
    larger ``--nodes`` would give one)."""
    w = c.w
    _price, cost, hours_basis, _rep = job_costs(w, c.arr, c.est, None)
    ok = c.viable(mask) & np.isfinite(cost) & np.isfinite(hours_basis)
    if w.deadline_hours is not None:
        ok &= hours_basis <= w.deadline_hours
    if w.budget_usd is not None:
        ok &= cost <= w.budget_usd
    out: npt.NDArray[np.bool_] = ok
    return out


def sustained(
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

    monthly = inst.price_monthly_usd
    months = float(months_billed(window))

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
        cost_monthly_usd=None if monthly is None else months * monthly * row.nodes * replicas,
        reasons=(note, *row.reasons),
    )


def job_row(
    c: Candidates,
    i: int,
    rank: int,
    price: npt.NDArray[np.float64],
    cost: npt.NDArray[np.float64],
    hours_basis: npt.NDArray[np.float64],
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
    w, arr, est = c.w, c.arr, c.est
    inst = arr.instances[i]
    spec = c.catalog.spec_for(inst)
    nodes = int(est.nodes[i])
    hours = opt(est.seconds[i] / 3600.0)
    seconds = opt(est.seconds[i] / split)
    eff = opt(est.efficiency[i]) if hours is not None else None
    cost_i = opt(cost[i])
    basis = w.billing

    def job_cost(p: float, spot: bool = False) -> float | None:
        if hours is None or not math.isfinite(p):
            return None
        return hours * (1.0 + SPOT_OVERHEAD if spot else 1.0) * p * nodes

    monthly = inst.price_monthly_usd
    cost_monthly = None
    if hours is not None and monthly is not None:
        cost_monthly = float(months_billed(hours)) * monthly * nodes
    achieved = opt(est.achieved_flops[i])
    price_i = opt(price[i])
    facts = replace(
        estimate_facts(est, arr, i, nodes, basis),
        seconds=seconds,
        efficiency=eff,
        scaling=float(est.scaling[i]),
        cost_usd=cost_i,
        meets_deadline=None if deadline is None or hours is None else bool(meets[i]),
        within_budget=None if w.budget_usd is None or cost_i is None else bool(within[i]),
        batch=None if est.batch is None else opt(float(est.batch[i])),
        layout=_layout(est, i),
        context_parallel=_extra(est, i, 3),
        virtual_stages=_extra(est, i, 4),
        expert_parallel=_extra(est, i, 5),
        full_shard=w.stack in FULL_SHARD_STACKS and w.is_training,
    )
    reasons, warnings = row_notes(w, inst, spec, facts)
    warnings = catalog_warnings(inst, warnings)
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
        hours=opt(hours_basis[i]) if hours is not None else None,
        hours_spot=hours * (1.0 + SPOT_OVERHEAD) if hours is not None else None,
        price_per_hour_usd=price_i,
        cost_usd=cost_i,
        cost_basis=basis,
        cost_ondemand_usd=job_cost(arr.price_ondemand[i]),
        cost_spot_usd=job_cost(arr.price_spot[i], spot=True),
        cost_reserved_1y_usd=job_cost(arr.price_r1[i]),
        cost_reserved_3y_usd=job_cost(arr.price_r3[i]),
        cost_monthly_usd=cost_monthly,
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
        context_parallel=facts.context_parallel,
        virtual_stages=facts.virtual_stages,
        expert_parallel=facts.expert_parallel,
        band=_band(w, spec, float(est.gpus[i])) if hours is not None else None,
    )


def _band(w: Workload, spec: object, gpus: float) -> Band | None:
    """The error band (issue 23) of an LLM training or LLM inference job; per-sample, HPC and
    rendering workloads have no published runs to take one from."""
    arch = getattr(spec, "architecture", None)
    if w.is_training and w.tokens is not None and w.flops_per_sample is None:
        return training_band(w.stack, arch, gpus)
    if w.is_llm_inference and w.tokens is not None:
        return inference_band("infer", arch, gpus)
    return None


def _extra(est: Estimates, i: int, col: int) -> int:
    """Context parallel (col 3), virtual stages (col 4) or expert parallel (col 5) of row
    ``i``; 1 when not training."""
    if est.layout is None or est.layout.shape[1] <= col or not np.isfinite(est.layout[i, col]):
        return 1
    return int(est.layout[i, col])


def _layout(est: Estimates, i: int) -> tuple[int, int, int] | None:
    if est.layout is None or not np.isfinite(est.layout[i]).all():
        return None
    tp, pp, dp = (int(x) for x in est.layout[i][:3])
    return tp, pp, dp
