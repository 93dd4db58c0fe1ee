"""The check's time budgets hold by design (gpuprof.check.plan): quick ≤ 3 min and standard
≤ 10 min on an 8-GPU node by the estimate from the budgets the check hands out, the memory test
gets the size the plan assumed, and the plan is printed and kept in the JSON. A GPU test times a
real quick check."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench.base import Result
from gpuprof.catalog.specs import load_specs
from gpuprof.check import run as check_run
from gpuprof.check.memtest import MemtestResult
from gpuprof.check.perf import perf_budgets, perf_cases
from gpuprof.check.plan import (
    GIB,
    LEVEL_BUDGET_S,
    MEMTEST_FRACTION,
    MEMTEST_TRAFFIC,
    QUICK_MEMTEST_BYTES,
    check_plan,
    memtest_bytes,
    plan_seconds,
)
from gpuprof.check.run import CheckRun
from gpuprof.telemetry.nvml import source as nvml
from tests.fakes.devices import h100_info, h100_sxm_8gpu_box
from tests.fakes.fake_nvml import FakeNvml
from tests.faults.hostile import run_gpuprof

NODES = ("H100 SXM", "H200", "B200")


@pytest.mark.parametrize("model", NODES)
@pytest.mark.parametrize("level", ["quick", "standard"])
def test_levels_fit_their_budget_on_an_8_gpu_node_with_margin(model: str, level: str) -> None:
    spec = load_specs()[model]
    plan = check_plan(level, 8, spec)
    budget = LEVEL_BUDGET_S[level]
    # 10% kept back for what the estimate does not know (a slow driver, a busy host).
    assert plan.total_s <= 0.9 * budget, plan.to_dict()
    assert plan.budget_s == budget
    assert sum(s for _i, s in plan_seconds(level, 8, spec)) == pytest.approx(plan.total_s)


def test_the_estimate_counts_every_case_the_runner_is_given() -> None:
    spec = load_specs()["H200"]
    for level in ("quick", "standard"):
        plan = {i.item: i.seconds for i in check_plan(level, 8, spec).items}
        budgets = perf_budgets("cuda:0", level, 8)
        names = [c.name for c in perf_cases("cuda:0", level, 8)]
        assert names == [b.name for b in budgets]
        for b in budgets:
            est = plan[f"perf.{b.name.replace(' ', '_')}"]
            per_gpu = b.bench in ("gemm", "memory")
            # At least the budget on every GPU it runs on: never below what the runner allows.
            assert est >= b.budget_s * (8 if per_gpu else 1)
    # Standard measures more than quick: every GEMM dtype, the collectives.
    quick = {b.name for b in perf_budgets("cuda:0", "quick", 8)}
    standard = {b.name for b in perf_budgets("cuda:0", "standard", 8)}
    assert quick < standard and "collectives" in standard and "gemm bf16" in quick


def test_memtest_traffic_is_counted_for_every_pattern_it_runs() -> None:
    from gpuprof.check.memtest import PATTERNS

    assert set(MEMTEST_TRAFFIC) == set(PATTERNS)
    # Each pattern is built twice (write, verify) and compared once: at least 2 x 4 B + 9 B per
    # 4-byte word, i.e. > 2 bytes moved per tested byte.
    assert all(v > 2 for v in MEMTEST_TRAFFIC.values())


def test_memtest_size_per_level() -> None:
    h200 = load_specs()["H200"]
    quick = check_plan("quick", 8, h200)
    assert quick.memtest_bytes_per_gpu == QUICK_MEMTEST_BYTES == memtest_bytes("quick", "cuda:3")
    standard = check_plan("standard", 8, h200)
    assert memtest_bytes("standard", "cuda:0") is None  # a share of the free memory
    assert standard.memtest_bytes_per_gpu == int(141 * GIB * MEMTEST_FRACTION)
    # NVML's total wins over the spec row; a small GPU is tested up to 90% of it at quick.
    small = check_plan("quick", 1, None, memory_bytes=4 * GIB, gpu_model="Tiny")
    assert small.memtest_bytes_per_gpu == int(4 * GIB * MEMTEST_FRACTION)
    assert "1× Tiny" in small.summary()
    # The memory test grows with the memory and shrinks with the bandwidth.
    mem = {i.item: i.seconds for i in standard.items}["diag.memtest"]
    mem_q = {i.item: i.seconds for i in quick.items}["diag.memtest"]
    assert mem > 5 * mem_q


def test_burn_in_adds_its_minutes_once_and_the_cpu_plan() -> None:
    h100 = load_specs()["H100 SXM"]
    ten = check_plan("burn-in", 8, h100, minutes=10)
    one = check_plan("burn-in", 8, h100, minutes=1)
    assert ten.total_s - one.total_s == pytest.approx(9 * 60)  # all GPUs at once, not × 8
    burn = {i.item: i for i in ten.items}["diag.burnin"]
    assert burn.seconds == 600 and "all 8 GPUs at once" in burn.basis
    # A burn-in is its minutes plus what standard does: 10 min on 8 GPUs is not 80.
    standard = check_plan("standard", 8, h100).total_s
    assert ten.total_s - standard == pytest.approx(600, abs=1)
    cpu = check_plan("quick", 0, None)
    assert cpu.gpu_model == "CPU" and "inventory" not in {i.item for i in cpu.items}
    assert cpu.summary().startswith("plan: about") and "CPU" in cpu.summary()
    assert cpu.to_dict()["memtest_bytes_per_gpu"] == memtest_bytes("quick", "cpu")


@pytest.mark.parametrize("level", ["quick", "standard"])
def test_the_runner_passes_the_memtest_size_the_plan_assumed(
    monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    fake = FakeNvml(h100_sxm_8gpu_box())
    monkeypatch.setattr(nvml, "pynvml", fake)
    monkeypatch.setattr(check_run, "_torch_cuda_count", lambda: 8)
    measured: list[tuple[str, list[str]]] = []

    def measure(self: CheckRun, device: str, gpus: int, cancel: Any) -> list[Result]:
        measured.append((device, [c.name for c in perf_cases(device, self.level, gpus)]))
        return []

    asked: list[tuple[str, int | None, float]] = []

    def memtest(device: str, *, size_bytes: int | None = None, **kw: Any) -> MemtestResult:
        asked.append((device, size_bytes, kw.get("fraction", MEMTEST_FRACTION)))
        return MemtestResult(device, size_bytes or 1, 1, ("random",), 0, (), False, 0.0)

    monkeypatch.setattr(CheckRun, "_measure", measure)
    monkeypatch.setattr("gpuprof.check.memtest.run_memtest", memtest)
    source = nvml.NvmlSource(clock=fake.clock)
    try:
        run = CheckRun(level=level, source=source, poll_interval_s=0.0)
        plan = run.plan()
        res = run.run()
    finally:
        source.close()
    assert plan.gpu_count == 8 and plan.gpu_model == "H100 SXM"
    assert [d for d, _sizes, _f in asked] == [f"cuda:{i}" for i in range(8)]
    expected = QUICK_MEMTEST_BYTES if level == "quick" else None
    assert {s for _d, s, _f in asked} == {expected}
    if level == "quick":
        assert plan.memtest_bytes_per_gpu == expected
    else:  # 90% of the free memory, which the plan bounds by 90% of NVML's total
        total = h100_info(0).memory_total_bytes
        assert total and plan.memtest_bytes_per_gpu == int(total * MEMTEST_FRACTION)
    # The cases measured are the ones the plan counted: node-wide ones on the first GPU only.
    assert measured[0][1] == [b.name for b in perf_budgets("cuda:0", level, 8)]
    assert all("p2p" not in names for _d, names in measured[1:])
    assert sum(1 for i in res.items if i.item_id == "diag.memtest") == 8


@pytest.mark.slow
def test_cpu_check_prints_the_plan_and_keeps_it_in_the_json(tmp_path: Path) -> None:
    ran = run_gpuprof(["check", "--device", "cpu", "--level", "quick", "--json", "-"], tmp_path)
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    assert ran.returncode in (0, 1, 3), ran.stderr[-3000:]
    assert "plan: about" in ran.stderr and "for quick on CPU" in ran.stderr
    data = json.loads(ran.stdout)
    plan = data["plan"]
    assert plan["level"] == "quick" and plan["gpu_count"] == 0 and plan["gpu_model"] == "CPU"
    assert plan["total_s"] == pytest.approx(sum(i["seconds"] for i in plan["items"]), abs=0.5)
    assert [i["item"] for i in plan["items"]] == [
        "startup",
        "perf.gemm_fp32",
        "perf.memory_host",
        "diag.memtest",
    ]
    assert all(i["basis"] for i in plan["items"])


def test_the_schema_documents_the_plan() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "check-schema.md").read_text("utf-8")
    for key in ("`plan`", "total_s", "memtest_bytes_per_gpu", "basis"):
        assert key in doc


@pytest.mark.gpu
def test_gpu_quick_check_keeps_its_time_budget(tmp_path: Path) -> None:
    """A real ``gpuprof check --level quick`` on every GPU here: ≤ 3 minutes, and not past the
    plan's own estimate (the plan is meant as an upper bound)."""
    out = tmp_path / "c.json"
    t0 = time.monotonic()
    ran = run_gpuprof(["check", "--level", "quick", "--json", str(out)], tmp_path)
    wall = time.monotonic() - t0
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    plan = data["plan"]
    print(f"quick check: {wall:.1f} s wall; plan {plan['total_s']} s on {plan['gpu_model']}")
    assert wall <= LEVEL_BUDGET_S["quick"], (wall, plan)
    assert data["ended_s"] - data["started_s"] <= plan["total_s"], (wall, plan)
