"""Issue 24: the price basis a ranking compares (``--billing``), monthly subscriptions (包月)
among them: whole months of a job, a month of serving, unpriced rows last, currency."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gpuprof.catalog.money import FxRate
from gpuprof.cli import main
from gpuprof.errors import InputError
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.rank.billing import HOURS_PER_MONTH, months_billed, price_kinds
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import catalog_of, offer
from tests.helpers.workloads import serving

#: One A100 each: a row with only a monthly price (like Tencent GT4), and one with only an
#: hourly on-demand price.
MONTHLY_ONLY = offer("monthly-only", "A100 80GB SXM", 1, 80, None, price_monthly_usd=1000.0)
HOURLY_ONLY = offer("hourly-only", "A100 80GB SXM", 1, 80, 2.0)


def _job(tokens: float = 2e9) -> Workload:
    return Workload("pretrain", 1e9, "bf16", tokens=tokens)


def _serve() -> Workload:
    return serving("llama-3.1-8b", rate_per_s=2, prompt_len=500, output_len=200)


def _by_name(rec: object) -> dict[str, object]:
    return {r.instance.instance: r for r in rec.rows}  # type: ignore[attr-defined]


def test_months_are_whole_and_at_least_one() -> None:
    got = months_billed(np.array([0.01, 730.0, 730.5, 1460.0, 1460.1, math.nan]))
    assert got[:5].tolist() == [1.0, 1.0, 2.0, 2.0, 3.0]
    assert math.isnan(got[5])
    assert float(months_billed(5000.0)) == 7.0  # 5000 / 730 = 6.85


def test_a_monthly_only_row_is_priced_under_monthly_and_unpriced_under_on_demand() -> None:
    cat = catalog_of(MONTHLY_ONLY, HOURLY_ONLY)
    w = _job()
    on_demand = recommend(w, cat)
    assert [r.instance.instance for r in on_demand.rows] == ["hourly-only", "monthly-only"]
    last = on_demand.rows[1]
    assert last.cost_usd is None and last.cost_basis == "on-demand"
    assert any("--billing monthly" in t for t in last.warnings)  # it says what it does have
    # ... but every row says what a month would cost
    hours = last.hours
    assert hours is not None and hours < HOURS_PER_MONTH
    assert last.cost_monthly_usd == pytest.approx(1000.0)

    monthly = recommend(w.with_(billing="monthly"), cat)
    assert monthly.workload.billing == "monthly" and not monthly.workload.spot
    assert [r.instance.instance for r in monthly.rows] == ["monthly-only", "hourly-only"]
    first, second = monthly.rows
    assert first.cost_basis == "monthly"
    assert first.cost_usd == pytest.approx(1000.0)  # one month, under a month of work
    assert first.price_per_hour_usd == pytest.approx(1000.0 / 730.0)
    assert second.cost_usd is None and second.cost_ondemand_usd is not None
    assert any("no monthly price" in t for t in second.warnings)


def test_a_long_job_pays_whole_months_of_every_node() -> None:
    cat = catalog_of(MONTHLY_ONLY)
    w = _job(tokens=3e11).with_(billing="monthly")  # months of one A100
    r = recommend(w, cat).rows[0]
    assert r.hours is not None and r.hours > HOURS_PER_MONTH
    months = math.ceil(r.hours / HOURS_PER_MONTH)
    assert months >= 2
    assert r.cost_usd == pytest.approx(months * 1000.0 * r.nodes)
    assert r.cost_monthly_usd == r.cost_usd
    assert r.to_dict()["cost_monthly_usd"] == r.cost_usd


def test_reserved_bases_rank_by_their_own_price() -> None:
    a = offer("a", "A100 80GB SXM", 1, 80, 2.0, price_reserved_1y_usd_hr=1.5)
    b = offer("b", "A100 80GB SXM", 1, 80, 1.8, price_reserved_1y_usd_hr=1.7)
    cat = catalog_of(a, b)
    assert recommend(_job(), cat).rows[0].instance.instance == "b"
    rows = recommend(_job().with_(billing="reserved-1y"), cat).rows
    assert rows[0].instance.instance == "a" and rows[0].cost_basis == "reserved-1y"
    assert rows[0].cost_usd == pytest.approx(rows[0].hours * 1.5)
    three = recommend(_job().with_(billing="reserved-3y"), cat).rows
    assert all(r.cost_usd is None for r in three)  # nobody has a 3-year price


def test_spot_is_an_alias_of_billing_spot_and_billing_is_checked() -> None:
    assert Workload("pretrain", 1e9, tokens=1e9, spot=True).billing == "spot"
    assert Workload("pretrain", 1e9, tokens=1e9, billing="spot").spot
    assert not Workload("pretrain", 1e9, tokens=1e9, billing="monthly").spot
    with pytest.raises(InputError, match="billing"):
        Workload("pretrain", 1e9, tokens=1e9, billing="weekly")


def test_a_spot_ranking_leaves_rows_without_a_spot_price_unpriced() -> None:
    # was: such a row fell back to its on-demand price, mixing two bases in one ranking
    spot = offer("spot", "A100 80GB SXM", 1, 80, 9.0, price_spot_usd_hr=4.0)
    cat = catalog_of(HOURLY_ONLY, spot)
    rows = recommend(_job().with_(spot=True), cat).rows
    assert [r.instance.instance for r in rows] == ["spot", "hourly-only"]
    assert rows[1].cost_usd is None and rows[1].cost_basis == "spot"


def test_serving_a_month_of_the_instances_and_its_cost_per_million() -> None:
    cat = catalog_of(MONTHLY_ONLY, HOURLY_ONLY)
    w = _serve()
    rows = _by_name(recommend(w, cat))
    m = rows["monthly-only"]
    n = m.nodes * m.instances_needed  # type: ignore[attr-defined]
    assert m.cost_usd is None  # type: ignore[attr-defined]
    assert m.cost_monthly_usd == pytest.approx(1000.0 * n)  # type: ignore[attr-defined]
    tokens_month = 2 * 200 * 3600 * HOURS_PER_MONTH / 1e6
    assert m.usd_per_million_monthly == pytest.approx(1000.0 * n / tokens_month)  # type: ignore[attr-defined]
    h = rows["hourly-only"]
    assert h.cost_monthly_usd is None and h.usd_per_million_monthly is None  # type: ignore[attr-defined]

    ranked = recommend(w.with_(billing="monthly"), cat).rows
    assert ranked[0].instance.instance == "monthly-only"
    top = ranked[0]
    assert top.cost_basis == "monthly"
    assert top.price_per_hour_usd == pytest.approx(1000.0 * n / HOURS_PER_MONTH)
    # per million at the hourly equivalent = per million over a month of the same traffic
    assert top.usd_per_million == pytest.approx(top.usd_per_million_monthly)
    assert ranked[1].cost_usd is None
    assert any("no monthly price" in t for t in ranked[1].warnings)


def test_a_monthly_price_in_cny_is_compared_at_the_dated_rate() -> None:
    cny = offer("gt4", "A100 80GB SXM", 1, 80, None, price_monthly_usd=7100.0, currency="CNY")
    rate = {"CNY": FxRate("CNY", 7.1, "2026-11-30")}
    in_usd = catalog_of(cny).in_currency("USD", rate)
    r = recommend(_job().with_(billing="monthly"), in_usd).rows[0]
    assert r.cost_usd == pytest.approx(1000.0)
    assert r.cost_monthly_usd == pytest.approx(1000.0)
    in_cny = catalog_of(cny).in_currency("CNY", rate)
    assert recommend(_job().with_(billing="monthly"), in_cny).rows[0].cost_usd == 7100.0
    no_rate = catalog_of(cny).in_currency("USD", {})
    assert recommend(_job().with_(billing="monthly"), no_rate).rows[0].cost_usd is None


def test_price_kinds_lists_every_basis_a_row_has() -> None:
    assert price_kinds(MONTHLY_ONLY) == ("monthly",)
    spot = offer("s", price_spot_usd_hr=1.0, price_reserved_3y_usd_hr=3.0)
    assert price_kinds(spot) == ("on-demand", "spot", "reserved-3y")


# -- the command ----------------------------------------------------------------------------

TENCENT = ["--provider", "tencent", "--currency", "CNY", "--limit", "50"]
JOB = ["recommend", "--scenario", "train", "--params", "1B", "--tokens", "1e9", *TENCENT]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    assert main([*argv, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_cli_job_ranks_tencent_gt4_by_its_monthly_price(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # GT4.4XLARGE96 has only a monthly price (¥12,948, CNY as published)
    out = _json(capsys, [*JOB, "--billing", "monthly"])
    assert out["billing"] == "monthly"
    rows = out["rows"]
    assert isinstance(rows, list)
    first = rows[0]
    assert first["instance"] == "GT4.4XLARGE96" and first["cost_basis"] == "monthly"
    assert first["cost_usd"] == first["cost_monthly_usd"] == pytest.approx(12948.0)
    assert first["cost_ondemand_usd"] is None and first["cost_ondemand_usd_reason"]

    out = _json(capsys, JOB)
    assert out["billing"] == "on-demand"
    gt4 = next(r for r in out["rows"] if r["instance"] == "GT4.4XLARGE96")  # type: ignore[union-attr]
    assert gt4["cost_usd"] is None and gt4["cost_monthly_usd"] == pytest.approx(12948.0)


def test_cli_serving_json_and_table_name_the_basis(capsys: pytest.CaptureFixture[str]) -> None:
    serve = [
        "recommend",
        "--model",
        "llama-3.1-8b",
        "--scenario",
        "serve",
        "--rate",
        "1",
        "--prompt-len",
        "500",
        "--output-len",
        "200",
        *TENCENT,
        "--billing",
        "monthly",
    ]
    out = _json(capsys, serve)
    rows = out["rows"]
    assert isinstance(rows, list)
    top = rows[0]
    assert top["instance"] == "GT4.4XLARGE96" and top["cost_unit"] == "usd_per_hour"
    assert top["cost_monthly_usd"] == pytest.approx(12948.0 * top["instances_needed"])
    assert top["usd_per_million_monthly"] == pytest.approx(top["usd_per_million"])
    assert main(serve) == 0
    table = capsys.readouterr().out
    assert "¥/month (monthly)" in table and "--billing monthly: ¥/month" in table
    assert main([*JOB, "--billing", "reserved-1y"]) == 0
    assert "cost (reserved 1y)" in capsys.readouterr().out


def test_cli_spot_is_billing_spot_and_not_another_basis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _json(capsys, [*JOB, "--spot"])["billing"] == "spot"
    with pytest.raises(SystemExit) as bad:
        main([*JOB, "--billing", "weekly"])
    assert bad.value.code == 2
    assert main([*JOB, "--spot", "--billing", "monthly"]) == 2
    assert "--spot is --billing spot" in capsys.readouterr().err


def test_cli_from_profile_refuses_billing(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    # a profiled job's projection shows every basis side by side: no ranking basis to pick
    argv = ["recommend", "--from-profile", str(tmp_path) + "/run.gpuprof", "--billing", "monthly"]
    assert main(argv) == 2
    assert "drop --billing" in capsys.readouterr().err


def test_a_monthly_cost_band_is_in_whole_months() -> None:
    dearer = offer("dearer", "A100 80GB SXM", 1, 80, None, price_monthly_usd=1050.0)
    cat = catalog_of(MONTHLY_ONLY, dearer)
    rec = recommend(_job().with_(billing="monthly"), cat)
    top = rec.rows[0]
    assert top.band is not None and top.band.high > 1.0  # an LLM training band
    assert top.cost_span() == (1000.0, 1000.0)  # well under a month either way
    band = top.to_dict()["band"]
    assert isinstance(band, dict) and band["cost_usd_high"] == 1000.0
    from gpuprof.recommend.band import top_rows_overlap

    assert not top_rows_overlap(list(rec.rows), "cheapest")  # ¥1000 vs ¥1050, both one month
    hourly = recommend(_job(), catalog_of(HOURLY_ONLY)).rows[0]
    assert hourly.cost_span() == pytest.approx(
        (hourly.cost_usd * hourly.band.low, hourly.cost_usd * hourly.band.high)
    )
