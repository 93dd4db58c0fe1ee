"""An acceptance check (``gpuprof check``, the app's Check tab) as a report page: the verdict,
the machine's identity (hostname, GPU serial numbers and UUIDs, driver and CUDA) and the
scorecard, ready to hand to a customer.

One piece of HTML (``templates/check_page.html.j2``) serves both: the first page of the app's
Export report (HTML and PDF, :func:`with_check`) and the standalone page of
``gpuprof check --html`` and the Check tab's Export HTML
(:func:`gpuprof.report.html.check_page_html`). This module reads and shapes the check; the HTML
module renders it (and imports this one, never the other way round).

:func:`check_section` reads the JSON form of a result (``result_to_dict``, or a file written by
``gpuprof check --json``: :func:`load_check`) defensively: every string is cleaned
(:func:`gpuprof.redact.clean_text`) and redacted, anything of the wrong type is left out, and the
verdict is graded again from the items rather than trusted from the file.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.check.model import exit_code_of, fmt_value, verdict_of
from gpuprof.errors import InputError
from gpuprof.i18n import tr, tr_text
from gpuprof.redact import clean_text, redact_tree
from gpuprof.report.model import CheckGpu, CheckRow, CheckSection, Report

if TYPE_CHECKING:
    from gpuprof.check.model import CheckResult

__all__ = [
    "check_section",
    "check_section_of",
    "load_check",
    "page_context",
    "with_check",
]

#: Scorecard lines and GPUs read at most (a file may claim millions).
MAX_ROWS = 5000
MAX_GPUS = 1024
_STATUSES = ("PASS", "WARN", "FAIL", "SKIP", "INFO")


def _text(value: Any, max_len: int = 300) -> str:
    return clean_text(value, max_len) if isinstance(value, str) else ""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    out = float(value)
    return out if math.isfinite(out) else None


#: The latest time a report prints (9999-12-31 23:59:59 UTC); beyond it ``time.localtime``
#: overflows (OverflowError, or OSError EOVERFLOW), so a later "time" is left out.
_LAST_TIME_S = 253402300799.0


def _time(value: Any) -> float | None:
    """A Unix time the report can print (1970 to 9999), else None."""
    t = _number(value)
    return t if t is not None and 0.0 <= t <= _LAST_TIME_S else None


def _index(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value < 1 << 31 else None


def _shown(value: Any, unit: str) -> str:
    """A measured or expected value as the scorecard shows it: number and unit (as the
    terminal and the Check tab show it, :func:`gpuprof.check.model.fmt_value`), or text."""
    number = _number(value)
    if number is not None:
        return fmt_value(number, unit)
    return _text(value)


def _row(item: Any) -> CheckRow | None:
    if not isinstance(item, Mapping) or not isinstance(item.get("item_id"), str):
        return None
    unit = _text(item.get("unit"), 20)
    status = _text(item.get("status"), 8).upper()
    return CheckRow(
        item_id=_text(item["item_id"], 120),
        status=status if status in _STATUSES else "?",
        gpu_index=_index(item.get("gpu_index")),
        measured=_shown(item.get("measured"), unit),
        expected=_shown(item.get("expected"), unit),
        ratio=_number(item.get("ratio")),
        reason=_text(item.get("reason"), 1000),
        hint=_text(item.get("hint"), 1000),
        source=_text(item.get("source"), 500),
    )


def _gpu(g: Any) -> CheckGpu | None:
    if not isinstance(g, Mapping):
        return None
    index = _index(g.get("index"))
    if index is None:
        return None
    return CheckGpu(
        index=index,
        name=_text(g.get("name"), 200),
        uuid=_text(g.get("uuid"), 100),
        serial=_text(g.get("serial"), 100),
        pci_bus_id=_text(g.get("pci_bus_id"), 40),
        vbios_version=_text(g.get("vbios_version"), 60),
    )


def check_section(data: Mapping[str, Any]) -> CheckSection:
    """The report page of a check result in its JSON form (docs/check-schema.md)."""
    items = data.get("items")
    raw_items = items[:MAX_ROWS] if isinstance(items, list) else []
    rows = tuple(r for r in map(_row, raw_items) if r is not None)
    identity = data.get("identity")
    ident: Mapping[str, Any] = identity if isinstance(identity, Mapping) else {}
    raw_gpus = ident.get("gpus")
    gpus = tuple(
        g for g in map(_gpu, raw_gpus[:MAX_GPUS] if isinstance(raw_gpus, list) else []) if g
    )
    cancelled = data.get("cancelled") is True
    verdict = verdict_of((r.status for r in rows), cancelled=cancelled)
    section = CheckSection(
        verdict=verdict.value,
        exit_code=exit_code_of(verdict),
        level=_text(data.get("level"), 20),
        device=_text(data.get("device"), 40),
        started_s=_time(data.get("started_s")),
        ended_s=_time(data.get("ended_s")),
        expectation=_text(data.get("expectation"), 200),
        cancelled=cancelled,
        hostname=_text(ident.get("hostname"), 255),
        os=_text(ident.get("os"), 300),
        driver_version=_text(ident.get("driver_version"), 60),
        cuda_driver_version=_text(ident.get("cuda_driver_version"), 60),
        gpus=gpus,
        rows=rows,
    )
    return redact_tree(section)


def check_section_of(result: CheckResult) -> CheckSection:
    """The report page of a check just run (the Check tab, ``gpuprof check``)."""
    from gpuprof.check.model import result_to_dict

    return check_section(result_to_dict(result))


def load_check(path: str | Path) -> CheckSection:
    """A file written by ``gpuprof check --json`` as a report page; an :class:`InputError`
    naming the file when it is not one (not JSON, another program's, a newer schema, too big)."""
    from gpuprof.check.compare import CHECK_SCHEMA, read_result_json
    from gpuprof.check.machines import check_items

    p = Path(path)
    data = read_result_json(p)
    if data.get("schema") != CHECK_SCHEMA:
        raise InputError(tr("{p}: not a gpuprof check result (gpuprof check --json)", p=p))
    try:
        check_items(data)
    except InputError as exc:
        raise InputError(tr("{p}: {e}", p=p, e=exc)) from None
    return check_section(data)


def with_check(report: Report, section: CheckSection | None) -> Report:
    """``report`` with ``section`` as its first page (None: without one). A check always
    measures the real machine: over SIMULATED telemetry the notes say which part is which."""
    notes = report.notes
    if section is not None and report.simulated:
        notes = (
            *notes,
            tr(
                "The acceptance check is MEASURED (on {h}); the machine, telemetry and health "
                "findings after it are SIMULATED.",
                h=section.hostname or tr("this machine"),
            ),
        )
    return dataclasses.replace(report, check=section, notes=notes)


def page_context(section: CheckSection) -> dict[str, Any]:
    """What ``check_page.html.j2`` shows: the section and its texts in the current language."""
    from gpuprof.check.model import SCORECARD_COLUMNS

    rows = [
        {
            "r": r,
            "css": f"st-{r.status}" if r.status in _STATUSES else "",
            "ratio": f"{100 * r.ratio:.0f}%" if r.ratio is not None else "",
            "reason": tr_text(r.reason),
            "hint": tr_text(r.hint),
            "source": tr_text(r.source),
        }
        for r in section.rows
    ]
    return {
        "c": section,
        "rows": rows,
        "title": tr("GPU acceptance check ({level})", level=section.level or "?"),
        "verdict_label": tr("verdict: {v} (exit code {c})", v=section.verdict, c=section.exit_code),
        "cancelled_label": tr("cancelled: the items not run are SKIP") if section.cancelled else "",
        "labels": {
            "machine": tr("machine"),
            "host": tr("host"),
            "os": tr("OS"),
            "driver": tr("driver"),
            "device": tr("device"),
            "started": tr("started"),
            "expected": tr("expected"),
            "scorecard": tr("scorecard"),
            "name": tr("name"),
        },
        "headers": [*(tr(c) for c in SCORECARD_COLUMNS), tr("reference")],
    }
