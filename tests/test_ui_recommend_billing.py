"""The Recommend tab's Billing setting (issue 24): the ranking compares the chosen price basis
(a monthly subscription, 包月, among them), the cost column and the plot name it, the details
list every price the row has, the form's spot box is the same setting, and the choice is kept."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt

from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import catalog_of, offer

MONTHLY_ONLY = offer("monthly-only", "A100 80GB SXM", 1, 80, None, price_monthly_usd=1000.0)
HOURLY_ONLY = offer("hourly-only", "A100 80GB SXM", 1, 80, 2.0)


def _tab(qtbot, tmp_path: Path):
    from gpuprof.ui.recommend.tab import RecommendTab
    from gpuprof.ui.shell.app import make_app

    make_app()
    t = RecommendTab(
        catalog_loader=lambda: catalog_of(MONTHLY_ONLY, HOURLY_ONLY),
        settings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(t)
    t.select_preset("custom")
    t.fill_form(Workload("pretrain", 1e9, "bf16", tokens=2e9))
    return t


def _header(tab, key: str) -> str:
    from gpuprof.ui.recommend.model import column

    return str(tab.model.headerData(column(key), Qt.Orientation.Horizontal))


def _order(tab) -> list[str]:
    rec = tab.run_now()
    assert rec is not None
    return [r.instance.instance for r in rec.rows]


def test_monthly_billing_ranks_the_monthly_only_row_first(qtbot, tmp_path: Path) -> None:
    tab = _tab(qtbot, tmp_path)
    assert tab.billing.currentData() == "on-demand"
    assert _order(tab) == ["hourly-only", "monthly-only"]
    assert "on-demand" in _header(tab, "cost")
    tab.billing.setCurrentIndex(tab.billing.findData("monthly"))
    assert tab.workload().billing == "monthly"
    assert _order(tab) == ["monthly-only", "hourly-only"]
    top = tab.recommendation.rows[0]
    assert top.cost_basis == "monthly" and top.cost_usd == 1000.0
    assert "monthly" in _header(tab, "cost")
    left = tab.scatter.plot.getAxis("left").labelText
    assert "monthly" in str(left)
    from gpuprof.ui.recommend.model import column

    assert not tab.table.isColumnHidden(column("monthly"))
    # the details pane names the monthly price and what the job pays on it
    tab.select_source_row(0)
    text = tab.details.toPlainText()
    assert "Monthly: $1,000/month per node" in text and "job $1,000 in whole months" in text
    # the hourly row lists its on-demand price, and says it has no monthly one
    tab.select_source_row(1)
    text = tab.details.toPlainText()
    assert "On-demand: $2.00/h per node" in text and "no monthly price" in text


def test_the_spot_box_is_billing_spot(qtbot, tmp_path: Path) -> None:
    tab = _tab(qtbot, tmp_path)
    tab.spot.setChecked(True)
    assert tab.billing.currentData() == "spot" and tab.workload().billing == "spot"
    tab.billing.setCurrentIndex(tab.billing.findData("reserved-1y"))
    assert not tab.spot.isChecked()
    assert tab.workload().billing == "reserved-1y" and not tab.workload().spot
    tab.billing.setCurrentIndex(tab.billing.findData("spot"))
    assert tab.spot.isChecked()
    tab.spot.setChecked(False)
    assert tab.billing.currentData() == "on-demand"


def test_the_billing_choice_is_kept(qtbot, tmp_path: Path) -> None:
    tab = _tab(qtbot, tmp_path)
    tab.billing.setCurrentIndex(tab.billing.findData("monthly"))
    tab.run_now()
    tab._save()
    again = _tab(qtbot, tmp_path)
    assert again.billing.currentData() == "monthly"
    assert "monthly" in _header(again, "cost")
    # a bad saved value falls back to on-demand, with a problem said
    s = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    s.setValue("recommend/billing", "weekly")
    s.sync()
    third = _tab(qtbot, tmp_path)
    assert third.billing.currentData() == "on-demand"
    assert any("billing" in p for p in third.settings_problems)
