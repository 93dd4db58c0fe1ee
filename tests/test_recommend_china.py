"""Issue 24's done-when: serving Qwen2.5-72B on Alibaba, Tencent and Huawei in CNY gives a ranked,
priced answer from sourced, dated rows (the prices kept in the currency they were published in)."""

from __future__ import annotations

import datetime
import json

import pytest

from gpuprof.cli import main

ARGS = [
    "recommend",
    "--model",
    "qwen2.5-72b",
    "--scenario",
    "serve",
    "--throughput",
    "2000",
    "--prompt-len",
    "1000",
    "--output-len",
    "200",
    "--provider",
    "alibaba,tencent,huawei",
    "--currency",
    "CNY",
    "--json",
    "--limit",
    "100",
]


def test_a_priced_ranked_answer_in_cny_from_dated_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(ARGS) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["currency"]["code"] == "CNY"
    fit = [r for r in out["rows"] if r["fits"]]
    priced = [r for r in fit if r["price_per_hour_usd"] is not None]
    assert len(priced) >= 8
    assert fit[0] is priced[0]  # the first answer has a price
    assert {r["provider"] for r in priced} == {"Alibaba Cloud"}  # the CNY-published rows
    for r in priced:
        datetime.date.fromisoformat(r["price_as_of"])  # a full date on every priced row
        assert r["source"]
    # ranked by cost per million output tokens, cheapest first
    costs = [r["usd_per_million"] for r in priced]
    assert costs == sorted(costs)
