"""The simulated machines behind ``--demo``: an 8×H100 SXM (NVSwitch) box and a 2×RTX 4090 box.

Static facts only (device and host descriptions, busy/idle levels); the scripted workload that
drives them is :class:`~gpuprof.telemetry.simulated.SimulatedSource`. The device facts come from
real ``nvidia-smi -q`` captures in ``reference/nvidia-smi/``; they are typed once, here: the fake
NVML of the tests (``tests/fakes/devices.py``) reads its H100 and RTX 4090 from these tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuprof.telemetry.model import DeviceInfo, SystemInfo

__all__ = ["GIB", "H100_SXM5_80GB", "H100_SXM5_BUS_IDS", "MIB", "RTX_4090", "SCENARIOS", "Scenario"]

MIB = 2**20
GIB = 2**30


@dataclass(frozen=True)
class Scenario:
    """A simulated machine: one GPU model repeated ``gpu_count`` times, and its host."""

    key: str
    label: str
    gpu_count: int
    device: DeviceInfo  # index 0; the others differ by index, UUID and bus id
    bus_ids: tuple[str, ...]
    system: SystemInfo
    link: str  # topology label between every pair of GPUs
    nvlink_bytes_s_per_gpu: float  # busy all-reduce traffic, both directions each
    pcie_busy_bytes_s: float
    idle_power_w: float
    busy_power_w: float  # unthrottled draw at 100% utilization (above the limit: throttles)
    idle_sm_mhz: float
    idle_mem_mhz: float
    idle_video_mhz: float
    idle_temp_c: float
    busy_temp_c: float
    mem_reserved_bytes: int
    job_mem_bytes: int
    idle_mem_used_bytes: int
    idle_pstate: int
    busy_pstate: int
    pcie_gen_idle: int
    pcie_replays: int
    ecc: bool
    fans: int
    process_cmd: str
    process_user: str
    graphics_process: tuple[str, str, int] | None  # name, user, memory bytes on GPU 0
    host_temps: tuple[str, ...]
    gpm: bool = False  # profiling activity (NVML GPM): Hopper and newer data-centre GPUs
    # The training job runs in this Kubernetes pod (name, namespace); None: on the host.
    process_pod: tuple[str, str] | None = None
    process_rss_bytes: int = 12 * GIB  # host memory of each rank (pinned buffers, loader)

    @property
    def host_cores(self) -> int:
        """The host's logical CPUs, as its :class:`SystemInfo` says."""
        return self.system.cpu_count_logical or 1

    @property
    def host_mem_bytes(self) -> int:
        """The host's memory in bytes, as its :class:`SystemInfo` says."""
        return self.system.memory_total_bytes or 0


def _simulated_host(
    hostname: str, driver: str, cuda: str, cpu_model: str, cpus: int, memory_gib: int
) -> SystemInfo:
    """A simulated Linux host with the NVIDIA ``driver`` for CUDA ``cuda``; NVML's version is
    CUDA's major version and the driver's, as ``nvidia-smi -q`` prints it (12.565.57.01)."""
    return SystemInfo(
        hostname=hostname,
        os="Linux (simulated)",
        driver_version=driver,
        cuda_driver_version=cuda,
        nvml_version=f"{cuda.split('.')[0]}.{driver}",
        cpu_model=cpu_model,
        cpu_count_logical=cpus,
        memory_total_bytes=memory_gib * GIB,
    )


# H100 SXM5 80GB facts: reference/nvidia-smi/h100-sxm5-80gb-hbm3.txt (driver 565.57.01).
# The capture prints temperature thresholds relative to T.Limit (57 C above 30 C now -> limit
# 87 C; slowdown 2 C past it, shutdown 8 C past it), converted here to absolute degrees.
H100_SXM5_80GB = DeviceInfo(
    index=0,
    name="NVIDIA H100 80GB HBM3",
    vbios_version="96.00.74.00.01",
    board_part_number="692-2G520-0200-000",
    architecture="Hopper",
    compute_capability=(9, 0),
    memory_total_bytes=81559 * MIB,
    graphics_clock_max_mhz=1980,
    sm_clock_max_mhz=1980,
    mem_clock_max_mhz=2619,
    video_clock_max_mhz=1545,
    power_default_limit_w=700.0,
    power_min_limit_w=200.0,
    power_max_limit_w=700.0,
    temp_slowdown_c=89.0,
    temp_shutdown_c=95.0,
    temp_max_operating_c=87.0,
    pcie_gen_max=5,
    pcie_width_max=16,
    nvlink_count=18,
    fan_count=0,
    ecc_mode_current=True,
    ecc_mode_pending=True,
    mig_mode_current=False,
    mig_mode_pending=False,
    compute_mode="Default",
    persistence_mode=True,
    display_active=False,
    multi_gpu_board=False,
)
#: The eight GPUs' bus ids in the same capture.
H100_SXM5_BUS_IDS: tuple[str, ...] = tuple(
    f"00000000:{b}:00.0" for b in ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")
)

# RTX 4090 facts: reference/nvidia-smi/rtx-4090.txt (driver 550.127.05). T.Limit 56 C above
# 28 C -> 84 C (= the printed target temperature); slowdown +2 C, shutdown +7 C.
RTX_4090 = DeviceInfo(
    index=0,
    name="NVIDIA GeForce RTX 4090",
    vbios_version="95.02.3C.00.EB",
    architecture="Ada Lovelace",
    compute_capability=(8, 9),
    memory_total_bytes=24564 * MIB,
    graphics_clock_max_mhz=3105,
    sm_clock_max_mhz=3105,
    mem_clock_max_mhz=10501,
    video_clock_max_mhz=2415,
    power_default_limit_w=450.0,
    power_min_limit_w=150.0,
    power_max_limit_w=450.0,
    temp_slowdown_c=86.0,
    temp_shutdown_c=91.0,
    temp_max_operating_c=84.0,
    pcie_gen_max=4,
    pcie_width_max=16,
    nvlink_count=0,
    fan_count=1,
    ecc_mode_current=False,
    ecc_mode_pending=False,
    mig_mode_current=None,
    mig_mode_pending=None,
    compute_mode="Default",
    persistence_mode=True,
    display_active=False,
    multi_gpu_board=False,
)

SCENARIOS: dict[str, Scenario] = {
    "h100x8": Scenario(
        key="h100x8",
        label="SIMULATED — 8×H100 SXM (NVSwitch)",
        gpu_count=8,
        device=H100_SXM5_80GB,
        bus_ids=H100_SXM5_BUS_IDS,
        system=_simulated_host(
            "sim-hgx-h100", "565.57.01", "12.7", "Intel(R) Xeon(R) Platinum 8480C", 224, 2048
        ),
        link="NV18",
        nvlink_bytes_s_per_gpu=180e9,
        pcie_busy_bytes_s=3.2e9,
        idle_power_w=70.0,
        busy_power_w=735.0,
        idle_sm_mhz=345.0,
        idle_mem_mhz=2619.0,
        idle_video_mhz=765.0,
        idle_temp_c=30.0,
        busy_temp_c=71.0,
        mem_reserved_bytes=454 * MIB,
        job_mem_bytes=71 * GIB,
        idle_mem_used_bytes=1 * MIB,
        idle_pstate=0,
        busy_pstate=0,
        pcie_gen_idle=5,
        pcie_replays=7,
        ecc=True,
        fans=0,
        process_cmd="/usr/bin/python3 -u train.py --config configs/llama2-7b.yaml --local-rank={rank}",
        process_user="mlops",
        graphics_process=None,
        host_temps=("Package id 0", "Package id 1"),
        gpm=True,
        process_pod=("llama2-7b-pretrain-0", "ml-training"),
        process_rss_bytes=38 * GIB,
    ),
    "rtx4090x2": Scenario(
        key="rtx4090x2",
        label="SIMULATED — 2×RTX 4090 (PCIe)",
        gpu_count=2,
        device=RTX_4090,
        bus_ids=("00000000:01:00.0", "00000000:41:00.0"),
        system=_simulated_host(
            "sim-workstation-4090",
            "550.127.05",
            "12.4",
            "AMD Ryzen Threadripper 3975WX 32-Cores",
            64,
            256,
        ),
        link="PHB",
        nvlink_bytes_s_per_gpu=0.0,
        pcie_busy_bytes_s=9.5e9,  # all-reduce over PCIe: GeForce has no P2P, goes through host
        idle_power_w=20.0,
        busy_power_w=470.0,
        idle_sm_mhz=210.0,
        idle_mem_mhz=405.0,
        idle_video_mhz=555.0,
        idle_temp_c=28.0,
        busy_temp_c=74.0,
        mem_reserved_bytes=354 * MIB,
        job_mem_bytes=21 * GIB,
        idle_mem_used_bytes=2 * MIB,
        idle_pstate=8,
        busy_pstate=2,
        pcie_gen_idle=1,
        pcie_replays=0,
        ecc=False,
        fans=1,
        process_cmd="python finetune.py --model mistral-7b --lora --local-rank={rank}",
        process_user="dev",
        graphics_process=("Xorg", "root", 254 * MIB),
        host_temps=("Tctl", "Tccd1"),
        process_rss_bytes=9 * GIB,
    ),
}
