"""Render a :class:`~gpuprof.report.model.Report` as ONE self-contained HTML file.

jinja2 with autoescape on, plus a ``finalize`` hook that cleans every value printed (lone
surrogates, control characters): text from the system can never become markup. Charts are inline
SVG drawn by :mod:`gpuprof.report.svg`; CSS is inline; there is no script, no font, no image and
no link that leaves the file. ``@media print`` rules and page breaks make it print well.

``flavor="qt"`` renders the same template for Qt's rich-text engine (the PDF route in
``gpuprof.ui.report.pdf``): charts become ``<img src="chart:KEY">`` resources that the caller
rasterizes from the same SVG, and the CSS stays within what QTextDocument understands.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from gpuprof.fileio import write_atomic
from gpuprof.health.diagnose import Severity
from gpuprof.redact import clean_text
from gpuprof.report.model import Chart, CheckSection, Report
from gpuprof.report.svg import render_svg
from gpuprof.units import (
    NA,
    fmt_bytes,
    fmt_duration,
    fmt_num,
    fmt_pct,
    fmt_rate,
    fmt_usd,
    tflops_digits,
)

if TYPE_CHECKING:
    from gpuprof.check.model import CheckResult

__all__ = [
    "CHART_SIZE",
    "check_page_html",
    "environment",
    "fmt_value",
    "iter_charts",
    "render_check_html",
    "render_html",
    "write_html",
]

#: Chart size in CSS pixels (the SVG scales down to the page width when printed).
CHART_SIZE = (760, 240)


def fmt_value(value: float | None, unit: str) -> str:
    """A number in a report table, by the model's unit names (see ``Chart.unit``)."""
    if value is None:
        return NA
    if unit == "pct":
        return fmt_pct(value, digits=1 if 0 < abs(value) < 10 and value != int(value) else 0)
    if unit == "bytes":
        return fmt_bytes(value)
    if unit in ("bytes_s", "B/s"):
        return fmt_rate(value)
    if unit == "w":
        return fmt_num(value, "W")
    if unit == "c":
        return fmt_num(value, "°C")
    if unit == "mhz":
        return fmt_num(value, "MHz")
    if unit in ("tflops", "TFLOPS"):
        return fmt_num(value, "TFLOPS", digits=tflops_digits(value))
    if unit == "usd":
        return fmt_usd(value, digits=0 if abs(value) >= 100 else 2)
    if unit == "hours":
        return fmt_duration(value * 3600.0)
    if unit == "s":
        return fmt_duration(value)
    return fmt_num(value, clean_text(unit, 20), digits=1 if abs(value) < 100 else 0)


def _fmt_time(t: float | None) -> str:
    if t is None:
        return NA
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(t)).strip()


def _fmt_step(seconds: float | None) -> str:
    from gpuprof.profile.project import fmt_step

    return NA if seconds is None or not math.isfinite(seconds) else fmt_step(seconds)


def _finalize(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return clean_text(value)
    return value


def _load_template(name: str) -> str:
    return (importlib.resources.files("gpuprof.report") / "templates" / name).read_text("utf-8")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The report's templates (``gpuprof/report/templates``): autoescape, every value cleaned."""
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["v"] = fmt_value
    env.filters["t"] = _fmt_time
    env.filters["bytes"] = fmt_bytes
    env.filters["dur"] = fmt_duration
    env.filters["pct"] = fmt_pct
    env.filters["step"] = _fmt_step
    return env


def _template() -> jinja2.Template:
    return environment().get_template("report.html.j2")


def _check_page(report: Report) -> Markup | None:
    """The acceptance check's page (gpuprof/report/check.py), the report's first, if any."""
    if report.check is None:
        return None
    from gpuprof.report.check import page_context

    page = environment().get_template("check_page.html.j2")
    return Markup(page.render(**page_context(report.check)))


def render_check_html(section: CheckSection) -> str:
    """The standalone page of ``gpuprof check --html``: the check page alone."""
    from gpuprof.i18n import language
    from gpuprof.report.check import page_context

    return (
        environment().get_template("check.html.j2").render(lang=language(), **page_context(section))
    )


def check_page_html(result: CheckResult, data: Mapping[str, Any] | None = None) -> str:
    """The standalone page of ``result`` (``gpuprof check --html``, the Check tab's Export
    HTML): the verdict, the machine identity and the scorecard. ``data``, when given, is its
    (redacted) JSON form. Everything from the system is cleaned, redacted and escaped."""
    from gpuprof.report.check import check_section, check_section_of

    return render_check_html(check_section(data) if data is not None else check_section_of(result))


def iter_charts(report: Report) -> list[Chart]:
    """Every chart of the report, in page order."""
    charts: list[Chart] = []
    if report.telemetry is not None:
        charts.extend(report.telemetry.charts)
    if report.bench is not None:
        charts.extend(report.bench.charts)
    if report.recommendation is not None:
        charts.extend(report.recommendation.charts)
    if report.job is not None:
        charts.extend(report.job.charts)
    return charts


def _yes_no(value: bool | None) -> str:
    return NA if value is None else ("on" if value else "off")


def _gpu_list(gpus: list[int]) -> str:
    """``[0, 1, 2, 5]`` → ``"0–2, 5"``."""
    parts: list[str] = []
    start = prev = None
    for g in [*sorted(gpus), None]:
        if g is not None and prev is not None and g == prev + 1:
            prev = g
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = g
    return ", ".join(parts)


_GPU_PREFIX = re.compile(r"^GPU \d+:?\s*")


def _finding_groups(report: Report) -> list[dict[str, Any]]:
    """Findings with the same code, severity and hint on several GPUs become one block:
    the title once (``GPU 0–7: ...``), then each GPU's detail (or one detail if all agree)."""
    groups: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for f in report.findings:
        title = _GPU_PREFIX.sub("", f.title) if f.gpu_index is not None else f.title
        key = (f.code, f.severity.value, f.hint, title)
        g = groups.setdefault(
            key,
            {
                "severity": f.severity.value,
                "title": title,
                "hint": f.hint,
                "gpus": [],
                "details": [],
            },
        )
        if f.gpu_index is not None:
            g["gpus"].append(f.gpu_index)
        g["details"].append((f.gpu_index, f.detail))
    out = []
    for g in groups.values():
        if g["gpus"]:
            prefix = ("GPU " if len(g["gpus"]) == 1 else "GPUs ") + _gpu_list(g["gpus"])
            g["title"] = f"{prefix}: {g['title']}"
        if len({d for _, d in g["details"]}) == 1:
            g["details"] = [(None, g["details"][0][1])]
        out.append(g)
    return out


def _throttle_rows(report: Report) -> list[tuple[str, Any]]:
    """Episodes that several GPUs share (same start, end and reasons) become one row."""
    if report.telemetry is None:
        return []
    groups: dict[tuple[float, float, tuple[str, ...]], tuple[list[int], Any]] = {}
    for e in report.telemetry.throttle_events:
        key = (e.start_s, e.end_s, e.reasons)
        groups.setdefault(key, ([], e))[0].append(e.gpu_index)
    return [(_gpu_list(gpus), e) for gpus, e in groups.values()]


def render_html(report: Report, *, flavor: str = "html", paper: str = "a4") -> str:
    """The report as HTML text. ``flavor``: ``html`` (a file for browsers) or ``qt`` (for PDF)."""
    if flavor not in ("html", "qt"):
        raise ValueError(f"unknown flavor {flavor!r}")
    w, h = CHART_SIZE

    def chart(c: Chart) -> Markup:
        if flavor == "qt":
            key = clean_text(c.key, 100).replace('"', "")
            return Markup('<img src="chart:{}" width="{}" height="{}">').format(
                key, 640, int(640 * h / w)
            )
        return Markup(render_svg(c, w, h, standalone=False))

    tel = report.telemetry
    by_key: dict[str, dict[int, Any]] = {}
    labels: dict[str, str] = {}
    host_stats = []
    if tel is not None:
        for s in tel.stats:
            if s.gpu_index is None:
                host_stats.append(s)
            elif s.count:
                by_key.setdefault(s.key, {})[s.gpu_index] = s
                labels[s.key] = s.label
    gpu_stats = [(labels[k], by) for k, by in by_key.items()]
    gpu_indices = [g.index for g in report.gpus] or sorted(
        {s.gpu_index for s in (tel.stats if tel else ()) if s.gpu_index is not None}
    )
    counts = {sev.value: 0 for sev in Severity}
    for f in report.findings:
        counts[f.severity.value] += 1
    names: dict[str, int] = {}
    for g in report.gpus:
        names[g.name] = names.get(g.name, 0) + 1
    return _template().render(
        check_page=_check_page(report),
        throttle_rows=_throttle_rows(report),
        finding_groups=_finding_groups(report),
        r=report,
        flavor=flavor,
        paper=paper,
        chart=chart,
        tel=tel,
        gpu_stats=gpu_stats,
        host_stats=host_stats,
        gpu_indices=gpu_indices,
        gpu_columns=[gpu_indices[i : i + 8] for i in range(0, len(gpu_indices), 8)],
        finding_counts=counts,
        gpu_names=names,
        yes_no=_yes_no,
        NA=NA,
    )


def write_html(report: Report, path: str | Path) -> Path:
    return write_atomic(path, render_html(report), errors="replace")
