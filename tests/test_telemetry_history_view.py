"""History.gpu_view: bucket size, final points, and reuse of buckets between frames."""

from __future__ import annotations

import numpy as np
import pytest

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind

T0 = 1_700_000_000.0
FIELDS = ("util_gpu_pct", "power_w")


def snap(k: int) -> Snapshot:
    util = float((k * 37) % 101)
    power = 5000.0 if k % 977 == 0 else float(200 + (k * 13) % 50)
    return Snapshot(
        time_s=T0 + 0.1 * k,
        source=SourceKind.SIMULATED,
        host=HostSample(cpu_pct=float(k % 97)),
        gpus=(GpuSample(index=0, util_gpu_pct=util, power_w=None if 500 <= k < 700 else power),),
    )


def filled(n: int, capacity: int) -> History:
    h = History(capacity=capacity, gpu_fields=FIELDS, host_fields=("cpu_pct",))
    for k in range(n):
        h.append(snap(k))
    return h


@pytest.mark.slow
def test_view_reports_buckets() -> None:
    h = filled(36_000, 40_000)
    last = h.time_range()[1]
    view = h.gpu_view(0, FIELDS, last - 3600, last, 1474)
    t = view.t_s
    assert view.bucket_samples == 64 and len(t) <= 1474
    # Everything but the newest, partial bucket is final: 36,000 % 64 = 32 samples in it.
    assert view.n_final == len(t) - 2
    raw = h.gpu_view(0, FIELDS, last - 10, last, 1474)
    assert raw.bucket_samples == 1 and raw.n_final == len(raw.t_s) == 101


@pytest.mark.slow
def test_final_points_survive_appends_and_the_reused_buckets_are_right() -> None:
    """A sliding 1 h window, frame by frame: what History reuses equals a fresh computation."""
    capacity = 40_000
    h = filled(36_000, capacity)
    prev = None
    for k in range(36_000, 36_300):
        h.append(snap(k))
        last = h.time_range()[1]
        view = h.gpu_view(0, FIELDS, last - 3600, last, 1474)
        fresh = (
            filled(k + 1, capacity).gpu_view(0, FIELDS, last - 3600, last, 1474)
            if k % 97 == 0
            else None
        )
        if fresh is not None:
            np.testing.assert_array_equal(view.t_s, fresh.t_s)
            np.testing.assert_array_equal(view.values, fresh.values)
            assert view.n_final == fresh.n_final
        if prev is not None and prev.bucket_samples == view.bucket_samples:
            # The previous frame's final points, from its second bucket on, are unchanged.
            start = int(np.searchsorted(view.t_s, prev.t_s[2]))
            n = prev.n_final - 2
            np.testing.assert_array_equal(view.t_s[start : start + n], prev.t_s[2 : prev.n_final])
            np.testing.assert_array_equal(
                view.values[:, start : start + n], prev.values[:, 2 : prev.n_final]
            )
        prev = view
    # The spike at sample 36,147 (a multiple of 977) is in the window.
    assert np.nanmax(prev.values[1]) == 5000.0


def test_clear_forgets_reused_buckets() -> None:
    h = filled(5000, 8000)
    last = h.time_range()[1]
    before = h.gpu_view(0, FIELDS, last - 400, last, 200)
    v0 = h.version
    h.clear()
    assert h.version != v0
    for k in range(5000):
        s = snap(k)
        h.append(
            Snapshot(
                time_s=s.time_s,
                source=s.source,
                host=s.host,
                gpus=(GpuSample(index=0, util_gpu_pct=1.0, power_w=2.0),),
            )
        )
    after = h.gpu_view(0, FIELDS, last - 400, last, 200)
    assert after.bucket_samples == before.bucket_samples
    assert np.all(after.values[0] == 1.0) and np.all(after.values[1] == 2.0)


@pytest.mark.parametrize("window_s", [60, 600, 3600])
def test_version_changes_only_with_content(window_s: int) -> None:
    h = filled(100, 1000)
    v = h.version
    h.gpu_view(0, FIELDS, None, None, 2 * window_s)
    assert h.version == v
    h.append(snap(100))
    assert h.version == v + 1
