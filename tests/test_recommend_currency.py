"""recommend --currency (issue 24): rankings compare in one currency and state the rate and
its date; rows published in that currency need no rate, the others are left unpriced without
one."""

from __future__ import annotations

import json

import pytest

from gpuprof.cli import main

ISSUE = [
    "recommend",
    "--model",
    "qwen2.5-72b",
    "--scenario",
    "serve",
    "--rate",
    "2",
    "--provider",
    "alibaba,tencent,huawei",
    "--json",
]


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main([*ISSUE, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_issue_command_ranks_priced_rows_in_cny(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--currency", "CNY", "--fx-rate", "CNY=7.2@2026-11-30")
    assert out["currency"]["code"] == "CNY"
    assert out["currency"]["rates"] == [
        {"currency": "CNY", "per_usd": 7.2, "as_of": "2026-11-30", "source": "--fx-rate"}
    ]
    priced = [r for r in out["rows"] if r["cost_usd"] is not None]
    assert priced, out["verdict"]
    top = priced[0]
    assert top["provider"] in {"Alibaba Cloud", "Tencent Cloud", "Huawei Cloud"}
    assert top["price_as_of"]  # every priced row says the day its price was read


def test_cny_rows_compare_in_cny_without_a_rate(capsys: pytest.CaptureFixture[str]) -> None:
    with_rate = _run(capsys, "--currency", "CNY", "--fx-rate", "CNY=7.2@2026-11-30")
    without = _run(capsys, "--currency", "CNY")
    ali = [r for r in without["rows"] if r["provider"] == "Alibaba Cloud" and r["cost_usd"]]
    assert ali  # published in CNY: compared as published
    same = {r["instance"]: r["cost_usd"] for r in with_rate["rows"]}
    for r in ali:
        assert r["cost_usd"] == pytest.approx(same[r["instance"]])
    assert without["currency"]["rates"] == []


def test_usd_answer_converts_cny_rows_at_the_rate(capsys: pytest.CaptureFixture[str]) -> None:
    cny = _run(capsys, "--currency", "CNY", "--fx-rate", "CNY=7.2@2026-11-30")
    usd = _run(capsys, "--fx-rate", "CNY=7.2@2026-11-30")
    assert usd["currency"]["code"] == "USD"
    by = {r["instance"]: r["cost_usd"] for r in usd["rows"] if r["cost_usd"]}
    for r in cny["rows"]:
        if r["cost_usd"] and r["instance"] in by:
            assert r["cost_usd"] == pytest.approx(by[r["instance"]] * 7.2, rel=1e-9)


def test_table_states_the_rate_and_uses_the_yuan_sign(capsys: pytest.CaptureFixture[str]) -> None:
    args = [a for a in ISSUE if a != "--json"]
    assert main([*args, "--currency", "CNY", "--fx-rate", "CNY=7.2@2026-11-30"]) == 0
    out = capsys.readouterr()
    assert "1 USD = 7.2 CNY as of 2026-11-30" in out.err
    assert "¥/h" in out.out and "¥" in out.out


def test_bad_rate_and_from_profile_are_one_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*ISSUE, "--fx-rate", "CNY=seven@2026-11-30"]) == 2
    assert "not a number" in capsys.readouterr().err
    assert main(["recommend", "--from-profile", "x.gpuprof", "--currency", "CNY"]) == 2
    assert "--from-profile" in capsys.readouterr().err
