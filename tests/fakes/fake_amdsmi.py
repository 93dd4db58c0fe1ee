"""A fake of the ``amdsmi`` Python API surface that ``gpuprof/telemetry/amd/`` calls.

The real module cannot even be imported without ``libamd_smi.so`` (it prints to stdout and
raises ``KeyError``: ``reference/amd/api.md`` §1), so tests put an instance of
:class:`FakeAmdSmi` into ``sys.modules["amdsmi"]`` (or into ``gpuprof.telemetry.amd.lib.amdsmi``)
and the production code imports it as if it were the real one.

It mirrors amdsmi 7.0.2 where the production code can tell the difference
(``reference/amd/api.md``, read from the PyPI wheel):

* functions take opaque processor handles from ``amdsmi_get_processor_handles()``;
* failures raise ``AmdSmiLibraryException`` with ``err_code`` (NOT_SUPPORTED=2, NO_PERM=10,
  NOT_INIT=32, ...); ``AmdSmiRetryException`` / ``AmdSmiTimeoutException`` subclass it;
* unsupported numbers come back as the string ``"N/A"`` (the Python layer maps its 0xFFFF /
  UINT_MAX sentinels to it);
* ``amdsmi_get_power_info()["power_limit"]`` and the power caps are microwatts
  (ROCm/amdsmi PR #174: MI325X ``power1_cap`` = 1000000000);
* MI200 reports ``average_socket_power`` and ``current_socket_power: "N/A"``; MI300 the
  reverse (ROCm/pytorch PR #1457);
* with ``wrapped=True`` numbers come back as ``{"value": N, "unit": "..."}``, as newer
  releases and the CLI's JSON do (``captures/radeon-pro-w7700-metric-u-json``).

The values are taken from the real captures in ``reference/amd/captures/`` where one exists
(the MI300X from ``mi300x-rocm-smi*.txt``, the MI210 from ``mi210-list/static``, the Radeon from
``radeon-pro-w7700-metric-u-json`` and ``radeon-unknown-metric``); the rest (marked "fixture"
below) are plausible test values, not measurements.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "BOXES",
    "FakeAmdBox",
    "FakeAmdGpu",
    "FakeAmdSmi",
    "FakeAmdProcess",
]

NA = "N/A"


# --- the exception and enum surface of amdsmi 7.0.2 ------------------------------------------


class AmdSmiException(Exception):
    pass


_STATUS_INFO = {
    1: "AMDSMI_STATUS_INVAL - Invalid parameters",
    2: "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported",
    10: "AMDSMI_STATUS_NO_PERM - Permission Denied",
    32: "AMDSMI_STATUS_NOT_INIT - Device not initialized",
    34: "AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded",
}


class AmdSmiLibraryException(AmdSmiException):
    def __init__(self, err_code: int) -> None:
        super().__init__(err_code)
        self.err_code = abs(err_code)
        self.err_info = _STATUS_INFO.get(self.err_code, "AMDSMI_STATUS_UNKNOWN_ERROR")

    def get_error_code(self) -> int:
        return self.err_code

    def __str__(self) -> str:
        return f"Error code:\n\t{self.err_code} | {self.err_info}"


class AmdSmiRetryException(AmdSmiLibraryException):
    def __init__(self) -> None:
        super().__init__(9)


class AmdSmiTimeoutException(AmdSmiLibraryException):
    def __init__(self) -> None:
        super().__init__(8)


class AmdSmiParameterException(AmdSmiException):
    err_code = None


class AmdSmiInitFlags(enum.IntEnum):
    INIT_AMD_CPUS = 1
    INIT_AMD_GPUS = 2
    INIT_AMD_APUS = 3


class AmdSmiClkType(enum.IntEnum):
    SYS = 0
    GFX = 0
    DF = 1
    DCEF = 2
    SOC = 3
    MEM = 4


class AmdSmiTemperatureType(enum.IntEnum):
    EDGE = 0
    HOTSPOT = 1
    JUNCTION = 1
    VRAM = 2


class AmdSmiTemperatureMetric(enum.IntEnum):
    CURRENT = 0
    MAX = 1
    CRITICAL = 5
    EMERGENCY = 7


class AmdSmiGpuBlock(enum.IntEnum):
    UMC = 1
    SDMA = 2
    GFX = 4
    MMHUB = 8
    ATHUB = 16
    PCIE_BIF = 32
    HDP = 64
    XGMI_WAFL = 128


class AmdSmiLinkType(enum.IntEnum):
    INTERNAL = 0
    PCIE = 1
    XGMI = 2
    NOT_APPLICABLE = 3
    UNKNOWN = 4


NOT_SUPPORTED, NO_PERM, NOT_INIT = 2, 10, 32


# --- device descriptions ----------------------------------------------------------------------


@dataclass
class FakeAmdProcess:
    """A process on one GPU (``amdsmi_get_gpu_process_list`` entry)."""

    pid: int
    name: str
    vram_bytes: int
    gfx_busy: float = 0.5  # share of wall time the GFX engine ran it: engine_usage.gfx grows


@dataclass
class FakeAmdGpu:
    """One AMD GPU (or one compute partition of one, as amdsmi lists them)."""

    market_name: str
    device_id: str
    gfx_version: str
    num_cu: int | str
    bdf: str
    uuid: str
    serial: str
    vbios: str
    vram_mb: int
    vram_used_mb: int
    vram_type: int = 7  # fixture: AmdSmiVramType HBM3
    vram_vendor: str = "samsung"
    gfx_activity: int | str = 0
    umc_activity: int | str = 0
    mm_activity: int | str = NA
    current_socket_power: int | str = NA
    average_socket_power: int | str = NA
    power_cap_uw: int = 750_000_000
    max_power_cap_uw: int = 750_000_000
    min_power_cap_uw: int = 0
    gfx_clk_mhz: int = 131
    gfx_max_mhz: int = 2100
    mem_clk_mhz: int = 900
    mem_max_mhz: int = 1300
    soc_clk_mhz: int | str = 30
    soc_max_mhz: int | str = 1143
    temp_edge_c: int | None = None  # None: NOT_SUPPORTED
    temp_hotspot_c: int | None = 35
    temp_vram_c: int | None = 33
    slowdown_hotspot_c: int | None = 100
    shutdown_hotspot_c: int | None = 110
    fan_pct: int | None = None  # None: NOT_SUPPORTED (Instinct boards have no fan)
    pcie_width: int = 16
    pcie_speed_mts: int = 32_000
    pcie_max_width: int = 16
    pcie_max_speed_mts: int = 32_000
    pcie_replay_count: int = 0
    xgmi_links: int = 0
    xgmi_read_kb_s: float = 0.0  # fixture rates the accumulators grow by
    xgmi_write_kb_s: float = 0.0
    ecc: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    violation: bool = True  # amdsmi_get_violation_status supported (MI300+)
    throttled_ppt: bool = False
    throttled_thermal: bool = False
    compute_partition: str | None = "SPX"
    memory_partition: str | None = "NPS1"
    energy_uj_per_s: float = 133e6  # energy accumulator rate (fixture, ~ the socket power)
    processes: list[FakeAmdProcess] = field(default_factory=list)


@dataclass
class FakeAmdBox:
    """A machine: its GPUs, driver and library versions."""

    name: str
    gpus: list[FakeAmdGpu]
    driver_version: str = "6.7.0"  # mi300x-rocm-smi-showallinfo.txt: "Driver version: 6.7.0"
    lib_version: tuple[int, int, int] = (25, 2, 0)
    wrapped: bool = False  # numbers as {"value": N, "unit": U} (newer amdsmi)


_MI300X_BUSES = ("26", "46", "66", "86", "a6", "c6", "e6", "06")  # GPU 0's from the capture


def _mi300x(i: int) -> FakeAmdGpu:
    # mi300x-rocm-smi.txt / -showallinfo.txt: junction 35/37/34/38 °C, socket 133/131/131/137 W,
    # cap 750 W, SPX/NPS1, sclk ~131 MHz idle of 2100, mclk 900 of 1300, socclk 30 of 1143 MHz,
    # memory 33 °C, VBIOS 113-MI3SRIOV-001, device 0x74a1, bus 0000:26:00.0 (GPU 0).
    temps = (35, 37, 34, 38)
    power = (133, 131, 131, 137)
    return FakeAmdGpu(
        market_name="AMD Instinct MI300X",
        device_id="0x74a1",
        gfx_version="gfx942",
        num_cu=304,
        bdf=f"0000:{_MI300X_BUSES[i]}:00.0",
        uuid=f"7bff74a1-0000-1000-80{i:02x}-8d1457e2c20f",
        serial=str(692347006052 + i),
        vbios="113-MI3SRIOV-001",
        vram_mb=196_592,  # fixture: 192 GiB HBM3 less the driver's reserve
        vram_used_mb=62_000 + 1_000 * i,  # fixture: a training job
        gfx_activity=97 - i,  # fixture load
        umc_activity=41,
        mm_activity=0,
        current_socket_power=power[i % 4] + 450,  # fixture load above the captured idle
        average_socket_power=NA,  # MI300: current only
        temp_hotspot_c=temps[i % 4] + 30,
        temp_vram_c=33 + 20,
        gfx_clk_mhz=2100 - 10 * i,
        mem_clk_mhz=1300,
        soc_clk_mhz=1143,
        xgmi_links=7,
        xgmi_read_kb_s=40e6,
        xgmi_write_kb_s=38e6,
        ecc={"UMC": (0, 0, 0), "SDMA": (0, 0, 0), "GFX": (0, 0, 0), "XGMI_WAFL": (0, 0, 0)},
        throttled_ppt=i == 3,
        energy_uj_per_s=(power[i % 4] + 450) * 1e6,
        processes=[FakeAmdProcess(4100 + i, "python3", (62_000 + 1_000 * i - 900) * 2**20, 0.97)],
    )


def mi300x8() -> FakeAmdBox:
    """An 8 x MI300X OAM box (SPX/NPS1), under a training job."""
    return FakeAmdBox("mi300x8", [_mi300x(i) for i in range(8)])


def mi300x_cpx() -> FakeAmdBox:
    """One MI300X in CPX/NPS4: amdsmi lists each of its 8 XCD partitions as a GPU, each with
    38 CUs and a share of the VRAM (fixture split; the CPX/750 W rows of
    ROCm/legacy-rocm-build#4750 idle at ~131-137 W)."""
    base = _mi300x(0)
    parts = []
    for p in range(8):
        parts.append(
            replace(
                base,
                num_cu=38,
                bdf=f"0000:26:00.{p}",
                uuid=f"7bff74a1-0000-1000-80{p:02x}-cpx00000000{p}",
                vram_mb=196_592 // 8,
                vram_used_mb=1_000 + 500 * p,
                gfx_activity=10 * p,
                compute_partition="CPX",
                memory_partition="NPS4",
                # power, temperature and the counters belong to the socket: partition 0 only
                current_socket_power=base.current_socket_power if p == 0 else NA,
                temp_hotspot_c=base.temp_hotspot_c if p == 0 else None,
                processes=[],
            )
        )
    return FakeAmdBox("mi300x_cpx", parts)


def mi250x2() -> FakeAmdBox:
    """One MI250X OAM: two GCDs, each its own GPU (CDNA2). MI200 reports average socket power
    only (ROCm/pytorch PR #1457: "Current socket power: N/A / Average socket power: 94")."""
    gcds = []
    for g in range(2):
        gcds.append(
            FakeAmdGpu(
                market_name="AMD Instinct MI250X",
                device_id="0x740c",
                gfx_version="gfx90a",
                num_cu=110,
                bdf=f"0000:{0xC1 + 5 * g:02x}:00.0",
                uuid=f"9aff740c-0000-1000-80{g:02x}-000000000000",
                serial=f"PCB0{g}",
                vbios="113-D65201-042",
                vram_mb=65_520,
                vram_used_mb=1_200,
                vram_type=6,
                gfx_activity=12,
                umc_activity=3,
                current_socket_power=NA,
                average_socket_power=94 if g == 0 else 0,  # the second GCD's power is on GCD 0
                power_cap_uw=560_000_000,
                max_power_cap_uw=560_000_000,
                gfx_clk_mhz=800,
                gfx_max_mhz=1700,
                mem_clk_mhz=1600,
                mem_max_mhz=1600,
                temp_edge_c=41,
                temp_hotspot_c=45,
                temp_vram_c=48,
                pcie_speed_mts=16_000,
                pcie_max_speed_mts=16_000,
                xgmi_links=8,
                xgmi_read_kb_s=1e6,
                xgmi_write_kb_s=1e6,
                ecc={"UMC": (2, 0, 0), "SDMA": (0, 0, 0), "GFX": (0, 0, 0)},
                violation=False,  # amdsmi_get_violation_status is MI300+
                compute_partition=None,
                memory_partition=None,
                energy_uj_per_s=94e6,
            )
        )
    return FakeAmdBox("mi250x2", gcds)


def mi210() -> FakeAmdBox:
    """One MI210 PCIe card (mi210-list.txt: BDF 0000:23:00.0, UUID 67ff740f-...;
    mi210-static: device 0x740f, rev 0x02, subsystem 0x0c34)."""
    return FakeAmdBox(
        "mi210",
        [
            FakeAmdGpu(
                market_name="AMD Instinct MI210",
                device_id="0x740f",
                gfx_version="gfx90a",
                num_cu=104,
                bdf="0000:23:00.0",
                uuid="67ff740f-0000-1000-80e6-b5bb3c3ce0db",
                serial="N/A",
                vbios="113-D67301-063",
                vram_mb=65_520,
                vram_used_mb=10,
                vram_type=6,
                current_socket_power=NA,
                average_socket_power=43,
                power_cap_uw=300_000_000,
                max_power_cap_uw=300_000_000,
                gfx_clk_mhz=800,
                gfx_max_mhz=1700,
                mem_clk_mhz=1600,
                mem_max_mhz=1600,
                temp_edge_c=36,
                temp_hotspot_c=38,
                temp_vram_c=40,
                pcie_speed_mts=16_000,
                pcie_max_speed_mts=16_000,
                ecc={"UMC": (0, 0, 0), "SDMA": (0, 0, 0), "GFX": (0, 0, 0)},
                violation=False,
                compute_partition=None,
                memory_partition=None,
                energy_uj_per_s=43e6,
            )
        ],
    )


def radeon_w7700() -> FakeAmdBox:
    """A Radeon PRO W7700 workstation card, as the newer amdsmi returns it: numbers wrapped as
    ``{value, unit}`` (radeon-pro-w7700-metric-u-json: gfx 42 %, umc 1 %, mm 0 %), socket power
    20 W with no current/average split and 780/699/666 mV (radeon-unknown-metric, 2482 MHz max
    GFX clock), a fan, an edge sensor, no ECC, no XGMI, no partitions."""
    return FakeAmdBox(
        "radeon_w7700",
        [
            FakeAmdGpu(
                market_name="AMD Radeon PRO W7700",
                device_id="0x7448",
                gfx_version="gfx1101",
                num_cu=48,
                bdf="0000:03:00.0",
                uuid="e3ff7448-0000-1000-8000-000000000000",
                serial="N/A",
                vbios="113-D7070100-100",
                vram_mb=16_368,
                vram_used_mb=900,
                vram_type=5,
                vram_vendor="hynix",
                gfx_activity=42,
                umc_activity=1,
                mm_activity=0,
                current_socket_power=20,
                average_socket_power=20,
                power_cap_uw=190_000_000,
                max_power_cap_uw=190_000_000,
                gfx_clk_mhz=14,
                gfx_max_mhz=2482,
                mem_clk_mhz=96,
                mem_max_mhz=1124,
                soc_clk_mhz=NA,
                soc_max_mhz=NA,
                temp_edge_c=39,
                temp_hotspot_c=45,
                temp_vram_c=None,
                fan_pct=20,
                pcie_speed_mts=16_000,
                pcie_max_speed_mts=16_000,
                violation=False,
                compute_partition=None,
                memory_partition=None,
                energy_uj_per_s=20e6,
            )
        ],
        wrapped=True,
    )


#: Every box by name, for ``--screenshot`` tests and parametrized fixtures.
BOXES: dict[str, Callable[[], FakeAmdBox]] = {
    "mi300x8": mi300x8,
    "mi300x_cpx": mi300x_cpx,
    "mi250x2": mi250x2,
    "mi210": mi210,
    "radeon_w7700": radeon_w7700,
}


# --- the fake module --------------------------------------------------------------------------


class _Handle:
    """An opaque processor handle (a ``c_void_p`` in the real library)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"c_void_p({0x5600_0000 + self.index:#x})"


_UNITS = {
    "activity": "%",
    "power": "W",
    "clk": "MHz",
    "temp": "C",
}


class FakeAmdSmi:
    """The ``amdsmi`` module for one :class:`FakeAmdBox`; see the module docstring.

    ``inject(name, err_code, device=None)`` makes a function raise; ``advance(s)`` moves the
    clock the counters (energy, XGMI data, process engine time) grow with.
    """

    AmdSmiException = AmdSmiException
    AmdSmiLibraryException = AmdSmiLibraryException
    AmdSmiRetryException = AmdSmiRetryException
    AmdSmiTimeoutException = AmdSmiTimeoutException
    AmdSmiParameterException = AmdSmiParameterException
    AmdSmiInitFlags = AmdSmiInitFlags
    AmdSmiClkType = AmdSmiClkType
    AmdSmiTemperatureType = AmdSmiTemperatureType
    AmdSmiTemperatureMetric = AmdSmiTemperatureMetric
    AmdSmiGpuBlock = AmdSmiGpuBlock
    AmdSmiLinkType = AmdSmiLinkType

    def __init__(self, box: FakeAmdBox, *, start_s: float = 1000.0, realtime: bool = False) -> None:
        self.box = box
        self._start_s = start_s
        self._realtime = realtime  # the counters follow time.monotonic() (screenshots)
        self.now_s = start_s
        self.initialized = False
        self.shut_down = False
        self.injected: dict[tuple[str, int | None], int] = {}
        self.calls: dict[str, int] = {}

    # -- test controls ---------------------------------------------------------------------

    def clock(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> None:
        self.now_s += seconds

    def inject(self, name: str, err_code: int, device: int | None = None) -> None:
        self.injected[(name, device)] = err_code

    def _enter(self, name: str, handle: _Handle | None = None) -> FakeAmdGpu | None:
        if self._realtime:
            self.now_s = self._start_s + time.monotonic()
        self.calls[name] = self.calls.get(name, 0) + 1
        if not self.initialized and name != "amdsmi_init":
            raise AmdSmiLibraryException(NOT_INIT)
        index = None if handle is None else handle.index
        for key in ((name, None), (name, index)):
            if key in self.injected:
                raise AmdSmiLibraryException(self.injected[key])
        return None if handle is None else self.box.gpus[handle.index]

    def _gpu(self, name: str, handle: _Handle) -> FakeAmdGpu:
        gpu = self._enter(name, handle)
        assert gpu is not None
        return gpu

    def _num(self, value: Any, unit: str) -> Any:
        if value == NA or value is None or not self.box.wrapped:
            return NA if value is None else value
        return {"value": value, "unit": unit}

    # -- init / discovery ------------------------------------------------------------------

    def amdsmi_init(self, flag: int = AmdSmiInitFlags.INIT_AMD_GPUS) -> None:
        self._enter("amdsmi_init")
        self.initialized = True

    def amdsmi_shut_down(self) -> None:
        self._enter("amdsmi_shut_down")
        self.initialized = False
        self.shut_down = True

    def amdsmi_get_processor_handles(self) -> list[_Handle]:
        self._enter("amdsmi_get_processor_handles")
        return [_Handle(i) for i in range(len(self.box.gpus))]

    def amdsmi_get_lib_version(self) -> dict[str, int]:
        self._enter("amdsmi_get_lib_version")
        major, minor, release = self.box.lib_version
        return {"major": major, "minor": minor, "release": release, "build": 0}

    def amdsmi_get_gpu_device_bdf(self, h: _Handle) -> str:
        return self._gpu("amdsmi_get_gpu_device_bdf", h).bdf

    def amdsmi_get_gpu_device_uuid(self, h: _Handle) -> str:
        return self._gpu("amdsmi_get_gpu_device_uuid", h).uuid

    def amdsmi_get_gpu_asic_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_asic_info", h)
        return {
            "market_name": g.market_name,
            "vendor_id": "0x1002",
            "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
            "subvendor_id": "0x1002",
            "device_id": g.device_id,
            "rev_id": "0x00",
            "asic_serial": "0xC027D079FACA2939",
            "oam_id": h.index if g.market_name.startswith("AMD Instinct") else NA,
            "num_compute_units": g.num_cu,
            "target_graphics_version": g.gfx_version,
            "subsystem_id": g.device_id,
        }

    def amdsmi_get_gpu_board_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_board_info", h)
        return {
            "model_number": "102-G30211-0C" if "MI300X" in g.market_name else NA,
            "product_serial": g.serial,
            "fru_id": NA,
            "product_name": g.market_name,
            "manufacturer_name": "AMD",
        }

    def amdsmi_get_gpu_vbios_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_vbios_info", h)
        return {"name": NA, "build_date": NA, "part_number": g.vbios, "version": g.vbios}

    def amdsmi_get_gpu_driver_info(self, h: _Handle) -> dict[str, Any]:
        self._gpu("amdsmi_get_gpu_driver_info", h)
        return {
            "driver_name": "amdgpu",
            "driver_version": self.box.driver_version,
            "driver_date": "2015/01/01 00:00",
        }

    def amdsmi_get_gpu_vram_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_vram_info", h)
        return {
            "vram_type": g.vram_type,
            "vram_vendor": g.vram_vendor.upper(),
            "vram_size": g.vram_mb,
            "vram_bit_width": 8192 if g.vram_type >= 6 else 256,
            "vram_max_bandwidth": NA,
        }

    def amdsmi_get_gpu_compute_partition(self, h: _Handle) -> str:
        g = self._gpu("amdsmi_get_gpu_compute_partition", h)
        if g.compute_partition is None:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return g.compute_partition

    def amdsmi_get_gpu_memory_partition(self, h: _Handle) -> str:
        g = self._gpu("amdsmi_get_gpu_memory_partition", h)
        if g.memory_partition is None:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return g.memory_partition

    def amdsmi_get_xgmi_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_xgmi_info", h)
        if not g.xgmi_links:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return {"xgmi_lanes": 16, "xgmi_hive_id": 0x8D14, "xgmi_node_id": h.index, "index": 0}

    def amdsmi_get_link_metrics(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_link_metrics", h)
        links = []
        for n in range(8):  # always AMDSMI_MAX_NUM_XGMI_LINKS slots; num_links says how many
            links.append(
                {
                    "bdf": self.box.gpus[(h.index + n + 1) % len(self.box.gpus)].bdf
                    if n < g.xgmi_links
                    else NA,
                    "bit_rate": 32 if n < g.xgmi_links else NA,
                    "max_bandwidth": 64 if n < g.xgmi_links else NA,
                    "link_type": AmdSmiLinkType.XGMI if n < g.xgmi_links else NA,
                    "read": NA,
                    "write": NA,
                }
            )
        return {"num_links": g.xgmi_links, "links": links}

    def amdsmi_topo_get_link_type(self, a: _Handle, b: _Handle) -> dict[str, Any]:
        ga = self._gpu("amdsmi_topo_get_link_type", a)
        gb = self.box.gpus[b.index]
        if a.index == b.index:
            return {"hops": 0, "type": AmdSmiLinkType.INTERNAL}
        if ga.xgmi_links and gb.xgmi_links:
            return {"hops": 1, "type": AmdSmiLinkType.XGMI}
        return {"hops": 2, "type": AmdSmiLinkType.PCIE}

    # -- telemetry -------------------------------------------------------------------------

    def amdsmi_get_gpu_activity(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_activity", h)
        return {
            "gfx_activity": self._num(g.gfx_activity, "%"),
            "umc_activity": self._num(g.umc_activity, "%"),
            "mm_activity": self._num(g.mm_activity, "%"),
        }

    def amdsmi_get_power_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_power_info", h)
        socket = g.current_socket_power if g.current_socket_power != NA else g.average_socket_power
        return {
            "socket_power": self._num(socket, "W"),
            "current_socket_power": self._num(g.current_socket_power, "W"),
            "average_socket_power": self._num(g.average_socket_power, "W"),
            "gfx_voltage": self._num(780 if g.fan_pct is not None else NA, "mV"),
            "soc_voltage": self._num(699 if g.fan_pct is not None else NA, "mV"),
            "mem_voltage": self._num(666 if g.fan_pct is not None else NA, "mV"),
            "power_limit": self._num(g.power_cap_uw, "uW"),  # microwatts (ROCm/amdsmi PR #174)
        }

    def amdsmi_get_power_cap_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_power_cap_info", h)
        return {
            "power_cap": self._num(g.power_cap_uw, "uW"),
            "default_power_cap": self._num(g.max_power_cap_uw, "uW"),
            "dpm_cap": self._num(g.power_cap_uw, "uW"),
            "min_power_cap": self._num(g.min_power_cap_uw, "uW"),
            "max_power_cap": self._num(g.max_power_cap_uw, "uW"),
        }

    def amdsmi_get_energy_count(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_energy_count", h)
        resolution = 15.259  # µJ per count (api.md)
        return {
            "energy_accumulator": int(g.energy_uj_per_s * self.now_s / resolution),
            "counter_resolution": resolution,
            "timestamp": int(self.now_s * 1e9),
        }

    def amdsmi_get_gpu_vram_usage(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_vram_usage", h)
        return {
            "vram_total": self._num(g.vram_mb, "MB"),
            "vram_used": self._num(g.vram_used_mb, "MB"),
        }

    def amdsmi_get_clock_info(self, h: _Handle, clock_type: int) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_clock_info", h)
        now, top = {
            AmdSmiClkType.GFX: (g.gfx_clk_mhz, g.gfx_max_mhz),
            AmdSmiClkType.MEM: (g.mem_clk_mhz, g.mem_max_mhz),
            AmdSmiClkType.SOC: (g.soc_clk_mhz, g.soc_max_mhz),
        }.get(AmdSmiClkType(clock_type), (NA, NA))
        if now == NA:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return {
            "clk": self._num(now, "MHz"),
            "min_clk": self._num(30, "MHz"),
            "max_clk": self._num(top, "MHz"),
            "clk_locked": NA,
            "clk_deep_sleep": NA,
        }

    def amdsmi_get_temp_metric(self, h: _Handle, sensor: int, metric: int) -> int:
        g = self._gpu("amdsmi_get_temp_metric", h)
        sensor = AmdSmiTemperatureType(sensor)
        if metric == AmdSmiTemperatureMetric.CURRENT:
            value = {
                AmdSmiTemperatureType.EDGE: g.temp_edge_c,
                AmdSmiTemperatureType.HOTSPOT: g.temp_hotspot_c,
                AmdSmiTemperatureType.VRAM: g.temp_vram_c,
            }[sensor]
        elif metric == AmdSmiTemperatureMetric.CRITICAL and sensor == AmdSmiTemperatureType.HOTSPOT:
            value = g.slowdown_hotspot_c
        elif (
            metric == AmdSmiTemperatureMetric.EMERGENCY and sensor == AmdSmiTemperatureType.HOTSPOT
        ):
            value = g.shutdown_hotspot_c
        else:
            value = None
        if value is None:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return value

    def amdsmi_get_gpu_fan_speed(self, h: _Handle, sensor_idx: int) -> int:
        g = self._gpu("amdsmi_get_gpu_fan_speed", h)
        if g.fan_pct is None:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return round(g.fan_pct * 255 / 100)

    def amdsmi_get_gpu_fan_speed_max(self, h: _Handle, sensor_idx: int) -> int:
        g = self._gpu("amdsmi_get_gpu_fan_speed_max", h)
        if g.fan_pct is None:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return 255

    def amdsmi_get_pcie_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_pcie_info", h)
        gen = {2_500: 1, 5_000: 2, 8_000: 3, 16_000: 4, 32_000: 5}
        return {
            "pcie_static": {
                "max_pcie_width": g.pcie_max_width,
                "max_pcie_speed": g.pcie_max_speed_mts,
                "pcie_interface_version": gen.get(g.pcie_max_speed_mts, NA),
                "slot_type": "OAM" if g.xgmi_links else "PCIE",
            },
            "pcie_metric": {
                "pcie_width": g.pcie_width,
                "pcie_speed": g.pcie_speed_mts,
                "pcie_bandwidth": NA,
                "pcie_replay_count": g.pcie_replay_count,
                "pcie_l0_to_recovery_count": 0,
                "pcie_replay_roll_over_count": 0,
                "pcie_nak_sent_count": 0,
                "pcie_nak_received_count": 0,
                "pcie_lc_perf_other_end_recovery_count": NA,
            },
        }

    def amdsmi_get_gpu_metrics_info(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_metrics_info", h)
        links = g.xgmi_links
        read = [int(g.xgmi_read_kb_s / links * self.now_s) for _ in range(links)] if links else []
        write = [int(g.xgmi_write_kb_s / links * self.now_s) for _ in range(links)] if links else []
        return {
            "temperature_edge": g.temp_edge_c if g.temp_edge_c is not None else NA,
            "temperature_hotspot": g.temp_hotspot_c if g.temp_hotspot_c is not None else NA,
            "average_gfx_activity": g.gfx_activity,
            "current_socket_power": g.current_socket_power,
            "average_socket_power": g.average_socket_power,
            "xgmi_link_width": 16 if links else NA,
            "xgmi_link_speed": 32 if links else NA,
            # KB accumulated per link, then "N/A" in the unused slots (8 in all)
            "xgmi_read_data_acc": read + [NA] * (8 - len(read)),
            "xgmi_write_data_acc": write + [NA] * (8 - len(write)),
            "throttle_status": NA,
            "vram_max_bandwidth": NA,
        }

    def amdsmi_get_violation_status(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_violation_status", h)
        if not g.violation:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        out: dict[str, Any] = {"reference_timestamp": int(self.now_s * 1e6)}
        for name, on in (
            ("ppt_pwr", g.throttled_ppt),
            ("socket_thrm", g.throttled_thermal),
            ("prochot_thrm", False),
            ("vr_thrm", False),
            ("hbm_thrm", False),
            ("low_utilization", False),
        ):
            out[f"active_{name}"] = on
            out[f"per_{name}"] = 100 if on else 0
            out[f"acc_{name}"] = 1000 if on else 0
        return out

    def amdsmi_get_gpu_total_ecc_count(self, h: _Handle) -> dict[str, Any]:
        g = self._gpu("amdsmi_get_gpu_total_ecc_count", h)
        if not g.ecc:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        return {
            "correctable_count": sum(c for c, _, _ in g.ecc.values()),
            "uncorrectable_count": sum(u for _, u, _ in g.ecc.values()),
            "deferred_count": sum(d for _, _, d in g.ecc.values()),
        }

    def amdsmi_get_gpu_ecc_enabled(self, h: _Handle) -> int:
        g = self._gpu("amdsmi_get_gpu_ecc_enabled", h)
        mask = 0
        for name in g.ecc:
            mask |= AmdSmiGpuBlock[name]
        return mask

    def amdsmi_get_gpu_ecc_count(self, h: _Handle, block: int) -> dict[str, int]:
        g = self._gpu("amdsmi_get_gpu_ecc_count", h)
        name = AmdSmiGpuBlock(block).name
        if name not in g.ecc:
            raise AmdSmiLibraryException(NOT_SUPPORTED)
        c, u, d = g.ecc[name]
        return {"correctable_count": c, "uncorrectable_count": u, "deferred_count": d}

    def amdsmi_get_gpu_process_list(self, h: _Handle) -> list[dict[str, Any]]:
        g = self._gpu("amdsmi_get_gpu_process_list", h)
        return [
            {
                "name": p.name,
                "pid": p.pid,
                "mem": p.vram_bytes,
                "engine_usage": {"gfx": int(p.gfx_busy * self.now_s * 1e9), "enc": 0},
                "memory_usage": {"gtt_mem": 6_180_000, "cpu_mem": 0, "vram_mem": p.vram_bytes},
                "cu_occupancy": NA,
            }
            for p in g.processes
        ]
