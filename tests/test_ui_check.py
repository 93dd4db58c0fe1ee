"""The Check tab (a real CPU quick check, cancel, the expectation picker, export) and
File → Compare results… on the tests/data/compare fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pytestqt")

DATA = Path(__file__).resolve().parent / "data" / "compare"


@pytest.fixture
def tab(qtbot: Any) -> Any:
    from gpuprof.ui.check.tab import CheckTab
    from gpuprof.ui.shell.app import make_app

    make_app()
    t = CheckTab()
    qtbot.addWidget(t)
    t.device.setEditText("cpu")
    yield t
    t.shutdown(30.0)


@pytest.mark.slow
def test_a_real_cpu_quick_check_fills_the_scorecard_item_by_item_and_exports(
    qtbot: Any, tab: Any, tmp_path: Path
) -> None:
    from gpuprof.ui.check.scorecard import STATUS_COLOURS

    live: list[Any] = []
    tab.worker.item.connect(live.append)
    assert not tab.export_html_button.isEnabled()
    assert tab.start()
    assert tab.cancel_button.isEnabled() and not tab.run_button.isEnabled()
    qtbot.waitUntil(lambda: tab.result is not None, timeout=120_000)
    result = tab.result
    assert result.device == "cpu" and not result.cancelled
    # Every item arrived as it was graded; the finished scorecard is in the result's order.
    assert sorted(i.item_id for i in live) == sorted(i.item_id for i in result.items)
    assert live[0].item_id == "inventory" and len(live) == len(result.items)
    assert tab.scorecard.rowCount() == len(result.items) > 3
    ids = [tab.scorecard.item(r, 0).text() for r in range(tab.scorecard.rowCount())]
    assert ids == [i.item_id for i in result.items]
    assert any(i.startswith("perf.") for i in ids) and any(i.startswith("diag.") for i in ids)
    for row, item in enumerate(result.items):
        cell = tab.scorecard.item(row, 2)
        assert cell.text() == item.status.value
        assert cell.foreground().color().name() == STATUS_COLOURS[item.status.value]
        assert item.item_id in cell.toolTip()
    # The memory test ran for real on the host and passed.
    memtest = [i for i in result.items if i.item_id.startswith("diag.memtest")]
    assert memtest and memtest[0].status.value == "PASS"
    assert not tab.verdict.isHidden()
    assert f"Verdict: {result.verdict.value} (exit code {result.exit_code})" in tab.verdict.text()
    assert tab.progress.value() == 1000 and tab.run_button.isEnabled()
    assert tab.export_html_button.isEnabled() and tab.export_json_button.isEnabled()

    assert tab.export(tmp_path / "c.json", "json")
    data = json.loads((tmp_path / "c.json").read_text("utf-8"))
    assert data["schema"] == "gpuprof.check" and data["verdict"] == result.verdict.value
    assert [i["item_id"] for i in data["items"]] == ids
    assert tab.export(tmp_path / "c.html", "html")
    html = (tmp_path / "c.html").read_text("utf-8")
    assert 'id="verdict"' in html and "diag.memtest" in html
    # A folder that does not exist: one message naming the file, nothing raised.
    bad = tmp_path / "missing" / "c.html"
    assert not tab.export(bad, "html")
    assert str(bad) in tab.message.text() and not bad.exists()


def test_cancel_mid_run_grades_what_was_done_and_skips_the_rest(qtbot: Any, tab: Any) -> None:
    assert tab.start()
    qtbot.waitUntil(lambda: tab.scorecard.rowCount() >= 1, timeout=60_000)
    tab.cancel()
    assert not tab.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: tab.result is not None, timeout=60_000)
    result = tab.result
    assert result.cancelled
    skipped = [i for i in result.items if i.status.value == "SKIP" and i.reason == "cancelled"]
    assert skipped, [(i.item_id, i.status, i.reason) for i in result.items]
    assert "cancelled" in tab.verdict.text()
    assert tab.scorecard.rowCount() == len(result.items)
    assert tab.run_button.isEnabled() and not tab.worker.running


def test_a_check_cancelled_before_anything_ran_is_incomplete_not_a_green_pass(
    qtbot: Any, tab: Any
) -> None:
    from gpuprof.ui.check.scorecard import STATUS_COLOURS

    from gpuprof.check.model import Status

    assert tab.start()
    tab.cancel()  # at once: the worker sees the token before its first item
    qtbot.waitUntil(lambda: tab.result is not None, timeout=60_000)
    result = tab.result
    assert result.cancelled and not any(i.status is Status.FAIL for i in result.items)
    assert result.verdict is Status.INCOMPLETE and result.exit_code == 130
    text = tab.verdict.text()
    assert "INCOMPLETE (exit code 130)" in text and "PASS" not in text
    style = tab.verdict.styleSheet()
    assert STATUS_COLOURS["INCOMPLETE"] in style and STATUS_COLOURS["PASS"] not in style


@pytest.mark.parametrize(
    ("expect", "device", "says"),
    [
        ("9xNOPE-GPU!!", "cpu", "neither a GPU spec like 8xH100-SXM nor a catalog instance"),
        ("99xH100-SXM", "cpu", "a GPU count must be 1..64"),
        ("", "cuda:x", "--device must be cuda:N, all or cpu"),
    ],
)
def test_the_pickers_refuse_garbage_with_a_message_and_run_nothing(
    tab: Any, expect: str, device: str, says: str
) -> None:
    tab.expect.setEditText(expect)
    tab.device.setEditText(device)
    assert tab.start() is False
    assert says in tab.message.text()
    assert not tab.worker.running and tab.scorecard.rowCount() == 0
    assert tab.run_button.isEnabled()


def test_before_a_run_the_tab_says_what_a_check_does_and_how_long(tab: Any) -> None:
    text = tab.message.text()
    assert "SIMULATED" in text and "3 minutes" in text and "10" in text
    tab.expect.setEditText("not a machine at all")
    assert tab.start() is False  # a refused input replaces the note with the error
    assert "not a machine" in tab.message.text() or tab.message.text() != text


def test_the_expectation_picker_offers_catalog_instances_the_parser_accepts(tab: Any) -> None:
    from gpuprof.check.inventory import parse_expect

    choices = [tab.expect.itemText(i) for i in range(1, tab.expect.count())]
    assert len(choices) > 5
    for name in choices[:: max(1, len(choices) // 10)]:
        assert parse_expect(name).gpu_model is not None  # no InputError, a known GPU


def test_the_window_has_a_lazy_check_tab_and_file_compare(make_window: Any) -> None:
    from gpuprof.ui.check.tab import CheckTab

    w = make_window()
    assert "check" in w.tab_names and w.tabs.is_lazy("check")
    w.select_tab("check")
    assert isinstance(w.tabs.currentWidget(), CheckTab)
    compare = w.findChild(type(w.action("file.open")), "compareAction")
    assert compare is not None and compare in w.menuBar().actions()[0].menu().actions()


def test_compare_dialog_flags_the_planted_outliers_and_lists_bad_files(
    qtbot: Any, tmp_path: Path
) -> None:
    from gpuprof.ui.report.compare import CompareDialog
    from gpuprof.ui.shell.app import make_app

    make_app()
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_bytes(b'{"schema": "gpuprof.check", "items": [')
    files = [DATA / f"node-{c}.json" for c in "abcd"]
    files += [DATA / "foreign.json", DATA / "newer-schema.json", corrupt]
    dialog = CompareDialog()
    qtbot.addWidget(dialog)
    dialog.load(files)
    headers = [dialog.table.horizontalHeaderItem(c).text() for c in range(4)]
    assert headers == ["node-a", "node-b", "node-c", "node-d"]
    flagged = set(dialog.flagged_cells())
    assert ("node-b", "perf.gemm_bf16/gpu2") in flagged
    assert ("node-c", "perf.allreduce_busbw") in flagged
    assert not any(m in ("node-a", "node-d") for m, _ in flagged)
    row = dialog.comparison.keys.index("perf.gemm_bf16/gpu2")
    cell = dialog.table.item(row, 1)
    assert cell.text().startswith("▼") and "sibling GPUs" in cell.toolTip()
    assert "peers" in cell.toolTip()  # a fleet outlier too
    summaries = [dialog.summaries.item(i).text() for i in range(dialog.summaries.count())]
    assert len(summaries) == 4 and summaries[2].startswith("node-c:")
    assert "0 outliers" in summaries[0] and "allreduce_busbw" in summaries[2]
    left = [dialog.left_out.item(i).text() for i in range(dialog.left_out.count())]
    assert len(left) == 3
    assert any(str(corrupt) in s and "not JSON" in s for s in left)
    assert any("foreign.json" in s for s in left) and any("schema 99" in s for s in left)
    assert "4 machines compared, 4 outliers" in dialog.status.text()


def test_compare_dialog_with_one_readable_file_says_to_add_more(qtbot: Any, tmp_path: Path) -> None:
    from gpuprof.ui.report.compare import CompareDialog
    from gpuprof.ui.shell.app import make_app

    make_app()
    shutil.copy(DATA / "node-a.json", tmp_path / "a.json")
    dialog = CompareDialog()
    qtbot.addWidget(dialog)
    dialog.load([tmp_path / "a.json", tmp_path / "gone.json"])
    assert "Fewer than two" in dialog.status.text()
    assert dialog.left_out.count() == 1 and "gone.json" in dialog.left_out.item(0).text()


def test_compare_dialog_lists_every_hostile_file_and_still_compares_the_good_ones(
    qtbot: Any, tmp_path: Path
) -> None:
    from gpuprof.ui.report.compare import CompareDialog
    from gpuprof.ui.shell.app import make_app

    from tests.faults.hostile import hostile_files

    make_app()
    bad = hostile_files(tmp_path / "bad")
    dialog = CompareDialog()
    qtbot.addWidget(dialog)
    dialog.load([DATA / "node-a.json", *bad.values(), DATA / "node-d.json"])
    assert dialog.table.columnCount() == 3  # the two machines and their ratio
    left = [dialog.left_out.item(i).text() for i in range(dialog.left_out.count())]
    assert len(left) == len(bad)
    for path in bad.values():
        assert any(s.startswith(str(path)) and "\n" not in s for s in left), path


def test_the_check_tab_and_compare_dialog_speak_chinese(qtbot: Any) -> None:
    from gpuprof.ui.check.tab import CheckTab
    from gpuprof.ui.report.compare import CompareDialog
    from gpuprof.ui.shell.app import make_app

    from gpuprof import i18n

    make_app()
    i18n.set_language("zh_CN")
    try:
        t, d = CheckTab(), CompareDialog()
        qtbot.addWidget(t)
        qtbot.addWidget(d)
        assert t.run_button.text() == "运行检查(&R)"
        assert t.scorecard.horizontalHeaderItem(2).text() == "状态"
        assert d.windowTitle() == "比较结果"
        assert "3 分钟" in t.message.text()  # what a check is and takes, before the first run
    finally:
        i18n.set_language("en")
