"""Tabs built on first show: Benchmarks, Recommend, and the Telemetry plots."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_hidden_tabs_wait_until_shown(make_window):
    from gpuprof.ui.recommend.tab import RecommendTab

    w = make_window()
    assert w.current_tab_name() == "overview"
    assert w._bench is None and w._recommend is None and not w.telemetry.is_built()
    names = w.tab_names
    tip = w.tabs.tabToolTip(names.index("recommend"))
    w.select_tab("recommend")
    tab = w.tabs.currentWidget()
    assert isinstance(tab, RecommendTab) and tab is w.recommend
    assert w.current_tab_name() == "recommend" and w.tab_names == names
    assert w.tabs.tabText(names.index("recommend")) == "Recommend"
    assert w.tabs.tabToolTip(names.index("recommend")) == tip
    # The GPU names read at start-up reached the tab built later.
    assert tab.local is not None
    assert w._bench is None
    w.apply_theme("dark")  # every built tab follows the theme; no error from the placeholder


def test_using_a_hidden_tab_builds_it_in_place(make_window):
    w = make_window()
    bench = w.bench  # e.g. the window wiring a finished run into Recommend
    assert w.current_tab_name() == "overview"
    assert w.tabs.widget(w.tab_names.index("benchmarks")) is bench
    w.select_tab("benchmarks")
    assert w.tabs.currentWidget() is bench


def test_the_last_tab_is_built_at_start(make_window):
    w = make_window(tab="recommend")
    assert w.current_tab_name() == "recommend"
    assert w._recommend is not None and w.tabs.currentWidget() is w._recommend
