"""The AMD source on the fake amdsmi (tests/fakes/fake_amdsmi.py): the same samples as NVML,
each real-library trap a typed absent value with its reason, never a zero."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.telemetry.amd import AmdSmiSource
from gpuprof.telemetry.amd import lib as amd_lib
from gpuprof.telemetry.amd.values import NA_REASON, reading, watts
from gpuprof.telemetry.codec import from_jsonable, to_jsonable
from gpuprof.telemetry.model import GpuSample, SourceKind, SourceState
from gpuprof.telemetry.reasons import ClockEventReason
from tests.fakes.fake_amdsmi import BOXES, NO_PERM, FakeAmdSmi

ROOT = Path(__file__).resolve().parent.parent


def _open(box: str) -> tuple[FakeAmdSmi, AmdSmiSource]:
    fake = FakeAmdSmi(BOXES[box]())
    return fake, AmdSmiSource(smi=fake, clock=fake.clock, wall_clock=lambda: 1.7e9 + fake.now_s)


@pytest.fixture
def mi300x() -> Iterator[tuple[FakeAmdSmi, AmdSmiSource]]:
    fake, source = _open("mi300x8")
    yield fake, source
    source.close()


def _two_polls(fake: FakeAmdSmi, source: AmdSmiSource):  # type: ignore[no-untyped-def]
    source.poll()
    fake.advance(1.0)
    return source.poll()


def _why(sample: GpuSample, field: str) -> str:
    return dict(sample.absent)[field]


# --- the values: "N/A", {value, unit}, microwatts ---------------------------------------------


def test_na_strings_and_sentinels_are_none_with_a_reason_never_zero() -> None:
    for raw in ("N/A", " n/a ", "", None, 0xFFFF, 0xFFFFFFFF, {"value": "N/A", "unit": "%"}):
        r = reading(raw)
        assert r.value is None and r.reason, raw
    assert reading("N/A").reason == NA_REASON
    assert reading(True).value is None  # a bool is not a number
    assert reading(0).value == 0.0  # a real zero stays a zero


def test_value_unit_wrappers_are_unwrapped() -> None:
    r = reading({"value": 42, "unit": "%"})
    assert (r.value, r.unit) == (42.0, "%")


def test_power_limits_in_microwatts_become_watts() -> None:
    assert watts(750_000_000, microwatts=True).value == 750.0
    # ROCm/amdsmi PR #174: an MI325X power1_cap of 1000000000 µW is 1000 W
    assert watts(1_000_000_000, microwatts=False).value == 1000.0
    assert watts({"value": 550, "unit": "W"}, microwatts=True).value == 550.0
    assert watts(133, microwatts=False).value == 133.0
    assert watts("N/A", microwatts=True).value is None


# --- the source on each box ---------------------------------------------------------------------


def test_mi300x_box_gives_eight_gpus_with_every_field_the_data_has(mi300x) -> None:
    fake, source = mi300x
    assert source.kind is SourceKind.AMDSMI and source.label == "amdsmi"
    devices = source.devices()
    assert len(devices) == 8
    d0 = devices[0]
    assert d0.name == "AMD Instinct MI300X" and d0.vendor == "amd"
    assert d0.pci_bus_id == "0000:26:00.0" and d0.vbios_version == "113-MI3SRIOV-001"
    assert d0.architecture == "CDNA3 (gfx942)"
    assert d0.power_max_limit_w == 750.0  # µW in amdsmi
    assert d0.temp_slowdown_c == 100.0 and d0.pcie_gen_max == 5
    assert (d0.compute_partition, d0.memory_partition, d0.xgmi_link_count) == ("SPX", "NPS1", 7)
    snap = _two_polls(fake, source)
    assert snap.source is SourceKind.AMDSMI and len(snap.gpus) == 8
    g = snap.gpus[0]
    assert g.util_gpu_pct == 97.0 and g.util_mem_pct == 41.0 and g.util_mm_pct == 0.0
    assert g.mem_total_bytes == 196_592 * 2**20 and g.mem_used_bytes == 62_000 * 2**20
    assert g.power_w == 583.0  # MI300: current socket power
    assert g.power_enforced_limit_w == 750.0 and g.power_limit_w == 750.0
    assert g.temp_hotspot_c == 65.0 and g.temp_mem_c == 53.0
    assert g.clock_sm_mhz == 2100.0 and g.clock_mem_mhz == 1300.0 and g.clock_soc_mhz == 1143.0
    assert (g.pcie_gen, g.pcie_width) == (5, 16)
    assert g.xgmi_read_bytes_s == pytest.approx(40e6 * 1024, rel=1e-3)
    assert g.energy_total_j is not None and g.energy_total_j > 0
    assert g.ecc is not None and {b.block for b in g.ecc.blocks} >= {"UMC", "XGMI_WAFL"}
    # No edge sensor on MI300 and no fan on an OAM board: None, each with its reason.
    assert g.temp_gpu_c is None and "NOT_SUPPORTED" in _why(g, "temp_gpu_c")
    assert g.fan_speed_pct == () and "fan" in _why(g, "fan_speed_pct")
    # GPU 3 is held at its power cap (violation status active_ppt_pwr).
    assert snap.gpus[3].clock_events & ClockEventReason.SW_POWER_CAP
    assert not snap.gpus[0].clock_events.without_idle


def test_every_none_field_of_an_amd_sample_has_a_reason_or_is_nvidia_only(mi300x) -> None:
    fake, source = mi300x
    g = _two_polls(fake, source).gpus[0]
    nvidia_only = {
        "util_enc_pct",
        "util_dec_pct",
        "mem_reserved_bytes",
        "clock_video_mhz",
        "clock_app_graphics_mhz",
        "clock_app_mem_mhz",
        "pstate",
        "nvlink_rx_bytes_s",
        "nvlink_tx_bytes_s",
    }
    missing = [
        name
        for name in GpuSample.__slots__
        if getattr(g, name) is None
        and not name.startswith("prof_")
        and name not in nvidia_only
        and name not in dict(g.absent)
    ]
    assert missing == []
    assert g.prof_unavailable  # the profiling fields say why once


def test_mi200_reports_average_power_only_and_no_violation_status() -> None:
    fake, source = _open("mi250x2")
    g = _two_polls(fake, source).gpus[0]
    assert g.power_w == 94.0  # average_socket_power; current is "N/A"
    assert g.temp_gpu_c == 41.0  # MI200 has an edge sensor
    assert g.throttle_mask is None and "NOT_SUPPORTED" in _why(g, "throttle_mask")
    assert g.ecc is not None and g.ecc.volatile_corrected == 2
    assert g.ecc.blocks[0].block == "UMC" and g.ecc.blocks[0].corrected == 2
    source.close()


def test_power_all_na_is_absent_with_a_reason_not_zero() -> None:
    fake, source = _open("mi210")
    fake.box.gpus[0].average_socket_power = "N/A"
    g = source.poll().gpus[0]
    assert g.power_w is None and _why(g, "power_w") == NA_REASON
    source.close()


def test_radeon_with_wrapped_values_and_a_fan() -> None:
    fake, source = _open("radeon_w7700")
    d = source.devices()[0]
    assert d.fan_count == 1 and d.ecc_mode_current is False and d.architecture == "gfx1101"
    g = _two_polls(fake, source).gpus[0]
    assert g.util_gpu_pct == 42.0 and g.util_mem_pct == 1.0  # from {"value", "unit"}
    assert g.fan_speed_pct == (pytest.approx(20.0, abs=0.3),)
    assert g.temp_gpu_c == 39.0 and g.temp_mem_c is None
    assert g.ecc is None and "ecc" in dict(g.absent)
    assert "no XGMI" in _why(g, "xgmi_read_bytes_s")
    source.close()


def test_cpx_partitions_are_gpus_with_their_partition_modes() -> None:
    fake, source = _open("mi300x_cpx")
    devices = source.devices()
    assert len(devices) == 8
    assert {(d.compute_partition, d.memory_partition) for d in devices} == {("CPX", "NPS4")}
    assert devices[1].memory_total_bytes == 196_592 // 8 * 2**20
    snap = _two_polls(fake, source)
    assert snap.gpus[0].power_w is not None
    assert snap.gpus[1].power_w is None and _why(snap.gpus[1], "power_w")
    assert snap.gpus[5].util_gpu_pct == 50.0
    source.close()


def test_processes_with_vram_and_engine_use(mi300x) -> None:
    fake, source = mi300x
    snap = _two_polls(fake, source)
    procs = {p.gpu_index: p for p in snap.processes}
    assert len(procs) == 8
    p0 = procs[0]
    assert p0.pid == 4100 and p0.gpu_mem_bytes == (62_000 - 900) * 2**20
    assert p0.sm_util_pct == pytest.approx(97.0)  # GFX engine ns over the poll interval


def test_process_list_not_permitted_is_a_status_not_a_crash(mi300x) -> None:
    fake, source = mi300x
    fake.inject("amdsmi_get_gpu_process_list", NO_PERM)
    snap = source.poll()
    assert snap.processes == () and len(snap.gpus) == 8
    assert snap.status.state is SourceState.NO_PERMISSION
    assert not snap.status.process_info_permitted


def test_unsupported_field_is_asked_once(mi300x) -> None:
    fake, source = mi300x
    for _ in range(3):
        source.poll()
        fake.advance(1.0)
    # EDGE is NOT_SUPPORTED on MI300X: asked on the first poll only, per GPU.
    assert fake.calls["amdsmi_get_gpu_fan_speed"] == 8
    assert source.diagnostics.has(0, "temp_gpu_c")


def test_topology_and_samples_survive_a_recording_round_trip(mi300x) -> None:
    fake, source = mi300x
    assert source.topology().link(0, 7) == "XGMI"
    g = _two_polls(fake, source).gpus[0]
    assert from_jsonable(GpuSample, json.loads(json.dumps(to_jsonable(g)))) == g


def test_close_shuts_amdsmi_down_once() -> None:
    fake, source = _open("mi210")
    source.poll()
    source.close()
    source.close()
    assert fake.shut_down and fake.calls["amdsmi_shut_down"] == 1
    assert source.poll().gpus == ()


def test_init_failure_is_a_state_with_a_hint() -> None:
    fake = FakeAmdSmi(BOXES["mi210"]())
    fake.inject("amdsmi_init", 34)
    source = AmdSmiSource(smi=fake)
    status = source.status()
    assert status.state is SourceState.DRIVER_NOT_LOADED and "amdgpu" in status.hint
    assert source.devices() == () and source.kind is SourceKind.NONE
    assert source.poll().gpus == ()


# --- the import trap: KeyError and a print to stdout --------------------------------------------


def test_missing_libamd_smi_is_unavailable_and_keeps_stdout_clean(tmp_path: Path) -> None:
    """amdsmi 7.0.2 without libamd_smi.so prints two lines to stdout and raises KeyError at
    import (reference/amd/api.md §1). A child process imports a package that does exactly that;
    the source reports LIBRARY_NOT_FOUND naming the cause and our stdout holds only our JSON."""
    pkg = tmp_path / "amdsmi"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            print("/opt/rocm/lib/libamd_smi.so: cannot open shared object file: No such file")
            print("Unable to find libamd_smi.so library try installing amd-smi-lib")
            _libraries = {}
            amdsmi_free_name_value_pairs = _libraries['libamd_smi.so'].amdsmi_free_name_value_pairs
            """
        )
    )
    code = textwrap.dedent(
        """
        import json
        from gpuprof.telemetry.amd import AmdSmiSource
        source = AmdSmiSource()
        status = source.status()
        print(json.dumps({"state": status.state.value, "message": status.message,
                          "gpus": len(source.poll().gpus)}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)  # nothing but our JSON on stdout
    assert out["state"] == "library_not_found" and out["gpus"] == 0
    assert "libamd_smi.so" in out["message"] and "Unable to find" in out["message"]


def test_amdsmi_not_installed_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amd_lib, "amdsmi", None)
    monkeypatch.setitem(sys.modules, "amdsmi", None)  # import raises ImportError
    with pytest.raises(amd_lib.AmdSmiUnavailable, match="not installed"):
        amd_lib.load_amdsmi()


def test_exactly_one_module_imports_amdsmi() -> None:
    importers = []
    for path in [*ROOT.joinpath("gpuprof").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "amdsmi" or n.startswith("amdsmi.") for n in names):
                importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["gpuprof/telemetry/amd/lib.py"]


def test_gpu_acceptance_script_covers_an_amd_machine() -> None:
    script = (ROOT / "scripts" / "gpu_acceptance.sh").read_text(encoding="utf-8")
    assert "command -v amd-smi" in script and "whl/rocm" in script
    amd_block = script[script.index('if [ "$VENDOR" = amd ]; then\n    # NVML') :]
    assert "tests/test_telemetry_amd_gpu.py" in amd_block.split("else")[0]
    assert "share/amd_smi" in script  # ROCm's amdsmi matches its libamd_smi.so
