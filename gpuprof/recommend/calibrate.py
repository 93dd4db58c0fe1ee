"""Calibrate the recommender with GEMM throughput measured on this machine.

The time estimate's base efficiency comes from a benchmark measured here when the same GPU model
is local (:func:`gpuprof.recommend.estimate.base_efficiency`). This module finds those numbers in
the results database: for each GPU model (spec-table key) and dtype, the newest run with ok GEMM
results, and in it the best median TFLOPS over the shapes swept — the mamf-finder "maximum
achievable matmul FLOPS", which is what the estimate's typical-GEMM-ceiling ratio is taken
against. CPU runs, MIG slices and GPUs the spec table does not know are ignored.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuprof.catalog.names import is_mig_name, normalize_gpu_model
from gpuprof.i18n import N_, tr_text

if TYPE_CHECKING:
    from gpuprof.bench.results import ResultsDB
    from gpuprof.bench.runner import BenchRun
    from gpuprof.recommend.rank import Recommendation, RecommendationRow

__all__ = [
    "Calibration",
    "annotate",
    "calibrations_from_run",
    "local_calibrations",
    "local_measurements",
    "measurements_from_run",
]

#: Runs read from the database, newest first, before giving up on older ones.
MAX_RUNS = 100
#: What :func:`gpuprof.recommend.estimate.base_efficiency` starts a measured source with.
_MEASURED_PREFIX = "measured here:"


@dataclass(frozen=True, slots=True)
class Calibration:
    """The best GEMM median of one dtype in one run on one GPU model (TFLOPS, dense)."""

    gpu_model: str  # spec-table key, e.g. "H100 SXM"
    gpu_name: str  # as the run saw it, e.g. "NVIDIA H100 80GB HBM3"
    dtype: str
    tflops: float
    case: str  # the GEMM shape that gave it
    run_id: str
    started_s: float  # Unix time
    throttled: bool = False

    @property
    def date(self) -> str:
        """The run's local date, ``YYYY-MM-DD``."""
        return time.strftime("%Y-%m-%d", time.localtime(self.started_s))

    @property
    def label(self) -> str:
        """``measured here (run 20250301-101500-ab12, 2025-03-01)``."""
        return N_("measured here (run {run}, {date})").format(run=self.run_id, date=self.date)


def _gpu_key(name: str | None, memory_bytes: int | None = None) -> str | None:
    if not name or is_mig_name(name):
        return None
    mem_gib = memory_bytes / 2**30 if memory_bytes else None
    return normalize_gpu_model(name, mem_gib)


def calibrations_from_run(run: BenchRun) -> dict[str, Calibration]:
    """dtype → the best ok GEMM median of ``run``; empty for CPU runs and unknown GPUs."""
    env = run.environment
    if not run.device.startswith("cuda"):
        return {}
    key = _gpu_key(env.gpu_name, env.gpu_memory_total_bytes)
    if key is None or env.gpu_name is None:
        return {}
    best: dict[str, Calibration] = {}
    for r in run.results:
        if r.bench != "gemm" or not r.ok:
            continue
        dtype = getattr(r, "dtype", None)
        value = getattr(r, "tflops_median", None)
        if not dtype or value is None or not value > 0:
            continue
        prev = best.get(dtype)
        if prev is None or value > prev.tflops:
            best[dtype] = Calibration(
                gpu_model=key,
                gpu_name=env.gpu_name,
                dtype=dtype,
                tflops=float(value),
                case=r.case,
                run_id=run.run_id,
                started_s=run.started_s,
                throttled=r.throttled,
            )
    return best


def measurements_from_run(run: BenchRun) -> dict[str, dict[str, float]]:
    """``{spec key: {dtype: TFLOPS}}`` of one run, as ``recommend(local_measurements=)`` takes."""
    cals = calibrations_from_run(run)
    if not cals:
        return {}
    key = next(iter(cals.values())).gpu_model
    return {key: {d: c.tflops for d, c in cals.items()}}


def _wanted_keys(gpu_names: Iterable[str] | None) -> set[str] | None:
    if gpu_names is None:
        return None
    return {k for k in (_gpu_key(n) for n in gpu_names) if k is not None}


def local_calibrations(
    db: ResultsDB | None = None,
    *,
    gpu_names: Sequence[str] | None = None,
) -> dict[str, dict[str, Calibration]]:
    """``{spec key: {dtype: Calibration}}`` from the newest GPU runs in ``db``.

    ``db`` None opens the default results database, or finds nothing when it does not exist yet
    (it is not created). ``gpu_names`` (NVML names of the GPUs in this machine) keeps only those
    GPU models; None keeps every model in the database.
    """
    if db is None:
        from gpuprof.paths import results_db_path

        path = results_db_path()
        if not path.exists():
            return {}
        from gpuprof.bench.results import ResultsDB

        db = ResultsDB(path)
    wanted = _wanted_keys(gpu_names)
    if wanted is not None and not wanted:
        return {}
    out: dict[str, dict[str, Calibration]] = {}
    for summary in db.list_runs(limit=MAX_RUNS):  # newest first
        if not summary.device.startswith("cuda") or summary.n_ok == 0:
            continue
        try:
            run = db.load(summary.run_id)
        except Exception:  # a damaged or newer-schema document: skip it, keep the rest
            continue
        for dtype, cal in calibrations_from_run(run).items():
            if wanted is not None and cal.gpu_model not in wanted:
                continue
            out.setdefault(cal.gpu_model, {}).setdefault(dtype, cal)
    return out


def local_measurements(
    db: ResultsDB | None = None,
    *,
    gpu_names: Sequence[str] | None = None,
) -> dict[str, dict[str, float]]:
    """``{spec key: {dtype: achieved TFLOPS}}`` for ``recommend(local_measurements=...)``.

    The newest ok GEMM results per GPU model and dtype, best median over the shapes
    (see :func:`local_calibrations` for ``db`` and ``gpu_names``).
    """
    return {
        key: {d: c.tflops for d, c in per.items()}
        for key, per in local_calibrations(db, gpu_names=gpu_names).items()
    }


def _relabel(row: RecommendationRow, cal: Calibration) -> RecommendationRow:
    old = row.efficiency_source
    if old.startswith(_MEASURED_PREFIX):
        new = N_("measured here (run {run}, {date}): {detail}").format(
            run=cal.run_id, date=cal.date, detail=old[len(_MEASURED_PREFIX) :].lstrip()
        )
    else:
        new = N_("measured here (run {run}, {date}); {source}").format(
            run=cal.run_id, date=cal.date, source=old
        )
    # The reasons show the source as the language in use has it (tr_text).
    shown_old, shown_new = tr_text(old), tr_text(new)

    def relabel(reason: str) -> str:
        return reason.replace(old, new) if old in reason else reason.replace(shown_old, shown_new)

    return dataclasses.replace(
        row,
        efficiency_source=new,
        reasons=tuple(relabel(r) for r in row.reasons),
    )


def annotate(
    rec: Recommendation, calibrations: Mapping[str, Mapping[str, Calibration]]
) -> Recommendation:
    """Name the run and date in the efficiency source of rows calibrated by ``calibrations``."""
    dtype = rec.workload.compute_dtype

    def fix(row: RecommendationRow | None) -> RecommendationRow | None:
        if row is None or not row.efficiency_measured:
            return row
        cal = calibrations.get(row.instance.gpu_model, {}).get(dtype)
        return _relabel(row, cal) if cal is not None else row

    rows = tuple(r for r in (fix(r) for r in rec.rows) if r is not None)
    return dataclasses.replace(rec, rows=rows, local=fix(rec.local))
