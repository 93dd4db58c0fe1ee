"""Health findings: one scenario per finding, built from the model dataclasses.

Device values follow the reference captures (H100 SXM5: Gen5 x16, 700 W default limit; L4: Gen4
x16 that idles at Gen1 x8).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuprof.health.diagnose import Finding, Severity, checks_not_run, diagnose, normalize_reason
from gpuprof.telemetry.model import (
    EccCounts,
    GpuSample,
    HostSample,
    MigDeviceInfo,
    ProcessSample,
    Snapshot,
    SourceKind,
    SystemInfo,
)
from tests.fakes.devices import h100_info, h100_sample

GIB = 2**30

H100 = h100_info(0)

BUSY = h100_sample(
    0,
    util_gpu_pct=98.0,
    mem_used_bytes=60 * GIB,
    power_w=690.0,
    temp_gpu_c=62.0,
    ecc=EccCounts.clean(),
)
IDLE = replace(BUSY, util_gpu_pct=0.0, mem_used_bytes=500 * 2**20, power_w=70.0, pcie_gen=1)


def snap(*gpus: GpuSample, t: float = 0.0, procs: tuple[ProcessSample, ...] = ()) -> Snapshot:
    return Snapshot(
        time_s=t, source=SourceKind.SIMULATED, host=HostSample(), gpus=gpus, processes=procs
    )


def window(*samples: GpuSample, procs: tuple[ProcessSample, ...] = ()) -> list[Snapshot]:
    return [snap(s, t=float(k), procs=procs) for k, s in enumerate(samples)]


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def only(findings: list[Finding], code: str) -> Finding:
    hits = [f for f in findings if f.code == code]
    assert len(hits) == 1, codes(findings)
    return hits[0]


def test_healthy_busy_gpu_has_no_findings():
    assert diagnose([H100], window(BUSY, BUSY, BUSY)) == []


def test_single_snapshot_is_accepted():
    assert diagnose([H100], snap(BUSY)) == []


def test_pcie_below_max_under_load_is_flagged():
    slow = replace(BUSY, pcie_gen=4, pcie_width=8)
    f = only(diagnose([H100], window(slow, slow)), "pcie_link_degraded")
    assert f.severity is Severity.WARNING
    assert f.gpu_index == 0
    assert "Gen4 x8" in f.detail and "Gen5 x16" in f.detail


def test_pcie_downshift_while_idle_is_not_flagged():
    # The L4 capture shows Gen1 x8 at idle: power saving, not a fault.
    idle = replace(IDLE, pcie_gen=1, pcie_width=8)
    assert "pcie_link_degraded" not in codes(diagnose([H100], window(idle, idle)))


def test_pcie_uses_best_link_seen_under_load():
    # One busy sample caught mid-transition at Gen3; another reached Gen5: the link is fine.
    dip = replace(BUSY, pcie_gen=3)
    assert "pcie_link_degraded" not in codes(diagnose([H100], window(dip, BUSY)))


def test_power_limit_below_default():
    capped = replace(BUSY, power_limit_w=500.0)
    f = only(diagnose([H100], window(capped)), "power_limit_below_default")
    assert f.severity is Severity.WARNING
    assert "500 W" in f.detail and "700 W" in f.detail
    assert "-pl 700" in f.hint


def test_power_limit_rounding_is_tolerated():
    assert diagnose([H100], window(replace(BUSY, power_limit_w=699.5))) == []


@pytest.mark.parametrize(
    ("reason", "code", "severity"),
    [
        ("hw_thermal_slowdown", "thermal_throttling", Severity.CRITICAL),
        ("sw_thermal_slowdown", "thermal_throttling", Severity.WARNING),
        ("sw_power_cap", "power_throttling", Severity.WARNING),
        ("hw_power_brake_slowdown", "power_throttling", Severity.CRITICAL),
        ("hw_slowdown", "hw_slowdown", Severity.CRITICAL),
        # Other spellings seen in the wild: nvidia-smi text, dcgm-exporter labels, NVML constants.
        ("HW Thermal Slowdown", "thermal_throttling", Severity.CRITICAL),
        ("power_cap", "power_throttling", Severity.WARNING),
        ("clocksEventReasonSwThermalSlowdown", "thermal_throttling", Severity.WARNING),
    ],
)
def test_throttling_under_load(reason, code, severity):
    hot = replace(BUSY, throttle_reasons=(reason,), temp_gpu_c=88.0)
    f = only(diagnose([H100], window(hot, hot, BUSY)), code)
    assert f.severity is severity
    assert "88 °C" in f.detail
    assert "67%" in f.detail  # 2 of 3 busy samples


def test_throttling_decoded_from_mask_when_names_are_missing():
    hot = replace(BUSY, throttle_mask=0x40 | 0x1)
    assert "thermal_throttling" in codes(diagnose([H100], window(hot)))


def test_idle_and_benign_reasons_are_not_throttling():
    benign = replace(
        BUSY, throttle_reasons=("gpu_idle", "sync_boost", "applications_clocks_setting")
    )
    assert diagnose([H100], window(benign)) == []
    idle_capped = replace(IDLE, throttle_reasons=("sw_power_cap",))
    assert diagnose([H100], window(idle_capped)) == []


def test_rare_throttle_blip_is_ignored():
    hot = replace(BUSY, throttle_reasons=("sw_thermal_slowdown",))
    assert diagnose([H100], window(hot, *([BUSY] * 19))) == []


def test_normalize_reason_spellings():
    assert normalize_reason("SW Power Cap") == "sw_power_cap"
    assert (
        normalize_reason("clocks_event_reason_hw_power_brake_slowdown") == "hw_power_brake_slowdown"
    )
    assert normalize_reason("HW Slowdown") == "hw_slowdown"
    assert normalize_reason("Idle") == "gpu_idle"
    assert normalize_reason("Display Clock Setting") == "display_clock_setting"


def test_uncorrectable_ecc_is_critical():
    bad = replace(BUSY, ecc=replace(BUSY.ecc, volatile_uncorrected=2, volatile_corrected=5))
    f = only(diagnose([H100], window(bad)), "ecc_uncorrectable")
    assert f.severity is Severity.CRITICAL
    assert "2 uncorrectable" in f.detail
    assert "ecc_corrected" not in codes(diagnose([H100], window(bad)))


def test_corrected_ecc_is_info():
    soft = replace(BUSY, ecc=replace(BUSY.ecc, aggregate_corrected=12))
    f = only(diagnose([H100], window(soft)), "ecc_corrected")
    assert f.severity is Severity.INFO


def test_retired_pages_and_pending_retirement():
    # Volta-style: retired pages counted, remapped rows N/A.
    ecc = EccCounts(retired_pages_sbe=1, retired_pages_dbe=2, retired_pages_pending=True)
    found = diagnose([H100], window(replace(BUSY, ecc=ecc)))
    assert only(found, "memory_retired").severity is Severity.WARNING
    assert "3 retired pages" in only(found, "memory_retired").detail
    assert only(found, "memory_repair_pending").severity is Severity.WARNING


def test_remapped_rows_and_remap_failure():
    ecc = replace(BUSY.ecc, remapped_rows_correctable=1, remapped_rows_failure=True)
    found = diagnose([H100], window(replace(BUSY, ecc=ecc)))
    assert only(found, "row_remap_failure").severity is Severity.CRITICAL
    assert only(found, "memory_retired").severity is Severity.INFO
    assert found[0].severity is Severity.CRITICAL  # most urgent first


def test_low_utilization_while_a_job_runs():
    starved = replace(BUSY, util_gpu_pct=35.0)
    proc = (ProcessSample(pid=4242, gpu_index=0, gpu_mem_bytes=60 * GIB, name="python"),)
    f = only(
        diagnose([H100], window(starved, replace(starved, util_gpu_pct=45.0), procs=proc)),
        "low_utilization",
    )
    assert f.severity is Severity.WARNING
    assert "40%" in f.detail  # mean of 35 and 45
    assert "input pipeline" in f.hint


def test_low_utilization_detected_from_memory_without_process_info():
    # Containers often hide processes (process_info_permitted=False): memory in use still counts.
    starved = replace(BUSY, util_gpu_pct=20.0)
    assert "low_utilization" in codes(diagnose([H100], window(starved)))


def test_idle_gpu_without_job_is_not_low_utilization():
    assert diagnose([H100], window(IDLE, IDLE)) == []


def test_persistence_mode_off():
    f = only(diagnose([replace(H100, persistence_mode=False)], window(BUSY)), "persistence_off")
    assert f.severity is Severity.INFO
    assert "nvidia-smi -pm 1" in f.hint
    # Windows reports N/A (None): no finding.
    assert diagnose([replace(H100, persistence_mode=None)], window(BUSY)) == []


def test_mig_enabled_and_utilization_not_judged():
    mig = replace(
        H100,
        mig_mode_current=True,
        mig_devices=(
            MigDeviceInfo(index=0, name="MIG 3g.40gb"),
            MigDeviceInfo(index=1, name="MIG 3g.40gb"),
        ),
    )
    starved = replace(BUSY, util_gpu_pct=None)
    found = diagnose([mig], window(starved))
    assert codes(found) == ["mig_enabled"]
    assert "2 instances" in found[0].title


@pytest.mark.parametrize(
    ("driver_cuda", "torch_cuda", "severity"),
    [("11.8", "12.4", Severity.CRITICAL), ("12.2", "12.4", Severity.WARNING)],
)
def test_driver_too_old_for_torch(driver_cuda, torch_cuda, severity):
    system = SystemInfo(driver_version="535.54.03", cuda_driver_version=driver_cuda)
    f = only(
        diagnose([H100], window(BUSY), torch_cuda_version=torch_cuda, system=system),
        "driver_too_old",
    )
    assert f.severity is severity
    assert f.gpu_index is None
    assert torch_cuda in f.detail and driver_cuda in f.detail


@pytest.mark.parametrize(
    ("driver_cuda", "torch_cuda"),
    [("12.7", "12.4"), ("12.4", "12.4"), ("13.1", None), (None, "12.4")],
)
def test_driver_new_enough_or_unknown(driver_cuda, torch_cuda):
    system = SystemInfo(cuda_driver_version=driver_cuda)
    assert diagnose([H100], window(BUSY), torch_cuda_version=torch_cuda, system=system) == []


def test_lost_gpu_is_critical_and_other_gpus_are_judged_separately():
    second = replace(H100, index=1, persistence_mode=False)
    snaps = [snap(replace(BUSY, lost=True), replace(BUSY, index=1))]
    found = diagnose([H100, second], snaps)
    assert [(f.code, f.gpu_index) for f in found] == [("gpu_lost", 0), ("persistence_off", 1)]


def test_findings_are_frozen():
    f = only(diagnose([replace(H100, persistence_mode=False)], window(BUSY)), "persistence_off")
    with pytest.raises(AttributeError):
        f.code = "x"  # type: ignore[misc]


def test_checks_not_run_name_what_had_nothing_to_judge():
    """A check that did not run found nothing, but it did not pass: say so, and why."""
    system = SystemInfo(cuda_driver_version="12.7")
    assert checks_not_run([H100], window(BUSY), torch_cuda_version="12.4", system=system) == {}
    no_torch = checks_not_run([H100], window(BUSY), torch_cuda_version=None, system=system)
    assert no_torch == {"driver_too_old": "no CUDA build of torch is installed: nothing to compare"}
    unknown = checks_not_run([H100], window(BUSY), torch_cuda_version="12.4")
    assert set(unknown) == {"driver_too_old"}
    idle = checks_not_run(
        [H100], window(replace(IDLE, ecc=None)), torch_cuda_version="12.4", system=system
    )
    assert set(idle) == {
        "pcie_link_degraded",
        "thermal_throttling",
        "power_throttling",
        "hw_slowdown",
        "ecc_uncorrectable",
        "ecc_corrected",
        "row_remap_failure",
        "memory_repair_pending",
        "memory_retired",
        "low_utilization",
    }
    assert idle["pcie_link_degraded"] == "no GPU was under load (utilization ≥ 50%)"
    # One GPU with something to judge is enough: the check ran.
    pair = [H100, replace(H100, index=1)]
    one_busy = [snap(replace(IDLE, ecc=None), replace(BUSY, index=1), t=float(k)) for k in range(2)]
    assert checks_not_run(pair, one_busy, torch_cuda_version="12.4", system=system) == {}
