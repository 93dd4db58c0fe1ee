"""``gpuprof exporter --per-process``: a series per GPU process, redacted, gone when it goes."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from dataclasses import replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuprof.exporter import Exporter, render_text
from gpuprof.exporter.metrics import LABELS, SnapshotCollector, SourceHealth
from gpuprof.exporter.processes import PROCESS_FAMILIES, PROCESS_LABELS
from gpuprof.telemetry.model import HostSample, ProcessSample, Snapshot, SourceKind
from gpuprof.telemetry.simulated import SimulatedSource
from tests.fakes.devices import h100_info, h100_sample

SECRET = "hf_abcdefghijklmnopqrstuvwxyz0123456789"

TRAINER = ProcessSample(
    pid=4242,
    gpu_index=1,
    gpu_mem_bytes=70 * 2**30,
    sm_util_pct=87.0,
    mem_util_pct=31.0,
    name="python3",
    user="alice",
    cmdline=f"python3 train.py --hf-token {SECRET}",
    host_cpu_pct=104.5,
    host_rss_bytes=12 * 2**30,
    start_time_s=1_699_990_000.0,
    container_id="7702807882dd05ee9adab821a66796e558d4939cb2bb83bdc970659b78294d18",
    pod_name="llama-7b",
    pod_namespace="ml-team",
)
# A process whose name and user carry what must not leave the machine as it is.
HOSTILE = ProcessSample(
    pid=99,
    gpu_index=0,
    gpu_mem_bytes=2**20,
    name=f"TOKEN={SECRET}",
    user="eve\x1b[31m\u202e",
)


def _snap(*procs: ProcessSample, kind: SourceKind = SourceKind.NVML) -> Snapshot:
    return Snapshot(
        time_s=1_700_000_000.0,
        source=kind,
        host=HostSample(),
        gpus=(h100_sample(0), h100_sample(1)),
        processes=procs,
    )


def _families(snap: Snapshot | None, *, per_process: bool = True, stale: bool = False) -> dict:
    collector = SnapshotCollector(
        lambda: snap,
        (h100_info(0), h100_info(1)),
        hostname="node-a",
        bench_values=None,
        per_process=per_process,
        health=(lambda: SourceHealth(not stale, stale, None if stale else 0.5, 0, 5.0)),
    )
    text = render_text(collector.collect()).decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def test_per_process_series_with_gpu_and_process_labels() -> None:
    fams = _families(_snap(TRAINER))
    names = {name for name, _, _ in PROCESS_FAMILIES}
    assert names <= set(fams)
    (mem,) = fams["gpuprof_process_gpu_memory_bytes"].samples
    assert mem.value == 70 * 2**30
    assert list(mem.labels) == [*LABELS, *PROCESS_LABELS]
    assert mem.labels["gpu"] == "1" and mem.labels["UUID"] == h100_info(1).uuid
    assert (mem.labels["pid"], mem.labels["process_name"], mem.labels["user"]) == (
        "4242",
        "python3",
        "alice",
    )
    assert mem.labels["container_id"] == "7702807882dd"  # docker ps's short id
    assert (mem.labels["pod"], mem.labels["namespace"]) == ("llama-7b", "ml-team")
    values = {n: fams[n].samples[0].value for n in names}
    assert values["gpuprof_process_sm_util_percent"] == 87.0
    assert values["gpuprof_process_mem_util_percent"] == 31.0
    assert values["gpuprof_process_cpu_percent"] == 104.5
    assert values["gpuprof_process_resident_memory_bytes"] == 12 * 2**30
    assert values["gpuprof_process_start_time_seconds"] == 1_699_990_000.0


def test_labels_are_redacted_as_in_reports_and_the_command_line_is_not_exported() -> None:
    text = render_text(
        SnapshotCollector(
            lambda: _snap(TRAINER, HOSTILE),
            (h100_info(0), h100_info(1)),
            bench_values=None,
            per_process=True,
        ).collect()
    ).decode()
    assert SECRET not in text and "train.py" not in text
    assert "\x1b" not in text and "\u202e" not in text
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    hostile = next(
        s for s in fams["gpuprof_process_gpu_memory_bytes"].samples if s.labels["pid"] == "99"
    )
    assert hostile.labels["process_name"] == "TOKEN=***"
    assert hostile.labels["user"].startswith("eve")


def test_a_process_that_goes_away_loses_its_series() -> None:
    other = replace(TRAINER, pid=5151, gpu_index=0)
    before = _families(_snap(TRAINER, other))
    assert {s.labels["pid"] for s in before["gpuprof_process_gpu_memory_bytes"].samples} == {
        "4242",
        "5151",
    }
    after = _families(_snap(other))
    assert {s.labels["pid"] for s in after["gpuprof_process_gpu_memory_bytes"].samples} == {"5151"}
    assert all(
        s.labels["pid"] == "5151" for n, f in after.items() if "process" in n for s in f.samples
    )
    none = _families(_snap())
    assert not any(n.startswith("gpuprof_process_") for n in none)


def test_absent_values_give_no_series_and_off_by_default() -> None:
    bare = ProcessSample(pid=7, gpu_index=0, gpu_mem_bytes=None)
    fams = _families(_snap(bare))
    assert not any(n.startswith("gpuprof_process_") for n in fams)
    assert not any(
        n.startswith("gpuprof_process_") for n in _families(_snap(TRAINER), per_process=False)
    )


def test_a_stale_source_serves_no_process_series() -> None:
    fams = _families(_snap(TRAINER), stale=True)
    assert not any(n.startswith("gpuprof_process_") for n in fams)


def test_simulated_processes_are_labelled_simulated() -> None:
    snap = SimulatedSource.demo("h100x8").poll()
    fams = _families(snap)
    fam = fams["gpuprof_process_cpu_percent"]
    assert "SIMULATED" in fam.documentation
    assert len(fam.samples) == 8 and all(s.value > 0 for s in fam.samples)
    assert {s.labels["pod"] for s in fam.samples} == {"llama2-7b-pretrain-0"}


def test_exporter_serves_them_over_http() -> None:
    source = SimulatedSource.demo("h100x8")
    exporter = Exporter(source, port=0, interval_s=0.1, bench_values=None, per_process=True)
    with exporter, urllib.request.urlopen(exporter.url, timeout=5) as resp:
        text = resp.read().decode()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    assert len(fams["gpuprof_process_gpu_memory_bytes"].samples) == 8


def test_cli_flag_is_parsed() -> None:
    from gpuprof.cli import build_parser

    args = build_parser().parse_args(["exporter", "--per-process", "--demo"])
    assert args.per_process is True
    assert build_parser().parse_args(["exporter"]).per_process is False


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_cli_help_mentions_it(lang: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpuprof", "--lang", lang, "exporter", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and "--per-process" in out.stdout
