"""The environment a benchmark run measured on: host, torch, CUDA, cuBLAS, GPU, clocks and driver.

:func:`capture_environment` imports torch; call it only when a benchmark runs.
"""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Environment", "capture_environment", "nvml_index_for", "read_cublas_version"]


@dataclass(frozen=True, slots=True)
class Environment:
    """What the numbers were measured on. None = unknown or not applicable."""

    hostname: str = ""
    os: str = ""
    python: str = ""
    cpu_model: str | None = None
    cpu_count_logical: int | None = None
    host_memory_total_bytes: int | None = None
    torch_version: str | None = None
    torch_threads: int | None = None
    cuda_runtime_version: str | None = None  # torch.version.cuda
    hip_runtime_version: str | None = None  # torch.version.hip: a ROCm build (AMD GPUs)
    cudnn_version: str | None = None
    cublas_version: str | None = None
    nccl_version: str | None = None
    driver_version: str | None = None  # from NVML
    cuda_driver_version: str | None = None
    gpu_name: str | None = None
    gpu_count: int | None = None
    gpu_uuid: str | None = None
    gpu_nvml_index: int | None = None
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None
    gpu_memory_total_bytes: int | None = None
    l2_cache_bytes: int | None = None
    sm_clock_max_mhz: int | None = None
    mem_clock_max_mhz: int | None = None
    sm_clock_start_mhz: float | None = None
    power_limit_w: float | None = None
    pcie_gen: int | None = None
    pcie_width: int | None = None
    telemetry_source: str | None = None  # "nvml"; None when nothing was sampled


def _cpu_model() -> str | None:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as fh:
        for line in fh:
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or None


def read_cublas_version() -> str | None:
    """cuBLAS's own version (``cublasGetProperty``) from the library torch loaded, else the wheel's."""
    import ctypes

    with contextlib.suppress(OSError):
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = {line.split()[-1] for line in fh if "libcublas.so" in line and "Lt" not in line}
        for path in sorted(paths):
            with contextlib.suppress(OSError, AttributeError):
                lib = ctypes.CDLL(path)
                parts = []
                for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
                    value = ctypes.c_int()
                    if lib.cublasGetProperty(prop, ctypes.byref(value)) != 0:
                        break
                    parts.append(str(value.value))
                if len(parts) == 3:
                    return ".".join(parts)
    import importlib.metadata as md

    for dist in ("nvidia-cublas-cu12", "nvidia-cublas-cu13", "nvidia-cublas", "nvidia-cublas-cu11"):
        with contextlib.suppress(md.PackageNotFoundError):
            return md.version(dist) + " (wheel)"
    return None


def nvml_index_for(device: str, source: Any) -> int | None:
    """The NVML index of torch's ``cuda:N`` (:func:`gpuprof.devices.nvml_index_of`: by UUID,
    else PCI bus id, else CUDA_VISIBLE_DEVICES); N itself without a source or its device list,
    None when none of the source's GPUs is it (no telemetry is better than another GPU's)."""
    if not device.startswith("cuda"):
        return None
    import torch

    from gpuprof.devices import nvml_index_of

    ordinal = torch.device(device).index or 0
    if source is None:
        return ordinal
    try:
        gpus = list(source.devices())
    except Exception:
        return ordinal
    return nvml_index_of(ordinal, gpus)


def capture_environment(
    device: str, source: Any = None, *, nvml_index: int | None = None
) -> Environment:
    """GPU, driver, CUDA, torch, cuBLAS, clocks, power limit and host CPU. Imports torch."""
    import psutil
    import torch

    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_model": _cpu_model(),
        "cpu_count_logical": os.cpu_count(),
        "host_memory_total_bytes": int(psutil.virtual_memory().total),
        "torch_version": str(torch.__version__),
        "torch_threads": int(torch.get_num_threads()),
        "cuda_runtime_version": torch.version.cuda,
        "hip_runtime_version": getattr(torch.version, "hip", None),
    }
    if device.startswith("cuda"):
        dev = torch.device(device)
        props = torch.cuda.get_device_properties(dev)
        env.update(
            gpu_name=str(props.name),
            gpu_count=int(torch.cuda.device_count()),
            compute_capability=(int(props.major), int(props.minor)),
            sm_count=int(props.multi_processor_count),
            gpu_memory_total_bytes=int(props.total_memory),
            l2_cache_bytes=int(getattr(props, "L2_cache_size", 0)) or None,
            cublas_version=read_cublas_version(),
        )
        with contextlib.suppress(Exception):
            env["cudnn_version"] = str(torch.backends.cudnn.version())  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            env["nccl_version"] = ".".join(map(str, torch.cuda.nccl.version()))  # type: ignore[no-untyped-call]
    if source is not None and device.startswith("cuda"):
        index = nvml_index if nvml_index is not None else nvml_index_for(device, source)
        env["gpu_nvml_index"] = index
        with contextlib.suppress(Exception):
            sysinfo = source.system_info()
            env["driver_version"] = sysinfo.driver_version
            env["cuda_driver_version"] = sysinfo.cuda_driver_version
        with contextlib.suppress(Exception):
            for info in source.devices():
                if info.index == index:
                    env["gpu_uuid"] = info.uuid
                    env["sm_clock_max_mhz"] = info.sm_clock_max_mhz
                    env["mem_clock_max_mhz"] = info.mem_clock_max_mhz
        with contextlib.suppress(Exception):
            snap = source.poll()
            for g in snap.gpus:
                if g.index == index:
                    env["sm_clock_start_mhz"] = g.clock_sm_mhz
                    env["power_limit_w"] = g.power_enforced_limit_w or g.power_limit_w
                    env["pcie_gen"] = g.pcie_gen
                    env["pcie_width"] = g.pcie_width
        env["telemetry_source"] = str(getattr(getattr(source, "kind", None), "value", "nvml"))
    return Environment(**env)
