"""History.gpu_view / host_view: several fields at once, equal to one gpu_series per field."""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind

T0 = 1_700_000_000.0
FIELDS = ("util_gpu_pct", "power_w", "temp_gpu_c")


def make_history(n: int, capacity: int) -> History:
    h = History(capacity=capacity, gpu_fields=FIELDS, host_fields=("cpu_pct", "net_rx_bytes_s"))
    rng = np.random.default_rng(n)
    util = rng.uniform(0, 100, n)
    power = rng.normal(300, 80, n)
    power[rng.integers(0, n, 10)] = 5000.0  # spikes survive decimation in every row
    for k in range(n):
        # temp is unsupported (None -> NaN) for a stretch; GPU 1 misses every 5th snapshot.
        temp = None if 100 <= k < 400 else float(40 + k % 30)
        gpus = [
            GpuSample(
                index=0, util_gpu_pct=float(util[k]), power_w=float(power[k]), temp_gpu_c=temp
            )
        ]
        if k % 5:
            gpus.append(GpuSample(index=1, util_gpu_pct=float(k % 100), power_w=1.0 * k))
        h.append(
            Snapshot(
                time_s=T0 + k,
                source=SourceKind.SIMULATED,
                host=HostSample(cpu_pct=float(k % 97), net_rx_bytes_s=2.0 * k),
                gpus=tuple(gpus),
            )
        )
    return h


@pytest.mark.parametrize("n,capacity", [(3000, 10_000), (12_345, 5000)])  # the second wraps
@pytest.mark.parametrize("max_points", [None, 2, 7, 100, 1600, 20_000])
@pytest.mark.slow
def test_block_rows_equal_single_series(n: int, capacity: int, max_points: int | None) -> None:
    h = make_history(n, capacity)
    first, last = h.time_range()
    for t0, t1 in [
        (None, None),
        (first + 3.5, last - 17),
        (last - 600, last),
        (last - 5, last),
        (last + 10, last + 20),
    ]:
        for gpu in (0, 1):
            view = h.gpu_view(gpu, FIELDS, t0, t1, max_points)
            t, v = view.t_s, view.values
            assert v.shape == (len(FIELDS), len(t))
            for row, field in enumerate(FIELDS):
                ts, vs = h.gpu_series(gpu, field, t0, t1, max_points)
                np.testing.assert_array_equal(t, ts)
                np.testing.assert_array_equal(v[row], vs)
        host = h.host_view(("net_rx_bytes_s", "cpu_pct"), t0, t1, max_points)
        t, v = host.t_s, host.values
        np.testing.assert_array_equal(v[1], h.host_series("cpu_pct", t0, t1, max_points)[1])
        np.testing.assert_array_equal(t, h.host_series("cpu_pct", t0, t1, max_points)[0])


@pytest.mark.slow
def test_block_keeps_spikes_and_gaps_when_decimating() -> None:
    h = make_history(20_000, 30_000)
    view = h.gpu_view(0, FIELDS, max_points=400)
    t, v = view.t_s, view.values
    assert len(t) <= 400
    assert np.nanmax(v[1]) == pytest.approx(5000.0)
    # 300 unsupported samples span whole buckets: those stay NaN (a gap), the rest are finite.
    assert 0 < np.isnan(v[2]).sum() <= 2 * 300 * len(t) // 2 // 20_000 + 4
    assert np.isfinite(v[2]).sum() > len(t) - 10
    v = h.gpu_view(0, FIELDS, T0 + 150, T0 + 350, max_points=40).values
    assert np.isnan(v[2]).all() and np.isfinite(v[0]).all()


def test_block_unknown_gpu_and_field() -> None:
    h = make_history(50, 100)
    view = h.gpu_view(7, FIELDS, max_points=10)
    t, v = view.t_s, view.values
    assert t.shape == (0,) and v.shape == (3, 0)
    with pytest.raises(KeyError, match="clock_sm_mhz"):
        h.gpu_view(0, ("power_w", "clock_sm_mhz"))
    with pytest.raises(KeyError, match="bogus"):
        h.host_view(("bogus",))
