"""Burn-in: its verdicts on scripted telemetry series (clock drop, hardware slowdown, heat, power,
new ECC errors, XID) built from the fake H100, and a short real GEMM load on the CPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpuprof.check.burnin import BurnInItem, analyse_burnin, run_burnin
from gpuprof.telemetry.model import EccCounts, HostSample, Snapshot, SourceKind
from gpuprof.telemetry.reasons import ClockEventReason
from gpuprof.telemetry.simulated import SimulatedSource
from tests.fakes.devices import h100_info, h100_sample

MAX = float(h100_info(0).sm_clock_max_mhz or 0)
SLOWDOWN = float(h100_info(0).temp_slowdown_c or 0)


def series(n: int = 20, gpus: int = 2, **per_step: Callable[[int], Any]) -> list[Snapshot]:
    """``n`` snapshots of ``gpus`` loaded H100s; ``per_step[field](t)`` scripts GPU 0's field."""
    snaps = []
    for t in range(n):
        gpus_t = []
        for i in range(gpus):
            base: dict[str, Any] = {
                "util_gpu_pct": 100.0,
                "temp_gpu_c": 70.0,
                "power_w": 650.0,
                "ecc": EccCounts(volatile_corrected=0, volatile_uncorrected=0),
            }
            if i == 0:
                base.update({k: f(t) for k, f in per_step.items()})
            gpus_t.append(h100_sample(i, **base))
        snaps.append(
            Snapshot(
                time_s=1000.0 + t, source=SourceKind.NVML, host=HostSample(), gpus=tuple(gpus_t)
            )
        )
    return snaps


def graded(items: tuple[BurnInItem, ...], gpu: int = 0) -> dict[str, BurnInItem]:
    return {i.item_id: i for i in items if i.gpu_index == gpu}


DEVICES = (h100_info(0), h100_info(1))


def test_a_healthy_series_passes_every_item() -> None:
    items = analyse_burnin(series(), DEVICES)
    assert {i.status for i in items} == {"PASS"}
    assert [i.gpu_index for i in items] == [0] * 6 + [1] * 6


def test_a_sustained_clock_drop_fails_only_that_gpu() -> None:
    items = analyse_burnin(series(clock_sm_mhz=lambda t: MAX if t < 12 else MAX * 0.8), DEVICES)
    clock = graded(items)["burnin.clock"]
    assert clock.status == "FAIL"
    assert clock.measured == pytest.approx(MAX * 0.8) and clock.expected == MAX
    assert clock.ratio == pytest.approx(0.8)
    assert graded(items, 1)["burnin.clock"].status == "PASS"


def test_a_single_dip_or_a_small_drop_is_not_a_fail() -> None:
    dip = analyse_burnin(series(clock_sm_mhz=lambda t: MAX * 0.5 if t == 10 else MAX), DEVICES)
    assert graded(dip)["burnin.clock"].status == "PASS"
    small = analyse_burnin(series(clock_sm_mhz=lambda t: MAX if t < 10 else MAX * 0.93), DEVICES)
    assert graded(small)["burnin.clock"].status == "PASS"


def test_idle_samples_do_not_set_the_early_median() -> None:
    """The idle start (low clock, no load) is left out: the loaded clock is the baseline."""
    snaps = series(
        util_gpu_pct=lambda t: 0.0 if t < 5 else 100.0,
        clock_sm_mhz=lambda t: 345.0 if t < 5 else MAX,
    )
    assert graded(analyse_burnin(snaps, DEVICES))["burnin.clock"].status == "PASS"


@pytest.mark.parametrize(
    ("reason", "status"),
    [
        (ClockEventReason.HW_SLOWDOWN, "FAIL"),
        (ClockEventReason.HW_THERMAL_SLOWDOWN, "FAIL"),
        (ClockEventReason.HW_POWER_BRAKE_SLOWDOWN, "FAIL"),
        (ClockEventReason.SW_THERMAL_SLOWDOWN, "FAIL"),
        (ClockEventReason.SW_POWER_CAP, "WARN"),
        (ClockEventReason.SYNC_BOOST | ClockEventReason.APPLICATIONS_CLOCKS_SETTING, "PASS"),
    ],
)
def test_throttle_reasons_under_load(reason: ClockEventReason, status: str) -> None:
    items = analyse_burnin(series(throttle_mask=lambda t: int(reason) if t == 15 else 0), DEVICES)
    item = graded(items)["burnin.throttle"]
    assert item.status == status
    if status != "PASS":
        assert reason.names[0] in str(item.measured)


def test_throttle_while_idle_is_ignored() -> None:
    snaps = series(
        util_gpu_pct=lambda t: 0.0 if t == 3 else 100.0,
        throttle_mask=lambda t: int(ClockEventReason.HW_SLOWDOWN) if t == 3 else 0,
    )
    assert graded(analyse_burnin(snaps, DEVICES))["burnin.throttle"].status == "PASS"


def test_temperature_within_the_slowdown_margin_fails() -> None:
    hot = analyse_burnin(series(temp_gpu_c=lambda t: SLOWDOWN - 3 if t > 15 else 70.0), DEVICES)
    item = graded(hot)["burnin.temperature"]
    assert item.status == "FAIL" and item.measured == SLOWDOWN - 3 and item.expected == SLOWDOWN
    warm = analyse_burnin(series(temp_gpu_c=lambda t: SLOWDOWN - 10), DEVICES)
    assert graded(warm)["burnin.temperature"].status == "PASS"
    unknown = analyse_burnin(series(), (h100_info(0, temp_slowdown_c=None), h100_info(1)))
    assert graded(unknown)["burnin.temperature"].status == "SKIP"


def test_power_above_the_limit_warns() -> None:
    limit = float(h100_info(0).power_default_limit_w or 0)
    items = analyse_burnin(series(power_w=lambda t: limit * 1.2 if t == 7 else 600.0), DEVICES)
    item = graded(items)["burnin.power"]
    assert item.status == "WARN" and item.measured == pytest.approx(limit * 1.2)


def test_new_ecc_errors() -> None:
    dbe = analyse_burnin(
        series(ecc=lambda t: EccCounts(volatile_corrected=0, volatile_uncorrected=int(t > 12))),
        DEVICES,
    )
    assert graded(dbe)["burnin.ecc"].status == "FAIL"
    assert graded(dbe, 1)["burnin.ecc"].status == "PASS"
    sbe = analyse_burnin(
        series(ecc=lambda t: EccCounts(volatile_corrected=t // 5, volatile_uncorrected=0)), DEVICES
    )
    assert graded(sbe)["burnin.ecc"].status == "WARN" and graded(sbe)["burnin.ecc"].measured == 3
    remap = analyse_burnin(
        series(ecc=lambda t: EccCounts(volatile_uncorrected=0, remapped_rows_pending=t > 4)),
        DEVICES,
    )
    assert graded(remap)["burnin.ecc"].status == "FAIL"
    old = analyse_burnin(
        series(ecc=lambda t: EccCounts(volatile_corrected=7, volatile_uncorrected=2)), DEVICES
    )
    assert graded(old)["burnin.ecc"].status == "PASS"  # errors from before the load are not new


def test_xid_during_the_load_fails_that_gpu() -> None:
    items = analyse_burnin(series(), DEVICES, xids=[(1, 79), (1, 48)])
    item = graded(items, 1)["burnin.xid"]
    assert item.status == "FAIL" and item.measured == "48, 79"
    assert graded(items, 0)["burnin.xid"].status == "PASS"


def test_no_load_skips() -> None:
    items = analyse_burnin(series(util_gpu_pct=lambda t: 0.0), DEVICES)
    assert graded(items)["burnin.clock"].status == "SKIP"


def test_items_become_check_items() -> None:
    model = pytest.importorskip("gpuprof.check.model")
    item = analyse_burnin(series(), DEVICES)[0].to_check_item()
    assert item.status is model.Status.PASS and item.group == "diagnostics"


@pytest.mark.slow
def test_a_short_real_cpu_burn_in() -> None:
    pytest.importorskip("torch")
    seen: list[float] = []
    run = run_burnin("cpu", seconds=1.0, n=128, progress=lambda f, s: seen.append(f))
    assert run.error is None and run.iterations > 0 and run.tflops and run.tflops > 0
    assert run.dtype == "fp32" and not run.cancelled and seen[-1] == 1.0
    assert run.items == ()  # no telemetry source: nothing graded


def test_a_real_burn_in_sampled_through_a_session_and_cancelled() -> None:
    pytest.importorskip("torch")
    polls = 0

    def cancel() -> bool:
        nonlocal polls
        polls += 1
        return polls > 8

    run = run_burnin(
        "cpu", seconds=30.0, n=64, source=SimulatedSource("h100x8"), interval_s=0.1, cancel=cancel
    )
    assert run.cancelled and run.seconds < 10
    assert run.snapshots and {i.gpu_index for i in run.items} == set(range(8))


@pytest.mark.gpu
def test_gpu_burn_in_with_nvml_telemetry() -> None:
    from gpuprof.bench.runner import open_run_telemetry

    source = open_run_telemetry("cuda:0")
    assert source is not None
    try:
        run = run_burnin(
            "cuda:0", seconds=20.0, source=source, devices=source.devices(), gpu_indices=[0]
        )
    finally:
        source.close()
    assert run.error is None and run.dtype == "bf16" and run.tflops and run.tflops > 10
    assert {i.item_id for i in run.items} >= {"burnin.clock", "burnin.throttle", "burnin.ecc"}
