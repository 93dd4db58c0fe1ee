"""A driver in trouble behind NVML GPM (issue 12): hostile metric values (NaN, infinities,
negatives, overflowing rates), sample buffers that cannot be allocated or freed, a GPM call that
never returns. Each is absent or clipped in the sample, never a crash, never a NaN in the JSON,
and no sample buffer is leaked."""

from __future__ import annotations

import json
import math
import threading

import pynvml as nv
import pytest

from gpuprof.jsonout import dumps
from gpuprof.telemetry.codec import to_jsonable
from gpuprof.telemetry.history import History
from gpuprof.telemetry.nvml.gpm import PROF_FIRST_SAMPLE, RETRY_S
from gpuprof.telemetry.store.csv_export import csv_rows
from tests.fakes.devices import h100_mig_box, h100_sxm_8gpu_box
from tests.fakes.fake_gpm import FakeGpmActivity
from tests.fakes.fixtures import gpm_source

PCT_METRICS = {
    nv.NVML_GPM_METRIC_SM_UTIL: "prof_sm_active_pct",
    nv.NVML_GPM_METRIC_SM_OCCUPANCY: "prof_sm_occupancy_pct",
    nv.NVML_GPM_METRIC_ANY_TENSOR_UTIL: "prof_tensor_active_pct",
    nv.NVML_GPM_METRIC_HMMA_TENSOR_UTIL: "prof_tensor_hmma_pct",
    nv.NVML_GPM_METRIC_DRAM_BW_UTIL: "prof_dram_active_pct",
    nv.NVML_GPM_METRIC_FP32_UTIL: "prof_fp32_active_pct",
    nv.NVML_GPM_METRIC_NVDEC_0_UTIL: "prof_nvdec_pct",  # one engine of seven: the mean
}
RATE_METRICS = {
    nv.NVML_GPM_METRIC_PCIE_RX_PER_SEC: "prof_pcie_rx_bytes_s",
    nv.NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC: "prof_nvlink_tx_bytes_s",
}
#: What a driver in trouble may put in a metric's value, and what the sample must then hold:
#: (percent field, rate field in bytes/s); None: absent.
HOSTILE = {
    "nan": (math.nan, None, None),
    "inf": (math.inf, None, None),
    "-inf": (-math.inf, None, None),
    "negative": (-5.0, None, None),
    "tiny-negative": (-1e-300, None, None),
    "denormal": (5e-324, 0.0, 0.0),
    "over-100": (250.0, 100.0, 250.0 * 2**20),
    "huge": (1e308, 100.0, None),  # 1e308 MiB/s overflows to inf in bytes/s: refused
}


def _strict_json(obj: object) -> object:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON")

    return json.loads(dumps(to_jsonable(obj)), parse_constant=refuse)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_metric_values_are_absent_or_clipped(name: str) -> None:
    value, pct, rate = HOSTILE[name]
    box = h100_sxm_8gpu_box()
    box.devices[0].gpm = FakeGpmActivity(sm_active_pct=50.0, nvdec_pct=[0.0] * 7)
    fake, source = gpm_source(box)
    for mid in (*PCT_METRICS, *RATE_METRICS):
        fake.gpm.force_value(mid, value, device=0)
    source.poll()
    fake.advance(1.0)
    snap = source.poll()
    g = snap.gpus[0]
    assert g.prof_unavailable is None and not g.lost
    for field in PCT_METRICS.values():
        got = getattr(g, field)
        if field == "prof_nvdec_pct":  # the mean of six zeros and the hostile one (or of six)
            expected = 0.0 if pct is None else round(pct / 7, 2)
            assert got == pytest.approx(expected), (field, got)
        else:
            assert got == pct, (field, got)
    for field in RATE_METRICS.values():
        assert getattr(g, field) == rate, (field, getattr(g, field))
    assert g.prof_tensor_imma_pct == 0.0  # the metrics left alone still read
    assert snap.gpus[1].prof_sm_active_pct == 0.0  # and the other GPUs
    # Every output takes it: strict JSON, History, the CSV row.
    _strict_json(snap)
    History(capacity=4).append(snap)
    assert len(list(csv_rows(snap))) == 8
    source.close()
    assert fake.gpm.outstanding() == 0


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_values_of_a_mig_instance(name: str) -> None:
    value, pct, _rate = HOSTILE[name]
    fake, source = gpm_source(h100_mig_box())
    fake.gpm.force_value(nv.NVML_GPM_METRIC_SM_UTIL, value)
    source.poll()
    fake.advance(1.0)
    snap = source.poll()
    assert [m.prof_sm_active_pct for m in snap.gpus[0].mig_prof] == [pct] * 4
    assert all(m.prof_dram_active_pct == 0.0 for m in snap.gpus[0].mig_prof)
    _strict_json(snap)
    source.close()
    assert fake.gpm.outstanding() == 0


def test_a_buffer_that_cannot_be_allocated_leaks_nothing_and_is_tried_again() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    alloc = fake.gpm.alloc
    calls = [0]

    def second_fails():  # type: ignore[no-untyped-def]
        calls[0] += 1
        if calls[0] == 2:  # GPU 0's second buffer
            raise nv.NVMLError(nv.NVML_ERROR_MEMORY)
        return alloc()

    fake.gpm.alloc = second_fails  # type: ignore[method-assign]
    g = source.poll().gpus[0]
    assert g.prof_unavailable == "GPM error: Memory" and g.prof_sm_active_pct is None
    assert fake.gpm.outstanding() == 7 * 2  # GPU 0's first buffer was freed again
    fake.advance(RETRY_S)
    assert source.poll().gpus[0].prof_unavailable == PROF_FIRST_SAMPLE
    fake.advance(1.0)
    assert source.poll().gpus[0].prof_sm_active_pct == 0.0
    assert fake.gpm.outstanding() == 8 * 2
    source.close()
    assert fake.gpm.outstanding() == 0


def test_buffers_that_cannot_be_freed_do_not_stop_the_shutdown() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    source.poll()
    fake.inject("nvmlGpmSampleFree", error=nv.NVML_ERROR_UNKNOWN)
    source.close()
    assert fake.calls["nvmlShutdown"] == 1 and not fake.initialized
    assert fake.calls["nvmlGpmSampleFree"] == 16  # each tried once, none twice


def test_a_gpm_call_that_never_returns_does_not_hang_close_nor_leak() -> None:
    fake, source = gpm_source(h100_sxm_8gpu_box())
    source.poll()
    fake.advance(1.0)
    stuck = fake.block("nvmlGpmMetricsGet", device=4)
    results: list[object] = []
    poller = threading.Thread(target=lambda: results.append(source.poll()), daemon=True)
    poller.start()
    assert stuck.entered.wait(10.0)
    closer = threading.Thread(target=lambda: source.close(timeout_s=0.2), daemon=True)
    closer.start()
    closer.join(10.0)
    assert not closer.is_alive()  # close gave up waiting instead of hanging
    assert fake.calls["nvmlShutdown"] == 0  # nvmlShutdown skipped behind the stuck call
    fake.release_all()
    poller.join(10.0)
    assert results  # the poll ended at its next query
    source.close()  # now idle: the shutdown it owed, buffers first
    assert fake.calls["nvmlShutdown"] == 1
    assert fake.gpm.outstanding() == 0
