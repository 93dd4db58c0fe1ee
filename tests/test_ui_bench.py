"""The Benchmarks tab driven with qtbot: run → progress → results, cancel, a failing case,
comparison with an earlier run, lazy torch (device list, start-up), the light build's message."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt

from gpuprof.bench.base import CaseContext, GemmResult, Progress, Result, RunState
from gpuprof.bench.results import ResultsDB
from gpuprof.bench.runner import BenchRun, Case, Runner
from tests.fakes.fixtures import bench_run, gemm_result

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

RUN_TIMEOUT_MS = 60_000


def _fixed_gemm(values: list[tuple[int, float]], peak: float | None = None) -> Callable:
    """A GEMM case whose results are given (TFLOPS per square size): no torch, exact numbers."""

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        out: list[Result] = []
        for i, (size, tflops) in enumerate(values):
            ctx.check()
            res = gemm_result(
                f"bf16 {size}x{size}x{size}", tflops, dtype="bf16", size=size, peak=peak
            )
            out.append(res)
            yield Progress((i + 1) / len(values), f"GEMM {size}", res)
        return tuple(out)

    return run


def _endless(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
    """500 s of 50 ms steps: only a cancel ends it within the test's time."""
    steps = 10_000
    for i in range(steps):
        ctx.check()
        ctx.cancel.wait(0.05)
        yield Progress(i / steps, f"step {i}")
    return ()


def _boom(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
    yield Progress(0.1, "about to fail")
    raise RuntimeError("boom")


def _factory(cases: list[Case]) -> Callable:
    def make(device, suite, only, source):
        return Runner(
            device=device or "cpu",
            suite=suite,
            only=only,
            cases=cases,
            capture_env=False,
            telemetry_interval_s=None,
        )

    return make


@pytest.fixture
def make_tab(qtbot, tmp_path: Path):
    from gpuprof.ui.bench.tab import BenchTab
    from gpuprof.ui.shell.app import make_app

    make_app()
    tabs = []

    def make(**kwargs):
        kwargs.setdefault("db", tmp_path / "results.sqlite")
        kwargs.setdefault("has_torch", lambda: True)
        tab = BenchTab(**kwargs)
        qtbot.addWidget(tab)
        tab.resize(1600, 1000)
        tabs.append(tab)
        return tab

    yield make
    for tab in tabs:  # never leave a worker thread behind
        tab.worker.cancel()
        assert tab.wait(10)


def _run(qtbot, tab) -> BenchRun:
    with qtbot.waitSignal(tab.run_finished, timeout=RUN_TIMEOUT_MS) as blocker:
        assert tab.start_run()
    run = blocker.args[0]
    assert isinstance(run, BenchRun)
    return run


@pytest.mark.slow
def test_real_cpu_run_progress_and_results(make_tab, qtbot, tmp_path: Path) -> None:
    from gpuprof.bench.gemm import gemm_bench
    from gpuprof.bench.memory import memory_bench

    cases = [
        Case(
            "gemm", "gemm fp32", gemm_bench("fp32", [("", 64, 64, 64), ("", 128, 128, 128)]), 10.0
        ),
        Case("memory", "memory host", memory_bench("host", [2**20, 2 * 2**20]), 10.0),
    ]
    tab = make_tab(runner_factory=_factory(cases))
    tab.show()
    fractions: list[float] = []
    stages: list[str] = []
    tab.worker.progress.connect(lambda p: (fractions.append(p.fraction), stages.append(p.stage)))
    run = _run(qtbot, tab)
    assert run.state is RunState.SUCCESS and not tab.running
    # Progress went forward through both cases and the bar ended full.
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert any("GEMM fp32 128x128x128" in s for s in stages)
    assert any("memory host 2 MiB" in s for s in stages)
    assert tab.progress.value() == 1000
    # The table holds every measurement with its unit.
    by_key = {r.key: r for r in tab.table_rows}
    assert set(by_key) == {
        "gemm/fp32 64x64x64",
        "gemm/fp32 128x128x128",
        "memory/host 1 MiB",
        "memory/host 2 MiB",
    }
    assert by_key["gemm/fp32 64x64x64"].value.endswith("TFLOPS")
    assert by_key["memory/host 2 MiB"].value.endswith("B/s")
    assert tab.table.rowCount() == 4
    assert tab.table.item(0, 0).text() == "gemm fp32 64x64x64"
    # The charts drew what was measured: sizes on x, values in TFLOPS and GB/s.
    gemm = tab.charts.drawn["gemm"]["fp32"]
    assert gemm["x"] == [64.0, 128.0] and gemm["peak"] is None
    gemm_results = [r for r in run.results if isinstance(r, GemmResult)]
    assert gemm["tflops"] == pytest.approx([r.tflops_median for r in gemm_results])
    assert tab.charts.drawn["memory"]["HOST"]["size_bytes"] == [2**20, 2 * 2**20]
    # Saved to the results database and listed as the run shown.
    runs = ResultsDB(tmp_path / "results.sqlite").list_runs()
    assert [r.run_id for r in runs] == [run.run_id]
    assert tab.shown_combo.currentData() == run.run_id


@pytest.mark.slow
def test_cancel_stops_the_run(make_tab, qtbot) -> None:
    tab = make_tab(
        runner_factory=_factory(
            [
                Case("gemm", "endless", _endless, 600.0),
                Case("memory", "never started", _fixed_gemm([(64, 1.0)]), 10.0),
            ]
        )
    )
    tab.show()
    with qtbot.waitSignal(tab.worker.progress, timeout=RUN_TIMEOUT_MS):
        assert tab.start_run()
    assert tab.running and tab.cancel_button.isEnabled() and not tab.run_button.isEnabled()
    assert not tab.start_run()  # one run at a time
    t0 = time.monotonic()
    with qtbot.waitSignal(tab.run_finished, timeout=5_000) as blocker:
        tab.cancel_run()
        assert tab.progress.format() == "cancelling…" and not tab.cancel_button.isEnabled()
    run = blocker.args[0]
    assert time.monotonic() - t0 < 5  # the endless case would take 500 s
    assert run.state is RunState.INTERRUPTED
    assert run.cases[0].notes == ("cancelled",)
    assert run.cases[1].notes == ("not started: cancelled",)
    assert tab.run_button.isEnabled() and not tab.cancel_button.isEnabled()
    assert "cancelled" in tab.progress.format()
    assert [r.kind for r in tab.table_rows] == ["interrupted", "interrupted"]


@pytest.mark.slow
def test_shortcuts_run_and_cancel(make_tab, qtbot) -> None:
    tab = make_tab(runner_factory=_factory([Case("gemm", "endless", _endless, 600.0)]))
    tab.show()
    tab.activateWindow()
    tab.run_button.setFocus()
    qtbot.waitUntil(lambda: tab.run_button.hasFocus())
    with qtbot.waitSignal(tab.worker.progress, timeout=RUN_TIMEOUT_MS):
        qtbot.keyClick(tab.run_button, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert tab.running
    with qtbot.waitSignal(tab.run_finished, timeout=5_000) as blocker:
        qtbot.keyClick(tab.table, Qt.Key.Key_Escape)
    assert blocker.args[0].state is RunState.INTERRUPTED


@pytest.mark.slow
def test_failing_case_shows_as_failed_while_others_complete(make_tab, qtbot) -> None:
    tab = make_tab(
        runner_factory=_factory(
            [
                Case(
                    "gemm", "gemm bf16", _fixed_gemm([(1024, 10.0), (2048, 20.0)], peak=80.0), 10.0
                ),
                Case("workload", "workload boom", _boom, 10.0),
                Case("gemm", "gemm bf16 again", _fixed_gemm([(4096, 30.0)], peak=80.0), 10.0),
            ]
        )
    )
    tab.show()
    run = _run(qtbot, tab)
    assert run.state is RunState.PARTIAL  # one case failed: not "done", not a success
    assert tab.progress.format().startswith("some cases failed")
    assert tab.message.isVisible() and "workload boom: RuntimeError: boom" in tab.message.text()
    kinds = [(r.case, r.kind) for r in tab.table_rows]
    assert kinds == [
        ("gemm bf16 1024x1024x1024", "ok"),
        ("gemm bf16 2048x2048x2048", "ok"),
        ("workload boom", "failed"),
        ("gemm bf16 4096x4096x4096", "ok"),
    ]
    failed = tab.table_rows[2]
    assert "failed: RuntimeError: boom" in failed.notes
    assert tab.table.item(2, 5).foreground().color().name() == "#c92a2a"
    # % of peak from the spec peak; the chart draws the peak line.
    assert tab.table_rows[1].pct_of_peak == "25.0%"
    assert tab.charts.drawn["gemm"]["bf16"]["peak"] == 80.0
    assert tab.charts.drawn["gemm"]["bf16"]["x"] == [1024.0, 2048.0, 4096.0]


def test_each_case_has_one_state_in_the_table() -> None:
    """A case skipped as too slow is a skipped row with its over-budget note (it was a
    second, "ok" row before); a case whose measurement failed says so without an invented
    "unknown error"."""
    from gpuprof.ui.bench.table import rows_for_run

    from gpuprof.bench.runner import CaseRecord

    too_slow = Result(bench="workload", case="transformer", status="skipped: one step takes 14.1 s")
    wrong = Result(bench="collective", case="all_reduce 8 B", status="failed: wrong values")
    run = bench_run(
        CaseRecord(
            bench="workload",
            name="workload transformer bf16",
            state=RunState.SKIPPED,
            notes=("took 43.2 s, over its 5 s budget",),
            results=(too_slow,),
        ),
        CaseRecord(
            bench="collective",
            name="collectives",
            state=RunState.FAILURE,
            notes=("1 of 1 measurements failed",),
            results=(wrong,),
        ),
        state=RunState.FAILURE,
    )
    rows = [(r.case, r.kind, r.notes) for r in rows_for_run(run)]
    assert rows == [
        ("workload transformer", "skipped", "skipped: one step takes 14.1 s"),
        ("workload transformer bf16", "skipped", "took 43.2 s, over its 5 s budget"),
        ("collective all_reduce 8 B", "failed", "failed: wrong values"),
        ("collectives", "failed", "1 of 1 measurements failed"),
    ]


@pytest.mark.slow
def test_comparison_with_an_earlier_run_shows_ratios(make_tab, qtbot, tmp_path: Path) -> None:
    first = make_tab(
        runner_factory=_factory(
            [Case("gemm", "gemm bf16", _fixed_gemm([(1024, 10.0), (2048, 20.0)]), 10.0)]
        )
    )
    earlier = _run(qtbot, first)
    time.sleep(1.1)  # run ids and order have one-second resolution
    tab = make_tab(
        runner_factory=_factory(
            [
                Case(
                    "gemm",
                    "gemm bf16",
                    _fixed_gemm([(1024, 12.0), (2048, 15.0), (4096, 30.0)]),
                    10.0,
                )
            ]
        )
    )
    tab.show()
    later = _run(qtbot, tab)
    assert tab.compare_combo.isEnabled()
    i = tab.compare_combo.findData(earlier.run_id)
    assert i > 0 and tab.compare_combo.findData(later.run_id) < 0
    tab.compare_combo.setCurrentIndex(i)
    tab.compare_combo.activated.emit(i)
    ratios = {
        tab.table.item(r, 0).text(): tab.table.item(r, 4).text()
        for r in range(tab.table.rowCount())
    }
    assert ratios == {
        "gemm bf16 1024x1024x1024": "1.20×",
        "gemm bf16 2048x2048x2048": "0.75×",
        "gemm bf16 4096x4096x4096": "N/A",
    }
    assert earlier.run_id in tab.table.horizontalHeaderItem(4).toolTip()
    assert tab.table.item(1, 4).foreground().color().name() == "#c92a2a"  # slower now
    tab.compare_with(None)
    assert tab.table.item(0, 4).text() == ""


@pytest.mark.slow
def test_earlier_runs_load_when_shown(make_tab, qtbot, tmp_path: Path) -> None:
    first = make_tab(
        runner_factory=_factory([Case("gemm", "gemm bf16", _fixed_gemm([(1024, 10.0)]), 10.0)])
    )
    run = _run(qtbot, first)
    tab = make_tab()
    assert tab.shown_run is None
    tab.show()  # the first refresh reads the database
    assert tab.shown_run is not None and tab.shown_run.run_id == run.run_id
    assert [r.key for r in tab.table_rows] == ["gemm/bf16 1024x1024x1024"]
    assert tab.charts.drawn["gemm"]["bf16"]["tflops"] == [10.0]


def test_runner_error_is_shown_and_the_tab_stays_usable(make_tab, qtbot) -> None:
    from gpuprof.errors import InputError

    def broken(device, suite, only, source):
        raise InputError("cuda:3: only 1 CUDA device(s)")

    tab = make_tab(runner_factory=broken)
    tab.show()
    with qtbot.waitSignal(tab.worker.errored, timeout=RUN_TIMEOUT_MS):
        assert tab.start_run()
    assert not tab.running and tab.run_button.isEnabled()
    assert tab.message.isVisible()
    assert "cuda:3: only 1 CUDA device(s)" in tab.message.text()
    assert tab.wait(5)


def test_no_benchmark_chosen(make_tab) -> None:
    tab = make_tab(runner_factory=_factory([]))
    for box in tab.case_checks.values():
        box.setChecked(False)
    assert not tab.run_button.isEnabled()
    assert not tab.start_run()
    tab.case_checks["memory"].setChecked(True)
    assert tab.run_button.isEnabled() and tab.selected_only() == ("memory",)


@pytest.mark.qt_log_ignore(
    "This plugin does not support propagateSizeHints",
    "This plugin does not support raise",  # the popup, offscreen
    "This plugin does not support grabbing the keyboard",
)
def test_device_list_is_probed_when_opened(make_tab, qtbot) -> None:
    pytest.importorskip("torch")
    tab = make_tab()
    tab.show()
    assert not tab.devices_probed
    assert [tab.device_combo.itemData(i) for i in range(tab.device_combo.count())] == [None, "cpu"]
    tab.device_combo.showPopup()
    qtbot.waitUntil(lambda: tab.devices_probed, timeout=30_000)
    tab.device_combo.hidePopup()
    import torch

    data = [tab.device_combo.itemData(i) for i in range(tab.device_combo.count())]
    cuda = (
        [f"cuda:{i}" for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    )
    assert data == [None, "cpu", *cuda] or (not cuda and data == [None, "cpu", "__none__"])


def test_lite_build_explains_how_to_get_benchmarks(
    qtbot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gpuprof.ui.bench.tab import BenchTab, torch_available
    from gpuprof.ui.shell.app import make_app

    make_app()
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    assert not torch_available()
    tab = BenchTab(db=tmp_path / "r.sqlite")
    qtbot.addWidget(tab)
    tab.show()
    assert tab.lite and tab.stack.currentWidget() is tab.lite_page
    assert 'pip install "gpuprof[bench]"' in tab.lite_label.text()
    assert not tab.start_run()
    monkeypatch.delitem(sys.modules, "torch")
    tab.check_torch()
    assert tab.lite == (not torch_available())


@pytest.mark.slow
def test_constructing_the_tab_does_not_import_torch(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        f"os.environ['GPUPROF_DATA_DIR'] = {str(tmp_path)!r}\n"
        "from gpuprof.ui.shell.app import make_app\n"
        "app = make_app()\n"
        "from gpuprof.ui.bench.tab import BenchTab\n"
        "tab = BenchTab()\n"
        "tab.resize(1600, 1000)\n"
        "tab.show()\n"
        "tab.refresh(force=True)\n"
        "app.processEvents()\n"
        "assert not tab.lite, 'torch is installed here: the controls must show'\n"
        "print('torch' in sys.modules)\n"
    )
    pytest.importorskip("torch")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.slow
def test_default_runner_opens_and_closes_its_own_telemetry_source(
    make_tab, qtbot, monkeypatch
) -> None:
    pytest.importorskip("torch")

    import gpuprof.bench.runner as runner_mod

    class FakeSource:
        kind = type("K", (), {"value": "simulated"})()  # the runner does not attach simulated data
        closed = 0

        def close(self, timeout_s: float = 1.0) -> None:
            FakeSource.closed += 1

    opened: list[FakeSource] = []
    monkeypatch.setattr(
        runner_mod,
        "open_run_telemetry",  # as the real one: nothing for "cpu"
        lambda device: None if device == "cpu" else opened.append(FakeSource()) or opened[-1],
    )
    monkeypatch.setattr(
        runner_mod,
        "plan_cases",
        lambda device, suite, only: [Case("gemm", "gemm bf16", _fixed_gemm([(64, 1.0)]), 10.0)],
    )
    tab = make_tab()  # the real runner factory
    run = _run(qtbot, tab)  # device "auto": no CUDA here, so the CPU
    assert run.state is RunState.SUCCESS and run.device in ("cpu", "cuda:0")
    assert len(opened) == 1 and FakeSource.closed == 1
    assert "telemetry source is simulated: not attached to measured results" in run.notes
    tab.device_combo.setCurrentIndex(tab.device_combo.findData("cpu"))
    _run(qtbot, tab)  # a CPU run samples no GPU telemetry
    assert len(opened) == 1
