"""Frozen telemetry records: what one poll of a source produced.

Units live in field names (``_bytes``, ``_bytes_s``, ``_mhz``, ``_w``, ``_c``, ``_pct``, ``_j``).
``None`` means unsupported, not permitted or failing for that device; only plots turn it into NaN.
Nothing downstream mutates a record: a poll produces a new :class:`Snapshot`.
"""

from __future__ import annotations

import enum
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

from gpuprof.telemetry.reasons import ClockEventReason

__all__ = [
    "DeviceInfo",
    "EccBlock",
    "EccCounts",
    "GpuSample",
    "HostSample",
    "MigDeviceInfo",
    "MigProfSample",
    "NvLinkSample",
    "ProcessSample",
    "Snapshot",
    "SourceKind",
    "SourceState",
    "SourceStatus",
    "SystemInfo",
    "Topology",
    "GPU_NUMERIC_FIELDS",
    "HOST_NUMERIC_FIELDS",
    "VENDOR_NUMERIC_FIELDS",
]


_C = TypeVar("_C", bound=type)


def _slot_init(cls: _C) -> _C:
    """Give a frozen, slotted dataclass built at every poll a faster ``__init__``.

    The generated one stores each field through ``object.__setattr__`` (to get past
    ``frozen``); storing through the field's slot descriptor takes half the time. GpuSample has
    54 fields and is built for every GPU at every poll (perf/sampler.py: 5.3 -> 2.5 µs each).
    Same parameters, defaults and result; only for classes without factories or post-init.
    """
    params: list[str] = []
    body: list[str] = []
    env: dict[str, Any] = {}
    for i, f in enumerate(fields(cls)):
        assert f.init and f.default_factory is MISSING and not hasattr(cls, "__post_init__")
        if f.default is MISSING:
            params.append(f.name)
        else:
            env[f"_d{i}"] = f.default
            params.append(f"{f.name}=_d{i}")
        env[f"_s{i}"] = cls.__dict__[f.name].__set__
        body.append(f"    _s{i}(self, {f.name})")
    namespace: dict[str, Any] = {}
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body), env, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    generated = vars(cls)["__init__"]  # the dataclass's own, replaced
    init.__annotations__ = dict(generated.__annotations__)
    init.__doc__ = generated.__doc__
    setattr(cls, "__init__", init)  # noqa: B010 (mypy refuses assigning a method)
    return cls


class SourceKind(str, enum.Enum):
    """Where a snapshot came from; the UI labels SIMULATED and REPLAY everywhere."""

    NVML = "nvml"
    SIMULATED = "simulated"
    REPLAY = "replay"
    AMDSMI = "amdsmi"  # AMD GPUs through amdsmi (gpuprof.telemetry.amd)
    NONE = "none"  # host only: no NVIDIA driver or library


class SourceState(str, enum.Enum):
    """States of the GPU backend that the UI shows with a hint (DESIGN.md, data flow)."""

    OK = "ok"
    LIBRARY_NOT_FOUND = "library_not_found"
    DRIVER_NOT_LOADED = "driver_not_loaded"
    VERSION_MISMATCH = "version_mismatch"
    NO_PERMISSION = "no_permission"
    NO_GPUS = "no_gpus"
    GPU_LOST = "gpu_lost"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """The backend's state plus a one-line message and a hint for the user."""

    state: SourceState = SourceState.OK
    message: str = ""
    hint: str = ""
    process_info_permitted: bool = True
    lost_gpus: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return self.state is SourceState.OK


@dataclass(frozen=True, slots=True)
class MigDeviceInfo:
    """One MIG instance on a parent GPU (``nvidia-smi -L`` MIG lines)."""

    index: int
    name: str
    uuid: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """Static facts about one GPU, read once (``nvidia-smi -q`` header sections)."""

    index: int
    name: str
    uuid: str | None = None
    pci_bus_id: str | None = None
    serial: str | None = None
    vbios_version: str | None = None
    board_part_number: str | None = None
    architecture: str | None = None
    compute_capability: tuple[int, int] | None = None
    memory_total_bytes: int | None = None
    # Clocks: the maximum each domain can reach (``nvidia-smi -q -d CLOCK`` "Max Clocks").
    graphics_clock_max_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    mem_clock_max_mhz: int | None = None
    video_clock_max_mhz: int | None = None
    # Power limits in watts (``nvidia-smi -q -d POWER``).
    power_default_limit_w: float | None = None
    power_min_limit_w: float | None = None
    power_max_limit_w: float | None = None
    # Temperature thresholds in °C (``nvidia-smi -q -d TEMPERATURE``).
    temp_slowdown_c: float | None = None
    temp_shutdown_c: float | None = None
    temp_max_operating_c: float | None = None
    pcie_gen_max: int | None = None
    pcie_width_max: int | None = None
    nvlink_count: int = 0
    fan_count: int = 0
    ecc_mode_current: bool | None = None
    ecc_mode_pending: bool | None = None
    mig_mode_current: bool | None = None
    mig_mode_pending: bool | None = None
    mig_devices: tuple[MigDeviceInfo, ...] = ()
    compute_mode: str | None = None
    persistence_mode: bool | None = None
    display_active: bool | None = None
    multi_gpu_board: bool | None = None
    # Vendor facts: "nvidia" or "amd"; AMD Instinct partition modes (the analogue of MIG:
    # compute SPX/DPX/QPX/CPX, memory NPS1/NPS4) and XGMI links (amd-smi static/xgmi).
    vendor: str = "nvidia"
    compute_partition: str | None = None
    memory_partition: str | None = None
    xgmi_link_count: int = 0


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """Driver-wide facts (``nvidia-smi`` banner) and the host they run on."""

    hostname: str = ""
    os: str = ""
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # e.g. "12.4", from nvmlSystemGetCudaDriverVersion
    nvml_version: str | None = None
    cpu_model: str | None = None
    cpu_count_logical: int | None = None
    memory_total_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class Topology:
    """GPU×GPU links, as ``nvidia-smi topo -m`` prints them.

    ``matrix[i][j]`` is one of ``X`` (self), ``NV<n>`` (n NVLinks), ``SYS``, ``NODE``,
    ``PHB``, ``PXB``, ``PIX`` (the PCIe common ancestor), or ``None`` when unknown.
    """

    gpu_indices: tuple[int, ...] = ()
    matrix: tuple[tuple[str | None, ...], ...] = ()

    def link(self, a: int, b: int) -> str | None:
        """The label between GPU indices ``a`` and ``b``."""
        try:
            i, j = self.gpu_indices.index(a), self.gpu_indices.index(b)
        except ValueError:
            return None
        return self.matrix[i][j]


@_slot_init
@dataclass(frozen=True, slots=True)
class NvLinkSample:
    """One NVLink: state and throughput differenced from the driver's byte counters."""

    link: int
    active: bool | None = None
    version: int | None = None
    remote_type: str | None = None  # "gpu", "switch", "ibmnpu" or None
    remote_pci_bus_id: str | None = None
    rx_bytes_s: float | None = None
    tx_bytes_s: float | None = None


@dataclass(frozen=True, slots=True)
class EccBlock:
    """ECC / RAS error counts of one hardware block (AMD: UMC, SDMA, GFX, ..., XGMI_WAFL)."""

    block: str
    corrected: int | None = None
    uncorrected: int | None = None
    deferred: int | None = None


@dataclass(frozen=True, slots=True)
class EccCounts:
    """ECC error counters (``nvidia-smi -q -d ECC``) and memory retirement / remapping."""

    volatile_corrected: int | None = None
    volatile_uncorrected: int | None = None
    aggregate_corrected: int | None = None
    aggregate_uncorrected: int | None = None
    retired_pages_sbe: int | None = None
    retired_pages_dbe: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_correctable: int | None = None
    remapped_rows_uncorrectable: int | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    blocks: tuple[EccBlock, ...] = ()  # per block, where the driver reports it (AMD RAS)

    @classmethod
    def clean(cls) -> EccCounts:
        """A healthy HBM GPU with row remapping (H100): every counter zero, nothing pending."""
        return cls(
            volatile_corrected=0,
            volatile_uncorrected=0,
            aggregate_corrected=0,
            aggregate_uncorrected=0,
            remapped_rows_correctable=0,
            remapped_rows_uncorrectable=0,
            remapped_rows_pending=False,
            remapped_rows_failure=False,
        )


@_slot_init
@dataclass(frozen=True, slots=True)
class MigProfSample:
    """Profiling (GPM) activity of one MIG GPU instance, as :class:`GpuSample`'s ``prof_*``."""

    gpu_instance_id: int
    prof_sm_active_pct: float | None = None
    prof_sm_occupancy_pct: float | None = None
    prof_tensor_active_pct: float | None = None
    prof_dram_active_pct: float | None = None
    prof_fp64_active_pct: float | None = None
    prof_fp32_active_pct: float | None = None
    prof_fp16_active_pct: float | None = None


@_slot_init
@dataclass(frozen=True, slots=True)
class GpuSample:
    """One GPU at one instant. ``lost`` is True once the device fell off the bus."""

    index: int
    uuid: str | None = None
    lost: bool = False
    util_gpu_pct: float | None = None
    util_mem_pct: float | None = None
    util_enc_pct: float | None = None
    util_dec_pct: float | None = None
    mem_total_bytes: int | None = None
    mem_used_bytes: int | None = None
    mem_free_bytes: int | None = None
    mem_reserved_bytes: int | None = None
    clock_graphics_mhz: float | None = None
    clock_sm_mhz: float | None = None
    clock_mem_mhz: float | None = None
    clock_video_mhz: float | None = None
    clock_app_graphics_mhz: float | None = None
    clock_app_mem_mhz: float | None = None
    pstate: int | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    power_enforced_limit_w: float | None = None
    energy_total_j: float | None = None
    temp_gpu_c: float | None = None
    temp_mem_c: float | None = None
    fan_speed_pct: tuple[float | None, ...] = ()
    # Stored as recorded (mask and names, byte-compatible with older recordings); read them
    # through :attr:`clock_events`. Sources fill the names from the mask with ClockEventReason.
    throttle_mask: int | None = None
    throttle_reasons: tuple[str, ...] = ()  # ClockEventReason.throttle_names: idle excluded
    pcie_gen: int | None = None
    pcie_width: int | None = None
    pcie_rx_bytes_s: float | None = None
    pcie_tx_bytes_s: float | None = None
    pcie_replay_count: int | None = None
    nvlinks: tuple[NvLinkSample, ...] = ()
    nvlink_rx_bytes_s: float | None = None
    nvlink_tx_bytes_s: float | None = None
    ecc: EccCounts | None = None
    # Profiling activity from NVML GPM (Hopper and newer; DCGM's DCGM_FI_PROF_* fields), each
    # over the interval since the previous poll. ``util_gpu_pct`` only says that some kernel
    # ran; these say how busy the SMs, tensor cores and DRAM were. All None, with the reason
    # in ``prof_unavailable`` ("not supported on this GPU", "first sample", ...), where absent.
    prof_sm_active_pct: float | None = None
    prof_sm_occupancy_pct: float | None = None
    prof_tensor_active_pct: float | None = None  # any tensor pipe
    prof_tensor_hmma_pct: float | None = None  # FP16/BF16/TF32 (and FP8) tensor pipe
    prof_tensor_imma_pct: float | None = None  # integer tensor pipe
    prof_tensor_dfma_pct: float | None = None  # FP64 tensor pipe
    prof_dram_active_pct: float | None = None  # DRAM bandwidth utilization
    prof_fp64_active_pct: float | None = None
    prof_fp32_active_pct: float | None = None
    prof_fp16_active_pct: float | None = None
    prof_pcie_rx_bytes_s: float | None = None
    prof_pcie_tx_bytes_s: float | None = None
    prof_nvlink_rx_bytes_s: float | None = None
    prof_nvlink_tx_bytes_s: float | None = None
    prof_nvdec_pct: float | None = None  # mean over the NVDEC engines
    prof_nvjpg_pct: float | None = None  # mean over the NVJPG engines
    prof_unavailable: str | None = None
    mig_prof: tuple[MigProfSample, ...] = ()
    # AMD (amdsmi) readings NVML has no field for: junction (hotspot) temperature, SoC clock,
    # multimedia (VCN) engine activity, XGMI read/write throughput summed over the links.
    temp_hotspot_c: float | None = None
    clock_soc_mhz: float | None = None
    util_mm_pct: float | None = None
    xgmi_read_bytes_s: float | None = None
    xgmi_write_bytes_s: float | None = None
    # Why a field is None, where the source knows: (field name, reason) pairs, e.g.
    # ("temp_gpu_c", "N/A from amdsmi: no edge sensor on this GPU"). Empty from NVML.
    absent: tuple[tuple[str, str], ...] = ()

    @property
    def mem_used_pct(self) -> float | None:
        if self.mem_used_bytes is None or not self.mem_total_bytes:
            return None
        return 100.0 * self.mem_used_bytes / self.mem_total_bytes

    @property
    def clock_events(self) -> ClockEventReason:
        """The clock-event (throttle) reasons: the mask's bits and the named ones together (a
        sample from a recording or a remote exporter may carry only one of the two)."""
        return ClockEventReason.from_mask(self.throttle_mask) | ClockEventReason.from_names(
            self.throttle_reasons
        )


@_slot_init
@dataclass(frozen=True, slots=True)
class ProcessSample:
    """A process using a GPU (``nvidia-smi`` process table + ``pmon``)."""

    pid: int
    gpu_index: int
    kind: str = "compute"  # "compute", "graphics" or "compute+graphics"
    gpu_mem_bytes: int | None = None
    sm_util_pct: float | None = None
    mem_util_pct: float | None = None
    name: str | None = None
    user: str | None = None
    cmdline: str | None = None
    # The host side of the process (psutil): CPU % of one core, resident memory, start time
    # (Unix seconds; run time is the snapshot's time minus this).
    host_cpu_pct: float | None = None
    host_rss_bytes: int | None = None
    start_time_s: float | None = None
    # Where it runs: a container id from /proc/PID/cgroup, and the Kubernetes pod when known.
    container_id: str | None = None
    pod_name: str | None = None
    pod_namespace: str | None = None


@_slot_init
@dataclass(frozen=True, slots=True)
class HostSample:
    """The host at one instant (psutil)."""

    cpu_pct: float | None = None
    cpu_per_core_pct: tuple[float, ...] = ()
    cpu_freq_mhz: float | None = None
    load_avg: tuple[float, float, float] | None = None
    mem_total_bytes: int | None = None
    mem_used_bytes: int | None = None
    mem_available_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_used_bytes: int | None = None
    disk_read_bytes_s: float | None = None
    disk_write_bytes_s: float | None = None
    net_rx_bytes_s: float | None = None
    net_tx_bytes_s: float | None = None
    temps_c: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything one poll produced. ``time_s`` is Unix time in seconds."""

    time_s: float
    source: SourceKind
    host: HostSample
    gpus: tuple[GpuSample, ...] = ()
    processes: tuple[ProcessSample, ...] = ()
    status: SourceStatus = field(default_factory=SourceStatus)

    @property
    def simulated(self) -> bool:
        return self.source is SourceKind.SIMULATED


def _numeric_fields(cls: type) -> tuple[str, ...]:
    numeric = {"float | None", "int | None", "float", "int"}
    return tuple(f.name for f in fields(cls) if str(f.type) in numeric and f.name != "index")


#: AMD-only scalars: in samples, recordings and exports, but not in History's rings (each
#: field costs ~3 MB for 8 GPUs over 24 h, and History's budget is 150 MB).
VENDOR_NUMERIC_FIELDS: tuple[str, ...] = (
    "temp_hotspot_c",
    "clock_soc_mhz",
    "util_mm_pct",
    "xgmi_read_bytes_s",
    "xgmi_write_bytes_s",
)
#: Scalar GPU metrics that History stores and plots can ask for, by field name.
GPU_NUMERIC_FIELDS: tuple[str, ...] = tuple(
    name for name in _numeric_fields(GpuSample) if name not in VENDOR_NUMERIC_FIELDS
)
#: Scalar host metrics that History stores, by field name.
HOST_NUMERIC_FIELDS: tuple[str, ...] = _numeric_fields(HostSample)
