"""The check's burn-in loads every selected GPU at once: one worker per device (CPU tensors stand
in for the GPUs here), one telemetry watch through the fake NVML on 4 GPUs, one ``diag.burnin``
item per GPU judged from its own series. Concurrency and the wall time are asserted through the
load windows each worker records, not by timing the test."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from gpuprof.bench.base import CancelToken
from gpuprof.check import burnin
from gpuprof.check.model import CheckItem, CheckResult, Status, result_to_dict
from gpuprof.check.run import CheckProgress, CheckRun
from gpuprof.telemetry.nvml import source as nvml
from gpuprof.telemetry.reasons import ClockEventReason
from tests.fakes.devices import make_fleet
from tests.fakes.fake_nvml import FakeNvml

pytest.importorskip("torch")

GPUS = 4
MINUTES = 0.02  # 1.2 s of load


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeNvml:
    """4 H100s, busy, no clock-event reason set."""
    box = make_fleet(GPUS)
    for dev in box.devices:
        dev.util_gpu_pct = 100
        dev.clocks_event_reasons = 0
    fake = FakeNvml(box)
    monkeypatch.setattr(nvml, "pynvml", fake)
    return fake


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[burnin.BurnInRun]:
    """The check's burn-in on CPU tensors (small products, telemetry every 0.1 s); each
    :class:`BurnInRun` it returns is kept."""
    return _patch(monkeypatch, lambda d: "cpu")


def _patch(
    monkeypatch: pytest.MonkeyPatch, tensor_device: Callable[[str], str]
) -> list[burnin.BurnInRun]:
    seen: list[burnin.BurnInRun] = []
    real = functools.partial(burnin.run_burnin, n=64, interval_s=0.1, tensor_device=tensor_device)

    def run_burnin(*args: Any, **kw: Any) -> burnin.BurnInRun:
        run = real(*args, **kw)
        seen.append(run)
        return run

    monkeypatch.setattr(burnin, "run_burnin", run_burnin)
    return seen


def _check(fake: FakeNvml, **kw: Any) -> CheckResult:
    source = nvml.NvmlSource(clock=fake.clock)
    try:
        run = CheckRun(
            level="burn-in",
            minutes=MINUTES,
            source=source,
            poll_interval_s=0.0,
            bench_results=lambda dev: (),
        )
        return run.run(**kw)
    finally:
        source.close()


def _burnin_items(res: CheckResult) -> dict[int | None, CheckItem]:
    items = [i for i in res.items if i.item_id == "diag.burnin"]
    by = {i.gpu_index: i for i in items}
    assert len(by) == len(items), items  # one per GPU
    return by


def _graded(res: CheckResult, item_id: str) -> dict[int | None, Status]:
    return {i.gpu_index: i.status for i in res.items if i.item_id == item_id}


@pytest.mark.slow
def test_all_gpus_load_at_once_and_a_throttle_on_gpu_2_fails_only_gpu_2(
    fake: FakeNvml, runs: list[burnin.BurnInRun]
) -> None:
    fake.box.devices[2].clocks_event_reasons = int(ClockEventReason.HW_SLOWDOWN)
    res = _check(fake)
    (run,) = runs  # one burn-in for the node, not one per GPU
    assert [x.device for x in run.loads] == [f"cuda:{i}" for i in range(GPUS)]
    assert all(x.error is None and x.iterations > 0 for x in run.loads), run.loads
    starts = [x.started_s for x in run.loads]
    ends = [x.ended_s for x in run.loads]
    assert None not in starts and None not in ends
    seconds = MINUTES * 60
    # Concurrent: every worker had started before any of them ended.
    assert max(s for s in starts if s is not None) < min(e for e in ends if e is not None)
    # About N in all, not GPUS × N: the windows span less than twice the load time.
    span = max(e for e in ends if e is not None) - min(s for s in starts if s is not None)
    assert seconds * 0.5 < span < 2 * seconds, span
    # One telemetry watch for all GPUs: each snapshot holds all four.
    assert run.snapshots and all(len(s.gpus) == GPUS for s in run.snapshots)

    assert _graded(res, "burnin.throttle") == {
        0: Status.PASS,
        1: Status.PASS,
        2: Status.FAIL,
        3: Status.PASS,
    }
    items = _burnin_items(res)
    assert set(items) == set(range(GPUS))
    assert items[2].status is Status.FAIL and "burnin.throttle FAIL" in items[2].reason
    assert all(items[i].status is Status.PASS for i in (0, 1, 3)), items
    assert "64²" in str(items[0].measured)
    # The JSON keeps its shape: the same keys, the GPU named by gpu_index.
    doc = json.loads(json.dumps(result_to_dict(res)))
    rows = [i for i in doc["items"] if i["item_id"] == "diag.burnin"]
    assert sorted(r["gpu_index"] for r in rows) == list(range(GPUS))
    assert all(r["group"] == "diagnostics" for r in rows)


@pytest.mark.slow
def test_an_error_on_one_device_fails_that_gpu_only(
    fake: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    def place(device: str) -> str:
        if device == "cuda:1":
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return "cpu"

    seen = _patch(monkeypatch, place)
    res = _check(fake)
    items = _burnin_items(res)
    assert items[1].status is Status.FAIL
    assert "cuda:1" in items[1].reason and "illegal memory access" in items[1].reason
    assert all(items[i].status is Status.PASS for i in (0, 2, 3)), items
    (run,) = seen
    assert run.loads[1].iterations == 0 and run.loads[1].started_s is None
    assert all(run.loads[i].iterations > 0 for i in (0, 2, 3))


def test_cancel_mid_run_stops_every_worker(
    fake: FakeNvml, runs: list[burnin.BurnInRun], monkeypatch: pytest.MonkeyPatch
) -> None:
    cancel = CancelToken()
    at: list[float] = []

    def on_progress(p: CheckProgress) -> None:
        # Ctrl-C once the burn-in has reported products (every worker is running then).
        if p.stage.startswith("burn-in:") and p.fraction > 0.8 and not at:
            import time

            at.append(time.monotonic())
            cancel.cancel()

    source = nvml.NvmlSource(clock=fake.clock)
    try:
        res = CheckRun(
            level="burn-in",
            minutes=5.0,  # would run 5 minutes
            source=source,
            poll_interval_s=0.0,
            bench_results=lambda dev: (),
        ).run(on_progress=on_progress, cancel=cancel)
    finally:
        source.close()
    (run,) = runs
    assert res.cancelled and run.cancelled and at
    # Every worker left its loop within a bound of the cancel (the run asked for 300 s).
    assert all(x.ended_s is not None and x.ended_s < at[0] + 5.0 for x in run.loads), run.loads
    assert all(x.error is None for x in run.loads)  # none was left running
    assert not [t for t in threading.enumerate() if t.name.startswith("burnin ")]
    items = _burnin_items(res)
    assert set(items) == set(range(GPUS))
    assert all(i.status is Status.SKIP and i.reason == "cancelled" for i in items.values())


@pytest.mark.slow
def test_the_cpu_keeps_one_worker(runs: list[burnin.BurnInRun]) -> None:
    res = CheckRun(device="cpu", level="burn-in", minutes=0.01).run()
    (run,) = runs
    assert [x.device for x in run.loads] == ["cpu"] and run.loads[0].dtype == "fp32"
    items = _burnin_items(res)
    assert list(items) == [None] and items[None].status is Status.PASS


def test_run_burnin_alone_loads_its_devices_together() -> None:
    run = burnin.run_burnin(["cuda:0", "cuda:1"], seconds=0.5, n=32, tensor_device=lambda d: "cpu")
    assert run.device == "cuda:0, cuda:1" and run.error is None
    assert run.iterations == sum(x.iterations for x in run.loads) > 0
    assert [x.gpu_index for x in run.loads] == [0, 1]
    a, b = run.loads
    assert a.started_s is not None and b.started_s is not None
    assert a.ended_s is not None and b.ended_s is not None
    assert max(a.started_s, b.started_s) < min(a.ended_s, b.ended_s)
    with pytest.raises(ValueError):
        burnin.run_burnin([], seconds=1.0)


@pytest.mark.gpu
def test_gpu_burn_in_loads_every_visible_gpu_at_once() -> None:
    import torch

    from gpuprof.bench.runner import open_run_telemetry

    names = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    source = open_run_telemetry("cuda:0")
    assert source is not None
    try:
        infos = source.devices()
        run = burnin.run_burnin(
            names,
            seconds=15.0,
            source=source,
            devices=infos,
            gpu_indices=[d.index for d in infos][: len(names)],
        )
    finally:
        source.close()
    assert run.error is None and all(x.dtype == "bf16" for x in run.loads)
    assert all(x.tflops and x.tflops > 10 for x in run.loads), run.loads
    starts = [x.started_s or 0.0 for x in run.loads]
    ends = [x.ended_s or 0.0 for x in run.loads]
    assert max(starts) < min(ends)  # every GPU under load at the same time
    assert {i.gpu_index for i in run.items} == set(range(len(names)))


@pytest.mark.slow
def test_a_stuck_worker_is_reported_and_not_waited_for(
    fake: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    # cuda:2's worker never comes back from the driver (here: placing its tensors blocks).
    # The burn-in waits JOIN_S for it, then reports it and fails only GPU 2.
    release = threading.Event()

    def place(device: str) -> str:
        if device == "cuda:2":
            release.wait(30.0)
        return "cpu"

    monkeypatch.setattr(burnin, "JOIN_S", 0.3)
    seen = _patch(monkeypatch, place)
    try:
        res = _check(fake)
    finally:
        release.set()
    (run,) = seen
    items = _burnin_items(res)
    assert items[2].status is Status.FAIL and "still running" in items[2].reason, items[2]
    assert all(items[i].status is Status.PASS for i in (0, 1, 3)), items
    assert run.loads[2].iterations == 0
    for t in threading.enumerate():  # the released worker leaves (stop is set)
        if t.name == "burnin cuda:2":
            t.join(10.0)
            assert not t.is_alive()
