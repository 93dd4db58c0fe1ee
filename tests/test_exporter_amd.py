"""The exporter on AMD GPUs (the fake amdsmi): AMD Device Metrics Exporter's names next to the
DCGM ones, no series for an absent value, the reason instead."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from gpuprof.exporter import SnapshotCollector, render_text
from gpuprof.telemetry.amd import AmdSmiSource
from tests.fakes.devices import h100_info, h100_sample
from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi


def _families(box: str) -> dict[str, object]:
    fake = FakeAmdSmi(BOXES[box]())
    source = AmdSmiSource(smi=fake, clock=fake.clock)
    source.poll()
    fake.advance(1.0)
    snap = source.poll()
    collector = SnapshotCollector(lambda: snap, source.devices(), hostname="h", bench_values=None)
    source.close()
    text = render_text(collector.collect()).decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def _values(fams: dict[str, object], name: str) -> dict[str, float]:
    return {s.labels["gpu"]: s.value for s in fams[name].samples}  # type: ignore[attr-defined]


def test_mi300x_has_amd_and_dcgm_names() -> None:
    fams = _families("mi300x8")
    assert _values(fams, "DCGM_FI_DEV_GPU_UTIL")["0"] == 97.0
    assert _values(fams, "gpu_gfx_activity")["0"] == 97.0
    assert _values(fams, "gpu_junction_temperature")["0"] == 65.0
    assert _values(fams, "gpu_power_usage")["0"] == 583.0
    assert _values(fams, "gpu_used_vram")["0"] == 62_000.0  # MB, as AMD's exporter
    assert _values(fams, "pcie_speed")["0"] == 32.0  # GT/s
    assert len(_values(fams, "gpu_umc_activity")) == 8
    clocks = {
        (s.labels["gpu"], s.labels["clock_type"]): s.value
        for s in fams["gpu_clock"].samples  # type: ignore[attr-defined]
    }
    assert clocks[("0", "GPU_CLOCK_TYPE_SYSTEM")] == 2100.0
    assert clocks[("0", "GPU_CLOCK_TYPE_SOC")] == 1143.0
    assert _values(fams, "gpu_ecc_correct_umc")["0"] == 0.0
    assert _values(fams, "gpu_ecc_uncorrect_xgmi_wafl")["0"] == 0.0
    assert _values(fams, "gpuprof_xgmi_read_bytes_per_second")["0"] > 0
    # No edge sensor on MI300: no series (never 0), and the reason is served.
    assert "gpu_edge_temperature" not in fams and "DCGM_FI_DEV_GPU_TEMP" not in fams
    absent = {
        (s.labels["gpu"], s.labels["field"]): s.labels["reason"]
        for s in fams["gpuprof_field_absent"].samples  # type: ignore[attr-defined]
    }
    assert "NOT_SUPPORTED" in absent[("0", "temp_gpu_c")]
    # GPU 3 at its power cap: the throttle reason, as for NVIDIA.
    events = {
        (s.labels["gpu"], s.labels["reason"]): s.value
        for s in fams["gpuprof_clocks_event_reasons"].samples  # type: ignore[attr-defined]
    }
    assert events[("3", "sw_power_cap")] == 1.0 and events[("0", "sw_power_cap")] == 0.0


def test_mi200_edge_temperature_and_bif_block_names() -> None:
    fams = _families("mi250x2")
    assert _values(fams, "gpu_edge_temperature")["0"] == 41.0
    assert _values(fams, "gpu_ecc_correct_umc")["0"] == 2.0
    assert _values(fams, "gpu_ecc_correct_total")["0"] == 2.0


def test_nvidia_gpus_get_no_amd_families() -> None:
    snap_gpu = h100_sample(0)
    from gpuprof.telemetry.model import HostSample, Snapshot, SourceKind

    snap = Snapshot(time_s=1.0, source=SourceKind.NVML, host=HostSample(), gpus=(snap_gpu,))
    collector = SnapshotCollector(lambda: snap, [h100_info(0)], hostname="h", bench_values=None)
    names = {f.name for f in collector.collect()}
    assert "DCGM_FI_DEV_SM_CLOCK" in names
    assert not {"gpu_gfx_activity", "gpu_clock", "gpuprof_field_absent"} & names
