"""The CLI on a box with AMD GPUs (the fake amdsmi in sys.modules, as the real one would be):
devices, monitor --once, record and replay; a mixed NVIDIA + AMD box shows both."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuprof.cli import main
from gpuprof.telemetry.amd import lib as amd_lib
from gpuprof.telemetry.sources import open_source
from tests.fakes.devices import BOXES as NVIDIA_BOXES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_devices_json_lists_eight_mi300x(capsys, install_amd) -> None:
    install_amd("mi300x8")
    code, out, err = run(capsys, "devices", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["source"] == "amdsmi" and data["simulated"] is False
    assert len(data["devices"]) == 8
    d = data["devices"][0]
    assert d["name"] == "AMD Instinct MI300X" and d["vendor"] == "amd"
    assert d["compute_partition"] == "SPX" and d["xgmi_link_count"] == 7
    assert data["topology"]["matrix"][0][1] == "XGMI"


def test_devices_table_shows_partitions_and_xgmi(capsys, install_amd) -> None:
    install_amd("mi300x_cpx")
    code, out, _ = run(capsys, "devices")
    assert code == 0
    assert "CPX/NPS4" in out and "XGMI = AMD Infinity Fabric" in out


def test_monitor_once_json_has_amd_fields_and_reasons(capsys, install_amd) -> None:
    install_amd("mi300x8")
    code, out, err = run(capsys, "monitor", "--once", "--json")
    assert code == 0, err
    snap = json.loads(out)
    assert snap["source"] == "amdsmi" and len(snap["gpus"]) == 8
    g = snap["gpus"][0]
    assert g["util_gpu_pct"] == 97.0 and g["power_w"] == 583.0 and g["temp_hotspot_c"] == 65.0
    assert g["temp_gpu_c"] is None and "NOT_SUPPORTED" in dict(g["absent"])["temp_gpu_c"]
    assert {p["gpu_index"] for p in snap["processes"]} == set(range(8))


def test_monitor_table_marks_the_junction_temperature(capsys, install_amd) -> None:
    install_amd("mi300x8")
    code, out, _ = run(capsys, "monitor", "--once")
    assert code == 0
    assert "65 °C J" in out and "AMD Instinct MI300X" in out


def test_record_then_replay_an_amd_box(capsys, install_amd, tmp_path: Path) -> None:
    install_amd("mi250x2")
    out_file = tmp_path / "amd.gpuprof"
    code, _, err = run(
        capsys, "record", "--out", str(out_file), "--duration", "0.6", "--interval", "0.2"
    )
    assert code == 0, err
    code, out, err = run(capsys, "replay", str(out_file), "--json")
    assert code == 0, err
    snaps = [json.loads(line) for line in out.splitlines()]
    assert snaps and all(len(s["gpus"]) == 2 for s in snaps)
    g = snaps[-1]["gpus"][0]
    assert g["power_w"] == 94.0 and g["ecc"]["blocks"][0]["block"] == "UMC"
    assert "throttle_mask" in dict(g["absent"])  # MI200: no violation status


def test_mixed_box_shows_both_vendors(install_amd, make_fake_nvml) -> None:
    make_fake_nvml(NVIDIA_BOXES["rtx4090x2"]())
    install_amd("mi210")
    source = open_source()
    try:
        devices = source.devices()
        assert [(d.index, d.vendor) for d in devices] == [(0, "nvidia"), (1, "nvidia"), (2, "amd")]
        assert source.label == "NVML + amdsmi"
        snap = source.poll()
        assert [g.index for g in snap.gpus] == [0, 1, 2]
        assert snap.gpus[2].power_w == 43.0
        assert source.topology().link(1, 2) == "SYS"
        assert source.topology().link(0, 1) == "PHB"
    finally:
        source.close()


def test_without_amdsmi_the_source_is_nvml_as_before(monkeypatch, make_fake_nvml) -> None:
    from gpuprof.telemetry.nvml.source import NvmlSource

    make_fake_nvml(NVIDIA_BOXES["t4"]())
    monkeypatch.setattr(amd_lib, "amdsmi", None)
    monkeypatch.setitem(sys.modules, "amdsmi", None)
    monkeypatch.setattr(amd_lib, "amdsmi_installed", lambda: False)
    source = open_source()
    assert isinstance(source, NvmlSource)
    source.close()


def test_amd_library_without_gpus_falls_back_to_nvml(install_amd, make_fake_nvml) -> None:
    from gpuprof.telemetry.nvml.source import NvmlSource

    make_fake_nvml(NVIDIA_BOXES["t4"]())
    fake = install_amd("mi210")
    fake.box.gpus.clear()
    source = open_source()
    assert isinstance(source, NvmlSource) and fake.shut_down
    source.close()


def test_mixed_box_forwards_what_is_watched(install_amd, make_fake_nvml) -> None:
    make_fake_nvml(NVIDIA_BOXES["rtx4090x2"]())
    install_amd("mi210")
    source = open_source()
    seen: list[tuple[str, bool]] = []
    nvidia = source.sources[0]  # type: ignore[attr-defined]
    nvidia.watch_gpm = lambda on: seen.append(("gpm", on))
    nvidia.watch_process_host = lambda on: seen.append(("host", on))
    try:
        source.watch_gpm(True)  # type: ignore[attr-defined]
        source.watch_process_host(False)  # type: ignore[attr-defined]
        assert seen == [("gpm", True), ("host", False)]
    finally:
        source.close()
