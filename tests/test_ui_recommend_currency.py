"""The Recommend tab's Currency setting (issue 24): the ranking compares in the chosen currency
at the dated rate from ``gpuprof catalog fx``, the amounts and headers are written in it, the
rate is named, and the choice is kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from gpuprof import units
from gpuprof.catalog import money
from gpuprof.catalog.instances import load_catalog


@pytest.fixture(autouse=True)
def _usd_after() -> Iterator[None]:
    yield
    units.set_money_currency("USD")  # the sign is process-wide: leave it as other tests expect


def _tab(qtbot, tmp_path: Path):
    from gpuprof.ui.recommend.tab import RecommendTab
    from gpuprof.ui.shell.app import make_app

    make_app()
    t = RecommendTab(
        catalog_loader=lambda: load_catalog(overlays=False),
        settings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(t)
    return t


def _prices(tab) -> dict[str, float]:
    rec = tab.run_now()
    assert rec is not None
    return {r.instance.instance: r.price_per_hour_usd for r in rec.rows if r.price_per_hour_usd}


def test_cny_ranking_at_the_dated_rate(qtbot, tmp_path: Path) -> None:
    money.save_rate(money.FxRate("CNY", 7.2, "2026-11-30", "bank"))
    tab = _tab(qtbot, tmp_path)
    usd = _prices(tab)
    tab.currency.setCurrentIndex(tab.currency.findData("CNY"))
    cny = _prices(tab)
    common = [k for k in usd if k in cny]
    assert common
    for k in common:
        assert cny[k] == pytest.approx(usd[k] * 7.2)
    headers = [
        tab.model.headerData(c, Qt.Orientation.Horizontal) for c in range(tab.model.columnCount())
    ]
    assert any("¥" in str(h) for h in headers) and not any("$" in str(h) for h in headers)
    assert "1 USD = 7.2 CNY as of 2026-11-30 (bank)" in tab.currency.toolTip()
    assert units.fmt_usd(10.0) == "¥10.00"
    # kept: a new tab reads the choice back
    tab._save()
    again = _tab(qtbot, tmp_path)
    assert again.currency.currentData() == "CNY"


def test_no_rate_is_said_and_leaves_foreign_rows_unpriced(qtbot, tmp_path: Path) -> None:
    tab = _tab(qtbot, tmp_path)
    tab.currency.setCurrentIndex(tab.currency.findData("EUR"))
    assert _prices(tab) == {}  # no EUR rate: nothing is compared in EUR
    assert "no exchange rate for EUR" in tab.currency.toolTip()


def test_the_plot_and_the_table_name_the_currency_and_the_rate(qtbot, tmp_path: Path) -> None:
    money.save_rate(money.FxRate("CNY", 7.2, "2026-11-30", "bank"))
    tab = _tab(qtbot, tmp_path)
    tab.run_now()
    plot = tab.scatter

    def axis() -> str:
        return str(plot.plot.getAxis("left").labelText) + str(plot.plot.getAxis("left").labelUnits)

    assert plot.currency() == "USD" and "USD" in axis()
    tab.currency.setCurrentIndex(tab.currency.findData("CNY"))
    rec = tab.run_now()
    assert rec is not None
    # the cost axis, the plot's tooltip and each point's tip: yuan, at the dated rate
    assert plot.currency() == "CNY" and "CNY" in axis() and "USD" not in axis()
    rate = "1 USD = 7.2 CNY as of 2026-11-30 (bank)"
    assert "Costs in CNY, converted at " + rate in plot.view.toolTip()
    row = next(r for r in rec.rows if r.cost_usd is not None)
    tip = plot._tip(0.0, 0.0, rec.rows.index(row))
    assert "¥" in tip and rate in tip
    # the table's money columns: headers in ¥, tooltips in CNY with the rate
    tips = [
        str(tab.model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole))
        for c in range(tab.model.columnCount())
    ]
    money_tips = [t for t in tips if "CNY" in t]
    assert money_tips and all(rate in t for t in money_tips)
    assert not any("USD" in t.replace(rate, "") for t in tips)
    # back to dollars: no rate is needed any more for USD rows, the axis says USD again
    tab.currency.setCurrentIndex(tab.currency.findData("USD"))
    tab.run_now()
    assert plot.currency() == "USD" and "USD" in axis()


def test_serving_plots_cost_per_million_in_the_currency(qtbot, tmp_path: Path) -> None:
    from gpuprof.ui.recommend.plot import CostTimeScatter

    plot = CostTimeScatter()
    qtbot.addWidget(plot)
    plot.set_rows([], axes=("tokens_per_s", "usd_per_million"))
    plot.set_currency("CNY", "1 USD = 7.2 CNY as of 2026-11-30 (bank)")
    label = str(plot.plot.getAxis("left").labelText)
    assert label.startswith("CNY per million output tokens")
    assert "converted at 1 USD = 7.2 CNY as of 2026-11-30" in plot.view.toolTip()


def test_the_budget_field_is_in_the_display_currency(qtbot, tmp_path: Path) -> None:
    money.save_rate(money.FxRate("CNY", 7.2, "2026-11-30", "bank"))
    tab = _tab(qtbot, tmp_path)
    tab.currency.setCurrentIndex(tab.currency.findData("CNY"))
    tab.run_now()
    assert tab.form.budget_label.text() == "Budget (CNY)"
    assert "in CNY, the display currency" in tab.form.budget.toolTip()
