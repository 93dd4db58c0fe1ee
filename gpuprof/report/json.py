"""The report as JSON: the schema is documented in docs/report-schema.md.

``{"format": "gpuprof-report", "schema_version": 1, ...every Report field...}``: the model
encoded by the shared codec (:mod:`gpuprof.telemetry.codec`) with every field present, so a
reader never has to know the defaults. Strict JSON through the shared writer
(:mod:`gpuprof.jsonout`): NaN and infinities are written as null with a ``<field>_reason``.
:func:`load_report` rebuilds an equal :class:`~gpuprof.report.model.Report`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.jsonin import checked_version, loads_strict, read_regular
from gpuprof.jsonout import dumps, strict
from gpuprof.jsonout import write_json as _write_json
from gpuprof.report.model import REPORT_FORMAT, REPORT_SCHEMA_VERSION, Report
from gpuprof.telemetry.codec import from_jsonable, to_jsonable

__all__ = ["dumps_report", "load_report", "loads_report", "report_to_dict", "write_json"]

#: A report holds summaries, not series: a file larger than this is not one.
MAX_REPORT_BYTES = 64 << 20


def report_to_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = {"format": REPORT_FORMAT}
    data.update(strict(to_jsonable(report, keep_defaults=True)))
    return data


def dumps_report(report: Report, *, indent: int | None = 1) -> str:
    return dumps(report_to_dict(report), indent=indent)


def write_json(report: Report, path: str | Path) -> Path:
    return _write_json(path, report_to_dict(report))


def loads_report(text: str | bytes) -> Report:
    try:
        data = loads_strict(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(tr("not a JSON report: {e}", e=exc)) from None
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        raise InputError(
            tr(
                "not a gpuprof report (format is {f!r})",
                f=data.get("format") if isinstance(data, dict) else None,
            )
        )
    checked_version(
        data.get("schema_version", 0),
        REPORT_SCHEMA_VERSION,
        N_("report schema {v} is newer than this gpuprof reads ({m})"),
    )
    try:
        return from_jsonable(Report, data)
    except (TypeError, ValueError, KeyError) as exc:
        raise InputError(tr("broken gpuprof report: {e}", e=exc)) from None


def load_report(path: str | Path) -> Report:
    p = Path(path)
    raw = read_regular(p, MAX_REPORT_BYTES, what=tr("JSON report"))
    try:
        return loads_report(raw)
    except InputError as exc:  # the parser does not know the file: name it
        raise InputError(f"{p}: {exc}") from None
