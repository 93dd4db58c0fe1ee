"""Simulated and replay sources, and the open_source factory."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuprof.errors import InputError
from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import SourceKind
from gpuprof.telemetry.sampler import Sampler
from gpuprof.telemetry.source import TelemetrySource
from gpuprof.telemetry.sources import (
    CYCLE_S,
    SCENARIOS,
    ReplaySource,
    SimulatedSource,
    open_source,
    phase_at,
)
from gpuprof.telemetry.store import SessionStore

T0 = 1_700_000_000.0
REPO = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def run_sim(scenario: str, seed: int, seconds: int, step: float = 1.0):
    clock = Clock(T0)
    src = SimulatedSource(scenario, seed=seed, clock=clock)
    out = []
    for k in range(int(seconds / step)):
        clock.t = T0 + k * step
        out.append(src.poll())
    return src, out


def test_simulated_is_deterministic_for_a_seed() -> None:
    _, a = run_sim("h100x8", 7, 120, step=3.0)
    _, b = run_sim("h100x8", 7, 120, step=3.0)
    _, c = run_sim("h100x8", 8, 120, step=3.0)
    assert a == b
    assert a != c


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.slow
def test_one_cycle_has_every_phase_a_throttle_episode_and_a_starved_phase(scenario: str) -> None:
    src, snaps = run_sim(scenario, 0, int(CYCLE_S))
    n = src.scenario.gpu_count
    assert all(s.source is SourceKind.SIMULATED and s.simulated for s in snaps)
    assert {phase_at(s.time_s - T0) for s in snaps} == {
        "idle",
        "ramp",
        "training",
        "memory_bound",
        "launch_bound",
        "starved",
        "cooldown",
    }
    h = History(capacity=1000)
    for s in snaps:
        h.append(s)
    # Throttling: every GPU power-capped, the last one also slowed down thermally, clocks drop.
    for g in range(n):
        episodes = h.throttle_intervals(g)
        assert episodes, f"GPU {g} never throttles"
        assert any("sw_power_cap" in reasons for _, _, reasons in episodes)
    last = h.throttle_intervals(n - 1)
    assert any("sw_thermal_slowdown" in reasons for _, _, reasons in last)
    max_sm = src.devices()[0].sm_clock_max_mhz
    throttled = [g for s in snaps for g in s.gpus if g.throttle_reasons]
    assert all(g.clock_sm_mhz < 0.9 * max_sm for g in throttled)
    assert all(g.power_w <= g.power_limit_w for s in snaps for g in s.gpus)
    assert all(g.throttle_mask & 0x4 for g in throttled)
    # Training keeps the GPUs busy; the starved phase averages well below 70%.
    t, util = h.gpu_series(0, "util_gpu_pct")
    phases = np.array([phase_at(x - T0) for x in t])
    assert util[phases == "training"].mean() > 85
    assert util[phases == "starved"].mean() < 70
    assert util[phases == "idle"].max() == 0
    # Periodic dips during training (evaluation / checkpoint).
    assert (util[phases == "training"] < 30).sum() >= 5
    # Processes while the job runs, none of the job's outside it.
    job = next(s for s in snaps if phase_at(s.time_s - T0) == "training")
    assert {p.gpu_index for p in job.processes if p.kind == "compute"} == set(range(n))
    assert all(
        "train" in (p.cmdline or "") or "finetune" in (p.cmdline or "")
        for p in job.processes
        if p.kind == "compute"
    )
    idle = snaps[0]
    assert not [p for p in idle.processes if p.kind == "compute"]
    # Energy only grows.
    energy = [s.gpus[0].energy_total_j for s in snaps]
    assert all(b >= a for a, b in itertools.pairwise(energy))


def test_h100_box_static_facts_and_links() -> None:
    src = SimulatedSource("h100x8", clock=lambda: T0)
    assert src.label == "SIMULATED — 8×H100 SXM (NVSwitch)"
    assert src.kind is SourceKind.SIMULATED
    assert isinstance(src, TelemetrySource)
    devs = src.devices()
    assert len(devs) == 8 and [d.index for d in devs] == list(range(8))
    d = devs[0]
    assert d.name == "NVIDIA H100 80GB HBM3"
    assert (d.power_default_limit_w, d.sm_clock_max_mhz, d.mem_clock_max_mhz) == (700.0, 1980, 2619)
    assert (d.pcie_gen_max, d.pcie_width_max, d.nvlink_count) == (5, 16, 18)
    assert d.memory_total_bytes == 81559 * 2**20
    assert d.temp_slowdown_c is not None and 80 < d.temp_slowdown_c < 95
    assert len({x.uuid for x in devs}) == 8 and len({x.pci_bus_id for x in devs}) == 8
    topo = src.topology()
    assert topo.link(0, 0) == "X" and topo.link(2, 5) == "NV18"
    clock = Clock(T0 + 200)  # training
    busy = SimulatedSource("h100x8", clock=clock, start_s=T0).poll()
    g = busy.gpus[0]
    assert len(g.nvlinks) == 18 and g.nvlink_rx_bytes_s > 50e9
    assert g.pcie_rx_bytes_s > 1e9
    assert g.ecc is not None and g.ecc.volatile_uncorrected == 0 and g.ecc.aggregate_corrected == 0
    assert busy.host.cpu_per_core_pct and len(busy.host.cpu_per_core_pct) == 224
    assert src.system_info().driver_version == "565.57.01"


def test_rtx4090_box_is_pcie_without_ecc_or_nvlink() -> None:
    src = SimulatedSource("rtx4090x2", clock=lambda: T0 + 200, start_s=T0)
    assert src.label == "SIMULATED — 2×RTX 4090 (PCIe)"
    d = src.devices()[1]
    assert (d.power_default_limit_w, d.pcie_gen_max, d.nvlink_count) == (450.0, 4, 0)
    assert d.ecc_mode_current is False
    assert src.topology().link(0, 1) == "PHB"
    snap = src.poll()
    for g in snap.gpus:
        assert g.ecc is None and g.nvlinks == () and g.nvlink_rx_bytes_s is None
        assert len(g.fan_speed_pct) == 1
        assert g.temp_mem_c is None
    assert any(p.kind == "graphics" and p.name == "Xorg" for p in snap.processes)


def test_unknown_scenario() -> None:
    with pytest.raises(InputError, match="h100x8"):
        SimulatedSource("tpu")


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    """100 s recorded at 1 Hz from the simulator."""
    path = tmp_path / "rec.gpuprof"
    clock = Clock(T0)
    src = SimulatedSource("rtx4090x2", seed=2, clock=clock)
    with SessionStore.create(path, source=src) as st:
        for k in range(101):
            clock.t = T0 + k
            st.append(src.poll())
    return path


def test_replay_plays_at_speed_and_seeks(recording: Path) -> None:
    clock = Clock(50.0)
    rp = ReplaySource(recording, speed=1.0, clock=clock)
    # A recording of the simulator stays SIMULATED when played back (label and snapshots).
    assert rp.kind is SourceKind.REPLAY and rp.label == "REPLAY of SIMULATED data — rec.gpuprof"
    assert rp.duration_s == 100.0 and rp.position_s == 0.0
    first = rp.poll()
    assert first.source is SourceKind.SIMULATED and first.time_s == T0
    clock.t += 10.4
    assert rp.poll().time_s == T0 + 10
    rp.speed = 4.0
    clock.t += 5.0
    assert rp.position_s == pytest.approx(30.4)
    assert rp.poll().time_s == T0 + 30
    rp.seek(80.0)
    assert rp.poll().time_s == T0 + 80
    rp.seek(5.0)  # backwards: original times, so History starts over
    assert rp.poll().time_s == T0 + 5
    rp.pause()
    clock.t += 100
    assert rp.position_s == 5.0 and rp.paused
    rp.resume()
    clock.t += 1000
    assert rp.finished and rp.position_s == 100.0
    assert rp.poll().time_s == T0 + 100
    assert rp.devices() == SimulatedSource("rtx4090x2", seed=2, clock=lambda: T0).devices()
    assert rp.topology().link(0, 1) == "PHB"
    with pytest.raises(InputError, match="positive"):
        rp.speed = 0
    rp.close()


def test_replay_values_match_recording_and_feed_a_sampler(recording: Path) -> None:
    clock = Clock(0.0)
    rp = ReplaySource(recording, speed=10.0, clock=clock)
    s = Sampler(rp, interval_s=1.0, history=History(capacity=100), clock=clock)
    for _ in range(5):
        s.step()
        clock.t += 1.0
    t, v = s.history.gpu_series(0, "power_w")
    np.testing.assert_array_equal(t, T0 + np.array([0, 10, 20, 30, 40]))
    with SessionStore.open(recording) as st:
        rec = {snap.time_s: snap.gpus[0].power_w for snap in st.snapshots()}
    np.testing.assert_allclose(v, [rec[x] for x in t], rtol=1e-6)
    rp.close()


def test_replay_of_broken_or_empty_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gpuprof"
    bad.write_text("not a database")
    with pytest.raises(InputError, match=r"bad\.gpuprof"):
        ReplaySource(bad)
    empty = tmp_path / "empty.gpuprof"
    SessionStore.create(empty, source_kind=SourceKind.SIMULATED).close()
    with pytest.raises(InputError, match="no snapshots"):
        ReplaySource(empty)


def test_open_source_factory(recording: Path) -> None:
    demo = open_source(demo=True, scenario="rtx4090x2")
    assert isinstance(demo, SimulatedSource) and demo.kind is SourceKind.SIMULATED
    rp = open_source(replay=str(recording))
    assert isinstance(rp, ReplaySource)
    rp.close()
    nvml = open_source()  # NVML by default; initialised lazily on the first poll
    assert nvml.kind is SourceKind.NVML and type(nvml).__name__ == "NvmlSource"
    nvml.close()


def test_importing_sources_does_not_load_nvml() -> None:
    code = (
        "import sys, gpuprof.telemetry.sources as s; "
        "assert 'pynvml' not in sys.modules and 'gpuprof.telemetry.nvml.source' not in sys.modules; "
        "print(s.NvmlSource.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "NvmlSource"
