"""The production NVML path against a real driver (skipped without an NVIDIA GPU)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_real_nvml_inventory_and_poll() -> None:
    from gpuprof.catalog.names import gpu_for_nvml_name
    from gpuprof.telemetry.model import SourceState
    from gpuprof.telemetry.nvml.source import NvmlSource

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


def _nvml_index_of_cuda0(devices) -> int:  # type: ignore[no-untyped-def]
    """The NVML index of torch's ``cuda:0`` (CUDA_VISIBLE_DEVICES may reorder or hide GPUs)."""
    import torch

    props = torch.cuda.get_device_properties(0)
    uuid = str(getattr(props, "uuid", "") or "")
    for d in devices:
        if uuid and d.uuid and d.uuid.removeprefix("GPU-").removeprefix("MIG-") == uuid:
            return int(d.index)
    return int(devices[0].index)


def test_real_gpm_tensor_activity_rises_during_a_bf16_gemm() -> None:
    """Issue 12 on real silicon: NVML GPM's tensor-core activity, through the production source,
    is near zero before and clearly up while cuda:0 runs BF16 GEMMs back to back."""
    import threading
    import time

    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    from gpuprof.telemetry.nvml.gpm import PROF_FIRST_SAMPLE
    from gpuprof.telemetry.nvml.source import NvmlSource

    n = 8192
    a = torch.randn(n, n, device="cuda:0", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda:0", dtype=torch.bfloat16)
    c = a @ b  # cuBLAS warm-up, before the idle baseline
    torch.cuda.synchronize()

    src = NvmlSource()
    try:
        devices = src.devices()
        index = _nvml_index_of_cuda0(devices)
        info = next(d for d in devices if d.index == index)
        first = next(g for g in src.poll().gpus if g.index == index)
        time.sleep(1.0)
        idle = next(g for g in src.poll().gpus if g.index == index)
        if info.architecture not in ("Hopper", "Blackwell") and idle.prof_unavailable:
            pytest.skip(f"GPM not available on {info.name}: {idle.prof_unavailable}")
        assert first.prof_unavailable == PROF_FIRST_SAMPLE, first.prof_unavailable
        assert idle.prof_unavailable is None, idle.prof_unavailable
        assert idle.prof_tensor_active_pct is not None and idle.prof_sm_active_pct is not None

        stop = threading.Event()

        def gemms() -> None:
            while not stop.is_set():
                for _ in range(20):
                    torch.matmul(a, b, out=c)
                torch.cuda.synchronize()

        worker = threading.Thread(target=gemms, daemon=True)
        worker.start()
        try:
            time.sleep(1.0)  # the queue fills, clocks ramp
            src.poll()  # the busy interval starts here
            time.sleep(2.0)
            busy = next(g for g in src.poll().gpus if g.index == index)
        finally:
            stop.set()
            worker.join(30.0)
        values = {
            k: getattr(busy, k)
            for k in (
                "util_gpu_pct",
                "prof_sm_active_pct",
                "prof_tensor_active_pct",
                "prof_tensor_hmma_pct",
                "prof_dram_active_pct",
            )
        }
        print(f"GPM on {info.name}: idle tensor {idle.prof_tensor_active_pct}%, busy {values}")
        assert busy.prof_unavailable is None, busy.prof_unavailable
        assert busy.prof_tensor_active_pct is not None and busy.prof_sm_active_pct is not None
        assert busy.prof_sm_active_pct > 50, values
        assert busy.prof_tensor_active_pct > max(20.0, idle.prof_tensor_active_pct + 15.0), values
        assert busy.prof_tensor_active_pct <= busy.prof_sm_active_pct + 1.0, values
        if busy.prof_tensor_hmma_pct is not None:  # BF16 runs on the HMMA pipe
            assert busy.prof_tensor_hmma_pct > 10.0, values
    finally:
        src.close()
