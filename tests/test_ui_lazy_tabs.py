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
    bench, recommend = w.feature("benchmarks"), w.feature("recommend")
    assert bench.tab is None and recommend.tab is None and not w.telemetry.is_built()
    names = w.tab_names
    tip = w.tabs.tabToolTip(names.index("recommend"))
    w.select_tab("recommend")
    tab = w.tabs.currentWidget()
    assert isinstance(tab, RecommendTab) and tab is recommend.widget()
    assert w.current_tab_name() == "recommend" and w.tab_names == names
    assert w.tabs.tabText(names.index("recommend")) == "Recommend"
    assert w.tabs.tabToolTip(names.index("recommend")) == tip
    # The GPU names read at start-up reached the tab built later.
    assert tab.local is not None
    assert bench.tab is None
    w.apply_theme("dark")  # every built tab follows the theme; no error from the placeholder


def test_using_a_hidden_tab_builds_it_in_place(make_window):
    w = make_window()
    bench = w.feature("benchmarks").widget()  # e.g. a test driving a run
    assert w.current_tab_name() == "overview"
    assert w.tabs.widget(w.tab_names.index("benchmarks")) is bench
    w.select_tab("benchmarks")
    assert w.tabs.currentWidget() is bench


def test_the_last_tab_is_built_at_start(make_window):
    w = make_window(tab="recommend")
    assert w.current_tab_name() == "recommend"
    tab = w.feature("recommend").tab
    assert tab is not None and w.tabs.currentWidget() is tab


def test_a_finished_benchmark_run_reaches_recommend(make_window):
    """What a run measured here (GEMM TFLOPS of a known GPU) reaches the Recommend feature
    through the window's measured_here, building its tab; a CPU run measures nothing."""
    from tests.test_recommend_calibrate import T_NEW, _gemm, _run

    w = make_window()
    bench, recommend = w.feature("benchmarks").widget(), w.feature("recommend")
    assert recommend.tab is None
    bench.run_finished.emit(_run("r1", T_NEW, [_gemm("bf16", 8192, 791.2)]))
    assert recommend.tab is not None
    assert recommend.tab._measurements == {"H100 SXM": {"bf16": 791.2}}
    assert recommend.tab.local is not None  # the GPU names read at start-up stay
    bench.run_finished.emit(_run("c", T_NEW, [_gemm("bf16", 1024, 1.0)], device="cpu"))
    assert recommend.tab._measurements == {"H100 SXM": {"bf16": 791.2}}
