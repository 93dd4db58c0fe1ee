"""``recommend --budget`` is an amount in the display currency (issue 24): with ``--currency
CNY`` a budget of 6,000 is ¥6,000, compared with USD prices converted at the dated rate, and the
help, the table's stderr line and the JSON say so."""

from __future__ import annotations

import datetime
import json

import pytest

from gpuprof.catalog.instances import Catalog, load_catalog
from gpuprof.catalog.money import FxRate
from gpuprof.cli import main
from gpuprof.recommend.parse import parse_usd
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer
from tests.helpers.cli import train_argv

RATE = FxRate("CNY", 7.0, "2026-11-30", "test")


def _catalog() -> Catalog:
    today = datetime.date.today().isoformat()
    row = offer("h100x8", price=20.0, provider="Acme", as_of=today, origin="test")  # in USD
    return Catalog(instances=(row,), specs=load_catalog(overlays=False).specs, issues=())


def _verdict(cat: Catalog, budget: float) -> tuple[float, bool | None]:
    wl = Workload(scenario="train", params=7e9, tokens=2e10, budget_usd=budget)
    (row,) = recommend(wl, cat, limit=None).rows
    assert row.cost_usd is not None
    return row.cost_usd, row.within_budget


def test_a_cny_budget_is_compared_with_usd_prices_at_the_dated_rate() -> None:
    usd, cny = _catalog(), _catalog().in_currency("CNY", {"CNY": RATE})
    cost_usd, _ = _verdict(usd, 1e9)
    cost_cny, _ = _verdict(cny, 1e9)
    assert cost_cny == pytest.approx(cost_usd * 7.0)
    # a budget between the two figures: enough in dollars, not in yuan
    between = (cost_usd + cost_cny) / 2
    assert _verdict(usd, between)[1] is True
    assert _verdict(cny, between)[1] is False
    assert _verdict(cny, cost_cny * 1.01)[1] is True
    # the rate decides: at 3 CNY per dollar the same yuan budget (4x the dollar cost) covers it
    cheaper = _catalog().in_currency("CNY", {"CNY": FxRate("CNY", 3.0, "2026-11-30", "test")})
    assert _verdict(cheaper, between)[1] is True


def test_budget_text_takes_the_display_currencys_sign() -> None:
    assert parse_usd("¥50k") == parse_usd("￥50,000") == parse_usd("$50k") == 50_000
    assert parse_usd("€1.5k") == 1500


ARGS = train_argv("7B", "2e10", "--budget", "6000", "--limit", "3")


def test_the_output_states_the_budgets_currency_and_the_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fx = ["--currency", "CNY", "--fx-rate", "CNY=7.0@2026-11-30"]
    assert main([*ARGS, *fx]) == 0
    err = capsys.readouterr().err
    assert "budget ¥6,000 in CNY, the display currency (--currency)" in err
    assert "1 USD = 7 CNY as of 2026-11-30" in err
    assert main([*ARGS, *fx, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["budget"] == {"amount": 6000.0, "currency": "CNY"}
    for r in out["rows"]:  # each verdict compares the yuan cost with the yuan budget
        if r["cost_usd"] is not None:
            assert r["within_budget"] is (r["cost_usd"] <= 6000.0)
    # in dollars: the same number is $6,000 and nothing is converted
    assert main(ARGS) == 0
    assert "budget $6,000 in USD" in capsys.readouterr().err


def test_the_serving_tables_legend_names_the_display_currency(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["recommend", "--model", "qwen2.5-72b", "--scenario", "serve", "--rate", "2"]
    assert main([*args, "--provider", "alibaba", "--currency", "CNY", "--limit", "2"]) == 0
    legend = " ".join(capsys.readouterr().out.split())
    assert "¥/h for all of them; ¥/M out = per million output tokens" in legend
    assert "$/h" not in legend and "$/M" not in legend


def test_the_help_says_the_budget_is_in_the_display_currency(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["recommend", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--budget" in text and "in the display currency (--currency" in text
