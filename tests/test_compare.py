"""``gpuprof compare``: columns, fleet and sibling outliers on the hand-made fixtures in
tests/data/compare/, benchmark runs as well as check results, files left out with their
reasons, exit codes and the JSON and HTML outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench.base import RunState
from gpuprof.bench.results import run_to_dict
from gpuprof.bench.runner import BenchRun, CaseRecord, Environment
from gpuprof.check.compare import Machine, Metric, compare, load_result, load_results
from gpuprof.cli import main
from tests.fakes.fixtures import gemm_result

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
    run = BenchRun(
        run_id=f"{host}-{device}",
        suite="quick",
        device=device,
        only=(),
        state=RunState.SUCCESS,
        started_s=1.0,
        ended_s=2.0,
        environment=Environment(hostname=host),
        cases=(
            CaseRecord(
                bench="gemm",
                name="bf16",
                state=RunState.SUCCESS,
                results=(gemm_result("bf16-4096", tflops, dtype="bf16"),),
            ),
        ),
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
