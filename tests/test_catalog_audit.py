"""``gpuprof catalog audit`` (issue 24): each rule over made-up rows, the shipped catalog has no
unexplained outlier, and the exit status says whether any is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.catalog.audit import audit, note_prices
from gpuprof.catalog.instances import Catalog, Instance, load_catalog
from gpuprof.cli import main


def _row(name: str, **kw: object) -> Instance:
    base: dict[str, object] = {
        "provider": "Acme",
        "instance": name,
        "gpu_model": "H100 SXM",
        "gpu_count": 8,
        "gpu_mem_gib": 80.0,
        "price_ondemand_usd_hr": 24.0,
        "as_of": "2026-11-30",
        "origin": "test",
    }
    return Instance(**(base | kw))  # type: ignore[arg-type]


def _catalog(*extra: Instance) -> Catalog:
    rows = [_row(f"ok{i}", price_ondemand_usd_hr=24.0 + i) for i in range(4)]
    return Catalog(load_catalog(overlays=False).specs, (*rows, *extra))


def _rules(cat: Catalog, name: str) -> dict[str, bool]:
    return {f.rule: f.known for f in audit(cat) if f.instance == name}


def test_a_clean_row_has_no_finding() -> None:
    assert audit(_catalog()) == []


@pytest.mark.parametrize(
    ("row", "rule"),
    [
        (_row("cheap", price_ondemand_usd_hr=2.0), "band"),  # $0.25/GPU-h for 8 H100s
        (_row("dear", price_ondemand_usd_hr=2000.0), "band"),
        (_row("spot", price_spot_usd_hr=30.0), "spot"),
        (_row("note", notes="us-east4 would be $87.83/h"), "notes"),
        (_row("sum", notes="total would be 9.46+78.37=87.83"), "notes"),
        (_row("mem", gpu_mem_gib=40.0), "memory"),
        (_row("year", as_of="2026"), "date"),
        (_row("month", as_of="2026-11"), "date"),
        (_row("none", as_of=""), "date"),
        (_row("unpriced", as_of="2026", price_ondemand_usd_hr=None), "date"),
    ],
)
def test_each_rule_finds_its_outlier(row: Instance, rule: str) -> None:
    found = _rules(_catalog(row), row.instance)
    assert rule in found, found
    assert found[rule] is False  # none of these rows says why


def test_a_year_only_date_is_never_a_known_finding() -> None:
    # a doubtful row's band finding is known; its year-only date is flagged all the same
    row = _row("old", as_of="2026", price_ondemand_usd_hr=2.0, notes="doubtful: a typo upstream")
    assert _rules(_catalog(row), "old") == {"band": True, "date": False}
    assert "dated only 2026" in next(f.reason for f in audit(_catalog(row)) if f.rule == "date")


def test_every_shipped_row_has_a_full_iso_date() -> None:
    import datetime

    from gpuprof.catalog.audit import SNAPSHOT_MARK

    rows = load_catalog(overlays=False).instances
    assert len(rows) > 200
    for r in rows:
        day = datetime.date.fromisoformat(r.as_of)  # YYYY-MM-DD, nothing shorter
        assert r.as_of == day.isoformat() and day <= datetime.date(2026, 12, 2), r
        # a day that is not the source's own says so, and whose copy it is
        if SNAPSHOT_MARK in r.notes:
            clause = next(c for c in r.notes.split(";") if SNAPSHOT_MARK in c)
            assert r.as_of in clause and "commit" in clause, r
    # the rows taken from the SkyPilot catalogs carry no date of their own: each says so (AWS
    # rows are dated by AWS-TSAOL's "Last updated: 2026-01-21", SkyPilot only confirming them)
    sky = [
        r
        for r in rows
        if ("SKY-" in r.source or r.source.startswith("skypilot-org/"))
        and "AWS-TSAOL" not in r.source
    ]
    assert sky and all(SNAPSHOT_MARK in r.notes for r in sky)


def test_a_doubtful_row_is_a_known_outlier() -> None:
    row = _row("typo", price_ondemand_usd_hr=2.0, notes="doubtful: a typo upstream")
    assert _rules(_catalog(row), "typo") == {"band": True}


def test_counts_from_the_name_and_the_published_configuration() -> None:
    gcp = _row("a3-highgpu-8g", provider="GCP", gpu_count=4, price_ondemand_usd_hr=12.0)
    p4d = _row("p4d.24xlarge", provider="AWS", gpu_model="A100 40GB SXM", gpu_mem_gib=80.0)
    cat = _catalog(gcp, p4d)
    assert "count" in _rules(cat, "a3-highgpu-8g")
    assert "memory" in _rules(cat, "p4d.24xlarge")


def test_note_prices_skip_a_composition() -> None:
    assert note_prices("composed: host $0.47/h + 1x GPU $0.6/h; x") == []
    assert note_prices("older list price $32.77/h; us-east4 would be 1+2=3") == [32.77, 3.0]


def test_the_shipped_catalog_has_no_unexplained_outlier() -> None:
    findings = audit(load_catalog(overlays=False))
    assert [f for f in findings if not f.known] == []
    # the GCP row: its own note's us-east4 price disagrees, and the row says so
    gcp = [f for f in findings if f.instance == "a3-highgpu-8g" and f.rule == "notes"]
    assert gcp and all(f.known for f in gcp) and "87.83" in gcp[0].reason


def _my_overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, csv_text: str) -> None:
    """The user's catalog folder holds one overlay, ``mine.csv``, of ``csv_text``."""
    overlays = tmp_path / "overlays"
    overlays.mkdir()
    (overlays / "mine.csv").write_text(csv_text, encoding="utf-8")
    monkeypatch.setattr("gpuprof.paths.user_catalog_dir", lambda: overlays)


def test_the_command_exits_1_for_an_unexplained_outlier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["catalog", "audit", "--no-overlays"]) == 0
    assert "0 unexplained findings" in capsys.readouterr().out
    _my_overlay(
        tmp_path,
        monkeypatch,
        "provider,instance,gpu_model,gpu_count,price_ondemand_usd_hr,price_spot_usd_hr,as_of\n"
        "Mine,h100x8,H100 SXM,8,20,25,2026-11-30\n",
    )
    assert main(["catalog", "audit", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    mine = [f for f in out["findings"] if f["provider"] == "Mine"]
    assert [f["rule"] for f in mine] == ["spot"] and out["unexplained"] == 1


def test_rows_priced_in_cny_are_audited_once_their_rate_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # without a rate the CNY rows escape the price rules, and the command says how many
    assert main(["catalog", "audit", "--no-overlays", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["not_compared"]["CNY"] >= 30
    # with one, the shipped CNY rows are compared and none is an outlier
    rate = ["--fx-rate", "CNY=7.2@2026-11-30"]
    assert main(["catalog", "audit", "--no-overlays", "--json", *rate]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["not_compared"] == {} and out["unexplained"] == 0
    # a CNY row ten times its GPU's going rate is found in USD and in CNY
    _my_overlay(
        tmp_path,
        monkeypatch,
        "provider,instance,gpu_model,gpu_count,price_ondemand_usd_hr,as_of,currency\n"
        "Mine,a100x8,A100 80GB SXM,8,3000,2026-11-30,CNY\n",
    )
    for currency in ("USD", "CNY"):
        assert main(["catalog", "audit", "--json", "--currency", currency, *rate]) == 1
        out = json.loads(capsys.readouterr().out)
        mine = [f for f in out["findings"] if f["provider"] == "Mine"]
        assert [f["rule"] for f in mine] == ["band"] and out["currency"] == currency
    assert main(["catalog", "audit"]) == 0  # no rate: the row is not compared, and says so
    assert "rows priced in CNY were not checked" in capsys.readouterr().err
