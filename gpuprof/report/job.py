"""The report's "Job profile" section (issue 13): a job's profile, its step-time and time-breakdown
charts, and its projection onto the cloud catalog (:mod:`gpuprof.profile.project`).

Text from the job (its name, command line, GPU and op names, notes) is cleaned here like every
report string; the command line is redacted as process command lines are (the program alone
unless command lines are included); :func:`gpuprof.report.build.build_report` then applies the
secret rules to the whole report.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from gpuprof.i18n import tr
from gpuprof.profile.markers import Marker
from gpuprof.profile.model import BREAKDOWN_CATEGORIES, JobProfile, StepMarker
from gpuprof.profile.sane import sane_profile
from gpuprof.redact import clean_text, clean_tree, redact_cmdline
from gpuprof.report.model import Chart, ChartSeries, JobSection

if TYPE_CHECKING:
    from gpuprof.catalog.instances import Catalog
    from gpuprof.telemetry.store import SessionStore

__all__ = [
    "MAX_STEP_POINTS",
    "PROJECTION_ROWS",
    "job_from_store",
    "job_of_source",
    "step_chart",
    "summarize_job",
]

#: Projection rows a report shows (the cheapest that fit first).
PROJECTION_ROWS = 10
#: Points of the step-time chart per run: above this, the min and max of equal-count buckets.
MAX_STEP_POINTS = 480
#: Runs (``track`` names × processes) drawn in the step-time chart; the rest are left out.
MAX_STEP_SERIES = 8


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _bucketed(xs: list[float], ys: list[float]) -> tuple[list[float], list[float]]:
    """At most :data:`MAX_STEP_POINTS` points: each bucket's min and max, in time order."""
    if len(xs) <= MAX_STEP_POINTS:
        return xs, ys
    n = MAX_STEP_POINTS // 2
    out_x: list[float] = []
    out_y: list[float] = []
    for b in range(n):
        lo, hi = b * len(xs) // n, (b + 1) * len(xs) // n
        if hi <= lo:
            continue
        seg = range(lo, hi)
        i_min = min(seg, key=ys.__getitem__)
        i_max = max(seg, key=ys.__getitem__)
        for i in sorted({i_min, i_max}):
            out_x.append(xs[i])
            out_y.append(ys[i])
    return out_x, out_y


def step_chart(profile: JobProfile, markers: Sequence[Marker]) -> Chart | None:
    """Step duration over time since the job started, one line per run; None without steps."""
    runs: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
    for m in markers:
        if not isinstance(m, StepMarker):
            continue
        dt, t = _finite(m.duration_s), _finite(m.time_s)
        if dt is None or t is None or dt < 0:
            continue
        key = (m.run, m.pid)
        if key not in runs and len(runs) >= MAX_STEP_SERIES:
            continue
        xs, ys = runs.setdefault(key, ([], []))
        xs.append(t - profile.started_s)
        ys.append(dt)
    if not runs:
        return None
    names = {run for run, _ in runs}
    series = []
    for (run, pid), (xs, ys) in runs.items():
        order = sorted(range(len(xs)), key=xs.__getitem__)
        bx, by = _bucketed([xs[i] for i in order], [ys[i] for i in order])
        label = clean_text(run or tr("steps"), 40)
        if len(runs) > len(names):  # the same run in several processes
            label = f"{label} ({pid})"
        series.append(ChartSeries(label, tuple(round(x, 3) for x in bx), tuple(by)))
    return Chart(
        key="job.step_time",
        title=tr("Step time"),
        kind="line",
        unit="s",
        series=tuple(series),
        x_label=tr("time since the job started"),
        y_min=0.0,
        t0_s=profile.started_s,
    )


def _breakdown_chart(profile: JobProfile) -> Chart | None:
    b = profile.breakdown
    if b is None or not b.shares:
        return None
    by = {s.category: _finite(s.share_pct) for s in b.shares}
    cats = tuple(c for c in BREAKDOWN_CATEGORIES if c in by) + tuple(
        clean_text(c, 40) for c in by if c not in BREAKDOWN_CATEGORIES
    )
    bars = [(tr("share"), tuple(by.get(c) for c in cats))]
    title = tr("Where the device time goes")
    return Chart.bars("job.breakdown", title, "pct", cats, bars, y_max=100.0)


def _command(profile: JobProfile, include_cmdlines: bool) -> tuple[str, ...]:
    if not profile.command:
        return ()
    try:
        line = shlex.join(str(a) for a in profile.command)
    except (TypeError, ValueError):
        line = " ".join(str(a) for a in profile.command)
    return (redact_cmdline(line, keep=include_cmdlines) or "",)


def summarize_job(
    profile: JobProfile,
    markers: Sequence[Marker] = (),
    *,
    catalog: Catalog | None = None,
    include_cmdlines: bool = False,
    rows: int = PROJECTION_ROWS,
    projection: bool = True,
) -> JobSection:
    """The report section of ``profile``: its charts and, unless not ``projection``, its
    projection onto ``catalog`` (default: the catalog ``gpuprof catalog list`` shows)."""
    profile = sane_profile(profile)
    cleaned = clean_tree(
        dataclasses.replace(profile, command=_command(profile, include_cmdlines)), 300
    )
    assert isinstance(cleaned, JobProfile)
    charts = tuple(c for c in (step_chart(profile, markers), _breakdown_chart(profile)) if c)
    section = JobSection(profile=cleaned, charts=charts)
    if not projection:
        return section
    from gpuprof.profile.project import basis_of, project

    try:
        if catalog is None:
            from gpuprof.catalog.instances import load_catalog

            catalog = load_catalog()
        basis = basis_of(profile)
        found = project(profile, catalog)
    except GpuprofError as exc:  # the catalog cannot be read: the rest of the report can
        return dataclasses.replace(
            section, projection_note=clean_text(tr("no projection: {e}", e=exc), 500)
        )
    return dataclasses.replace(
        section,
        projections=tuple(clean_tree(p, 1000) for p in found[:rows]),
        projection_candidates=len(found),
        projection_basis=tuple(clean_text(line, 500) for line in basis.lines()),
    )


def job_from_store(store: SessionStore, *, include_cmdlines: bool = False) -> JobSection | None:
    """The section of the job a recording holds, or None for a recording of no job."""
    from gpuprof.profile.storage import read_job_profile, read_markers

    profile = read_job_profile(store)
    if profile is None:
        return None
    return summarize_job(profile, read_markers(store), include_cmdlines=include_cmdlines)


def job_of_source(source: object, *, include_cmdlines: bool = False) -> JobSection | None:
    """The section of the job a telemetry source replays (the app's report), or None."""
    from gpuprof.telemetry.store import SessionStore

    store = getattr(source, "store", None)
    if not isinstance(store, SessionStore):
        return None
    return job_from_store(store, include_cmdlines=include_cmdlines)
