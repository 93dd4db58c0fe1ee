"""File → Export report…: the action, the preview dialog and saving in each format."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")


pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def window(make_window):
    return make_window(size=None)


@pytest.mark.slow
def test_export_report_action_preview_and_save(window, qtbot, tmp_path: Path) -> None:
    from gpuprof.report.json import load_report

    action = window.action("file.export_report")
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() is not None)
    assert action in file_menu.actions() and action.shortcut().toString() == "Ctrl+E"
    for _ in range(5):
        window.poll_now()
    assert not hasattr(window, "report_snapshots")  # the report reads the session's History
    action.trigger()
    dialog = window.feature("report").dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    assert dialog.report.telemetry is not None and dialog.report.telemetry.sample_count == 5
    text = dialog.preview.toPlainText()
    assert "Health findings" in text and dialog.report.machine.hostname in text
    assert not dialog.paper_box.isEnabled()  # HTML first: paper applies to PDF only
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("json"))
    data = json.loads(dialog.save_to(tmp_path / "r.json").read_text("utf-8"))
    assert data["format"] == "gpuprof-report" and len(data["gpus"]) == 2
    assert load_report(tmp_path / "r.json").cmdlines_included is False
    dialog.cmdline_box.setChecked(True)  # the report is made again
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
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
    from gpuprof.ui.report.dialog import report_from_window

    for _ in range(100):
        window.poll_now()
    window.set_time_window(60)
    report = report_from_window(window)
    assert report.telemetry.sample_count == 61  # 1 s apart: the newest 60 s, both ends in
    assert report.telemetry.end_s - report.telemetry.start_s == 60.0
    assert {p.pid for p in report.telemetry.processes} == {4242, 1001, 777}
    window.set_time_window(0)  # "all"
    assert report_from_window(window).telemetry.sample_count == 100


# -- the preview is built in a worker ----------------------------------------------------------


@pytest.fixture
def gate(monkeypatch):
    """Hold the report's build (in the worker) until ``gate.set()``; record the threads that
    render chart images."""
    from gpuprof.ui.report import dialog as report_dialog
    from gpuprof.ui.report import pdf as report_pdf

    gate = threading.Event()
    gate.chart_threads = []
    real_maker, real_chart = report_dialog.report_maker, report_pdf.render_chart_image

    def maker(window):
        make = real_maker(window)

        def gated(include: bool):
            assert gate.wait(30)
            return make(include)

        return gated

    def chart(*args, **kwargs):
        gate.chart_threads.append(threading.current_thread())
        return real_chart(*args, **kwargs)

    monkeypatch.setattr(report_dialog, "report_maker", maker)
    monkeypatch.setattr(report_pdf, "render_chart_image", chart)
    yield gate
    gate.set()


def _save_button(dialog):
    from PySide6.QtWidgets import QDialogButtonBox

    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def test_the_dialog_opens_at_once_and_the_preview_follows(window, qtbot, gate) -> None:
    from PySide6.QtCore import QTimer

    for _ in range(5):
        window.poll_now()
    ticks: list[int] = []
    timer = QTimer(window)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    window.action("file.export_report").trigger()
    dialog = window.feature("report").dialog
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and dialog.preview_pending and dialog.report is None
    assert dialog.status_label.text() == "Building preview…"
    assert dialog.preview.placeholderText() == "Building preview…"
    assert dialog.preview.toPlainText() == "" and not _save_button(dialog).isEnabled()
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=5000)  # the event loop turns meanwhile
    assert dialog.preview_pending
    gate.set()
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    assert "Health findings" in dialog.preview.toPlainText()
    assert dialog.report is not None and dialog.report.telemetry.sample_count == 5
    assert dialog.status_label.text() == "" and _save_button(dialog).isEnabled()
    # The charts were painted in the worker, never in the GUI thread.
    assert gate.chart_threads
    assert threading.main_thread() not in gate.chart_threads
    # A change builds again in the worker; the old preview stays until the new one is there.
    dialog.paper_box.setCurrentIndex(dialog.paper_box.findData("letter"))
    assert dialog.preview_pending and "Health findings" in dialog.preview.toPlainText()
    assert not _save_button(dialog).isEnabled()
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    timer.stop()
    dialog.reject()


def test_closing_the_dialog_before_its_preview_is_built(window, qtbot, gate) -> None:
    import weakref

    window.poll_now()
    window.action("file.export_report").trigger()
    dialog = window.feature("report").dialog
    threads = [b._thread for b in dialog._builds]
    assert dialog.preview_pending and all(t.is_alive() for t in threads)
    dialog.reject()  # before anything was built
    assert not dialog.preview_pending
    gate.set()
    for t in threads:  # the cancelled build ends without painting its charts
        t.join(10)
        assert not t.is_alive()
    qtbot.wait(50)  # anything it might still have sent is delivered (and dropped)
    assert dialog._doc is None and dialog.report is None and gate.chart_threads == []
    # The next File → Export report… frees the closed dialog at once (no reference cycle
    # left for the garbage collector to free at a random moment) and builds anew.
    old = weakref.ref(dialog)
    del dialog
    window.action("file.export_report").trigger()
    assert old() is None
    qtbot.waitUntil(lambda: not window.feature("report").dialog.preview_pending, timeout=60_000)
    assert "Health findings" in window.feature("report").dialog.preview.toPlainText()
    window.feature("report").dialog.reject()


def test_closing_the_window_waits_for_a_preview_build(make_window, gate) -> None:
    w = make_window(size=None)
    w.poll_now()
    w.action("file.export_report").trigger()
    threads = [b._thread for b in w.feature("report").dialog._builds]
    threading.Timer(0.2, gate.set).start()  # the build leaves the report reader then
    w.close()
    assert not any(t.is_alive() for t in threads)  # none outlives the window


def test_chart_images_are_the_same_without_the_svg_image_plugin(qapp, monkeypatch) -> None:
    """Charts are read through Qt's SVG image plugin (it paints without holding the GIL, so
    the preview worker leaves the GUI thread alone); without the plugin, QSvgRenderer paints
    the same pixels."""
    from gpuprof.ui.report import pdf as report_pdf

    from gpuprof.report import build
    from gpuprof.report.html import iter_charts

    source, snaps = build.demo_snapshots(duration_s=60.0, end_s=1_750_000_000.0)
    chart = iter_charts(build.from_source(source, snapshots=snaps))[0]
    with_plugin = report_pdf.render_chart_image(chart)

    class NoPlugin:
        def __init__(self, *_args: object) -> None:
            pass

        def __getattr__(self, _name: str):
            return lambda *_args: None

        def read(self):
            from PySide6.QtGui import QImage

            return QImage()  # what read() gives when no plugin reads SVG

    monkeypatch.setattr(report_pdf, "QImageReader", NoPlugin)
    without = report_pdf.render_chart_image(chart)
    assert not with_plugin.isNull() and with_plugin.format() == without.format()
    assert with_plugin == without
