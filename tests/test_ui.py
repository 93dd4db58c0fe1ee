"""The main window driven with qtbot: tabs, plots, processes, banner, settings, recording, replay."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from gpuprof.errors import GpuprofError
from gpuprof.telemetry.model import SourceKind, SourceStatus
from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls

# The offscreen platform plugin warns whenever a top-level window gets size constraints; it is
# a limitation of the plugin, not of the app (a real display never prints it).
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _telemetry_shown(w: Any, n: int) -> Any:
    """The window ``w`` after ``n`` polls, on its Telemetry tab, the plots drawn."""
    polls(w, n)
    w.select_tab("telemetry")
    w.telemetry.refresh(force=True)
    return w


@pytest.mark.parametrize("n_gpus", [0, 1, 8])
@pytest.mark.slow
def test_window_opens_with_0_1_8_gpus(make_window, n_gpus):
    src = FakeSource(n_gpus)
    w = make_window(src)
    polls(w, 3)
    w.refresh_visible(force=True)
    assert sorted(w.overview.cards) == list(range(n_gpus))
    assert w.overview.host_card.cpu.text() == "25%"
    if n_gpus == 0:
        assert w.banner.isVisible()
        assert "No NVIDIA GPU" in w.banner.text()
        assert w.overview.no_gpu.isVisible()
    else:
        assert not w.banner.isVisible()
        card = w.overview.cards[n_gpus - 1]
        assert "H100" in card.title.text()
        assert card.mem.text() == f"{10 + n_gpus - 1}.0 GiB / 80.0 GiB"
        last = src.gpu(n_gpus - 1)  # what the last poll delivered
        assert card.power.fraction() == pytest.approx(last.power_w / last.power_limit_w)
    # Every tab draws without error with this many GPUs.
    for name in w.tab_names:
        w.select_tab(name)
        w.refresh_visible(force=True)
    assert "SIMULATED" in w.windowTitle()
    assert w.source_badge.text() == "SIMULATED" and w.source_badge.isVisible()


@pytest.mark.slow
def test_curves_receive_history_data(make_window):
    src = FakeSource(2)
    w = _telemetry_shown(make_window(src), 40)
    x, y = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert len(x) == 40
    assert x[-1] == 0.0 and x[0] == pytest.approx(-39.0)
    assert y[-1] == src.gpu(0).util_gpu_pct == 80.0
    curve = w.telemetry.plots["power"].curves[(1, "power_w")]
    _, cy = curve.getData()
    assert cy[-1] == pytest.approx(300.0 + 10 + src.step)
    # The limit line is drawn at the enforced limit, the slowdown line at the device threshold.
    assert w.telemetry.plots["power"].line_values == (700.0,)
    assert w.telemetry.plots["temp"].line_values == (87.0,)


@pytest.mark.slow
def test_gpu_selection_changes_what_is_drawn(make_window, settings):
    w = _telemetry_shown(make_window(n_gpus=3), 10)
    assert (1, "util_gpu_pct") in w.telemetry.plots["util"].data
    w.telemetry.gpu_checks[1].setChecked(False)
    assert w.state.selected_gpus == {0, 2}
    assert settings.selected_gpus == {0, 2}
    plot = w.telemetry.plots["util"]
    assert (1, "util_gpu_pct") not in plot.data
    assert not plot.curves[(1, "util_gpu_pct")].isVisible()
    assert plot.curves[(0, "util_gpu_pct")].isVisible()
    assert w.telemetry.band.getAxis("left")._tickLevels[0] == [(0, "0"), (1, "2")]
    w.telemetry.all_button.click()
    assert w.state.selected_gpus is None
    assert (1, "util_gpu_pct") in w.telemetry.plots["util"].data


@pytest.mark.slow
def test_time_window_changes_what_is_drawn(make_window):
    w = make_window(n_gpus=1)
    polls(w, 300)
    w.select_tab("telemetry")
    w.set_time_window(60)
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert x.min() >= -60.0 and len(x) <= 61
    assert w.telemetry.plots["util"].item.getViewBox().viewRange()[0] == pytest.approx([-60, 0])
    w.set_time_window(0)  # all
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert x.min() == pytest.approx(-299.0)
    assert w.telemetry.window_combo.currentData() == 0
    w.telemetry.window_combo.setCurrentIndex(w.telemetry.window_combo.findData(600))
    assert w.state.time_window_s == 600
    with pytest.raises(ValueError):
        w.set_time_window(42)


@pytest.mark.slow
def test_plots_get_about_two_points_per_pixel_column(make_window):
    w = make_window(FakeSource(1, dt_s=0.1))
    polls(w, 6000)
    w.select_tab("telemetry")
    w.set_time_window(600)
    w.telemetry.refresh(force=True)
    width = w.telemetry._plot_width_px()
    x, y = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert 0 < len(x) <= 2 * width
    # Min/max decimation keeps the extremes of the sawtooth.
    assert np.nanmax(y) >= 90 and np.nanmin(y) <= 10


@pytest.mark.slow
def test_pause_freezes_the_plots(make_window):
    w = _telemetry_shown(make_window(n_gpus=1), 10)
    w.telemetry.pause_button.click()
    assert w.state.paused and w.action("view.pause").isChecked()
    frozen = w.telemetry.plots["util"].data[(0, "util_gpu_pct")][0].copy()
    polls(w, 5)
    w._on_redraw_timer()
    assert np.array_equal(w.telemetry.plots["util"].data[(0, "util_gpu_pct")][0], frozen)
    w.action("view.pause").trigger()
    assert not w.state.paused
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert len(x) == 15


@pytest.mark.slow
def test_crosshair_lists_values_under_the_cursor(make_window):
    w = _telemetry_shown(make_window(n_gpus=2), 20)
    text = w.telemetry.show_values_at(0.0, "power")
    assert "GPU 0" in text and "GPU 1" in text and " W" in text
    assert w.telemetry.plots["util"].crosshair.isVisible()
    assert w.telemetry.plots["util"].crosshair.value() == 0.0


@pytest.mark.slow
def test_throttle_band_shows_episodes(make_window):
    src = FakeSource(2)
    w = make_window(src)
    polls(w, 5)
    src.throttled = {1: ("sw_power_cap",)}
    polls(w, 5)
    src.throttled = {}
    polls(w, 3)
    w.select_tab("telemetry")
    w.telemetry.refresh(force=True)
    assert w.telemetry.throttle_bar_count == 1
    assert "sw_power_cap" in w.telemetry.band_legend.text()


@pytest.mark.slow
def test_process_table_sorts_and_filters(make_window):
    w = make_window(n_gpus=2)
    polls(w, 1)
    w.select_tab("processes")
    tab = w.processes
    tab.refresh(force=True)
    proxy = tab.proxy
    assert proxy.rowCount() == 3
    pid = lambda row: proxy.index(row, 0).data()  # noqa: E731
    tab.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)  # GPU memory
    assert [pid(r) for r in range(3)] == ["4242", "777", "1001"]
    tab.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # pid, numerically
    assert [pid(r) for r in range(3)] == ["777", "1001", "4242"]
    tab.filter.setText("ALICE")
    assert proxy.rowCount() == 1 and pid(0) == "4242"
    cmd = proxy.index(0, 12)  # command line
    assert cmd.data(Qt.ItemDataRole.ToolTipRole).endswith("x" * 200)
    assert tab.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    tab.filter.setText("vllm")
    assert proxy.rowCount() == 1 and pid(0) == "777"
    tab.filter.clear()
    polls(w, 1)  # same processes: updated in place, sorting kept
    tab.refresh()
    assert [pid(r) for r in range(3)] == ["777", "1001", "4242"]


def test_gpu_lost_shows_banner_while_others_keep_updating(make_window):
    src = FakeSource(3)
    w = make_window(src)
    polls(w, 2)
    w.refresh_visible(force=True)
    assert not w.banner.isVisible()
    src.lost = {1}
    polls(w, 1)
    w.refresh_visible(force=True)
    assert w.banner.isVisible()
    assert "GPU 1 lost" in w.banner.text() and "Hint:" in w.banner.text()
    assert w.banner.property("severity") == "error"
    cards = w.overview.cards
    assert not cards[1].isEnabled() and cards[1].lost_badge.text() == "LOST"
    before = cards[0].power.text()
    polls(w, 1)
    w.refresh_visible(force=True)
    assert cards[0].isEnabled() and cards[0].power.text() != before
    assert cards[2].isEnabled()


@pytest.mark.slow
def test_no_process_permission_banner(make_window):
    src = FakeSource(1)
    src.status_override = SourceStatus(process_info_permitted=False)
    w = make_window(src)
    polls(w, 1)
    assert w.banner.isVisible() and "permission" in w.banner.text()
    w.banner.close_button.click()
    polls(w, 1)
    assert not w.banner.isVisible()  # dismissed until the state changes


def test_recording_writes_a_session_that_replays(make_window, tmp_path):
    from gpuprof.telemetry.store import SessionStore

    w = make_window(n_gpus=2)
    out = tmp_path / "run.gpuprof"
    assert w.feature("recording").start(out) == out
    assert w.action("file.record").isChecked() and w.feature("recording").label.isVisible()
    polls(w, 5)
    assert w.feature("recording").stop() == out
    assert not w.action("file.record").isChecked() and not w.feature("recording").label.isVisible()
    with SessionStore.open(out) as store:
        assert store.count() == 5
    w.open_recording(out)
    assert w.source.kind is SourceKind.REPLAY
    assert w.replay_bar.isVisible() and "REPLAY" in w.windowTitle()
    # A recording of the demo plays back as what it is: simulated data never passes for real.
    assert "SIMULATED" in w.windowTitle()
    snap = w.poll_now()
    assert snap.source is SourceKind.SIMULATED and len(snap.gpus) == 2
    w.refresh_visible(force=True)
    assert sorted(w.overview.cards) == [0, 1]


@pytest.mark.slow
def test_replay_slider_seeks(make_window, tmp_path):
    from gpuprof.telemetry.sources import ReplaySource

    rec = make_window(FakeSource(1))
    out = tmp_path / "long.gpuprof"
    rec.feature("recording").start(out)
    polls(rec, 101)  # 100 s long
    rec.feature("recording").stop()
    first_t = 1.7e9 + 1.0
    w = make_window(ReplaySource(out))
    w.replay_bar.slider.setValue(500)
    w.replay_bar._seek_to_slider()
    assert w.source.position_s == pytest.approx(50.0, abs=2.0)
    snap = w.poll_now()
    assert snap.time_s - first_t == pytest.approx(50.0, abs=2.0)
    w.replay_bar.seek(90.0)
    assert w.replay_bar.slider.value() == pytest.approx(900, abs=20)
    assert "1m 30s" in w.replay_bar.position.text()


@pytest.mark.slow
def test_dragging_the_replay_slider_seeks_once_on_release(make_window, tmp_path, qtbot):
    """Qt reports slider actions as ints: a drag (SliderMove) must not seek at every step."""
    from PySide6.QtWidgets import QSlider

    from gpuprof.telemetry.sources import ReplaySource

    rec = make_window(FakeSource(1))
    out = tmp_path / "drag.gpuprof"
    rec.feature("recording").start(out)
    polls(rec, 21)
    rec.feature("recording").stop()
    w = make_window(ReplaySource(out))
    seeks: list[float] = []
    w.replay_bar.seeked.connect(seeks.append)
    slider = w.replay_bar.slider
    slider.setSliderDown(True)
    for value in (100, 200, 300):
        slider.setSliderPosition(value)
        slider.triggerAction(QSlider.SliderAction.SliderMove)
    qtbot.wait(20)
    assert seeks == []  # dragging: no seek yet
    slider.setSliderDown(False)  # release
    qtbot.waitUntil(lambda: len(seeks) == 1, timeout=2000)
    assert seeks[0] == pytest.approx(20.0 * slider.value() / 1000, abs=0.5)
    slider.triggerAction(QSlider.SliderAction.SliderPageStepAdd)  # a click beside the handle
    qtbot.waitUntil(lambda: len(seeks) == 2, timeout=2000)


@pytest.mark.slow
def test_replay_play_pause_speed_and_stop_at_the_end(make_window, tmp_path, settings, qtbot):
    from gpuprof.telemetry.sources import ReplaySource

    rec = make_window(FakeSource(1))
    out = tmp_path / "short.gpuprof"
    rec.feature("recording").start(out)
    polls(rec, 11)  # 10 s long
    rec.feature("recording").stop()
    clock = [0.0]
    src = ReplaySource(out, clock=lambda: clock[0])
    w = make_window(src)
    assert w.replay_bar.play_action.isEnabled() and w.replay_bar.playing
    assert not rec.replay_bar.play_action.isEnabled()  # a live source has nothing to play

    # Speed: the combo sets the source's pace and is remembered for the next replay.
    w.replay_bar.speed_combo.setCurrentIndex(w.replay_bar.speed_combo.findData(2.0))
    assert src.speed == 2.0 and settings.replay_speed == 2.0
    clock[0] = 2.0
    assert src.position_s == pytest.approx(4.0)

    # Space pauses: the position and the sampler's schedule stand still.
    qtbot.keyClick(w, Qt.Key.Key_Space)
    assert not w.replay_bar.playing and src.paused and w.sampler.paused
    assert w.replay_bar.play_action.text() == "Play replay"
    clock[0] = 5.0
    assert src.position_s == pytest.approx(4.0)
    # A seek while paused shows the new position at once.
    before = w.snapshot_count
    w.replay_bar.seek(7.0)
    qtbot.waitUntil(lambda: w.snapshot_count > before, timeout=2000)
    assert w.state.latest.time_s == pytest.approx(1.7e9 + 1.0 + 7.0, abs=1.0)

    # Space plays again; at the end the replay pauses itself instead of repeating the last sample.
    qtbot.keyClick(w, Qt.Key.Key_Space)
    assert w.replay_bar.playing and not w.sampler.paused
    clock[0] = 10.0  # 7 s + 5 s × 2 > 10 s long
    w.replay_bar.update_position()
    assert not w.replay_bar.playing and "(end)" in w.replay_bar.position.text()
    # Play at the end starts over.
    w.replay_bar.set_playing(True)
    assert w.replay_bar.playing and src.position_s == pytest.approx(0.0)

    w2 = make_window(ReplaySource(out))
    assert w2.source.speed == 2.0 and w2.replay_bar.speed_combo.currentData() == 2.0


@pytest.mark.slow
def test_settings_round_trip(make_window, settings, qtbot):
    w = make_window(n_gpus=3, size=(780, 560))  # within the 800×800 offscreen screen
    polls(w, 2)
    w.apply_theme("dark")
    w.set_interval(0.5)
    w.set_time_window(3600)
    w.set_selected_gpus({0, 2})
    w.select_tab("processes")
    saved_size = w.size()
    w.close()
    from gpuprof.ui.shell.settings import UiSettings

    again = UiSettings(settings.path)
    assert (again.theme, again.interval_s, again.time_window_s) == ("dark", 0.5, 3600)
    assert again.selected_gpus == {0, 2} and again.tab == "processes"
    assert again.geometry is not None
    w2 = make_window(n_gpus=3, ui_settings=again, size=None)  # no resize: the saved geometry
    assert w2.current_tab_name() == "processes"
    assert w2.theme.name == "dark" and w2.interval_s == 0.5
    assert w2.sampler.interval_s == 0.5
    assert w2.state.time_window_s == 3600 and w2.state.selected_gpus == {0, 2}
    assert w2.telemetry.window_combo.currentData() == 3600
    assert w2.size() == saved_size  # restored, not the 1600×1000 of a window without geometry


@pytest.mark.slow
def test_interval_and_theme_menus(make_window):
    w = make_window(n_gpus=1)
    action = next(a for a in w.chrome.choices("interval") if a.data() == 2.0)
    action.trigger()
    assert w.sampler.interval_s == 2.0 and "2 s" in w.interval_label.text()
    w.action("view.toggle_theme").trigger()
    assert w.theme.name == "dark"
    assert w.telemetry.view.backgroundBrush().color().name() == "#16191d"
    w.action("view.toggle_theme").trigger()
    assert w.theme.name == "light"


def test_every_action_and_control_has_a_tooltip(make_window):
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit, QSlider

    w = make_window(n_gpus=2)
    polls(w, 1)
    for action in w.menuBar().actions():
        for sub in action.menu().actions():
            if not sub.isSeparator() and sub.menu() is None:
                assert sub.toolTip() and sub.toolTip() != sub.text().replace("&", ""), sub.text()
    controls = [
        c for cls in (QAbstractButton, QComboBox, QLineEdit, QSlider) for c in w.findChildren(cls)
    ]
    missing = [
        c
        for c in controls
        if not c.toolTip()
        and c.parent() is not None
        and type(c).__name__ not in ("QToolButton",)  # toolbar buttons show the action's
        and not c.objectName().startswith("qt_")
    ]
    assert not missing, [type(c).__name__ + ":" + getattr(c, "text", lambda: "")() for c in missing]


def test_select_tab_rejects_unknown_names(make_window):
    w = make_window(n_gpus=1)
    w.select_tab("topo")
    assert w.current_tab_name() == "topology"
    with pytest.raises(GpuprofError, match="unknown tab"):
        w.select_tab("nonsense")


def test_added_tab_refreshes_only_while_visible(make_window):
    class Probe(QWidget):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def refresh(self, force=False):
            self.calls += 1

    w = make_window(n_gpus=1)
    probe = Probe()
    w.add_tab(probe, "probe", "Probe")
    w.select_tab("overview")
    w._on_redraw_timer()
    assert probe.calls == 0
    w.select_tab("probe")
    w._on_redraw_timer()
    assert probe.calls >= 1
    with pytest.raises(ValueError):
        w.add_tab(QWidget(), "probe", "again")


def test_topology_tab_shows_matrix_and_details(make_window):
    w = make_window(n_gpus=4)
    w.select_tab("topology")
    w.refresh_visible(force=True)
    m = w.topology.matrix
    assert (m.rowCount(), m.columnCount()) == (4, 4)
    assert m.item(0, 0).text() == "X" and m.item(0, 3).text() == "NV18"
    assert "18 NVLinks" in m.item(0, 3).toolTip()
    d = w.topology.details
    assert d.columnCount() == 4
    assert "Driver 550.54.15" in w.topology.system_label.text()


def test_screenshot_of_window_and_tab(make_window, tmp_path):
    from PySide6.QtGui import QImage

    w = make_window(n_gpus=2, size=(1000, 700))
    polls(w, 5)
    out = w.save_screenshot(tmp_path / "w.png", what="window")
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1000, 700)
    tab = w.save_screenshot(tmp_path / "t.png", what="tab")
    assert QImage(str(tab)).height() < 700


def test_hanging_source_never_freezes_the_window(make_window, qtbot):
    """The real Sampler polls in its thread: a blocked poll leaves the GUI timer running."""
    from gpuprof.telemetry.sampler import Sampler

    gate = threading.Event()
    src = FakeSource(2, block=gate)

    def factory(source, interval_s, history):
        return Sampler(source, interval_s=0.1, history=history)

    w = make_window(src, sampler_factory=factory)
    try:
        start = w.tick_count
        qtbot.waitUntil(lambda: w.tick_count >= start + 5, timeout=5000)
        assert w.snapshot_count == 0
    finally:
        gate.set()
    qtbot.waitUntil(lambda: w.snapshot_count >= 2, timeout=5000)
    assert w.state.latest is not None and len(w.state.latest.gpus) == 2


@pytest.mark.slow
def test_demo_source_through_the_real_sampler(make_window, qtbot):
    from gpuprof.ui.shell.app import demo_source

    from gpuprof.telemetry.sampler import Sampler

    src, make_past = demo_source(prefill_s=60)

    def factory(source, interval_s, history):
        return Sampler(source, interval_s=0.1, history=history)

    w = make_window(src, sampler_factory=factory)
    w.prefill_async(make_past)
    qtbot.waitUntil(lambda: not w.prefill_pending, timeout=20000)
    n = w.snapshot_count
    qtbot.waitUntil(lambda: w.snapshot_count >= n + 3, timeout=5000)
    # The past and the live samples are in one History, in order, and the sampler feeds it.
    assert w.sampler.history is w.state.history
    assert len(w.state.history) >= 30 + 3
    t = w.state.history.gpu_series(0, "util_gpu_pct")[0]
    assert np.all(np.diff(t) >= 0)
    assert "SIMULATED" in w.windowTitle() and w.source_badge.text() == "SIMULATED"
    w.select_tab("telemetry")
    w.telemetry.refresh(force=True)
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert x.min() < -55


def test_a_recording_that_fails_to_write_is_shown_and_kept(make_window, tmp_path):
    import sqlite3

    w = make_window(FakeSource(1))
    out = w.feature("recording").start(tmp_path / "full.gpuprof")
    polls(w, 2)
    assert w.feature("recording").label.isVisible()

    def full(_snap):
        raise sqlite3.OperationalError("database or disk is full")

    w.session.recording.store.append = full
    polls(w, 1)
    assert not w.feature("recording").label.isVisible() and not w.action("file.record").isChecked()
    assert "Recording stopped: OperationalError: database or disk is full" in (
        w.statusBar().currentMessage()
    )
    from gpuprof.telemetry.store import SessionStore

    with SessionStore.open(out) as store:
        assert store.count() == 2


def test_topology_elides_uuids_in_the_middle_so_gpus_read_apart(make_window):
    """The demo's UUIDs differ only at the end: elided at the end they all read alike."""
    from PySide6.QtGui import QFontMetrics

    from gpuprof.telemetry.sources import SimulatedSource

    w = make_window(SimulatedSource("h100x8"))  # 8 GPUs at the default 1600×1000
    w.select_tab("topology")
    w.refresh_visible(force=True)
    d = w.topology.details
    row = next(r for r in range(d.rowCount()) if d.verticalHeaderItem(r).text() == "UUID")
    uuids = [d.item(row, c).text() for c in range(d.columnCount())]
    assert len(set(uuids)) == 8 and uuids[0][:30] == uuids[1][:30]
    assert [d.item(row, c).toolTip() for c in range(8)] == uuids  # the tooltip keeps it whole
    # Two cells of the same width: too narrow for the whole UUID, so the text is elided.
    c0, c1 = next((a, a + 1) for a in range(7) if d.columnWidth(a) == d.columnWidth(a + 1))
    rects = [d.visualItemRect(d.item(row, c)) for c in (c0, c1)]
    assert QFontMetrics(d.font()).horizontalAdvance(uuids[c0]) > rects[0].width()
    shots = [d.viewport().grab(r).toImage() for r in rects]
    assert shots[0].size() == shots[1].size()
    assert shots[0] != shots[1]  # the differing ends stay visible
