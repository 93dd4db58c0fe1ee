"""Ranking serving traffic: the instances each configuration needs for the rate, their cost per
million output tokens, latency at that load; the Pareto front of cost per million vs throughput
per instance."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from gpuprof.catalog.instances import Instance
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.recommend.band import inference_band
from gpuprof.recommend.explain import fmt_duration_ms, row_notes
from gpuprof.recommend.rank.billing import HOURS_PER_MONTH, hourly_price
from gpuprof.recommend.rank.rows import (
    Candidates,
    Recommendation,
    RecommendationRow,
    ServingRow,
    catalog_warnings,
    estimate_facts,
    opt,
    pareto_front,
)
from gpuprof.recommend.serve import BOUNDS, KV_FREE_FRACTION, ServeArrays
from gpuprof.recommend.workload import Workload
from gpuprof.units import NA, fmt_usd

__all__ = ["rank_serving", "serving_arrays_of", "serving_row"]


def rank_serving(
    c: Candidates,
    sv: ServeArrays,
    mask: npt.NDArray[np.bool_],
    local_row: RecommendationRow | None,
    local_util_pct: float | None,
    limit: int | None,
) -> Recommendation:
    """Serving: rank by the cost per million output tokens of the instances the rate needs
    (those meeting the latency targets first); the scatter is cost per million vs throughput
    per instance."""
    w, arr = c.w, c.arr
    rate = hourly_price(arr, w.billing)  # per instance-hour on the ranking basis (NaN: none)
    per_h = rate * sv.nodes * sv.instances
    # The scatter's y: the row's own cost per million output tokens (its whole instances at
    # this traffic), so that a point and its table row say the same number.
    millions = w.requests_per_s * w.gen_len * 3600.0 / 1e6
    with np.errstate(invalid="ignore", divide="ignore"):
        per_m_inst = per_h / millions if millions > 0 else np.full(len(arr), np.nan)
    viable = c.viable(mask)
    has_cost = np.isfinite(per_h)
    tpot = sv.tpot_p99_s if w.slo_percentile == "p99" else sv.tpot_p50_s
    doubtful = c.doubtful()
    metric = np.where(has_cost, per_h, np.inf)
    order = np.lexsort((tpot, metric, doubtful, ~has_cost, ~sv.meets, ~viable, ~mask))
    order = order[mask[order]]
    ok = viable & has_cost & np.isfinite(per_m_inst) & (sv.tokens_s_instance > 0)
    pareto = pareto_front(-sv.tokens_s_instance, per_m_inst, ok)
    take = order if limit is None else order[:limit]
    rows = tuple(
        serving_row(c, sv, int(i), rank + 1, rate, viable, pareto) for rank, i in enumerate(take)
    )
    # A row without a price on the basis is not the cheapest: it comes after every priced one.
    rows = c.with_unpriced_notes(rows)
    sc = np.flatnonzero(ok)
    scatter = tuple(
        zip(
            sv.tokens_s_instance[sc].tolist(),
            per_m_inst[sc].tolist(),
            pareto[sc].tolist(),
            strict=True,
        )
    )
    return replace(
        c.recommendation("cheapest", rows, mask, viable, local_row, local_util_pct),
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


def serving_row(
    c: Candidates,
    sv: ServeArrays,
    i: int,
    rank: int,
    rate: npt.NDArray[np.float64],
    viable: npt.NDArray[np.bool_],
    pareto: npt.NDArray[np.bool_],
) -> RecommendationRow:
    """One serving row: every number for the same layout and instance count; ``rate``: each
    instance's price per hour on the ranking basis (``w.billing``)."""
    w, arr, est = c.w, c.arr, c.est
    inst = arr.instances[i]
    spec = c.catalog.spec_for(inst)
    nodes = int(sv.nodes[i])
    instances = int(sv.instances[i]) if math.isfinite(sv.instances[i]) else 1
    fits = bool(est.fits[i])

    def per_hour(price: float) -> float | None:
        return opt(price * nodes * instances) if fits else None

    basis = w.billing
    usd_h = per_hour(rate[i])
    lam = w.requests_per_s
    out_m = lam * w.gen_len * 3600.0 / 1e6
    monthly = inst.price_monthly_usd
    per_month = None if monthly is None or not fits else monthly * nodes * instances
    per_m_monthly = None
    if per_month is not None and out_m > 0:
        per_m_monthly = per_month / (out_m * HOURS_PER_MONTH)
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
        ttft_p50_s=opt(float(sv.ttft_p50_s[i])),
        ttft_p99_s=opt(float(sv.ttft_p99_s[i])),
        tpot_p50_s=opt(float(sv.tpot_p50_s[i])),
        tpot_p99_s=opt(float(sv.tpot_p99_s[i])),
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
    row_facts = replace(
        estimate_facts(est, arr, i, nodes, basis), kv_free_fraction=KV_FREE_FRACTION
    )
    reasons, warnings = row_notes(w, inst, spec, row_facts)
    s_reasons, s_warnings = serving_notes(w, inst, facts, fits)
    reasons = (*s_reasons, *reasons)
    warnings = (*s_warnings, *warnings)
    warnings = catalog_warnings(inst, warnings)
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
        cost_monthly_usd=per_month,
        usd_per_million_monthly=per_m_monthly,
        band=inference_band("serve", spec.architecture if spec else None, float(est.gpus[i]))
        if fits
        else None,
    )


#: The bound names of :data:`gpuprof.recommend.serve.BOUNDS`, for translation where shown.
_BOUND_TEXT = {
    "latency target": N_("latency target"),
    "communication": N_("communication"),
    "compute": N_("compute"),
    "memory capacity": N_("memory capacity"),
    "memory bandwidth": N_("memory bandwidth"),
}


def _ms(seconds: float | None) -> str:
    return NA if seconds is None else fmt_duration_ms(seconds)


def serving_notes(
    w: Workload, inst: Instance, s: ServingRow, fits: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reasons, warnings) of a serving row: layout, batch, latency at load, replicas, cost."""
    if not fits:
        return (), ()
    reasons = [
        tr(
            "{n} × this instance sustain {rate:.4g} requests/s ({tok:.4g} output tokens/s): "
            "{usd}/h, {per_m} per million output tokens",
            n=s.instances,
            rate=s.request_rate_per_s,
            tok=s.output_tokens_per_s,
            usd=fmt_usd(s.usd_per_hour),
            per_m=fmt_usd(
                None
                if s.usd_per_hour is None or s.output_tokens_per_s <= 0
                else s.usd_per_hour / (s.output_tokens_per_s * 3600.0 / 1e6)
            ),
        ),
        tr(
            "layout: tensor parallel {tp} × pipeline {pp}{ep}; {dp} replica(s) per instance, "
            "{r} in all",
            tp=s.tp,
            pp=s.pp,
            ep=tr(" × expert parallel {e}", e=s.ep) if s.ep > 1 else "",
            dp=s.replicas_per_instance,
            r=s.replicas,
        ),
        tr(
            "batch: {b:.3g} sequences in flight per replica at {load:.0%} load; up to {best} "
            "(throughput-best{targets}), {bmax} fit in the KV cache ({kv:.3g} tokens)",
            b=s.batch,
            load=s.load,
            best=s.batch_best,
            targets=tr(" within the latency targets") if w.ttft_s or w.tpot_s else "",
            bmax=s.batch_max,
            kv=s.kv_cache_tokens,
        ),
        tr(
            "at this load: TTFT p50 {t50}, p99 {t99}; TPOT p50 {p50}, p99 {p99} (step {step})",
            t50=_ms(s.ttft_p50_s),
            t99=_ms(s.ttft_p99_s),
            p50=_ms(s.tpot_p50_s),
            p99=_ms(s.tpot_p99_s),
            step=_ms(s.step_s),
        ),
        tr("bound: {b}", b=tr_text(_BOUND_TEXT.get(s.bound, s.bound))),
    ]
    warnings = []
    if not s.meets_targets:
        warnings.append(
            tr(
                "misses the latency targets ({p}: TTFT {ttft}, TPOT {tpot}) at any batch",
                p=s.slo_percentile,
                ttft=_ms(w.ttft_s),
                tpot=_ms(w.tpot_s),
            )
        )
    return tuple(reasons), tuple(warnings)
