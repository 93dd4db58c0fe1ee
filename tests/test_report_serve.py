"""A report that holds a serving recommendation (issue 22) shows the serving columns — instances,
$/h, $ per million output and input tokens, throughput per instance, batch, TTFT, TPOT and the
bound — with the same numbers `gpuprof recommend --scenario serve` gives, in HTML and JSON."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuprof.recommend.workload import Workload
from gpuprof.report import build
from gpuprof.report.html import render_html
from gpuprof.report.json import dumps_report, loads_report, report_to_dict
from gpuprof.report.model import RecommendationSummary, Report
from gpuprof.telemetry.model import SystemInfo
from tests.helpers.workloads import serving

TRAFFIC = ("--throughput", "5000", "--prompt-len", "1000", "--output-len", "200")


def _serving_workload() -> Workload:
    return serving("llama-3-70b", throughput_per_s=5000, prompt_len=1000, output_len=200)


@pytest.fixture(scope="module")
def summary() -> RecommendationSummary:
    return build.summarize_recommendation(build.recommend_for(_serving_workload(), limit=5))


def _report(summary: RecommendationSummary) -> Report:
    base = build.build_report(system=SystemInfo(hostname="h"), devices=(), created_s=0.0)
    return dataclasses.replace(base, recommendation=summary)


def test_every_serving_row_carries_its_serving_numbers(summary: RecommendationSummary) -> None:
    rec = build.recommend_for(_serving_workload(), limit=5)
    assert summary.rows and len(summary.rows) == len(rec.rows)
    for row, src in zip(summary.rows, rec.rows, strict=True):
        s, t = row.serving, src.serving
        assert s is not None and t is not None
        assert (s.instances, s.tp, s.batch_max, s.bound) == (
            t.instances,
            t.tp,
            t.batch_max,
            t.bound,
        )
        assert s.usd_per_hour == t.usd_per_hour and s.ttft_p99_s == t.ttft_p99_s
    chart = summary.charts[0]
    assert chart.key == "recommend.pareto" and chart.x_unit == "tok/s"
    assert "per million" in chart.title


def test_the_html_shows_serving_columns_instead_of_time(summary: RecommendationSummary) -> None:
    html = render_html(_report(summary))
    section = html[html.index('id="recommend"') :]
    for header in ("$/M output", "$/M input", "Output tok/s per instance", "TTFT<br>p50 / p99"):
        assert header in section
    assert '<th class="num">Time</th>' not in section
    top = summary.rows[0].serving
    assert top is not None
    assert f"{top.instances} ×" in html  # the summary line names the instances
    assert f"TP{top.tp} PP{top.pp}" in section and top.bound in section


def test_a_job_recommendation_keeps_its_time_and_cost_columns() -> None:
    job = build.summarize_recommendation(
        build.recommend_for(Workload.presets()["llm-100b-train"], limit=3)
    )
    assert all(r.serving is None for r in job.rows)
    html = render_html(_report(job))
    section = html[html.index('id="recommend"') :]
    assert '<th class="num">Time</th>' in section and '<th class="num">$/M output' not in section


def test_the_json_report_round_trips_the_serving_numbers(summary: RecommendationSummary) -> None:
    rep = _report(summary)
    again = loads_report(dumps_report(rep))
    assert again.recommendation == rep.recommendation
    row = report_to_dict(rep)["recommendation"]["rows"][0]
    assert row["serving"]["instances"] == summary.rows[0].serving.instances  # type: ignore[union-attr]
    # a report written before serving rows existed (no "serving" key) still loads
    data = report_to_dict(rep)
    for r in data["recommendation"]["rows"]:
        del r["serving"]
    old = loads_report(json.dumps(data))
    assert old.recommendation is not None and old.recommendation.rows[0].serving is None


@pytest.mark.slow
def test_the_report_cli_gives_the_recommend_cli_numbers(tmp_path: Path) -> None:
    env = {"GPUPROF_LANG": "en", "PATH": "/usr/bin:/bin", "GPUPROF_DATA_DIR": str(tmp_path)}
    common = ("--scenario", "serve", "--model", "llama-3-70b", *TRAFFIC)
    out = tmp_path / "r.json"
    args = ["report", "--demo", "--duration", "1", "--out", str(out), *common]
    rep = subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert rep.returncode == 0, rep.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "gpuprof", "recommend", *common, "--json", "--limit", "10"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert cli.returncode == 0, cli.stderr
    got = json.loads(out.read_text("utf-8"))["recommendation"]["rows"][0]
    want = json.loads(cli.stdout)["rows"][0]
    assert got["instance"] == want["instance"]
    for key in ("instances", "tp", "batch_max", "bound", "usd_per_hour", "ttft_p99_s"):
        assert got["serving"][key] == want["serving"][key], key
