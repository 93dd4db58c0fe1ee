"""Rank catalog instances for a workload: fitting first, then the objective; Pareto front.

``recommend(workload, catalog)`` is the entry point for the CLI, the GUI tab and reports. The
rows and the result are :mod:`.rows`; a job is ranked by :mod:`.job` (time and cost), serving
traffic by :mod:`.serving` (instances for the rate, cost per million output tokens).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.instances import Catalog, Instance
from gpuprof.catalog.names import normalize_gpu_model, provider_key
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend.estimate import CandidateArrays, build_arrays, estimate
from gpuprof.recommend.rank.job import job_costs, job_row, priced_and_meeting, rank_jobs
from gpuprof.recommend.rank.rows import (
    Candidates,
    LocalMachine,
    Recommendation,
    RecommendationRow,
    ServingRow,
)
from gpuprof.recommend.rank.serving import rank_serving, serving_arrays_of, serving_row
from gpuprof.recommend.workload import LIMITS, Workload
from gpuprof.units import fmt_duration, fmt_usd

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


def _arrays(catalog: Catalog) -> CandidateArrays:
    arr = _ARRAYS.get(catalog)
    if arr is None:
        arr = build_arrays(catalog.instances, catalog.specs)
        _ARRAYS[catalog] = arr
    return arr


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
        wanted = {provider_key(p) for p in providers if p.strip()}
        mask = np.array([i.provider.lower() in wanted for i in arr.instances], dtype=bool)
    local_row = None if local is None else _local_row(w, local, catalog, measurements)
    c = Candidates(w, catalog, arr, est)
    if est.serving is not None:
        return rank_serving(c, est.serving, mask, local_row, local_util_pct, limit)
    rec = rank_jobs(c, mask, objective, local_row, local_util_pct, limit)
    constrained = w.deadline_hours is not None or w.budget_usd is not None
    if constrained and w.nodes is None and not priced_and_meeting(c, mask).any():
        rec = _more_nodes(rec, w, catalog, arr, measurements, mask)
    return rec


def _more_nodes(
    rec: Recommendation,
    w: Workload,
    catalog: Catalog,
    arr: CandidateArrays,
    measurements: dict[str, dict[str, float]],
    mask: npt.NDArray[np.bool_],
) -> Recommendation:
    """Issue 23: nothing priced meets the deadline / budget within ``--nodes``: the smallest
    power-of-two node limit (up to :data:`LIMITS`) under which a priced row would, and it."""
    limit = w.node_limit * 2
    while limit <= int(LIMITS["node_limit"]):
        wl = w.with_(node_limit=limit)
        est = estimate(wl, arr, catalog.specs, measurements)
        ok = priced_and_meeting(Candidates(wl, catalog, arr, est), mask)
        if ok.any():
            _price, cost, hours, _rep = job_costs(wl, arr, est, None)
            i = int(np.argmin(np.where(ok, cost, np.inf)))
            inst = arr.instances[i]
            text = tr(
                "nothing priced meets the {what} within --nodes {n}; with --nodes {m}: "
                "{nodes} × {provider} {instance} ({t}, {c})",
                what=_constraint_words(w),
                n=w.node_limit,
                m=limit,
                nodes=int(est.nodes[i]),
                provider=inst.provider,
                instance=inst.instance,
                t=fmt_duration(float(hours[i]) * 3600.0),
                c=fmt_usd(float(cost[i]), digits=0),
            )
            return replace(rec, nodes_needed=limit, advice=(text,))
        limit *= 2
    text = tr(
        "nothing priced meets the {what}, even with --nodes {m}",
        what=_constraint_words(w),
        m=int(LIMITS["node_limit"]),
    )
    return replace(rec, advice=(text,))


def _constraint_words(w: Workload) -> str:
    if w.deadline_hours is not None and w.budget_usd is not None:
        return tr("deadline and budget")
    return tr("deadline") if w.deadline_hours is not None else tr("budget")


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
    rec_w = w.with_(node_limit=1, spot=False, billing="on-demand", budget_usd=None)
    arr = build_arrays(one.instances, one.specs)
    est = estimate(rec_w, arr, one.specs, measurements)
    c = Candidates(rec_w, one, arr, est)
    ones = np.ones(1, dtype=bool)
    viable = c.viable(ones)
    if est.serving is not None:
        rate = np.full(1, math.nan)
        return serving_row(c, est.serving, 0, 0, rate, viable, ~ones)
    nan = np.array([math.nan])
    hours_b = est.seconds / 3600.0
    return job_row(
        c,
        0,
        0,
        nan,
        nan,
        hours_b,
        viable,
        ~ones,
        None,
        ones,
        ones,
        math.nan,
    )
