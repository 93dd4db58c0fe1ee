"""The PDF report's layout (issue 11): Qt lays the report's HTML out on pages, and used to cut
table rows across page breaks and words and units mid-token ("Memo|ry", "1,980 | MHz",
"00000000:18:0|0.0"). Checked on the document exactly as :func:`write_pdf` prints it, for an
8-GPU machine with a recommendation and a process with a long command line, and for a serving
recommendation (issue 22), whose wider table (instances, $/h, $ per million output and input
tokens, throughput, batch, TTFT, TPOT, bound) must fit A4 and Letter too."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")

from gpuprof.ui.report.pdf import _tables

from gpuprof.report import build
from gpuprof.report.model import ProcessRow, Report
from gpuprof.telemetry.model import SystemInfo
from gpuprof.telemetry.sources import SimulatedSource
from gpuprof.telemetry.store import SessionStore
from tests.helpers.workloads import serving

#: Where a line may end: a space (also no-break, which Qt never breaks at anyway), a deliberate
#: zero-width break point, a dash or a slash.
_BREAKABLE = set(" \u200b\u2028-–/,·")
_NUMBER = re.compile(r"[0-9][0-9.,]*$")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = tmp_path_factory.mktemp("pdf") / "demo.gpuprof"
    start = 1_750_000_000.0
    ticks = iter([start + 4.0 * k for k in range(180)])
    src = SimulatedSource("h100x8", clock=lambda: next(ticks), start_s=start)
    store = SessionStore.create(path, source=src)
    for _ in range(180):
        store.append(src.poll())
    store.close()
    rep = build.from_session(path, created_s=start + 1000.0)
    from gpuprof.recommend.workload import Workload

    rec = build.recommend_for(Workload.presets()["llm-100b-train"], devices=rep.gpus)
    long_cmd = "python train.py --data=/datasets/" + "shard-0123456789abcdef/" * 12 + " --fp8"
    assert rep.telemetry is not None
    procs = (*rep.telemetry.processes, ProcessRow(4242, 0, "python", "alice", cmdline=long_cmd))
    telemetry = dataclasses.replace(rep.telemetry, processes=procs)
    return dataclasses.replace(
        rep,
        recommendation=build.summarize_recommendation(rec),
        telemetry=telemetry,
        cmdlines_included=True,
    )


def _printed(report: Report, paper: str) -> Any:
    """The document as write_pdf prints it (its page size and row moves)."""
    from gpuprof.ui.report.pdf import build_document, lay_out, page_layout

    doc = build_document(report, paper)
    lay_out(doc, page_layout(paper))
    return doc


def printed_text(report: Report) -> str:
    """The A4 document's text as a reader sees it: the invisible break points taken out and
    the no-break spaces plain."""
    return _printed(report, "a4").toPlainText().replace("\u200b", "").replace("\u00a0", " ")


def _cells(table: Any) -> list[tuple[int, list[Any]]]:
    """(row, blocks of each cell in the row)."""
    out = []
    for r in range(table.rows()):
        blocks = []
        for c in range(table.columns()):
            cell = table.cellAt(r, c)
            block, last = cell.firstCursorPosition().block(), cell.lastCursorPosition().block()
            while block.isValid():
                blocks.append(block)
                if block == last:
                    break
                block = block.next()
        out.append((r, blocks))
    return out


def assert_no_row_cut(doc: Any, paper: str, *, taller: float = 0.5) -> int:
    """No table row of the printed ``doc`` shorter than ``taller`` pages straddles a page
    break (a taller one cannot help it); returns how many rows there are."""
    page = doc.pageSize().height()
    layout = doc.documentLayout()
    rows = 0
    for table in _tables(doc):
        for r, blocks in _cells(table):
            rects = [layout.blockBoundingRect(b) for b in blocks]
            top, bottom = min(x.top() for x in rects), max(x.bottom() for x in rects)
            rows += 1
            if bottom - top < page * taller:
                first, last = math.floor((top + 2) / page), math.floor((bottom - 2) / page)
                assert first == last, (paper, blocks[0].text()[:40], r, top, bottom, page)
    return rows


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.slow
def test_no_row_is_cut_by_a_page_break(report, paper, qapp) -> None:
    assert assert_no_row_cut(_printed(report, paper), paper) > 60


def assert_tables_fit_and_keep_words(doc: Any, paper: str) -> None:
    """Every table of the printed ``doc`` fits the page's width, and no cell's line ends inside
    a word or between a value and its unit."""
    layout = doc.documentLayout()
    width = doc.pageSize().width()
    tables = _tables(doc)
    assert tables
    for table in tables:
        assert layout.frameBoundingRect(table).width() <= width + 2, table.cellAt(0, 0)
        for _r, blocks in _cells(table):
            for block in blocks:
                text, lines = block.text(), block.layout()
                for i in range(lines.lineCount() - 1):
                    line = lines.lineAt(i)
                    end = line.textStart() + line.textLength()
                    if not 0 < end < len(text):
                        continue
                    before, after = text[:end], text[end:]
                    assert before[-1] in _BREAKABLE or after[0] in _BREAKABLE, (
                        f"{paper}: a word is cut: {before[-12:]!r} | {after[:12]!r}"
                    )
                    if before[-1] == "\u2028":  # the cell's own line break (<br>), not a cut
                        continue
                    unit_cut = _NUMBER.search(before.rstrip()) and re.match(r"[A-Za-z%°µ]", after)
                    assert not unit_cut, f"{paper}: a value and its unit: {before[-12:]!r}"


@pytest.fixture(scope="module")
def serving_report() -> Report:
    """A report of a serving recommendation alone: Llama-3-70B at 5000 output tokens/s."""
    w = serving("llama-3-70b", throughput_per_s=5000, prompt_len=1000, output_len=200, tpot_s=0.05)
    rec = build.summarize_recommendation(build.recommend_for(w, limit=10))
    base = build.build_report(system=SystemInfo(hostname="h"), devices=(), created_s=0.0)
    return dataclasses.replace(base, recommendation=rec)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("which", ["report", "serving_report"])
@pytest.mark.slow
def test_no_word_or_value_is_split_and_tables_fit_the_page(
    which: str, paper: str, request: pytest.FixtureRequest, qapp
) -> None:
    assert_tables_fit_and_keep_words(_printed(request.getfixturevalue(which), paper), paper)


@pytest.mark.slow
def test_the_text_reads_the_same(report, qapp) -> None:
    """Break points are invisible: the printed text, less them, is the report's own."""
    text = printed_text(report)
    assert "shard-0123456789abcdef/" * 12 in text
    assert "00000000:18:00.0" in text and "NVIDIA H100 80GB HBM3" in text


@pytest.mark.slow
def test_write_pdf_still_writes_every_page(report, tmp_path: Path, qapp) -> None:
    from gpuprof.ui.report.pdf import write_pdf

    data = write_pdf(report, tmp_path / "r.pdf", "a4").read_bytes()
    assert data.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", data)) == _printed(report, "a4").pageCount()


@pytest.mark.slow
def test_the_pdf_text_has_the_serving_columns(serving_report: Report, qapp) -> None:
    text = printed_text(serving_report)
    assert "$/M output" in text and "TPOT" in text and "p50 / p99" in text
    top = serving_report.recommendation.rows[0].serving  # type: ignore[union-attr]
    assert top is not None and f"TP{top.tp} PP{top.pp}" in text
