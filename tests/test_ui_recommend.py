"""The Recommend tab driven with qtbot: presets, ranking, filters, sorting, Pareto, details, local."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt

from gpuprof.recommend.rank import LocalMachine
from gpuprof.recommend.workload import Workload
from gpuprof.units import fmt_count, fmt_hours
from tests.ui_fixtures import shipped_catalog

# The offscreen platform plugin warns whenever a top-level window gets size constraints.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

GiB = 2**30


def _col(key: str) -> int:
    from gpuprof.ui.recommend.model import column

    return column(key)


def _shown_rows(tab):
    from gpuprof.ui.recommend.model import ROW_ROLE

    return [tab.proxy.index(i, 0).data(ROW_ROLE) for i in range(tab.proxy.rowCount())]


def _cell(tab, row: int, key: str, role=Qt.ItemDataRole.DisplayRole):
    return tab.proxy.index(row, _col(key)).data(role)


@pytest.mark.parametrize("key", list(Workload.presets()))
def test_preset_fills_form_and_produces_rows(make_recommend_tab, key):
    tab = make_recommend_tab()
    tab.select_preset("custom")
    tab.params.setText("1")  # something else in the form first
    tab.select_preset(key)
    preset = Workload.presets()[key]
    assert tab.scenario.currentData() == preset.scenario
    assert tab.precision.currentData() == preset.precision
    assert tab.node_limit.value() == preset.node_limit
    w = tab.workload()
    for f in (
        "params",
        "tokens",
        "samples",
        "epochs",
        "flops_total",
        "flops_per_sample",
        "throughput_per_s",
        "working_set_bytes",
        "seq_len",
    ):
        a, b = getattr(w, f), getattr(preset, f)
        assert (a is None and b is None) or math.isclose(a, b, rel_tol=1e-6), f
    assert w.name == preset.name
    rec = tab.run_now()
    assert rec is not None and tab.error is None
    assert tab.model.rowCount() == len(rec.rows) > 0
    assert rec.viable > 0
    first = _shown_rows(tab)[0]
    assert first.viable and first.rank == 1


def test_preset_form_text(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("llm-100b-train")
    assert tab.params.text() == "100B"
    assert tab.tokens.text() == "200B"
    assert tab.samples.text() == ""
    assert tab.batch.text() == "auto"
    tab.select_preset("fp64-risk")
    assert tab.params.text() == ""
    assert tab.precision.currentData() == "fp64"
    assert tab.working_set.value() == pytest.approx(64.0)


def test_70b_full_finetune_never_shows_a_single_24gb_gpu_as_fitting(make_recommend_tab):
    tab = make_recommend_tab(local=LocalMachine.from_names(["NVIDIA GeForce RTX 4090"]))
    tab.select_preset("custom")
    tab.scenario.setCurrentIndex(tab.scenario.findData("finetune-full"))
    tab.precision.setCurrentIndex(tab.precision.findData("bf16"))
    tab.params.setText("70B")
    tab.tokens.setText("1B")
    tab.samples.setText("")
    tab.fits_only.setChecked(False)
    tab.compare.setChecked(True)
    assert tab.run_now() is not None
    single_small = 0
    for i, r in enumerate(_shown_rows(tab)):
        if r.gpus_total == 1 and r.mem_per_gpu_bytes <= 24.5 * GiB:
            single_small += 1
            assert not r.fits and not r.viable, r.label
            assert _cell(tab, i, "fits") == "no"
    # L4 / A10G / RTX 4090 rows and this machine's 4090 are in the table: the check bites.
    assert single_small >= 3
    tab.fits_only.setChecked(True)
    for r in _shown_rows(tab):
        if r.instance.provider != "local":
            assert r.viable
            assert not (r.gpus_total == 1 and r.mem_per_gpu_bytes <= 24.5 * GiB)


def test_provider_and_region_filters_change_the_rows(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("cv-train")
    tab.fits_only.setChecked(False)
    tab.run_now()
    everything = _shown_rows(tab)
    assert len({r.instance.provider for r in everything}) > 3
    tab.set_filters(provider="GCP")
    gcp = _shown_rows(tab)
    assert gcp and {r.instance.provider for r in gcp} == {"GCP"}
    assert len(gcp) < len(everything)
    assert tab.recommendation is not None and tab.recommendation.candidates == len(gcp)
    regions = [tab.region_filter.itemData(i) for i in range(1, tab.region_filter.count())]
    assert regions and set(regions) == {r.instance.region for r in gcp if r.instance.region}
    tab.set_filters(region=regions[0])
    assert {r.instance.region for r in _shown_rows(tab)} == {regions[0]}
    tab.set_filters(provider="", region="", spot_only=True)
    spot = _shown_rows(tab)
    assert spot and all(r.instance.price_spot_usd_hr for r in spot)
    tab.set_filters(spot_only=False)
    assert len(_shown_rows(tab)) == len(everything)


def test_sorting_by_cost(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("nlp-inference-t4")
    rec = tab.run_now()
    assert rec is not None
    tab.table.sortByColumn(_col("cost"), Qt.SortOrder.AscendingOrder)
    keys = [_cell(tab, i, "cost", Qt.ItemDataRole.UserRole) for i in range(tab.proxy.rowCount())]
    assert keys == sorted(keys) and math.isfinite(keys[0])
    cheapest = min(r.cost_usd for r in rec.rows if r.cost_usd is not None and r.viable)
    assert _shown_rows(tab)[0].cost_usd == cheapest
    assert _cell(tab, 0, "cost").startswith("$")
    tab.table.sortByColumn(_col("cost"), Qt.SortOrder.DescendingOrder)
    keys = [_cell(tab, i, "cost", Qt.ItemDataRole.UserRole) for i in range(tab.proxy.rowCount())]
    assert keys == sorted(keys, reverse=True)
    # Missing prices sort as +inf: last when ascending, never in the middle.
    tab.table.sortByColumn(_col("hours"), Qt.SortOrder.AscendingOrder)
    hours = [r.hours for r in _shown_rows(tab) if r.hours is not None]
    assert hours == sorted(hours)


@pytest.mark.parametrize("key", ["cv-train", "nlp-inference-t4", "video-analytics"])
def test_pareto_points_highlighted(make_recommend_tab, key):
    tab = make_recommend_tab()
    tab.select_preset(key)
    rec = tab.run_now()
    assert rec is not None
    assert len(rec.pareto) >= 2
    assert tab.scatter.pareto_count() == len(rec.pareto)
    assert tab.scatter.pareto_count() == sum(1 for *_, p in rec.scatter if p)
    assert tab.scatter.point_count() == len(rec.scatter)
    # The front is joined in order of time, and every Pareto row carries the star in the table.
    xs, ys = tab.scatter.front.getData()
    assert len(xs) == len(rec.pareto) and list(xs) == sorted(xs)
    assert all(b <= a for a, b in itertools.pairwise(ys))
    stars = [i for i in range(tab.proxy.rowCount()) if _cell(tab, i, "pareto") == "★"]
    assert len(stars) == len(rec.pareto)
    highlight = tab.scatter.pareto_points.opts["brush"].color().name()
    assert highlight != tab.scatter.points.opts["brush"].color().name()


def test_large_catalog_table_holds_row_limit_and_scatter_every_point(make_recommend_tab):
    from gpuprof.ui.recommend.tab import ROW_LIMIT

    cat = shipped_catalog()
    many = tuple(
        dataclasses.replace(i, instance=f"{i.instance}-{k}")
        for k in range(4)
        for i in cat.instances
    )
    big = dataclasses.replace(cat, instances=many)
    tab = make_recommend_tab(catalog_loader=lambda: big)
    tab.select_preset("nlp-inference-t4")
    rec = tab.run_now()
    assert rec is not None and rec.candidates == len(many) > ROW_LIMIT
    assert len(rec.rows) == tab.model.rowCount() == ROW_LIMIT
    assert tab.scatter.point_count() == len(rec.scatter) > ROW_LIMIT
    assert "first 300" in tab.summary.text()
    before = tab.selected_row()
    tab.scatter.point_clicked.emit(-1)  # a point beyond the table: nothing to select
    assert tab.selected_row() is before


def test_details_pane_shows_reasons_of_the_selected_row(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("llm-100b-train")
    rec = tab.run_now()
    assert rec is not None
    tab.table.selectRow(2)
    r = _shown_rows(tab)[2]
    assert tab.selected_row() is r
    text = tab.details.toPlainText()
    assert r.reasons
    for reason in (*r.reasons, *r.warnings, r.efficiency_source, *rec.formulas):
        assert reason in text
    assert r.instance.as_of in text
    # Clicking a point in the scatter selects its row.
    plotted = tab.scatter.plotted_rows()
    tab.scatter.point_clicked.emit(plotted[-1])
    assert tab.selected_row() is rec.rows[plotted[-1]]
    assert rec.rows[plotted[-1]].reasons[0] in tab.details.toPlainText()


def test_details_escape_text_from_the_catalog(make_recommend_tab):
    cat = shipped_catalog()
    evil = dataclasses.replace(cat.instances[0], instance="<b>x</b>&<script>", source="<i>s</i>")
    tab = make_recommend_tab(catalog_loader=lambda: dataclasses.replace(cat, instances=(evil,)))
    tab.select_preset("nlp-inference-t4")
    tab.fits_only.setChecked(False)
    tab.run_now()
    tab.select_source_row(0)
    text = tab.details.toPlainText()
    assert "<b>x</b>&<script>" in text
    assert "<i>s</i>" in text


def test_compare_with_this_machine_shows_speedup_column(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("cv-train")
    assert not tab.compare.isEnabled()
    tab.run_now()
    assert tab.table.isColumnHidden(_col("speedup"))
    tab.set_local(["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"])
    assert tab.compare.isEnabled() and "2× NVIDIA GeForce RTX 4090" in tab.local_label.text()
    rec = tab.run_now()
    assert rec is not None and rec.local is not None
    assert tab.table.isColumnHidden(_col("speedup"))
    assert tab.model.rowCount() == len(rec.rows)
    tab.compare.setChecked(True)
    assert not tab.table.isColumnHidden(_col("speedup"))
    assert tab.model.rowCount() == len(rec.rows) + 1
    rows = _shown_rows(tab)
    assert any(r.instance.provider == "local" for r in rows)
    for i, r in enumerate(rows):
        if r.instance.provider == "local" or r.speedup_vs_local is None:
            continue
        assert _cell(tab, i, "speedup") == f"{r.speedup_vs_local:.3g}×"
        assert r.speedup_vs_local == pytest.approx(
            rec.local.hours / (r.hours / (1.1 if r.cost_basis == "spot" else 1.0)), rel=1e-6
        )
    assert tab.scatter.local_line.isVisible()
    tab.select_source_row(0)
    assert "vs this machine" in tab.details.toPlainText()
    tab.compare.setChecked(False)
    assert tab.table.isColumnHidden(_col("speedup"))
    assert tab.model.rowCount() == len(rec.rows)


def test_bad_input_shows_the_error_and_recovers(make_recommend_tab):
    tab = make_recommend_tab()
    tab.show()
    tab.select_preset("llm-100b-train")
    tab.params.setText("lots")
    assert tab.run_now() is None
    assert tab.form_error.isVisible()
    assert "not a number" in tab.form_error.text()
    assert tab.model.rowCount() == 0 and tab.scatter.point_count() == 0
    tab.params.setText("7B")
    assert tab.run_now() is not None
    assert not tab.form_error.isVisible() and tab.model.rowCount() > 0
    tab.scenario.setCurrentIndex(tab.scenario.findData("pretrain"))
    tab.precision.setCurrentIndex(tab.precision.findData("int4"))
    assert tab.run_now() is None and "inference" in (tab.error or "")


def test_settings_round_trip(make_recommend_tab):
    tab = make_recommend_tab()
    tab.select_preset("cv-train")
    tab.epochs.setValue(10)
    tab.deadline.setText("48h")
    tab.budget.setText("5k")
    tab.spot.setChecked(True)
    tab.objective.setCurrentIndex(tab.objective.findData("fastest"))
    tab.fits_only.setChecked(False)
    tab.set_filters(provider="AWS")
    first = tab.workload()
    again = make_recommend_tab()
    assert again.preset.currentData() == "cv-train"
    assert again.epochs.value() == 10
    assert again.deadline.text() == "48h" and again.budget.text() == "5k"
    assert again.spot.isChecked() and not again.fits_only.isChecked()
    assert again.objective.currentData() == "fastest"
    assert again.provider_filter.currentData() == "AWS"
    assert again.workload() == first
    rec = again.run_now()
    assert rec is not None and {r.instance.provider for r in rec.rows} == {"AWS"}


@pytest.mark.slow
def test_debounce_runs_once_and_only_when_visible(make_recommend_tab, qtbot):
    from gpuprof.ui.recommend.tab import DEBOUNCE_MS

    tab = make_recommend_tab()
    qtbot.wait(DEBOUNCE_MS * 2)
    assert tab.run_count == 0  # hidden: start-up pays nothing
    tab.show()
    qtbot.waitUntil(lambda: tab.run_count == 1)
    tab.params.setText("13B")
    tab.tokens.setText("3e11")
    tab.epochs.setValue(2)
    qtbot.waitUntil(lambda: tab.run_count == 2)
    qtbot.wait(DEBOUNCE_MS * 2)
    assert tab.run_count == 2
    assert tab.recommendation is not None
    assert tab.recommendation.workload.params == 13e9


def test_log_axis_labels_and_unit_formatters():
    from gpuprof.ui.recommend.plot import LogAxis
    from gpuprof.ui.shell.app import make_app

    make_app()
    axis = LogAxis("bottom")
    values = [math.log10(v) for v in (0.5, 10, 100, 3000)]
    assert axis.logTickStrings(values, 1.0, 1.0) == ["0.5", "10", "100", "3k"]
    crowded = [math.log10(v) for v in (1, 2, 3, 4, 5, 6, 7)]
    assert axis.logTickStrings(crowded, 1.0, 1.0) == ["1", "2", "", "", "5", "", ""]
    assert fmt_hours(0.0024) == "0.0024 h" and fmt_hours(2206.6) == "2,207 h"
    assert fmt_count(100e9) == "100B" and fmt_count(25.6e6) == "25.6M"
    assert fmt_count(1.281167e6, digits=7) == "1.281167M"


def test_tab_in_the_main_window_gets_the_local_gpus(make_window, qtbot):
    from gpuprof.ui.recommend.tab import RecommendTab

    w = make_window()
    # The window builds the tab and hands it the NVML names of its GPUs.
    tab = w.feature("recommend").widget()
    assert isinstance(tab, RecommendTab)
    assert tab.local is not None
    assert tab.run_count == 0  # hidden tab: nothing ranked yet
    w.select_tab("recommend")
    qtbot.waitUntil(lambda: tab.run_count >= 1, timeout=5000)
    assert tab.recommendation is not None and tab.recommendation.local is not None
    assert tab.compare.isEnabled()
    tab.compare.setChecked(True)
    assert not tab.table.isColumnHidden(_col("speedup"))
    w.close()


def test_details_pane_shows_the_error_band_and_summary_the_advice(qapp) -> None:  # type: ignore[no-untyped-def]
    """Issue 23: the GUI shows a training row's band, the node count that would meet the
    deadline, and that the top rows overlap."""
    from gpuprof.ui.recommend import details as recommend_details

    from gpuprof.catalog.instances import Catalog, Instance
    from gpuprof.catalog.specs import load_specs
    from gpuprof.recommend.rank import recommend
    from gpuprof.recommend.workload import Workload

    def node(name: str, price: float) -> Instance:
        return Instance(provider=name, instance=name, gpu_model="H100 SXM", gpu_name="H100 SXM",
                        gpu_count=8, gpu_mem_gib=80, price_ondemand_usd_hr=price, as_of="2026")  # fmt: skip

    cat = Catalog(load_specs(), (node("a", 40.0), node("b", 41.0)))
    rec = recommend(Workload("pretrain", 7e9, tokens=2e10, deadline_hours=1.0), cat)
    html = recommend_details.details_html(rec.rows[0], rec, False)
    assert "Error band:" in html and "comparable published runs" in html
    summary = recommend_details.summary_text(rec)
    assert "nothing priced meets the deadline" in summary
    assert "overlap within their error bands" in summary
