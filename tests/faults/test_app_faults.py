"""The app under faults (issue 11): theme changes with a selected row, hovering, replay seeks,
screenshots that cannot be written, menu/toolbar agreement, a damaged settings file, the throttle
axis, the report dialog's preview and memory. Settings and the PDF are in test_app_settings.py
and test_report_pdf_layout.py."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QMessageBox

from tests.faults.hostile import run_gpuprof
from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


class _ModelSpy:
    """Every structural signal of a model, in order."""

    NAMES = (
        "layoutAboutToBeChanged",
        "layoutChanged",
        "modelAboutToBeReset",
        "modelReset",
        "dataChanged",
    )

    def __init__(self, model: Any) -> None:
        self.seen: list[str] = []
        for name in self.NAMES:
            getattr(model, name).connect(lambda *_, n=name: self.seen.append(n))

    def assert_paired(self) -> None:
        open_layout = open_reset = 0
        for name in self.seen:
            if name == "layoutAboutToBeChanged":
                open_layout += 1
            elif name == "layoutChanged":
                assert open_layout, f"layoutChanged without layoutAboutToBeChanged: {self.seen}"
                open_layout -= 1
            elif name == "modelAboutToBeReset":
                open_reset += 1
            elif name == "modelReset":
                assert open_reset, f"modelReset without modelAboutToBeReset: {self.seen}"
                open_reset -= 1
        assert open_layout == open_reset == 0, self.seen


# -- theme change with a selected Recommend row -------------------------------------------------


def test_theme_change_signals_are_paired_and_recolour_the_rows(make_recommend_tab) -> None:
    """A theme change only recolours: dataChanged, never a bare layoutChanged (which left the
    proxy's persistent indexes dangling and crashed the app with a selected row)."""
    from gpuprof.ui.recommend.model import column
    from gpuprof.ui.shell.theme import THEMES

    tab = make_recommend_tab()
    tab.select_preset("llm-100b-train")
    assert tab.run_now() is not None
    tab.table.selectRow(2)
    tab.proxy.setSourceModel(None)  # the model alone: an unpaired signal fails, not crashes
    spy = _ModelSpy(tab.model)
    for name in ("dark", "dark", "light"):  # the theme already on counts too
        tab.apply_theme(THEMES[name])
    spy.assert_paired()
    assert "dataChanged" in spy.seen and "layoutChanged" not in spy.seen
    tab.model.sort(column("cost"))  # a real relayout: announced first
    spy.assert_paired()
    assert spy.seen[-2:] == ["layoutAboutToBeChanged", "layoutChanged"]
    model = tab.model
    muted = [
        r for r in range(model.rowCount()) if not model.is_local(r) and not model.row_at(r).viable
    ]
    assert muted  # a 100B model does not fit everywhere
    brush = model.index(muted[0], column("cost")).data(Qt.ItemDataRole.ForegroundRole)
    assert brush.color().name() == THEMES["light"].muted


@pytest.mark.parametrize("where", ["recommend", "overview"])
@pytest.mark.slow
def test_theme_change_with_a_selected_recommend_row_keeps_the_app_alive(
    make_window, qtbot, where
) -> None:
    """Ctrl+T and View → Light/Dark (even the theme already on), on the Recommend tab or on
    another tab and then back: the selection and its details stay."""
    w = make_window(tab="recommend")
    tab = w.feature("recommend").widget()
    qtbot.waitUntil(lambda: tab.run_count >= 1, timeout=10000)
    tab.table.selectRow(1)
    chosen = tab.selected_row()
    assert chosen is not None
    spy = _ModelSpy(tab.model)
    w.select_tab(where)
    w.action("view.toggle_theme").trigger()
    for action in w.chrome.choices("theme"):  # both, the one already on included
        action.trigger()
    w.action("view.toggle_theme").trigger()
    w.select_tab("recommend")
    qtbot.wait(50)
    spy.assert_paired()
    assert tab.selected_row() is chosen
    assert chosen.reasons[0] in tab.details.toPlainText()
    tab.table.selectRow(3)  # the view still works
    assert tab.selected_row() is not chosen


# -- hovering -----------------------------------------------------------------------------------


def test_hovering_every_plot_fills_the_readout(make_window) -> None:
    """The Host CPU plot has no GPU fields: hovering it raised IndexError on every move."""
    w = make_window(tab="telemetry")
    polls(w, 20)
    w.refresh_visible(force=True)
    tel = w.telemetry
    for key, plot in tel.plots.items():
        tel.readout.setText("")
        centre = plot.item.sceneBoundingRect().center()
        tel._on_mouse_moved((QPointF(centre),))
        text = tel.readout.text()
        assert "@" in text and "</span>" in text, (key, text)  # at least one value
        if key == "host":
            assert "host" in text and "%" in text, text
        if key == "activity":  # no GPM on the fake source: each GPU says why it has no value
            assert "GPU 0</b></span> – (" in text and "GPU 1</b></span> – (" in text, text


# -- replay seeks -------------------------------------------------------------------------------


def _recording(make_window: Any, tmp_path: Path, samples: int) -> Path:
    rec = make_window(FakeSource(1))
    out = tmp_path / f"rec-{samples}.gpuprof"
    rec.feature("recording").start(out)
    polls(rec, samples)
    rec.feature("recording").stop()
    return out


def _assert_samples_in_view(w: Any) -> None:
    """Every plotted point inside the x range, and the newest one drawn at the right edge
    (samples past the edge are not fetched at all: the plots look frozen)."""
    w.refresh_visible(force=True)
    tel = w.telemetry
    host = tel.plots["host"].data.get((-1, "cpu_pct"))
    assert host is not None and host[0].size, "the newest samples are not drawn"
    for key, plot in tel.plots.items():
        lo, hi = plot.item.getViewBox().viewRange()[0]
        for ckey, (xs, _ys) in plot.data.items():
            if xs.size:
                assert lo - 1e-6 <= float(xs.min()) and float(xs.max()) <= hi + 1e-6, (
                    key,
                    ckey,
                    xs.tolist(),
                    (lo, hi),
                )
                assert float(xs.max()) == pytest.approx(0.0, abs=1e-6)  # newest at the edge


@pytest.mark.parametrize("back_s", [1.0, 3.0, 5.0])
@pytest.mark.slow
def test_a_short_seek_back_keeps_new_samples_in_view(make_window, tmp_path, back_s) -> None:
    """A poll that lands after the seek cleared History (the sampler's lock timed out) makes
    History store later samples at its newest time: they must not land past the right edge."""
    from gpuprof.telemetry.sources import ReplaySource

    out = _recording(make_window, tmp_path, 31)
    clock = [0.0]
    w = make_window(ReplaySource(out, clock=lambda: clock[0]), tab="telemetry")
    w.set_time_window(60)
    for c in range(16):
        clock[0] = float(c)
        w.poll_now()
    late = w.state.latest  # polled before the seek, delivered after it
    w.replay_bar.seek(w.source.position_s - back_s)
    w.session.history.append(late)
    for _ in range(4):
        clock[0] += 1.0
        w.poll_now()
        _assert_samples_in_view(w)


@pytest.mark.slow
def test_replaying_a_recording_shorter_than_5_s_twice(make_window, tmp_path) -> None:
    from gpuprof.telemetry.sources import ReplaySource

    out = _recording(make_window, tmp_path, 4)  # 3 s long
    clock = [0.0]
    w = make_window(ReplaySource(out, clock=lambda: clock[0]), tab="telemetry")
    for _ in range(2):
        for _ in range(4):
            w.poll_now()
            clock[0] += 1.0
        w.replay_bar.update_position()  # at the end: pauses itself
        assert not w.replay_bar.playing
        _assert_samples_in_view(w)
        w.replay_bar.set_playing(True)  # from the end: starts over
        assert w.source.position_s == pytest.approx(0.0)
        _assert_samples_in_view(w)


@pytest.mark.parametrize("target", [math.nan, math.inf, -math.inf, "12"])
@pytest.mark.slow
def test_a_seek_to_a_non_number_is_refused_once_and_changes_nothing(
    make_window, tmp_path, target
) -> None:
    from gpuprof.telemetry.sources import ReplaySource

    out = _recording(make_window, tmp_path, 21)
    clock = [5.0]
    src = ReplaySource(out, clock=lambda: clock[0])
    w = make_window(src)
    w.poll_now()
    before, count = src.position_s, len(w.session.history)
    with pytest.raises(ValueError, match="finite number"):
        w.replay_bar.seek(target)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        w.session.seek(target)  # type: ignore[arg-type]
    if not isinstance(target, str):
        with pytest.raises(ValueError):
            src.seek(target)  # the replay source refuses it as well
    assert src.position_s == before and len(w.session.history) == count
    for _ in range(3):  # the redraw timer's ticks: no exception, a position shown
        w._on_redraw_timer()
    assert "/" in w.replay_bar.position.text()


# -- screenshots --------------------------------------------------------------------------------


def _error_boxes(w: Any) -> list[QMessageBox]:
    return [b for b in w.findChildren(QMessageBox) if b.isVisible()]


def _targets(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "a-folder.png"
    folder.mkdir()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    out = {
        "a folder": folder,
        "a missing folder": tmp_path / "no-such-dir" / "s.png",
        "a file as the folder": tmp_path / "file.txt" / "s.png",
    }
    (tmp_path / "file.txt").write_text("x")
    if os.geteuid() != 0:  # root writes anywhere
        out["a read-only folder"] = locked / "s.png"
    return out


def test_a_screenshot_that_cannot_be_written_says_so(make_window, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    w = make_window()
    targets = _targets(tmp_path)
    for what, target in targets.items():
        # As the user does it: File → Save screenshot, a name from the dialog.
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, t=target, **k: (str(t), ""))
        before = len(_error_boxes(w))
        w.action("file.save_window").trigger()
        boxes = _error_boxes(w)
        assert len(boxes) == before + 1, what
        assert str(target) in boxes[-1].text(), (what, boxes[-1].text())
        assert str(target) in w.statusBar().currentMessage()
        assert w.save_screenshot(target, what="tab") is None  # from code: the same, no raise
        assert len(_error_boxes(w)) == before + 2
    assert not (tmp_path / "a-folder.png" / "s.png").exists()
    good = w.save_screenshot(tmp_path / "ok.png")
    assert good is not None and good.read_bytes().startswith(b"\x89PNG")
    assert not list(tmp_path.glob(".ok.png.*"))  # written atomically: no temporary left


@pytest.mark.slow
def test_cli_screenshot_onto_a_folder_is_one_clear_error(tmp_path) -> None:
    (tmp_path / "shot.png").mkdir()
    ran = run_gpuprof(["--demo", "--screenshot", "shot.png", "--after", "0"], tmp_path)
    assert ran.returncode != 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    errors = [line for line in ran.error_lines if "error" in line.lower()]
    assert len(errors) == 1 and "shot.png" in errors[0], ran.stderr[-2000:]


# -- menu and toolbar agree ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_interval_menu_and_the_toolbar_combo_agree(make_window) -> None:
    w = make_window()
    combo = w.chrome.interval_combo
    for action in w.chrome.choices("interval"):  # View → Sampling interval
        action.trigger()
        assert combo.currentData() == pytest.approx(action.data())
        assert w.interval_s == pytest.approx(action.data())
    combo.setCurrentIndex(combo.findData(0.5))  # and the other way round
    checked = [a.data() for a in w.chrome.choices("interval") if a.isChecked()]
    assert checked == [0.5] and w.settings.interval_s == 0.5


# -- throttle band axis -------------------------------------------------------------------------


@pytest.mark.parametrize("n_gpus", [1, 2])
@pytest.mark.slow
def test_throttle_band_axis_has_no_si_prefix(make_window, n_gpus) -> None:
    w = make_window(FakeSource(n_gpus), tab="telemetry")
    polls(w, 5)
    w.refresh_visible(force=True)
    label = w.telemetry.band.getAxis("left").labelString()
    assert "GPU" in label and "x0." not in label and "(x" not in label, label


# -- the report dialog --------------------------------------------------------------------------


def _luminance(colour: Any) -> float:
    return 0.2126 * colour.redF() + 0.7152 * colour.greenF() + 0.0722 * colour.blueF()


def test_report_preview_is_readable_in_the_dark_theme(make_window, qtbot) -> None:
    w = make_window()
    polls(w, 5)
    w.apply_theme("dark")
    w.action("file.export_report").trigger()
    dialog = w.feature("report").dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    pal = dialog.preview.palette()
    paper, ink = pal.color(pal.ColorRole.Base), pal.color(pal.ColorRole.Text)
    assert _luminance(paper) - _luminance(ink) > 0.6  # dark ink on light paper
    image = dialog.preview.viewport().grab().toImage()
    corner = image.pixelColor(image.width() - 3, image.height() - 3)
    assert _luminance(corner) > 0.9, corner.name()
    dialog.reject()


def test_the_report_dialog_keeps_no_history_and_one_dialog(make_window, qtbot) -> None:
    from gpuprof.ui.report.dialog import ReportDialog

    w = make_window()
    polls(w, 5)
    for _ in range(3):
        w.action("file.export_report").trigger()
        w.feature("report").dialog.reject()
        qtbot.wait(10)
    # The earlier dialogs are deleted (deleteLater), not kept as children of the window.
    qtbot.waitUntil(lambda: len(w.findChildren(ReportDialog)) == 1, timeout=2000)
    assert w.findChildren(ReportDialog)[0] is w.feature("report").dialog
    from collections import deque

    from gpuprof.telemetry.model import Snapshot

    # No buffer of snapshots beside the session's History.
    for owner in (w, w.feature("report").dialog):
        for name, value in vars(owner).items():
            if isinstance(value, (list, tuple, deque)):
                assert not any(isinstance(v, Snapshot) for v in value), name
