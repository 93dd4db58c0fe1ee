"""File → Export report…: the action, the preview dialog and saving in each format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")


pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def window(make_window):
    return make_window(size=None)


def test_export_report_action_preview_and_save(window, qtbot, tmp_path: Path) -> None:
    from gpuprof.ui.report_dialog import add_report_action

    from gpuprof.report.json import load_report

    action = add_report_action(window)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() is not None)
    assert action in file_menu.actions()
    for _ in range(5):
        window.poll_now()
    assert not hasattr(window, "report_snapshots")  # the report reads the session's History
    action.trigger()
    dialog = window.report_dialog
    qtbot.addWidget(dialog)
    assert dialog.report.telemetry is not None and dialog.report.telemetry.sample_count == 5
    text = dialog.preview.toPlainText()
    assert "Health findings" in text and dialog.report.machine.hostname in text
    assert not dialog.paper_box.isEnabled()  # HTML first: paper applies to PDF only
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("json"))
    data = json.loads(dialog.save_to(tmp_path / "r.json").read_text("utf-8"))
    assert data["format"] == "gpuprof-report" and len(data["gpus"]) == 2
    assert load_report(tmp_path / "r.json").cmdlines_included is False
    dialog.cmdline_box.setChecked(True)
    assert dialog.report.cmdlines_included
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("pdf"))
    assert dialog.paper_box.isEnabled()
    dialog.paper_box.setCurrentIndex(dialog.paper_box.findData("letter"))
    assert dialog.save_to(tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("html"))
    assert "<svg" in dialog.save_to(tmp_path / "r.html").read_text("utf-8")
    dialog.reject()


def test_report_covers_the_plots_time_window(window, qtbot) -> None:
    """The report reads the session's History over what the plots show (View → Time window)."""
    from gpuprof.ui.report_dialog import report_from_window

    for _ in range(100):
        window.poll_now()
    window.set_time_window(60)
    report = report_from_window(window)
    assert report.telemetry.sample_count == 61  # 1 s apart: the newest 60 s, both ends in
    assert report.telemetry.end_s - report.telemetry.start_s == 60.0
    assert {p.pid for p in report.telemetry.processes} == {4242, 1001, 777}
    window.set_time_window(0)  # "all"
    assert report_from_window(window).telemetry.sample_count == 100
