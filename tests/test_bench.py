"""Benchmarks: protocol and runner, timing math, results database, CPU benchmarks, CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from collections.abc import Generator

import pytest

from gpuprof.bench import (
    BenchRun,
    CancelToken,
    Case,
    CaseContext,
    Environment,
    GemmResult,
    MemoryResult,
    P2PResult,
    Progress,
    Result,
    Runner,
    RunState,
    TelemetryPoint,
    WorkloadResult,
)
from gpuprof.bench.base import drain, is_oom
from gpuprof.bench.runner import parse_only
from gpuprof.bench.timing import CudaEventTimer, WallTimer, measure, percentile, summarize
from gpuprof.errors import InputError
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind
from tests.fakes.fixtures import (
    all_reduce_result,
    bench_case,
    bench_run,
    gemm_result,
    memory_result,
)

# --- fakes ----------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, dt: float) -> None:
        self.t += dt


class FakeEvent:
    """Records the fake clock's time, like a CUDA event records the GPU's."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.t: float | None = None

    def record(self) -> None:
        self.t = self.clock()

    def elapsed_time(self, end: FakeEvent) -> float:
        assert self.t is not None and end.t is not None
        return (end.t - self.t) * 1000.0  # milliseconds, as torch.cuda.Event


def _gemm(case: str, tflops: float) -> GemmResult:
    result: GemmResult = gemm_result(case, tflops)
    return result


def _steps(name: str, n: int, fail_at: int | None = None):
    """A benchmark that yields n measured steps (and raises at ``fail_at``)."""

    def bench(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        out = []
        for i in range(n):
            ctx.check()
            if fail_at == i:
                raise ValueError(f"{name} broke at {i}")
            yield Progress(i / n, f"{name} step {i}")
            r = _gemm(f"{name}-{i}", float(i + 1))
            out.append(r)
            yield Progress((i + 1) / n, f"{name} done {i}", r)
        return tuple(out)

    return bench


def _runner(cases, **kw) -> Runner:
    kw.setdefault("capture_env", False)
    kw.setdefault("telemetry_interval_s", None)
    return Runner(device="cpu", cases=cases, **kw)


# --- timing ---------------------------------------------------------------------------------------


def test_cuda_event_timer_times_only_the_bracketed_call():
    clock = FakeClock()
    syncs = []
    timer = CudaEventTimer(lambda: FakeEvent(clock), lambda: syncs.append(1))
    calls = []

    def fn():
        calls.append(1)
        clock.advance(0.002)

    durations = measure(
        fn, timer=timer, iterations=5, warmup=2, before=lambda: clock.advance(1.0), clock=clock
    )
    assert len(calls) == 7  # warm-up runs but is not timed
    assert durations == pytest.approx(
        [0.002] * 5
    )  # the L2 flush in `before` is outside the bracket
    assert syncs == [1]  # one synchronize, at the end


def test_wall_timer_stops_after_min_iterations_once_time_is_up():
    clock = FakeClock()
    timer = WallTimer(clock)
    durations = measure(
        lambda: clock.advance(0.5),
        timer=timer,
        iterations=100,
        warmup=0,
        min_iterations=3,
        max_time_s=1.2,
        clock=clock,
    )
    assert durations == pytest.approx([0.5, 0.5, 0.5])


def test_measure_checks_cancel_between_iterations():
    clock = FakeClock()
    n = {"calls": 0}

    def check():
        if n["calls"] >= 3:
            raise RuntimeError("cancelled")

    def fn():
        n["calls"] += 1

    with pytest.raises(RuntimeError):
        measure(fn, timer=WallTimer(clock), iterations=10, warmup=1, check=check, clock=clock)
    assert n["calls"] == 3


def test_stats_and_percentile():
    st = summarize([4.0, 1.0, 3.0, 2.0])
    assert (st.n, st.mean_s, st.median_s, st.min_s, st.max_s) == (4, 2.5, 2.5, 1.0, 4.0)
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert percentile(list(range(101)), 99) == pytest.approx(99.0)
    assert percentile([1.0, 2.0], 99) == pytest.approx(1.99)


def test_flop_math_and_bus_factors():
    from gpuprof.bench.collective import bus_factor
    from gpuprof.bench.gemm import gemm_tflops

    assert gemm_tflops(1000, 2000, 3000, 1.0) == pytest.approx(12e-3)
    assert _gemm("x", 1.0).flop == 2 * 1024**3
    assert bus_factor("all_reduce", 8) == pytest.approx(1.75)
    assert bus_factor("all_gather", 8) == pytest.approx(0.875)
    assert bus_factor("all_reduce", 2) == pytest.approx(1.0)


def test_oom_detection():
    assert is_oom(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert is_oom(type("OutOfMemoryError", (RuntimeError,), {})("x"))
    assert not is_oom(ValueError("out of range"))


# --- runner protocol ------------------------------------------------------------------------------


def test_runner_progress_order_results_and_states():
    seen, results, states = [], [], []
    run = _runner(
        [Case("gemm", "a", _steps("a", 3), 10), Case("gemm", "b", _steps("b", 2), 10)]
    ).run(on_progress=seen.append, on_result=results.append, on_state=states.append)
    assert states == [RunState.STARTING, RunState.RUNNING, RunState.SUCCESS]
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert [p.case_index for p in seen] == sorted(p.case_index for p in seen)
    assert [r.case for r in results] == ["a-0", "a-1", "a-2", "b-0", "b-1"]
    assert [r.case for r in run.results] == [r.case for r in results]
    assert run.state is RunState.SUCCESS and run.run_id


def test_a_failing_case_does_not_stop_the_suite():
    run = _runner(
        [
            Case("gemm", "bad", _steps("bad", 3, fail_at=1), 10),
            Case("gemm", "good", _steps("good", 2), 10),
        ]
    ).run()
    bad, good = run.cases
    assert bad.state is RunState.FAILURE and "bad broke at 1" in (bad.error or "")
    assert [r.case for r in bad.results] == ["bad-0"]  # what was measured before is kept
    assert good.state is RunState.SUCCESS and len(good.results) == 2
    assert run.state is RunState.PARTIAL  # a case failed: the run is not a success


def test_every_case_failing_fails_the_run():
    run = _runner([Case("gemm", "bad", _steps("bad", 2, fail_at=0), 10)]).run()
    assert run.state is RunState.FAILURE


def _yields(*results: Result):
    """A benchmark that reports ``results`` as they are (skipped, failed or measured)."""

    def bench(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        for r in results:
            yield Progress(1.0, r.case, r)
        return tuple(results)

    return bench


def test_a_failed_measurement_fails_its_case_and_the_run_is_partial():
    wrong = Result(bench="collective", case="all_reduce 8 B", status="failed: wrong values")
    run = _runner(
        [
            Case("collective", "collectives", _yields(_gemm("c-0", 1.0), wrong), 10),
            Case("gemm", "good", _steps("good", 1), 10),
        ]
    ).run()
    bad, good = run.cases
    assert bad.state is RunState.FAILURE and bad.error is None
    assert bad.notes == ("1 of 2 measurements failed",)
    assert good.state is RunState.SUCCESS and run.state is RunState.PARTIAL


def test_a_case_that_measured_nothing_is_skipped_not_a_success_nor_a_failure():
    skip = Result(bench="p2p", case="p2p", status="skipped: needs 2 CUDA devices")
    only_skips = _runner([Case("p2p", "p2p", _yields(skip), 10)]).run()
    assert only_skips.cases[0].state is RunState.SKIPPED
    assert only_skips.state is RunState.SUCCESS  # nothing failed
    with_good = _runner(
        [Case("p2p", "p2p", _yields(skip), 10), Case("gemm", "g", _steps("g", 1), 10)]
    ).run()
    assert [c.state for c in with_good.cases] == [RunState.SKIPPED, RunState.SUCCESS]
    assert with_good.state is RunState.SUCCESS
    # Skipped cases measured nothing either: beside a failed one, the run failed.
    with_bad = _runner(
        [Case("p2p", "p2p", _yields(skip), 10), Case("gemm", "b", _steps("b", 1, fail_at=0), 10)]
    ).run()
    assert with_bad.state is RunState.FAILURE


def test_cancel_from_a_callback_interrupts_and_skips_the_rest():
    token = CancelToken()

    def on_result(r):
        if r.case == "a-1":
            token.cancel()

    run = _runner(
        [Case("gemm", "a", _steps("a", 5), 10), Case("gemm", "b", _steps("b", 2), 10)]
    ).run(on_result=on_result, cancel=token)
    assert run.state is RunState.INTERRUPTED
    assert [r.case for r in run.results] == ["a-0", "a-1"]
    assert run.cases[0].state is RunState.INTERRUPTED
    assert run.cases[1].state is RunState.INTERRUPTED and run.cases[1].notes == (
        "not started: cancelled",
    )


def test_cancel_from_another_thread_stops_a_running_case():
    started = threading.Event()

    def endless(ctx):
        while True:
            ctx.check()
            started.set()
            ctx.cancel.wait(0.01)
            yield Progress(0.5, "spinning")

    token = CancelToken()
    out = {}
    worker = threading.Thread(
        target=lambda: out.setdefault(
            "run", _runner([Case("gemm", "spin", endless, 60)]).run(cancel=token)
        )
    )
    worker.start()
    assert started.wait(10)
    token.cancel()
    worker.join(10)
    assert not worker.is_alive()
    assert out["run"].state is RunState.INTERRUPTED


def test_time_budget_is_given_to_the_case_and_shrinks_on_retry():
    clock = FakeClock()
    budgets = []

    def slow(ctx):
        budgets.append(ctx.time_left_s())
        n = 0
        while not ctx.over_budget():
            clock.advance(1.0)
            n += 1
            yield Progress(0.1, "tick", _gemm(f"t{n}", 1.0))
        return ()

    run = _runner([Case("gemm", "slow", slow, 5.0)], clock=clock).run()
    assert budgets == [pytest.approx(5.0)]
    assert len(run.results) == 5


def test_oom_retries_smaller_and_says_so():
    scales = []

    def hungry(ctx):
        scales.append(ctx.scale)
        if "gemm/small" not in ctx.done_keys:
            r = _gemm("small", 1.0)
            yield Progress(0.5, "small", r)
        if ctx.scale > 0.25:
            raise RuntimeError("CUDA out of memory. Tried to allocate 64.00 GiB")
        r = _gemm(f"big x{ctx.scale:g}", 2.0)
        yield Progress(1.0, "big", r)
        return ()

    run = _runner([Case("gemm", "hungry", hungry, 10)]).run()
    case = run.cases[0]
    assert scales == [1.0, 0.5, 0.25]
    assert case.state is RunState.SUCCESS and case.attempts == 3
    assert [r.case for r in case.results] == ["small", "big x0.25"]  # kept, not measured twice
    assert any("out of memory" in n and "x0.5" in n for n in case.notes)


class FakeNvml:
    kind = SourceKind.NVML
    label = "fake"

    def __init__(self):
        self.reasons: tuple[str, ...] = ()
        self.polls = 0

    def poll(self):
        self.polls += 1
        gpu = GpuSample(
            index=0,
            clock_sm_mhz=1980.0,
            power_w=690.0,
            temp_gpu_c=70.0,
            throttle_reasons=self.reasons,
        )
        return Snapshot(time_s=0.0, source=SourceKind.NVML, host=HostSample(), gpus=(gpu,))

    def close(self, timeout_s: float = 1.0):
        pass


def test_results_measured_while_throttled_are_flagged():
    src = FakeNvml()

    def bench(ctx):
        src.reasons = ("applications_clocks_setting",)
        yield Progress(0.3, "cool", _gemm("cool", 1.0))
        src.reasons = ("sw_power_cap", "hw_thermal_slowdown")
        yield Progress(0.6, "hot", _gemm("hot", 1.0))
        src.reasons = ()
        yield Progress(1.0, "cool again", _gemm("cool again", 1.0))
        return ()

    wall = FakeClock(1000.0)

    def progress(_p):
        wall.advance(1.0)

    run = _runner([Case("gemm", "g", bench, 10)], source=src, wall_clock=wall).run(
        on_progress=progress
    )
    flags = {r.case: r.throttle_reasons for r in run.results}
    assert flags == {"cool": (), "hot": ("hw_thermal_slowdown", "sw_power_cap"), "cool again": ()}
    assert run.results[1].throttled and not run.results[0].throttled
    assert run.telemetry and all(p.power_w == 690.0 for p in run.telemetry)


def test_simulated_telemetry_is_not_attached():
    src = FakeNvml()
    src.kind = SourceKind.SIMULATED
    src.reasons = ("sw_power_cap",)
    run = _runner([Case("gemm", "a", _steps("a", 1), 10)], source=src).run()
    assert src.polls == 0 and run.telemetry == ()
    assert not run.results[0].throttled
    assert any("simulated" in n for n in run.notes)


def test_parse_only_and_bad_names():
    assert parse_only("memory, gemm") == ("gemm", "memory")
    assert parse_only(None)[0] == "gemm"
    with pytest.raises(InputError, match="unknown benchmark"):
        parse_only("gemm,disk")
    with pytest.raises(InputError):
        Runner(suite="huge")


def test_plan_cases_cpu_covers_every_bench():
    from gpuprof.bench.runner import plan_cases

    names = [c.name for c in plan_cases("cpu", "quick")]
    assert names[:5] == ["gemm fp32", "gemm tf32", "gemm fp16", "gemm bf16", "gemm fp8"]
    assert {
        "memory host",
        "p2p",
        "collectives",
        "workload transformer bf16",
        "workload conv bf16",
    } <= set(names)
    assert [c.bench for c in plan_cases("cpu", "standard", ["workload"])] == ["workload"] * 3


def test_importing_the_bench_package_does_not_import_torch():
    code = (
        "import sys, gpuprof.bench.runner, gpuprof.bench.results, gpuprof.bench.gemm, "
        "gpuprof.bench.memory, gpuprof.bench.collective, gpuprof.bench.workload, gpuprof.bench.p2p, "
        "gpuprof.commands.bench; print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- results database and JSON --------------------------------------------------------------------


def _sample_run(run_id: str, tflops: float, started: float = 1.7e9) -> BenchRun:

    results: tuple[Result, ...] = (
        _gemm("fp32 1024x1024x1024", tflops),
        memory_result(
            "host 1 MiB",
            1e10,
            size=2**20,
            max_bytes_s=1.2e10,
            traffic_factor=2,
            verified=True,
            throttle_reasons=("sw_power_cap",),
        ),
        all_reduce_result(
            "all_reduce 8 B", 2, 8e4, p50_s=1e-4, p99_s=2e-4, backend="gloo", size=8, dtype="fp32"
        ),
        WorkloadResult(
            bench="workload",
            case="transformer",
            model="transformer",
            dtype="bf16",
            batch=4,
            seq_len=64,
            params=123,
            steps=3,
            step_time_median_s=0.1,
            throughput_per_s=2560.0,
            unit="tokens",
        ),
        P2PResult(
            bench="p2p",
            case="matrix 2 GPUs",
            devices=(0, 1),
            size_bytes=2**26,
            access=((True, True), (True, True)),
            links=(("self", "NVLink (NV18)"), ("NVLink (NV18)", "self")),
            uni_bw_on_bytes_s=((1e12, 3e11), (3e11, None)),
        ),
        Result(bench="p2p", case="matrix", status="skipped: needs 2 CUDA devices"),
    )
    case = bench_case("gemm", "all", *results, elapsed_s=1.5, budget_s=5.0, notes=("note",))
    return bench_run(
        case,
        run_id=run_id,
        started_s=started,
        seconds=2,
        only=("gemm",),
        environment=Environment(hostname="h", torch_threads=2, compute_capability=(9, 0)),
        telemetry=(
            TelemetryPoint(time_s=started, gpu_index=0, power_w=100.0, throttle_reasons=("x",)),
        ),
    )


def test_json_round_trip_keeps_types_and_values(tmp_path):
    from gpuprof.bench.results import read_json, write_json

    run = _sample_run("20250101-000000-abcd", 2.0)
    path = write_json(run, tmp_path / "run.json")
    doc = json.loads(path.read_text())
    assert doc["format"] == "gpuprof-bench-run" and doc["schema_version"] == 1
    assert doc["cases"][0]["results"][0]["type"] == "GemmResult"
    back = read_json(path)
    assert back == run
    assert isinstance(back.results[1], MemoryResult) and back.results[1].throttled


def test_results_db_round_trip_list_resolve_compare(tmp_path):
    from gpuprof.bench.results import ResultsDB

    db = ResultsDB(tmp_path / "r.sqlite")
    a = _sample_run("20250101-000000-aaaa", 2.0, started=1.7e9)
    b = _sample_run("20250102-000000-bbbb", 3.0, started=1.7e9 + 86400)
    db.save(a)
    db.save(b)
    assert db.load("20250101-000000-aaaa") == a
    assert db.load("20250102") == b  # a unique prefix
    assert db.load("latest") == b
    assert [r.run_id for r in db.list_runs()] == [b.run_id, a.run_id]
    summary = db.list_runs()[0]
    assert (summary.n_results, summary.n_ok) == (6, 5)
    with pytest.raises(InputError, match="ambiguous"):
        db.resolve("2025")
    with pytest.raises(InputError, match="no benchmark run"):
        db.load("1999")
    rows = {c.key: c for c in db.compare(a.run_id, b.run_id)}
    gemm = rows["gemm/fp32 1024x1024x1024"]
    assert gemm.ratio == pytest.approx(1.5) and gemm.unit == "TFLOPS"
    assert rows["p2p/matrix"].ratio is None and rows["p2p/matrix"].a_status.startswith("skipped")
    db.delete(a.run_id)
    assert [r.run_id for r in db.list_runs()] == [b.run_id]


def test_results_db_default_path_is_in_the_data_dir():
    from gpuprof.bench.results import ResultsDB
    from gpuprof.paths import results_db_path

    assert ResultsDB().path == results_db_path()


# --- the real benchmarks on the CPU, small sizes ----------------------------------------------------


def _ctx(**kw) -> CaseContext:
    kw.setdefault("budget_s", 30.0)
    return CaseContext(device="cpu", **kw)


def test_cpu_gemm_measures_real_products():
    from gpuprof.bench.gemm import gemm_bench

    steps, results = drain(
        gemm_bench("fp32", [("", 64, 64, 64), ("tiny llm", 32, 128, 64)])(_ctx())
    )
    assert [s.result for s in steps if s.result is not None] == list(results)
    first, second = results
    assert isinstance(first, GemmResult) and first.status == "ok"
    assert first.tflops_median > 0 and first.iterations >= 3
    assert first.tflops_median * 1e12 * first.time_median_s == pytest.approx(2 * 64**3)
    assert first.tflops_max >= first.tflops_median
    assert (
        first.peak_tflops is None and first.pct_of_peak is None
    )  # CPU: no spec peak, never guessed
    assert (second.m, second.n, second.k) == (32, 128, 64) and second.case.endswith("tiny llm")


def test_cpu_bf16_gemm_runs_and_unsupported_dtypes_say_why():
    from gpuprof.bench.gemm import gemm_bench

    _, (bf16,) = drain(gemm_bench("bf16", [("", 32, 32, 32)])(_ctx()))
    assert bf16.status == "ok" and bf16.tflops_median > 0
    for dtype, why in (("tf32", "CUDA"), ("fp8", "8.9")):
        _, (res,) = drain(gemm_bench(dtype)(_ctx()))
        assert res.status.startswith("skipped") and why in res.status


def test_cpu_gemm_time_boxes_products_that_would_take_too_long():
    from gpuprof.bench import gemm

    _, results = drain(
        gemm.gemm_bench("fp16", [("", 32, 32, 32), ("", 16384, 16384, 16384)])(_ctx())
    )
    assert results[0].status == "ok"
    assert results[1].status.startswith("skipped: one product would take")


def test_spec_peak_comes_from_the_catalog_or_stays_unknown():
    from gpuprof.bench.gemm import spec_peak_tflops

    assert spec_peak_tflops(None, "bf16") is None
    assert spec_peak_tflops("Some Unknown GPU 9000", "bf16") is None
    peak = spec_peak_tflops("NVIDIA H100 80GB HBM3", "bf16", 79.6)
    assert peak is None or peak > 500  # when the catalog knows the H100, its dense BF16 peak


def test_cpu_host_copy_is_verified():
    from gpuprof.bench.memory import MiB, memory_bench

    _, results = drain(memory_bench("host", [MiB, 4 * MiB])(_ctx()))
    assert [r.size_bytes for r in results] == [MiB, 4 * MiB]
    for r in results:
        assert r.verified and r.status == "ok" and r.samples >= 3
        assert r.bandwidth_bytes_s > 0 and r.bandwidth_max_bytes_s >= r.bandwidth_bytes_s
        assert r.traffic_factor == 2 and any("2x" in n for n in r.notes)


def test_memory_verification_catches_a_wrong_copy(monkeypatch):
    import torch

    from gpuprof.bench import memory

    real = memory._buffers

    def broken(*a, **kw):
        src, dst, block = real(*a, **kw)
        src[0] ^= 0xFF  # the source no longer matches the pattern the check expects
        return src, dst, block

    monkeypatch.setattr(memory, "_buffers", broken)
    _, (res,) = drain(memory.memory_bench("host", [memory.MiB])(_ctx()))
    assert not res.verified and res.status.startswith("failed")
    assert torch.get_num_threads() >= 1


def test_cpu_without_gpu_skips_p2p_and_device_copies():
    from gpuprof.bench.memory import memory_bench
    from gpuprof.bench.p2p import link_label, p2p_bench

    _, (res,) = drain(p2p_bench()(_ctx()))
    assert res.status == "skipped: needs 2 CUDA devices"
    _, (res,) = drain(memory_bench("h2d")(_ctx()))
    assert res.status.startswith("skipped")
    assert link_label("NV18") == "NVLink (NV18)" and link_label("PIX").startswith("PCIe")
    assert link_label(None) is None


class SlowClock:
    """A machine as slow as can be: every read of the clock is 10 s after the one before, so
    every step of a benchmark seems to take seconds, whatever this machine's real speed."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 10.0
        return self.t


@pytest.mark.slow
def test_cpu_workloads_train_for_real():
    """Real training steps (forward, backward, AdamW) of a model built from the config given,
    on however slow a machine: the step limit is lifted, so nothing is skipped as too slow."""
    from gpuprof.bench.workload import ConvConfig, TransformerConfig, workload_bench

    def slow_ctx() -> CaseContext:
        return CaseContext(device="cpu", budget_s=2.0, clock=SlowClock())

    d, ff = 64, 4 * 64
    tiny = TransformerConfig(d_model=d, heads=2, seq_len=32, batch=2)
    bench = workload_bench("transformer", "fp32", config=tiny, max_cpu_step_s=math.inf)
    _, (t,) = drain(bench(slow_ctx()))
    assert isinstance(t, WorkloadResult) and t.status == "ok", t
    assert (t.batch, t.seq_len, t.unit) == (2, 32, "tokens")
    # Two LayerNorms, QKV, the projection and the MLP: the model of the config, no other.
    assert t.params == 2 * 2 * d + d * 3 * d + d * d + d * ff + ff * d
    assert t.steps >= 3 and t.step_time_median_s == pytest.approx(10.0)  # the slow clock's
    assert t.throughput_per_s == pytest.approx(t.batch * t.seq_len / t.step_time_median_s)
    conv = workload_bench(
        "conv", config=ConvConfig(image_px=16, batch=2, width=4), max_cpu_step_s=math.inf
    )
    _, (c,) = drain(conv(slow_ctx()))
    assert c.status == "ok" and c.unit == "images" and c.throughput_per_s > 0 and c.dtype == "bf16"
    assert c.steps >= 3 and c.batch == 2
    with pytest.raises(ValueError, match="TransformerConfig"):
        workload_bench("transformer", config=ConvConfig(16, 2, 4))


def test_a_workload_too_slow_for_its_budget_is_one_skipped_case(capsys):
    """The issue's run: the transformer took 43 s of a 5 s budget and was then listed both as
    skipped and as "success: took 43.2 s, over its 5 s budget". Now the warm-up step alone,
    over the step limit and the budget, skips it; the case is skipped, and said once."""
    from gpuprof.bench.workload import workload_bench
    from gpuprof.commands.bench import render_run
    from gpuprof.termtext import console

    case = Case("workload", "workload transformer bf16", workload_bench("transformer"), 5.0)
    run = _runner([case], clock=SlowClock()).run()
    (record,) = run.cases
    (res,) = record.results
    assert res.status == "skipped: one step takes 10.0 s on this CPU"
    assert record.state is RunState.SKIPPED and run.state is RunState.SUCCESS
    assert any("over its 5 s budget" in n for n in record.notes)
    render_run(run, console())
    text = capsys.readouterr().out
    assert "success" not in text.replace("state success", "")
    lines = [ln for ln in text.splitlines() if "one step takes" in ln or "budget" in ln]
    assert len(lines) == 1 and "skipped" in lines[0] and "over its 5 s budget" in lines[0], text


# --- CLI --------------------------------------------------------------------------------------------


@pytest.fixture
def tiny_plan(monkeypatch):
    from gpuprof.bench import runner
    from gpuprof.bench.gemm import gemm_bench
    from gpuprof.bench.memory import MiB, memory_bench

    def plan(device, suite, only=None):
        return [
            Case("gemm", "gemm fp32", gemm_bench("fp32", [("", 64, 64, 64)]), 10),
            Case("memory", "memory host", memory_bench("host", [MiB]), 10),
            Case(
                "p2p", "p2p", __import__("gpuprof.bench.p2p", fromlist=["p2p_bench"]).p2p_bench(), 1
            ),
        ]

    monkeypatch.setattr(runner, "plan_cases", plan)


def test_cli_run_list_show_compare(tiny_plan, tmp_path, capsys):
    from gpuprof.cli import main

    out_json = tmp_path / "run.json"
    assert main(["bench", "--device", "cpu", "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert "GEMM" in text and "fp32 64x64x64" in text and "needs 2 CUDA devices" in text
    doc = json.loads(out_json.read_text())
    first = doc["run_id"]
    assert main(["bench", "--device", "cpu"]) == 0
    capsys.readouterr()
    assert main(["bench", "list"]) == 0
    assert first in capsys.readouterr().out
    assert main(["bench", "show", first, "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == first
    assert main(["bench", "compare", first, "latest"]) == 0
    assert "gemm/fp32 64x64x64" in capsys.readouterr().out


def test_cli_a_failed_case_makes_the_run_partial_and_exits_1(monkeypatch, tmp_path, capsys):
    """The issue's run said "state success" with the collectives failed."""
    from gpuprof.bench import runner
    from gpuprof.bench.gemm import gemm_bench
    from gpuprof.cli import main

    def collectives_that_fail(ctx):
        yield Progress(0.0, "collectives: starting 2 gloo processes")
        raise RuntimeError("rank 1: injected: connection refused")

    def plan(device, suite, only=None):
        return [
            Case("gemm", "gemm fp32", gemm_bench("fp32", [("", 64, 64, 64)]), 10),
            Case("collective", "collectives", collectives_that_fail, 10),
        ]

    monkeypatch.setattr(runner, "plan_cases", plan)
    out_json = tmp_path / "run.json"
    assert main(["bench", "--device", "cpu", "--no-save", "--json", str(out_json)]) == 1
    text = capsys.readouterr().out
    assert "state partial" in text and "state success" not in text
    assert "collectives: failure: RuntimeError: rank 1: injected" in text
    doc = json.loads(out_json.read_text())
    assert doc["state"] == "partial"
    assert [c["state"] for c in doc["cases"]] == ["success", "failure"]


def test_cli_bad_input_exits_2(capsys):
    from gpuprof.cli import main

    assert main(["bench", "--only", "gemm,disk", "--device", "cpu"]) == 2
    assert "unknown benchmark disk" in capsys.readouterr().err
    assert main(["bench", "show", "nope"]) == 2
    assert main(["bench", "--device", "tpu:0"]) == 2


# --- GPU only -------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_bf16_gemm_reaches_a_plausible_share_of_peak():
    from gpuprof.bench.gemm import gemm_bench

    ctx = CaseContext(device="cuda:0", budget_s=30)
    _, (res,) = drain(gemm_bench("bf16", [("", 8192, 8192, 8192)])(ctx))
    assert res.status == "ok" and res.l2_flushed
    if res.peak_tflops is not None:
        assert 10 < res.pct_of_peak < 110


@pytest.mark.gpu
def test_gpu_copies_are_verified():
    from gpuprof.bench.memory import MiB, memory_bench

    for direction in ("h2d", "d2h", "d2d"):
        _, results = drain(
            memory_bench(direction, [64 * MiB])(CaseContext(device="cuda:0", budget_s=30))
        )
        assert results and all(r.verified for r in results)


@pytest.mark.gpu
def test_gpu_quick_suite_runs_with_nvml_telemetry():
    from gpuprof.bench.runner import open_run_telemetry

    src = open_run_telemetry("cuda:0")
    run = Runner(device="cuda:0", suite="quick", only="gemm,workload", source=src).run()
    assert run.state is RunState.SUCCESS
    assert run.environment.gpu_name and run.environment.cuda_runtime_version
    assert any(isinstance(r, GemmResult) and r.ok for r in run.results)


def test_tflops_keep_three_significant_digits_below_a_tenth():
    from gpuprof.units import fmt_measure

    assert fmt_measure("TFLOPS", 0.0013232) == "0.00132 TFLOPS"  # a CPU's FP16, not "0.001"
    assert fmt_measure("TFLOPS", 0.078) == "0.0780 TFLOPS"
    assert fmt_measure("TFLOPS", 0.117) == "0.117 TFLOPS"
    assert fmt_measure("TFLOPS", 550.0) == "550.0 TFLOPS"
    assert fmt_measure("TFLOPS", None) == "N/A"
