"""Fake machines for the fake NVML, with values taken from real ``nvidia-smi`` captures.

Every number below comes from a file in ``shared/reference/nvidia-smi/`` (named in the
comment next to it; see that folder's README.md for where each capture came from). Where
NVML answers differently from what ``nvidia-smi -q`` prints, the conversion is stated:

* Hopper/Ada drivers >= 550 print temperature thresholds relative to T.Limit
  (``GPU T.Limit Temp : 57 C`` at ``GPU Current Temp : 30 C`` means T.Limit = 87 C;
  ``GPU Slowdown T.Limit Temp : -2 C`` means slowdown at 89 C). NVML's
  ``nvmlDeviceGetTemperatureThreshold`` returns absolute °C, so the absolute value is stored.
* ``N/A`` in the capture is ``None`` here, which the fake answers with NVML_ERROR_NOT_SUPPORTED.
* The compute capability is not in ``nvidia-smi -q``; it is the CUDA value for that chip.

Each factory returns a fresh :class:`FakeBox`, so a test may change it freely.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pynvml as nv

from gpuprof.telemetry.model import DeviceInfo, GpuSample
from gpuprof.telemetry.scenarios import H100_SXM5_80GB, H100_SXM5_BUS_IDS, RTX_4090, SCENARIOS
from tests.fakes.fake_nvml import (
    FakeBox,
    FakeDevice,
    FakeGpmActivity,
    FakeMigDevice,
    FakeNvLink,
    FakeProcess,
    mib,
)

__all__ = [
    "BOXES",
    "a100_mig_box",
    "h100_mig_box",
    "h100_info",
    "h100_sample",
    "h100_sxm_8gpu_box",
    "h200_box",
    "make_fleet",
    "rtx4090_pcie_2gpu_box",
    "t4_box",
]

G, SM, MEM, VIDEO = nv.NVML_CLOCK_GRAPHICS, nv.NVML_CLOCK_SM, nv.NVML_CLOCK_MEM, nv.NVML_CLOCK_VIDEO
SHUTDOWN = nv.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
SLOWDOWN = nv.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
GPU_MAX = nv.NVML_TEMPERATURE_THRESHOLD_GPU_MAX
CORR, UNCORR = nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
VOLATILE, AGGREGATE = nv.NVML_VOLATILE_ECC, nv.NVML_AGGREGATE_ECC
IDLE = nv.nvmlClocksEventReasonGpuIdle

ZERO_ECC = {
    (CORR, VOLATILE): 0,
    (UNCORR, VOLATILE): 0,
    (CORR, AGGREGATE): 0,
    (UNCORR, AGGREGATE): 0,
}


def _board(info: DeviceInfo) -> dict[str, Any]:
    """A board's facts from its capture, as NVML answers them. They are typed once, in the
    simulator's table (``gpuprof/telemetry/scenarios.py``), which ``--demo`` shows too."""
    clocks = (
        info.graphics_clock_max_mhz,
        info.sm_clock_max_mhz,
        info.mem_clock_max_mhz,
        info.video_clock_max_mhz,
    )
    watts = (info.power_default_limit_w, info.power_min_limit_w, info.power_max_limit_w)
    temps = (info.temp_shutdown_c, info.temp_slowdown_c, info.temp_max_operating_c)
    assert None not in (*clocks, *watts, *temps, info.ecc_mode_current, info.ecc_mode_pending)
    g, sm, mem, video = (int(c) for c in clocks if c is not None)
    default_mw, min_mw, max_mw = (round(w * 1000) for w in watts if w is not None)
    shutdown, slowdown, gpu_max = (int(t) for t in temps if t is not None)
    mig = None
    if info.mig_mode_current is not None and info.mig_mode_pending is not None:
        mig = (int(info.mig_mode_current), int(info.mig_mode_pending))
    return {
        "name": info.name,
        "vbios_version": info.vbios_version,
        "board_part_number": info.board_part_number,
        "compute_capability": info.compute_capability,
        "memory_total_bytes": info.memory_total_bytes,
        "max_clocks_mhz": {G: g, SM: sm, MEM: mem, VIDEO: video},
        "power_limit_mw": default_mw,
        "power_default_limit_mw": default_mw,
        "power_enforced_limit_mw": default_mw,
        "power_min_limit_mw": min_mw,
        "power_max_limit_mw": max_mw,
        "thresholds_c": {SHUTDOWN: shutdown, SLOWDOWN: slowdown, GPU_MAX: gpu_max},
        "pcie_gen_max": info.pcie_gen_max,
        "pcie_width_max": info.pcie_width_max,
        "ecc_mode": (int(bool(info.ecc_mode_current)), int(bool(info.ecc_mode_pending))),
        "mig_mode": mig,
        "persistence_mode": int(bool(info.persistence_mode)),
        "display_active": int(bool(info.display_active)),
        "multi_gpu_board": int(bool(info.multi_gpu_board)),
    }


def _uuid(prefix: str, n: int) -> str:
    # The captures redact UUIDs to X...; the fake needs distinct ones.
    return f"GPU-{prefix}{n:04x}-0000-4000-8000-{n:012x}"


# --- 8x H100 SXM5 on NVSwitch (HGX/DGX H100) ----------------------------------------------

# h100-sxm5-80gb-hbm3.txt, per GPU: (Bus Id, Power Draw W, GPU temp C, Memory temp C,
# Replays Since Reset, Tx KB/s, Rx KB/s); the bus ids are the simulator's table's.
_H100_READINGS = [
    (100.89, 30, 36, 7, 567, 559),
    (82.81, 30, 36, 0, 555, 3874),
    (85.98, 31, 38, 0, 574, 535),
    (85.48, 29, 37, 0, 565, 463),
    (84.94, 28, 36, 0, 617, 567),
    (85.27, 30, 38, 4, 3534, 551),
    (86.05, 29, 37, 15, 638, 553),
    (75.09, 29, 36, 0, 658, 604),
]
_H100_GPUS = [(bus, *row) for bus, row in zip(H100_SXM5_BUS_IDS, _H100_READINGS, strict=True)]
#: The idle state of the capture (clocks, reserved and used memory), as the simulator idles.
_H100_IDLE = SCENARIOS["h100x8"]

# nvlink-s-h100-sxm-and-h200.txt, `nvidia-smi nvlink -R` of GPU 0 on an HGX H100: 18 links
# to 4 NVSwitches at 00000000:05..08:00.0 (the other GPUs' blocks are truncated there; the
# fake gives every GPU the same switch ports).
_H100_LINK_SWITCHES = [7, 7, 6, 6, 7, 7, 6, 6, 5, 5, 7, 6, 8, 8, 5, 5, 8, 8]


def _nvswitch_links(version: int = nv.NVML_NVLINK_VERSION_4_0) -> list[FakeNvLink]:
    return [
        FakeNvLink(
            remote_pci_bus_id=f"00000000:{bus:02X}:00.0",
            remote_type=nv.NVML_NVLINK_DEVICE_TYPE_SWITCH,
            version=version,
        )
        for bus in _H100_LINK_SWITCHES
    ]


def _h100(
    index: int,
    bus_id: str,
    power_w: float,
    temp: int,
    mem_temp: int,
    replays: int,
    tx: int,
    rx: int,
) -> FakeDevice:
    # h100-sxm5-80gb-hbm3.txt (driver 565.57.01), GPU block of `nvidia-smi -q`; the board's
    # facts (name, VBIOS, memory, max clocks, power limits, thresholds, PCIe, ECC and MIG modes)
    # are the simulator's table's.
    board = _board(H100_SXM5_80GB)
    idle = _H100_IDLE
    max_clocks = board["max_clocks_mhz"]
    return FakeDevice(
        **board,
        uuid=_uuid("h100", index),
        pci_bus_id=bus_id,
        pci_device_id=0x233010DE,  # Device Id
        pci_subsystem_id=0x16C110DE,  # Sub System Id
        serial=f"165222300{index:04d}",  # redacted to X in the capture (13 characters)
        architecture=nv.NVML_DEVICE_ARCH_HOPPER,
        memory_reserved_bytes=idle.mem_reserved_bytes,  # Reserved
        memory_used_bytes=idle.idle_mem_used_bytes,  # Used
        util_gpu_pct=0,
        util_mem_pct=0,
        clocks_mhz={  # Clocks
            G: int(idle.idle_sm_mhz),
            SM: int(idle.idle_sm_mhz),
            MEM: int(idle.idle_mem_mhz),
            VIDEO: int(idle.idle_video_mhz),
        },
        app_clocks_mhz={G: max_clocks[G], MEM: max_clocks[MEM]},  # Applications Clocks = Max
        pstate=0,  # Performance State : P0
        power_mw=int(power_w * 1000),
        energy_mj=52_000_000 + index * 1_000_000,
        temp_c=temp,
        mem_temp_c=mem_temp,  # Memory Current Temp
        fan_speeds_pct=None,  # Fan Speed : N/A
        clocks_event_reasons=IDLE,  # Clocks Event Reasons: Idle Active
        pcie_gen=5,
        pcie_width=16,
        pcie_tx_kb_s=tx,
        pcie_rx_kb_s=rx,
        pcie_replay=replays,
        nvlinks=_nvswitch_links(),
        ecc_errors=dict(ZERO_ECC),
        retired_pages=None,  # Retired Pages: N/A on Hopper (row remapping instead)
        retired_pages_pending=None,
        remapped_rows=(0, 0, 0, 0),  # Remapped Rows: 0, 0, No, No
        compute_mode=nv.NVML_COMPUTEMODE_DEFAULT,
        # Idle, as in the capture; H100 SXM5 has 7 NVDEC and 7 NVJPG engines (GPM reports each).
        gpm=FakeGpmActivity(nvdec_pct=[0.0] * 7, nvjpg_pct=[0.0] * 7),
    )


def h100_info(index: int = 0, **changes: Any) -> DeviceInfo:
    """GPU ``index`` of the H100 box as telemetry describes it, for tests that need no NVML.

    Built from :func:`_h100`, so the capture's values are typed once; ``changes`` replace fields.
    """
    dev = _h100(index, *_H100_GPUS[index])
    assert dev.max_clocks_mhz is not None and dev.thresholds_c is not None
    assert dev.power_default_limit_mw is not None
    info = DeviceInfo(
        index=index,
        name=dev.name,
        uuid=dev.uuid,
        pci_bus_id=dev.pci_bus_id,
        memory_total_bytes=dev.memory_total_bytes,
        sm_clock_max_mhz=dev.max_clocks_mhz[SM],
        mem_clock_max_mhz=dev.max_clocks_mhz[MEM],
        power_default_limit_w=dev.power_default_limit_mw / 1000,
        temp_slowdown_c=float(dev.thresholds_c[SLOWDOWN]),
        pcie_gen_max=dev.pcie_gen_max,
        pcie_width_max=dev.pcie_width_max,
        nvlink_count=len(dev.nvlinks or ()),
        persistence_mode=bool(dev.persistence_mode),
        mig_mode_current=False,
    )
    return replace(info, **changes)


def h100_sample(index: int = 0, **changes: Any) -> GpuSample:
    """A sample of GPU ``index`` of the H100 box at its maximum clocks and full link; the load
    (utilization, memory used, power, temperature) comes from ``changes``."""
    info = h100_info(index)
    sample = GpuSample(
        index=index,
        uuid=info.uuid,
        mem_total_bytes=info.memory_total_bytes,
        power_limit_w=info.power_default_limit_w,
        clock_sm_mhz=None if info.sm_clock_max_mhz is None else float(info.sm_clock_max_mhz),
        clock_mem_mhz=None if info.mem_clock_max_mhz is None else float(info.mem_clock_max_mhz),
        pcie_gen=info.pcie_gen_max,
        pcie_width=info.pcie_width_max,
    )
    return replace(sample, **changes)


def h100_sxm_8gpu_box() -> FakeBox:
    """HGX H100 80GB SXM5 x8 on NVSwitch: NV18 between every pair."""
    devices = [_h100(i, *row) for i, row in enumerate(_H100_GPUS)]
    # topo-hgx-h100-8gpu.txt: GPU0-3 on NUMA node 0, GPU4-7 on NUMA node 1; the PCIe level
    # under the NVLinks is not printed (every cell is NV18), so pairs on one socket are NODE
    # and across sockets SYS, as the GPU<->NIC cells show for this board.
    ancestors = {
        (i, j): nv.NVML_TOPOLOGY_NODE if (i < 4) == (j < 4) else nv.NVML_TOPOLOGY_SYSTEM
        for i in range(8)
        for j in range(i + 1, 8)
    }
    return FakeBox(
        name="8x H100 SXM5 (NVSwitch)",
        devices=devices,
        driver_version="565.57.01",  # h100-sxm5-80gb-hbm3.txt: Driver Version
        cuda_driver_version=12070,  # CUDA Version : 12.7
        common_ancestor=ancestors,
    )


# --- 2x GeForce RTX 4090 on PCIe ---------------------------------------------------------------


def _rtx4090(index: int, bus_id: str, temp: int, power_w: float, tx: int, rx: int) -> FakeDevice:
    # rtx-4090.txt (driver 550.127.05): consumer card, N/A for Serial, Board Part Number,
    # ECC error counters, retired pages, applications clocks, memory temperature, MIG; no NVLink.
    # The board's facts are the simulator's table's.
    return FakeDevice(
        **_board(RTX_4090),
        uuid=_uuid("4090", index),
        pci_bus_id=bus_id,
        pci_device_id=0x268410DE,
        pci_subsystem_id=0xF29710B0,
        serial=None,
        architecture=nv.NVML_DEVICE_ARCH_ADA,
        memory_reserved_bytes=mib(354),
        memory_used_bytes=mib(2),
        clocks_mhz={G: 210, SM: 210, MEM: 405, VIDEO: 1185},
        app_clocks_mhz={},  # Applications Clocks: N/A
        pstate=8,  # P8
        power_mw=int(power_w * 1000),
        energy_mj=9_000_000 + index * 100_000,
        temp_c=temp,
        mem_temp_c=None,  # Memory Current Temp : N/A
        fan_speeds_pct=[0],  # Fan Speed : 0 %
        clocks_event_reasons=IDLE,
        pcie_gen=1,  # PCIe Generation Current : 1 (idle), Max : 4
        pcie_width=16,
        pcie_tx_kb_s=tx,
        pcie_rx_kb_s=rx,
        pcie_replay=0,
        nvlinks=None,  # consumer-na-rtx-4080-super-linux.txt: "Device does not have or support Nvlink"
        ecc_errors=None,  # ECC Errors: N/A
        retired_pages=None,
        retired_pages_pending=None,
        remapped_rows=(0, 0, 0, 0),  # Remapped Rows are reported (0, 0, No, No)
        compute_mode=nv.NVML_COMPUTEMODE_DEFAULT,
    )


def rtx4090_pcie_2gpu_box() -> FakeBox:
    """Two GeForce RTX 4090 on PCIe behind the CPU's host bridge (PHB), no NVLink."""
    return FakeBox(
        name="2x RTX 4090 (PCIe)",
        devices=[
            _rtx4090(0, "00000000:01:00.0", 28, 20.00, 0, 50),  # rtx-4090.txt, first GPU block
            _rtx4090(1, "00000000:25:00.0", 27, 20.40, 50, 50),  # second GPU block
        ],
        driver_version="550.127.05",
        cuda_driver_version=12040,  # CUDA Version : 12.4
        # topo-2gpu-pcie-rtx5090.txt: two consumer cards on one socket are PHB.
        common_ancestor={(0, 1): nv.NVML_TOPOLOGY_HOSTBRIDGE},
    )


# --- A100 SXM4 80GB in MIG mode (4x 1g.20gb) ------------------------------------------------------


def a100_mig_box() -> FakeBox:
    """One MIG-enabled A100-SXM4-80GB with four 1g.20gb instances."""
    # mig-a100-sxm4-80gb.q-x.xml (driver 535.54.03): the capture keeps one of its four GPUs.
    dev = FakeDevice(
        name="NVIDIA A100-SXM4-80GB",
        uuid=_uuid("a100", 0),
        pci_bus_id="00000000:01:00.0",
        pci_device_id=0x20B210DE,
        pci_subsystem_id=0x147F10DE,
        serial="1324321000001",
        vbios_version="92.00.36.00.02",
        board_part_number="692-2G506-0212-002",
        architecture=nv.NVML_DEVICE_ARCH_AMPERE,
        compute_capability=(8, 0),
        memory_total_bytes=mib(81920),
        memory_reserved_bytes=mib(869),
        memory_used_bytes=mib(50),
        # <utilization>: all N/A on a MIG parent
        util_gpu_pct=None,
        util_mem_pct=None,
        util_enc_pct=None,
        util_dec_pct=None,
        clocks_mhz={G: 1275, SM: 1275, MEM: 1593, VIDEO: 1275},
        max_clocks_mhz={G: 1410, SM: 1410, MEM: 1593, VIDEO: 1290},
        app_clocks_mhz={G: 1275, MEM: 1593},
        pstate=0,
        power_mw=67_030,
        power_limit_mw=500_000,
        power_default_limit_mw=500_000,
        power_enforced_limit_mw=500_000,
        power_min_limit_mw=100_000,
        power_max_limit_mw=500_000,
        energy_mj=31_000_000,
        temp_c=27,
        mem_temp_c=44,
        # Ampere prints absolute thresholds: max 92 (shutdown), slow 89, max_gpu 85.
        thresholds_c={SHUTDOWN: 92, SLOWDOWN: 89, GPU_MAX: 85},
        fan_speeds_pct=None,
        clocks_event_reasons=0,  # every reason "Not Active"
        pcie_gen=4,
        pcie_gen_max=4,
        pcie_width=16,
        pcie_width_max=16,
        pcie_tx_kb_s=4000,
        pcie_rx_kb_s=0,
        pcie_replay=0,
        # nvlink-s-a100-sxm4-80gb-8gpu.txt: 12 links per A100 SXM4, but nvlink-s-errors-no-nvlink.txt:
        # "Nvlink queries are not supported for Devices in MIG mode" (the fake answers NotSupported).
        nvlinks=[
            FakeNvLink(
                remote_pci_bus_id=f"00000000:{0xC4 + i // 2:02X}:00.0",
                version=nv.NVML_NVLINK_VERSION_3_0,
            )
            for i in range(12)
        ],
        ecc_mode=(1, 1),
        ecc_errors=dict(ZERO_ECC),
        retired_pages=None,  # <retired_pages>: N/A
        retired_pages_pending=None,
        remapped_rows=None,  # <remapped_rows>N/A</remapped_rows> on a MIG parent
        mig_mode=(1, 1),  # current_mig / pending_mig: Enabled
        mig_devices=[
            # <mig_device>: index 0..3, gpu_instance_id 3..6, compute_instance_id 0,
            # fb_memory_usage total 19968 MiB, used 12 MiB.
            FakeMigDevice(
                profile="1g.20gb",
                uuid=f"MIG-0000000{i}-0000-0000-0000-000000000000",
                memory_total_bytes=mib(19968),
                memory_used_bytes=mib(12),
                gpu_instance_id=3 + i,
                compute_instance_id=0,
            )
            for i in range(4)
        ],
        compute_mode=nv.NVML_COMPUTEMODE_DEFAULT,
        persistence_mode=0,  # Disabled
        display_active=0,
        multi_gpu_board=0,
    )
    return FakeBox(
        name="A100-SXM4-80GB MIG 4x 1g.20gb",
        devices=[dev],
        driver_version="535.54.03",
        cuda_driver_version=12020,  # cuda_version 12.2
    )


# --- Tesla T4 (AWS, PCIe) ----------------------------------------------------------------------------


def t4_box() -> FakeBox:
    """One Tesla T4 in a cloud VM, with Xorg and a python process on it."""
    # t4.q-x.xml (telegraf testdata, driver 515.105.01).
    dev = FakeDevice(
        name="Tesla T4",
        uuid=_uuid("0074", 0),
        pci_bus_id="00000000:00:1E.0",
        pci_device_id=0x1EB810DE,
        serial="0000000000000",  # upstream zeroed
        vbios_version="90.04.84.00.06",
        board_part_number=None,  # N/A
        architecture=nv.NVML_DEVICE_ARCH_TURING,
        compute_capability=(7, 5),
        memory_total_bytes=mib(15360),
        memory_reserved_bytes=mib(388),
        memory_used_bytes=mib(1032),
        clocks_mhz={G: 585, SM: 585, MEM: 5000, VIDEO: 810},
        max_clocks_mhz={G: 1590, SM: 1590, MEM: 5001, VIDEO: 1470},
        app_clocks_mhz={G: 585, MEM: 5001},
        pstate=0,
        power_mw=26_780,
        power_limit_mw=70_000,
        power_default_limit_mw=70_000,
        power_enforced_limit_mw=70_000,
        power_min_limit_mw=60_000,
        power_max_limit_mw=70_000,
        energy_mj=4_000_000,
        temp_c=40,
        mem_temp_c=None,
        thresholds_c={SHUTDOWN: 96, SLOWDOWN: 93, GPU_MAX: 85},  # absolute on Turing
        fan_speeds_pct=None,
        clocks_event_reasons=0,
        pcie_gen=3,
        pcie_gen_max=3,
        pcie_width=8,  # current_link_width 8x of max 16x
        pcie_width_max=16,
        pcie_tx_kb_s=0,
        pcie_rx_kb_s=0,
        pcie_replay=0,
        nvlinks=None,
        ecc_mode=(1, 1),
        ecc_errors=dict(ZERO_ECC),
        retired_pages={0: [], 1: []},  # retired_count 0 for both causes
        retired_pages_pending=0,
        remapped_rows=None,  # Turing has page retirement, not row remapping
        mig_mode=None,
        compute_mode=nv.NVML_COMPUTEMODE_DEFAULT,
        persistence_mode=0,
        display_active=0,
        multi_gpu_board=0,
        processes=[
            # <processes>: pid 675 type G /usr/lib/xorg/Xorg 22 MiB; pid 5762 type C python 1005 MiB
            FakeProcess(pid=675, used_memory_bytes=mib(22), kind="graphics"),
            FakeProcess(
                pid=5762,
                used_memory_bytes=mib(1005),
                kind="compute",
                sm_util_pct=35,
                mem_util_pct=12,
            ),
        ],
    )
    return FakeBox(
        name="Tesla T4",
        devices=[dev],
        driver_version="515.105.01",
        cuda_driver_version=11070,
    )


# --- H200 -------------------------------------------------------------------------------------------


def h200_box() -> FakeBox:
    """One H200 (SXM, pass-through VM) with its 18 NVLinks to the board's NVSwitches."""
    # h200.txt (driver 550.90.12).
    dev = _h100(0, "00000000:03:00.0", 74.58, 28, 25, 0, 657, 619)
    dev.name = "NVIDIA H200"
    dev.uuid = _uuid("h200", 0)
    dev.pci_device_id = 0x233510DE
    dev.vbios_version = "96.00.A5.00.03"
    dev.board_part_number = "695-2G520-0280-000"
    dev.memory_total_bytes = mib(143771)
    dev.memory_reserved_bytes = mib(700)
    dev.memory_used_bytes = mib(1)
    dev.clocks_mhz = {G: 345, SM: 345, MEM: 3199, VIDEO: 765}
    dev.max_clocks_mhz = {G: 1980, SM: 1980, MEM: 3201, VIDEO: 1545}
    dev.app_clocks_mhz = {G: 1980, MEM: 3201}
    # T.Limit = 28 + 59 = 87 C; same -2 / -8 / 0 offsets as H100.
    dev.thresholds_c = {SHUTDOWN: 95, SLOWDOWN: 89, GPU_MAX: 87}
    # nvlink-s-h100-sxm-and-h200.txt: 18 links at 26.562 GB/s on the H200 as well.
    dev.nvlinks = _nvswitch_links()
    return FakeBox(
        name="H200",
        devices=[dev],
        driver_version="550.90.12",
        cuda_driver_version=12040,
    )


# --- H100 80GB HBM3 in MIG mode (3g.40gb + 2g.20gb + 2x 1g.10gb) ----------------------------------


def h100_mig_box() -> FakeBox:
    """One MIG-enabled H100 80GB HBM3: GPM per GPU instance (``nvmlGpmMigSampleGet``)."""
    # mig-h100-80gb-hbm3.txt (driver 590.48.01, under gpu-burn + 2 memhogs).
    dev = _h100(0, "00000000:00:09.0", 72.63, 42, 48, 9, 359, 329)
    dev.uuid = _uuid("h1m0", 0)
    dev.vbios_version = "96.00.A5.00.01"
    dev.memory_reserved_bytes = mib(479)
    dev.memory_used_bytes = mib(59)
    # Utilization: N/A on a MIG parent; Remapped Rows: N/A; nvlink -s refused in MIG mode.
    dev.util_gpu_pct = dev.util_mem_pct = dev.util_enc_pct = dev.util_dec_pct = None
    dev.remapped_rows = None
    dev.mig_mode = (1, 1)
    dev.mig_devices = [
        # MIG Device blocks: GPU Instance ID 2, 3, 9, 10 (Compute Instance ID 0), FB Total/Used.
        FakeMigDevice(
            profile, f"MIG-0000000{k}-0000-0000-0000-00000000000{k}", mib(total), mib(used), gi
        )
        for k, (profile, total, used, gi) in enumerate(
            [
                ("3g.40gb", 40448, 26, 2),
                ("2g.20gb", 20096, 17, 3),
                ("1g.10gb", 9984, 9, 9),
                ("1g.10gb", 9984, 9, 10),
            ]
        )
    ]
    return FakeBox(
        name="H100 80GB HBM3 MIG 3g.40gb + 2g.20gb + 2x 1g.10gb",
        devices=[dev],
        driver_version="590.48.01",
        cuda_driver_version=13010,  # CUDA Version : 13.1
    )


# --- fleets ------------------------------------------------------------------------------------------


def make_fleet(n: int, *, processes_per_gpu: int = 0, real_pids: bool = False) -> FakeBox:
    """``n`` H100 SXM GPUs on NVSwitch (0 and 16 are the edge cases).

    ``processes_per_gpu`` puts that many compute processes on each GPU; with ``real_pids``
    they are pids of this machine (so psutil finds them), otherwise unlikely pids.
    """
    devices = []
    pids = _real_pids() if real_pids else []
    next_fake = 4_000_000
    for i in range(n):
        base = _H100_GPUS[i % len(_H100_GPUS)]
        bus = 0x18 + i * 0x08
        dev = _h100(i, f"00000000:{bus:02X}:00.0", *base[1:])
        for k in range(processes_per_gpu):
            if pids:
                pid = pids[(i * processes_per_gpu + k) % len(pids)]
            else:
                pid = next_fake
                next_fake += 1
            dev.processes.append(
                FakeProcess(
                    pid=pid,
                    used_memory_bytes=mib(512 + 64 * k),
                    sm_util_pct=10 + k % 80,
                    mem_util_pct=5,
                )
            )
        devices.append(dev)
    half = max(1, n // 2)
    ancestors = {
        (i, j): nv.NVML_TOPOLOGY_NODE if (i < half) == (j < half) else nv.NVML_TOPOLOGY_SYSTEM
        for i in range(n)
        for j in range(i + 1, n)
    }
    return FakeBox(
        name=f"{n}x H100 SXM5 (NVSwitch)",
        devices=devices,
        driver_version="565.57.01",
        cuda_driver_version=12070,
        common_ancestor=ancestors,
    )


def _real_pids() -> list[int]:
    try:
        return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    except OSError:
        return [os.getpid()]


#: Name -> factory, for parametrized fixtures.
BOXES = {
    "h100x8": h100_sxm_8gpu_box,
    "rtx4090x2": rtx4090_pcie_2gpu_box,
    "a100mig": a100_mig_box,
    "h100mig": h100_mig_box,
    "t4": t4_box,
    "h200": h200_box,
}
