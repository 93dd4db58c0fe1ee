"""Every tab's layout in the window ``gpuprof --demo --screenshot … --tab TAB`` renders.

A screenshot that is written is not a screenshot that looks right: every --demo window and
screenshot once showed empty Telemetry plots (the demo's history, merged in after the first
frames, was never drawn), and the Recommend tab a ~370 px blank band, while every test passed.
These tests build the window the way the CLI's ``--screenshot`` does (its parser and
``build_window``: the SIMULATED demo with its history made in the background), grab the image
``take_screenshot`` saves, and measure it: no band of one colour across a tab, the main content
takes the tab's height, and the plots and sparklines have something drawn across them.
The Recommend tab has its own tests (test_ui_recommend_layout.py, whose helpers these reuse).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_ui_recommend_layout import MAX_GAP_PX, vertical_gaps

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

#: Share of a plot's width (or a sparkline's) that must have a curve drawn on it: the demo's
#: history covers the whole 10-minute window.
MIN_DRAWN_SHARE = 0.8


def _wait(until: Any, timeout_s: float) -> None:
    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + timeout_s
    while not until():
        assert time.monotonic() < end, "the demo window did not fill in time"
        QApplication.processEvents()
        time.sleep(0.02)


@pytest.fixture(scope="module")
def demo_window(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The window of ``gpuprof --demo --screenshot``, at its default size, with its history."""
    from gpuprof.ui.shell.app import build_window
    from gpuprof.ui.shell.settings import UiSettings

    from gpuprof.cli import build_parser

    # Opened on the Telemetry tab, as ``--screenshot --tab telemetry`` is: its plots draw the
    # live seconds before the demo's history is merged in behind them.
    args = build_parser().parse_args(["--demo", "--interval", "1", "--tab", "telemetry"])
    ini = tmp_path_factory.mktemp("layout") / "ui.ini"
    w = build_window(args, settings=UiSettings(Path(ini)))
    w.resize(1600, 1000)
    w.show()
    _wait(lambda: w.state.latest is not None and not w.prefill_pending, 60.0)
    try:
        yield w
    finally:
        w.close()


def _show(w: Any, name: str) -> Any:
    """Select tab ``name``; its widget, once the window has settled and drawn a frame."""
    from PySide6.QtWidgets import QApplication

    w.select_tab(name)
    for _ in range(5):
        QApplication.processEvents()
    w.grab_image("window")  # one frame drawn (caches warmed) before the one measured
    return w.tabs.currentWidget()


def _pixels(image: Any) -> Any:
    """``image`` (QPixmap or QImage) as an (height, width) numpy array of 0xAARRGGBB."""
    import numpy as np
    from PySide6.QtGui import QImage

    img = image.toImage() if hasattr(image, "toImage") else image
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    row = img.bytesPerLine() // 4
    data = np.frombuffer(bytes(img.constBits()), dtype=np.uint32)
    return data.reshape(img.height(), row)[:, : img.width()].copy()


def _rect_in_window(widget: Any, w: Any) -> tuple[int, int, int, int]:
    from PySide6.QtCore import QPoint

    top_left = widget.mapTo(w, QPoint(0, 0))
    return top_left.x(), top_left.y(), widget.width(), widget.height()


def longest_blank_band(pixels: Any) -> int:
    """The most consecutive rows of ``pixels`` that are one colour across, px."""
    longest = run = 0
    for row in pixels:
        run = run + 1 if (row == row[0]).all() else 0
        longest = max(longest, run)
    return longest


def drawn_share(with_curves: Any, without: Any) -> float:
    """Share of the columns in which the two renders of one area differ (what the curves drew)."""
    return float((with_curves != without).any(axis=0).mean())


def _tab_pixels(w: Any, tab: Any) -> Any:
    x, y, width, height = _rect_in_window(tab, w)
    return _pixels(w.grab_image("window"))[y : y + height, x : x + width]


def _layout_widgets(layout: Any) -> list[Any]:
    """The visible widgets ``layout`` and its nested layouts hold (not their children)."""
    found = []
    for n in range(layout.count()):
        item = layout.itemAt(n)
        if item.widget() is not None and item.widget().isVisible():
            found.append(item.widget())
        elif item.layout() is not None:
            found.extend(_layout_widgets(item.layout()))
    return found


def _assert_fills(tab: Any, shown: list[Any], main: Any, share: float) -> None:
    assert all(x.isVisible() for x in shown), [x for x in shown if not x.isVisible()]
    gaps = vertical_gaps(tab, shown)
    assert not gaps or gaps[0][0] <= MAX_GAP_PX, gaps
    assert main.height() >= share * tab.height(), (main.height(), tab.height())
    assert main.width() >= 0.95 * tab.width() - 20, (main.width(), tab.width())


def test_telemetry_plots_are_drawn_across_the_window(demo_window: Any) -> None:
    """Every plot of the --demo Telemetry tab has its curves across the 10-minute window (they
    were empty but for the live seconds), and the plots take the tab's height."""
    from PySide6.QtWidgets import QApplication

    w = demo_window
    tab = _show(w, "telemetry")
    assert (w.width(), w.height()) == (1600, 1000)
    shown = [tab.all_button, tab.readout, tab.view, tab.band_legend]
    _assert_fills(tab, shown, tab.view, 0.85)
    # The readout's line stays free for the values under the mouse (empty without one).
    readout_px = tab.readout.height() + 2 * tab.layout().spacing()
    assert longest_blank_band(_tab_pixels(w, tab)) <= max(MAX_GAP_PX, readout_px)

    view = tab.view
    for key, panel in tab.plots.items():
        assert panel.item.isVisible(), key
        box = panel.item.getViewBox().sceneBoundingRect().toRect()
        assert box.width() > 300 and box.height() > 40, (key, box)
        top_left = view.viewport().mapTo(w, view.mapFromScene(box.topLeft()))
        x, y = top_left.x(), top_left.y()  # a curve at 0 runs along the box's lower edge
        area = (slice(y, y + box.height() + 1), slice(x, x + box.width()))
        drawn = _pixels(w.grab_image("window"))[area]
        panel.layer.hide()
        QApplication.processEvents()
        try:
            bare = _pixels(w.grab_image("window"))[area]
        finally:
            panel.layer.show()
        assert drawn_share(drawn, bare) >= MIN_DRAWN_SHARE, key


def test_overview_cards_fill_the_width_and_their_sparklines_are_drawn(demo_window: Any) -> None:
    w = demo_window
    tab = _show(w, "overview")
    cards = [tab.cards[i] for i in sorted(tab.cards)]
    assert len(cards) == 8 and tab.host_card.isVisible()
    assert all(c.isVisible() for c in cards)
    # Four columns at the default size, spanning the tab.
    first_row = [c for c in cards if c.y() == cards[0].y()]
    assert len(first_row) == 4
    left = first_row[0].mapTo(tab, first_row[0].rect().topLeft()).x()
    right = first_row[-1].mapTo(tab, first_row[-1].rect().topRight()).x()
    assert right - left >= 0.95 * tab.width() - 30, (left, right, tab.width())
    image = _pixels(w.grab_image("window"))
    for card in [*cards, tab.host_card]:
        x, y, width, height = _rect_in_window(card.spark, w)
        inner = image[y + 3 : y + height - 3, x + 2 : x + width - 2]
        # An empty sparkline is its background only; a drawn one has its line and fill.
        columns = [len(set(col.tolist())) > 1 for col in inner.T]
        assert sum(columns) >= MIN_DRAWN_SHARE * len(columns), card


@pytest.mark.parametrize("name", ["processes", "topology", "health", "benchmarks", "check"])
def test_tab_content_fills_the_tab_with_no_blank_band(demo_window: Any, name: str) -> None:
    w = demo_window
    tab = _show(w, name)
    if name == "processes":
        # Nothing selected: the chart is its one-line hint, the table takes the height (the
        # empty chart's pane was a ~380 px blank band over the lower half of the tab).
        split = tab.table.parentWidget()
        assert tab.selected_process() is None
        _assert_fills(tab, [tab.filter, tab.table, tab.chart], split, 0.85)
        assert tab.table.height() >= 0.8 * tab.height()
        assert tab.chart.height() <= 2 * tab.chart.title.sizeHint().height()
    elif name == "topology":
        top, bottom = tab.matrix.parentWidget(), tab.details.parentWidget()
        splitter = bottom.parentWidget()
        _assert_fills(tab, [tab.system_label, top, bottom], splitter, 0.85)
        assert tab.details.height() >= 0.3 * tab.height()
        assert tab.matrix.height() >= 0.2 * tab.height()
    elif name == "health":
        # Findings (the list beside what each means) or the all-clear page, as the live demo
        # has it: either fills the tab.
        _assert_fills(tab, [tab.summary_label, tab.stack], tab.stack, 0.85)
        page = tab.stack.currentWidget()
        assert page in (tab.splitter, tab.clear_page)
        assert page.height() >= 0.95 * tab.stack.height()
        if page is tab.splitter:
            assert tab.table.isVisible() and tab.details.isVisible()
            assert min(tab.table.width(), tab.details.width()) >= 0.3 * tab.width()
    elif name == "benchmarks":
        _assert_fills(tab, _layout_widgets(tab.main_page.layout()), tab.splitter, 0.75)
    else:
        _assert_fills(tab, _layout_widgets(tab.layout()), tab.scorecard, 0.75)
    assert longest_blank_band(_tab_pixels(w, tab)) <= MAX_GAP_PX


def test_a_selected_process_opens_its_chart_and_closing_it_gives_the_table_back(
    demo_window: Any,
) -> None:
    from PySide6.QtWidgets import QApplication

    w = demo_window
    tab = _show(w, "processes")
    first = tab.model.processes[0]
    assert tab.select_pid(first.pid, first.gpu_index)
    QApplication.processEvents()
    try:
        assert tab.chart.memory.isVisible() and tab.chart.activity.isVisible()
        assert tab.chart.height() >= 0.3 * tab.height()
        assert tab.table.height() >= 0.3 * tab.height()
        assert longest_blank_band(_tab_pixels(w, tab)) <= MAX_GAP_PX
        # The user's split is kept for the next process.
        split = tab.table.parentWidget()
        total = sum(split.sizes())
        split.setSizes([total // 4, total - total // 4])
        chosen = split.sizes()
        tab.table.clearSelection()
        QApplication.processEvents()
        assert tab.table.height() >= 0.8 * tab.height()
        assert tab.select_pid(first.pid, first.gpu_index)
        QApplication.processEvents()
        assert split.sizes() == chosen
    finally:
        tab.table.clearSelection()
        QApplication.processEvents()
