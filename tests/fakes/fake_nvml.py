"""A fake of the pynvml surface that ``gpuprof/telemetry/nvml/source.py`` calls.

It mirrors pynvml exactly where the production code can tell the difference: the constants,
the ``NVMLError`` class hierarchy (``NVMLError(3)`` *is* an ``NVMLError_NotSupported``) and the
return structs are the real ones from the installed ``nvidia-ml-py``; only the driver behind
them is replaced by :class:`FakeBox` descriptions (see ``tests/fakes/devices.py``).

What a test can do to it:

* ``fake.inject("nvmlDeviceGetPowerUsage", error=NVML_ERROR_NOT_SUPPORTED, device=1, times=None)``
  makes a call fail (``device=None``: every device; ``times=None``: for ever).
* ``fake.lose_gpu(3)``: from now on every call on GPU 3 raises ``NVMLError_GPUIsLost``.
* ``stuck = fake.block("nvmlDeviceGetPowerUsage", device=0)``: the call hangs, like a driver
  in trouble, until ``stuck.release`` is set (``fake.release_all()``); ``stuck.entered`` is set
  when a caller is inside.
* ``fake.advance(1.0)``: one second passes: energy and NVLink byte counters advance by the
  rates in the description, process utilization samples get new timestamps.
* ``fake.clock()`` is the matching monotonic clock, for ``NvmlSource(clock=fake.clock)``.
* ``fake.gpm`` is GPM (``nvmlGpm*``, see ``tests/fakes/fake_gpm.py``): set what a GPU is
  doing in ``FakeDevice.gpm`` (a :class:`FakeGpmActivity`), let time pass, and the metrics
  computed from two samples follow; ``fake.gpm.outstanding()`` counts unfreed sample buffers.
* ``fake.self_time_s`` is the thread CPU time spent inside the fake (``perf/sampler.py``
  subtracts it), ``fake.calls`` counts calls per function, ``fake.unimplemented`` lists
  pynvml functions that the production code called but the fake does not implement.
"""

from __future__ import annotations

import functools
import threading
import time
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pynvml as _real

from tests.fakes.fake_gpm import FakeGpm, FakeGpmActivity

__all__ = [
    "Block",
    "FakeBox",
    "FakeDevice",
    "FakeGpmActivity",
    "FakeMigDevice",
    "FakeNvLink",
    "FakeNvml",
    "FakeProcess",
    "Injection",
    "mib",
]

# Everything the production code may read off the module besides functions: NVML_* constants,
# clock event / throttle reason bits, struct versions, the NVMLError classes.
_PUBLIC_DATA = {
    name: getattr(_real, name)
    for name in dir(_real)
    if name.startswith(("NVML_", "nvmlClocks", "NVMLError", "c_nvmlGpm"))
    or name in {"nvmlMemory_v2", "nvmlTemperature_v1", "nvmlFriendlyObject"}
}

NVMLError = _real.NVMLError
NOT_SUPPORTED = _real.NVML_ERROR_NOT_SUPPORTED


def mib(n: float) -> int:
    """MiB -> bytes (nvidia-smi prints memory in MiB)."""
    return int(n * 1024 * 1024)


# --- device descriptions ---------------------------------------------------------------------


@dataclass
class FakeProcess:
    """A process on a GPU, as the process lists and ``pmon`` report it."""

    pid: int
    used_memory_bytes: int | None = None  # None: WDDM-style "not available"
    kind: str = "compute"  # "compute", "graphics" or "compute+graphics"
    sm_util_pct: int | None = None  # None: no utilization samples for this process
    mem_util_pct: int | None = None
    gpu_instance_id: int = 0xFFFFFFFF
    compute_instance_id: int = 0xFFFFFFFF


@dataclass
class FakeNvLink:
    """One NVLink: its far end and the traffic it carries (bytes/s, for the counters)."""

    remote_pci_bus_id: str
    remote_type: int = _real.NVML_NVLINK_DEVICE_TYPE_SWITCH
    active: bool = True
    version: int = _real.NVML_NVLINK_VERSION_4_0
    tx_bytes_s: float = 0.0
    rx_bytes_s: float = 0.0
    tx_kib: int = 0  # cumulative counters (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX, KiB)
    rx_kib: int = 0


@dataclass
class FakeMigDevice:
    """One MIG instance (``nvidia-smi -L`` MIG line + its FB memory)."""

    profile: str  # "1g.20gb"
    uuid: str
    memory_total_bytes: int
    memory_used_bytes: int
    gpu_instance_id: int
    compute_instance_id: int = 0
    gpm: FakeGpmActivity = field(default_factory=FakeGpmActivity)  # this GPU instance's activity


@dataclass
class FakeDevice:
    """One GPU. ``None`` for a field means NVML answers NVML_ERROR_NOT_SUPPORTED."""

    name: str
    uuid: str
    pci_bus_id: str
    pci_device_id: int = 0
    pci_subsystem_id: int = 0
    serial: str | None = None
    vbios_version: str | None = None
    board_part_number: str | None = None
    architecture: int | None = None
    compute_capability: tuple[int, int] | None = None
    memory_total_bytes: int = 0
    memory_reserved_bytes: int = 0
    memory_used_bytes: int = 0
    memory_v2: bool = True  # nvmlDeviceGetMemoryInfo_v2 (reserved memory) available
    util_gpu_pct: int | None = 0
    util_mem_pct: int | None = 0
    util_enc_pct: int | None = 0
    util_dec_pct: int | None = 0
    clocks_mhz: dict[int, int] = field(default_factory=dict)  # NVML_CLOCK_* -> current
    max_clocks_mhz: dict[int, int] = field(default_factory=dict)
    app_clocks_mhz: dict[int, int] = field(default_factory=dict)
    pstate: int | None = 0
    power_mw: int | None = None
    power_limit_mw: int | None = None
    power_default_limit_mw: int | None = None
    power_enforced_limit_mw: int | None = None
    power_min_limit_mw: int | None = None
    power_max_limit_mw: int | None = None
    energy_mj: int | None = 0
    temp_c: int | None = None
    mem_temp_c: int | None = None
    thresholds_c: dict[int, int] = field(default_factory=dict)  # NVML_TEMPERATURE_THRESHOLD_*
    fan_speeds_pct: list[int] | None = None  # None: no fans (data-center boards)
    clocks_event_reasons: int | None = 0
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    pcie_tx_kb_s: int | None = 0
    pcie_rx_kb_s: int | None = 0
    pcie_replay: int | None = 0
    nvlinks: list[FakeNvLink] | None = None  # None: no NVLink at all (NotSupported)
    nvlink_all_links_counters: bool = True  # scopeId UINT_MAX sums the links (newer drivers)
    ecc_mode: tuple[int, int] | None = None
    # (NVML_MEMORY_ERROR_TYPE_*, NVML_VOLATILE_ECC/NVML_AGGREGATE_ECC) -> count; None: N/A
    ecc_errors: dict[tuple[int, int], int] | None = None
    retired_pages: dict[int, list[int]] | None = None  # cause -> page addresses
    retired_pages_pending: int | None = None
    remapped_rows: tuple[int, int, int, int] | None = None
    mig_mode: tuple[int, int] | None = None
    mig_devices: list[FakeMigDevice] = field(default_factory=list)
    max_mig_devices: int = 7
    compute_mode: int | None = 0
    persistence_mode: int | None = 1
    display_active: int | None = 0
    multi_gpu_board: int | None = 0
    processes: list[FakeProcess] = field(default_factory=list)
    gpm_supported: bool | None = None  # None: GPM from Hopper on (by ``architecture``)
    gpm: FakeGpmActivity = field(default_factory=FakeGpmActivity)  # what the SMs etc. are doing


@dataclass
class FakeBox:
    """A machine: driver versions, GPUs, and the PCIe tree between them."""

    name: str
    devices: list[FakeDevice]
    driver_version: str = "550.127.05"
    cuda_driver_version: int = 12040
    #: Empty: CUDA's major version and the driver's, as NVML reports it (12.550.127.05).
    nvml_version: str = ""
    # (i, j) -> NVML_TOPOLOGY_* for i < j; missing pairs get ``default_ancestor``.
    common_ancestor: dict[tuple[int, int], int] = field(default_factory=dict)
    default_ancestor: int = _real.NVML_TOPOLOGY_SYSTEM

    def __post_init__(self) -> None:
        if not self.nvml_version:
            self.nvml_version = f"{self.cuda_driver_version // 1000}.{self.driver_version}"


@dataclass
class Injection:
    """A failure to raise from ``function`` (on ``device``, or any device when ``None``)."""

    function: str
    error: int
    device: int | None = None
    times: int | None = None  # None: for ever


@dataclass
class Block:
    """A call to ``function`` (on ``device``, or any when ``None``) that waits for ``release``."""

    function: str
    device: int | None = None
    release: threading.Event = field(default_factory=threading.Event)
    entered: threading.Event = field(default_factory=threading.Event)  # a caller is waiting


@dataclass(frozen=True)
class _Handle:
    index: int
    mig: int | None = None  # MIG slot on the parent GPU


# --- the fake module ---------------------------------------------------------------------------


def _api(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Count the call, apply injections and lost GPUs, and time the fake's own work."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(self: FakeNvml, *args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            self.calls[name] += 1
            handle = args[0] if args and isinstance(args[0], _Handle) else None
            if (
                name not in {"nvmlInit", "nvmlInitWithFlags", "nvmlShutdown"}
                and not self.initialized
            ):
                raise NVMLError(_real.NVML_ERROR_UNINITIALIZED)
            if handle is not None and handle.index in self.lost:
                raise NVMLError(_real.NVML_ERROR_GPU_IS_LOST)
            if handle is not None:
                device: int | None = handle.index
            elif name == "nvmlDeviceGetHandleByIndex":
                device = args[0]
            elif name == "nvmlGpmMetricsGet" and args:
                device = self.gpm.device_of(args[0])  # the device its samples came from
            else:
                device = None
            if self.blocks:
                self._wait_if_blocked(name, device)
            self._check_injection(name, device)
            return fn(self, *args, **kwargs)
        finally:
            self.self_time_s += time.thread_time() - start

    wrapper.__fake_api__ = True  # type: ignore[attr-defined]
    return wrapper


class FakeNvml:
    """Stands in for the ``pynvml`` module; see the module docstring."""

    def __init__(self, box: FakeBox, *, start_s: float = 1000.0) -> None:
        self.__dict__.update(_PUBLIC_DATA)
        self.box = box
        self.now_s = start_s
        self.initialized = False
        self.init_count = 0
        self.shutdown_count = 0
        self.injections: list[Injection] = []
        self.blocks: list[Block] = []
        self.lost: set[int] = set()
        self.calls: Counter[str] = Counter()
        self.unimplemented: set[str] = set()
        self.self_time_s = 0.0
        self.gpm = FakeGpm()
        self.xid_queue: list[tuple[int, int]] = []  # (GPU index, XID) not yet delivered
        self.event_sets_supported = True

    # -- test controls ------------------------------------------------------------------------

    def inject(
        self, function: str, *, error: int, device: int | None = None, times: int | None = None
    ) -> Injection:
        """Make ``function`` raise ``NVMLError(error)``; see :class:`Injection`."""
        if not hasattr(type(self), function):
            raise AttributeError(f"the fake does not implement {function}")
        injection = Injection(function, error, device, times)
        self.injections.append(injection)
        return injection

    def clear_injections(self) -> None:
        self.injections.clear()

    def block(self, function: str, *, device: int | None = None) -> Block:
        """Make ``function`` hang until the returned block's ``release`` event is set."""
        if not hasattr(type(self), function):
            raise AttributeError(f"the fake does not implement {function}")
        stuck = Block(function, device)
        self.blocks.append(stuck)
        return stuck

    def release_all(self) -> None:
        """Let every blocked call return, and block no more."""
        for stuck in self.blocks:
            stuck.release.set()
        self.blocks.clear()

    def _wait_if_blocked(self, name: str, device: int | None) -> None:
        for stuck in list(self.blocks):
            if stuck.function == name and stuck.device in (None, device):
                stuck.entered.set()
                stuck.release.wait()  # no timeout: a stuck driver call never returns by itself

    def lose_gpu(self, index: int) -> None:
        """GPU ``index`` falls off the bus (Xid 79): every call on it raises GPUIsLost."""
        self.lost.add(index)

    def clock(self) -> float:
        """Monotonic seconds of the fake world."""
        return self.now_s

    def advance(self, seconds: float) -> None:
        """Let time pass: energy and NVLink counters advance at the described rates."""
        self.now_s += seconds
        for dev in self.box.devices:
            if dev.energy_mj is not None and dev.power_mw is not None:
                dev.energy_mj += int(dev.power_mw * seconds)
            for link in dev.nvlinks or ():
                if link.active:
                    link.tx_kib += int(link.tx_bytes_s * seconds / 1024)
                    link.rx_kib += int(link.rx_bytes_s * seconds / 1024)
        self.gpm.advance(self.box, seconds)

    def _check_injection(self, name: str, device: int | None) -> None:
        for inj in self.injections:
            if inj.function != name or (inj.device is not None and inj.device != device):
                continue
            if inj.times is not None:
                if inj.times <= 0:
                    continue
                inj.times -= 1
            raise NVMLError(inj.error)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not found normally: a pynvml function the fake lacks.
        if name.startswith("nvml") and hasattr(_real, name):
            self.unimplemented.add(name)

            def not_implemented(*_args: Any, **_kwargs: Any) -> Any:
                raise NVMLError(_real.NVML_ERROR_FUNCTION_NOT_FOUND)

            return not_implemented
        raise AttributeError(name)

    # -- helpers ------------------------------------------------------------------------------

    def _dev(self, handle: _Handle) -> FakeDevice:
        return self.box.devices[handle.index]

    def _mig(self, handle: _Handle) -> FakeMigDevice | None:
        if handle.mig is None:
            return None
        return self._dev(handle).mig_devices[handle.mig]

    @staticmethod
    def _need(value: Any) -> Any:
        if value is None:
            raise NVMLError(NOT_SUPPORTED)
        return value

    # -- init / system --------------------------------------------------------------------------

    @_api
    def nvmlInit(self) -> None:
        self.initialized = True
        self.init_count += 1

    @_api
    def nvmlShutdown(self) -> None:
        if not self.initialized:
            raise NVMLError(_real.NVML_ERROR_UNINITIALIZED)
        self.shutdown_count += 1
        self.initialized = self.shutdown_count < self.init_count

    @_api
    def nvmlSystemGetDriverVersion(self) -> str:
        return self.box.driver_version

    @_api
    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.box.cuda_driver_version

    @_api
    def nvmlSystemGetNVMLVersion(self) -> str:
        return self.box.nvml_version

    @_api
    def nvmlDeviceGetCount(self) -> int:
        return len(self.box.devices)

    @_api
    def nvmlDeviceGetHandleByIndex(self, index: int) -> _Handle:
        if not 0 <= index < len(self.box.devices):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        if index in self.lost:
            raise NVMLError(_real.NVML_ERROR_GPU_IS_LOST)
        return _Handle(index)

    # -- identity ---------------------------------------------------------------------------------

    @_api
    def nvmlDeviceGetName(self, handle: _Handle) -> str:
        mig = self._mig(handle)
        if mig is not None:
            return f"{self._dev(handle).name} MIG {mig.profile}"
        return self._dev(handle).name

    @_api
    def nvmlDeviceGetUUID(self, handle: _Handle) -> str:
        mig = self._mig(handle)
        return mig.uuid if mig is not None else self._dev(handle).uuid

    @_api
    def nvmlDeviceGetPciInfo(self, handle: _Handle) -> Any:
        dev = self._dev(handle)
        info = _real.nvmlPciInfo_t()
        domain, bus, rest = dev.pci_bus_id.split(":")
        info.busIdLegacy = dev.pci_bus_id[4:]
        info.busId = dev.pci_bus_id
        info.domain = int(domain, 16)
        info.bus = int(bus, 16)
        info.device = int(rest.split(".")[0], 16)
        info.pciDeviceId = dev.pci_device_id
        info.pciSubSystemId = dev.pci_subsystem_id
        return info

    @_api
    def nvmlDeviceGetSerial(self, handle: _Handle) -> str:
        return self._need(self._dev(handle).serial)

    @_api
    def nvmlDeviceGetVbiosVersion(self, handle: _Handle) -> str:
        return self._need(self._dev(handle).vbios_version)

    @_api
    def nvmlDeviceGetBoardPartNumber(self, handle: _Handle) -> str:
        return self._need(self._dev(handle).board_part_number)

    @_api
    def nvmlDeviceGetArchitecture(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).architecture)

    @_api
    def nvmlDeviceGetCudaComputeCapability(self, handle: _Handle) -> tuple[int, int]:
        return self._need(self._dev(handle).compute_capability)

    @_api
    def nvmlDeviceGetComputeMode(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).compute_mode)

    @_api
    def nvmlDeviceGetPersistenceMode(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).persistence_mode)

    @_api
    def nvmlDeviceGetDisplayActive(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).display_active)

    @_api
    def nvmlDeviceGetMultiGpuBoard(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).multi_gpu_board)

    # -- memory / utilization -------------------------------------------------------------------

    @_api
    def nvmlDeviceGetMemoryInfo(self, handle: _Handle, version: int | None = None) -> Any:
        dev = self._dev(handle)
        mig = self._mig(handle)
        if mig is not None:
            total, used, reserved = mig.memory_total_bytes, mig.memory_used_bytes, 0
        else:
            total, used, reserved = (
                dev.memory_total_bytes,
                dev.memory_used_bytes,
                dev.memory_reserved_bytes,
            )
        if version:
            if not dev.memory_v2:
                raise NVMLError(_real.NVML_ERROR_FUNCTION_NOT_FOUND)
            if version != _real.nvmlMemory_v2:
                raise NVMLError(_real.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
            mem = _real.c_nvmlMemory_v2_t()
            mem.version = version
            mem.total, mem.reserved, mem.used = total, reserved, used
            mem.free = total - reserved - used
            return mem
        mem1 = _real.c_nvmlMemory_t()
        # v1 counts reserved memory as used (nvidia-smi before 525 showed it that way).
        mem1.total, mem1.used = total, used + reserved
        mem1.free = total - used - reserved
        return mem1

    @_api
    def nvmlDeviceGetUtilizationRates(self, handle: _Handle) -> Any:
        dev = self._dev(handle)
        if dev.util_gpu_pct is None or dev.util_mem_pct is None:
            raise NVMLError(NOT_SUPPORTED)
        util = _real.c_nvmlUtilization_t()
        util.gpu, util.memory = dev.util_gpu_pct, dev.util_mem_pct
        return util

    @_api
    def nvmlDeviceGetEncoderUtilization(self, handle: _Handle) -> list[int]:
        return [self._need(self._dev(handle).util_enc_pct), 167000]

    @_api
    def nvmlDeviceGetDecoderUtilization(self, handle: _Handle) -> list[int]:
        return [self._need(self._dev(handle).util_dec_pct), 167000]

    # -- clocks / power / thermal -----------------------------------------------------------------

    @_api
    def nvmlDeviceGetClockInfo(self, handle: _Handle, clock_type: int) -> int:
        return self._need(self._dev(handle).clocks_mhz.get(clock_type))

    @_api
    def nvmlDeviceGetMaxClockInfo(self, handle: _Handle, clock_type: int) -> int:
        return self._need(self._dev(handle).max_clocks_mhz.get(clock_type))

    @_api
    def nvmlDeviceGetApplicationsClock(self, handle: _Handle, clock_type: int) -> int:
        return self._need(self._dev(handle).app_clocks_mhz.get(clock_type))

    @_api
    def nvmlDeviceGetPerformanceState(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pstate)

    @_api
    def nvmlDeviceGetPowerUsage(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).power_mw)

    @_api
    def nvmlDeviceGetPowerManagementLimit(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).power_limit_mw)

    @_api
    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).power_default_limit_mw)

    @_api
    def nvmlDeviceGetEnforcedPowerLimit(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).power_enforced_limit_mw)

    @_api
    def nvmlDeviceGetPowerManagementLimitConstraints(self, handle: _Handle) -> list[int]:
        dev = self._dev(handle)
        return [self._need(dev.power_min_limit_mw), self._need(dev.power_max_limit_mw)]

    @_api
    def nvmlDeviceGetTotalEnergyConsumption(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).energy_mj)

    @_api
    def nvmlDeviceGetTemperature(self, handle: _Handle, sensor: int) -> int:
        if sensor != _real.NVML_TEMPERATURE_GPU:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        return self._need(self._dev(handle).temp_c)

    @_api
    def nvmlDeviceGetTemperatureThreshold(self, handle: _Handle, threshold: int) -> int:
        return self._need(self._dev(handle).thresholds_c.get(threshold))

    @_api
    def nvmlDeviceGetNumFans(self, handle: _Handle) -> int:
        return len(self._need(self._dev(handle).fan_speeds_pct))

    @_api
    def nvmlDeviceGetFanSpeed_v2(self, handle: _Handle, fan: int) -> int:
        fans = self._need(self._dev(handle).fan_speeds_pct)
        if not 0 <= fan < len(fans):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        return fans[fan]

    @_api
    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).clocks_event_reasons)

    @_api
    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).clocks_event_reasons)

    # -- PCIe ---------------------------------------------------------------------------------------

    @_api
    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pcie_gen)

    @_api
    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pcie_gen_max)

    @_api
    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pcie_width)

    @_api
    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pcie_width_max)

    @_api
    def nvmlDeviceGetPcieThroughput(self, handle: _Handle, counter: int) -> int:
        dev = self._dev(handle)
        if counter == _real.NVML_PCIE_UTIL_TX_BYTES:
            return self._need(dev.pcie_tx_kb_s)
        if counter == _real.NVML_PCIE_UTIL_RX_BYTES:
            return self._need(dev.pcie_rx_kb_s)
        raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)

    @_api
    def nvmlDeviceGetPcieReplayCounter(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).pcie_replay)

    # -- NVLink ------------------------------------------------------------------------------------

    def _link(self, handle: _Handle, link: int) -> FakeNvLink:
        dev = self._dev(handle)
        if dev.nvlinks is None or (dev.mig_mode and dev.mig_mode[0]):
            raise NVMLError(NOT_SUPPORTED)
        if not 0 <= link < len(dev.nvlinks):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        return dev.nvlinks[link]

    @_api
    def nvmlDeviceGetNvLinkState(self, handle: _Handle, link: int) -> int:
        return int(self._link(handle, link).active)

    @_api
    def nvmlDeviceGetNvLinkVersion(self, handle: _Handle, link: int) -> int:
        return self._link(handle, link).version

    @_api
    def nvmlDeviceGetNvLinkRemoteDeviceType(self, handle: _Handle, link: int) -> int:
        return self._link(handle, link).remote_type

    @_api
    def nvmlDeviceGetNvLinkRemotePciInfo(self, handle: _Handle, link: int) -> Any:
        remote = self._link(handle, link).remote_pci_bus_id
        info = _real.nvmlPciInfo_t()
        info.busId = remote
        info.busIdLegacy = remote[4:]
        return info

    @_api
    def nvmlDeviceGetFieldValues(self, handle: _Handle, field_ids: list[Any]) -> Any:
        dev = self._dev(handle)
        values = (_real.c_nvmlFieldValue_t * len(field_ids))()
        for i, fid in enumerate(field_ids):
            field_id, scope = fid if isinstance(fid, tuple) else (fid, 0)
            entry = values[i]
            entry.fieldId, entry.scopeId = field_id, scope
            entry.timestamp = int(self.now_s * 1e6)
            entry.valueType = _real.NVML_VALUE_TYPE_UNSIGNED_LONG_LONG
            result = self._field(dev, field_id, scope)
            if result is None:
                entry.nvmlReturn = NOT_SUPPORTED
            elif isinstance(result, NVMLError):
                entry.nvmlReturn = result.value
            else:
                entry.nvmlReturn = _real.NVML_SUCCESS
                entry.value.ullVal = int(result)
        return values

    def _field(self, dev: FakeDevice, field_id: int, scope: int) -> int | NVMLError | None:
        migged = bool(dev.mig_mode and dev.mig_mode[0])
        if field_id == _real.NVML_FI_DEV_MEMORY_TEMP:
            return dev.mem_temp_c
        if field_id == _real.NVML_FI_DEV_NVLINK_LINK_COUNT:
            return None if dev.nvlinks is None or migged else len(dev.nvlinks)
        if field_id in (
            _real.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
            _real.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
        ):
            if dev.nvlinks is None or migged:
                return None
            tx = field_id == _real.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
            if scope == 0xFFFFFFFF and dev.nvlink_all_links_counters:
                return sum(link.tx_kib if tx else link.rx_kib for link in dev.nvlinks)
            if not 0 <= scope < len(dev.nvlinks):
                return NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
            link = dev.nvlinks[scope]
            return link.tx_kib if tx else link.rx_kib
        return None

    # -- ECC / retirement -----------------------------------------------------------------------

    @_api
    def nvmlDeviceGetEccMode(self, handle: _Handle) -> list[int]:
        return list(self._need(self._dev(handle).ecc_mode))

    @_api
    def nvmlDeviceGetTotalEccErrors(
        self, handle: _Handle, error_type: int, counter_type: int
    ) -> int:
        errors = self._need(self._dev(handle).ecc_errors)
        return errors.get((error_type, counter_type), 0)

    @_api
    def nvmlDeviceGetRetiredPages(self, handle: _Handle, cause: int) -> list[int]:
        pages = self._need(self._dev(handle).retired_pages)
        return list(pages.get(cause, []))

    @_api
    def nvmlDeviceGetRetiredPagesPendingStatus(self, handle: _Handle) -> int:
        return self._need(self._dev(handle).retired_pages_pending)

    @_api
    def nvmlDeviceGetRemappedRows(self, handle: _Handle) -> tuple[int, int, int, int]:
        return self._need(self._dev(handle).remapped_rows)

    # -- MIG ------------------------------------------------------------------------------------------

    @_api
    def nvmlDeviceGetMigMode(self, handle: _Handle) -> list[int]:
        return list(self._need(self._dev(handle).mig_mode))

    @_api
    def nvmlDeviceGetMaxMigDeviceCount(self, handle: _Handle) -> int:
        dev = self._dev(handle)
        self._need(dev.mig_mode)
        return dev.max_mig_devices

    @_api
    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: _Handle, index: int) -> _Handle:
        dev = self._dev(handle)
        if not (dev.mig_mode and dev.mig_mode[0]):
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        if not 0 <= index < len(dev.mig_devices):
            raise NVMLError(_real.NVML_ERROR_NOT_FOUND)
        return _Handle(handle.index, mig=index)

    def _mig_only(self, handle: _Handle) -> FakeMigDevice:
        """The MIG device of ``handle``; a whole GPU's handle is an invalid argument there."""
        mig = self._mig(handle)
        if mig is None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)
        return mig

    @_api
    def nvmlDeviceGetGpuInstanceId(self, handle: _Handle) -> int:
        return self._mig_only(handle).gpu_instance_id

    @_api
    def nvmlDeviceGetComputeInstanceId(self, handle: _Handle) -> int:
        return self._mig_only(handle).compute_instance_id

    # -- topology -------------------------------------------------------------------------------------

    @_api
    def nvmlDeviceGetTopologyCommonAncestor(self, a: _Handle, b: _Handle) -> int:
        if b.index in self.lost:
            raise NVMLError(_real.NVML_ERROR_GPU_IS_LOST)
        if a.index == b.index:
            return _real.NVML_TOPOLOGY_INTERNAL
        key = (min(a.index, b.index), max(a.index, b.index))
        return self.box.common_ancestor.get(key, self.box.default_ancestor)

    # -- processes ------------------------------------------------------------------------------------

    def _process_list(self, handle: _Handle, kind: str) -> list[Any]:
        out = []
        for p in self._dev(handle).processes:
            if kind not in p.kind:
                continue
            out.append(
                _real.nvmlFriendlyObject(
                    {
                        "pid": p.pid,
                        "usedGpuMemory": p.used_memory_bytes,
                        "gpuInstanceId": p.gpu_instance_id,
                        "computeInstanceId": p.compute_instance_id,
                    }
                )
            )
        return out

    @_api
    def nvmlDeviceGetComputeRunningProcesses(self, handle: _Handle) -> list[Any]:
        return self._process_list(handle, "compute")

    @_api
    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: _Handle) -> list[Any]:
        return self._process_list(handle, "graphics")

    # pynvml >= 11.5 names the current struct versions explicitly; same answers.
    nvmlDeviceGetComputeRunningProcesses_v3 = nvmlDeviceGetComputeRunningProcesses
    nvmlDeviceGetGraphicsRunningProcesses_v3 = nvmlDeviceGetGraphicsRunningProcesses

    @_api
    def nvmlDeviceGetProcessUtilization(self, handle: _Handle, timestamp: int) -> list[Any]:
        """Samples newer than ``timestamp`` (µs); NOT_FOUND when there are none, as NVML does."""
        return self._process_util(handle, timestamp, _real.c_nvmlProcessUtilizationSample_t)

    @_api
    def nvmlDeviceGetProcessesUtilizationInfo(self, handle: _Handle, timestamp: int) -> list[Any]:
        """The same samples in the newer struct; FUNCTION_NOT_FOUND before driver 550."""
        if int(self.box.driver_version.split(".")[0]) < 550:
            raise NVMLError(_real.NVML_ERROR_FUNCTION_NOT_FOUND)
        return self._process_util(handle, timestamp, _real.c_nvmlProcessUtilizationInfo_v1_t)

    def _process_util(self, handle: _Handle, timestamp: int, struct: Any) -> list[Any]:
        now_us = int(self.now_s * 1e6)
        if timestamp >= now_us:
            raise NVMLError(_real.NVML_ERROR_NOT_FOUND)
        samples = []
        for p in self._dev(handle).processes:
            if p.sm_util_pct is None:
                continue
            s = struct()
            s.pid, s.timeStamp = p.pid, now_us
            s.smUtil, s.memUtil = p.sm_util_pct, p.mem_util_pct or 0
            s.encUtil = s.decUtil = 0
            samples.append(s)
        if not samples:
            raise NVMLError(_real.NVML_ERROR_NOT_FOUND)
        return samples

    # -- GPM (tests/fakes/fake_gpm.py) ------------------------------------------------------------

    @_api
    def nvmlGpmQueryDeviceSupport(self, handle: _Handle) -> Any:
        return self.gpm.query_support(self._dev(handle))

    @_api
    def nvmlGpmSampleAlloc(self) -> Any:
        return self.gpm.alloc()

    @_api
    def nvmlGpmSampleFree(self, sample: Any) -> None:
        self.gpm.free(sample)

    @_api
    def nvmlGpmSampleGet(self, handle: _Handle, sample: Any) -> Any:
        if handle.mig is not None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)  # MIG: nvmlGpmMigSampleGet
        return self.gpm.sample(self._dev(handle), handle.index, None, sample, self.now_s)

    @_api
    def nvmlGpmMigSampleGet(self, handle: _Handle, gpu_instance_id: int, sample: Any) -> Any:
        if handle.mig is not None:
            raise NVMLError(_real.NVML_ERROR_INVALID_ARGUMENT)  # takes the parent GPU
        dev = self._dev(handle)
        return self.gpm.sample(dev, handle.index, int(gpu_instance_id), sample, self.now_s)

    @_api
    def nvmlGpmMetricsGet(self, request: Any) -> Any:
        return self.gpm.metrics(self.box, request, self.lost)

    # -- event sets (XID): emit_xid() queues one; nvmlEventSetWait_v2 delivers it ---------------

    nvmlEventTypeXidCriticalError = _real.nvmlEventTypeXidCriticalError

    def emit_xid(self, index: int, xid: int) -> None:
        """GPU ``index`` reports critical XID ``xid`` (e.g. 48: double-bit ECC error)."""
        self.xid_queue.append((index, xid))

    @_api
    def nvmlEventSetCreate(self) -> object:
        if not self.event_sets_supported:
            raise NVMLError(NOT_SUPPORTED)
        return object()

    @_api
    def nvmlDeviceRegisterEvents(self, handle: _Handle, kinds: int, event_set: object) -> None:
        if handle.mig is not None:
            raise NVMLError(NOT_SUPPORTED)

    @_api
    def nvmlEventSetWait_v2(self, event_set: object, timeout_ms: int) -> Any:
        if not self.xid_queue:
            time.sleep(min(timeout_ms, 20) / 1000)  # real time, but short: tests stay quick
            raise NVMLError(_real.NVML_ERROR_TIMEOUT)
        index, xid = self.xid_queue.pop(0)
        return types.SimpleNamespace(
            device=_Handle(index), eventType=self.nvmlEventTypeXidCriticalError, eventData=xid
        )

    @_api
    def nvmlEventSetFree(self, event_set: object) -> None:
        return None

    @_api
    def nvmlDeviceGetIndex(self, handle: _Handle) -> int:
        return handle.index
