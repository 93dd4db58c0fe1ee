"""Rows of the Benchmarks tab's results table: one per measurement, failed case or skip.

Kept apart from the widget so the wording and the number formats are one small, testable place;
numbers go through :mod:`gpuprof.units`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuprof.bench.base import (
    CollectiveResult,
    GemmResult,
    MemoryResult,
    P2PResult,
    Result,
    RunState,
    WorkloadResult,
)
from gpuprof.bench.runner import BenchRun
from gpuprof.units import NA, fmt_latency, fmt_measure, fmt_pct

from ..shell.i18n import translate as _t

__all__ = ["TableRow", "rows_for_results", "rows_for_run"]


@dataclass(frozen=True, slots=True)
class TableRow:
    """One table line. ``key`` matches :attr:`Result.key` (None for a case that failed whole);
    ``kind`` is ok, throttled, skipped, failed or interrupted (it picks the colour)."""

    key: str | None
    case: str
    metric: str
    value: str
    pct_of_peak: str
    notes: str
    kind: str


def _metric(result: Result) -> str:
    if isinstance(result, GemmResult):
        return _t("median")
    if isinstance(result, MemoryResult):
        return _t("median")
    if isinstance(result, CollectiveResult):
        return _t("bus bandwidth")
    if isinstance(result, P2PResult):
        return _t("slowest pair")
    if isinstance(result, WorkloadResult):
        return _t("throughput")
    return ""


def _details(result: Result) -> list[str]:
    out: list[str] = []
    if isinstance(result, GemmResult):
        out.append(
            _t("best %1, %2 iterations")
            .replace("%1", fmt_measure("TFLOPS", result.tflops_max))
            .replace("%2", str(result.iterations))
        )
    elif isinstance(result, MemoryResult):
        if not result.verified:
            out.append(_t("NOT verified"))
    elif isinstance(result, CollectiveResult):
        out.append(
            _t("%1 ranks (%2), p50 %3, p99 %4")
            .replace("%1", str(result.world_size))
            .replace("%2", result.backend)
            .replace("%3", fmt_latency(result.latency_p50_s))
            .replace("%4", fmt_latency(result.latency_p99_s))
        )
    elif isinstance(result, WorkloadResult):
        out.append(
            _t("step %1, batch %2")
            .replace("%1", fmt_latency(result.step_time_median_s))
            .replace("%2", str(result.batch))
        )
    return out


def _row(result: Result) -> TableRow:
    _name, value, unit = result.headline()
    notes: list[str] = []
    if not result.ok:
        kind = "skipped" if result.status.startswith("skipped") else "failed"
        notes.append(result.status)
    else:
        kind = "throttled" if result.throttled else "ok"
        if result.status != "ok":
            notes.append(result.status)
        if result.throttled:
            notes.append(_t("throttled: %1").replace("%1", ", ".join(result.throttle_reasons)))
        notes.extend(_details(result))
    notes.extend(result.notes)
    pct = ""
    if isinstance(result, GemmResult) and result.ok:
        pct = fmt_pct(result.pct_of_peak, digits=1) if result.pct_of_peak is not None else NA
    return TableRow(
        key=result.key,
        case=f"{result.bench} {result.case}",
        metric=_metric(result) if result.ok else "",
        value=fmt_measure(unit, value) if result.ok else "",
        pct_of_peak=pct,
        notes="; ".join(notes),
        kind=kind,
    )


def rows_for_results(results: list[Result] | tuple[Result, ...]) -> list[TableRow]:
    """Rows of measurements as they arrive (a run still going)."""
    return [_row(r) for r in results]


def rows_for_run(run: BenchRun) -> list[TableRow]:
    """Every case of a finished run: its results, and a row for a case that failed or never ran."""
    rows: list[TableRow] = []
    for case in run.cases:
        rows.extend(_row(r) for r in case.results)
        if case.state is RunState.FAILURE:
            # No error: a measurement failed, and its own row (above) says how; the note counts.
            error = [_t("failed: %1").replace("%1", case.error)] if case.error else []
            rows.append(_case_row(case.name, "; ".join([*error, *case.notes]), "failed"))
        elif case.state is RunState.INTERRUPTED:
            notes = "; ".join(case.notes) or _t("cancelled")
            rows.append(_case_row(case.name, notes, "interrupted"))
        elif case.notes:
            kind = "skipped" if case.state is RunState.SKIPPED else "ok"
            rows.append(_case_row(case.name, "; ".join(case.notes), kind))
    return rows


def _case_row(case: str, notes: str, kind: str) -> TableRow:
    """A row of a whole case, with no measurement: its notes (why it failed, was cancelled or
    skipped)."""
    return TableRow(
        key=None, case=case, metric="", value="", pct_of_peak="", notes=notes, kind=kind
    )
