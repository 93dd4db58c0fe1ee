"""Honest verdicts on a noisy device (issue 21): a check grades the median of repeated runs and
only when they agree; runs that disagree by more than the grading margin are INFO, "too noisy
to grade". A CPU has no reference unless a golden file gives one. Figures keep their digits.

The measured series are injected: no test here depends on how busy or fast this machine is.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench.base import MemoryResult, Result
from gpuprof.catalog.specs import load_specs
from gpuprof.check.model import CheckItem, CheckResult, Status, Thresholds, fmt_value
from gpuprof.check.perf import grade_runs, perf_budgets, perf_cases, perf_runs, spread_of
from gpuprof.check.reference import Reference, golden_rows
from gpuprof.check.run import CheckRun
from gpuprof.units import fmt_sig
from tests.fakes.fixtures import gemm_result, memory_result
from tests.helpers.check import perf_item

CPU_GOLDEN = {
    ("CPU", "gemm_fp32"): Reference("CPU", "gemm_fp32", 0.1, "TFLOPS", "golden", "golden node-a"),
    ("CPU", "memcpy_host"): Reference("CPU", "memcpy_host", 20.0, "GB/s", "golden", "node-a"),
}


def _gemm_runs(*tflops: float, dtype: str = "fp32") -> list[list[Result]]:
    """One run per value: the same 512³ product measured at that many TFLOPS."""
    return [[gemm_result(f"{dtype} 512x512x512", t, dtype=dtype, size=512)] for t in tflops]


def _copy(gbs: float, size: int = 32 << 20) -> MemoryResult:
    # bytes copied; the traffic is twice that
    return memory_result(f"host {size} B", gbs * 1e9 / 2, size=size, traffic_factor=2)


def _cpu(runs: Sequence[Sequence[Result]], **kw: object) -> list[CheckItem]:
    kw.setdefault("thresholds", Thresholds())
    return grade_runs(runs, device="cpu", spec=None, **kw)  # type: ignore[arg-type]


# --- the rule -------------------------------------------------------------------------------------


def test_spread_and_margin() -> None:
    assert spread_of([0.08, 0.059, 0.07]) == pytest.approx(0.021 / 0.07)
    assert spread_of([5.0]) is None and spread_of([]) is None
    assert Thresholds().margin == pytest.approx(0.10)  # a PASS may fall 10% short
    assert Thresholds(pass_ratio=0.01, warn_ratio=0.005).margin == pytest.approx(0.99)
    assert Thresholds(pass_ratio=1.2, warn_ratio=1.0).margin == 0.0  # no tolerance at all


def test_the_issue_runs_are_too_noisy_to_grade_not_warn_fail_fail() -> None:
    """Three identical runs of a busy CPU: 80%, 59% and 70% of the reference, graded one at a
    time WARN, FAIL, FAIL. Together: they disagree by 30%, more than the 10% margin."""
    (item,) = _cpu(_gemm_runs(0.080, 0.059, 0.070), golden=CPU_GOLDEN)
    assert item.status is Status.INFO
    assert item.reason == "too noisy to grade: spread 30% > margin 10% over 3 runs"
    assert "idle machine" in item.hint
    # What was measured and compared with is still shown, with each run's value.
    assert item.measured == 0.07 and item.expected == 0.1 and item.ratio == pytest.approx(0.7)
    assert item.runs == (0.08, 0.059, 0.07) and item.spread == pytest.approx(0.3)
    assert item.source.startswith("golden")


def test_runs_that_agree_are_graded_on_their_median() -> None:
    (ok,) = _cpu(_gemm_runs(0.100, 0.098, 0.102), golden=CPU_GOLDEN)
    assert ok.status is Status.PASS and ok.measured == 0.1 and ok.spread == pytest.approx(0.04)
    assert ok.reason == "median of 3 runs, spread 4%" and ok.hint == ""
    # A steady machine that is slow is still graded: noise is not an excuse.
    (slow,) = _cpu(_gemm_runs(0.060, 0.061, 0.059), golden=CPU_GOLDEN)
    assert slow.status is Status.FAIL and slow.ratio == pytest.approx(0.6)
    assert "idle machine" in slow.hint


def test_the_margin_follows_the_thresholds() -> None:
    runs = _gemm_runs(0.080, 0.059, 0.070)
    (loose,) = _cpu(runs, golden=CPU_GOLDEN, thresholds=Thresholds(0.5, 0.4))  # 50% margin
    assert loose.status is Status.PASS and loose.ratio == pytest.approx(0.7)


def test_a_cpu_without_a_golden_file_is_measured_not_graded() -> None:
    """Nothing is published for a CPU and it has no spec peak; the expected value was once the
    run's own best iteration, which graded the noise of the run against itself."""
    (gemm,) = _cpu(_gemm_runs(0.100, 0.098, 0.102))
    assert gemm.status is Status.INFO and gemm.expected is None and gemm.ratio is None
    assert gemm.measured == 0.1 and gemm.source == ""
    assert gemm.reason.startswith("no reference for this CPU: save one with --save-reference")
    assert gemm.reason.endswith("median of 3 runs, spread 4%")
    (copy,) = _cpu([[_copy(20.0)], [_copy(21.0)], [_copy(19.0)]])
    assert copy.item_id == "perf.memcpy_host" and copy.status is Status.INFO
    assert copy.measured == 20.0 and copy.runs == (20.0, 21.0, 19.0)
    # A spread of exactly the margin (10%) is still graded.
    (graded,) = _cpu([[_copy(20.0)], [_copy(21.0)], [_copy(19.0)]], golden=CPU_GOLDEN)
    assert graded.status is Status.PASS and graded.expected == 20.0


def test_the_largest_copy_and_the_best_shape_are_followed_across_runs() -> None:
    small, big = 8 << 20, 32 << 20
    runs: list[list[Result]] = [
        [_copy(40.0, small), _copy(20.0, big)],
        [_copy(41.0, small), _copy(19.0, big)],
        [_copy(39.0, small), _copy(21.0, big)],
    ]
    (copy,) = _cpu(runs)
    assert copy.runs == (20.0, 19.0, 21.0)  # the largest size, past the caches, every run
    shapes: list[list[Result]] = [
        [gemm_result("fp32 256", 0.05, size=256), gemm_result("fp32 512", 0.10, size=512)],
        [gemm_result("fp32 256", 0.06, size=256), gemm_result("fp32 512", 0.09, size=512)],
        [gemm_result("fp32 256", 0.05, size=256), gemm_result("fp32 512", 0.11, size=512)],
    ]
    (gemm,) = _cpu(shapes)
    assert gemm.runs == (0.1, 0.09, 0.11)


def test_a_case_skipped_in_one_run_only_is_not_a_skip_line() -> None:
    why = "skipped: time budget of the case reached"
    big = Result(bench="gemm", case="fp32 2048x2048x2048", status=why)
    runs = _gemm_runs(0.1, 0.1, 0.1)
    runs[0].append(big)
    runs[2].append(big)
    items = _cpu(runs)
    skips = [i for i in items if i.status is Status.SKIP]
    assert [(i.item_id, i.reason) for i in skips] == [("perf.gemm_fp32_2048x2048x2048", why)]
    runs[1].append(gemm_result("fp32 2048x2048x2048", 0.09, size=2048))
    assert not [i for i in _cpu(runs) if i.status is Status.SKIP]


# --- device-agnostic ------------------------------------------------------------------------------


def test_a_gpu_with_one_stable_run_grades_as_before_and_noisy_runs_do_not() -> None:
    spec = load_specs()["H100 SXM"]

    def gpu(runs: list[list[Result]]) -> CheckItem:
        (item,) = grade_runs(runs, device="cuda", spec=spec, thresholds=Thresholds())
        return item

    one = gpu(_gemm_runs(720.0, dtype="bf16"))
    assert one.status is Status.PASS and one.expected == 794.5 and one.spread is None
    assert one.reason == "73% of spec peak 989"  # no runs to speak of
    steady = gpu(_gemm_runs(720.0, 715.0, 722.0, dtype="bf16"))
    assert steady.status is Status.PASS and steady.measured == 720.0
    assert steady.reason == "73% of spec peak 989; median of 3 runs, spread 1%"
    noisy = gpu(_gemm_runs(720.0, 500.0, 640.0, dtype="bf16"))
    assert noisy.status is Status.INFO and noisy.reason.startswith("too noisy to grade")
    assert "nvidia-smi" in noisy.hint


def test_the_gpu_plan_is_one_run_and_the_cpu_plan_three() -> None:
    assert perf_runs("cuda:0") == 1 and perf_runs("cpu") == 3
    assert {b.runs for b in perf_budgets("cuda:0", "quick", 8)} == {1}
    cpu = perf_budgets("cpu", "quick", 0)
    assert {b.runs for b in cpu} == {3}
    # Each run's case gets the budget of one run: three runs cost about what one long run did.
    assert [c.budget_s for c in perf_cases("cpu", "quick", 0)] == [b.budget_s for b in cpu]


# --- a whole check, with the runs injected --------------------------------------------------------


def _series(*tflops: float) -> Callable[[str], Sequence[Result]]:
    """``bench_results`` for CheckRun: each call (one per run) gives the next value."""
    values = iter(tflops)

    def results(device: str) -> Sequence[Result]:
        assert device == "cpu"
        t = next(values)
        return [gemm_result("fp32 512x512x512", t, size=512), _copy(200 * t)]

    return results


def test_a_noisy_cpu_check_is_info_and_does_not_fail() -> None:
    res = CheckRun(
        device="cpu", golden=CPU_GOLDEN, bench_results=_series(0.080, 0.059, 0.070)
    ).run()
    perf = {i.item_id: i for i in res.items if i.group == "performance"}
    assert perf["perf.gemm_fp32"].status is Status.INFO
    assert perf["perf.memcpy_host"].status is Status.INFO  # 16, 11.8, 14 GB/s: 30% apart
    assert res.verdict is not Status.FAIL and res.exit_code in (0, 3)
    # A golden file made from it would carry the noise: it is left out.
    assert golden_rows(res, perf_runs(res.device)) == []


def test_a_steady_cpu_check_is_graded_and_makes_a_golden_file() -> None:
    res = CheckRun(
        device="cpu", golden=CPU_GOLDEN, bench_results=_series(0.060, 0.061, 0.059)
    ).run()
    perf = {i.item_id: i for i in res.items if i.group == "performance"}
    assert perf["perf.gemm_fp32"].status is Status.FAIL and res.verdict is Status.FAIL
    assert {(r.metric, r.value) for r in golden_rows(res, perf_runs(res.device))} == {
        ("gemm_fp32", 0.06),
        ("memcpy_host", 12.0),
    }


# --- figures keep their digits --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.000134, "0.000134 TFLOPS"),
        (0.0123, "0.0123 TFLOPS"),
        (0.33412, "0.3341 TFLOPS"),
        (10.22, "10.22 TFLOPS"),
        (550.0, "550 TFLOPS"),
        (12345.6, "12,346 TFLOPS"),
        (0.0, "0 TFLOPS"),
        (3e-9, "3e-09 TFLOPS"),
    ],
)
def test_fmt_sig_never_rounds_a_measured_figure_to_zero(value: float, shown: str) -> None:
    assert fmt_sig(value, "TFLOPS") == shown
    assert fmt_value(value, "TFLOPS") == shown  # the scorecard's one function


def _tiny_result() -> CheckResult:
    item = perf_item(
        "perf.gemm_fp32",
        Status.INFO,
        0.000134,
        0.000227,
        0.59,
        runs=(0.000134, 0.0002, 0.0001),
        spread=0.75,
        reason="too noisy to grade: spread 75% > margin 10% over 3 runs",
    )
    return CheckResult(level="quick", device="cpu", started_s=0.0, ended_s=1.0, items=(item,))


def test_the_terminal_scorecard_prints_a_tiny_value_with_its_digits() -> None:
    """It printed "measured 0 TFLOPS, expected 0 TFLOPS, ratio 59%"."""
    from gpuprof.commands.check import render_scorecard
    from gpuprof.termtext import console

    out = io.StringIO()
    render_scorecard(_tiny_result(), console(out))
    line = next(ln for ln in out.getvalue().splitlines() if "perf.gemm_fp32" in ln)
    assert "0.000134 TFLOPS" in line and "0.000227 TFLOPS" in line and "59%" in line
    assert "INFO" in line and "too noisy to grade" in line


def test_the_check_page_shows_the_same_figures(tmp_path: Path) -> None:
    from gpuprof.check.model import result_to_dict
    from gpuprof.report.html import check_page_html

    result = _tiny_result()
    data = json.loads(json.dumps(result_to_dict(result)))
    assert data["items"][0]["runs"] == [0.000134, 0.0002, 0.0001]  # kept in the JSON
    assert data["items"][0]["spread"] == 0.75
    page = check_page_html(result, data)
    assert "0.000134 TFLOPS" in page and "0.000227 TFLOPS" in page
    assert 'class="st-INFO"' in page or "st-INFO" in page


def test_the_check_tab_shows_the_same_figures(qtbot: Any) -> None:
    pytest.importorskip("PySide6")
    from gpuprof.ui.check.scorecard import STATUS_COLOURS, Scorecard
    from gpuprof.ui.shell.app import make_app

    make_app()
    card = Scorecard()
    qtbot.addWidget(card)
    card.add_item(_tiny_result().items[0])
    row = [card.item(0, c).text() for c in range(card.columnCount())]
    assert row[2:6] == ["INFO", "0.000134 TFLOPS", "0.000227 TFLOPS", "59%"]
    assert card.item(0, 2).foreground().color().name() == STATUS_COLOURS["INFO"]


def test_a_spread_just_over_the_margin_says_so_in_digits_that_differ() -> None:
    (item,) = _cpu(_gemm_runs(0.0948, 0.1, 0.1052), golden=CPU_GOLDEN)  # 10.4% apart
    assert item.status is Status.INFO
    assert item.reason == "too noisy to grade: spread 10.4% > margin 10.0% over 3 runs"


def test_a_measurement_only_one_run_made_is_not_graded_on_that_run() -> None:
    """A busy machine reached the 32 MiB copy in one run of three: graded alone it would have
    no spread to check. It is the 8 MiB copy, measured every run, that is graded."""
    small, big = 8 << 20, 32 << 20
    skip = Result(bench="memory", case=f"host {big} B", status="skipped: time budget reached")
    runs: list[list[Result]] = [
        [_copy(20.0, small), _copy(6.0, big)],
        [_copy(20.4, small), skip],
        [_copy(19.6, small), skip],
    ]
    (copy,) = _cpu(runs, golden=CPU_GOLDEN)
    assert copy.runs == (20.0, 20.4, 19.6) and copy.status is Status.PASS
    # Nothing measured in more than one run: too few to grade.
    (alone,) = _cpu([[_copy(6.0, big)], [skip], [skip]], golden=CPU_GOLDEN)
    assert (
        alone.status is Status.INFO and alone.reason == "measured in 1 of 3 runs: too few to grade"
    )


def test_a_golden_file_keeps_only_values_measured_steadily() -> None:
    def item(item_id: str, runs: tuple[float, ...], spread: float | None) -> CheckItem:
        measured = runs[len(runs) // 2]
        return perf_item(item_id, Status.INFO, measured, unit="GB/s", runs=runs, spread=spread)

    items = (
        item("perf.memcpy_host", (20.0, 20.5, 19.5), 0.05),
        item("perf.gemm_fp32", (0.1,), None),  # one of three runs: too few to tell
    )
    cpu = CheckResult(level="quick", device="cpu", started_s=0, ended_s=1, items=items)
    assert [r.metric for r in golden_rows(cpu, perf_runs(cpu.device))] == ["memcpy_host"]
    # A GPU's cases run once: its single value is its reference, as before.
    gpu = CheckResult(
        level="quick",
        device="all",
        started_s=0,
        ended_s=1,
        items=(replace(items[1], gpu_index=0),),
        identity={"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}]},
    )
    assert [(r.gpu_model, r.metric) for r in golden_rows(gpu, perf_runs(gpu.device))] == [
        ("H100 SXM", "gemm_fp32")
    ]
