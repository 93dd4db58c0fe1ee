"""The report's "Job profile" section (gpuprof/report/job.py): HTML, JSON and the charts the PDF
draws, from a recording of a job; outside text escaped and redacted, JSON strict."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpuprof.jsonout import loads_strict
from gpuprof.profile.model import JobProfile, StepMarker
from gpuprof.report import build
from gpuprof.report.html import iter_charts, render_html
from gpuprof.report.job import MAX_STEP_POINTS, step_chart, summarize_job
from gpuprof.report.json import dumps_report, loads_report
from tests.helpers.profiles import job_profile

T0 = 1.7e9
GiB = 1024**3
HOSTILE = '<script>alert("x")</script>\u202eevil & [bold]b[/]'
SECRET = "hf_abcdefghijklmnopqrstuvwxyz0123456789"


def _profile(**kw: object) -> JobProfile:
    fields: dict[str, object] = dict(
        name=HOSTILE,
        command=("python", "train.py", f"--token={SECRET}"),
        pid=77,
        source="simulated",
        gpus=(
            dict(
                name="NVIDIA H100 80GB HBM3",
                util_gpu_mean_pct=90.0,
                energy_j=7.2e6,  # 2 kWh
                job_mem_peak_bytes=40 * GiB,
                throttle_s=(("SW_POWER_CAP", 3.0),),
            ),
        ),
        host=dict(cpu_mean_pct=110.0, rss_peak_bytes=8 * GiB),
        phases=(("startup", 0, 5), ("steady", 5, 55)),
        steps=dict(count=50, p50_s=1.0, p90_s=1.1, p99_s=1.3, mean_s=1.0, mfu_dtype="bf16"),
        breakdown=dict(
            device="cuda",
            steps=5,
            total_s=5.0,
            shares=(("matmul", 3.0, 60.0), ("memcpy", 2.0, 40.0)),
            top=((HOSTILE, "matmul", 2.0, 100, 40.0),),
        ),
        findings=(("x.y", HOSTILE, "detail", "hint"),),
    )
    fields.update(kw)
    return job_profile(T0, 60.0, **fields)  # type: ignore[arg-type]


def _markers(n: int = 50, *, run: str = "train") -> list[StepMarker]:
    return [StepMarker(T0 + 5 + i, i + 1, 1.0 + 0.01 * (i % 7), run=run, pid=77) for i in range(n)]


def _recording(path: Path, profile: JobProfile | None, markers: list[StepMarker]) -> Path:
    from gpuprof.profile.storage import append_markers, write_job_profile
    from gpuprof.telemetry.store import SessionStore

    source, snaps = build.demo_snapshots(duration_s=60.0, step_s=2.0, end_s=T0 + 60.0)
    store = SessionStore.create(path, source=source)
    try:
        for snap in snaps:
            store.append(snap)
        if profile is not None:
            write_job_profile(store, profile)
            append_markers(store, markers)
    finally:
        store.close()
    return path


@pytest.fixture(scope="module")
def job_report(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    path = _recording(tmp_path_factory.mktemp("job") / "job.gpuprof", _profile(), _markers())
    return build.from_session(path)


def test_a_job_recording_has_the_section_with_summary_charts_breakdown_and_projection(
    job_report,  # type: ignore[no-untyped-def]
) -> None:
    job = job_report.job
    assert job is not None and job_report.simulated
    assert job.energy_kwh == pytest.approx(2.0)
    assert [c.key for c in job.charts] == ["job.step_time", "job.breakdown"]
    assert {c.key for c in iter_charts(job_report)} >= {"job.step_time", "job.breakdown"}
    steps = job.charts[0].series[0]
    assert len(steps.y) == 50 and max(steps.y) == pytest.approx(1.06)
    assert steps.x[0] == pytest.approx(5.0)
    assert 0 < len(job.projections) <= 10 and job.projection_candidates >= len(job.projections)
    fits = [p.fits for p in job.projections]
    assert fits == sorted(fits, reverse=True)
    assert all(p.derivation.startswith("SIMULATED") for p in job.projections)
    assert any("P50 of 50 measured steps" in line for line in job.projection_basis)
    html = render_html(job_report)
    section = html[html.index('<h2 id="job"') : html.index('<h2 id="telemetry"')]
    for text in (
        "Job profile",
        "SIMULATED",
        "2 kWh",
        "SW_POWER_CAP",
        "Where the time goes",
        "Projected onto the cloud catalog",
        "<svg",
        "steady",
        "P50",
    ):
        assert text in section, text
    assert section.count("<svg") == 2


def test_outside_text_is_escaped_and_the_command_line_redacted(job_report) -> None:  # type: ignore[no-untyped-def]
    html = render_html(job_report)
    assert "<script>" not in html and "\u202e" not in html
    assert "&lt;script&gt;alert" in html
    assert SECRET not in html and "train.py" not in html
    assert job_report.job.profile.command == ("python [arguments hidden]",)
    text = dumps_report(job_report)
    assert SECRET not in text and "\u202e" not in text


def test_included_command_lines_still_hide_secrets(tmp_path: Path) -> None:
    section = summarize_job(_profile(), include_cmdlines=True, projection=False)
    (line,) = section.profile.command
    assert "train.py" in line and SECRET not in line and "***" in line


def test_the_json_report_is_strict_and_reads_back_equal(job_report) -> None:  # type: ignore[no-untyped-def]
    text = dumps_report(job_report)
    data = loads_strict(text)
    job = data["job"]
    assert job["profile"]["name"].startswith("<script>")  # JSON keeps text; renderers escape
    assert job["profile"]["steps"]["p50_s"] == 1.0
    assert {s["category"] for s in job["profile"]["breakdown"]["shares"]} == {"matmul", "memcpy"}
    assert job["projections"][0]["derivation"]
    assert loads_report(text) == job_report


def test_a_plain_recording_has_no_job_section(tmp_path: Path) -> None:
    report = build.from_session(_recording(tmp_path / "plain.gpuprof", None, []))
    assert report.job is None
    assert '<h2 id="job"' not in render_html(report)
    assert json.loads(dumps_report(report))["job"] is None


def test_hostile_numbers_render_and_stay_strict(tmp_path: Path) -> None:
    nan, inf = float("nan"), float("inf")
    prof = _profile(
        gpu_seconds=inf,
        gpus=(dict(name="x", util_gpu_mean_pct=nan, energy_j=inf, power_mean_w=-inf),),
        phases=(("steady", 0, inf),),
        steps=dict(count=3, p50_s=nan, p90_s=inf, mean_s=-1.0, trend_pct=nan),
        breakdown=dict(device="cuda", steps=1, total_s=inf, shares=(("matmul", nan, inf),)),
    )
    hostile = [StepMarker(T0 + 1, 1, nan), StepMarker(T0 + 2, 2, inf), StepMarker(inf, 3, 1.0)]
    assert step_chart(prof, hostile) is None  # nothing drawable
    report = build.from_session(_recording(tmp_path / "bad.gpuprof", prof, _markers(3)))
    assert report.job is not None
    html = render_html(report)
    assert "Job profile" in html and "nan" not in html.lower().replace("nanosec", "")
    loads_strict(dumps_report(report))


def test_the_step_chart_keeps_min_and_max_of_buckets_and_one_line_per_run() -> None:
    many = _markers(20_000)
    spike = StepMarker(T0 + 5 + 12_345.5, 99_999, 9.0, run="train", pid=77)
    other = _markers(10, run="eval")
    chart = step_chart(_profile(), [*many, spike, *other])
    assert chart is not None and [s.label for s in chart.series] == ["train", "eval"]
    train = chart.series[0]
    assert len(train.y) <= MAX_STEP_POINTS and max(train.y) == 9.0 and min(train.y) == 1.0
    assert list(train.x) == sorted(train.x)
    assert all(y is not None and math.isfinite(y) for y in train.y)
    assert step_chart(_profile(), []) is None


def test_a_catalog_that_cannot_be_read_leaves_a_note_not_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpuprof.catalog import instances
    from gpuprof.errors import InputError

    def broken(*_a: object, **_k: object) -> None:
        raise InputError("catalog.csv:3: broken")

    monkeypatch.setattr(instances, "load_catalog", broken)
    section = summarize_job(_profile())
    assert section.projections == () and "catalog.csv:3: broken" in section.projection_note


def test_the_apps_report_of_a_replayed_job_has_the_section(tmp_path: Path) -> None:
    from gpuprof.telemetry.replay import ReplaySource
    from gpuprof.telemetry.session import TelemetrySession

    path = _recording(tmp_path / "job.gpuprof", _profile(), _markers())
    clock = iter(range(10_000))
    source = ReplaySource(path, speed=1000.0, clock=lambda: float(next(clock)))
    session = TelemetrySession(source, interval_s=0.1, history_capacity=100)
    try:
        for _ in range(5):
            session.poll_once()
        report = build.from_telemetry_session(session)
    finally:
        session.close()
    assert report.job is not None and report.job.profile.pid == 77
    assert report.job.charts and report.job.projections
