"""Prometheus exporter: scrape over loopback, parse the exposition, check names, values, labels."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuprof.exporter import (
    LABELS,
    THROTTLE_REASONS,
    BenchValue,
    Exporter,
    SnapshotCollector,
    SourceHealth,
    render_text,
)
from gpuprof.telemetry.model import (
    DeviceInfo,
    EccCounts,
    GpuSample,
    HostSample,
    Snapshot,
    SourceKind,
    SystemInfo,
)
from gpuprof.telemetry.source import KeptFacts
from tests.fakes.devices import h100_info, h100_sample
from tests.fakes.fixtures import gemm_result

MIB = 2**20


def _device(i: int) -> DeviceInfo:
    return h100_info(i)


def _sample(i: int) -> GpuSample:
    return h100_sample(
        i,
        util_gpu_pct=90.0 + i,
        util_mem_pct=40.0,
        mem_used_bytes=1000 * MIB,
        mem_free_bytes=80559 * MIB,
        power_w=650.5,
        energy_total_j=1234.5,
        temp_gpu_c=61.0,
        temp_mem_c=None,  # unsupported: no sample, as dcgm-exporter does
        throttle_reasons=("sw_power_cap",),
        throttle_mask=0x4,
        pcie_rx_bytes_s=1.5e9,
        pcie_tx_bytes_s=2.5e8,
        pcie_replay_count=3,
        nvlink_rx_bytes_s=100e9,
        nvlink_tx_bytes_s=50e9,
        ecc=EccCounts(volatile_corrected=1, volatile_uncorrected=0, remapped_rows_failure=False),
    )


@dataclass
class FakeSource(KeptFacts):
    """A TelemetrySource made of model dataclasses; counts polls."""

    n: int = 2
    kind: SourceKind = SourceKind.NVML
    label: str = "FAKE"
    polls: int = 0
    gpus: list[GpuSample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.gpus = self.gpus or [_sample(i) for i in range(self.n)]
        self._system = SystemInfo(
            hostname="node-a", driver_version="565.57.01", cuda_driver_version="12.7"
        )
        self._devices = tuple(_device(i) for i in range(self.n))

    def poll(self) -> Snapshot:
        self.polls += 1
        return Snapshot(
            time_s=1_700_000_000.0 + self.polls,
            source=self.kind,
            host=HostSample(),
            gpus=tuple(self.gpus),
        )


def scrape(url: str) -> tuple[str, dict]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    return text, {f.name: f for f in text_string_to_metric_families(text)}


def _value(families, name, **labels) -> float:
    hits = [
        s.value
        for s in families[name].samples
        if all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert len(hits) == 1, (name, labels, families[name].samples)
    return hits[0]


@pytest.fixture
def served():
    source = FakeSource()
    exporter = Exporter(source, port=0, interval_s=0.1, bench_values=None)
    with exporter:
        yield exporter


def test_binds_loopback_by_default():
    exporter = Exporter(FakeSource(), port=0, bench_values=None)
    with exporter:
        assert exporter._httpd.server_address[0] == "127.0.0.1"
        assert exporter.url.startswith("http://127.0.0.1:")


def test_scrape_has_dcgm_names_values_and_labels(served):
    _, fams = scrape(served.url)
    sample = next(s for s in fams["DCGM_FI_DEV_GPU_UTIL"].samples if s.labels["gpu"] == "1")
    assert sample.value == 91.0
    assert sample.labels == {
        "gpu": "1",
        "UUID": h100_info(1).uuid,
        "pci_bus_id": "00000000:2A:00.0",  # GPU 1 of the capture
        "device": "nvidia1",
        "modelName": "NVIDIA H100 80GB HBM3",
        "Hostname": "node-a",
    }
    assert fams["DCGM_FI_DEV_GPU_UTIL"].type == "gauge"
    assert _value(fams, "DCGM_FI_DEV_FB_USED", gpu="0") == 1000.0  # MiB
    assert _value(fams, "DCGM_FI_DEV_FB_FREE", gpu="0") == 80559.0
    assert _value(fams, "DCGM_FI_DEV_POWER_USAGE", gpu="0") == 650.5  # W
    assert _value(fams, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu="0") == 1234500.0  # mJ
    assert _value(fams, "DCGM_FI_DEV_SM_CLOCK", gpu="0") == 1980.0
    assert _value(fams, "DCGM_FI_DEV_MEM_CLOCK", gpu="0") == 2619.0
    assert _value(fams, "DCGM_FI_DEV_GPU_TEMP", gpu="0") == 61.0
    assert _value(fams, "DCGM_FI_PROF_PCIE_RX_BYTES", gpu="0") == 1.5e9  # B/s
    assert _value(fams, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", gpu="0") == 3.0
    assert _value(fams, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", gpu="0") == 1.0
    # DCGM publishes NVLink throughput as KiB/s / 1000 (RX + TX).
    assert _value(fams, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", gpu="0") == pytest.approx(
        150e9 / 1024 / 1000
    )


def test_unsupported_field_has_no_sample(served):
    text, fams = scrape(served.url)
    assert "DCGM_FI_DEV_MEMORY_TEMP" not in fams
    assert "DCGM_FI_DEV_RETIRED_SBE" not in fams
    assert "NaN" not in text


def test_counters_keep_exact_dcgm_names(served):
    # prometheus_client would turn a counter into NAME_total; dashboards query the bare name.
    text, _ = scrape(served.url)
    assert "\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" in text
    assert "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total" not in text


def test_throttle_reasons_as_zero_one(served):
    _, fams = scrape(served.url)
    samples = [s for s in fams["gpuprof_clocks_event_reasons"].samples if s.labels["gpu"] == "0"]
    active = {s.labels["reason"]: s.value for s in samples}
    assert set(active) == set(THROTTLE_REASONS)
    assert active["sw_power_cap"] == 1.0
    assert sum(active.values()) == 1.0


@pytest.mark.parametrize(
    ("mask", "names", "expected"),
    [
        (0x44, (), {"sw_power_cap", "hw_thermal_slowdown"}),  # a sample with only the mask
        (None, ("SW Power Cap", "hw_thermal"), {"sw_power_cap", "hw_thermal_slowdown"}),
        (0x5, ("sw_power_cap",), {"gpu_idle", "sw_power_cap"}),  # names never carry idle
        (0x1, (), {"gpu_idle"}),
        (0, (), set()),
    ],
)
def test_throttle_reasons_from_mask_or_names(mask, names, expected):
    gpu = replace(_sample(0), throttle_mask=mask, throttle_reasons=names)
    snap = FakeSource(n=1, gpus=[gpu]).poll()
    collector = SnapshotCollector(lambda: snap, [_device(0)], hostname="h", bench_values=None)
    fams = {f.name: f for f in collector.collect()}
    values = {s.labels["reason"]: s.value for s in fams["gpuprof_clocks_event_reasons"].samples}
    assert list(values) == list(THROTTLE_REASONS)  # every reason, in NVML's bit order
    assert {r for r, v in values.items() if v == 1.0} == expected


def test_no_throttle_metric_when_the_reasons_are_unsupported():
    gpu = replace(_sample(0), throttle_mask=None, throttle_reasons=())
    snap = FakeSource(n=1, gpus=[gpu]).poll()
    collector = SnapshotCollector(lambda: snap, [_device(0)], hostname="h", bench_values=None)
    assert "gpuprof_clocks_event_reasons" not in {f.name for f in collector.collect()}


def test_source_info_labels_nvml(served):
    _, fams = scrape(served.url)
    info = fams["gpuprof_source_info"].samples[0]
    assert info.labels["source"] == "nvml"
    assert "SIMULATED" not in fams["DCGM_FI_DEV_GPU_UTIL"].documentation


def test_simulated_source_is_labelled():
    with Exporter(
        FakeSource(kind=SourceKind.SIMULATED, label="SIMULATED — 8×H100"), port=0, bench_values=None
    ) as exporter:
        _, fams = scrape(exporter.url)
    assert fams["gpuprof_source_info"].samples[0].labels["source"] == "simulated"
    assert "SIMULATED" in fams["DCGM_FI_DEV_GPU_UTIL"].documentation


def test_lost_gpu_reports_lost_and_no_readings():
    source = FakeSource(gpus=[_sample(0), replace(_sample(1), lost=True)])
    with Exporter(source, port=0, bench_values=None) as exporter:
        _, fams = scrape(exporter.url)
    assert _value(fams, "gpuprof_gpu_lost", gpu="1") == 1.0
    assert _value(fams, "gpuprof_gpu_lost", gpu="0") == 0.0
    assert {s.labels["gpu"] for s in fams["DCGM_FI_DEV_GPU_UTIL"].samples} == {"0"}


def test_background_sampling_updates_the_served_snapshot():
    source = FakeSource()
    with Exporter(source, port=0, interval_s=0.1, bench_values=None) as exporter:
        first = exporter.latest()
        source.gpus = [replace(g, util_gpu_pct=12.0) for g in source.gpus]
        for _ in range(200):  # wait for the sampler, bounded; asserts values, not timing
            snap = exporter.latest()
            if snap is not first and snap.gpus[0].util_gpu_pct == 12.0:
                break
            time.sleep(0.01)
        _, fams = scrape(exporter.url)
    assert _value(fams, "DCGM_FI_DEV_GPU_UTIL", gpu="0") == 12.0


def test_bench_results_exported_and_cached():
    calls = []
    now = [0.0]

    def values():
        calls.append(1)
        return [BenchValue("gemm", "bf16 8192", "tflops", 612.5, gpu="0")]

    snap = FakeSource().poll()
    collector = SnapshotCollector(
        lambda: snap,
        FakeSource().devices(),
        hostname="h",
        bench_values=values,
        bench_ttl_s=60.0,
        clock=lambda: now[0],
    )
    fams = {m.name: m for m in collector.collect()}
    assert fams["gpuprof_bench_result"].samples[0].value == 612.5
    assert fams["gpuprof_bench_result"].samples[0].labels["case"] == "bf16 8192"
    list(collector.collect())
    assert len(calls) == 1
    now[0] = 61.0
    list(collector.collect())
    assert len(calls) == 2


def test_broken_bench_results_do_not_break_the_scrape(caplog):
    def boom():
        raise RuntimeError("database is locked")

    snap = FakeSource().poll()
    collector = SnapshotCollector(
        lambda: snap, FakeSource().devices(), hostname="h", bench_values=boom
    )
    names = {m.name for m in collector.collect()}
    assert "DCGM_FI_DEV_GPU_UTIL" in names and "gpuprof_bench_result" not in names


def _both_renderings(collector):
    from prometheus_client import CollectorRegistry, generate_latest

    reg = CollectorRegistry(auto_describe=False)
    reg.register(collector)
    ours = list(text_string_to_metric_families(render_text(collector.collect()).decode()))
    reference = list(text_string_to_metric_families(generate_latest(reg).decode()))
    return ours, reference


def test_fast_renderer_matches_prometheus_client():
    source = FakeSource(n=3)
    snap = source.poll()
    collector = SnapshotCollector(
        lambda: snap,
        source.devices(),
        hostname="h",
        bench_values=lambda: [BenchValue("gemm", "fp32", "tflops", 1.5)],
        health=lambda: SourceHealth(True, False, 0.25, 3, 5.0),
    )
    ours, reference = _both_renderings(collector)
    assert [(f.name, f.type, f.documentation) for f in ours] == [
        (f.name, f.type, f.documentation) for f in reference
    ]
    assert [f.samples for f in ours] == [f.samples for f in reference]
    text = render_text(collector.collect()).decode()
    assert (
        "# TYPE gpuprof_source_poll_errors_total counter\ngpuprof_source_poll_errors_total 3.0\n"
        in text
    )


def test_a_stale_source_serves_health_and_no_gpu_series():
    snap = FakeSource(n=2).poll()
    collector = SnapshotCollector(
        lambda: snap,
        FakeSource(n=2).devices(),
        hostname="h",
        bench_values=None,
        health=lambda: SourceHealth(False, True, None, 7, 5.0),
    )
    fams = {
        f.name: f for f in text_string_to_metric_families(render_text(collector.collect()).decode())
    }
    assert set(fams) == {
        "gpuprof_source_info",
        "gpuprof_source_up",
        "gpuprof_source_last_success_age_seconds",
        "gpuprof_source_poll_errors",
        "gpuprof_source_stale_after_seconds",
    }
    assert _value(fams, "gpuprof_source_up") == 0.0
    assert _value(fams, "gpuprof_source_last_success_age_seconds") == float("inf")


def test_scrapes_of_one_poll_share_one_rendering():
    source = FakeSource()
    with Exporter(source, port=0, interval_s=60, bench_values=None) as exporter:
        rendered = []
        original = exporter.collector.collect_snapshot

        def counting(*args, **kwargs):
            rendered.append(1)
            return original(*args, **kwargs)

        exporter.collector.collect_snapshot = counting
        bodies = {scrape(exporter.url)[0].split("gpuprof_source_up")[0] for _ in range(5)}
        assert len(rendered) == 1 and len(bodies) == 1
        source.gpus = [replace(g, util_gpu_pct=7.0) for g in source.gpus]
        exporter.session.poll_once()  # a new poll: rendered again
        _, fams = scrape(exporter.url)
        assert len(rendered) == 2
        assert _value(fams, "DCGM_FI_DEV_GPU_UTIL", gpu="0") == 7.0


def test_hostile_names_are_escaped():
    snap = FakeSource(n=1).poll()
    hostile = 'GPU "x"\n<script>\\ ' + "é" * 300
    collector = SnapshotCollector(
        lambda: snap, [replace(_device(0), name=hostile)], hostname='h"\n', bench_values=None
    )
    ours, reference = _both_renderings(collector)
    util = next(f for f in ours if f.name == "DCGM_FI_DEV_GPU_UTIL")
    assert util.samples[0].labels["modelName"] == hostile
    assert util.samples[0].labels["Hostname"] == 'h"\n'
    assert [f.samples for f in ours] == [f.samples for f in reference]


def test_unknown_path_is_404(served):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(served.url.replace("/metrics", "/nope"), timeout=5)
    err.value.close()
    assert err.value.code == 404


def test_labels_match_dcgm_exporter_order():
    assert LABELS == ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname")


#: Lints that dcgm-exporter itself fails and that we keep for dashboard compatibility: its camelCase
#: labels (UUID, modelName, Hostname) and the DCGM field name DCGM_FI_DEV_PCIE_REPLAY_COUNTER.
ALLOWED_LINTS = (
    "label names should be written in 'snake_case' not 'camelCase'",
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'",
)


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool (Debian package prometheus) not installed"
)
def test_promtool_check_metrics_accepts_the_scrape(served):
    text, _ = scrape(served.url)
    proc = subprocess.run(
        ["promtool", "check", "metrics"],
        input=text,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    # 0: clean; 3: lint findings only; 1: the exposition did not parse.
    assert proc.returncode in (0, 3), proc.stdout + proc.stderr
    problems = [
        line
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip() and not any(allowed in line for allowed in ALLOWED_LINTS)
    ]
    assert problems == []


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool (Debian package prometheus) not installed"
)
def test_promtool_rejects_a_broken_exposition():
    # Guards the test above: promtool really parses what it is given.
    proc = subprocess.run(
        ["promtool", "check", "metrics"],
        input="broken{\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1


def test_cli_serves_demo_and_stops_cleanly_on_sigterm():
    import os
    import re
    import signal
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuprof", "exporter", "--demo", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/metrics", line)
        assert match, line + proc.stderr.read() if proc.poll() is not None else line
        _, fams = scrape(match.group(0))
        info = fams["gpuprof_source_info"].samples[0]
        assert info.labels["source"] == "simulated"
        assert len(fams["DCGM_FI_DEV_GPU_UTIL"].samples) == 8
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err


def test_cli_rejects_bad_bind_address(capsys):
    from gpuprof.cli import main

    assert main(["exporter", "--bind", "not an address", "--demo"]) == 2
    assert "--bind" in capsys.readouterr().err


def test_bench_values_of_a_run_take_headlines_of_ok_results():
    from types import SimpleNamespace

    from gpuprof.bench.base import Result
    from gpuprof.exporter import bench_values_of

    gemm = gemm_result(
        "bf16 4096",
        137.4,
        dtype="bf16",
        size=4096,
        peak=989.0,
        pct_of_peak=13.9,
        tflops_mean=130.0,
        tflops_max=140.0,
    )
    skipped = Result(bench="p2p", case="0->1", status="skipped: needs 2 CUDA devices")
    run = SimpleNamespace(device="cuda:0", results=(gemm, skipped))
    values = bench_values_of(run)
    assert values == [
        BenchValue("gemm", "bf16 4096", "tflops_median", 137.4, "cuda:0"),
        BenchValue("gemm", "bf16 4096", "pct_of_peak", 13.9, "cuda:0"),
    ]


def test_no_results_database_means_no_bench_metrics(tmp_path, monkeypatch):
    from gpuprof.exporter.metrics import _default_bench_values

    monkeypatch.setenv("GPUPROF_DATA_DIR", str(tmp_path))
    assert _default_bench_values() == []
    assert not (tmp_path / "results.sqlite").exists()  # a scrape never creates the database


def test_exporter_is_a_client_of_a_session():
    """Its own session keeps a tiny History and leaves the source open; an app's session it
    attaches to keeps running after the exporter stops."""
    from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession

    source = FakeSource()
    exporter = Exporter(source, port=0, interval_s=0.1, bench_values=None)
    assert exporter.session.history.capacity == MINIMAL_HISTORY
    closed: list[bool] = []
    source.close = lambda: closed.append(True)
    with exporter:
        pass
    assert exporter.session.closed and closed == []

    session = TelemetrySession(FakeSource(), interval_s=0.1)
    session.poll_once()
    with Exporter(session, port=0, bench_values=None) as attached:
        session.source.gpus = [replace(g, util_gpu_pct=33.0) for g in session.source.gpus]
        session.poll_once()  # a poll of the app's session reaches the scrape
        _, fams = scrape(attached.url)
        assert _value(fams, "DCGM_FI_DEV_GPU_UTIL", gpu="0") == 33.0
    assert not session.closed
    session.source.gpus = [replace(g, util_gpu_pct=44.0) for g in session.source.gpus]
    assert session.poll_once().gpus[0].util_gpu_pct == 44.0
    assert attached.latest().gpus[0].util_gpu_pct == 33.0  # unsubscribed: no longer updated
    session.close()
