"""The exporter's DCGM names, types, units and HELP texts against dcgm-exporter's published list.

``tests/data/dcgm-exporter-fields.csv`` is dcgm-exporter's ``etc/default-counters.csv`` (source
and version in its header). The profiling fields it does not list (NVLink traffic, the HMMA /
IMMA / DFMA tensor pipes, the power limit) are checked against DCGM's own field names
(``DCGM_ONLY``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuprof.exporter import SnapshotCollector, render_text
from gpuprof.telemetry.model import (
    DeviceInfo,
    EccCounts,
    GpuSample,
    HostSample,
    MigDeviceInfo,
    MigProfSample,
    Snapshot,
    SourceKind,
)
from tests.fakes.devices import h100_info, h100_sample

FIELDS_CSV = Path(__file__).parent / "data" / "dcgm-exporter-fields.csv"

#: DCGM fields that dcgm-exporter's default list lacks but that DCGM defines (NVIDIA/DCGM
#: ``dcgmlib/dcgm_fields.h``: the power limit, id 160, and the profiling fields 1011-1015):
#: gauges, in W, ratios or bytes per second.
DCGM_ONLY = {
    "DCGM_FI_DEV_POWER_MGMT_LIMIT",
    "DCGM_FI_PROF_NVLINK_TX_BYTES",
    "DCGM_FI_PROF_NVLINK_RX_BYTES",
    "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE",
    "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE",
    "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE",
}
#: Deliberate differences (see gpuprof/exporter/metrics.py): a DCGM counter is served untyped
#: under its exact name (prometheus_client would add ``_total``), and the NVLink total is a
#: rate whose HELP states DCGM's unit.
HELP_DIFFERS = {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"}
#: Issue 12: the profiling series that must light up NVIDIA's dashboards.
REQUIRED_PROF = (
    "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_SM_OCCUPANCY",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
    "DCGM_FI_PROF_DRAM_ACTIVE",
    "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
    "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
    "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
    "DCGM_FI_PROF_PCIE_TX_BYTES",
    "DCGM_FI_PROF_PCIE_RX_BYTES",
    "DCGM_FI_PROF_NVLINK_TX_BYTES",
    "DCGM_FI_PROF_NVLINK_RX_BYTES",
)
#: (attribute, value in %, DCGM name): the ratio served must be value / 100.
PCT_FIELDS = (
    ("prof_sm_active_pct", 62.0, "DCGM_FI_PROF_SM_ACTIVE"),
    ("prof_sm_occupancy_pct", 31.0, "DCGM_FI_PROF_SM_OCCUPANCY"),
    ("prof_tensor_active_pct", 44.0, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"),
    ("prof_tensor_hmma_pct", 40.0, "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE"),
    ("prof_tensor_imma_pct", 3.0, "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE"),
    ("prof_tensor_dfma_pct", 1.0, "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE"),
    ("prof_dram_active_pct", 55.0, "DCGM_FI_PROF_DRAM_ACTIVE"),
    ("prof_fp64_active_pct", 2.0, "DCGM_FI_PROF_PIPE_FP64_ACTIVE"),
    ("prof_fp32_active_pct", 12.0, "DCGM_FI_PROF_PIPE_FP32_ACTIVE"),
    ("prof_fp16_active_pct", 8.0, "DCGM_FI_PROF_PIPE_FP16_ACTIVE"),
    ("prof_nvdec_pct", 25.0, "gpuprof_nvdec_active_ratio"),
    ("prof_nvjpg_pct", 5.0, "gpuprof_nvjpg_active_ratio"),
)


def published_fields() -> dict[str, tuple[str, str]]:
    """name -> (type, help) of every field in dcgm-exporter's list, enabled or commented out
    (``# DCGM_...`` lines are fields it publishes once enabled); an enabled line wins."""
    out: dict[str, tuple[str, str]] = {}
    for raw in FIELDS_CSV.read_text(encoding="utf-8").splitlines():
        enabled = not raw.startswith("#")
        line = raw.lstrip("#").strip()
        if not line.startswith("DCGM_"):
            continue
        name, kind, text = (part.strip() for part in line.split(",", 2))
        if enabled or name not in out:
            out[name] = (kind, text)
    return out


def _full_sample(i: int = 0, **changes: object) -> GpuSample:
    base = h100_sample(
        i,
        util_gpu_pct=97.0,
        util_mem_pct=40.0,
        util_enc_pct=0.0,
        util_dec_pct=0.0,
        mem_used_bytes=2**30,
        mem_free_bytes=2**30,
        mem_reserved_bytes=2**20,
        power_w=600.0,
        energy_total_j=10.0,
        temp_gpu_c=60.0,
        temp_mem_c=55.0,
        pcie_rx_bytes_s=1.0e9,
        pcie_tx_bytes_s=2.0e9,
        pcie_replay_count=0,
        nvlink_rx_bytes_s=3.0e9,
        nvlink_tx_bytes_s=4.0e9,
        ecc=replace(EccCounts.clean(), retired_pages_sbe=0, retired_pages_dbe=0),
        prof_pcie_rx_bytes_s=1.1e9,
        prof_pcie_tx_bytes_s=2.2e9,
        prof_nvlink_rx_bytes_s=3.3e9,
        prof_nvlink_tx_bytes_s=4.4e9,
        **{attr: value for attr, value, _name in PCT_FIELDS},
    )
    return replace(base, **changes)


def scrape(
    gpus: list[GpuSample],
    devices: list[DeviceInfo] | None = None,
    kind: SourceKind = SourceKind.NVML,
) -> dict:
    snap = Snapshot(time_s=1.0, source=kind, host=HostSample(), gpus=tuple(gpus))
    collector = SnapshotCollector(
        lambda: snap,
        devices if devices is not None else [h100_info(g.index) for g in gpus],
        hostname="node-a",
        bench_values=None,
    )
    text = render_text(collector.collect()).decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def _values(fams: dict, name: str, **labels: str) -> list[float]:
    return [
        s.value for s in fams[name].samples if all(s.labels.get(k) == v for k, v in labels.items())
    ]


def test_test_data_is_dcgm_exporters_list_with_its_source():
    text = FIELDS_CSV.read_text(encoding="utf-8")
    assert "https://github.com/NVIDIA/dcgm-exporter/blob/" in text.splitlines()[1]
    fields = published_fields()
    assert fields["DCGM_FI_PROF_SM_ACTIVE"][0] == "gauge"
    assert fields["DCGM_FI_PROF_PCIE_TX_BYTES"][0] == "gauge"  # the enabled line wins
    assert len(fields) > 50


def test_every_dcgm_name_we_serve_is_dcgm_exporters_or_dcgms():
    fams = scrape([_full_sample(0)])
    published = published_fields()
    ours = {name for name in fams if name.startswith("DCGM_")}
    assert ours - set(published) - DCGM_ONLY == set()
    assert set(REQUIRED_PROF) <= ours


def test_types_and_help_match_dcgm_exporter():
    fams = scrape([_full_sample(0)])
    published = published_fields()
    checked = 0
    for name, fam in fams.items():
        if name not in published:
            continue
        kind, doc = published[name]
        if kind == "counter":
            assert fam.type == "unknown", name  # untyped under the exact DCGM name
        else:
            assert fam.type == kind, name
        if name not in HELP_DIFFERS:
            assert fam.documentation == doc, name
        checked += 1
    assert checked >= 20
    for name in DCGM_ONLY:
        assert fams[name].type == "gauge"


def test_activities_are_ratios_and_traffic_is_bytes_per_second():
    fams = scrape([_full_sample(0)])
    for _attr, pct, name in PCT_FIELDS:
        assert _values(fams, name, gpu="0") == [pytest.approx(pct / 100.0)], name
    # GPM's PCIe / NVLink traffic where the GPU has it, in B/s as DCGM reports it.
    assert _values(fams, "DCGM_FI_PROF_PCIE_TX_BYTES", gpu="0") == [2.2e9]
    assert _values(fams, "DCGM_FI_PROF_PCIE_RX_BYTES", gpu="0") == [1.1e9]
    assert _values(fams, "DCGM_FI_PROF_NVLINK_TX_BYTES", gpu="0") == [4.4e9]
    assert _values(fams, "DCGM_FI_PROF_NVLINK_RX_BYTES", gpu="0") == [3.3e9]
    assert _values(fams, "gpuprof_prof_available", gpu="0", reason="") == [1.0]
    labels = fams["DCGM_FI_PROF_SM_ACTIVE"].samples[0].labels
    assert list(labels) == ["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"]


def test_absent_values_give_no_series_never_zero():
    no_gpm = {attr: None for attr, _v, _n in PCT_FIELDS}
    gpu1 = _full_sample(
        1,
        prof_pcie_rx_bytes_s=None,
        prof_pcie_tx_bytes_s=None,
        prof_nvlink_rx_bytes_s=None,
        prof_nvlink_tx_bytes_s=None,
        prof_unavailable="not supported on this GPU",
        **no_gpm,
    )
    fams = scrape([_full_sample(0), gpu1])
    for _attr, _pct, name in PCT_FIELDS:
        assert _values(fams, name, gpu="1") == [], name
        assert len(_values(fams, name, gpu="0")) == 1
    assert _values(fams, "DCGM_FI_PROF_NVLINK_TX_BYTES", gpu="1") == []
    # PCIe falls back to NVML's own counter (DCGM_FI_PROF_PCIE_* predates GPM in NVML).
    assert _values(fams, "DCGM_FI_PROF_PCIE_TX_BYTES", gpu="1") == [2.0e9]
    assert _values(fams, "gpuprof_prof_available", gpu="1") == [0.0]
    reason = next(s for s in fams["gpuprof_prof_available"].samples if s.labels["gpu"] == "1")
    assert reason.labels["reason"] == "not supported on this GPU"


def test_no_gpu_with_gpm_serves_no_prof_family_and_zero_is_a_value():
    no_gpm = {attr: None for attr, _v, _n in PCT_FIELDS}
    fams = scrape([_full_sample(0, prof_unavailable="first sample", **no_gpm)])
    for _attr, _pct, name in PCT_FIELDS:
        assert name not in fams
    idle = scrape([_full_sample(0, prof_sm_active_pct=0.0, prof_tensor_active_pct=0.0)])
    assert _values(idle, "DCGM_FI_PROF_SM_ACTIVE", gpu="0") == [0.0]
    assert _values(idle, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", gpu="0") == [0.0]


def test_lost_gpu_serves_no_prof_series():
    fams = scrape([_full_sample(0), _full_sample(1, lost=True)])
    assert _values(fams, "DCGM_FI_PROF_SM_ACTIVE", gpu="1") == []
    assert _values(fams, "gpuprof_prof_available", gpu="1") == []


def test_mig_instances_carry_dcgm_exporters_instance_labels():
    info = replace(
        h100_info(0),
        mig_mode_current=True,
        mig_devices=(
            MigDeviceInfo(index=0, name="NVIDIA H100 80GB HBM3 MIG 3g.40gb", gpu_instance_id=1),
            MigDeviceInfo(index=1, name="NVIDIA H100 80GB HBM3 MIG 1g.10gb", gpu_instance_id=9),
        ),
    )
    sample = _full_sample(
        0,
        mig_prof=(
            MigProfSample(gpu_instance_id=1, prof_sm_active_pct=80.0),
            MigProfSample(gpu_instance_id=9, prof_sm_active_pct=None),
        ),
    )
    fams = scrape([sample], devices=[info])
    samples = fams["DCGM_FI_PROF_SM_ACTIVE"].samples
    whole = [s for s in samples if "GPU_I_ID" not in s.labels]
    mig = [s for s in samples if "GPU_I_ID" in s.labels]
    assert [s.value for s in whole] == [pytest.approx(0.62)]
    assert len(mig) == 1  # the instance without a value has no series
    assert mig[0].value == pytest.approx(0.8)
    assert mig[0].labels["GPU_I_PROFILE"] == "3g.40gb"
    assert mig[0].labels["GPU_I_ID"] == "1"
    assert mig[0].labels["UUID"] == whole[0].labels["UUID"]


def test_simulated_prof_series_say_so():
    fams = scrape([_full_sample(0)], kind=SourceKind.SIMULATED)
    assert "SIMULATED" in fams["DCGM_FI_PROF_SM_ACTIVE"].documentation
