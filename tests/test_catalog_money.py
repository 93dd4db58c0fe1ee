"""Prices in the currency they were published in, compared at a dated rate the user set
(issue 24): conversion, rows without a rate, the published figures kept and written back."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuprof.catalog import money
from gpuprof.catalog.instances import (
    Catalog,
    Instance,
    load_catalog,
    parse_instances_csv,
    read_instances_file,
    write_instances_csv,
)
from gpuprof.errors import InputError

HEADER = (
    "provider,instance,gpu_model,gpu_count,price_ondemand_usd_hr,price_spot_usd_hr,"
    "currency,price_monthly,as_of\n"
)
CNY = money.FxRate("CNY", 7.2, "2026-11-30", "test")
EUR = money.FxRate("EUR", 0.9, "2026-11-30", "test")


def test_parse_a_rate_and_refuse_bad_ones() -> None:
    r = money.parse_fx_rate("cny=7.2@2026-11-30")
    assert (r.currency, r.per_usd, r.as_of) == ("CNY", 7.2, "2026-11-30")
    for bad in (
        "CNY=7.2",  # no date
        "CNY=abc@2026-11-30",
        "CNY=nan@2026-11-30",
        "CNY=0@2026-11-30",
        "CNY=7.2@2026",  # a day, not a year
        "CNY=7.2@2999-01-01",  # the future
        "USD=1@2026-11-30",
        "C1Y=7@2026-11-30",
    ):
        with pytest.raises(InputError, match="--fx-rate"):
            money.parse_fx_rate(bad)


def test_convert_through_the_dollar() -> None:
    rates = {"CNY": CNY, "EUR": EUR}
    assert money.convert(72.0, "CNY", "USD", rates) == pytest.approx(10.0)
    assert money.convert(10.0, "USD", "CNY", rates) == pytest.approx(72.0)
    assert money.convert(72.0, "CNY", "EUR", rates) == pytest.approx(9.0)
    assert money.convert(72.0, "CNY", "CNY", {}) == 72.0
    assert money.convert(72.0, "CNY", "USD", {}) is None
    assert money.convert(None, "CNY", "USD", rates) is None


def _rows() -> list[Instance]:
    text = HEADER + (
        "Tencent Cloud,GN7.2XLARGE32,T4,1,8.68,,CNY,3000,2026-11-30\n"
        "AWS,g4dn.xlarge,T4,1,0.526,0.2,,,2026-11-30\n"
    )
    rows, issues = parse_instances_csv(text, name="t.csv", origin="t.csv")
    assert [i for i in issues if i.severity == "error"] == []
    return rows


def test_rows_keep_their_currency_and_monthly_price() -> None:
    tencent, aws = _rows()
    assert tencent.currency == "CNY" and tencent.price_ondemand_usd_hr == 8.68
    assert tencent.price_monthly_usd == 3000
    assert aws.currency == "USD"


def test_a_catalog_compares_in_one_currency_and_keeps_the_published_figures() -> None:
    specs = load_catalog(overlays=False).specs
    cat = Catalog(specs, tuple(_rows()))
    in_usd = cat.in_currency("USD", {"CNY": CNY})
    tencent, aws = in_usd.instances
    assert tencent.price_ondemand_usd_hr == pytest.approx(8.68 / 7.2)
    assert tencent.price_monthly_usd == pytest.approx(3000 / 7.2)
    assert money.published_prices(tencent)[0] == 8.68  # the source's own figure
    assert aws.price_ondemand_usd_hr == 0.526
    in_cny = in_usd.in_currency("CNY")
    tencent, aws = in_cny.instances
    assert tencent.price_ondemand_usd_hr == 8.68 and tencent.published == ()
    assert aws.price_ondemand_usd_hr == pytest.approx(0.526 * 7.2)
    assert in_cny.currency == "CNY" and in_cny.rates["CNY"].as_of == "2026-11-30"


def test_rows_without_a_rate_are_left_out_of_the_comparison_and_said_so() -> None:
    specs = load_catalog(overlays=False).specs
    cat = Catalog(specs, tuple(_rows())).in_currency("USD", {})
    tencent, aws = cat.instances
    assert tencent.price_ondemand_usd_hr is None and aws.price_ondemand_usd_hr == 0.526
    assert any("no exchange rate for CNY" in i.reason for i in cat.issues)
    # in CNY, the CNY rows compare without any rate; the USD rows need one
    cny = Catalog(specs, tuple(_rows())).in_currency("CNY", {})
    tencent, aws = cny.instances
    assert tencent.price_ondemand_usd_hr == 8.68 and aws.price_ondemand_usd_hr is None


def test_a_converted_row_is_written_back_in_its_own_currency(tmp_path: Path) -> None:
    specs = load_catalog(overlays=False).specs
    rows = Catalog(specs, tuple(_rows())).in_currency("USD", {"CNY": CNY}).instances
    out = tmp_path / "o.csv"
    write_instances_csv(rows, out)
    back, _ = read_instances_file(out)
    assert back[0].currency == "CNY" and back[0].price_ondemand_usd_hr == 8.68
    assert back[0].price_monthly_usd == 3000


def test_a_bad_currency_cell_is_an_error_for_its_row() -> None:
    _, issues = parse_instances_csv(HEADER + "X,a,T4,1,1,,yuan,,2026-11-30\n", name="t.csv")
    assert any("three-letter code" in i.reason for i in issues)


def test_rates_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "fx.csv"
    money.save_rate(CNY, path)
    money.save_rate(EUR, path)
    money.save_rate(money.FxRate("CNY", 7.1, "2026-12-01", "bank"), path)
    rates = money.load_rates(path)
    assert rates["CNY"].per_usd == 7.1 and rates["CNY"].source == "bank"
    assert rates["EUR"] == EUR


def test_fmt_money() -> None:
    assert money.fmt_money(1234.5, "CNY") == "¥1,234.50"
    assert money.fmt_money(2.0, "EUR") == "€2.00"
    assert money.fmt_money(2.0, "GBP") == "2.00 GBP"


def test_catalog_list_in_cny_states_the_rate(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuprof.cli import main

    args = ["catalog", "list", "--no-overlays", "--provider", "aws", "--gpu", "H100"]
    assert main([*args, "--currency", "CNY", "--fx-rate", "CNY=7.2@2026-11-30"]) == 0
    out = capsys.readouterr()
    assert "¥396.288" in out.out  # p5.48xlarge: $55.04 x 7.2
    assert "1 USD = 7.2 CNY as of 2026-11-30" in out.err
    assert main([*args, "--currency", "CNY", "--fx-rate", "CNY=7.2"]) == 2
    assert "CODE=RATE@YYYY-MM-DD" in capsys.readouterr().err


def test_catalog_fx_stores_a_rate(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuprof.cli import main

    assert main(["catalog", "fx"]) == 0
    assert "no exchange rates set" in capsys.readouterr().out
    assert main(["catalog", "fx", "--set", "EUR=0.9@2026-11-30", "--source", "ECB"]) == 0
    assert main(["catalog", "fx"]) == 0
    assert "1 USD = 0.9 EUR as of 2026-11-30 (ECB)" in capsys.readouterr().out
    assert money.load_rates()["EUR"].per_usd == 0.9
