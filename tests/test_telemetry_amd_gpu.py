"""On a machine with AMD GPUs (scripts/gpu_acceptance.sh): the real amdsmi through the AMD
source. Skipped elsewhere: no amdsmi, or no AMD GPU. Nothing here runs on the fake."""

from __future__ import annotations

import math

import pytest

from gpuprof.telemetry.amd import AmdSmiSource
from gpuprof.telemetry.amd.lib import AmdSmiUnavailable, load_amdsmi

pytestmark = pytest.mark.gpu


@pytest.fixture
def source():  # type: ignore[no-untyped-def]
    try:
        load_amdsmi()
    except AmdSmiUnavailable as exc:
        pytest.skip(f"no usable amdsmi here: {exc}")
    src = AmdSmiSource()
    if not src.devices():
        src.close()
        pytest.skip("amdsmi lists no AMD GPU here")
    yield src
    src.close()


def test_real_amd_gpus_give_samples_with_reasons_for_gaps(source) -> None:
    import time

    source.poll()
    time.sleep(1.0)
    snap = source.poll()
    devices = source.devices()
    assert len(snap.gpus) == len(devices) > 0
    print("amdsmi devices:", [(d.index, d.name, d.compute_partition) for d in devices])
    for g in snap.gpus:
        print(
            f"GPU {g.index}: util {g.util_gpu_pct} power {g.power_w} W cap "
            f"{g.power_enforced_limit_w} W junction {g.temp_hotspot_c} C absent {g.absent}"
        )
        assert g.mem_total_bytes and g.mem_total_bytes > 2**30
        # The power cap comes in µW from amdsmi: in W it is a plausible board limit.
        if g.power_enforced_limit_w is not None:
            assert 10.0 < g.power_enforced_limit_w < 3000.0
        for value in (g.util_gpu_pct, g.power_w, g.temp_hotspot_c):
            assert value is None or math.isfinite(value)
        # Every None among the main fields has its reason.
        reasons = dict(g.absent)
        for field in ("util_gpu_pct", "power_w", "temp_hotspot_c", "mem_used_bytes"):
            assert getattr(g, field) is not None or field in reasons, field
