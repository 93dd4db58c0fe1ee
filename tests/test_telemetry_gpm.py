"""Profiling activity (NVML GPM, issue 12) through the production nvml.py against the fake NVML:
support and its absence, the first poll, a GPU lost between two samples, MIG instances, errors
mid-session, every sample buffer freed; the SIMULATED source's activity over a whole script; the
fields in recordings, replay, ``monitor --json/--csv`` and ``export``."""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections import defaultdict
from pathlib import Path

import pynvml as real_pynvml
import pytest

from gpuprof.cli import main
from gpuprof.telemetry.model import GpuSample, SourceKind, SourceState
from gpuprof.telemetry.nvml import values as nvml_values
from gpuprof.telemetry.nvml.gpm import (
    PROF_FIRST_SAMPLE,
    PROF_MIG_ONLY,
    PROF_NOT_PERMITTED,
    PROF_NOT_SUPPORTED,
    PROF_OLD_DRIVER,
    RETRY_S,
)
from gpuprof.telemetry.nvml.source import NvmlSource
from gpuprof.telemetry.prof import PROF_PCT_FIELDS
from gpuprof.telemetry.simulated import CYCLE_S, SimulatedSource, phase_at
from gpuprof.telemetry.store import CSV_HEADER, SessionStore, export_csv
from tests.fakes.devices import (
    a100_mig_box,
    h100_mig_box,
    h100_sxm_8gpu_box,
    rtx4090_pcie_2gpu_box,
    t4_box,
)
from tests.fakes.fake_gpm import FakeGpmActivity
from tests.fakes.fake_nvml import FakeNvml
from tests.fakes.fixtures import gpm_source

nv = real_pynvml
# The sample's GPM fields: the activity percentages and the byte rates.
PROF_FIELDS = (
    *PROF_PCT_FIELDS,
    "prof_pcie_rx_bytes_s",
    "prof_pcie_tx_bytes_s",
    "prof_nvlink_rx_bytes_s",
    "prof_nvlink_tx_bytes_s",
)
GEMM = FakeGpmActivity(
    sm_active_pct=91.5,
    sm_occupancy_pct=35.25,
    tensor_active_pct=62.0,
    tensor_hmma_pct=61.0,
    tensor_imma_pct=0.5,
    tensor_dfma_pct=0.25,
    dram_active_pct=41.0,
    fp64_active_pct=0.0,
    fp32_active_pct=11.0,
    fp16_active_pct=6.5,
    nvdec_pct=[14.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    nvjpg_pct=[0.0] * 6 + [7.0],
)


def prof(g: GpuSample) -> dict[str, object]:
    return {name: getattr(g, name) for name in PROF_FIELDS}


def _gemm_after_first_poll() -> tuple[FakeNvml, NvmlSource]:
    """An 8-GPU box whose GPU 0 runs a GEMM, read by a GPM source one poll and a second in."""
    box = h100_sxm_8gpu_box()
    box.devices[0].gpm = GEMM
    fake, source = gpm_source(box)
    source.poll()
    fake.advance(1.0)
    return fake, source


def absent(g: GpuSample) -> bool:
    return all(getattr(g, name) is None for name in PROF_FIELDS) and not g.mig_prof


# --- the contract ------------------------------------------------------------------------------


def test_gpm_constants_match_pynvml() -> None:
    pairs = {
        "GPM_SUPPORT_VERSION": "NVML_GPM_SUPPORT_VERSION",
        "GPM_METRICS_GET_VERSION": "NVML_GPM_METRICS_GET_VERSION",
        "GPM_SM_UTIL": "NVML_GPM_METRIC_SM_UTIL",
        "GPM_SM_OCCUPANCY": "NVML_GPM_METRIC_SM_OCCUPANCY",
        "GPM_ANY_TENSOR_UTIL": "NVML_GPM_METRIC_ANY_TENSOR_UTIL",
        "GPM_DFMA_TENSOR_UTIL": "NVML_GPM_METRIC_DFMA_TENSOR_UTIL",
        "GPM_HMMA_TENSOR_UTIL": "NVML_GPM_METRIC_HMMA_TENSOR_UTIL",
        "GPM_IMMA_TENSOR_UTIL": "NVML_GPM_METRIC_IMMA_TENSOR_UTIL",
        "GPM_DRAM_BW_UTIL": "NVML_GPM_METRIC_DRAM_BW_UTIL",
        "GPM_FP64_UTIL": "NVML_GPM_METRIC_FP64_UTIL",
        "GPM_FP32_UTIL": "NVML_GPM_METRIC_FP32_UTIL",
        "GPM_FP16_UTIL": "NVML_GPM_METRIC_FP16_UTIL",
        "GPM_PCIE_TX_PER_SEC": "NVML_GPM_METRIC_PCIE_TX_PER_SEC",
        "GPM_PCIE_RX_PER_SEC": "NVML_GPM_METRIC_PCIE_RX_PER_SEC",
        "GPM_NVDEC_0_UTIL": "NVML_GPM_METRIC_NVDEC_0_UTIL",
        "GPM_NVJPG_0_UTIL": "NVML_GPM_METRIC_NVJPG_0_UTIL",
        "GPM_NVLINK_TOTAL_RX_PER_SEC": "NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC",
        "GPM_NVLINK_TOTAL_TX_PER_SEC": "NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC",
    }
    for ours, theirs in pairs.items():
        assert getattr(nvml_values, ours) == getattr(real_pynvml, theirs), ours
    assert nv.NVML_GPM_METRIC_NVDEC_7_UTIL == nvml_values.GPM_NVDEC_0_UTIL + 7
    assert nv.NVML_GPM_METRIC_NVJPG_7_UTIL == nvml_values.GPM_NVJPG_0_UTIL + 7


def test_the_fake_keeps_the_real_call_contract() -> None:
    fake = FakeNvml(h100_sxm_8gpu_box())
    fake.nvmlInit()
    h0, h1 = fake.nvmlDeviceGetHandleByIndex(0), fake.nvmlDeviceGetHandleByIndex(1)
    assert fake.nvmlGpmQueryDeviceSupport(h0).isSupportedDevice == 1
    a, b, c = fake.nvmlGpmSampleAlloc(), fake.nvmlGpmSampleAlloc(), fake.nvmlGpmSampleAlloc()
    assert isinstance(a, nv.c_nvmlGpmSample_t)  # opaque pointers, as pynvml returns them
    assert fake.gpm.outstanding() == 3

    def request(s1, s2, ids=(nv.NVML_GPM_METRIC_SM_UTIL,)):
        r = nv.c_nvmlGpmMetricsGet_t()
        r.version, r.numMetrics, r.sample1, r.sample2 = 1, len(ids), s1, s2
        for i, m in enumerate(ids):
            r.metrics[i].metricId = m
        return r

    with pytest.raises(nv.NVMLError_InvalidArgument):  # allocated, never sampled
        fake.nvmlGpmMetricsGet(request(a, b))
    fake.box.devices[0].gpm.sm_active_pct = 40.0
    fake.nvmlGpmSampleGet(h0, a)
    fake.advance(0.05)
    fake.nvmlGpmSampleGet(h0, b)
    with pytest.raises(nv.NVMLError_InvalidArgument):  # closer than NVML's 100 ms refresh
        fake.nvmlGpmMetricsGet(request(a, b))
    fake.box.devices[0].gpm.sm_active_pct = 80.0
    fake.advance(1.0)
    fake.nvmlGpmSampleGet(h0, b)
    fake.nvmlGpmSampleGet(h1, c)
    with pytest.raises(nv.NVMLError_InvalidArgument):  # samples of two different GPUs
        fake.nvmlGpmMetricsGet(request(a, c))
    bad = request(a, b)
    bad.version = 2
    with pytest.raises(nv.NVMLError_ArgumentVersionMismatch):
        fake.nvmlGpmMetricsGet(bad)
    # One request, two metrics: each slot gets its own answer (NVLink: this GPU has no links now).
    fake.box.devices[0].nvlinks = None
    r = fake.nvmlGpmMetricsGet(
        request(a, b, (nv.NVML_GPM_METRIC_SM_UTIL, nv.NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC))
    )
    assert r.metrics[0].nvmlReturn == nv.NVML_SUCCESS
    # The counters integrate: 40% for 0.05 s, then 80% for 1 s.
    assert r.metrics[0].value == pytest.approx((40.0 * 0.05 + 80.0 * 1.0) / 1.05)
    assert r.metrics[1].nvmlReturn == nv.NVML_ERROR_NOT_SUPPORTED
    fake.nvmlGpmSampleFree(a)
    with pytest.raises(nv.NVMLError_InvalidArgument):  # a freed buffer
        fake.nvmlGpmSampleGet(h0, a)
    with pytest.raises(nv.NVMLError_InvalidArgument):  # freed twice
        fake.nvmlGpmSampleFree(a)
    fake.nvmlGpmSampleFree(b)
    fake.nvmlGpmSampleFree(c)
    assert fake.gpm.outstanding() == 0
    # Before Hopper: the support query says no, sampling is NOT_SUPPORTED.
    old = FakeNvml(t4_box())
    old.nvmlInit()
    t4 = old.nvmlDeviceGetHandleByIndex(0)
    assert old.nvmlGpmQueryDeviceSupport(t4).isSupportedDevice == 0
    with pytest.raises(nv.NVMLError_NotSupported):
        old.nvmlGpmSampleGet(t4, old.nvmlGpmSampleAlloc())


# --- supported: the first poll, then values ----------------------------------------------------


def test_first_poll_has_no_values_then_they_follow_the_activity() -> None:
    box = h100_sxm_8gpu_box()
    box.devices[0].gpm = GEMM
    box.devices[0].nvlinks[0].rx_bytes_s = 20e9  # type: ignore[index]
    fake, source = gpm_source(box)
    first = source.poll()
    for g in first.gpus:
        assert absent(g) and g.prof_unavailable == PROF_FIRST_SAMPLE
        assert g.power_w is not None  # the rest of the sample is there
    fake.advance(1.0)
    g0, g1 = source.poll().gpus[:2]
    assert g0.prof_unavailable is None
    assert prof(g0) == {
        "prof_sm_active_pct": 91.5,
        "prof_sm_occupancy_pct": 35.25,
        "prof_tensor_active_pct": 62.0,
        "prof_tensor_hmma_pct": 61.0,
        "prof_tensor_imma_pct": 0.5,
        "prof_tensor_dfma_pct": 0.25,
        "prof_dram_active_pct": 41.0,
        "prof_fp64_active_pct": 0.0,
        "prof_fp32_active_pct": 11.0,
        "prof_fp16_active_pct": 6.5,
        # GPM's PCIe counters: the same traffic as nvmlDeviceGetPcieThroughput (KB/s)
        "prof_pcie_rx_bytes_s": 559 * 1024.0,
        "prof_pcie_tx_bytes_s": 567 * 1024.0,
        "prof_nvlink_rx_bytes_s": 20e9,
        "prof_nvlink_tx_bytes_s": 0.0,
        "prof_nvdec_pct": 2.0,  # the mean over the 7 engines
        "prof_nvjpg_pct": 1.0,
    }
    # An idle GPU with GPM reads zero, not "absent".
    assert g1.prof_unavailable is None and g1.prof_sm_active_pct == 0.0
    # The activity changes; the next poll sees the mean over its own interval only.
    box.devices[0].gpm = FakeGpmActivity(sm_active_pct=20.0, tensor_active_pct=10.0)
    fake.advance(2.0)
    g0 = source.poll().gpus[0]
    assert (g0.prof_sm_active_pct, g0.prof_tensor_active_pct) == (20.0, 10.0)
    assert g0.prof_nvdec_pct is None  # the new activity has no engines: not reported, not 0
    assert not [f for f in source.diagnostics.failures() if f.field.startswith("gpm")]
    source.close()


def test_polls_closer_than_100_ms_reuse_the_last_values() -> None:
    fake, source = _gemm_after_first_poll()
    before = prof(source.poll().gpus[0])
    samples = fake.calls["nvmlGpmSampleGet"]
    fake.box.devices[0].gpm = FakeGpmActivity()
    fake.advance(0.05)
    assert prof(source.poll().gpus[0]) == before
    assert fake.calls["nvmlGpmSampleGet"] == samples  # no sample NVML would refuse
    fake.advance(1.0)
    assert source.poll().gpus[0].prof_sm_active_pct < before["prof_sm_active_pct"]  # type: ignore[operator]
    source.close()


# --- not supported: absent with the reason, asked once -----------------------------------------


@pytest.mark.parametrize("make_box", [t4_box, rtx4090_pcie_2gpu_box, a100_mig_box])
def test_before_hopper_the_values_are_absent_with_the_reason(make_box) -> None:
    fake, source = gpm_source(make_box())
    n = len(fake.box.devices)
    for _ in range(3):
        snap = source.poll()
        fake.advance(1.0)
        for g in snap.gpus:
            assert absent(g), g
            assert g.prof_unavailable == PROF_NOT_SUPPORTED
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == n  # once per GPU, not every poll
    assert fake.calls["nvmlGpmSampleAlloc"] == 0 and fake.calls["nvmlGpmSampleGet"] == 0
    source.close()


@pytest.mark.parametrize(
    "setup, reason",
    [
        # vGPU or a board without GPM: the support query says no
        (lambda fake: setattr(fake.box.devices[1], "gpm_supported", False), PROF_NOT_SUPPORTED),
        # profiling restricted to admin users
        (
            lambda fake: fake.inject(
                "nvmlGpmQueryDeviceSupport", error=nv.NVML_ERROR_NO_PERMISSION, device=1
            ),
            PROF_NOT_PERMITTED,
        ),
        # the support query says yes, sampling says no (a vGPU profile without profiling)
        (
            lambda fake: fake.inject(
                "nvmlGpmSampleGet", error=nv.NVML_ERROR_NOT_SUPPORTED, device=1
            ),
            PROF_NOT_SUPPORTED,
        ),
        # a driver older than GPM
        (
            lambda fake: fake.inject(
                "nvmlGpmQueryDeviceSupport", error=nv.NVML_ERROR_FUNCTION_NOT_FOUND, device=1
            ),
            PROF_OLD_DRIVER,
        ),
    ],
    ids=["unsupported", "no-permission", "sampling-refused", "old-driver"],
)
def test_one_gpu_without_gpm_keeps_the_others(setup, reason) -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    setup(fake)
    for _ in range(4):
        snap = source.poll()
        fake.advance(1.0)
    g = snap.gpus[1]
    assert absent(g) and g.prof_unavailable == reason
    assert g.power_w is not None
    assert all(x.prof_sm_active_pct == 0.0 for i, x in enumerate(snap.gpus) if i != 1)
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == 8
    assert fake.gpm.outstanding() == 7 * 2  # GPU 1 holds no buffer
    source.close()
    assert fake.gpm.outstanding() == 0


def test_an_old_pynvml_without_the_metrics_struct() -> None:
    fake = FakeNvml(h100_sxm_8gpu_box())
    del fake.__dict__["c_nvmlGpmMetricsGet_t"]
    source = NvmlSource(nvml=fake, clock=fake.clock)
    source.poll()
    fake.advance(1.0)
    g = source.poll().gpus[0]
    assert absent(g) and g.prof_unavailable == PROF_OLD_DRIVER
    assert fake.gpm.outstanding() == 0  # given up: every buffer freed at once
    source.close()


def test_a_transient_support_error_is_asked_again_later() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    fake.inject("nvmlGpmQueryDeviceSupport", error=nv.NVML_ERROR_UNKNOWN, device=2, times=1)
    g = source.poll().gpus[2]
    assert absent(g) and g.prof_unavailable == "GPM error: Unknown"
    fake.advance(1.0)
    assert source.poll().gpus[2].prof_unavailable == "GPM error: Unknown"
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == 8  # not every poll
    fake.advance(RETRY_S)
    assert source.poll().gpus[2].prof_unavailable == PROF_FIRST_SAMPLE
    fake.advance(1.0)
    assert source.poll().gpus[2].prof_sm_active_pct == 0.0
    source.close()


# --- mid-session: lost GPUs and errors -----------------------------------------------------------


@pytest.mark.parametrize("polls_before", [1, 3], ids=["after-first-sample", "later"])
def test_a_gpu_lost_between_two_samples(polls_before: int) -> None:
    box = h100_sxm_8gpu_box()
    for dev in box.devices:
        dev.gpm = FakeGpmActivity(sm_active_pct=50.0)
    fake, source = gpm_source(box)
    for _ in range(polls_before):
        source.poll()
        fake.advance(1.0)
    assert fake.gpm.outstanding() == 16
    fake.lose_gpu(3)
    snap = source.poll()
    assert snap.gpus[3].lost and absent(snap.gpus[3])
    assert snap.status.state is SourceState.GPU_LOST and snap.status.lost_gpus == (3,)
    # The others go on: their second sample (or a later one) gives values.
    assert all(g.prof_sm_active_pct == 50.0 for g in snap.gpus if g.index != 3)
    assert fake.gpm.outstanding() == 14  # the lost GPU's two buffers were freed at once
    fake.advance(1.0)
    snap = source.poll()
    assert all(g.prof_sm_active_pct == 50.0 for g in snap.gpus if g.index != 3)
    source.close()
    assert fake.gpm.outstanding() == 0


def test_a_gpu_lost_as_the_metrics_are_computed() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    source.poll()
    fake.advance(1.0)
    fake.gpm.fail_metric(nv.NVML_GPM_METRIC_SM_UTIL, nv.NVML_ERROR_GPU_IS_LOST, device=5)
    snap = source.poll()
    assert snap.gpus[5].lost and snap.status.lost_gpus == (5,)
    assert fake.gpm.outstanding() == 14
    source.close()
    assert fake.gpm.outstanding() == 0


@pytest.mark.parametrize("function", ["nvmlGpmSampleGet", "nvmlGpmMetricsGet"])
def test_an_error_mid_session_costs_that_poll_only(function: str) -> None:
    box = h100_sxm_8gpu_box()
    box.devices[2].gpm = GEMM
    fake, source = gpm_source(box)
    source.poll()
    fake.advance(1.0)
    source.poll()
    fake.inject(function, error=nv.NVML_ERROR_UNKNOWN, device=2, times=1)
    fake.advance(1.0)
    snap = source.poll()
    g = snap.gpus[2]
    assert absent(g) and g.prof_unavailable == "GPM error: Unknown"
    assert g.power_w is not None and g.clock_sm_mhz is not None  # the rest of the poll
    assert snap.gpus[1].prof_sm_active_pct == 0.0 and snap.gpus[3].prof_unavailable is None
    assert source.diagnostics.has(
        2, "gpm_sample" if function == "nvmlGpmSampleGet" else "gpm_metrics"
    )
    fake.advance(1.0)
    g = source.poll().gpus[2]
    if function == "nvmlGpmSampleGet":  # that sample is missing: a new pair begins
        assert g.prof_unavailable == PROF_FIRST_SAMPLE
        fake.advance(1.0)
        g = source.poll().gpus[2]
    assert g.prof_unavailable is None and g.prof_tensor_active_pct == 62.0
    assert fake.gpm.outstanding() == 16
    source.close()


def test_a_failing_metric_costs_only_its_field() -> None:
    fake, source = _gemm_after_first_poll()
    fake.gpm.fail_metric(nv.NVML_GPM_METRIC_DRAM_BW_UTIL, nv.NVML_ERROR_UNKNOWN, device=0)
    fake.gpm.fail_metric(nv.NVML_GPM_METRIC_FP64_UTIL, nv.NVML_ERROR_NOT_SUPPORTED, device=0)
    g = source.poll().gpus[0]
    assert g.prof_dram_active_pct is None and g.prof_fp64_active_pct is None
    assert g.prof_unavailable is None and g.prof_tensor_active_pct == 62.0
    kinds = {(f.field, f.kind) for f in source.diagnostics.failures() if f.device == 0}
    assert {("gpm_metric10", "Unknown"), ("gpm_metric11", "NotSupported")} <= kinds
    fake.gpm.metric_errors.clear()
    fake.advance(1.0)
    g = source.poll().gpus[0]
    assert g.prof_dram_active_pct == 41.0  # a transient error: asked again
    assert g.prof_fp64_active_pct is None  # NOT_SUPPORTED: no longer asked
    source.close()


# --- MIG ------------------------------------------------------------------------------------------


def test_mig_instances_are_sampled_per_gpu_instance() -> None:
    box = h100_mig_box()
    dev = box.devices[0]
    for k, mig in enumerate(dev.mig_devices):
        mig.gpm = FakeGpmActivity(
            sm_active_pct=10.0 * (k + 1), tensor_active_pct=5.0 * (k + 1), dram_active_pct=30.0
        )
    dev.gpm = FakeGpmActivity(sm_active_pct=55.0)
    fake, source = gpm_source(box)
    first = source.poll().gpus[0]
    assert first.prof_unavailable == PROF_FIRST_SAMPLE
    assert [m.gpu_instance_id for m in first.mig_prof] == [2, 3, 9, 10]
    assert all(m.prof_sm_active_pct is None for m in first.mig_prof)
    fake.advance(1.0)
    g = source.poll().gpus[0]
    assert g.prof_sm_active_pct == 55.0
    assert g.prof_nvlink_rx_bytes_s is None  # NVLink refused in MIG mode
    by_gi = {m.gpu_instance_id: m for m in g.mig_prof}
    assert [by_gi[gi].prof_sm_active_pct for gi in (2, 3, 9, 10)] == [10.0, 20.0, 30.0, 40.0]
    assert [by_gi[gi].prof_tensor_active_pct for gi in (2, 3, 9, 10)] == [5.0, 10.0, 15.0, 20.0]
    assert all(m.prof_dram_active_pct == 30.0 for m in g.mig_prof)
    assert fake.calls["nvmlGpmMigSampleGet"] == 2 * 4
    assert fake.gpm.outstanding() == 2 * (1 + 4)
    source.close()
    assert fake.gpm.outstanding() == 0


def test_mig_gpu_not_sampled_as_a_whole_keeps_its_instances() -> None:
    box = h100_mig_box()
    box.devices[0].mig_devices[1].gpm = FakeGpmActivity(sm_active_pct=33.0)
    fake, source = gpm_source(box)
    fake.inject("nvmlGpmSampleGet", error=nv.NVML_ERROR_NOT_SUPPORTED, device=0)
    for _ in range(3):
        snap = source.poll()
        fake.advance(1.0)
    g = snap.gpus[0]
    assert g.prof_unavailable == PROF_MIG_ONLY and g.prof_sm_active_pct is None
    assert {m.gpu_instance_id: m.prof_sm_active_pct for m in g.mig_prof}[3] == 33.0
    assert fake.calls["nvmlGpmSampleGet"] == 1  # given up after the first refusal
    assert fake.gpm.outstanding() == 2 * 4
    source.close()
    assert fake.gpm.outstanding() == 0


# --- buffers -------------------------------------------------------------------------------------


def test_every_sample_buffer_is_freed_on_close_and_reopen_starts_over() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    for _ in range(5):
        source.poll()
        fake.advance(1.0)
    assert fake.gpm.outstanding() == 16  # two per GPU, allocated once, reused
    assert fake.calls["nvmlGpmSampleAlloc"] == 16
    source.close()
    assert fake.gpm.outstanding() == 0 and fake.gpm.freed == fake.gpm.allocated
    assert fake.calls["nvmlShutdown"] == 1
    # A later call starts over: new buffers, a first sample again.
    assert source.poll().gpus[0].prof_unavailable == PROF_FIRST_SAMPLE
    assert fake.gpm.outstanding() == 16
    source.close()
    assert fake.gpm.outstanding() == 0


def test_every_sample_buffer_is_freed_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuprof.telemetry.nvml import source as nvml

    monkeypatch.setattr(nvml, "_exiting", False)
    fake, source = gpm_source(h100_mig_box())
    source.poll()
    assert fake.gpm.outstanding() == 10
    assert nvml._shutdown_all()  # what atexit runs
    assert fake.gpm.outstanding() == 0


# --- the simulated source -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim_cycle() -> list:
    t = [0.0]
    src = SimulatedSource("h100x8", seed=5, clock=lambda: t[0], start_s=0.0)
    out = []
    for k in range(int(CYCLE_S)):
        t[0] = float(k)
        out.append(src.poll())
    return out


def test_simulated_activity_keeps_the_real_relations_over_a_whole_script(sim_cycle) -> None:
    for snap in sim_cycle:
        for g in snap.gpus:
            assert g.prof_unavailable is None
            for name in PROF_PCT_FIELDS:
                v = getattr(g, name)
                assert v is not None and 0.0 <= v <= 100.0, (name, v)
            assert g.prof_tensor_active_pct <= g.prof_sm_active_pct
            assert g.prof_tensor_hmma_pct <= g.prof_tensor_active_pct
            assert g.prof_sm_occupancy_pct <= g.prof_sm_active_pct
            assert g.prof_sm_active_pct <= g.util_gpu_pct + 1.0  # active SMs need a kernel
            assert g.prof_pcie_rx_bytes_s == g.pcie_rx_bytes_s
            assert g.prof_nvlink_tx_bytes_s == g.nvlink_tx_bytes_s


def test_simulated_phases_show_what_gpm_exists_for(sim_cycle) -> None:
    by_phase: dict[str, list[GpuSample]] = defaultdict(list)
    for snap in sim_cycle:
        by_phase[phase_at(snap.time_s)].extend(snap.gpus)

    def mean(phase: str, name: str, keep=lambda g: True) -> float:
        return statistics.mean(getattr(g, name) for g in by_phase[phase] if keep(g))

    steps = lambda g: g.util_gpu_pct > 90  # noqa: E731 - training steps, not the eval dips
    # Launch-bound: "GPU utilization" says 100% while most SMs idle; the case of issue 12.
    launch = by_phase["launch_bound"]
    assert launch and all(g.util_gpu_pct >= 95 for g in launch)
    assert all(g.prof_sm_active_pct < 30 for g in launch)
    # Training's GEMMs keep the tensor cores busy; the memory-bound pass keeps DRAM busy.
    assert mean("training", "prof_tensor_active_pct", steps) > 50
    assert mean("memory_bound", "prof_dram_active_pct") > 75
    assert mean("memory_bound", "prof_dram_active_pct") > mean(
        "training", "prof_dram_active_pct", steps
    )
    assert mean("memory_bound", "prof_tensor_active_pct") < 15
    for phase in ("memory_bound", "launch_bound", "starved", "cooldown"):
        assert mean("training", "prof_tensor_active_pct", steps) > mean(
            phase, "prof_tensor_active_pct"
        )
    # Launch-bound draws less than training at the same "utilization".
    assert mean("launch_bound", "power_w") < 0.6 * mean("training", "power_w", steps)
    # Idle reads zero, not absent.
    assert all(g.prof_sm_active_pct == 0.0 for g in by_phase["idle"])


def test_simulated_gpus_without_gpm_say_why() -> None:
    snap = SimulatedSource("rtx4090x2", clock=lambda: 200.0, start_s=0.0).poll()
    assert all(absent(g) and g.prof_unavailable == PROF_NOT_SUPPORTED for g in snap.gpus)


# --- recordings, replay, monitor --json/--csv, export ----------------------------------------


def test_recordings_replay_and_export_carry_the_fields(tmp_path: Path) -> None:
    box = h100_mig_box()
    box.devices[0].gpm = GEMM
    box.devices[0].mig_devices[0].gpm = FakeGpmActivity(sm_active_pct=12.5)
    fake, source = gpm_source(box)
    path = tmp_path / "gpm.gpuprof"
    store = SessionStore.create(path, source=source)
    snaps = []
    for _ in range(3):
        snaps.append(source.poll())
        store.append(snaps[-1])
        fake.advance(1.0)
    store.close()
    source.close()
    assert snaps[-1].gpus[0].prof_tensor_active_pct == 62.0

    back = list(SessionStore.open(path).snapshots())
    assert [s.gpus[0] for s in back] == [s.gpus[0] for s in snaps]  # prof_*, reason, mig_prof
    assert back[0].gpus[0].prof_unavailable == PROF_FIRST_SAMPLE
    assert back[-1].gpus[0].mig_prof[0].prof_sm_active_pct == 12.5

    out = tmp_path / "gpm.csv"
    export_csv(SessionStore.open(path), out)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert {"prof_sm_active_pct", "prof_tensor_active_pct", "prof_dram_active_pct"} <= set(
        CSV_HEADER
    )
    assert rows[0]["prof_tensor_active_pct"] == ""  # absent stays empty, never 0
    assert float(rows[-1]["prof_tensor_active_pct"]) == 62.0


def test_monitor_json_and_csv_carry_the_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["monitor", "--once", "--json", "--demo"]) == 0
    snap = json.loads(capsys.readouterr().out)
    assert snap["source"] == SourceKind.SIMULATED.value
    for g in snap["gpus"]:
        assert g["prof_unavailable"] is None
        assert 0 < g["prof_tensor_active_pct"] <= g["prof_sm_active_pct"] <= 100
    assert main(["monitor", "--csv", "--demo", "--interval", "0.1", "--count", "1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 8 and all(float(r["prof_sm_active_pct"]) > 0 for r in rows)
