"""Static facts of each GPU (``nvidia-smi -q``), its NVLinks and the GPU×GPU topology.

Read once when an :class:`~gpuprof.telemetry.nvml.NvmlSource` starts (link states again on
the slow cadence), through a :class:`~gpuprof.telemetry.nvml.query.Query`; no pynvml here.
"""

from __future__ import annotations

from gpuprof.telemetry.model import DeviceInfo, MigDeviceInfo, Topology
from gpuprof.telemetry.nvml.query import (
    DeviceState,
    GpuLost,
    LinkStatic,
    Query,
    error_kind,
    field_values,
    memory_info,
)
from gpuprof.telemetry.nvml.values import (
    AGG_RX,
    AGG_TX,
    ARCHITECTURES,
    CLOCK_GRAPHICS,
    CLOCK_MEM,
    CLOCK_SM,
    CLOCK_VIDEO,
    COMPUTE_MODES,
    ERROR_GPU_IS_LOST,
    ERROR_NOT_FOUND,
    FI_DEV_MEMORY_TEMP,
    FI_DEV_NVLINK_LINK_COUNT,
    FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
    FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
    NVLINK_MAX_LINKS,
    NVLINK_REMOTE_TYPES,
    NVLINK_VERSIONS,
    THRESHOLD_GPU_MAX,
    THRESHOLD_SHUTDOWN,
    THRESHOLD_SLOWDOWN,
    bus_key,
    milli,
    text,
    to_flag,
    to_float,
    to_int,
    topology_label,
)

__all__ = ["build_topology", "open_device", "read_links"]


def open_device(q: Query, index: int) -> DeviceState:
    """The handle and static facts of GPU ``index``; a lost or unusable GPU stays empty."""
    try:
        handle = q.fn("nvmlDeviceGetHandleByIndex")(index)
    except Exception as exc:
        # Lost, or unusable (e.g. no permission on this one device): its samples stay empty.
        q.diagnostics.record(index, "handle", error_kind(exc), str(exc))
        lost = getattr(exc, "value", None) == ERROR_GPU_IS_LOST
        return DeviceState(
            index=index,
            handle=None,
            lost=lost,
            info=DeviceInfo(index=index, name="Unknown GPU"),
        )
    dev = DeviceState(index=index, handle=handle)
    try:
        dev.info = _read_info(q, dev)
        read_links(q, dev)
    except GpuLost:
        dev.lost = True
        if dev.info is None:
            dev.info = DeviceInfo(index=index, name="Unknown GPU", uuid=dev.uuid)
    return dev


def _read_info(q: Query, dev: DeviceState) -> DeviceInfo:
    """Static facts (``nvidia-smi -q``): read once when the source starts."""
    g = q.get
    dev.uuid = text(g(dev, "uuid", "nvmlDeviceGetUUID"))
    pci = g(dev, "pci_info", "nvmlDeviceGetPciInfo")
    dev.bus_id = text(getattr(pci, "busId", None)) if pci is not None else None
    mem = memory_info(q, dev)
    cc = g(dev, "compute_capability", "nvmlDeviceGetCudaComputeCapability")
    constraints = g(dev, "power_limit_constraints", "nvmlDeviceGetPowerManagementLimitConstraints")
    ecc_mode = g(dev, "ecc_mode", "nvmlDeviceGetEccMode")
    mig_mode = g(dev, "mig_mode", "nvmlDeviceGetMigMode")
    num_fans = g(dev, "fan_count", "nvmlDeviceGetNumFans")
    dev.num_fans = int(num_fans) if num_fans else 0
    arch = g(dev, "architecture", "nvmlDeviceGetArchitecture")
    compute_mode = g(dev, "compute_mode", "nvmlDeviceGetComputeMode")
    mig_current = to_flag(mig_mode[0]) if mig_mode is not None else None
    nvlink_count = _nvlink_count(q, dev, mig_current)
    # One nvmlDeviceGetFieldValues call per poll: memory temperature and the NVLink data
    # counters summed over all links; the per-link counters join it on the slow cadence.
    dev.field_ids = [(FI_DEV_MEMORY_TEMP, 0)]
    if nvlink_count:
        dev.field_ids += [AGG_TX, AGG_RX]
    dev.link_field_ids = []
    for link in range(nvlink_count):
        dev.link_field_ids.append((FI_DEV_NVLINK_THROUGHPUT_DATA_TX, link))
        dev.link_field_ids.append((FI_DEV_NVLINK_THROUGHPUT_DATA_RX, link))
    return DeviceInfo(
        index=dev.index,
        name=text(g(dev, "name", "nvmlDeviceGetName")) or "Unknown GPU",
        uuid=dev.uuid,
        pci_bus_id=dev.bus_id,
        serial=text(g(dev, "serial", "nvmlDeviceGetSerial")),
        vbios_version=text(g(dev, "vbios_version", "nvmlDeviceGetVbiosVersion")),
        board_part_number=text(g(dev, "board_part_number", "nvmlDeviceGetBoardPartNumber")),
        architecture=None if arch is None else ARCHITECTURES.get(int(arch), "Unknown"),
        compute_capability=None if cc is None else (int(cc[0]), int(cc[1])),
        memory_total_bytes=None if mem is None else int(mem.total),
        graphics_clock_max_mhz=to_int(
            g(dev, "graphics_clock_max", "nvmlDeviceGetMaxClockInfo", CLOCK_GRAPHICS)
        ),
        sm_clock_max_mhz=to_int(g(dev, "sm_clock_max", "nvmlDeviceGetMaxClockInfo", CLOCK_SM)),
        mem_clock_max_mhz=to_int(g(dev, "mem_clock_max", "nvmlDeviceGetMaxClockInfo", CLOCK_MEM)),
        video_clock_max_mhz=to_int(
            g(dev, "video_clock_max", "nvmlDeviceGetMaxClockInfo", CLOCK_VIDEO)
        ),
        power_default_limit_w=milli(
            g(dev, "power_default_limit", "nvmlDeviceGetPowerManagementDefaultLimit")
        ),
        power_min_limit_w=None if constraints is None else constraints[0] / 1000.0,
        power_max_limit_w=None if constraints is None else constraints[1] / 1000.0,
        temp_slowdown_c=to_float(
            g(dev, "temp_slowdown", "nvmlDeviceGetTemperatureThreshold", THRESHOLD_SLOWDOWN)
        ),
        temp_shutdown_c=to_float(
            g(dev, "temp_shutdown", "nvmlDeviceGetTemperatureThreshold", THRESHOLD_SHUTDOWN)
        ),
        temp_max_operating_c=to_float(
            g(dev, "temp_max_operating", "nvmlDeviceGetTemperatureThreshold", THRESHOLD_GPU_MAX)
        ),
        pcie_gen_max=to_int(g(dev, "pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")),
        pcie_width_max=to_int(g(dev, "pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")),
        nvlink_count=nvlink_count,
        fan_count=dev.num_fans,
        ecc_mode_current=None if ecc_mode is None else to_flag(ecc_mode[0]),
        ecc_mode_pending=None if ecc_mode is None else to_flag(ecc_mode[1]),
        mig_mode_current=mig_current,
        mig_mode_pending=None if mig_mode is None else to_flag(mig_mode[1]),
        mig_devices=_mig_devices(q, dev) if mig_current else (),
        compute_mode=None
        if compute_mode is None
        else COMPUTE_MODES.get(int(compute_mode), str(compute_mode)),
        persistence_mode=to_flag(g(dev, "persistence_mode", "nvmlDeviceGetPersistenceMode")),
        display_active=to_flag(g(dev, "display_active", "nvmlDeviceGetDisplayActive")),
        multi_gpu_board=to_flag(g(dev, "multi_gpu_board", "nvmlDeviceGetMultiGpuBoard")),
    )


def _nvlink_count(q: Query, dev: DeviceState, mig_enabled: bool | None) -> int:
    """Links of this GPU: the NVLINK_LINK_COUNT field, else probe link states.

    ``nvidia-smi nvlink -s`` says "Nvlink queries are not supported for Devices in MIG
    mode": a MIG parent gets no links.
    """
    if mig_enabled:
        return 0
    values = field_values(q, dev, "nvlink_count", [(FI_DEV_NVLINK_LINK_COUNT, 0)], prune=False)
    if values and values[0][1] is not None:
        count = int(values[0][1])
    else:
        count = 0
        fn = q.fn("nvmlDeviceGetNvLinkState")
        for link in range(NVLINK_MAX_LINKS):
            try:
                fn(dev.handle, link)
            except Exception as exc:
                if count == 0:
                    q.failed(dev, "nvlink_state", exc)
                break
            count += 1
    count = min(count, NVLINK_MAX_LINKS)
    dev.links = [LinkStatic(link) for link in range(count)]
    return count


def read_links(q: Query, dev: DeviceState) -> None:
    """Per-link state (``nvidia-smi nvlink -s``) at every call; version and far end (``-R``)
    the first time, and again when the state changed or an active link lacks one: they are
    fixed while the link stays up, and three of the four NVML calls per link (18 on an H100)."""
    g = q.get
    for link in dev.links:
        n = link.link
        if not link.names:
            link.names = tuple(
                f"nvlink{n}.{kind}" for kind in ("state", "version", "remote_type", "remote_pci")
            )
        state, version_name, remote_name, pci_name = link.names
        active = to_flag(g(dev, state, "nvmlDeviceGetNvLinkState", n))
        missing = link.version is None or link.remote_type is None or not link.remote_pci_bus_id
        if link.read and active == link.active and not (active and missing):
            continue
        link.active, link.read = active, True
        version = g(dev, version_name, "nvmlDeviceGetNvLinkVersion", n)
        link.version = None if version is None else NVLINK_VERSIONS.get(int(version))
        remote = g(dev, remote_name, "nvmlDeviceGetNvLinkRemoteDeviceType", n)
        link.remote_type = None if remote is None else NVLINK_REMOTE_TYPES.get(int(remote))
        pci = g(dev, pci_name, "nvmlDeviceGetNvLinkRemotePciInfo", n)
        link.remote_pci_bus_id = text(getattr(pci, "busId", None)) if pci is not None else None
    dev.link_samples = None


def _mig_devices(q: Query, dev: DeviceState) -> tuple[MigDeviceInfo, ...]:
    """MIG instances of a parent GPU (``nvidia-smi -L`` MIG lines + their FB memory)."""
    count = q.get(dev, "mig_device_count", "nvmlDeviceGetMaxMigDeviceCount")
    out: list[MigDeviceInfo] = []
    for slot in range(int(count or 0)):
        try:
            mig = q.fn("nvmlDeviceGetMigDeviceHandleByIndex")(dev.handle, slot)
        except Exception as exc:
            if getattr(exc, "value", None) != ERROR_NOT_FOUND:  # empty slot: normal
                q.failed(dev, "mig_handle", exc)
            continue
        sub = DeviceState(index=dev.index, handle=mig)
        mem = memory_info(q, sub, field_prefix="mig_")
        out.append(
            MigDeviceInfo(
                index=len(out),
                name=text(q.get(sub, "mig_name", "nvmlDeviceGetName")) or "MIG device",
                uuid=text(q.get(sub, "mig_uuid", "nvmlDeviceGetUUID")),
                memory_total_bytes=None if mem is None else int(mem.total),
                memory_used_bytes=None if mem is None else int(mem.used),
                gpu_instance_id=to_int(q.get(sub, "mig_gi", "nvmlDeviceGetGpuInstanceId")),
                compute_instance_id=to_int(q.get(sub, "mig_ci", "nvmlDeviceGetComputeInstanceId")),
            )
        )
    return tuple(out)


def build_topology(q: Query, devs: list[DeviceState]) -> Topology:
    """GPU×GPU links as ``nvidia-smi topo -m`` prints them.

    ``NV<n>``: n active NVLinks between the pair, counted from each link's remote PCI bus
    id, or through NVSwitches when both GPUs have active links to a switch. Otherwise the
    PCIe common ancestor (``nvmlDeviceGetTopologyCommonAncestor``).
    """
    by_bus = {bus_key(d.bus_id): d.index for d in devs if d.bus_id}
    direct: dict[tuple[int, int], int] = {}
    switch_links: dict[int, int] = {}
    for d in devs:
        for link in d.links:
            if not link.active:
                continue
            peer = by_bus.get(bus_key(link.remote_pci_bus_id))
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
                    level = q.fn("nvmlDeviceGetTopologyCommonAncestor")(a.handle, b.handle)
                except Exception as exc:
                    try:
                        q.failed(a, "topology", exc)
                    except GpuLost:
                        a.lost = True
                    level = None
                row.append(topology_label(level))
        matrix.append(tuple(row))
    return Topology(gpu_indices=tuple(d.index for d in devs), matrix=tuple(matrix))
