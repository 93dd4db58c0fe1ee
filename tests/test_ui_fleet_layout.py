"""The Fleet tab's layout at the window's default size, against a real Prometheus scraping two
demo exporters and a dcgm-exporter page: the grid and findings take the height, and the
drill-down's pane is its one-line hint until a node is chosen (its empty plots' pane was a
~70 px blank band above the status line). Helpers from test_ui_tab_layouts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.prometheus_fixture import DCGM_HOST, Fleet, start_fleet
from tests.test_ui_recommend_layout import MAX_GAP_PX, vertical_gaps
from tests.test_ui_tab_layouts import _tab_pixels, longest_blank_band

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    with start_fleet(tmp_path_factory.mktemp("fleet-layout")) as running:
        yield running


@pytest.mark.slow
def test_fleet_tab_layout_before_and_after_a_drill_down(
    make_window: Any, qtbot: Any, fleet: Fleet
) -> None:
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    w = make_window(size=None)  # the window's own default size
    assert (w.width(), w.height()) == (1600, 1000)
    tab = open_fleet(w, PrometheusClient(fleet.url, timeout_s=10.0))
    qtbot.waitUntil(lambda: tab.fleet is not None and not tab.pending, timeout=20000)
    qtbot.wait(50)
    shown = [tab.metric_combo, tab.legend, tab.grid, tab.drill_title, tab.status]
    gaps = vertical_gaps(tab, shown)
    assert not gaps or gaps[0][0] <= MAX_GAP_PX, gaps
    assert tab.grid.height() >= 0.75 * tab.height()
    assert not tab.drill.isVisible()
    assert longest_blank_band(_tab_pixels(w, tab)) <= MAX_GAP_PX

    # A node chosen: its plots get their share of the height.
    tab.drill_node(("dcgm", DCGM_HOST))
    qtbot.waitUntil(lambda: not tab.drill_pending and tab.drill.isVisible(), timeout=20000)
    assert tab.drill.height() >= 0.3 * tab.height()
    assert tab.grid.height() >= 0.3 * tab.height()

    # Another Prometheus (here the same one again): the drill-down is emptied and folds away.
    tab.set_client(PrometheusClient(fleet.url, timeout_s=10.0))
    assert not tab.drill.isVisible()
    assert tab.grid.height() >= 0.75 * tab.height()
    tab.close_tab()
