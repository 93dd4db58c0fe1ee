"""Issue 23: every training estimate carries an error band from cross-validated errors, and the
ranking can be acted on (unpriced rows last under 'cheapest'; the node count that would meet
a deadline nothing meets; the top rows' overlap said)."""

from __future__ import annotations

import json

import pytest

from gpuprof.cli import main
from gpuprof.recommend.band import MIN_ROWS, Residual, load_residuals, training_band
from gpuprof.recommend.estimate import SPOT_OVERHEAD
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.verdict import verdict_lines
from gpuprof.recommend.workload import Workload
from gpuprof.units import fmt_duration
from tests.helpers.catalog import catalog_of, offer


def test_the_shipped_residuals_cover_every_training_row_of_ten_sources() -> None:
    res = load_residuals()
    assert len(res) >= 60 and len({r.group for r in res}) >= 10
    assert all(r.time_ratio > 0 for r in res)


def test_band_rests_on_the_most_comparable_runs_and_widens_when_few() -> None:
    res = tuple(
        Residual(f"r{i}", "g", "tuned", "Hopper", 8, ratio)
        for i, ratio in enumerate((0.9, 0.95, 1.0, 1.05, 1.1, 1.2))
    ) + tuple(Residual(f"a{i}", "h", "fsdp", "Ampere", 64, 2.0) for i in range(MIN_ROWS))
    b = training_band("tuned", "Hopper", 8, res)
    assert b is not None and b.rows == 6 and b.basis == "tuned, the same GPU generation, one node"
    assert b.low == pytest.approx(0.925) and b.high == pytest.approx(1.15)
    # A Blackwell job has no comparable Blackwell runs: the stack's runs, said so.
    wide = training_band("tuned", "Blackwell", 8, res)
    assert wide is not None and wide.basis == "tuned"
    # torchtitan has none at all here: the comparison falls back to all runs.
    assert training_band("torchtitan", "Blackwell", 4096, res).rows == 12  # type: ignore[union-attr]
    assert training_band("tuned", "Hopper", 8, ()) is None


def test_every_training_row_has_a_band_in_json_and_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["recommend", "--scenario", "pretrain", "--model", "llama-3-8b", "--tokens", "1e11",
            "--gpu", "H100", "--gpus", "8", "--json"]  # fmt: skip
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    band = row["band"]
    assert band["rows"] >= MIN_ROWS and band["basis"]
    assert band["hours_low"] == pytest.approx(row["hours"] * band["time_ratio_low"])
    assert band["cost_usd_high"] == pytest.approx(row["cost_usd"] * band["time_ratio_high"])
    assert band["hours_low"] < band["hours_high"]
    assert main(argv[:-1]) == 0
    table = capsys.readouterr().out
    assert " d)" in table or " h)" in table  # "21d 3h 5m (17–26 d)"
    assert "error band" in table and "comparable published runs not fitted to" in table
    # Serving: the band of the cost per million output tokens, from the serving runs' errors.
    assert main(["recommend", "--scenario", "serve", "--model", "llama-3-8b", "--rate", "1",
                 "--gpu", "H100", "--gpus", "1", "--json"]) == 0  # fmt: skip
    served = json.loads(capsys.readouterr().out)["rows"][0]
    band = served["band"]
    assert band["rows"] >= MIN_ROWS and band["hours_low"] is None
    assert band["usd_per_million_low"] == pytest.approx(
        served["usd_per_million"] * band["time_ratio_low"]
    )
    # HPC and rendering have no published runs to take a band from: none is made up.
    assert main(["recommend", "--scenario", "hpc-fp64", "--flops", "1e18", "--gpu", "H100",
                 "--gpus", "1", "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["rows"][0]["band"] is None


def test_unpriced_rows_never_rank_above_priced_rows_under_cheapest() -> None:
    # The unpriced node (B200) is faster and meets the deadline; the priced one (H100) misses
    # it. The priced row still comes first under 'cheapest'; the unpriced one is marked.
    fast = offer("unpriced", "B200", 8, 180, None, provider="Z")
    cat = catalog_of(fast, offer("priced", price=40.0))
    w = Workload("pretrain", 7e9, tokens=2e10)
    hours = {r.instance.instance: r.hours for r in recommend(w, cat).rows}
    assert hours["unpriced"] < hours["priced"]
    deadline = (hours["unpriced"] + hours["priced"]) / 2
    rec = recommend(w.with_(deadline_hours=deadline), cat, objective="cheapest")
    assert [r.instance.instance for r in rec.rows] == ["priced", "unpriced"]
    assert rec.rows[0].meets_deadline is False and rec.rows[1].meets_deadline is True
    assert any("listed after every priced row" in t for t in rec.rows[1].warnings)
    # Nothing priced meets it: the table says so, with the node count that would (none here:
    # the nodes have no network to go beyond one).
    assert rec.advice and "nothing priced meets the deadline" in rec.advice[0]


def test_the_issues_pretrain_example_says_which_node_count_would_meet_the_deadline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["recommend", "--scenario", "pretrain", "--model", "llama-3-70b", "--tokens", "1e12",
            "--deadline", "30d", "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    n = out["nodes_needed"]
    assert n is not None and n > 16
    assert out["verdict"][0].startswith("nothing priced meets the deadline within --nodes 16")
    assert f"--nodes {n}" in out["verdict"][0]
    # Under 'cheapest' the first row has a price.
    assert out["rows"][0]["cost_usd"] is not None
    # With that node limit a priced row that meets 30 days comes first.
    assert main([*argv, "--nodes", str(n)]) == 0
    first = json.loads(capsys.readouterr().out)["rows"][0]
    assert first["cost_usd"] is not None and first["meets_deadline"] is True


def test_top_rows_overlapping_within_their_bands_are_said_to() -> None:
    cat = catalog_of(offer("a", price=40.0), offer("b", price=41.0, provider="Y"))
    rec = recommend(Workload("pretrain", 7e9, tokens=2e10), cat)
    assert rec.rows[0].band is not None
    assert any("overlap within their error bands" in t for t in verdict_lines(rec))
    far = catalog_of(offer("a", price=40.0), offer("b", price=400.0, provider="Y"))
    rec = recommend(Workload("pretrain", 7e9, tokens=2e10), far)
    assert not any("overlap" in t for t in verdict_lines(rec))


def test_spot_and_reserved_costs_are_for_the_rows_own_nodes() -> None:
    node = offer(
        "p5", price=55.0, network_gbps=3200.0, price_spot_usd_hr=30.0, price_reserved_1y_usd_hr=40.0
    )
    r = recommend(Workload("pretrain", 70e9, tokens=1e10), catalog_of(node)).rows[0]
    assert r.nodes > 1
    assert r.cost_ondemand_usd == pytest.approx(r.hours * 55.0 * r.nodes)
    assert r.cost_spot_usd == pytest.approx(r.hours * (1 + SPOT_OVERHEAD) * 30.0 * r.nodes)
    assert r.cost_reserved_1y_usd == pytest.approx(r.hours * 40.0 * r.nodes)


def test_nothing_meets_the_deadline_is_about_every_candidate_not_the_rows_shown() -> None:
    # Shown: the cheapest row only (priced, late). Not shown: an unpriced node that meets the
    # deadline. The verdict must not say that nothing meets it, nor quote the shown row's time
    # as the fastest.
    fast = offer("unpriced", "B200", 8, 180, None, provider="Z")
    cat = catalog_of(fast, offer("priced", price=40.0))
    w = Workload("pretrain", 7e9, tokens=2e10)
    hours = {r.instance.instance: r.hours for r in recommend(w, cat).rows}
    between = (hours["unpriced"] + hours["priced"]) / 2
    shown = recommend(w.with_(deadline_hours=between), cat, objective="cheapest", limit=1)
    assert [r.instance.instance for r in shown.rows] == ["priced"]
    assert shown.fastest_hours == pytest.approx(hours["unpriced"])
    assert not any(v.startswith("NOTHING MEETS THE DEADLINE") for v in verdict_lines(shown))
    # Below every candidate's time: it does say so, with the fastest of all, shown or not.
    tight = recommend(
        w.with_(deadline_hours=hours["unpriced"] / 2), cat, objective="cheapest", limit=1
    )
    said = [v for v in verdict_lines(tight) if v.startswith("NOTHING MEETS THE DEADLINE")]
    assert len(said) == 1
    assert fmt_duration(hours["unpriced"] * 3600) in said[0]
