"""Report sections that summarize a benchmark run and a recommendation (the telemetry part and
the whole report are in :mod:`gpuprof.report.build`, which imports these names too).

- :func:`load_bench_run`, :func:`summarize_bench` — a run from the results database.
- :func:`summarize_recommendation`, :func:`recommend_for` — cloud configurations for a workload.

Text that came from the system or a results file goes through :func:`gpuprof.redact.clean_text`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.catalog.money import shown_as_of
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.redact import clean_text
from gpuprof.report.model import (
    BenchRow,
    BenchSummary,
    Chart,
    ChartSeries,
    RecommendationRowSummary,
    RecommendationSummary,
    ServingRowSummary,
)

if TYPE_CHECKING:
    from gpuprof.bench.runner import BenchRun
    from gpuprof.recommend.rank import Recommendation, RecommendationRow
    from gpuprof.recommend.workload import Workload
    from gpuprof.telemetry.model import DeviceInfo

__all__ = ["load_bench_run", "recommend_for", "summarize_bench", "summarize_recommendation"]


def _opt_clean(text: str | None, max_len: int = 200) -> str | None:
    return None if text is None else clean_text(text, max_len)


# --- benchmarks ----------------------------------------------------------------------------------

_BENCH_UNITS = {"TFLOPS": "tflops", "B/s": "bytes_s"}


def load_bench_run(run_id: str, db_path: str | Path | None = None) -> BenchRun:
    """A run from the results database by id, unique prefix or ``latest``."""
    try:
        from gpuprof.bench.results import ResultsDB
    except ImportError as exc:  # a build without the benchmark module
        raise InputError(tr("benchmarks are not available in this build: {e}", e=exc)) from None
    if db_path is not None and not Path(db_path).is_file():
        raise InputError(tr("results database {p} does not exist", p=db_path))
    return ResultsDB(db_path).load(run_id)


def summarize_bench(run: BenchRun) -> BenchSummary:
    rows: list[BenchRow] = []
    gemm_best: dict[str, tuple[float, float | None]] = {}
    copy_best: dict[str, tuple[int, float]] = {}
    for r in run.results:
        metric, value, unit = r.headline()
        peak = getattr(r, "peak_tflops", None)
        pct = getattr(r, "pct_of_peak", None)
        if value is not None and not math.isfinite(value):
            value = None
        rows.append(
            BenchRow(
                key=clean_text(r.key, 200),
                bench=clean_text(r.bench, 80),
                case=clean_text(r.case, 200),
                status=clean_text(r.status, 300),
                metric=metric,
                value=value,
                unit=unit,
                peak=peak,
                pct_of_peak=pct,
                throttle_reasons=tuple(clean_text(t, 80) for t in r.throttle_reasons),
            )
        )
        if not r.ok or value is None:
            continue
        dtype = getattr(r, "dtype", None)
        if r.bench == "gemm" and dtype:
            best = gemm_best.get(dtype)
            if best is None or value > best[0]:
                gemm_best[dtype] = (value, peak)
        direction = getattr(r, "direction", None)
        if r.bench == "memory" and direction:
            pinned = getattr(r, "pinned", None)
            label = direction.upper() + {True: " pinned", False: " pageable", None: ""}[pinned]
            size = int(getattr(r, "size_bytes", 0))
            prev = copy_best.get(label)
            if prev is None or size > prev[0]:
                copy_best[label] = (size, value)
    charts: list[Chart] = []
    if gemm_best:
        cats = tuple(gemm_best)
        bars: list[tuple[str, tuple[float | None, ...]]] = [
            (tr("measured (best median)"), tuple(gemm_best[c][0] for c in cats))
        ]
        if any(p is not None for _, p in gemm_best.values()):
            bars.append((tr("spec peak (dense)"), tuple(gemm_best[c][1] for c in cats)))
        title = tr("GEMM throughput vs spec peak")
        charts.append(Chart.bars("bench.gemm", title, "tflops", cats, bars, x_unit=""))
    if copy_best:
        cats = tuple(copy_best)
        bars = [(tr("median"), tuple(copy_best[c][1] for c in cats))]
        title = tr("Copy bandwidth (largest size)")
        charts.append(Chart.bars("bench.memory", title, "bytes_s", cats, bars, x_unit=""))
    env = run.environment
    return BenchSummary(
        run_id=clean_text(run.run_id, 100),
        suite=clean_text(run.suite, 50),
        device=clean_text(run.device, 50),
        state=run.state.value,
        started_s=run.started_s,
        ended_s=run.ended_s,
        device_name=_opt_clean(env.gpu_name or (env.cpu_model if run.device == "cpu" else None)),
        torch_version=_opt_clean(env.torch_version),
        cuda_runtime_version=_opt_clean(env.cuda_runtime_version),
        rows=tuple(rows),
        charts=tuple(charts),
        notes=tuple(clean_text(n, 500) for n in run.notes),
    )


# --- recommendations -----------------------------------------------------------------------------


def recommend_for(
    workload: Workload,
    *,
    devices: Sequence[DeviceInfo] = (),
    util_pct: float | None = None,
    bench: BenchRun | None = None,
    limit: int = 10,
) -> Recommendation:
    """Rank catalog instances for ``workload``; this machine's GPUs (and GEMM TFLOPS measured
    in ``bench``) are the "vs here" baseline."""
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.rank import LocalMachine, recommend

    local = None
    if devices:
        counts: dict[str, int] = {}
        for d in devices:
            counts[d.name] = counts.get(d.name, 0) + 1
        local = LocalMachine(tuple(counts.items()), util_pct=util_pct)
    measured: dict[str, dict[str, float]] = {}
    if bench is not None and bench.environment.gpu_name and bench.device != "cpu":
        for r in bench.results:
            dtype = getattr(r, "dtype", None)
            if r.bench == "gemm" and r.ok and dtype:
                value = r.headline()[1]
                if value is not None:
                    per_dtype = measured.setdefault(bench.environment.gpu_name, {})
                    per_dtype[dtype] = max(per_dtype.get(dtype, 0.0), value)
    return recommend(
        workload,
        load_catalog(),
        local=local,
        local_measurements=measured or None,
        local_util_pct=util_pct,
        limit=limit,
    )


def _rec_row(r: RecommendationRow) -> RecommendationRowSummary:
    inst = r.instance
    return RecommendationRowSummary(
        rank=r.rank,
        provider=inst.provider,
        instance=inst.instance,
        label=r.label,
        region=inst.region,
        gpu_model=inst.gpu_model,
        gpus_total=float(r.gpus_total),
        fits=r.fits,
        mem_need_per_gpu_bytes=float(r.mem_need_per_gpu_bytes),
        mem_per_gpu_bytes=float(r.mem_per_gpu_bytes),
        hours=r.hours,
        cost_usd=r.cost_usd,
        cost_basis=r.cost_basis,
        price_per_hour_usd=r.price_per_hour_usd,
        price_as_of=shown_as_of(inst),  # as every view shows it (catalog.money.shown_as_of)
        efficiency=r.efficiency,
        pareto=r.pareto,
        speedup_vs_local=r.speedup_vs_local,
        reasons=tuple(r.reasons),
        warnings=tuple(r.warnings),
        serving=_serving_row(r),
    )


def _serving_row(r: RecommendationRow) -> ServingRowSummary | None:
    s = r.serving
    if s is None:
        return None
    return ServingRowSummary(
        **{f: getattr(s, f) for f in ServingRowSummary.__dataclass_fields__}  # same names
    )


def _workload_fields(w: Workload) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for f in dataclasses.fields(w):
        value = getattr(w, f.name)
        if f.name == "name" or value is None:
            continue
        if (
            f.default is not dataclasses.MISSING
            and value == f.default
            and f.name not in ("precision",)
        ):
            continue
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        out.append((f.name, text))
    return tuple(out)


def _pareto_chart(
    pts: list[tuple[float, float, bool]], title: str, x_unit: str, x_label: str
) -> Chart:
    """The recommendation's scatter: cost (y) against ``x`` of every fitting configuration,
    ``(x, y, on the Pareto front)``, the front a series of its own."""
    series = []
    for label, on_front in ((tr("fits"), False), (tr("Pareto front"), True)):
        sel = sorted((x, y) for x, y, p in pts if p == on_front)
        if sel:
            series.append(ChartSeries(label, tuple(x for x, _ in sel), tuple(y for _, y in sel)))
    return Chart(
        key="recommend.pareto",
        title=title,
        kind="scatter",
        unit="usd",
        series=tuple(series),
        x_unit=x_unit,
        x_label=x_label,
        y_min=0.0,
    )


def summarize_recommendation(rec: Recommendation) -> RecommendationSummary:
    charts: list[Chart] = []
    pts = [(h, c, p) for h, c, p in rec.scatter if math.isfinite(h) and math.isfinite(c)]
    serving = rec.scatter_axes != ("hours", "cost_usd")
    if pts and serving:
        charts.append(
            _pareto_chart(
                pts,
                tr("Cost per million output tokens vs throughput per instance"),
                "tok/s",
                tr("output tokens/s per instance"),
            )
        )
    elif pts:
        charts.append(
            _pareto_chart(
                pts,
                tr("Time vs cost of every fitting configuration"),
                "hours",
                tr("time to finish"),
            )
        )
    return RecommendationSummary(
        workload_name=rec.workload.name or "",
        workload=_workload_fields(rec.workload),
        objective=rec.objective,
        candidates=rec.candidates,
        viable=rec.viable,
        rows=tuple(_rec_row(r) for r in rec.rows),
        local=_rec_row(rec.local) if rec.local is not None else None,
        warnings=tuple(rec.warnings),
        formulas=tuple(rec.formulas),
        charts=tuple(charts),
    )
