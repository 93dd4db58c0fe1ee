"""The acceptance check as the report's first page (issue 14, "In the app"): HTML, PDF, JSON,
the standalone ``gpuprof check --html`` page (the same piece), and hostile text from the system."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import pytest

from gpuprof.check.model import CheckItem, CheckResult, Status
from gpuprof.report import build
from gpuprof.report.check import check_section, check_section_of, with_check
from gpuprof.report.html import check_page_html, render_check_html, render_html
from gpuprof.report.json import dumps_report, loads_report
from gpuprof.report.model import Report
from tests.helpers.check import perf_item
from tests.pdftext import page_texts, squash

HOSTILE_HOST = '<script>alert("h")</script>\x1b[31m\u202enode'
HOSTILE_SERIAL = '"><img src=x onerror=alert(1)>'


def _result(hostname: str = "node-17", serial: str = "1654922011234") -> CheckResult:
    items = (
        CheckItem(
            item_id="inventory", group="inventory", status=Status.PASS, measured="8", expected="8"
        ),
        perf_item(
            "perf.gemm_bf16",
            Status.WARN,
            612.5,
            759.0,
            612.5 / 759.0,
            reason="below the reference",
            hint="check clocks and power limits",
            source="ml-engineering mamf-finder (H100 SXM)",
            gpu_index=0,
        ),
        CheckItem(item_id="diag.burnin", group="diagnostics", status=Status.SKIP, reason="quick"),
    )
    return CheckResult(
        level="quick",
        device="all",
        started_s=1_764_600_000.0,
        ended_s=1_764_600_100.0,
        items=items,
        identity={
            "hostname": hostname,
            "os": "Linux",
            "driver_version": "550.54.15",
            "cuda_driver_version": "12.4",
            "gpus": [
                {
                    "index": 0,
                    "name": "NVIDIA H100 80GB HBM3",
                    "uuid": "GPU-0c1d2e3f-aaaa-bbbb-cccc-0123456789ab",
                    "serial": serial,
                    "pci_bus_id": "00000000:18:00.0",
                    "vbios_version": "96.00.74.00.01",
                }
            ],
        },
    )


@pytest.fixture(scope="module")
def base_report() -> Report:
    src, snaps = build.demo_snapshots(duration_s=40.0, end_s=1_764_600_200.0)
    return build.from_source(src, snapshots=snaps, created_s=1_764_600_300.0)


def test_the_report_opens_with_the_verdict_then_the_identity_then_the_rest(
    base_report: Report,
) -> None:
    html = render_html(with_check(base_report, check_section_of(_result())))
    verdict = html.index("verdict: WARN (exit code 3)")
    assert verdict < html.index("node-17") < html.index("<header>") < html.index("At a glance")
    assert html.index('id="verdict"') < html.index("<header>")
    for identity in ("1654922011234", "GPU-0c1d2e3f-aaaa-bbbb-cccc-0123456789ab", "550.54.15"):
        assert verdict < html.index(identity) < html.index("<header>"), identity
    card = html[html.index('id="scorecard"') : html.index("<header>")]
    for shown in ("WARN", "612.5 TFLOPS", "759 TFLOPS", "81%", "below the reference"):
        assert shown in card, shown
    assert "check clocks and power limits" in card and "mamf-finder" in card
    # The rest of the report starts on a page of its own.
    assert re.search(r'<h1 class="pagebreak">', html)
    assert 'id="verdict"' not in render_html(base_report)


def test_the_standalone_check_page_is_the_same_piece_as_the_reports_first_page(
    base_report: Report,
) -> None:
    result = _result()
    section = check_section_of(result)

    def piece(html: str) -> str:
        return html[html.index('<section id="verdict"') : html.index("</section>") + 10]

    standalone = check_page_html(result)
    assert standalone == render_check_html(section)
    assert piece(standalone) == piece(render_html(with_check(base_report, section)))


def test_hostile_hostnames_and_serials_are_escaped_cleaned_and_redacted(
    base_report: Report,
) -> None:
    host = HOSTILE_HOST + " --password=hunter2"
    result = _result(hostname=host, serial=HOSTILE_SERIAL)
    for html in (
        render_html(with_check(base_report, check_section_of(result))),
        check_page_html(result),
    ):
        assert "<script>" not in html and "<img" not in html
        assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
        assert "\x1b" not in html and "\u202e" not in html
        assert "hunter2" not in html


def test_the_check_page_survives_json_and_a_liar_file_is_graded_again(base_report: Report) -> None:
    report = with_check(base_report, check_section_of(_result()))
    again = loads_report(dumps_report(report))
    assert again.check == report.check and again == report
    data = {
        "verdict": "PASS",  # the file says PASS; its items say otherwise
        "cancelled": "yes",
        "identity": {"hostname": 7, "gpus": [{"index": "0"}, 5, {"index": 1, "serial": ["x"]}]},
        "items": [
            {"item_id": "a", "status": "FAIL", "measured": float("nan"), "ratio": "high"},
            {"item_id": "b", "status": "<b>bold</b>", "gpu_index": True},
            {"no": "id"},
        ],
    }
    section = check_section(data)
    assert section.verdict == "FAIL" and section.exit_code == 1 and not section.cancelled
    assert [r.status for r in section.rows] == ["FAIL", "?"]
    assert section.rows[0].measured == "" and section.rows[0].ratio is None
    assert section.rows[1].gpu_index is None and section.hostname == ""
    assert [(g.index, g.serial) for g in section.gpus] == [(1, "")]


@pytest.mark.slow
def test_the_pdf_first_page_is_the_check(base_report: Report, tmp_path: Path, qapp: object) -> None:
    from gpuprof.ui.report.pdf import write_pdf

    result = _result(hostname='node-17 <b>"x"</b>')
    report = with_check(base_report, check_section_of(result))
    pages = page_texts(write_pdf(report, tmp_path / "r.pdf", "a4").read_bytes())
    first = squash(pages[0])
    assert first.startswith(squash("GPU acceptance check (quick)"))
    assert squash("verdict: WARN (exit code 3)") in first
    for shown in ('node-17 <b>"x"</b>', "1654922011234", "GPU-0c1d2e3f", "550.54.15", "81%"):
        assert squash(shown) in first, shown
    assert "Ataglance" not in first  # the machine report starts on the next page
    assert squash("At a glance") in squash(pages[1])
    plain = page_texts(write_pdf(base_report, tmp_path / "plain.pdf", "a4").read_bytes())
    # without a check the machine report is page 1 (page counts are not compared: the banner
    # that names the measured check reflows the pages after it)
    assert "verdict" not in squash(plain[0])
    assert squash(plain[0]).startswith(squash("GPU report"))


def _eight_gpus(items: int, *, serial: str, item: str) -> CheckResult:
    """:func:`_result` on eight GPUs (serials ``serial.format(k)``) with ``items`` copies of its
    GEMM item over them in turn, named ``item.format(k=, gpu=, round=)``."""
    base = _result()
    gpus = [dict(base.identity["gpus"][0], index=k, serial=serial.format(k)) for k in range(8)]
    rows = tuple(
        dataclasses.replace(
            base.items[1], gpu_index=k % 8, item_id=item.format(k=k, gpu=k % 8, round=k // 8)
        )
        for k in range(items)
    )
    return dataclasses.replace(base, items=rows, identity={**base.identity, "gpus": gpus})


@pytest.mark.slow
def test_a_check_with_many_gpus_keeps_its_rows_whole_in_the_pdf(
    base_report: Report, tmp_path: Path, qapp: object
) -> None:
    """Eight GPUs and 60 items run over page 1: every row is on one page, each item once."""
    from gpuprof.ui.report.pdf import write_pdf

    result = _eight_gpus(60, serial="SN{:04d}", item="perf.item{k:02d}")
    pages = page_texts(
        write_pdf(
            with_check(base_report, check_section_of(result)), tmp_path / "m.pdf"
        ).read_bytes()
    )
    text = squash("".join(pages))
    assert all(text.count(f"perf.item{k:02d}") == 1 for k in range(60))
    assert all(f"SN{k:04d}" in squash(pages[0]) for k in range(8))


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.slow
def test_the_check_page_fits_the_paper_and_cuts_no_row_or_word(
    base_report: Report, paper: str, qapp: object
) -> None:
    """The layout rules of tests/faults/test_report_pdf_layout.py, on a report that opens with
    an 8-GPU check (long UUIDs, serials, bus IDs, reasons and sources)."""
    from tests.faults.test_report_pdf_layout import (
        _printed,
        assert_no_row_cut,
        assert_tables_fit_and_keep_words,
    )

    result = _eight_gpus(40, serial="SN{:012d}", item="perf.p2p_{gpu}_{round}")
    doc = _printed(with_check(base_report, check_section_of(result)), paper)
    assert "GPU acceptance check" in doc.begin().text()
    assert_tables_fit_and_keep_words(doc, paper)
    assert_no_row_cut(doc, paper, taller=math.inf)  # every row, however tall
