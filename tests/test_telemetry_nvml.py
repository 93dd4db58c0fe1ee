"""gpuprof.telemetry.nvml.source against the fake NVML: every state of issue 2, through the real code."""

from __future__ import annotations

import os
import sys
import threading

import pynvml as real_pynvml
import pytest

from gpuprof.telemetry.model import SourceKind, SourceState
from gpuprof.telemetry.nvml import source as nvml
from gpuprof.telemetry.nvml import values as nvml_values
from gpuprof.telemetry.nvml.source import (
    Diagnostics,
    NvmlSource,
    decode_clock_event_reasons,
    topology_label,
)
from gpuprof.telemetry.source import TelemetrySource
from tests.fakes.devices import BOXES, a100_mig_box, h100_sxm_8gpu_box, make_fleet, t4_box
from tests.fakes.fake_nvml import FakeNvLink, FakeNvml, FakeProcess, mib

MIB = 1024 * 1024


def make_source(fake: FakeNvml, **kwargs) -> NvmlSource:
    return NvmlSource(nvml=fake, clock=fake.clock, **kwargs)


# --- the module's NVML constants are pynvml's -----------------------------------------------


def test_hardcoded_enums_match_pynvml() -> None:
    pairs = {
        "ERROR_UNINITIALIZED": "NVML_ERROR_UNINITIALIZED",
        "ERROR_INVALID_ARGUMENT": "NVML_ERROR_INVALID_ARGUMENT",
        "ERROR_NOT_SUPPORTED": "NVML_ERROR_NOT_SUPPORTED",
        "ERROR_NO_PERMISSION": "NVML_ERROR_NO_PERMISSION",
        "ERROR_NOT_FOUND": "NVML_ERROR_NOT_FOUND",
        "ERROR_DRIVER_NOT_LOADED": "NVML_ERROR_DRIVER_NOT_LOADED",
        "ERROR_LIBRARY_NOT_FOUND": "NVML_ERROR_LIBRARY_NOT_FOUND",
        "ERROR_FUNCTION_NOT_FOUND": "NVML_ERROR_FUNCTION_NOT_FOUND",
        "ERROR_GPU_IS_LOST": "NVML_ERROR_GPU_IS_LOST",
        "ERROR_LIB_RM_VERSION_MISMATCH": "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "ERROR_ARGUMENT_VERSION_MISMATCH": "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
        "CLOCK_GRAPHICS": "NVML_CLOCK_GRAPHICS",
        "CLOCK_SM": "NVML_CLOCK_SM",
        "CLOCK_MEM": "NVML_CLOCK_MEM",
        "CLOCK_VIDEO": "NVML_CLOCK_VIDEO",
        "TEMPERATURE_GPU": "NVML_TEMPERATURE_GPU",
        "THRESHOLD_SHUTDOWN": "NVML_TEMPERATURE_THRESHOLD_SHUTDOWN",
        "THRESHOLD_SLOWDOWN": "NVML_TEMPERATURE_THRESHOLD_SLOWDOWN",
        "THRESHOLD_GPU_MAX": "NVML_TEMPERATURE_THRESHOLD_GPU_MAX",
        "PCIE_UTIL_TX_BYTES": "NVML_PCIE_UTIL_TX_BYTES",
        "PCIE_UTIL_RX_BYTES": "NVML_PCIE_UTIL_RX_BYTES",
        "MEMORY_ERROR_CORRECTED": "NVML_MEMORY_ERROR_TYPE_CORRECTED",
        "MEMORY_ERROR_UNCORRECTED": "NVML_MEMORY_ERROR_TYPE_UNCORRECTED",
        "VOLATILE_ECC": "NVML_VOLATILE_ECC",
        "AGGREGATE_ECC": "NVML_AGGREGATE_ECC",
        "RETIRE_CAUSE_MULTIPLE_SBE": "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS",
        "RETIRE_CAUSE_DBE": "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR",
        "PSTATE_UNKNOWN": "NVML_PSTATE_UNKNOWN",
        "NVLINK_MAX_LINKS": "NVML_NVLINK_MAX_LINKS",
        "MEMORY_V2": "nvmlMemory_v2",
        "FI_DEV_MEMORY_TEMP": "NVML_FI_DEV_MEMORY_TEMP",
        "FI_DEV_NVLINK_LINK_COUNT": "NVML_FI_DEV_NVLINK_LINK_COUNT",
        "FI_DEV_NVLINK_THROUGHPUT_DATA_TX": "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX",
        "FI_DEV_NVLINK_THROUGHPUT_DATA_RX": "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX",
    }
    for ours, theirs in pairs.items():
        assert getattr(nvml_values, ours) == getattr(real_pynvml, theirs), ours
    # the reason bits: tests/test_telemetry_reasons.py
    for bit, name in nvml.CLOCK_EVENT_REASONS.items():
        assert nvml.decode_clock_event_reasons(bit) == (() if name == "gpu_idle" else (name,))


def test_fake_mirrors_pynvml_errors() -> None:
    fake = FakeNvml(t4_box())
    assert fake.NVMLError is real_pynvml.NVMLError
    err = fake.NVMLError(fake.NVML_ERROR_NOT_SUPPORTED)
    assert isinstance(err, real_pynvml.NVMLError_NotSupported)
    assert str(err) == "Not Supported"
    fake.nvmlInit()
    with pytest.raises(real_pynvml.NVMLError_InvalidArgument):
        fake.nvmlDeviceGetHandleByIndex(5)


def test_source_implements_the_protocol(nvml_source: NvmlSource) -> None:
    assert isinstance(nvml_source, TelemetrySource)
    assert nvml_source.kind is SourceKind.NVML
    assert nvml_source.label == "NVML"


# --- init: lazy, locked, shut down ----------------------------------------------------------


def test_init_is_lazy_locked_and_shut_down(fake_nvml: FakeNvml) -> None:
    source = make_source(fake_nvml)
    assert fake_nvml.init_count == 0  # constructing reads nothing
    threads = [threading.Thread(target=source.status) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fake_nvml.init_count == 1
    source.poll()
    assert fake_nvml.init_count == 1
    source.close()
    assert fake_nvml.shutdown_count == 1
    assert not fake_nvml.initialized


def test_shutdown_at_exit_closes_live_sources(
    fake_nvml: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nvml, "_exiting", False)  # _shutdown_all sets it for the process
    source = make_source(fake_nvml)
    source.poll()
    assert nvml._shutdown_all()  # what atexit runs
    assert fake_nvml.shutdown_count == 1


def test_module_hook_is_used_when_no_module_is_passed(fake_nvml: FakeNvml) -> None:
    # The fixture put the fake at gpuprof.telemetry.nvml.pynvml.
    source = NvmlSource(clock=fake_nvml.clock)
    assert source.devices()[0].name == "NVIDIA H100 80GB HBM3"
    source.close()


# --- 8x H100 SXM NVSwitch: values from the capture -----------------------------------------


def test_h100_static_facts_come_from_the_capture(nvml_source: NvmlSource) -> None:
    system = nvml_source.system_info()
    assert system.driver_version == "565.57.01"
    assert system.cuda_driver_version == "12.7"
    assert system.hostname

    devices = nvml_source.devices()
    assert len(devices) == 8
    d = devices[0]
    assert d.name == "NVIDIA H100 80GB HBM3"
    assert d.pci_bus_id == "00000000:18:00.0"
    assert d.architecture == "Hopper"
    assert d.compute_capability == (9, 0)
    assert d.memory_total_bytes == 81559 * MIB
    assert (d.power_default_limit_w, d.power_min_limit_w, d.power_max_limit_w) == (
        700.0,
        200.0,
        700.0,
    )
    assert (d.graphics_clock_max_mhz, d.mem_clock_max_mhz, d.video_clock_max_mhz) == (
        1980,
        2619,
        1545,
    )
    assert (d.temp_slowdown_c, d.temp_shutdown_c, d.temp_max_operating_c) == (89.0, 95.0, 87.0)
    assert (d.pcie_gen_max, d.pcie_width_max) == (5, 16)
    assert d.nvlink_count == 18
    assert d.fan_count == 0
    assert d.ecc_mode_current is True
    assert d.mig_mode_current is False
    assert d.compute_mode == "Default"
    assert d.persistence_mode is True
    assert [x.pci_bus_id for x in devices][-1] == "00000000:DB:00.0"


def test_h100_sample_fills_every_field(nvml_source: NvmlSource, fake_nvml: FakeNvml) -> None:
    nvml_source.poll()
    fake_nvml.advance(1.0)
    snap = nvml_source.poll()
    assert snap.source is SourceKind.NVML
    assert snap.status.ok
    assert len(snap.gpus) == 8
    g = snap.gpus[0]
    assert g.util_gpu_pct == 0.0 and g.util_enc_pct == 0.0
    assert (g.mem_total_bytes, g.mem_used_bytes, g.mem_reserved_bytes) == (
        81559 * MIB,
        1 * MIB,
        454 * MIB,
    )
    assert g.mem_free_bytes == (81559 - 454 - 1) * MIB
    assert (g.clock_graphics_mhz, g.clock_sm_mhz, g.clock_mem_mhz, g.clock_video_mhz) == (
        345,
        345,
        2619,
        765,
    )
    assert (g.clock_app_graphics_mhz, g.clock_app_mem_mhz) == (1980, 2619)
    assert g.pstate == 0
    assert g.power_w == pytest.approx(100.89)
    assert g.power_limit_w == 700.0 and g.power_enforced_limit_w == 700.0
    assert g.temp_gpu_c == 30 and g.temp_mem_c == 36
    assert g.fan_speed_pct == ()
    assert g.throttle_mask == real_pynvml.nvmlClocksEventReasonGpuIdle
    assert g.throttle_reasons == ()  # idle is not a slowdown
    assert (g.pcie_gen, g.pcie_width, g.pcie_replay_count) == (5, 16, 7)
    assert len(g.nvlinks) == 18
    link = g.nvlinks[0]
    assert (link.active, link.version, link.remote_type, link.remote_pci_bus_id) == (
        True,
        4,
        "switch",
        "00000000:07:00.0",
    )
    assert g.ecc is not None
    assert g.ecc.volatile_uncorrected == 0 and g.ecc.remapped_rows_pending is False
    assert g.ecc.retired_pages_sbe is None  # N/A on Hopper
    # Only what the capture says N/A failed, each once.
    kinds = {(f.field, f.kind) for f in nvml_source.diagnostics.failures()}
    assert kinds == {
        ("fan_count", "NotSupported"),
        ("retired_pages_sbe", "NotSupported"),
        ("retired_pages_dbe", "NotSupported"),
        ("retired_pages_pending", "NotSupported"),
    }


@pytest.mark.parametrize("box", sorted(BOXES))
def test_every_pynvml_call_is_implemented_by_the_fake(box: str) -> None:
    fake = FakeNvml(BOXES[box]())
    source = make_source(fake)
    source.system_info()
    source.devices()
    source.topology()
    source.poll()
    fake.advance(1.0)
    source.poll()
    assert fake.unimplemented == set()
    assert not [f for f in source.diagnostics.failures() if f.kind == "FunctionNotFound"]
    source.close()


def test_topology_nvswitch_is_nv18_everywhere(nvml_source: NvmlSource) -> None:
    topo = nvml_source.topology()
    assert topo.gpu_indices == tuple(range(8))
    for i in range(8):
        for j in range(8):
            assert topo.link(i, j) == ("X" if i == j else "NV18")


def test_topology_falls_back_to_pcie_common_ancestor() -> None:
    box = h100_sxm_8gpu_box()
    for dev in box.devices:
        dev.nvlinks = None  # as if the NVLinks were unsupported
    fake = FakeNvml(box)
    topo = make_source(fake).topology()
    assert topo.link(0, 3) == "NODE"
    assert topo.link(0, 4) == "SYS"
    assert topo.link(5, 5) == "X"


def test_topology_direct_nvlink_bridge_counts_links() -> None:
    # topo-2gpu-h100-pcie-nvlink-bridge.txt: two H100 PCIe joined by a bridge show NV12.
    box = h100_sxm_8gpu_box()
    box.devices = box.devices[:2]
    a, b = box.devices
    a.nvlinks = [
        FakeNvLink(b.pci_bus_id, remote_type=real_pynvml.NVML_NVLINK_DEVICE_TYPE_GPU)
        for _ in range(12)
    ]
    b.nvlinks = [
        FakeNvLink(a.pci_bus_id, remote_type=real_pynvml.NVML_NVLINK_DEVICE_TYPE_GPU)
        for _ in range(12)
    ]
    b.nvlinks.append(
        FakeNvLink(a.pci_bus_id, remote_type=real_pynvml.NVML_NVLINK_DEVICE_TYPE_GPU, active=False)
    )
    topo = make_source(FakeNvml(box)).topology()
    assert topo.matrix == (("X", "NV12"), ("NV12", "X"))


def test_topology_labels() -> None:
    assert [topology_label(x) for x in (0, 10, 20, 30, 40, 50, None)] == [
        "PIX",
        "PIX",
        "PXB",
        "PHB",
        "NODE",
        "SYS",
        None,
    ]


# --- clock event reasons -------------------------------------------------------------------


def test_decode_clock_event_reasons() -> None:
    nv = real_pynvml
    mask = (
        nv.nvmlClocksEventReasonGpuIdle
        | nv.nvmlClocksEventReasonSwPowerCap
        | nv.nvmlClocksEventReasonHwThermalSlowdown
    )
    assert decode_clock_event_reasons(mask) == ("sw_power_cap", "hw_thermal_slowdown")
    assert decode_clock_event_reasons(0) == ()
    assert decode_clock_event_reasons(None) == ()
    assert decode_clock_event_reasons(nv.nvmlClocksEventReasonGpuIdle) == ()
    assert decode_clock_event_reasons(nv.nvmlClocksThrottleReasonReliability) == ("reliability",)
    assert decode_clock_event_reasons(0x800) == ("0x800",)  # a bit NVML may add later


def test_throttling_shows_in_the_sample(nvml_source: NvmlSource, fake_nvml: FakeNvml) -> None:
    nv = real_pynvml
    fake_nvml.box.devices[2].clocks_event_reasons = (
        nv.nvmlClocksEventReasonSwPowerCap | nv.nvmlClocksEventReasonHwSlowdown
    )
    g = nvml_source.poll().gpus[2]
    assert g.throttle_reasons == ("sw_power_cap", "hw_slowdown")
    assert g.throttle_mask == 0x0C


def test_old_pynvml_without_clocks_event_reasons_uses_throttle_reasons(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    fake_nvml.inject(
        "nvmlDeviceGetCurrentClocksEventReasons", error=real_pynvml.NVML_ERROR_FUNCTION_NOT_FOUND
    )
    fake_nvml.box.devices[
        0
    ].clocks_event_reasons = real_pynvml.nvmlClocksThrottleReasonSwThermalSlowdown
    nvml_source.poll()
    assert nvml_source.poll().gpus[0].throttle_reasons == ("sw_thermal_slowdown",)


# --- counters and rates --------------------------------------------------------------------


def _load_links(fake: FakeNvml, gpu: int, tx: float, rx: float) -> list[FakeNvLink]:
    links = fake.box.devices[gpu].nvlinks
    assert links is not None
    for link in links:
        link.tx_bytes_s, link.rx_bytes_s = tx, rx
    return links


def test_nvlink_totals_are_differenced_every_poll(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    _load_links(fake_nvml, 1, tx=20e9, rx=10e9)
    first = nvml_source.poll().gpus[1]
    assert first.nvlink_tx_bytes_s is None  # nothing to difference yet
    fake_nvml.advance(2.0)
    g = nvml_source.poll().gpus[1]
    assert g.nvlink_tx_bytes_s == pytest.approx(18 * 20e9, rel=1e-6)
    assert g.nvlink_rx_bytes_s == pytest.approx(18 * 10e9, rel=1e-6)
    assert nvml_source.poll().gpus[1].nvlink_tx_bytes_s is None  # dt = 0: no rate
    # One field-values call per GPU per poll (memory temp + the two all-link sums).
    assert fake_nvml.calls["nvmlDeviceGetFieldValues"] == 8 * 3 + 8  # + the link count at start


def test_nvlink_per_link_rates_on_the_slow_cadence(fake_nvml: FakeNvml) -> None:
    source = make_source(fake_nvml, slow_interval_s=5.0)
    links = _load_links(fake_nvml, 1, tx=20e9, rx=10e9)
    first = source.poll().gpus[1]
    assert first.nvlinks[0].tx_bytes_s is None
    fake_nvml.advance(2.0)
    assert source.poll().gpus[1].nvlinks[0].tx_bytes_s is None  # not re-read yet
    fake_nvml.advance(3.0)
    g = source.poll().gpus[1]  # slow poll: 5 s since the last per-link read
    assert g.nvlinks[0].tx_bytes_s == pytest.approx(20e9, abs=1024)
    assert g.nvlinks[17].rx_bytes_s == pytest.approx(10e9, abs=1024)
    links[3].tx_bytes_s = 0.0
    fake_nvml.advance(5.0)
    g = source.poll().gpus[1]
    assert g.nvlinks[3].tx_bytes_s == 0.0
    assert g.nvlink_tx_bytes_s == pytest.approx(17 * 20e9, rel=1e-6)
    # A counter that goes backwards (driver reload) gives no rate rather than a negative one.
    links[0].tx_kib = 0
    fake_nvml.advance(5.0)
    g = source.poll().gpus[1]
    assert g.nvlinks[0].tx_bytes_s is None
    assert g.nvlinks[1].tx_bytes_s == pytest.approx(20e9, abs=1024)
    source.close()


def test_nvlink_without_all_links_counters_reads_each_link_every_poll(make_fake_nvml) -> None:
    box = h100_sxm_8gpu_box()
    for dev in box.devices:
        dev.nvlink_all_links_counters = False  # older driver: UINT_MAX scope is an invalid argument
    fake = make_fake_nvml(box)
    _load_links(fake, 0, tx=5e9, rx=1e9)
    source = make_source(fake)
    source.poll()
    fake.advance(1.0)
    source.poll()
    fake.advance(1.0)
    g = source.poll().gpus[0]
    assert g.nvlinks[0].tx_bytes_s == pytest.approx(5e9, abs=1024)
    assert g.nvlink_tx_bytes_s == pytest.approx(18 * 5e9, rel=1e-6)
    assert g.nvlink_rx_bytes_s == pytest.approx(18 * 1e9, rel=1e-6)
    assert source.diagnostics.has(0, "nvlinkall.tx_counter", "InvalidArgument")


def test_pcie_throughput_kb_s_becomes_bytes_s(nvml_source: NvmlSource) -> None:
    # h100-sxm5-80gb-hbm3.txt, GPU 1: Tx 555 KB/s, Rx 3874 KB/s.
    g = nvml_source.poll().gpus[1]
    assert g.pcie_tx_bytes_s == 555 * 1024
    assert g.pcie_rx_bytes_s == 3874 * 1024


def test_energy_is_joules_and_advances(nvml_source: NvmlSource, fake_nvml: FakeNvml) -> None:
    before = nvml_source.poll().gpus[0].energy_total_j
    fake_nvml.advance(10.0)
    after = nvml_source.poll().gpus[0].energy_total_j
    assert before is not None and after is not None
    assert after - before == pytest.approx(100.89 * 10.0, abs=0.01)


def test_slow_fields_are_read_on_the_slow_cadence(fake_nvml: FakeNvml) -> None:
    source = make_source(fake_nvml, slow_interval_s=10.0)
    source.poll()
    calls = fake_nvml.calls["nvmlDeviceGetTotalEccErrors"]
    assert calls == 8 * 4
    for _ in range(5):
        fake_nvml.advance(1.0)
        source.poll()
    assert fake_nvml.calls["nvmlDeviceGetTotalEccErrors"] == calls
    fake_nvml.box.devices[0].ecc_errors = {(0, 0): 3}
    fake_nvml.advance(5.0)
    g = source.poll().gpus[0]
    assert fake_nvml.calls["nvmlDeviceGetTotalEccErrors"] == 2 * calls
    assert g.ecc is not None and g.ecc.volatile_corrected == 3


def test_memory_info_v1_fallback_has_no_reserved() -> None:
    box = t4_box()
    box.devices[0].memory_v2 = False
    g = make_source(FakeNvml(box)).poll().gpus[0]
    assert g.mem_reserved_bytes is None
    assert g.mem_total_bytes == 15360 * MIB
    assert g.mem_used_bytes == (1032 + 388) * MIB  # v1 counts reserved as used


def test_unknown_pstate_is_none(nvml_source: NvmlSource, fake_nvml: FakeNvml) -> None:
    fake_nvml.box.devices[0].pstate = real_pynvml.NVML_PSTATE_UNKNOWN
    assert nvml_source.poll().gpus[0].pstate is None


# --- failures: None, counted once, never raised --------------------------------------------


def test_unsupported_field_is_none_and_counted_once(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    fake_nvml.inject(
        "nvmlDeviceGetPowerUsage", error=real_pynvml.NVML_ERROR_NOT_SUPPORTED, device=1
    )
    for _ in range(5):
        snap = nvml_source.poll()
        fake_nvml.advance(1.0)
    assert snap.gpus[1].power_w is None
    assert snap.gpus[0].power_w is not None
    entries = [f for f in nvml_source.diagnostics.failures() if f.field == "power"]
    assert [(f.device, f.kind) for f in entries] == [(1, "NotSupported")]
    # NotSupported does not change: the source stops asking.
    assert fake_nvml.calls["nvmlDeviceGetPowerUsage"] == 5 * 8 - 4


def test_transient_error_is_counted_once_and_recovers(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    fake_nvml.inject(
        "nvmlDeviceGetTemperature", error=real_pynvml.NVML_ERROR_UNKNOWN, device=0, times=3
    )
    temps = []
    for _ in range(5):
        temps.append(nvml_source.poll().gpus[0].temp_gpu_c)
    assert temps == [None, None, None, 30.0, 30.0]
    unknown = [
        (f.device, f.field) for f in nvml_source.diagnostics.failures() if f.kind == "Unknown"
    ]
    assert unknown == [(0, "temp_gpu")]
    assert nvml_source.diagnostics.counts()["Unknown"] == 1


def test_a_non_nvml_exception_in_one_field_does_not_break_the_poll(
    nvml_source: NvmlSource, fake_nvml: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args):
        raise RuntimeError("driver returned garbage")

    monkeypatch.setattr(fake_nvml, "nvmlDeviceGetClockInfo", broken)
    g = nvml_source.poll().gpus[0]
    assert g.clock_sm_mhz is None
    assert g.power_w is not None
    assert nvml_source.diagnostics.has(0, "clock_sm", "RuntimeError")


def test_diagnostics_registry() -> None:
    diag = Diagnostics()
    assert diag.record(0, "power", "NotSupported", "Not Supported")
    assert not diag.record(0, "power", "NotSupported", "Not Supported")
    assert diag.record(1, "power", "NotSupported")
    assert diag.record(None, "driver_version", "Unknown")
    assert len(diag) == 3
    assert diag.counts() == {"NotSupported": 2, "Unknown": 1}
    assert "NotSupported: 2 (gpu0.power, gpu1.power)" in diag.summary()
    assert "Unknown: 1 (system.driver_version)" in diag.summary()
    diag.clear()
    assert diag.counts() == {}


# --- consumer GPUs: NotSupported everywhere it should be ------------------------------------


@pytest.mark.parametrize("fake_nvml", ["rtx4090x2"], indirect=True)
def test_consumer_gpu_fields_not_supported_are_none(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    d = nvml_source.devices()[0]
    assert d.name == "NVIDIA GeForce RTX 4090"
    assert d.serial is None and d.board_part_number is None
    assert d.nvlink_count == 0
    assert d.ecc_mode_current is False
    assert d.mig_mode_current is None
    assert d.fan_count == 1
    assert (d.pcie_gen_max, d.temp_slowdown_c, d.power_max_limit_w) == (4, 86.0, 450.0)
    snap = nvml_source.poll()
    g = snap.gpus[0]
    assert snap.status.ok
    assert g.nvlinks == () and g.nvlink_rx_bytes_s is None
    assert g.temp_mem_c is None
    assert g.clock_app_graphics_mhz is None
    assert g.fan_speed_pct == (0.0,)
    assert (g.pcie_gen, g.pstate, g.power_w) == (1, 8, 20.0)
    assert g.ecc is not None
    assert g.ecc.volatile_corrected is None and g.ecc.aggregate_uncorrected is None
    assert g.ecc.remapped_rows_correctable == 0
    assert nvml_source.topology().matrix == (("X", "PHB"), ("PHB", "X"))
    assert nvml_source.diagnostics.has(0, "ecc_volatile_corrected", "NotSupported")
    assert nvml_source.diagnostics.has(0, "serial", "NotSupported")


# --- processes --------------------------------------------------------------------------------


@pytest.mark.parametrize("fake_nvml", ["t4"], indirect=True)
def test_processes_compute_and_graphics_with_utilization(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    snap = nvml_source.poll()
    by_pid = {p.pid: p for p in snap.processes}
    assert set(by_pid) == {675, 5762}  # t4.q-x.xml <processes>
    assert by_pid[675].kind == "graphics" and by_pid[675].gpu_mem_bytes == 22 * MIB
    assert by_pid[5762].kind == "compute" and by_pid[5762].gpu_mem_bytes == 1005 * MIB
    assert (by_pid[5762].sm_util_pct, by_pid[5762].mem_util_pct) == (35.0, 12.0)
    assert by_pid[675].sm_util_pct is None
    # No new samples (NVML answers NOT_FOUND): the last ones stay a while, then go stale.
    fake_nvml.box.devices[0].processes[1].sm_util_pct = None
    fake_nvml.advance(1.0)
    assert {p.pid: p.sm_util_pct for p in nvml_source.poll().processes}[5762] == 35.0


def test_process_seen_as_compute_and_graphics_is_merged(make_fake_nvml) -> None:
    box = t4_box()
    box.devices[0].processes = [
        FakeProcess(pid=os.getpid(), used_memory_bytes=mib(100), kind="compute+graphics")
    ]
    fake = make_fake_nvml(box)
    (proc,) = make_source(fake).poll().processes
    assert proc.kind == "compute+graphics"
    assert proc.gpu_mem_bytes == 100 * MIB
    assert proc.name and proc.user and proc.cmdline  # psutil found this very process
    assert "pytest" in proc.cmdline or "python" in proc.cmdline


def test_process_facts_are_cached_per_process(
    make_fake_nvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psutil

    box = make_fleet(2, processes_per_gpu=3, real_pids=True)
    fake = make_fake_nvml(box)
    source = make_source(fake)
    source.poll()
    made = []
    real_process = psutil.Process
    monkeypatch.setattr(psutil, "Process", lambda pid: made.append(pid) or real_process(pid))
    for _ in range(3):
        fake.advance(1.0)
        snap = source.poll()
    assert made == []  # every pid was a cache hit
    assert len(snap.processes) == 6
    assert all(p.name for p in snap.processes if psutil.pid_exists(p.pid))


def test_no_permission_on_processes_keeps_everything_else(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    fake_nvml.box.devices[0].processes = [FakeProcess(pid=12345, used_memory_bytes=mib(1))]
    fake_nvml.inject(
        "nvmlDeviceGetComputeRunningProcesses", error=real_pynvml.NVML_ERROR_NO_PERMISSION
    )
    fake_nvml.inject(
        "nvmlDeviceGetGraphicsRunningProcesses", error=real_pynvml.NVML_ERROR_NO_PERMISSION
    )
    snap = nvml_source.poll()
    assert snap.processes == ()
    assert snap.status.process_info_permitted is False
    assert snap.status.state is SourceState.NO_PERMISSION
    assert snap.status.hint
    assert all(g.power_w is not None and g.temp_gpu_c is not None for g in snap.gpus)


# --- states -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "state"),
    [
        (real_pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, SourceState.LIBRARY_NOT_FOUND),
        (real_pynvml.NVML_ERROR_DRIVER_NOT_LOADED, SourceState.DRIVER_NOT_LOADED),
        (real_pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, SourceState.VERSION_MISMATCH),
        (real_pynvml.NVML_ERROR_NO_PERMISSION, SourceState.NO_PERMISSION),
        (real_pynvml.NVML_ERROR_UNKNOWN, SourceState.ERROR),
    ],
)
def test_init_failures_become_states_and_host_data_still_flows(
    fake_nvml: FakeNvml, error: int, state: SourceState
) -> None:
    fake_nvml.inject("nvmlInit", error=error)
    source = make_source(fake_nvml)
    status = source.status()
    assert status.state is state
    assert status.message and status.hint
    snap = source.poll()
    assert snap.source is SourceKind.NONE
    assert snap.gpus == () and snap.processes == ()
    assert snap.status.state is state
    assert snap.host.mem_total_bytes  # the host is still sampled
    assert source.devices() == ()
    assert source.topology().matrix == ()
    assert source.system_info().driver_version is None
    assert source.system_info().hostname
    source.close()
    assert fake_nvml.shutdown_count == 0  # nvmlInit never succeeded


def test_pynvml_not_installed_is_library_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvml, "pynvml", None)
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    source = NvmlSource()
    assert source.status().state is SourceState.LIBRARY_NOT_FOUND
    assert "nvidia-ml-py" in source.status().message or "pynvml" in source.status().message
    assert source.poll().source is SourceKind.NONE


@pytest.mark.parametrize("fake_nvml", ["h100x8"], indirect=True)
def test_gpu_lost_mid_session_others_keep_updating(
    nvml_source: NvmlSource, fake_nvml: FakeNvml
) -> None:
    first = nvml_source.poll()
    assert not any(g.lost for g in first.gpus)
    fake_nvml.lose_gpu(3)
    fake_nvml.advance(1.0)
    snap = nvml_source.poll()
    assert snap.gpus[3].lost is True
    assert snap.gpus[3].power_w is None
    assert snap.gpus[3].uuid == first.gpus[3].uuid
    assert snap.status.state is SourceState.GPU_LOST
    assert snap.status.lost_gpus == (3,)
    assert "3" in snap.status.message and snap.status.hint
    others = [g for g in snap.gpus if g.index != 3]
    assert all(not g.lost and g.power_w is not None for g in others)
    assert others[0].energy_total_j > first.gpus[0].energy_total_j
    calls = sum(fake_nvml.calls.values())
    fake_nvml.advance(1.0)
    again = nvml_source.poll()
    assert again.gpus[3].lost and not again.gpus[4].lost
    per_gpu_calls = (sum(fake_nvml.calls.values()) - calls) / 7
    assert per_gpu_calls > 10  # the others are still read; the lost one is not asked again
    topo = nvml_source.topology()
    assert topo.link(0, 1) == "NV18"
    assert nvml_source.diagnostics.has(3, "util", "GpuIsLost") or any(
        f.device == 3 and f.kind == "GpuIsLost" for f in nvml_source.diagnostics.failures()
    )


def test_gpu_lost_before_start_is_marked_lost(make_fake_nvml) -> None:
    fake = make_fake_nvml(h100_sxm_8gpu_box())
    fake.lose_gpu(5)
    source = make_source(fake)
    assert len(source.devices()) == 8
    snap = source.poll()
    assert snap.gpus[5].lost
    assert snap.status.lost_gpus == (5,)
    assert sum(1 for g in snap.gpus if g.power_w is not None) == 7
    assert source.topology().link(0, 5) is None


def test_one_device_without_permission_is_empty_not_lost(make_fake_nvml) -> None:
    fake = make_fake_nvml(h100_sxm_8gpu_box())
    fake.inject("nvmlDeviceGetHandleByIndex", error=real_pynvml.NVML_ERROR_NO_PERMISSION, device=2)
    snap = make_source(fake).poll()
    assert not snap.gpus[2].lost and snap.gpus[2].power_w is None
    assert snap.gpus[3].power_w is not None
    assert snap.status.ok


@pytest.mark.parametrize("fake_nvml", ["a100mig"], indirect=True)
def test_mig_devices_are_listed_with_memory(nvml_source: NvmlSource) -> None:
    (d,) = nvml_source.devices()
    assert d.mig_mode_current is True and d.mig_mode_pending is True
    assert d.nvlink_count == 0  # "Nvlink queries are not supported for Devices in MIG mode"
    assert len(d.mig_devices) == 4
    for i, mig in enumerate(d.mig_devices):
        assert mig.index == i
        assert mig.name == "NVIDIA A100-SXM4-80GB MIG 1g.20gb"
        assert mig.memory_total_bytes == 19968 * MIB
        assert mig.memory_used_bytes == 12 * MIB
        assert mig.gpu_instance_id == 3 + i and mig.compute_instance_id == 0
        assert mig.uuid is not None and mig.uuid.startswith("MIG-")
    g = nvml_source.poll().gpus[0]
    assert g.util_gpu_pct is None  # utilization is N/A on a MIG parent
    assert g.mem_total_bytes == 81920 * MIB
    assert g.power_w == pytest.approx(67.03)
    assert g.ecc is not None and g.ecc.remapped_rows_correctable is None


def test_zero_gpus_is_no_gpus(make_fake_nvml) -> None:
    fake = make_fake_nvml(make_fleet(0))
    source = make_source(fake)
    assert source.status().state is SourceState.NO_GPUS
    snap = source.poll()
    assert snap.gpus == () and snap.source is SourceKind.NONE
    assert snap.host is not None
    assert source.system_info().driver_version == "565.57.01"  # the driver is there
    source.close()
    assert fake.shutdown_count == 1


def test_sixteen_gpus(make_fake_nvml) -> None:
    fake = make_fake_nvml(make_fleet(16, processes_per_gpu=2))
    source = make_source(fake)
    assert len(source.devices()) == 16
    assert len({d.pci_bus_id for d in source.devices()}) == 16
    source.poll()
    fake.advance(1.0)
    snap = source.poll()
    assert [g.index for g in snap.gpus] == list(range(16))
    assert all(g.power_w is not None and not g.lost for g in snap.gpus)
    assert len(snap.processes) == 32
    topo = source.topology()
    assert len(topo.matrix) == 16 and all(len(row) == 16 for row in topo.matrix)
    assert topo.link(0, 15) == "NV18"
    assert fake.unimplemented == set()


def test_close_then_poll_starts_over(nvml_source: NvmlSource, fake_nvml: FakeNvml) -> None:
    nvml_source.poll()
    nvml_source.close()
    assert len(nvml_source.poll().gpus) == 8
    assert fake_nvml.init_count == 2


@pytest.mark.parametrize("box", [a100_mig_box, t4_box])
def test_snapshot_is_frozen(box) -> None:
    snap = make_source(FakeNvml(box())).poll()
    with pytest.raises(AttributeError):
        snap.gpus[0].power_w = 1.0  # type: ignore[misc]


@pytest.mark.parametrize("box", sorted(BOXES))
def test_fake_device_names_are_names_the_catalog_knows(box: str) -> None:
    from gpuprof.catalog.names import gpu_for_nvml_name

    fake = FakeNvml(BOXES[box]())
    for info in make_source(fake).devices():
        assert gpu_for_nvml_name(info.name) is not None, info.name
        for mig in info.mig_devices:
            assert gpu_for_nvml_name(mig.name) is not None, mig.name


def test_real_pynvml_without_a_driver_is_a_state_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # On machines without the NVIDIA driver (CI), the real pynvml raises LibraryNotFound.
    monkeypatch.setattr(nvml, "pynvml", None)
    source = NvmlSource()
    try:
        snap = source.poll()
        if source.status().state is SourceState.LIBRARY_NOT_FOUND:
            assert snap.source is SourceKind.NONE and snap.gpus == ()
        else:  # a real GPU machine
            assert snap.source is SourceKind.NVML or not snap.status.ok
    finally:
        source.close()


@pytest.mark.parametrize(("box", "scenario"), [("h100x8", "h100x8"), ("rtx4090x2", "rtx4090x2")])
def test_the_fake_and_the_demo_describe_the_same_boards(box: str, scenario: str) -> None:
    """The H100 and RTX 4090 facts are typed once (the simulator's table, issue 25): what NVML
    says of the fake board and what ``--demo`` shows of its board agree, GPU by GPU."""
    from gpuprof.telemetry.simulated import SimulatedSource

    fake = FakeNvml(BOXES[box]())
    nvml_source = make_source(fake)
    demo = SimulatedSource(scenario)
    try:
        fields = (
            "name",
            "vbios_version",
            "board_part_number",
            "compute_capability",
            "memory_total_bytes",
            "graphics_clock_max_mhz",
            "sm_clock_max_mhz",
            "mem_clock_max_mhz",
            "video_clock_max_mhz",
            "power_default_limit_w",
            "power_min_limit_w",
            "power_max_limit_w",
            "temp_slowdown_c",
            "temp_shutdown_c",
            "temp_max_operating_c",
            "pcie_gen_max",
            "pcie_width_max",
            "nvlink_count",
            "ecc_mode_current",
            "mig_mode_current",
        )
        seen = [tuple(getattr(d, f) for f in fields) for d in nvml_source.devices()]
        shown = [tuple(getattr(d, f) for f in fields) for d in demo.devices()]
        assert len(seen) == len(shown) and seen == shown
        if box == "h100x8":  # the capture's bus ids (the 4090 demo's second slot differs)
            buses = [d.pci_bus_id for d in nvml_source.devices()]
            assert buses == [d.pci_bus_id for d in demo.devices()]
    finally:
        nvml_source.close()
        demo.close()
