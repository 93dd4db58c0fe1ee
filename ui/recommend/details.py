"""The Recommend tab's texts: the summary line above the table and the reasoning of one row.

Every text that came from the catalog or the core is escaped before it reaches the HTML.
"""

from __future__ import annotations

import html

from gpuprof.catalog.asof import dated
from gpuprof.catalog.money import shown_as_of
from gpuprof.recommend.rank import Recommendation, RecommendationRow
from gpuprof.units import NA, fmt_bytes, fmt_hours, fmt_pct, fmt_usd

from ..shell.i18n import translate as _t
from ..shell.widgets import arg

__all__ = ["details_html", "money", "summary_text"]


def money(value: float | None) -> str:
    """USD, whole dollars from $100 up."""
    return fmt_usd(value, digits=0 if value is not None and value >= 100 else 2)


def summary_text(rec: Recommendation) -> str:
    """The line above the table: how many fit, the objective, the Pareto front, price dates."""
    dates = sorted({r.instance.as_of for r in rec.rows if r.instance.as_of})
    # marked as every view marks them: "2023 (year only) … 2026-01-21 (old)"
    shown = [dated(d) for d in dates]
    as_of = (shown[0] if len(shown) == 1 else f"{shown[0]} … {shown[-1]}") if shown else NA
    objective = {
        "cheapest": _t("cheapest that meets the deadline"),
        "fastest": _t("fastest within the budget"),
    }.get(rec.objective, rec.objective)
    if rec.workload.is_serving:
        objective = _t("cost per million output tokens, latency targets first")
    front = sum(1 for *_, on_front in rec.scatter if on_front)
    text = _t(
        "%1 of %2 configurations fit · ranked by: %3 · %4 on the Pareto front · prices as of %5"
    )
    for i, value in enumerate(
        (str(rec.viable), str(rec.candidates), objective, str(front), as_of), start=1
    ):
        text = text.replace(f"%{i}", value)
    if len(rec.rows) < rec.candidates:
        text += " · " + _t("the table shows the first %1").replace("%1", str(len(rec.rows)))
    for advice in rec.advice:  # issue 23: nothing priced meets it within the node limit
        text += " · " + advice
    from gpuprof.recommend.band import top_rows_overlap

    if top_rows_overlap([r for r in rec.rows if r.viable], rec.objective):
        text += " · " + _t("the top rows overlap within their error bands")
    return text


def _monthly_fact(r: RecommendationRow, as_of: str) -> str:
    """A monthly subscription (包月, issue 24): its price and what the row pays on it."""
    per_month = money(r.instance.price_monthly_usd)
    if r.serving is not None:  # serving: a month of the instances the rate needs
        return (
            _t("Monthly: %1/month per node (as of %2) → %3/month for %4 instance(s)")
            .replace("%1", per_month)
            .replace("%2", as_of)
            .replace("%3", money(r.cost_monthly_usd))
            .replace("%4", str(r.serving.instances))
        )
    return (
        _t("Monthly: %1/month per node (as of %2) → job %3 in whole months")
        .replace("%1", per_month)
        .replace("%2", as_of)
        .replace("%3", money(r.cost_monthly_usd))
    )


def _band_fact(r: RecommendationRow) -> str:
    """Issue 23: the time (and cost) band from cross-validated errors of comparable runs."""
    from gpuprof.recommend.band import fmt_hours_span

    band = r.band
    assert band is not None and r.hours is not None
    span = fmt_hours_span(r.hours, band)
    cost = r.cost_span()  # a monthly subscription: whole months
    if cost is not None:
        span += ", " + money(cost[0]) + "–" + money(cost[1])
    return (
        _t(
            "Error band: %1 (10th–90th percentile of the errors on %2 comparable published runs "
            "not fitted to: %3)"
        )
        .replace("%1", span)
        .replace("%2", str(band.rows))
        .replace("%3", band.shown_basis())
    )


def _serving_facts(r: RecommendationRow) -> list[str]:
    """A serving row's numbers (issue 22): the same ones as the CLI's table and JSON."""
    from gpuprof.recommend.explain import fmt_duration_ms

    s = r.serving
    if s is None or not r.fits:
        return []

    def ms(x: float | None) -> str:
        return NA if x is None else fmt_duration_ms(x)

    return [
        _t("Instances: %1 (%2 replica(s) of TP %3 × PP %4%5)")
        .replace("%1", str(s.instances))
        .replace("%2", str(s.replicas))
        .replace("%3", str(s.tp))
        .replace("%4", str(s.pp))
        .replace("%5", f" × EP {s.ep}" if s.ep > 1 else ""),
        _t("Cost: %1/h · %2 per million output tokens")
        .replace("%1", money(s.usd_per_hour))
        .replace("%2", money(r.usd_per_million)),
        _t("Throughput: %1 output tokens/s per instance; load %2")
        .replace("%1", f"{s.capacity_tokens_per_s_per_instance:,.0f}")
        .replace("%2", fmt_pct(s.load * 100)),
        _t("Batch: %1 in flight per replica; best %2; %3 fit in the KV cache")
        .replace("%1", f"{s.batch:.3g}")
        .replace("%2", str(s.batch_best))
        .replace("%3", str(s.batch_max)),
        _t("TTFT p50 %1, p99 %2 · TPOT p50 %3, p99 %4")
        .replace("%1", ms(s.ttft_p50_s))
        .replace("%2", ms(s.ttft_p99_s))
        .replace("%3", ms(s.tpot_p50_s))
        .replace("%4", ms(s.tpot_p99_s)),
        _t("Bound: %1").replace("%1", _t(s.bound)),
    ]


def details_html(r: RecommendationRow, rec: Recommendation | None, comparing: bool) -> str:
    """The reasoning of ``r`` as HTML; every text from the catalog or the core is escaped."""
    e = html.escape
    inst = r.instance
    as_of = shown_as_of(inst) or _t("unknown date")
    parts: list[str] = []
    title = r.label if inst.provider != "local" else _t("This machine")
    rank = f"#{r.rank} " if r.rank else ""
    star = " ★" if r.pareto else ""
    parts.append(f"<h3>{e(rank + title + star)}</h3>")
    facts = [
        _t("GPUs: %1").replace(
            "%1",
            f"{r.gpus_total:g}× {inst.gpu_model}"
            + (f" ({r.nodes} × {inst.gpu_count:g})" if r.nodes > 1 else ""),
        ),
        _t("Region: %1").replace("%1", inst.region or NA),
        _t("Memory per GPU: needs %1 of %2 — %3")
        .replace("%1", fmt_bytes(r.mem_need_per_gpu_bytes))
        .replace("%2", fmt_bytes(r.mem_per_gpu_bytes))
        .replace("%3", _t("fits") if r.fits else _t("does not fit")),
    ]
    if r.serving is not None:
        facts += _serving_facts(r)
    else:
        facts.append(_t("Time: %1").replace("%1", fmt_hours(r.hours)))
        if r.band is not None and r.hours is not None:
            facts.append(_band_fact(r))
    if r.efficiency is not None:
        facts.append(
            _t("Efficiency: %1 = base %2 × scaling %3 (%4)")
            .replace("%1", fmt_pct(r.efficiency * 100))
            .replace("%2", fmt_pct(r.efficiency_base * 100))
            .replace("%3", fmt_pct(r.scaling_efficiency * 100))
            .replace(
                "%4",
                _t("measured here") if r.efficiency_measured else _t("published"),
            )
        )
    if r.speedup_vs_local is not None and comparing:
        facts.append(_t("vs this machine: %1× faster").replace("%1", f"{r.speedup_vs_local:.3g}"))
    parts.append("<p>" + "<br>".join(e(f) for f in facts) + "</p>")
    heads = {
        "Why": _t("Why"),
        "Warnings": _t("Warnings"),
        "Prices": _t("Prices"),
        "Efficiency source": _t("Efficiency source"),
        "For this workload": _t("For this workload"),
        "Formulas used": _t("Formulas used"),
    }
    if r.reasons:
        parts.append(
            f"<h4>{e(heads['Why'])}</h4><ul>"
            + "".join(f"<li>{e(t)}</li>" for t in r.reasons)
            + "</ul>"
        )
    if r.warnings:
        parts.append(
            f"<h4>{e(heads['Warnings'])}</h4><ul style='color:#a35c00'>"
            + "".join(f"<li>{e(t)}</li>" for t in r.warnings)
            + "</ul>"
        )
    if inst.provider != "local":
        rows = []
        for label, per_hour, job in (
            (_t("On-demand"), inst.price_ondemand_usd_hr, r.cost_ondemand_usd),
            (_t("Spot"), inst.price_spot_usd_hr, r.cost_spot_usd),
            (_t("Reserved 1y"), inst.price_reserved_1y_usd_hr, r.cost_reserved_1y_usd),
            (_t("Reserved 3y"), inst.price_reserved_3y_usd_hr, r.cost_reserved_3y_usd),
        ):
            if per_hour is None:
                continue
            price = (label, fmt_usd(per_hour), as_of, money(job))
            if r.serving is not None:  # serving: per hour of the instances the rate needs
                text = _t("%1: %2/h per node (as of %3) → %4/h for %5 instance(s)")
                rows.append(arg(text, *price, r.serving.instances))
            else:
                rows.append(arg(_t("%1: %2/h per node (as of %3) → job %4"), *price))
        if inst.price_monthly_usd is not None:
            rows.append(_monthly_fact(r, as_of))
        if r.usd_per_pflop_hour is not None:
            rows.append(
                _t("%1 per achieved PFLOP-hour").replace("%1", fmt_usd(r.usd_per_pflop_hour))
            )
        rows.append(_t("Price source: %1").replace("%1", inst.source or NA))
        parts.append(
            f"<h4>{e(heads['Prices'])}</h4><ul>"
            + "".join(f"<li>{e(t)}</li>" for t in rows)
            + "</ul>"
        )
    parts.append(f"<h4>{e(heads['Efficiency source'])}</h4><p>{e(r.efficiency_source)}</p>")
    if rec is not None and rec.warnings:
        parts.append(
            f"<h4>{e(heads['For this workload'])}</h4><ul style='color:#a35c00'>"
            + "".join(f"<li>{e(t)}</li>" for t in rec.warnings)
            + "</ul>"
        )
    if rec is not None:
        parts.append(
            f"<h4>{e(heads['Formulas used'])}</h4><ul>"
            + "".join(f"<li><code>{e(t)}</code></li>" for t in rec.formulas)
            + "</ul>"
        )
    return "\n".join(parts)
