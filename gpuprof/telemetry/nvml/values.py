"""NVML's numbers and what they mean, without pynvml: enum values, tables and converters.

The enum values are the stable C ABI of ``nvml.h``; ``tests/test_telemetry_nvml.py`` checks
each against the installed pynvml. Units: NVML reports power in mW, energy in mJ, PCIe
throughput in KB/s (KiB, as nvitop reads it) and NVLink data counters in KiB.
"""

from __future__ import annotations

from typing import Any

from gpuprof.telemetry.reasons import ClockEventReason

# --- nvmlReturn_t ----------------------------------------------------------------------------

ERROR_UNINITIALIZED = 1
ERROR_INVALID_ARGUMENT = 2
ERROR_NOT_SUPPORTED = 3
ERROR_NO_PERMISSION = 4
ERROR_NOT_FOUND = 6
ERROR_DRIVER_NOT_LOADED = 9
ERROR_LIBRARY_NOT_FOUND = 12
ERROR_FUNCTION_NOT_FOUND = 13
ERROR_GPU_IS_LOST = 15
ERROR_LIB_RM_VERSION_MISMATCH = 18
ERROR_ARGUMENT_VERSION_MISMATCH = 25

# An NVMLError of these kinds will not go away by asking again: stop asking.
PERMANENT_ERRORS = frozenset(
    {ERROR_NOT_SUPPORTED, ERROR_FUNCTION_NOT_FOUND, ERROR_INVALID_ARGUMENT}
)

# --- query arguments -------------------------------------------------------------------------

CLOCK_GRAPHICS, CLOCK_SM, CLOCK_MEM, CLOCK_VIDEO = 0, 1, 2, 3
TEMPERATURE_GPU = 0
THRESHOLD_SHUTDOWN, THRESHOLD_SLOWDOWN, THRESHOLD_GPU_MAX = 0, 1, 3
PCIE_UTIL_TX_BYTES, PCIE_UTIL_RX_BYTES = 0, 1
MEMORY_ERROR_CORRECTED, MEMORY_ERROR_UNCORRECTED = 0, 1
VOLATILE_ECC, AGGREGATE_ECC = 0, 1
RETIRE_CAUSE_MULTIPLE_SBE, RETIRE_CAUSE_DBE = 0, 1
PSTATE_UNKNOWN = 32
NVLINK_MAX_LINKS = 36
MEMORY_V2 = 0x02000028  # nvmlMemory_v2: struct version of nvmlDeviceGetMemoryInfo_v2

# --- nvmlDeviceGetFieldValues ids ------------------------------------------------------------

FI_DEV_MEMORY_TEMP = 82
FI_DEV_NVLINK_LINK_COUNT = 91
FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138  # cumulative KiB per link (scopeId = link)
FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139
ALL_LINKS = 0xFFFFFFFF  # scopeId UINT_MAX: the counter summed over every link (nvml.h)
AGG_TX = (FI_DEV_NVLINK_THROUGHPUT_DATA_TX, ALL_LINKS)
AGG_RX = (FI_DEV_NVLINK_THROUGHPUT_DATA_RX, ALL_LINKS)

KIB = 1024
MIB = 1024 * 1024

# --- GPM (nvmlGpmMetricId_t; Hopper and newer) -----------------------------------------------

GPM_SUPPORT_VERSION = 1  # nvmlGpmSupport_t.version
GPM_METRICS_GET_VERSION = 1  # nvmlGpmMetricsGet_t.version
GPM_SM_UTIL = 2  # % of SMs busy: DCGM_FI_PROF_SM_ACTIVE
GPM_SM_OCCUPANCY = 3  # % of warps resident vs the maximum: DCGM_FI_PROF_SM_OCCUPANCY
GPM_ANY_TENSOR_UTIL = 5  # DCGM_FI_PROF_PIPE_TENSOR_ACTIVE
GPM_DFMA_TENSOR_UTIL = 6  # FP64 tensor pipe: DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE
GPM_HMMA_TENSOR_UTIL = 7  # FP16/BF16/TF32 tensor pipe: DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE
GPM_IMMA_TENSOR_UTIL = 9  # integer tensor pipe: DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE
GPM_DRAM_BW_UTIL = 10  # DCGM_FI_PROF_DRAM_ACTIVE
GPM_FP64_UTIL = 11
GPM_FP32_UTIL = 12
GPM_FP16_UTIL = 13
GPM_PCIE_TX_PER_SEC = 20  # MiB/s
GPM_PCIE_RX_PER_SEC = 21  # MiB/s
GPM_NVDEC_0_UTIL = 30  # NVDEC engine k is 30 + k, k < 8
GPM_NVJPG_0_UTIL = 40  # NVJPG engine k is 40 + k, k < 8
GPM_ENGINES = 8
GPM_NVLINK_TOTAL_RX_PER_SEC = 60  # MiB/s, all links
GPM_NVLINK_TOTAL_TX_PER_SEC = 61

# nvmlValueType_t -> member of the c_nvmlValue_t union.
VALUE_MEMBERS = {
    0: "dVal",
    1: "uiVal",
    2: "ulVal",
    3: "ullVal",
    4: "sllVal",
    5: "siVal",
    6: "usVal",
}

# --- tables ----------------------------------------------------------------------------------

#: Clock event ("throttle") reason bit -> name, a view of :class:`ClockEventReason` (the one table).
CLOCK_EVENT_REASONS: dict[int, str] = {int(r): r.key for r in ClockEventReason}

ARCHITECTURES = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
}

# nvmlComputeMode_t, named as nvidia-smi prints them.
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}

# nvmlIntNvLinkDeviceType_t
NVLINK_REMOTE_TYPES = {0x00: "gpu", 0x01: "ibmnpu", 0x02: "switch"}

# nvmlNvlinkVersion_t -> NVLink generation (1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0, 6.0).
NVLINK_VERSIONS = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 6}

# nvmlGpuTopologyLevel_t -> the cell ``nvidia-smi topo -m`` prints.
TOPOLOGY_LABELS = {0: "PIX", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}


def decode_clock_event_reasons(mask: int | None) -> tuple[str, ...]:
    """Names of the active clock event reasons in ``mask``, idle excluded.

    ``nvidia-smi -q -d PERFORMANCE`` "Clocks Event Reasons" (``Clocks Throttle Reasons``
    before driver 535). Unknown bits come back as ``"0x..."``.
    """
    return ClockEventReason.from_mask(mask).throttle_names


def topology_label(level: int | None) -> str | None:
    """``nvmlDeviceGetTopologyCommonAncestor`` level -> ``PIX``/``PXB``/``PHB``/``NODE``/``SYS``."""
    return None if level is None else TOPOLOGY_LABELS.get(int(level))


def field_name(fid: tuple[int, int]) -> str:
    """A field value id, named for the diagnostics: ``temp_mem``, ``nvlink3.tx_counter``."""
    field_id, scope = fid
    if field_id == FI_DEV_MEMORY_TEMP:
        return "temp_mem"
    if field_id == FI_DEV_NVLINK_LINK_COUNT:
        return "nvlink_count"
    link = "all" if scope == ALL_LINKS else str(scope)
    if field_id == FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
        return f"nvlink{link}.tx_counter"
    if field_id == FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
        return f"nvlink{link}.rx_counter"
    return f"field{field_id}.{scope}"


# --- converters: None stays None (unsupported), everything else leaves in W, J, bytes ---------


def text(value: Any) -> str | None:
    """A string NVML returned (bytes on old pynvml), stripped; empty is ``None``."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    return str(value).strip() or None


def bus_key(bus_id: Any) -> tuple[int, int, int, int] | None:
    """``00000000:18:00.0`` and ``0000:18:00.0`` -> (domain, bus, device, function)."""
    value = text(bus_id)
    if not value:
        return None
    try:
        head, function = value.rsplit(".", 1)
        domain, bus, device = head.split(":")
        return int(domain, 16), int(bus, 16), int(device, 16), int(function, 16)
    except ValueError:
        return None


def counter_rate(old: int | None, new: int | None, dt_s: float, scale: float) -> float | None:
    """Per-second rate of a cumulative counter; ``None`` at the first reading or a reset."""
    if old is None or new is None or new < old:
        return None
    return (new - old) * scale / dt_s


def to_int(value: Any) -> int | None:
    return None if value is None else int(value)


def to_float(value: Any) -> float | None:
    return None if value is None else float(value)


def milli(value: Any) -> float | None:
    """mW -> W, mJ -> J."""
    return None if value is None else float(value) / 1000.0


def to_flag(value: Any) -> bool | None:
    return None if value is None else bool(int(value))


def count_of(value: Any) -> int | None:
    return None if value is None else len(value)
