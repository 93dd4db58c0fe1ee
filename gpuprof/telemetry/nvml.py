"""NVML backend: the only module of gpuprof that talks to pynvml.

Style after nvitop's ``libnvml``: pynvml is imported lazily, ``nvmlInit`` runs once under a
lock on first use and ``nvmlShutdown`` at exit; every query goes through one helper that turns
an ``NVMLError`` into ``None`` and records the failure once per (device, field, error kind)
in a :class:`Diagnostics` registry. A poll never raises because one field failed.

Tests swap the driver: assign a fake module to :data:`pynvml` (or pass ``nvml=`` to
:class:`NvmlSource`) and the production code below runs against it unchanged.

Units: NVML reports power in mW, energy in mJ, PCIe throughput in KB/s (KiB, as nvitop reads
it) and NVLink data counters in KiB; everything leaves this module in W, J and bytes.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpuprof.telemetry.host import HostSampler, ProcessInfo, ProcessInfoCache
from gpuprof.telemetry.model import (
    DeviceInfo,
    EccCounts,
    GpuSample,
    MigDeviceInfo,
    NvLinkSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SourceState,
    SourceStatus,
    SystemInfo,
    Topology,
)

__all__ = [
    "CLOCK_EVENT_REASONS",
    "Diagnostics",
    "Failure",
    "NvmlSource",
    "decode_clock_event_reasons",
    "load_pynvml",
    "pynvml",
    "topology_label",
]

#: The pynvml module in use; ``None`` until first needed. Tests assign a fake here.
pynvml: Any = None


def load_pynvml() -> Any:
    """The pynvml module (``nvidia-ml-py``), imported on first use. Raises ImportError."""
    global pynvml
    if pynvml is None:
        import pynvml as module

        pynvml = module
    return pynvml


# --- NVML enum values (stable C ABI, nvml.h); tests check them against pynvml. -------------

_ERROR_UNINITIALIZED = 1
_ERROR_INVALID_ARGUMENT = 2
_ERROR_NOT_SUPPORTED = 3
_ERROR_NO_PERMISSION = 4
_ERROR_NOT_FOUND = 6
_ERROR_DRIVER_NOT_LOADED = 9
_ERROR_LIBRARY_NOT_FOUND = 12
_ERROR_FUNCTION_NOT_FOUND = 13
_ERROR_GPU_IS_LOST = 15
_ERROR_LIB_RM_VERSION_MISMATCH = 18
_ERROR_ARGUMENT_VERSION_MISMATCH = 25

_CLOCK_GRAPHICS, _CLOCK_SM, _CLOCK_MEM, _CLOCK_VIDEO = 0, 1, 2, 3
_TEMPERATURE_GPU = 0
_THRESHOLD_SHUTDOWN, _THRESHOLD_SLOWDOWN, _THRESHOLD_GPU_MAX = 0, 1, 3
_PCIE_UTIL_TX_BYTES, _PCIE_UTIL_RX_BYTES = 0, 1
_MEMORY_ERROR_CORRECTED, _MEMORY_ERROR_UNCORRECTED = 0, 1
_VOLATILE_ECC, _AGGREGATE_ECC = 0, 1
_RETIRE_CAUSE_MULTIPLE_SBE, _RETIRE_CAUSE_DBE = 0, 1
_PSTATE_UNKNOWN = 32
_NVLINK_MAX_LINKS = 36
_MEMORY_V2 = 0x02000028  # nvmlMemory_v2: struct version of nvmlDeviceGetMemoryInfo_v2

_FI_DEV_MEMORY_TEMP = 82
_FI_DEV_NVLINK_LINK_COUNT = 91
_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138  # cumulative KiB per link (scopeId = link)
_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139
_ALL_LINKS = 0xFFFFFFFF  # scopeId UINT_MAX: the counter summed over every link (nvml.h)
_AGG_TX = (_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, _ALL_LINKS)
_AGG_RX = (_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, _ALL_LINKS)

_KIB = 1024

# nvmlValueType_t -> member of the c_nvmlValue_t union.
_VALUE_MEMBERS = {
    0: "dVal",
    1: "uiVal",
    2: "ulVal",
    3: "ullVal",
    4: "sllVal",
    5: "siVal",
    6: "usVal",
}

#: Clock event ("throttle") reason bits -> names, as ``nvidia-smi -q -d PERFORMANCE`` lists them.
CLOCK_EVENT_REASONS: dict[int, str] = {
    0x0001: "gpu_idle",
    0x0002: "applications_clocks_setting",
    0x0004: "sw_power_cap",
    0x0008: "hw_slowdown",
    0x0010: "sync_boost",
    0x0020: "sw_thermal_slowdown",
    0x0040: "hw_thermal_slowdown",
    0x0080: "hw_power_brake_slowdown",
    0x0100: "display_clock_setting",
}

_ARCHITECTURES = {
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
_COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}

# nvmlIntNvLinkDeviceType_t
_NVLINK_REMOTE_TYPES = {0x00: "gpu", 0x01: "ibmnpu", 0x02: "switch"}

# nvmlNvlinkVersion_t -> NVLink generation (1.0, 2.0, 2.2, 3.0, 3.1, 4.0, 5.0, 6.0).
_NVLINK_VERSIONS = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 6}

# nvmlGpuTopologyLevel_t -> the cell ``nvidia-smi topo -m`` prints.
_TOPOLOGY_LABELS = {0: "PIX", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}

# An NVMLError of these kinds will not go away by asking again: stop asking.
_PERMANENT = frozenset({_ERROR_NOT_SUPPORTED, _ERROR_FUNCTION_NOT_FOUND, _ERROR_INVALID_ARGUMENT})


def decode_clock_event_reasons(mask: int | None) -> tuple[str, ...]:
    """Names of the active clock event reasons in ``mask``, idle excluded.

    ``nvidia-smi -q -d PERFORMANCE`` "Clocks Event Reasons" (``Clocks Throttle Reasons``
    before driver 535). Unknown bits come back as ``"0x..."``.
    """
    if not mask:
        return ()
    names = []
    for bit in range(64):
        value = 1 << bit
        if not mask & value or value == 0x0001:
            continue
        names.append(CLOCK_EVENT_REASONS.get(value, f"0x{value:x}"))
    return tuple(names)


def topology_label(level: int | None) -> str | None:
    """``nvmlDeviceGetTopologyCommonAncestor`` level -> ``PIX``/``PXB``/``PHB``/``NODE``/``SYS``."""
    return None if level is None else _TOPOLOGY_LABELS.get(int(level))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    return str(value).strip() or None


def _bus_key(bus_id: Any) -> tuple[int, int, int, int] | None:
    """``00000000:18:00.0`` and ``0000:18:00.0`` -> (domain, bus, device, function)."""
    text = _text(bus_id)
    if not text:
        return None
    try:
        head, function = text.rsplit(".", 1)
        domain, bus, device = head.split(":")
        return int(domain, 16), int(bus, 16), int(device, 16), int(function, 16)
    except ValueError:
        return None


# --- Diagnostics ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Failure:
    """One field that failed on one device, the first time it failed."""

    device: int | None
    field: str
    kind: str  # "NotSupported", "NoPermission", "GpuIsLost", "FunctionNotFound", ...
    message: str


class Diagnostics:
    """Failures, each counted once per (device, field, error kind), like nvitop's libnvml.

    A field unsupported on a consumer card fails on every poll; the registry keeps one entry.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[int | None, str, str], Failure] = {}

    def record(self, device: int | None, field: str, kind: str, message: str = "") -> bool:
        """Note a failure; ``True`` the first time this (device, field, kind) is seen."""
        key = (device, field, kind)
        if key in self._seen:
            return False
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = Failure(device, field, kind, message)
            return True

    def failures(self) -> tuple[Failure, ...]:
        """Every distinct failure, in the order first seen."""
        with self._lock:
            return tuple(self._seen.values())

    def counts(self) -> dict[str, int]:
        """Number of distinct (device, field) failures per error kind."""
        out: dict[str, int] = {}
        for failure in self.failures():
            out[failure.kind] = out.get(failure.kind, 0) + 1
        return out

    def has(self, device: int | None, field: str, kind: str | None = None) -> bool:
        """Whether ``field`` failed on ``device`` (with ``kind``, when given)."""
        with self._lock:
            return any(
                d == device and f == field and (kind is None or k == kind) for d, f, k in self._seen
            )

    def summary(self) -> str:
        """One line per error kind: ``NotSupported: 12 (gpu0.ecc_volatile_corrected, ...)``."""
        by_kind: dict[str, list[str]] = {}
        for f in self.failures():
            device = "system" if f.device is None else f"gpu{f.device}"
            by_kind.setdefault(f.kind, []).append(f"{device}.{f.field}")
        lines = []
        for kind, places in sorted(by_kind.items()):
            shown = ", ".join(places[:6]) + (", ..." if len(places) > 6 else "")
            lines.append(f"{kind}: {len(places)} ({shown})")
        return "\n".join(lines)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

    def __len__(self) -> int:
        return len(self._seen)


# --- Per-device state ----------------------------------------------------------------------


class _GpuLost(Exception):
    """Internal: the device fell off the bus; abandon this device's poll."""


class _MissingFunction(Exception):
    """Internal: this pynvml has no such function (an older nvidia-ml-py)."""


@dataclass(slots=True)
class _LinkStatic:
    link: int
    active: bool | None = None
    version: int | None = None
    remote_type: str | None = None
    remote_pci_bus_id: str | None = None


@dataclass(slots=True)
class _Device:
    index: int
    handle: Any
    uuid: str | None = None
    bus_id: str | None = None
    lost: bool = False
    skip: set[str] = field(default_factory=set)  # fields that will never work here
    info: DeviceInfo | None = None
    num_fans: int = 0
    links: list[_LinkStatic] = field(default_factory=list)
    memory_v2: bool = True
    field_ids: list[tuple[int, int]] = field(default_factory=list)  # read every poll
    link_field_ids: list[tuple[int, int]] = field(default_factory=list)  # per-link counters
    nvlink_prev: tuple[float, dict[int, tuple[int | None, int | None]]] | None = None
    nvlink_total_prev: tuple[float, int | None, int | None] | None = None
    link_rates: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)  # rx, tx
    link_samples: tuple[NvLinkSample, ...] | None = None  # reused until a per-link read
    slow: dict[str, Any] = field(default_factory=dict)
    proc_util_ts: int = 0
    proc_util: dict[int, tuple[int, float | None, float | None]] = field(default_factory=dict)
    proc_samples: dict[int, ProcessSample] = field(default_factory=dict)  # reused while unchanged


_NO_INFO = ProcessInfo()

_LIVE_SOURCES: weakref.WeakSet[NvmlSource] = weakref.WeakSet()


@atexit.register
def _shutdown_all() -> None:
    for source in list(_LIVE_SOURCES):
        source.close()


_STATE_HINTS: dict[SourceState, tuple[str, str]] = {
    SourceState.LIBRARY_NOT_FOUND: (
        "NVIDIA driver library (libnvidia-ml.so.1 / nvml.dll) not found",
        "Install the NVIDIA driver. In a container, start it with the NVIDIA Container Toolkit "
        "(docker run --gpus all). Host metrics are still shown.",
    ),
    SourceState.DRIVER_NOT_LOADED: (
        "The NVIDIA kernel driver is not loaded",
        "Load it (sudo modprobe nvidia) or reboot after installing the driver; `nvidia-smi` "
        "should then list the GPUs. Host metrics are still shown.",
    ),
    SourceState.VERSION_MISMATCH: (
        "Driver/library version mismatch (NVML and the kernel module differ)",
        "Usually after a driver upgrade: reboot, or unload and reload the nvidia kernel modules.",
    ),
    SourceState.NO_PERMISSION: (
        "No permission to open the NVIDIA devices",
        "Check access to /dev/nvidia* (group membership, container device rules).",
    ),
    SourceState.NO_GPUS: (
        "The NVIDIA driver is loaded but reports no GPU",
        "Check `nvidia-smi -L`, CUDA_VISIBLE_DEVICES-style device masks and the container's "
        "device list. Host metrics are still shown.",
    ),
}


class NvmlSource:
    """Live telemetry from NVML: the :class:`~gpuprof.telemetry.source.TelemetrySource` for NVIDIA.

    ``nvml``: a pynvml-compatible module (default: :data:`pynvml`, imported lazily).
    ``clock``: monotonic seconds, used to turn counters into rates; ``wall_clock``: Unix time
    for :attr:`Snapshot.time_s`. Static facts are read once; ECC, retired pages, remapped rows,
    application clocks, the replay counter and NVLink link states every ``slow_interval_s``.
    """

    kind = SourceKind.NVML
    label = "NVML"

    def __init__(
        self,
        *,
        nvml: Any = None,
        host: HostSampler | None = None,
        processes: ProcessInfoCache | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        slow_interval_s: float = 10.0,
        diagnostics: Diagnostics | None = None,
    ) -> None:
        self._nv_override = nvml
        self._nv: Any = None
        self._host = host if host is not None else HostSampler(clock=clock)
        self._proc_cache = processes if processes is not None else ProcessInfoCache()
        self._clock = clock
        self._wall_clock = wall_clock
        self._slow_interval_s = slow_interval_s
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        self._lock = threading.RLock()
        self._started = False
        self._initialized = False  # nvmlInit succeeded and nvmlShutdown is owed
        self._base_status = SourceStatus()
        self._devices: list[_Device] = []
        self._system: SystemInfo | None = None
        self._topology: Topology | None = None
        self._process_permitted = True
        self._next_slow_s = float("-inf")
        self._error_cls: type[BaseException] = _MissingFunction
        self._fns: dict[str, Callable[..., Any]] = {}

    # -- init / shutdown --------------------------------------------------------------------

    def _start(self) -> bool:
        """Initialise NVML once (locked); ``True`` when GPUs can be queried."""
        if self._started:
            return self._base_status.state is SourceState.OK
        with self._lock:
            if not self._started:
                self._do_start()
                self._started = True
        return self._base_status.state is SourceState.OK

    def _fail(self, state: SourceState, detail: str = "") -> None:
        message, hint = _STATE_HINTS.get(state, ("NVML error", "See the diagnostics."))
        if detail:
            message = f"{message} ({detail})"
        self._base_status = SourceStatus(state=state, message=message, hint=hint)

    def _do_start(self) -> None:
        try:
            nv = self._nv_override if self._nv_override is not None else load_pynvml()
        except ImportError as exc:
            self._fail(SourceState.LIBRARY_NOT_FOUND, f"pynvml is not installed: {exc}")
            return
        self._nv = nv
        self._error_cls = nv.NVMLError
        try:
            nv.nvmlInit()
        except Exception as exc:  # NVMLError_*; anything else is an ERROR state, not a crash
            code = getattr(exc, "value", None) if isinstance(exc, self._error_cls) else None
            self.diagnostics.record(None, "nvmlInit", _kind(exc), str(exc))
            state = {
                _ERROR_LIBRARY_NOT_FOUND: SourceState.LIBRARY_NOT_FOUND,
                _ERROR_DRIVER_NOT_LOADED: SourceState.DRIVER_NOT_LOADED,
                _ERROR_LIB_RM_VERSION_MISMATCH: SourceState.VERSION_MISMATCH,
                _ERROR_NO_PERMISSION: SourceState.NO_PERMISSION,
            }.get(code if isinstance(code, int) else -1, SourceState.ERROR)
            self._fail(state, str(exc) if state is SourceState.ERROR else "")
            return
        self._initialized = True
        _LIVE_SOURCES.add(self)
        self._base_status = SourceStatus()
        count = self._sys_call("device_count", "nvmlDeviceGetCount")
        if not count:
            self._fail(SourceState.NO_GPUS)
            return
        for index in range(int(count)):
            self._devices.append(self._open_device(index))

    def close(self) -> None:
        """``nvmlShutdown`` if this source initialised NVML; a later call starts over."""
        with self._lock:
            if self._initialized and self._nv is not None:
                with contextlib.suppress(Exception):  # at exit: nothing useful to do
                    self._nv.nvmlShutdown()
            self._initialized = False
            self._started = False
            self._base_status = SourceStatus()
            self._process_permitted = True
            self._next_slow_s = float("-inf")
            self._fns = {}
            self._devices = []
            self._system = None
            self._topology = None
            _LIVE_SOURCES.discard(self)

    # -- the one query helper -----------------------------------------------------------------

    def _fn(self, name: str) -> Callable[..., Any]:
        fn = self._fns.get(name)
        if fn is None:
            fn = getattr(self._nv, name, None)
            if fn is None:

                def missing(*_args: Any, _name: str = name) -> Any:
                    raise _MissingFunction(_name)

                fn = missing
            self._fns[name] = fn
        return fn

    def _failed(self, dev: _Device | None, field: str, exc: BaseException) -> int | None:
        """Record ``exc`` for ``field``; raise :class:`_GpuLost` when the GPU is gone."""
        code = getattr(exc, "value", None) if isinstance(exc, self._error_cls) else None
        if isinstance(exc, _MissingFunction):
            code = _ERROR_FUNCTION_NOT_FOUND
        index = None if dev is None else dev.index
        self.diagnostics.record(index, field, _kind(exc), str(exc))
        if code == _ERROR_GPU_IS_LOST and dev is not None:
            raise _GpuLost(dev.index) from exc
        if dev is not None and code in _PERMANENT:
            dev.skip.add(field)
        return code if isinstance(code, int) else None

    def _get(self, dev: _Device, field: str, fn_name: str, *args: Any) -> Any:
        """``pynvml.<fn_name>(handle, *args)``, or ``None`` when it fails (counted once)."""
        if field in dev.skip:
            return None
        fn = self._fns.get(fn_name) or self._fn(fn_name)
        try:
            return fn(dev.handle, *args)
        except _GpuLost:
            raise
        except Exception as exc:  # one field never breaks a poll
            self._failed(dev, field, exc)
            return None

    def _sys_call(self, field: str, fn_name: str, *args: Any) -> Any:
        try:
            return self._fn(fn_name)(*args)
        except Exception as exc:
            self._failed(None, field, exc)
            return None

    # -- static facts -------------------------------------------------------------------------

    def _open_device(self, index: int) -> _Device:
        try:
            handle = self._fn("nvmlDeviceGetHandleByIndex")(index)
        except Exception as exc:
            # Lost, or unusable (e.g. no permission on this one device): its samples stay empty.
            self.diagnostics.record(index, "handle", _kind(exc), str(exc))
            lost = getattr(exc, "value", None) == _ERROR_GPU_IS_LOST
            return _Device(
                index=index,
                handle=None,
                lost=lost,
                info=DeviceInfo(index=index, name="Unknown GPU"),
            )
        dev = _Device(index=index, handle=handle)
        try:
            dev.info = self._read_info(dev)
            self._read_links(dev)
        except _GpuLost:
            dev.lost = True
            if dev.info is None:
                dev.info = DeviceInfo(index=index, name="Unknown GPU", uuid=dev.uuid)
        return dev

    def _read_info(self, dev: _Device) -> DeviceInfo:
        """Static facts (``nvidia-smi -q``): read once when the source starts."""
        g = self._get
        dev.uuid = _text(g(dev, "uuid", "nvmlDeviceGetUUID"))
        pci = g(dev, "pci_info", "nvmlDeviceGetPciInfo")
        dev.bus_id = _text(getattr(pci, "busId", None)) if pci is not None else None
        mem = self._memory(dev)
        cc = g(dev, "compute_capability", "nvmlDeviceGetCudaComputeCapability")
        constraints = g(
            dev, "power_limit_constraints", "nvmlDeviceGetPowerManagementLimitConstraints"
        )
        ecc_mode = g(dev, "ecc_mode", "nvmlDeviceGetEccMode")
        mig_mode = g(dev, "mig_mode", "nvmlDeviceGetMigMode")
        num_fans = g(dev, "fan_count", "nvmlDeviceGetNumFans")
        dev.num_fans = int(num_fans) if num_fans else 0
        arch = g(dev, "architecture", "nvmlDeviceGetArchitecture")
        compute_mode = g(dev, "compute_mode", "nvmlDeviceGetComputeMode")
        mig_current = _flag(mig_mode[0]) if mig_mode is not None else None
        nvlink_count = self._nvlink_count(dev, mig_current)
        # One nvmlDeviceGetFieldValues call per poll: memory temperature and the NVLink data
        # counters summed over all links; the per-link counters join it on the slow cadence.
        dev.field_ids = [(_FI_DEV_MEMORY_TEMP, 0)]
        if nvlink_count:
            dev.field_ids += [_AGG_TX, _AGG_RX]
        dev.link_field_ids = []
        for link in range(nvlink_count):
            dev.link_field_ids.append((_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, link))
            dev.link_field_ids.append((_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, link))
        return DeviceInfo(
            index=dev.index,
            name=_text(g(dev, "name", "nvmlDeviceGetName")) or "Unknown GPU",
            uuid=dev.uuid,
            pci_bus_id=dev.bus_id,
            serial=_text(g(dev, "serial", "nvmlDeviceGetSerial")),
            vbios_version=_text(g(dev, "vbios_version", "nvmlDeviceGetVbiosVersion")),
            board_part_number=_text(g(dev, "board_part_number", "nvmlDeviceGetBoardPartNumber")),
            architecture=None if arch is None else _ARCHITECTURES.get(int(arch), "Unknown"),
            compute_capability=None if cc is None else (int(cc[0]), int(cc[1])),
            memory_total_bytes=None if mem is None else int(mem.total),
            graphics_clock_max_mhz=_int(
                g(dev, "graphics_clock_max", "nvmlDeviceGetMaxClockInfo", _CLOCK_GRAPHICS)
            ),
            sm_clock_max_mhz=_int(g(dev, "sm_clock_max", "nvmlDeviceGetMaxClockInfo", _CLOCK_SM)),
            mem_clock_max_mhz=_int(
                g(dev, "mem_clock_max", "nvmlDeviceGetMaxClockInfo", _CLOCK_MEM)
            ),
            video_clock_max_mhz=_int(
                g(dev, "video_clock_max", "nvmlDeviceGetMaxClockInfo", _CLOCK_VIDEO)
            ),
            power_default_limit_w=_milli(
                g(dev, "power_default_limit", "nvmlDeviceGetPowerManagementDefaultLimit")
            ),
            power_min_limit_w=None if constraints is None else constraints[0] / 1000.0,
            power_max_limit_w=None if constraints is None else constraints[1] / 1000.0,
            temp_slowdown_c=_float(
                g(dev, "temp_slowdown", "nvmlDeviceGetTemperatureThreshold", _THRESHOLD_SLOWDOWN)
            ),
            temp_shutdown_c=_float(
                g(dev, "temp_shutdown", "nvmlDeviceGetTemperatureThreshold", _THRESHOLD_SHUTDOWN)
            ),
            temp_max_operating_c=_float(
                g(
                    dev,
                    "temp_max_operating",
                    "nvmlDeviceGetTemperatureThreshold",
                    _THRESHOLD_GPU_MAX,
                )
            ),
            pcie_gen_max=_int(g(dev, "pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")),
            pcie_width_max=_int(g(dev, "pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")),
            nvlink_count=nvlink_count,
            fan_count=dev.num_fans,
            ecc_mode_current=None if ecc_mode is None else _flag(ecc_mode[0]),
            ecc_mode_pending=None if ecc_mode is None else _flag(ecc_mode[1]),
            mig_mode_current=mig_current,
            mig_mode_pending=None if mig_mode is None else _flag(mig_mode[1]),
            mig_devices=self._mig_devices(dev) if mig_current else (),
            compute_mode=None
            if compute_mode is None
            else _COMPUTE_MODES.get(int(compute_mode), str(compute_mode)),
            persistence_mode=_flag(g(dev, "persistence_mode", "nvmlDeviceGetPersistenceMode")),
            display_active=_flag(g(dev, "display_active", "nvmlDeviceGetDisplayActive")),
            multi_gpu_board=_flag(g(dev, "multi_gpu_board", "nvmlDeviceGetMultiGpuBoard")),
        )

    def _nvlink_count(self, dev: _Device, mig_enabled: bool | None) -> int:
        """Links of this GPU: the NVLINK_LINK_COUNT field, else probe link states.

        ``nvidia-smi nvlink -s`` says "Nvlink queries are not supported for Devices in MIG
        mode": a MIG parent gets no links.
        """
        if mig_enabled:
            return 0
        values = self._field_values(
            dev, "nvlink_count", [(_FI_DEV_NVLINK_LINK_COUNT, 0)], prune=False
        )
        if values and values[0][1] is not None:
            count = int(values[0][1])
        else:
            count = 0
            fn = self._fn("nvmlDeviceGetNvLinkState")
            for link in range(_NVLINK_MAX_LINKS):
                try:
                    fn(dev.handle, link)
                except Exception as exc:
                    if count == 0:
                        self._failed(dev, "nvlink_state", exc)
                    break
                count += 1
        count = min(count, _NVLINK_MAX_LINKS)
        dev.links = [_LinkStatic(link) for link in range(count)]
        return count

    def _read_links(self, dev: _Device) -> None:
        """Per-link state, version and far end (``nvidia-smi nvlink -s`` / ``-R``)."""
        g = self._get
        for link in dev.links:
            n = link.link
            link.active = _flag(g(dev, f"nvlink{n}.state", "nvmlDeviceGetNvLinkState", n))
            version = g(dev, f"nvlink{n}.version", "nvmlDeviceGetNvLinkVersion", n)
            link.version = None if version is None else _NVLINK_VERSIONS.get(int(version))
            remote = g(dev, f"nvlink{n}.remote_type", "nvmlDeviceGetNvLinkRemoteDeviceType", n)
            link.remote_type = None if remote is None else _NVLINK_REMOTE_TYPES.get(int(remote))
            pci = g(dev, f"nvlink{n}.remote_pci", "nvmlDeviceGetNvLinkRemotePciInfo", n)
            link.remote_pci_bus_id = _text(getattr(pci, "busId", None)) if pci is not None else None
        dev.link_samples = None

    def _mig_devices(self, dev: _Device) -> tuple[MigDeviceInfo, ...]:
        """MIG instances of a parent GPU (``nvidia-smi -L`` MIG lines + their FB memory)."""
        count = self._get(dev, "mig_device_count", "nvmlDeviceGetMaxMigDeviceCount")
        out: list[MigDeviceInfo] = []
        for slot in range(int(count or 0)):
            try:
                mig = self._fn("nvmlDeviceGetMigDeviceHandleByIndex")(dev.handle, slot)
            except Exception as exc:
                if getattr(exc, "value", None) != _ERROR_NOT_FOUND:  # empty slot: normal
                    self._failed(dev, "mig_handle", exc)
                continue
            sub = _Device(index=dev.index, handle=mig)
            mem = self._memory(sub, field_prefix="mig_")
            out.append(
                MigDeviceInfo(
                    index=len(out),
                    name=_text(self._get(sub, "mig_name", "nvmlDeviceGetName")) or "MIG device",
                    uuid=_text(self._get(sub, "mig_uuid", "nvmlDeviceGetUUID")),
                    memory_total_bytes=None if mem is None else int(mem.total),
                    memory_used_bytes=None if mem is None else int(mem.used),
                    gpu_instance_id=_int(self._get(sub, "mig_gi", "nvmlDeviceGetGpuInstanceId")),
                    compute_instance_id=_int(
                        self._get(sub, "mig_ci", "nvmlDeviceGetComputeInstanceId")
                    ),
                )
            )
        return tuple(out)

    def _memory(self, dev: _Device, field_prefix: str = "") -> Any:
        """``nvmlDeviceGetMemoryInfo_v2`` (with reserved memory) where the driver has it, else v1."""
        field_name = field_prefix + "memory"
        if dev.memory_v2 and field_name not in dev.skip:
            try:
                return self._fn("nvmlDeviceGetMemoryInfo")(dev.handle, _MEMORY_V2)
            except _GpuLost:
                raise
            except Exception as exc:
                code = getattr(exc, "value", None)
                if isinstance(exc, TypeError | _MissingFunction) or code in (
                    _ERROR_FUNCTION_NOT_FOUND,
                    _ERROR_ARGUMENT_VERSION_MISMATCH,
                    _ERROR_NOT_SUPPORTED,
                ):
                    dev.memory_v2 = False  # old driver or old pynvml: v1 below
                else:
                    self._failed(dev, field_name, exc)
                    return None
        return self._get(dev, field_name, "nvmlDeviceGetMemoryInfo")

    def _field_values(
        self, dev: _Device, field: str, ids: Sequence[tuple[int, int]], *, prune: bool = True
    ) -> list[tuple[tuple[int, int], float | int | None]]:
        """``nvmlDeviceGetFieldValues`` in one call; a failing field is ``None``.

        With ``prune``, a field that can never work here is dropped from ``dev.field_ids``.
        """
        ids = list(ids)
        raw = self._get(dev, field, "nvmlDeviceGetFieldValues", ids)
        if raw is None:
            return [(i, None) for i in ids]
        out: list[tuple[tuple[int, int], float | int | None]] = []
        for fid, entry in zip(ids, raw, strict=False):
            ret = int(getattr(entry, "nvmlReturn", 0))
            if ret != 0:
                if ret == _ERROR_GPU_IS_LOST:
                    raise _GpuLost(dev.index)
                kind = _kind_from_code(self._error_cls, ret)
                self.diagnostics.record(dev.index, _field_name(fid), kind, "")
                if prune and ret in _PERMANENT:
                    for kept in (dev.field_ids, dev.link_field_ids):
                        if fid in kept:
                            kept.remove(fid)
                out.append((fid, None))
                continue
            member = _VALUE_MEMBERS.get(int(getattr(entry, "valueType", 3)), "ullVal")
            out.append((fid, getattr(entry.value, member)))
        return out

    # -- the TelemetrySource protocol ---------------------------------------------------------

    def status(self) -> SourceStatus:
        """The backend state, with a message and a hint for the user."""
        self._start()
        base = self._base_status
        if base.state is not SourceState.OK:
            return base
        lost = tuple(d.index for d in self._devices if d.lost)
        if lost:
            names = ", ".join(str(i) for i in lost)
            return SourceStatus(
                state=SourceState.GPU_LOST,
                message=f"GPU {names} fell off the bus (NVML: GPU is lost)",
                hint="Check `nvidia-smi` and the kernel log (Xid 79); a GPU reset or a reboot "
                "brings it back. The other GPUs keep updating.",
                process_info_permitted=self._process_permitted,
                lost_gpus=lost,
            )
        if not self._process_permitted:
            return SourceStatus(
                state=SourceState.NO_PERMISSION,
                message="Not permitted to list the processes using the GPUs",
                hint="Run as root or as the user owning the processes; every other metric "
                "keeps updating.",
                process_info_permitted=False,
            )
        return base

    def system_info(self) -> SystemInfo:
        """Driver, CUDA driver and NVML versions (``nvidia-smi`` banner) plus the host."""
        ok = self._start()
        with self._lock:
            if self._system is not None:
                return self._system
            info = self._host.system_info()
            if ok or self._initialized:
                cuda = self._sys_call("cuda_driver_version", "nvmlSystemGetCudaDriverVersion")
                info = replace(
                    info,
                    driver_version=_text(
                        self._sys_call("driver_version", "nvmlSystemGetDriverVersion")
                    ),
                    cuda_driver_version=None
                    if not cuda
                    else f"{int(cuda) // 1000}.{int(cuda) % 1000 // 10}",
                    nvml_version=_text(self._sys_call("nvml_version", "nvmlSystemGetNVMLVersion")),
                )
            self._system = info
            return info

    def devices(self) -> tuple[DeviceInfo, ...]:
        """Static facts per GPU (``nvidia-smi -q``), MIG instances included."""
        if not self._start():
            return ()
        return tuple(d.info for d in self._devices if d.info is not None)

    def topology(self) -> Topology:
        """GPU×GPU links as ``nvidia-smi topo -m`` prints them.

        ``NV<n>``: n active NVLinks between the pair, counted from each link's remote PCI bus
        id, or through NVSwitches when both GPUs have active links to a switch. Otherwise the
        PCIe common ancestor (``nvmlDeviceGetTopologyCommonAncestor``).
        """
        if not self._start():
            return Topology()
        with self._lock:
            if self._topology is None:
                self._topology = self._build_topology()
            return self._topology

    def _build_topology(self) -> Topology:
        devs = self._devices
        by_bus = {_bus_key(d.bus_id): d.index for d in devs if d.bus_id}
        direct: dict[tuple[int, int], int] = {}
        switch_links: dict[int, int] = {}
        for d in devs:
            for link in d.links:
                if not link.active:
                    continue
                peer = by_bus.get(_bus_key(link.remote_pci_bus_id))
                if peer is not None and link.remote_type in (None, "gpu") and peer != d.index:
                    direct[(d.index, peer)] = direct.get((d.index, peer), 0) + 1
                elif link.remote_type == "switch" or (link.remote_type is None and peer is None):
                    switch_links[d.index] = switch_links.get(d.index, 0) + 1
        matrix: list[tuple[str | None, ...]] = []
        for a in devs:
            row: list[str | None] = []
            for b in devs:
                if a.index == b.index:
                    row.append("X")
                    continue
                n = direct.get((a.index, b.index), 0) or direct.get((b.index, a.index), 0)
                if not n and a.index in switch_links and b.index in switch_links:
                    n = min(switch_links[a.index], switch_links[b.index])
                if n:
                    row.append(f"NV{n}")
                elif a.lost or b.lost:
                    row.append(None)
                else:
                    try:
                        level = self._fn("nvmlDeviceGetTopologyCommonAncestor")(a.handle, b.handle)
                    except Exception as exc:
                        try:
                            self._failed(a, "topology", exc)
                        except _GpuLost:
                            a.lost = True
                        level = None
                    row.append(topology_label(level))
            matrix.append(tuple(row))
        return Topology(gpu_indices=tuple(d.index for d in devs), matrix=tuple(matrix))

    def poll(self) -> Snapshot:
        """One :class:`Snapshot`: host, every GPU, every GPU process. Never raises for a field."""
        ok = self._start()
        host = self._host.sample()
        wall = self._wall_clock()
        if not ok:
            return Snapshot(time_s=wall, source=SourceKind.NONE, host=host, status=self.status())
        with self._lock:
            now = self._clock()
            slow = now >= self._next_slow_s
            if slow:
                self._next_slow_s = now + self._slow_interval_s
            gpus: list[GpuSample] = []
            raw_procs: list[tuple[_Device, dict[int, tuple[str, int | None]]]] = []
            for dev in self._devices:
                gpus.append(self._sample(dev, now, slow))
                if not dev.lost and dev.handle is not None:
                    raw_procs.append((dev, self._processes(dev)))
            processes = self._process_samples(raw_procs)
        return Snapshot(
            time_s=wall,
            source=SourceKind.NVML,
            host=host,
            gpus=tuple(gpus),
            processes=processes,
            status=self.status(),
        )

    # -- per-poll reads -----------------------------------------------------------------------

    def _sample(self, dev: _Device, now: float, slow: bool) -> GpuSample:
        if dev.lost or dev.handle is None:
            return GpuSample(index=dev.index, uuid=dev.uuid, lost=dev.lost)
        try:
            return self._read_sample(dev, now, slow)
        except _GpuLost:
            dev.lost = True
            self._topology = None
            return GpuSample(index=dev.index, uuid=dev.uuid, lost=True)

    def _read_sample(self, dev: _Device, now: float, slow: bool) -> GpuSample:
        g = self._get
        if slow:
            self._read_slow(dev)
        util = g(dev, "util", "nvmlDeviceGetUtilizationRates")
        enc = g(dev, "util_enc", "nvmlDeviceGetEncoderUtilization")
        dec = g(dev, "util_dec", "nvmlDeviceGetDecoderUtilization")
        mem = self._memory(dev)
        pstate = g(dev, "pstate", "nvmlDeviceGetPerformanceState")
        reasons = g(dev, "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons")
        if reasons is None and "clock_event_reasons" in dev.skip:
            reasons = g(dev, "clock_throttle_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
        energy = g(dev, "energy", "nvmlDeviceGetTotalEnergyConsumption")
        rx = g(dev, "pcie_rx", "nvmlDeviceGetPcieThroughput", _PCIE_UTIL_RX_BYTES)
        tx = g(dev, "pcie_tx", "nvmlDeviceGetPcieThroughput", _PCIE_UTIL_TX_BYTES)
        fans = tuple(
            _float(g(dev, f"fan{i}", "nvmlDeviceGetFanSpeed_v2", i)) for i in range(dev.num_fans)
        )

        # Per-link counters every poll only where the all-links sum is not available.
        per_link = bool(dev.links) and (slow or _AGG_TX not in dev.field_ids)
        ids = dev.field_ids + dev.link_field_ids if per_link else dev.field_ids
        values = dict(self._field_values(dev, "field_values", ids)) if ids else {}
        nvlinks, link_rx, link_tx = self._nvlink_samples(dev, now, values, per_link)
        slow_values = dev.slow
        return GpuSample(
            index=dev.index,
            uuid=dev.uuid,
            util_gpu_pct=None if util is None else float(util.gpu),
            util_mem_pct=None if util is None else float(util.memory),
            util_enc_pct=None if enc is None else float(enc[0]),
            util_dec_pct=None if dec is None else float(dec[0]),
            mem_total_bytes=None if mem is None else int(mem.total),
            mem_used_bytes=None if mem is None else int(mem.used),
            mem_free_bytes=None if mem is None else int(mem.free),
            mem_reserved_bytes=_int(getattr(mem, "reserved", None)) if mem is not None else None,
            clock_graphics_mhz=_float(
                g(dev, "clock_graphics", "nvmlDeviceGetClockInfo", _CLOCK_GRAPHICS)
            ),
            clock_sm_mhz=_float(g(dev, "clock_sm", "nvmlDeviceGetClockInfo", _CLOCK_SM)),
            clock_mem_mhz=_float(g(dev, "clock_mem", "nvmlDeviceGetClockInfo", _CLOCK_MEM)),
            clock_video_mhz=_float(g(dev, "clock_video", "nvmlDeviceGetClockInfo", _CLOCK_VIDEO)),
            clock_app_graphics_mhz=slow_values.get("clock_app_graphics_mhz"),
            clock_app_mem_mhz=slow_values.get("clock_app_mem_mhz"),
            pstate=None if pstate is None or int(pstate) == _PSTATE_UNKNOWN else int(pstate),
            power_w=_milli(g(dev, "power", "nvmlDeviceGetPowerUsage")),
            power_limit_w=_milli(g(dev, "power_limit", "nvmlDeviceGetPowerManagementLimit")),
            power_enforced_limit_w=_milli(
                g(dev, "power_enforced_limit", "nvmlDeviceGetEnforcedPowerLimit")
            ),
            energy_total_j=_milli(energy),
            temp_gpu_c=_float(g(dev, "temp_gpu", "nvmlDeviceGetTemperature", _TEMPERATURE_GPU)),
            temp_mem_c=_float(values.get((_FI_DEV_MEMORY_TEMP, 0))),
            fan_speed_pct=fans,
            throttle_mask=_int(reasons),
            throttle_reasons=decode_clock_event_reasons(_int(reasons)),
            pcie_gen=_int(g(dev, "pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration")),
            pcie_width=_int(g(dev, "pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")),
            pcie_rx_bytes_s=None if rx is None else float(rx) * _KIB,
            pcie_tx_bytes_s=None if tx is None else float(tx) * _KIB,
            pcie_replay_count=slow_values.get("pcie_replay_count"),
            nvlinks=nvlinks,
            nvlink_rx_bytes_s=link_rx,
            nvlink_tx_bytes_s=link_tx,
            ecc=slow_values.get("ecc"),
        )

    def _read_slow(self, dev: _Device) -> None:
        """Fields that change rarely: ECC, retirement/remapping, app clocks, replays, links."""
        g = self._get
        ecc = EccCounts(
            volatile_corrected=_int(
                g(
                    dev,
                    "ecc_volatile_corrected",
                    "nvmlDeviceGetTotalEccErrors",
                    _MEMORY_ERROR_CORRECTED,
                    _VOLATILE_ECC,
                )
            ),
            volatile_uncorrected=_int(
                g(
                    dev,
                    "ecc_volatile_uncorrected",
                    "nvmlDeviceGetTotalEccErrors",
                    _MEMORY_ERROR_UNCORRECTED,
                    _VOLATILE_ECC,
                )
            ),
            aggregate_corrected=_int(
                g(
                    dev,
                    "ecc_aggregate_corrected",
                    "nvmlDeviceGetTotalEccErrors",
                    _MEMORY_ERROR_CORRECTED,
                    _AGGREGATE_ECC,
                )
            ),
            aggregate_uncorrected=_int(
                g(
                    dev,
                    "ecc_aggregate_uncorrected",
                    "nvmlDeviceGetTotalEccErrors",
                    _MEMORY_ERROR_UNCORRECTED,
                    _AGGREGATE_ECC,
                )
            ),
            retired_pages_sbe=_len(
                g(dev, "retired_pages_sbe", "nvmlDeviceGetRetiredPages", _RETIRE_CAUSE_MULTIPLE_SBE)
            ),
            retired_pages_dbe=_len(
                g(dev, "retired_pages_dbe", "nvmlDeviceGetRetiredPages", _RETIRE_CAUSE_DBE)
            ),
            retired_pages_pending=_flag(
                g(dev, "retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus")
            ),
        )
        rows = g(dev, "remapped_rows", "nvmlDeviceGetRemappedRows")
        if rows is not None:
            ecc = replace(
                ecc,
                remapped_rows_correctable=int(rows[0]),
                remapped_rows_uncorrectable=int(rows[1]),
                remapped_rows_pending=bool(rows[2]),
                remapped_rows_failure=bool(rows[3]),
            )
        dev.slow = {
            "ecc": None if ecc == EccCounts() else ecc,
            "clock_app_graphics_mhz": _float(
                g(dev, "clock_app_graphics", "nvmlDeviceGetApplicationsClock", _CLOCK_GRAPHICS)
            ),
            "clock_app_mem_mhz": _float(
                g(dev, "clock_app_mem", "nvmlDeviceGetApplicationsClock", _CLOCK_MEM)
            ),
            "pcie_replay_count": _int(g(dev, "pcie_replay", "nvmlDeviceGetPcieReplayCounter")),
        }
        if dev.links:
            self._read_links(dev)

    def _nvlink_samples(
        self, dev: _Device, now: float, values: dict[tuple[int, int], Any], per_link: bool
    ) -> tuple[tuple[NvLinkSample, ...], float | None, float | None]:
        """NVLink rx/tx bytes/s from the cumulative KiB data counters, differenced over polls.

        The per-GPU totals come from the all-links counters on every poll; the per-link
        rates are averages since the previous per-link read (the slow cadence), or per poll
        on drivers without the all-links counters (``nvidia-smi nvlink -gt d``).
        """
        if not dev.links:
            return (), None, None
        if per_link:
            current = {
                link.link: (
                    _int(values.get((_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, link.link))),
                    _int(values.get((_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, link.link))),
                )
                for link in dev.links
            }
            prev = dev.nvlink_prev
            dev.nvlink_prev = (now, current)
            dt = None if prev is None else now - prev[0]
            for link in dev.links:
                rx = tx = None
                if prev is not None and dt is not None and dt > 0:
                    old_tx, old_rx = prev[1].get(link.link, (None, None))
                    new_tx, new_rx = current[link.link]
                    tx = _counter_rate(old_tx, new_tx, dt, _KIB)
                    rx = _counter_rate(old_rx, new_rx, dt, _KIB)
                dev.link_rates[link.link] = (rx, tx)
            dev.link_samples = None
        if dev.link_samples is None:
            # Immutable, so one tuple serves every snapshot until the next per-link read.
            dev.link_samples = tuple(
                NvLinkSample(
                    link=link.link,
                    active=link.active,
                    version=link.version,
                    remote_type=link.remote_type,
                    remote_pci_bus_id=link.remote_pci_bus_id,
                    rx_bytes_s=dev.link_rates.get(link.link, (None, None))[0],
                    tx_bytes_s=dev.link_rates.get(link.link, (None, None))[1],
                )
                for link in dev.links
            )
        samples = dev.link_samples
        if _AGG_TX in dev.field_ids or _AGG_RX in dev.field_ids:
            agg_tx, agg_rx = _int(values.get(_AGG_TX)), _int(values.get(_AGG_RX))
            prev_total = dev.nvlink_total_prev
            dev.nvlink_total_prev = (now, agg_tx, agg_rx)
            if prev_total is None or now <= prev_total[0]:
                return samples, None, None
            dt_total = now - prev_total[0]
            total_rx = _counter_rate(prev_total[2], agg_rx, dt_total, _KIB)
            total_tx = _counter_rate(prev_total[1], agg_tx, dt_total, _KIB)
            return samples, total_rx, total_tx
        rxs = [s.rx_bytes_s for s in samples if s.rx_bytes_s is not None]
        txs = [s.tx_bytes_s for s in samples if s.tx_bytes_s is not None]
        return samples, (sum(rxs) if rxs else None), (sum(txs) if txs else None)

    # -- processes ----------------------------------------------------------------------------

    def _processes(self, dev: _Device) -> dict[int, tuple[str, int | None]]:
        """pid -> (kind, GPU memory bytes) from the compute and graphics process lists."""
        out: dict[int, tuple[str, int | None]] = {}
        for kind, fn_name in (
            ("compute", "nvmlDeviceGetComputeRunningProcesses"),
            ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
        ):
            field_name = f"{kind}_processes"
            if field_name in dev.skip:
                continue
            try:
                procs = self._fn(fn_name)(dev.handle)
            except Exception as exc:
                try:
                    code = self._failed(dev, field_name, exc)
                except _GpuLost:
                    dev.lost = True
                    return {}
                if code == _ERROR_NO_PERMISSION:
                    self._process_permitted = False
                continue
            for p in procs or ():
                pid = int(p.pid)
                used = getattr(p, "usedGpuMemory", None)
                used = None if used is None else int(used)
                if pid in out:
                    old_kind, old_used = out[pid]
                    merged = "compute+graphics" if old_kind != kind else old_kind
                    out[pid] = (merged, old_used if old_used is not None else used)
                else:
                    out[pid] = (kind, used)
        if out:
            self._process_util(dev)
        return out

    def _process_util(self, dev: _Device) -> None:
        """Per-process SM / memory utilization (``nvidia-smi pmon``), newest sample per pid."""
        if "process_util" in dev.skip:
            return
        try:
            samples = self._fn("nvmlDeviceGetProcessUtilization")(dev.handle, dev.proc_util_ts)
        except Exception as exc:
            if getattr(exc, "value", None) == _ERROR_NOT_FOUND:
                return  # no new samples since the last poll: keep the previous ones
            try:
                code = self._failed(dev, "process_util", exc)
            except _GpuLost:
                dev.lost = True
                return
            if code == _ERROR_NO_PERMISSION:
                self._process_permitted = False
            return
        newest = dev.proc_util_ts
        for s in samples or ():
            ts = int(s.timeStamp)
            pid = int(s.pid)
            old = dev.proc_util.get(pid)
            if old is None or ts >= old[0]:
                dev.proc_util[pid] = (ts, _float(s.smUtil), _float(s.memUtil))
            newest = max(newest, ts)
        dev.proc_util_ts = newest

    def _process_samples(
        self, raw: list[tuple[_Device, dict[int, tuple[str, int | None]]]]
    ) -> tuple[ProcessSample, ...]:
        pids = [pid for _dev, procs in raw for pid in procs]
        infos = self._proc_cache.lookup(pids) if pids else {}
        out: list[ProcessSample] = []
        for dev, procs in raw:
            # Forget processes that left; a utilization sample older than 5 s is stale.
            for pid in [p for p in dev.proc_util if p not in procs]:
                del dev.proc_util[pid]
            previous, dev.proc_samples = dev.proc_samples, {}
            horizon = dev.proc_util_ts - 5_000_000
            for pid, (kind, used) in procs.items():
                info = infos.get(pid) or _NO_INFO
                util = dev.proc_util.get(pid)
                sm = mem = None
                if util is not None and util[0] >= horizon:
                    sm, mem = util[1], util[2]
                sample = previous.get(pid)
                if sample is None or (
                    sample.kind,
                    sample.gpu_mem_bytes,
                    sample.sm_util_pct,
                    sample.mem_util_pct,
                    sample.name,
                    sample.cmdline,
                ) != (kind, used, sm, mem, info.name, info.cmdline):
                    sample = ProcessSample(
                        pid=pid,
                        gpu_index=dev.index,
                        kind=kind,
                        gpu_mem_bytes=used,
                        sm_util_pct=sm,
                        mem_util_pct=mem,
                        name=info.name,
                        user=info.user,
                        cmdline=info.cmdline,
                    )
                dev.proc_samples[pid] = sample
                out.append(sample)
        return tuple(out)


# --- small converters ----------------------------------------------------------------------


def _kind(exc: BaseException) -> str:
    """``NVMLError_NotSupported`` -> ``"NotSupported"``; other exceptions by class name."""
    if isinstance(exc, _MissingFunction):
        return "FunctionNotFound"
    name = type(exc).__name__
    if name.startswith("NVMLError_"):
        return name[len("NVMLError_") :]
    if name == "NVMLError":
        return f"NVMLError{getattr(exc, 'value', '')}"
    return name


def _field_name(fid: tuple[int, int]) -> str:
    field_id, scope = fid
    if field_id == _FI_DEV_MEMORY_TEMP:
        return "temp_mem"
    if field_id == _FI_DEV_NVLINK_LINK_COUNT:
        return "nvlink_count"
    link = "all" if scope == _ALL_LINKS else str(scope)
    if field_id == _FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
        return f"nvlink{link}.tx_counter"
    if field_id == _FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
        return f"nvlink{link}.rx_counter"
    return f"field{field_id}.{scope}"


def _kind_from_code(error_cls: Any, code: int) -> str:
    try:
        return _kind(error_cls(code))
    except Exception:
        return f"NVMLError{code}"


def _counter_rate(old: int | None, new: int | None, dt_s: float, scale: float) -> float | None:
    if old is None or new is None or new < old:
        return None  # first reading, failure, or a counter reset
    return (new - old) * scale / dt_s


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _milli(value: Any) -> float | None:
    """mW -> W, mJ -> J."""
    return None if value is None else float(value) / 1000.0


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(int(value))


def _len(value: Any) -> int | None:
    return None if value is None else len(value)
