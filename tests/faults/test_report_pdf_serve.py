"""The PDF report of a serving recommendation (issue 22): its wider table (instances, $/h, $ per
million output and input tokens, throughput, batch, TTFT, TPOT, bound) fits the page on A4 and
Letter, cuts no value from its unit, and reads the same numbers as the HTML."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("PySide6")

from gpuprof.report import build
from gpuprof.report.model import Report
from gpuprof.telemetry.model import SystemInfo
from tests.faults.test_report_pdf_layout import (
    _printed,
    assert_tables_fit_and_keep_words,
    printed_text,
)
from tests.helpers.workloads import serving


@pytest.fixture(scope="module")
def report() -> Report:
    w = serving("llama-3-70b", throughput_per_s=5000, prompt_len=1000, output_len=200, tpot_s=0.05)
    rec = build.summarize_recommendation(build.recommend_for(w, limit=10))
    base = build.build_report(system=SystemInfo(hostname="h"), devices=(), created_s=0.0)
    return dataclasses.replace(base, recommendation=rec)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.slow
def test_the_serving_table_fits_and_keeps_values_whole(report, paper, qapp) -> None:
    assert_tables_fit_and_keep_words(_printed(report, paper), paper)


@pytest.mark.slow
def test_the_pdf_text_has_the_serving_columns(report, qapp) -> None:
    text = printed_text(report)
    assert "$/M output" in text and "TPOT" in text and "p50 / p99" in text
    top = report.recommendation.rows[0].serving  # type: ignore[union-attr]
    assert top is not None and f"TP{top.tp} PP{top.pp}" in text
