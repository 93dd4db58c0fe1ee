"""What ``gpuprof recommend`` prints: the verdict above the table, the job and serving tables,
and a row for ``--json`` with the reason for each unknown number."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuprof.commands.tables import folded_table
from gpuprof.i18n import N_, tr

if TYPE_CHECKING:
    from rich.text import Text

#: The first columns of every recommend table (job, serving, a profiled job's projection).
LEAD_COLUMNS = ("#", N_("provider / instance"), N_("region"), "GPUs", N_("mem/GPU"))


#: The cost fields a ``--json`` row explains when null.
_COST_KEYS = ("cost_usd", "cost_ondemand_usd", "cost_spot_usd", "cost_monthly_usd")


def basis_header(label: str, billing: str) -> str:
    """A cost column's header that names the price basis: "cost (monthly)"."""
    from gpuprof.recommend.rank.billing import basis_label

    return f"{label} ({basis_label(billing)})"


def row_json(r: Any, w: Any) -> dict[str, object]:
    """A row for ``--json``: what is unknown is ``null`` with a ``<field>_reason``."""
    d: dict[str, object] = r.to_dict()
    if r.serving is not None or (w.is_serving and r.hours is None):
        why = tr("serving: a rate to sustain, not a job; see serving and cost_unit")
        for key in ("hours", "hours_spot", "efficiency", "achieved_tflops"):
            d[key + "_reason"] = why
        for key in (*_COST_KEYS, "usd_per_million_monthly"):
            if d.get(key) is None:
                d[key + "_reason"] = (
                    tr("does not fit") if not r.fits else tr("no such price in the catalog")
                )
        return d
    if r.hours is None:
        inst = r.instance
        why = (
            tr("GPU {name!r} is not in the spec table: time unknown", name=inst.gpu_name)
            if not inst.gpu_known
            else tr(
                "no {dtype} rate for {gpu} in the sources: time unknown",
                dtype=w.compute_dtype,
                gpu=inst.gpu_model,
            )
        )
        for key in ("hours", "hours_spot", "efficiency", "scaling_efficiency", "achieved_tflops"):
            value = d.get(key)
            if value is None or (isinstance(value, float) and not math.isfinite(value)):
                d[key] = None
                d[key + "_reason"] = why
    for key in _COST_KEYS:
        if d.get(key) is None and key + "_reason" not in d:
            d[key + "_reason"] = (
                tr("time unknown") if r.hours is None else tr("no such price in the catalog")
            )
    return d


def band_text(r: Any) -> str:
    """One sentence: the row's time and cost band and the runs it rests on."""
    from gpuprof.recommend.band import HIGH_PCT, LOW_PCT, fmt_hours_span
    from gpuprof.units import fmt_usd

    b = r.band
    cost = ""
    span = r.cost_span() if hasattr(r, "cost_span") else None
    if span is not None:
        cost = ", " + fmt_usd(span[0], digits=0) + "–" + fmt_usd(span[1], digits=0)
    return tr(
        "error band {span}{cost}: {lo:g}th–{hi:g}th percentile of the errors on {n} comparable "
        "published runs not fitted to ({basis})",
        span=fmt_hours_span(r.hours, b),
        cost=cost,
        lo=LOW_PCT,
        hi=HIGH_PCT,
        n=b.rows,
        basis=b.shown_basis(),
    )


def print_table(rec: Any, verdict: list[str] | None = None) -> None:
    from gpuprof.catalog.money import shown_as_of
    from gpuprof.recommend.band import fmt_hours_span
    from gpuprof.termtext import console, styled
    from gpuprof.units import NA, fmt_duration, fmt_pct, fmt_usd, money_sign

    # Markup is off: catalog rows, labels and reasons are shown as they are; styles are explicit.
    con = console()
    w = rec.workload
    for text in verdict or ():
        con.print(styled(f"! {text}", "bold red"))
    title = tr(
        "{name} — {s}, {p:.3g} params, {prec}; objective: {o}; {v} of {c} candidates fit",
        name=tr(w.name) if w.name else tr("workload"),
        s=w.scenario,
        p=w.params,
        prec=w.precision,
        o=rec.objective,
        v=rec.viable,
        c=rec.candidates,
    )
    if w.is_serving:
        _print_serving(rec, title)
        return
    table = folded_table(
        title,
        (
            *LEAD_COLUMNS,
            N_("time"),
            basis_header(tr("cost"), w.billing),  # the ranking's price basis (--billing)
            money_sign() + "/h",
            N_("as of"),
            N_("eff."),
            "P",
            N_("vs here"),
        ),
    )

    def line(r: Any) -> list[str | Text]:
        inst = r.instance
        vs = NA if r.speedup_vs_local is None else f"{r.speedup_vs_local:.2g}×"
        hours: str | Text = fmt_duration(r.hours * 3600) if r.hours is not None else NA
        if r.hours is not None and getattr(r, "band", None) is not None:
            hours = f"{hours} ({fmt_hours_span(r.hours, r.band)})"
        if r.meets_deadline is False:
            hours = styled(f"{hours} ✗", "red")
        # the basis is in the column's header
        cost: str | Text = fmt_usd(r.cost_usd, digits=0) if r.cost_usd is not None else NA
        if r.within_budget is False:
            cost = styled(f"{cost} ✗", "red")
        return [
            *_lead_cells(r),
            hours,
            cost,
            fmt_usd(r.price_per_hour_usd),
            shown_as_of(inst) or NA,
            fmt_pct(r.efficiency * 100) if r.efficiency is not None else NA,
            "★" if r.pareto else "",
            vs,
        ]

    _print_rows(con, table, rec, line)
    con.print(
        tr(
            "P ★ = on the Pareto front of time vs cost. 'vs here' = times faster than this machine. "
            "✗ = misses the deadline or the budget."
        )
    )
    _print_top_reasons(con, rec)


def _print_serving(rec: Any, title: str) -> None:
    """The serving table: cost per million tokens, instances, throughput, latency, bound."""
    from rich.table import Table

    from gpuprof.catalog.money import shown_as_of
    from gpuprof.recommend.explain import fmt_duration_ms
    from gpuprof.termtext import console, styled
    from gpuprof.units import NA, fmt_usd, money_sign

    con = console()
    w = rec.workload
    table = Table(title=title)
    for col in (
        *LEAD_COLUMNS,
        N_("layout"),
        N_("batch"),
        N_("instances"),
        # the ranking's price basis (--billing); a monthly subscription per month
        basis_header(
            tr("{sign}/month", sign=money_sign()) if w.billing == "monthly" else "$/h",
            w.billing,
        ),
        N_("$/M out"),
        N_("tok/s/inst"),
        N_("TTFT"),
        N_("TPOT"),
        N_("bound"),
        N_("as of"),
        "P",
    ):
        # amounts are in the command's currency (recommend --currency): so is the header
        table.add_column(tr(col).replace("$", money_sign()), overflow="fold")

    def ms(x: float | None) -> str:
        return NA if x is None else fmt_duration_ms(x)

    def line(r: Any) -> list[str | Text]:
        inst = r.instance
        s = r.serving
        if s is None or not r.fits:
            blank: list[str | Text] = [NA] * 9
            return [
                *_lead_cells(r),
                *blank,
                shown_as_of(inst) or NA,
                "",
            ]
        layout = (
            f"TP{s.tp}" + (f" PP{s.pp}" if s.pp > 1 else "") + (f" EP{s.ep}" if s.ep > 1 else "")
        )
        if s.replicas_per_instance > 1:
            layout += f" ×{s.replicas_per_instance}"
        ttft: str | Text = ms(s.ttft_s)
        tpot: str | Text = ms(s.tpot_s)
        if not s.meets_targets:
            if w.ttft_s is not None and (s.ttft_s is None or s.ttft_s > w.ttft_s):
                ttft = styled(f"{ttft} ✗", "red")
            if w.tpot_s is not None and (s.tpot_s is None or s.tpot_s > w.tpot_s):
                tpot = styled(f"{tpot} ✗", "red")
        return [
            *_lead_cells(r),
            layout,
            f"{s.batch:.0f}/{s.batch_max}",
            str(s.instances),
            fmt_usd(r.cost_monthly_usd if w.billing == "monthly" else r.price_per_hour_usd),
            fmt_usd(r.usd_per_million)
            + (
                f" ({fmt_usd(r.usd_per_million * r.band.low)}–"
                f"{fmt_usd(r.usd_per_million * r.band.high)})"
                if r.usd_per_million is not None and getattr(r, "band", None) is not None
                else ""
            ),
            f"{s.capacity_tokens_per_s_per_instance:,.0f}",
            ttft,
            tpot,
            tr(s.bound),
            shown_as_of(inst) or NA,
            "★" if r.pareto else "",
        ]

    _print_rows(con, table, rec, line)
    con.print(
        tr(
            "Serving {rate:.4g} requests/s, prompt {p} and output {o} tokens: instances = how "
            "many sustain the rate; $/h for all of them; $/M out = per million output tokens; "
            "batch = sequences in flight per replica at this load / that fit; TTFT and TPOT {pct} "
            "at this load; tok/s/inst = output tokens/s one instance sustains. P ★ = Pareto "
            "front of cost per million vs throughput per instance. ✗ = misses a target.",
            rate=w.requests_per_s,
            p=w.prompt_len,
            o=w.gen_len,
            pct=w.slo_percentile,
        ).replace("$/", money_sign() + "/")  # in the command's currency, as the headers
    )
    if w.billing == "monthly":
        con.print(
            tr(
                "--billing monthly: {sign}/month = a month (730 h) of all of those instances on "
                "their monthly price; {sign}/M out and {sign}/h are at that price",
                sign=money_sign(),
            )
        )
    _print_top_reasons(con, rec)


def _lead_cells(r: Any) -> list[str | Text]:
    """The cells under :data:`LEAD_COLUMNS`: rank, label, region, GPUs, memory needed / per GPU
    (red where the job does not fit)."""
    from gpuprof.termtext import styled
    from gpuprof.units import NA, fmt_bytes

    need: str | Text
    need = f"{fmt_bytes(r.mem_need_per_gpu_bytes)}/{fmt_bytes(r.mem_per_gpu_bytes, digits=0)}"
    if not r.fits:
        need = styled(need, "red")
    return [
        str(r.rank) if r.rank else "—",
        r.label,
        r.instance.region or NA,
        f"{r.gpus_total:g}× {r.instance.gpu_model}",
        need,
    ]


def _print_rows(con: Any, table: Any, rec: Any, line: Callable[[Any], list[str | Text]]) -> None:
    """The ranked rows, then this machine's row in italics, then the table."""
    for r in rec.rows:
        table.add_row(*line(r))
    if rec.local is not None:
        table.add_row(*line(rec.local), style="italic")
    con.print(table)


def _print_top_reasons(con: Any, rec: Any) -> None:
    """Below either table: the ranking's warnings, then the top three rows' reasons (with the
    error band where the row has one) and their warnings."""
    from gpuprof.termtext import styled

    for text in rec.warnings:
        con.print(styled(f"! {text}", "yellow"))
    for r in rec.rows[:3]:
        con.print(styled(f"{r.rank}. {r.label}", "bold"))
        for text in r.reasons:
            con.print(f"   • {text}")
        if getattr(r, "band", None) is not None and r.hours is not None:
            con.print(f"   • {band_text(r)}")
        for text in r.warnings:
            con.print(styled(f"   ! {text}", "yellow"))
