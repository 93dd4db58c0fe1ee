"""``gpuprof compare``: columns, fleet and sibling outliers on the hand-made fixtures in
tests/data/compare/, benchmark runs as well as check results, files left out with their
reasons, exit codes and the JSON and HTML outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench.results import run_to_dict
from gpuprof.bench.runner import Environment
from gpuprof.check.compare import Machine, Metric, compare, load_result, load_results
from gpuprof.cli import main
from tests.fakes.fixtures import bench_case, bench_run, gemm_result

DATA = Path(__file__).parent / "data" / "compare"
NODES = [DATA / f"node-{c}.json" for c in "abcd"]


def _outliers(comp: Any) -> set[tuple[str, str, str]]:
    return {(o.machine, o.key, o.kind) for o in comp.outliers}


def test_check_results_side_by_side_with_their_outliers() -> None:
    machines, skipped = load_results(NODES)
    assert not skipped
    comp = compare(machines)
    assert [m.label for m in comp.machines] == ["node-a", "node-b", "node-c", "node-d"]
    assert "perf.gemm_bf16/gpu2" in comp.keys and "perf.allreduce_busbw" in comp.keys
    assert _outliers(comp) == {
        ("node-b", "perf.gemm_bf16/gpu2", "sibling"),  # low while its siblings are fine
        ("node-b", "perf.gemm_bf16/gpu2", "fleet"),
        ("node-c", "perf.allreduce_busbw", "fleet"),  # 30 % below the median of its peers
        ("node-c", "perf.allreduce_p99_latency", "fleet"),  # higher is worse for a latency
    }
    low = next(o for o in comp.outliers if o.key == "perf.allreduce_busbw")
    assert low.peer_median == pytest.approx(470e9) and low.ratio == pytest.approx(330 / 470)
    assert "outliers" in comp.summary(machines[0]) and "FAIL 1" in comp.summary(machines[1])


def test_a_fast_outlier_is_not_flagged_and_small_spread_is_not_an_outlier() -> None:
    def m(label: str, v: float) -> Machine:
        return Machine(label, label, "check", metrics={"perf.gemm": Metric(v, "TFLOPS")})

    comp = compare([m("a", 700), m("b", 690), m("c", 900), m("d", 580)])
    assert _outliers(comp) == set()  # 900 is better; 580 is 17 % below 700: under 20 %
    assert {o.machine for o in compare([m("a", 700), m("b", 690), m("d", 540)]).outliers} == {"d"}


def test_a_noisy_fleet_widens_its_own_threshold() -> None:
    def m(label: str, v: float) -> Machine:
        return Machine(label, label, "bench", metrics={"x": Metric(v, "B/s")})

    values = [100, 60, 140, 70, 130, 75]  # a wide spread: 70 is not an outlier here
    comp = compare([m(str(i), v) for i, v in enumerate(values)])
    assert comp.outliers == ()


def test_two_machines_have_too_few_peers_for_outliers() -> None:
    comp = compare(load_results(NODES[1:3])[0])
    assert {o.kind for o in comp.outliers} == {"sibling"}


def _bench_file(tmp_path: Path, host: str, device: str, tflops: float) -> Path:
    run = bench_run(
        bench_case("gemm", "bf16", gemm_result("bf16-4096", tflops, dtype="bf16")),
        run_id=f"{host}-{device}",
        device=device,
        started_s=1.0,
        environment=Environment(hostname=host),
    )
    path = tmp_path / f"{host}-{device.replace(':', '')}.json"
    path.write_text(json.dumps(run_to_dict(run)), encoding="utf-8")
    return path


def test_benchmark_runs_one_gpu_low(tmp_path: Path) -> None:
    files = [
        _bench_file(tmp_path, "node-a", f"cuda:{i}", 500.0 if i == 5 else 700.0 + i)
        for i in range(8)
    ]
    machines, skipped = load_results(files)
    assert not skipped and machines[0].label == "node-a cuda:0"
    comp = compare(machines)
    assert _outliers(comp) == {("node-a cuda:5", "gemm/bf16-4096", "fleet")}


def test_the_same_host_twice_is_told_apart_by_file_name(tmp_path: Path) -> None:
    copy = tmp_path / "again.json"
    shutil.copyfile(NODES[0], copy)
    machines, _ = load_results([NODES[0], copy])
    assert [m.label for m in machines] == ["node-a (node-a.json)", "node-a (again.json)"]


@pytest.mark.parametrize(
    ("name", "words"),
    [("newer-schema.json", "newer"), ("foreign.json", "not a gpuprof check or benchmark")],
)
def test_unreadable_files_are_named_with_the_reason(name: str, words: str) -> None:
    _, skipped = load_results([*NODES, DATA / name])
    (left,) = skipped
    assert name in left.reason and words in left.reason


def test_cli_compares_what_it_can_and_names_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_html = tmp_path / "c.json", tmp_path / "c.html"
    code = main(
        [
            "compare",
            *map(str, NODES),
            str(DATA / "foreign.json"),
            "--json",
            str(out_json),
            "--html",
            str(out_html),
        ]
    )
    captured = capsys.readouterr()
    assert code == 1  # outliers flagged
    assert captured.err.count("\n") == 1 and "foreign.json" in captured.err
    assert "node-c" in captured.out and "▼" in captured.out
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    assert [m["label"] for m in doc["machines"]] == ["node-a", "node-b", "node-c", "node-d"]
    assert len(doc["outliers"]) == 4 and doc["skipped"][0]["path"].endswith("foreign.json")
    assert len(doc["summary"]) == 4
    page = out_html.read_text(encoding="utf-8")
    assert page.count('class="outlier"') == 3 and "foreign.json" in page


def test_cli_exit_0_without_outliers_and_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(NODES[0]), str(NODES[3]), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "gpuprof.compare" and doc["outliers"] == []


def test_cli_fewer_than_two_readable_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(NODES[0]), str(DATA / "newer-schema.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "newer-schema.json" in err


def test_load_result_reads_a_check_result() -> None:
    m = load_result(NODES[1])
    assert m.kind == "check" and m.verdict == "FAIL"
    assert (
        m.metrics["perf.gemm_bf16/gpu2"].value == 520
        and m.metrics["perf.gemm_bf16/gpu2"].status == "FAIL"
    )
    assert m.metrics["inventory.gpu_model"].text == "NVIDIA H100 80GB HBM3"


# --- two machines: ratios, not "0 outliers" -------------------------------------------------------


def _slow_copy(tmp_path: Path, factor: float = 13.0) -> Path:
    """node-a as 'node-z' with an all-reduce ``factor`` times slower: a 13x gap."""
    doc = json.loads(NODES[0].read_text(encoding="utf-8"))
    doc["identity"]["hostname"] = "node-z"
    for item in doc["items"]:
        if item["item_id"] == "perf.allreduce_busbw":
            item["measured"] /= factor
    path = tmp_path / "node-z.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_two_machines_get_the_ratio_second_over_first_per_row(tmp_path: Path) -> None:
    comp = compare(load_results([NODES[0], _slow_copy(tmp_path)])[0])
    assert comp.pair and comp.ratio_header == "node-z / node-a"
    ratios = dict(zip(comp.keys, comp.ratios, strict=True))
    assert ratios["perf.allreduce_busbw"] == pytest.approx(1 / 13)
    assert ratios["perf.gemm_bf16/gpu0"] == pytest.approx(1.0)
    assert ratios["inventory.gpu_model"] is None  # a text, no ratio
    ((key, gap),) = comp.gaps()
    assert key == "perf.allreduce_busbw" and gap == pytest.approx(1 / 13)
    line = comp.pair_line()
    assert "1 of 6 measurements differ by more than 20%" in line
    assert "perf.allreduce_busbw ×0.0769" in line and "three or more machines" in line
    assert all("outliers" not in comp.summary(m) for m in comp.machines)  # no "0 outliers"
    three = compare(load_results([*NODES[:2], _slow_copy(tmp_path)])[0])
    assert not three.pair and three.ratios == () and three.pair_line() == ""


def test_a_pair_keeps_its_sibling_outliers_and_says_where_they_are() -> None:
    comp = compare(load_results(NODES[1:3])[0])  # node-b's GPU 2 is low against its siblings
    assert comp.pair and {o.kind for o in comp.outliers} == {"sibling"}
    assert "1 outliers among its GPUs" in comp.summary(comp.machines[0])


def test_ratios_skip_what_cannot_be_divided() -> None:
    def m(label: str, **values: float | None) -> Machine:
        return Machine(
            label, label, "check", metrics={k: Metric(v, "B/s") for k, v in values.items()}
        )

    comp = compare([m("a", x=0.0, y=None, z=2.0, w=1.0), m("b", x=5.0, y=3.0, z=1.0)])
    assert dict(zip(comp.keys, comp.ratios, strict=True)) == {
        "x": None,
        "y": None,
        "z": 0.5,
        "w": None,
    }


def test_cli_with_two_files_shows_the_ratio_column_and_no_zero_outliers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_html = tmp_path / "c.json", tmp_path / "c.html"
    slow = _slow_copy(tmp_path)
    argv = ["compare", str(NODES[0]), str(slow), "--json", str(out_json), "--html", str(out_html)]
    assert main(argv) == 0  # a gap is not an outlier: no exit 1 from two machines
    out = capsys.readouterr().out
    assert "node-z / node-a" in out and "◆ ×0.0769" in out
    assert "0 outliers" not in out and "outliers need three or more machines" in out
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    assert doc["ratio_of"] == {"numerator": "node-z", "denominator": "node-a"}
    assert doc["min_machines_for_outliers"] == 3 and "three or more" in doc["note"]
    rows = {r["key"]: r for r in doc["rows"]}
    assert rows["perf.allreduce_busbw"]["ratio"] == pytest.approx(1 / 13)
    assert rows["inventory.gpu_model"]["ratio"] is None
    page = out_html.read_text(encoding="utf-8")
    assert "<th>node-z / node-a</th>" in page and page.count('class="gap"') == 1
    assert "×0.0769" in page and "three or more machines" in page


def test_json_of_three_machines_has_no_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    main(["compare", *map(str, NODES[:3]), "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["ratio_of"] is None and doc["note"] is None
    assert all(r["ratio"] is None for r in doc["rows"])


# --- many rows ------------------------------------------------------------------------------------


def _many_rows(tmp_path: Path, host: str, n: int, low: frozenset[int] = frozenset()) -> Path:
    doc = json.loads(NODES[0].read_text(encoding="utf-8"))
    doc["identity"]["hostname"] = host
    doc["items"] = [
        {
            "item_id": f"perf.m{i}",
            "status": "PASS",
            "measured": 100.0 if i not in low else 10.0,
            "unit": "TFLOPS",
            "gpu_index": None,
        }
        for i in range(n)
    ]
    path = tmp_path / f"{host}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_the_terminal_shows_at_most_its_row_cap_and_the_files_hold_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuprof.commands.compare import _TERMINAL_ROWS

    n = _TERMINAL_ROWS * 3
    a = _many_rows(tmp_path, "a", n)
    b = _many_rows(tmp_path, "b", n, low=frozenset({7, 300}))
    out_json = tmp_path / "c.json"
    assert main(["compare", str(a), str(b), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    shown = [line for line in out.splitlines() if "perf.m" in line and "TFLOPS" in line]
    assert len(shown) == 2  # over the cap: only the rows with something to see, the two gaps
    assert f"showing 2 of {n} rows" in out
    assert len(json.loads(out_json.read_text(encoding="utf-8"))["rows"]) == n
