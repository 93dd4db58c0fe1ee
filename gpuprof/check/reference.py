"""Reference values the performance items are graded against.

Order of preference: a team's own golden machine (``--reference FILE``, written by
``--save-reference``), then a published achieved value from ``resources/reference_results.csv``
(each row cites its source), then the spec peak × :data:`DERIVED_RATIO`, marked ``derived``.
A CPU has no published value and no spec peak: only a golden file gives it a reference (a run
compared with its own best iteration would grade the run's noise, not the machine).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.jsonin import read_json

__all__ = [
    "DERIVED_RATIO",
    "REFERENCE_SCHEMA",
    "Reference",
    "derived_reference",
    "golden_rows",
    "load_packaged",
    "lookup",
    "parse_reference_csv",
    "read_reference_file",
    "reference_file_dict",
    "too_noisy",
]

#: Typical achieved share of a spec peak used where nothing is published: the H100 SXM BF16
#: MAMF efficiency (794.5 of 989 TFLOPS = 80.3 %, ml-engineering's MAMF table), rounded down.
DERIVED_RATIO = 0.80
REFERENCE_SCHEMA = "gpuprof.check-reference"
_COLUMNS = ("gpu_model", "metric", "value", "unit", "kind", "source", "date", "notes")
_MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Reference:
    """One expected value: ``kind`` is ``published``, ``derived`` or ``golden``."""

    gpu_model: str
    metric: str
    value: float
    unit: str
    kind: str
    source: str
    date: str = ""
    notes: str = ""


def parse_reference_csv(text: str, *, name: str) -> dict[tuple[str, str], Reference]:
    """Rows of the packaged table; every row needs a positive finite value and a source."""
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != _COLUMNS:
        raise InputError(tr("{p}: not a reference table (columns differ)", p=name))
    out: dict[tuple[str, str], Reference] = {}
    for row in reader:
        try:
            value = float(row["value"] or "nan")
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0) or not (row["source"] or "").strip():
            raise InputError(
                tr(
                    "{p}:{n}: a reference needs a positive value and a source",
                    p=name,
                    n=reader.line_num,
                )
            )
        ref = Reference(
            row["gpu_model"],
            row["metric"],
            value,
            row["unit"],
            row["kind"],
            row["source"],
            row["date"] or "",
            row["notes"] or "",
        )
        out[(ref.gpu_model, ref.metric)] = ref
    return out


@cache
def load_packaged() -> Mapping[tuple[str, str], Reference]:
    text = resources.files("gpuprof.resources").joinpath("reference_results.csv").read_text("utf-8")
    return parse_reference_csv(text, name="reference_results.csv")


def derived_reference(
    gpu_model: str, metric: str, peak: float | None, unit: str
) -> Reference | None:
    """Spec peak × :data:`DERIVED_RATIO`, stated as such; None without a peak."""
    if peak is None or not (math.isfinite(peak) and peak > 0):
        return None
    return Reference(
        gpu_model,
        metric,
        peak * DERIVED_RATIO,
        unit,
        "derived",
        N_("derived: spec peak {p} {u} × {r} (typical ratio, not published)").format(
            p=f"{peak:g}", u=unit, r=f"{DERIVED_RATIO:g}"
        ),
    )


def lookup(
    gpu_model: str,
    metric: str,
    *,
    peak: float | None,
    unit: str,
    golden: Mapping[tuple[str, str], Reference] | None = None,
) -> Reference | None:
    """The reference for one GPU model and metric, best source first."""
    for table in (golden or {}, load_packaged()):
        ref = table.get((gpu_model, metric))
        if ref is not None:
            return ref
    return derived_reference(gpu_model, metric, peak, unit)


def reference_file_dict(rows: Sequence[Reference], *, machine: str, date: str) -> dict[str, Any]:
    """What ``--save-reference`` writes: the measured values of a golden machine."""
    return {
        "schema": REFERENCE_SCHEMA,
        "schema_version": 1,
        "rows": [
            {
                "gpu_model": r.gpu_model,
                "metric": r.metric,
                "value": r.value,
                "unit": r.unit,
                "source": f"golden machine {machine}, measured {date}",
                "date": date,
            }
            for r in rows
        ],
    }


def read_reference_file(path: str | Path) -> dict[tuple[str, str], Reference]:
    """A ``--save-reference`` file; anything else is an :class:`InputError` naming it."""
    p = Path(path)
    data = read_json(p, _MAX_FILE_BYTES, what=tr("reference file"))
    if not isinstance(data, dict) or data.get("schema") != REFERENCE_SCHEMA:
        raise InputError(tr("{p}: not a reference file (written by --save-reference)", p=p))
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version != 1:
        raise InputError(tr("{p}: reference file version {v} is not supported", p=p, v=version))
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise InputError(tr("{p}: not a reference file (no rows)", p=p))
    out: dict[tuple[str, str], Reference] = {}
    for n, row in enumerate(rows, 1):
        ref = _row(row)
        if ref is None:
            raise InputError(tr("{p}: row {n} is not a valid reference", p=p, n=n))
        out[(ref.gpu_model, ref.metric)] = ref
    return out


def _row(row: object) -> Reference | None:
    if not isinstance(row, dict):
        return None
    texts = [row.get(k) for k in ("gpu_model", "metric", "unit", "source")]
    value = row.get("value")
    if not all(isinstance(t, str) and 0 < len(t) <= 300 for t in texts):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not (math.isfinite(value) and value > 0):
        return None
    date = row.get("date", "")
    return Reference(
        str(texts[0]),
        str(texts[1]),
        float(value),
        str(texts[2]),
        "golden",
        str(texts[3]),
        date if isinstance(date, str) else "",
    )


def too_noisy(item: Any, thresholds: Any, planned_runs: int = 1) -> bool:
    """Whether a :class:`~gpuprof.check.model.CheckItem`'s runs disagree by more than the
    ``thresholds``' margin, or fewer than two of ``planned_runs`` (> 1) measured it: it is then
    INFO, not graded, and not saved as a reference."""
    spread = getattr(item, "spread", None)
    if planned_runs > 1 and len(getattr(item, "runs", ())) < 2:
        return True
    return spread is not None and spread > thresholds.margin


def golden_rows(result: Any, planned_runs: int) -> list[Reference]:
    """The measured values of a :class:`~gpuprof.check.model.CheckResult`, one per GPU model and
    metric (the lowest over GPUs and pairs: the machine must reach it everywhere). A value
    whose runs were too noisy to grade, or too few of the ``planned_runs``
    (:func:`~gpuprof.check.perf.perf_runs`; :func:`too_noisy`), is no one's reference."""
    from gpuprof.catalog.names import normalize_gpu_model

    names = {g.get("index"): g.get("name") for g in result.identity.get("gpus", [])}
    best: dict[tuple[str, str], Reference] = {}
    for item in result.items:
        if item.group != "performance" or not item.item_id.startswith("perf."):
            continue
        if isinstance(item.measured, bool) or not isinstance(item.measured, (int, float)):
            continue
        if not (math.isfinite(item.measured) and item.measured > 0):
            continue
        if too_noisy(item, result.thresholds, planned_runs):
            continue
        metric = item.item_id[len("perf.") :]
        if metric.startswith("p2p_"):
            metric = "p2p_uni"
        elif metric == "allreduce_busbw":
            metric = f"allreduce_busbw_{len(names)}gpu"
        elif metric == "allreduce_p99":
            continue  # no reference is graded for latency
        if item.gpu_index is None:
            model = "CPU"
        else:
            model = normalize_gpu_model(str(names.get(item.gpu_index) or "")) or ""
        if not model:
            continue
        key = (model, metric)
        if key not in best or item.measured < best[key].value:
            best[key] = Reference(model, metric, float(item.measured), item.unit, "golden", "")
    return list(best.values())
