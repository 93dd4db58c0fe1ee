"""Prices older than 90 days are flagged: ``catalog list`` marks them, recommendation rows (and
so the tables and the report built from them) warn."""

from __future__ import annotations

import datetime
from dataclasses import replace

import pytest

from gpuprof.catalog.instances import STALE_DAYS, Catalog, Instance, is_stale, load_catalog
from gpuprof.catalog.instances import price_age_days as age
from gpuprof.cli import main
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer

DAY = datetime.date(2026, 12, 1)


def test_age_counts_from_the_last_day_the_date_can_mean() -> None:
    assert age("2026-11-30", DAY) == 1
    assert age("2026-08-01", DAY) == 122
    assert age("2026", DAY) == -30  # 31 Dec 2026: never called older than it may be
    assert age("2026-02", DAY) == (DAY - datetime.date(2026, 2, 28)).days
    assert age("2025-12", DAY) == (DAY - datetime.date(2025, 12, 31)).days
    assert age("", DAY) is None and age("soon", DAY) is None
    assert STALE_DAYS == 90
    assert not is_stale("2026-09-02", DAY) and is_stale("2026-09-01", DAY)
    assert is_stale("2023", DAY) and is_stale("", DAY)  # no date: never trusted as current


def _row(as_of: str) -> Instance:
    return offer(f"h100.{as_of}", price=20.0, provider="Acme", as_of=as_of, origin="test")


def test_recommendation_rows_warn_about_old_prices() -> None:
    today = datetime.date.today()
    fresh, old = today.isoformat(), (today - datetime.timedelta(days=STALE_DAYS + 5)).isoformat()
    cat = Catalog(instances=(_row(fresh), _row(old)), specs=load_catalog().specs, issues=())
    rec = recommend(Workload(scenario="train", params=7e9, tokens=2e10), cat, limit=None)
    warned = {r.instance.as_of: any("days old" in w for w in r.warnings) for r in rec.rows}
    assert warned == {fresh: False, old: True}


def test_catalog_list_marks_old_prices(capsys: pytest.CaptureFixture[str]) -> None:
    # The shipped AWS rows are as of 2026-01-21: older than 90 days from any day after April.
    assert is_stale("2026-01-21")  # the test machine's clock is past 2026-04-21
    assert main(["catalog", "list", "--provider", "aws", "--gpu", "H100", "--no-overlays"]) == 0
    out = capsys.readouterr()
    assert "(old)" in out.out and "over 90 days old" in out.err


def test_a_date_without_its_day_is_old_and_says_so() -> None:
    # "2026" once meant 31 Dec 2026 and was never old: the day the price was read is unknown.
    from gpuprof.catalog.asof import stale_mark, stale_note, staleness

    assert staleness("2026", DAY) == staleness("2026", DAY)
    s = staleness("2026", DAY)
    assert s.stale and s.precision == "year"
    assert staleness("2026-11", DAY).stale and staleness("2026-11", DAY).precision == "month"
    fresh = staleness("2026-11-30", DAY)
    assert not fresh.stale and fresh.precision == "day" and fresh.age_days == 1
    assert staleness("", DAY) == staleness("later", DAY)
    assert staleness("", DAY).stale and staleness("", DAY).age_days is None
    assert stale_mark("", DAY) == "(undated)" and "no date" in stale_note("", DAY)
    assert stale_mark("2026", DAY) == "(year only)" and stale_mark("2026-06", DAY) == "(month only)"
    assert stale_mark("2026-01-21", DAY) == "(old)" and stale_mark("2026-11-30", DAY) == ""
    assert "dated only 2026" in stale_note("2026", DAY)
    assert "over 90 days old" in stale_note("2026-01-21", DAY)
    assert stale_note("2026-11-30", DAY) == ""


def test_every_view_marks_old_dates_the_same_way() -> None:
    # the issue: recommend printed "prices as of 2023 … 2026-01-21" with nothing marked
    from gpuprof.ui.recommend.details import summary_text

    from gpuprof.catalog.asof import dated
    from gpuprof.report.summaries import summarize_recommendation

    assert dated("2026-11-30", DAY) == "2026-11-30" and dated("", DAY) == ""
    assert (
        dated("2023", DAY) == "2023 (year only)" and dated("2026-01-21", DAY) == "2026-01-21 (old)"
    )
    cat = Catalog(
        instances=(_row("2023"), _row("2026-01-21")), specs=load_catalog().specs, issues=()
    )
    rec = recommend(Workload(scenario="train", params=7e9, tokens=2e10), cat, limit=None)
    assert "2023 (year only) … 2026-01-21 (old)" in summary_text(rec)
    rows = summarize_recommendation(rec).rows
    assert {r.price_as_of for r in rows} == {"2023 (year only)", "2026-01-21 (old)"}
    warned = [w for r in rec.rows for w in r.warnings if "dated only 2023" in w]
    assert warned  # the row's warning says why, not "over 90 days old"


def test_the_serving_and_job_tables_mark_old_prices_as_catalog_list_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the serving table's "as of" column printed the raw date: one function now gives every
    # view its date, marked when a priced row is old and plain when the row has no price
    from gpuprof.catalog.asof import price_dated
    from gpuprof.catalog.money import shown_as_of
    from gpuprof.commands.recommend.output import print_table

    assert price_dated("2026-01-21", True, DAY) == "2026-01-21 (old)"
    assert price_dated("2026-01-21", False, DAY) == "2026-01-21"
    assert price_dated("2023", True, DAY) == "2023 (year only)" and price_dated("", True) == ""
    unpriced = replace(_row("2023-06-17"), price_ondemand_usd_hr=None)
    assert shown_as_of(unpriced) == "2023-06-17" and shown_as_of(_row("2023-06-17")).endswith(
        "(old)"
    )
    monkeypatch.setenv("COLUMNS", "400")  # one line per row: the date and its mark together
    today = datetime.date.today()
    old = (today - datetime.timedelta(days=STALE_DAYS + 5)).isoformat()
    cat = Catalog(instances=(_row(old),), specs=load_catalog().specs, issues=())
    serve = Workload(scenario="serve", params=7e9, rate_per_s=1, output_len=100)
    train = Workload(scenario="train", params=7e9, tokens=2e10)
    for w in (serve, train):
        rec = recommend(w, cat, limit=None)
        assert rec.rows and rec.rows[0].instance.as_of == old
        print_table(rec)
        out = capsys.readouterr().out
        assert f"{old} (old)" in out, (w.scenario, out)
    # the reasons' "prices as of" sentence carries the mark as well
    rec = recommend(train, cat, limit=None)
    assert any(f"prices as of {old} (old)" in n for n in rec.rows[0].reasons)
