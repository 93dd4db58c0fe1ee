"""History: ring buffers, min/max decimation against brute force, memory bound, GPU churn."""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.telemetry.history import LEVEL_FACTORS, History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind, SourceStatus

T0 = 1_700_000_000.0


def snap(t: float, gpus: tuple[GpuSample, ...] = (), cpu: float | None = 10.0, **kw) -> Snapshot:
    return Snapshot(
        time_s=t, source=SourceKind.SIMULATED, host=HostSample(cpu_pct=cpu), gpus=gpus, **kw
    )


def fill(h: History, values: np.ndarray, *, gpu: int = 0, dt: float = 1.0) -> np.ndarray:
    times = T0 + dt * np.arange(len(values))
    for t, v in zip(times, values, strict=True):
        val = None if np.isnan(v) else float(v)
        h.append(snap(float(t), (GpuSample(index=gpu, power_w=val),)))
    return times


def brute(times: np.ndarray, values: np.ndarray, ta: float, tb: float) -> tuple[float, float]:
    sel = values[(times >= ta) & (times <= tb)].astype(np.float32).astype(np.float64)
    return float(np.nanmin(sel)), float(np.nanmax(sel))


def check_buckets(
    h: History, times: np.ndarray, values: np.ndarray, t0, t1, max_points: int
) -> np.ndarray:
    t, v = h.gpu_series(0, "power_w", t0, t1, max_points=max_points)
    assert len(t) == len(v)
    assert len(t) <= max_points
    assert len(t) % 2 == 0
    assert np.all(np.diff(t) >= 0), "time-ordered"
    for i in range(0, len(t), 2):
        lo, hi = brute(times, values, t[i], t[i + 1])
        assert v[i] == pytest.approx(lo), f"bucket {i // 2} min"
        assert v[i + 1] == pytest.approx(hi), f"bucket {i // 2} max"
    return t


@pytest.mark.parametrize("n,max_points", [(5000, 100), (30_000, 1600), (70_000, 37), (20_000, 37)])
@pytest.mark.slow
def test_decimated_buckets_hold_exact_min_and_max(n: int, max_points: int) -> None:
    rng = np.random.default_rng(n + max_points)
    values = rng.normal(300, 80, n)
    values[rng.integers(0, n, 20)] = 5000.0  # narrow spikes must survive decimation
    h = History(capacity=100_000, gpu_fields=("power_w",), host_fields=("cpu_pct",))
    times = fill(h, values)
    t = check_buckets(h, times, values, None, None, max_points)
    assert len(t) >= max_points // 2, "uses most of the point budget"
    _, v = h.gpu_series(0, "power_w", max_points=max_points)
    assert v.max() == pytest.approx(5000.0)
    assert v.min() == pytest.approx(float(values.astype(np.float32).min()))
    # The buckets cover the window without gaps or overlaps.
    assert t[0] == times[0] and t[-1] == times[-1]


@pytest.mark.slow
def test_window_selection_and_unaligned_edges() -> None:
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 100, 50_000)
    h = History(capacity=60_000, gpu_fields=("power_w",), host_fields=())
    times = fill(h, values)
    t0, t1 = times[12_345] + 0.5, times[41_234]
    t = check_buckets(h, times, values, t0, t1, 800)
    assert t[0] == times[12_346] and t[-1] == times[41_234]
    # Raw samples when the window fits into max_points.
    t, v = h.gpu_series(0, "power_w", times[100], times[199], max_points=400)
    assert len(t) == 100
    np.testing.assert_allclose(v, values[100:200].astype(np.float32))
    # A window outside the data is empty.
    t, v = h.gpu_series(0, "power_w", T0 - 100, T0 - 10)
    assert len(t) == 0 and len(v) == 0


@pytest.mark.slow
def test_ring_wraps_and_keeps_only_capacity() -> None:
    cap = 10_000
    rng = np.random.default_rng(3)
    values = rng.uniform(0, 1000, 3 * cap + 1234)
    h = History(capacity=cap, gpu_fields=("power_w",), host_fields=("cpu_pct",))
    times = fill(h, values)
    assert len(h) == cap
    assert h.time_range() == (times[-cap], times[-1])
    t, v = h.gpu_series(0, "power_w")
    np.testing.assert_array_equal(t, times[-cap:])
    np.testing.assert_allclose(v, values[-cap:].astype(np.float32))
    # Decimated views after wrap-around only see kept samples, and stay exact.
    kept_t, kept_v = times[-cap:], values[-cap:]
    check_buckets(h, kept_t, kept_v, None, None, 300)
    check_buckets(h, kept_t, kept_v, kept_t[17], kept_t[-33], 64)


@pytest.mark.slow
def test_long_window_reads_levels_not_raw(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 24 h window at 1600 points must come from the levels, not from 86,400 raw samples."""
    h = History(capacity=86_400, gpu_fields=("power_w",), host_fields=())
    n = 86_400
    values = np.sin(np.arange(n) / 500.0) * 100 + 300
    times = fill(h, values)
    touched: list[int] = []
    real = History._ring_slices

    def spy(self, s0, s1):  # every read of raw samples goes through _ring_slices
        touched.append(s1 - s0)
        return real(self, s0, s1)

    monkeypatch.setattr(History, "_ring_slices", spy)
    _t, _v = h.gpu_series(0, "power_w", t0=times[1000], t1=times[1099])
    assert sum(touched) == 100, "the spy sees raw reads"
    touched.clear()
    t, _v = h.gpu_series(0, "power_w", max_points=1600)
    assert 700 <= len(t) <= 1600
    assert sum(touched) < n // 10
    monkeypatch.undo()
    check_buckets(h, times, values, None, None, 1600)
    assert LEVEL_FACTORS[0] == 16


def test_none_becomes_nan_and_all_nan_bucket_is_gap() -> None:
    values = np.full(4000, np.nan)
    values[:1000] = 50.0
    values[3000:] = 70.0
    h = History(capacity=5000, gpu_fields=("power_w",), host_fields=())
    fill(h, values)
    _t, v = h.gpu_series(0, "power_w")
    assert np.isnan(v[1500]) and v[0] == 50.0
    _t, v = h.gpu_series(0, "power_w", max_points=40)
    assert np.isnan(v).any(), "the unsupported stretch shows as a gap"
    assert np.nanmin(v) == 50.0 and np.nanmax(v) == 70.0


def test_gpus_appearing_later_and_lost_gpus() -> None:
    h = History(capacity=100)
    for i in range(10):
        gpus = [GpuSample(index=0, util_gpu_pct=float(i))]
        if i >= 5:
            gpus.append(GpuSample(index=3, util_gpu_pct=100.0 - i, lost=(i >= 8)))
        h.append(snap(T0 + i, tuple(gpus)))
    assert h.gpu_indices == (0, 3)
    _, v3 = h.gpu_series(3, "util_gpu_pct")
    assert np.isnan(v3[:5]).all()
    np.testing.assert_array_equal(v3[5:], [95, 94, 93, 92, 91])
    assert h.lost_gpus() == (3,)
    # A GPU that disappears from the snapshots reads NaN from then on.
    h.append(snap(T0 + 10, (GpuSample(index=0, util_gpu_pct=1.0),)))
    _, v3 = h.gpu_series(3, "util_gpu_pct")
    assert np.isnan(v3[-1])
    t, _v = h.gpu_series(7, "util_gpu_pct")
    assert len(t) == 0
    with pytest.raises(KeyError, match="not_a_field"):
        h.gpu_series(0, "not_a_field")


def test_lost_from_status() -> None:
    h = History(capacity=10)
    h.append(snap(T0, (GpuSample(index=0),), status=SourceStatus(lost_gpus=(1,))))
    assert h.lost_gpus() == (1,)


def test_host_series_latest_clear_and_only_latest_snapshot_kept() -> None:
    h = History(capacity=50)
    snaps = [snap(T0 + i, cpu=float(i)) for i in range(60)]
    for s in snaps:
        h.append(s)
    assert h.latest() is snaps[-1]
    _t, v = h.host_series("cpu_pct")
    np.testing.assert_array_equal(v, np.arange(10, 60))
    assert not any(isinstance(x, Snapshot) for x in vars(h).values() if x is not snaps[-1])
    h.clear()
    assert len(h) == 0 and h.latest() is None and h.time_range() is None
    assert len(h.host_series("cpu_pct")[0]) == 0


def test_time_going_back_far_resets_small_step_is_clamped() -> None:
    h = History(capacity=50)
    for i in range(10):
        h.append(snap(T0 + i))
    h.append(snap(T0 + 8.5))  # NTP slew: kept at the previous time
    t, _ = h.host_series("cpu_pct")
    assert len(t) == 11 and t[-1] == T0 + 9
    h.append(snap(T0 - 1000))  # replay seek backwards: start over
    assert len(h) == 1 and h.time_range() == (T0 - 1000, T0 - 1000)


def test_throttle_intervals() -> None:
    h = History(capacity=100)
    reasons = [
        (),
        ("sw_power_cap",),
        ("sw_power_cap", "hw_thermal_slowdown"),
        (),
        (),
        ("hw_slowdown",),
    ]
    pattern = [0, 0, 1, 1, 2, 0, 0, 5, 5]
    for i, r in enumerate(pattern):
        h.append(snap(T0 + i, (GpuSample(index=0, throttle_reasons=reasons[r]),)))
    got = h.throttle_intervals(0)
    assert got == [
        (T0 + 2, T0 + 5, ("sw_power_cap", "hw_thermal_slowdown")),
        (T0 + 7, T0 + 8, ("hw_slowdown",)),
    ]
    # Window clipping: the episode ends at the next sample even past t1.
    assert h.throttle_intervals(0, T0 + 3, T0 + 3) == [(T0 + 3, T0 + 4, ("sw_power_cap",))]
    assert h.throttle_intervals(5) == []


def test_memory_for_8_gpus_24h_under_150_mb() -> None:
    estimate = History.estimate_nbytes(8, 86_400)
    assert estimate < 150e6
    h = History(capacity=86_400)
    h.append(snap(T0, tuple(GpuSample(index=i) for i in range(8))))
    assert h.nbytes == estimate
    assert h.nbytes < 150e6


def test_append_is_thread_safe() -> None:
    import threading

    h = History(capacity=1000, gpu_fields=("power_w",), host_fields=())
    stop = threading.Event()
    errors: list[BaseException] = []

    def reader() -> None:
        while not stop.is_set():
            try:
                t, v = h.gpu_series(0, "power_w", max_points=50)
                assert len(t) == len(v) <= 50
            except BaseException as e:
                errors.append(e)
                return

    th = threading.Thread(target=reader)
    th.start()
    fill(h, np.arange(3000, dtype=float))
    stop.set()
    th.join()
    assert not errors
