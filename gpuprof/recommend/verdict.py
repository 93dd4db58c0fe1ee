"""What a recommendation cannot say in its rows, said above them: nothing fits, nothing meets
the deadline or the budget (of every candidate, shown or not), the node count that would, the
top rows overlapping within their bands, or a best time beyond any plan. The CLI prints it
above the table and ``--json`` carries it as ``verdict``; the Recommend tab shows it above its
table."""

from __future__ import annotations

from gpuprof.i18n import tr
from gpuprof.recommend.band import top_rows_overlap
from gpuprof.recommend.rank.rows import Recommendation
from gpuprof.units import fmt_duration, fmt_usd

__all__ = ["IMPLAUSIBLE_HOURS", "verdict_lines"]

#: A best time longer than this (hours) is not a plan: said above the table.
IMPLAUSIBLE_HOURS = 24 * 366 * 10


def verdict_lines(rec: Recommendation) -> list[str]:
    """What the table cannot say by itself, for above it: nothing fits, nothing meets the
    deadline or the budget, or even the best time is beyond any plan. Rows are ranked with
    the ones that fit and meet both first, so looking at the rows shown is enough."""
    w = rec.workload
    rows = [r for r in rec.rows if r.viable]
    out: list[str] = list(rec.advice)
    if not rows:
        out.append(
            tr(
                "no candidate fits this workload ({c} considered): none has enough GPU memory or "
                "supports {p}",
                c=rec.candidates,
                p=w.precision,
            )
        )
        return out
    if w.is_serving:
        if not any(r.serving is not None and r.serving.meets_targets for r in rows):
            out.append(
                tr(
                    "NOTHING MEETS THE LATENCY TARGETS ({p}): the rows show how close each comes",
                    p=w.slo_percentile,
                )
            )
        return out
    timed = [r for r in rows if r.hours is not None]
    if not timed:
        out.append(tr("no candidate has a time estimate: no peak rate for {d}", d=w.compute_dtype))
        return out
    deadline = any(r.meets_deadline is not None for r in timed)
    budget = w.budget_usd is not None
    meets = [r for r in timed if r.meets_deadline is not False]
    within = [r for r in timed if r.within_budget is not False]
    both = [r for r in meets if r.within_budget is not False]
    fastest = rec.fastest_hours  # of every candidate, shown or not
    best = fastest if fastest is not None else min(r.hours or 0.0 for r in timed)
    # The rows shown may be the cheapest few at their cheapest node counts: whether anything
    # meets the deadline is a question about every candidate (a row not shown may, unpriced).
    if deadline and not meets and not (w.deadline_hours and best <= w.deadline_hours):
        out.append(
            tr(
                "NOTHING MEETS THE DEADLINE: the fastest fitting candidate needs {t}",
                t=fmt_duration(best * 3600),
            )
        )
    if budget and not within:
        costs = [r.cost_usd for r in timed if r.cost_usd is not None]
        out.append(
            tr(
                "NOTHING STAYS WITHIN THE BUDGET of {b}: the cheapest candidate costs {c}",
                b=fmt_usd(w.budget_usd),
                c=fmt_usd(min(costs), digits=0) if costs else "?",
            )
        )
    if deadline and budget and meets and within and not both:
        out.append(tr("NO CANDIDATE MEETS BOTH the deadline and the budget: the rows show each"))
    if top_rows_overlap(list(rows), rec.objective):
        out.append(
            tr(
                "the top rows overlap within their error bands ({what}): #1 is not surely "
                "better than #2",
                what=tr("cost") if rec.objective == "cheapest" else tr("time"),
            )
        )
    if best > IMPLAUSIBLE_HOURS:
        out.append(
            tr(
                "even the fastest candidate needs {t}, beyond any plan: check the workload's numbers",
                t=fmt_duration(best * 3600),
            )
        )
    return out
