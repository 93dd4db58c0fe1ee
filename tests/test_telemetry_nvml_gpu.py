"""The production NVML path against a real driver (skipped without an NVIDIA GPU)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_real_nvml_inventory_and_poll() -> None:
    from gpuprof.catalog.names import gpu_for_nvml_name
    from gpuprof.telemetry.model import SourceState
    from gpuprof.telemetry.nvml import NvmlSource

    src = NvmlSource()
    try:
        assert src.status().state is SourceState.OK, src.status()
        devices = src.devices()
        assert devices, "NVML reports no GPU"
        system = src.system_info()
        assert system.driver_version and system.cuda_driver_version
        for d in devices:
            assert d.memory_total_bytes and d.memory_total_bytes > 1 << 30
            assert d.uuid and d.uuid.startswith(("GPU-", "MIG-"))
            # Every data-centre GPU we can be lent has a row in the spec table.
            assert gpu_for_nvml_name(d.name) is not None, d.name
        first = src.poll()
        second = src.poll()
        assert len(second.gpus) == len(devices)
        for g in second.gpus:
            assert not g.lost
            assert g.util_gpu_pct is not None and 0 <= g.util_gpu_pct <= 100
            assert g.power_w is not None and 10 < g.power_w < 2000
            assert g.temp_gpu_c is not None and 5 < g.temp_gpu_c < 110
            assert g.clock_sm_mhz is not None and g.clock_sm_mhz > 0
            assert g.mem_used_bytes is not None and g.mem_total_bytes is not None
            assert g.mem_used_bytes <= g.mem_total_bytes
        assert second.time_s > first.time_s
        topo = src.topology()
        assert topo.gpu_indices == tuple(d.index for d in devices)
    finally:
        src.close()
