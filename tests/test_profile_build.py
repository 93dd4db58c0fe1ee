"""build_profile over telemetry from the fake NVML, scoped to a real child process (issue 13).

The fake H100 box lists processes whose pids are a real child's (and a stranger's), so the
scoping by process tree is the real one: :class:`ProcessTree` follows the child, and the GPUs,
memory and energy attributed to the job are checked against numbers worked out by hand.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuprof.profile.build import JobRun, build_profile
from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.profile.storage import (
    append_markers,
    read_job_profile,
    read_markers,
    write_job_profile,
)
from gpuprof.profile.tree import ProcessTree, TreeInfo
from gpuprof.telemetry.model import Snapshot
from gpuprof.telemetry.nvml.source import NvmlSource
from gpuprof.telemetry.reasons import ClockEventReason
from gpuprof.telemetry.store import SessionStore
from tests.fakes.devices import h100_sxm_8gpu_box
from tests.fakes.fake_nvml import FakeGpmActivity, FakeNvml, FakeProcess

GIB = 2**30
T0 = 1_800_000_000.0
STRANGER = 4_000_001  # a pid that is not the job's (beyond pid_max: never a real process)


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


class Box:
    """The fake 8×H100 box, polled once per simulated second."""

    def __init__(self) -> None:
        self.box = h100_sxm_8gpu_box()
        self.fake = FakeNvml(self.box)
        self.source = NvmlSource(
            nvml=self.fake, clock=self.fake.clock, wall_clock=lambda: T0 + self.fake.now_s - 1000.0
        )

    def run(self, seconds: int, each: Callable[[int], None] | None = None) -> list[Snapshot]:
        """``seconds + 1`` snapshots one second apart; ``each(k)`` sets up second ``k``."""
        snaps = []
        for k in range(seconds + 1):
            if each is not None:
                each(k)
            if k:
                self.fake.advance(1.0)
            snaps.append(self.source.poll())
        return snaps

    def close(self) -> None:
        self.source.close()


@pytest.fixture
def box() -> Iterator[Box]:
    b = Box()
    yield b
    b.close()


def _busy(dev: object, util: int) -> None:
    dev.util_gpu_pct = util  # type: ignore[attr-defined]
    dev.gpm = FakeGpmActivity(sm_active_pct=70.0, tensor_active_pct=40.0, dram_active_pct=30.0)  # type: ignore[attr-defined]


def _tree(pid: int) -> TreeInfo:
    tree = ProcessTree(pid)
    tree.refresh()
    return tree.finish()


def _run(snaps: list[Snapshot], pid: int, **kw: object) -> JobRun:
    return JobRun(
        name="train",
        command=("python", "train.py"),
        pid=pid,
        started_s=snaps[0].time_s,
        ended_s=snaps[-1].time_s,
        interval_s=1.0,
        **kw,  # type: ignore[arg-type]
    )


def test_the_job_is_its_gpus_its_memory_and_its_energy(box: Box, child) -> None:
    d1, d2 = box.box.devices[1], box.box.devices[2]
    d1.processes = [
        FakeProcess(child.pid, used_memory_bytes=40 * GIB),
        FakeProcess(STRANGER, used_memory_bytes=5 * GIB),
    ]
    d2.processes = [FakeProcess(child.pid, used_memory_bytes=30 * GIB)]
    for d in (d1, d2):
        _busy(d, 90)
        d.power_mw = 500_000
    d2.clocks_event_reasons = int(ClockEventReason.SW_POWER_CAP)
    # GPU 3 is busy with somebody else's work only: not the job's.
    box.box.devices[3].processes = [FakeProcess(STRANGER, used_memory_bytes=GIB)]
    _busy(box.box.devices[3], 100)
    snaps = box.run(10)
    profile = build_profile(
        _run(snaps, child.pid), snaps, devices=box.source.devices(), tree=_tree(child.pid)
    )
    assert profile.gpu_indices == (1, 2)
    assert profile.wall_s == pytest.approx(10.0)
    assert profile.gpu_seconds == pytest.approx(20.0)
    g1, g2 = profile.gpus
    # 500 W for 10 s on NVML's total-energy counter (mJ), end minus start.
    assert g1.energy_j == pytest.approx(5000.0) and g2.energy_j == pytest.approx(5000.0)
    assert g1.power_mean_w == pytest.approx(500.0)
    assert g1.job_mem_peak_bytes == 40 * GIB and g1.others_mem_peak_bytes == 5 * GIB
    assert g2.job_mem_peak_bytes == 30 * GIB and g2.others_mem_peak_bytes is None
    assert g1.util_gpu_mean_pct == pytest.approx(90.0)
    # GPM needs two samples: the first poll has none; the rest read what the SMs did.
    assert g1.sm_active_mean_pct == pytest.approx(70.0)
    assert g1.tensor_active_mean_pct == pytest.approx(40.0)
    assert g1.dram_active_mean_pct == pytest.approx(30.0)
    assert g1.prof_unavailable is None
    assert dict(g2.throttle_s) == {"sw_power_cap": pytest.approx(10.0)}
    assert g1.throttle_s == ()
    assert g1.name == "NVIDIA H100 80GB HBM3" and g1.uuid
    assert g1.clock_sm_mean_mhz is not None
    assert {f.code for f in profile.findings if f.gpu_index == 2} >= {"power_throttling"}
    assert all(f.gpu_index in (1, 2, None) for f in profile.findings)
    assert profile.host.processes_peak == 1 and profile.host.rss_peak_bytes


def test_without_the_energy_counter_power_is_integrated_and_said(box: Box, child) -> None:
    dev = box.box.devices[0]
    dev.processes = [FakeProcess(child.pid, used_memory_bytes=GIB)]
    dev.energy_mj = None
    dev.power_mw = 300_000
    snaps = box.run(4)
    profile = build_profile(_run(snaps, child.pid), snaps, tree=_tree(child.pid))
    # Each sample stands for the second before it: 4 s at 300 W.
    assert profile.gpus[0].energy_j == pytest.approx(1200.0)
    assert any("integrated from power" in n for n in profile.notes)


def test_no_process_information_counts_every_gpu_and_says_so(box: Box, child) -> None:
    box.fake.inject("nvmlDeviceGetComputeRunningProcesses", error=4)  # NO_PERMISSION
    snaps = box.run(2)
    profile = build_profile(_run(snaps, child.pid), snaps, tree=_tree(child.pid))
    assert profile.gpu_indices == tuple(range(8))
    assert any("no GPU process information" in n for n in profile.notes)


def test_a_job_that_never_shows_on_a_gpu_has_none(box: Box, child) -> None:
    box.box.devices[0].processes = [FakeProcess(STRANGER, used_memory_bytes=GIB)]
    snaps = box.run(2)
    profile = build_profile(_run(snaps, child.pid), snaps, tree=_tree(child.pid))
    assert profile.gpu_indices == () and profile.gpus == () and profile.gpu_seconds == 0.0
    assert any("never showed on a GPU" in n for n in profile.notes)


def test_phases_startup_steady_tail_and_mark_labels(box: Box, child) -> None:
    dev = box.box.devices[0]
    dev.processes = [FakeProcess(child.pid, used_memory_bytes=GIB)]

    def each(k: int) -> None:  # idle for 3 s, busy 4..8, idle again from 9 on
        dev.util_gpu_pct = 90 if 4 <= k <= 8 else 0

    snaps = box.run(12, each)
    t = snaps[0].time_s
    marks = [
        PhaseMark(t + 5.0, "mark", "eval", run="r", pid=child.pid),
        PhaseMark(t + 7.0, "end", run="r", pid=child.pid),
    ]
    profile = build_profile(_run(snaps, child.pid), snaps, tree=_tree(child.pid), markers=marks)
    spans = {p.name: (p.start_s - t, p.end_s - t) for p in profile.phases}
    assert spans["startup"] == pytest.approx((0.0, 4.0))
    assert spans["steady"] == pytest.approx((4.0, 8.0))
    assert spans["tail"] == pytest.approx((8.0, 12.0))
    assert spans["eval"] == pytest.approx((5.0, 7.0))


def test_steps_give_mfu_against_the_h100_bf16_peak(box: Box, child) -> None:
    dev = box.box.devices[0]
    dev.processes = [FakeProcess(child.pid, used_memory_bytes=GIB)]
    _busy(dev, 95)
    snaps = box.run(10)
    t = snaps[0].time_s
    # 10 steps of 0.5 s, each 2.5e14 FLOP: 500 TFLOPS; H100 SXM BF16 dense peak 989.4 TFLOPS.
    steps = [
        StepMarker(t + 0.5 * k, k, 0.5, flops=2.5e14, run="r", pid=child.pid) for k in range(1, 11)
    ]
    profile = build_profile(
        _run(snaps, child.pid, dtype="bf16"),
        snaps,
        devices=box.source.devices(),
        tree=_tree(child.pid),
        markers=steps,
    )
    s = profile.steps
    assert s is not None and s.count == 10
    assert s.p50_s == pytest.approx(0.5)
    assert s.achieved_tflops == pytest.approx(500.0)
    assert s.peak_tflops is not None and s.mfu_pct == pytest.approx(50000.0 / s.peak_tflops)
    assert s.mfu_dtype == "bf16"


def test_the_profile_and_markers_live_in_the_recording(tmp_path: Path, box: Box, child) -> None:
    dev = box.box.devices[0]
    dev.processes = [FakeProcess(child.pid, used_memory_bytes=GIB)]
    out = tmp_path / "run.gpuprof"
    store = SessionStore.create(out, source=box.source)
    snaps = box.run(3)
    for s in snaps:
        store.append(s)
    t = snaps[0].time_s
    markers = [StepMarker(t + 1, 1, 1.0, tokens=10.0), PhaseMark(t + 0.5, "start", run="r")]
    append_markers(store, markers)
    profile = build_profile(
        _run(snaps, child.pid),
        store.snapshots(),
        devices=store.devices(),
        tree=_tree(child.pid),
        markers=read_markers(store),
    )
    write_job_profile(store, profile)
    store.close()
    assert read_job_profile(out) == profile
    with SessionStore.open(out) as again:
        assert read_markers(again) == (markers[1], markers[0])  # in time order
        assert again.count() == 4  # the recording's own reader is unchanged
    assert profile.steps is not None and profile.steps.count == 1


def test_a_plain_recording_has_no_job(tmp_path: Path) -> None:
    good = Path(__file__).parent / "data" / "session-v1.gpuprof"
    assert read_job_profile(good) is None
    with SessionStore.open(good) as store:
        assert read_markers(store) == ()


def test_recover_keeps_the_job(tmp_path: Path, box: Box, child) -> None:
    """``gpuprof recover`` carries the job over (telemetry's recover is told how, by the
    command: it does not import the profile layer)."""
    from gpuprof.cli import main

    out = tmp_path / "run.gpuprof"
    store = SessionStore.create(out, source=box.source)
    snaps = box.run(2)
    for s in snaps:
        store.append(s)
    marker = StepMarker(snaps[0].time_s + 1, 1, 1.0)
    append_markers(store, [marker])
    profile = build_profile(_run(snaps, child.pid), snaps, tree=_tree(child.pid))
    write_job_profile(store, profile)
    store.close()
    copy = tmp_path / "copy.gpuprof"
    assert main(["recover", str(out), "--out", str(copy)]) == 0
    assert read_job_profile(copy) == profile
    with SessionStore.open(copy) as again:
        assert read_markers(again) == (marker,)


def test_the_job_is_named_after_its_track_block_and_keeps_its_dtype_without_a_gpu(
    box: Box, child
) -> None:
    """Issue 23: ``gpuprof profile -- python train.py`` around ``track("tiny-lm")`` on the CPU
    was named after the command and lost its FP32 (no MFU without a GPU)."""
    from gpuprof.profile.model import PhaseMark

    snaps = box.run(5)
    t = snaps[0].time_s
    markers = [
        PhaseMark(t, "start", run="tiny-lm", pid=child.pid),
        *(StepMarker(t + k, k, 1.0, flops=1e10, run="tiny-lm", pid=child.pid) for k in (1, 2, 3)),
    ]
    run = _run(snaps, child.pid, dtype="fp32")  # named "train" after train.py
    profile = build_profile(run, snaps, tree=_tree(child.pid), markers=markers)
    assert profile.name == "tiny-lm"
    # A name given (gpuprof profile --name small) stays.
    given = dataclasses.replace(run, name="small")
    assert build_profile(given, snaps, markers=markers).name == "small"
    assert profile.steps is not None and profile.steps.mfu_dtype == "fp32"
    assert profile.steps.mfu_pct is None  # no GPU: no MFU, but the precision stays
    # Two blocks, or the default name: the run's own name stays.
    two = [*markers, PhaseMark(t, "start", run="eval", pid=child.pid)]
    assert build_profile(_run(snaps, child.pid), snaps, markers=two).name == "train"
    default = [PhaseMark(t, "start", run="job", pid=child.pid)]
    assert build_profile(_run(snaps, child.pid), snaps, markers=default).name == "train"
