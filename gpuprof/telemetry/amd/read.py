"""What the AMD source reads through amdsmi: static facts once, samples at every poll.

Free of amdsmi imports: every call goes through :class:`~gpuprof.telemetry.amd.lib.AmdQuery`.
Each absent value is ``None`` with its reason in :attr:`GpuSample.absent`, never a zero.

The ``amd-smi`` CLI equivalents are named in the docstrings. Units leave this module as the
model's: bytes, W, J, MHz, °C, % and bytes/s.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuprof.telemetry.amd.lib import AmdQuery, DeviceState
from gpuprof.telemetry.amd.values import NA_REASON, Reading, pcie_gen, reading, watts
from gpuprof.telemetry.model import DeviceInfo, EccBlock, EccCounts, GpuSample, Topology
from gpuprof.telemetry.reasons import ClockEventReason

__all__ = ["ECC_BLOCKS", "read_device_info", "read_processes", "read_topology", "sample_gpu"]

MIB = 1 << 20
#: ECC / RAS blocks read one by one (amdsmi AmdSmiGpuBlock names), in amd-smi's order.
ECC_BLOCKS = ("UMC", "SDMA", "GFX", "MMHUB", "ATHUB", "PCIE_BIF", "HDP", "XGMI_WAFL")
#: amdsmi_get_violation_status ``active_*`` flags -> the app's clock-event reasons.
_VIOLATIONS = {
    "active_ppt_pwr": ClockEventReason.SW_POWER_CAP,
    "active_socket_thrm": ClockEventReason.SW_THERMAL_SLOWDOWN,
    "active_hbm_thrm": ClockEventReason.HW_THERMAL_SLOWDOWN,
    "active_vr_thrm": ClockEventReason.HW_THERMAL_SLOWDOWN,
    "active_prochot_thrm": ClockEventReason.HW_SLOWDOWN,
}
_ARCH = {"gfx90a": "CDNA2", "gfx942": "CDNA3", "gfx950": "CDNA4", "gfx908": "CDNA"}


def _num(raw: Any, fld: str, reasons: dict[str, str], scale: float = 1.0) -> float | None:
    r = reading(raw)
    if r.value is None:
        reasons.setdefault(fld, r.reason or NA_REASON)
        return None
    return r.value * scale


def _int(raw: Any) -> int | None:
    v = reading(raw).value
    return None if v is None else int(v)


def _text(raw: Any) -> str | None:
    if not isinstance(raw, str) or not raw.strip() or raw.strip().upper() == "N/A":
        return None
    return raw.strip()


def _dict(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


# --- static ----------------------------------------------------------------------------------


def read_device_info(q: AmdQuery, dev: DeviceState) -> DeviceInfo:
    """``amd-smi static``: name, ids, VRAM, clock and power limits, thresholds, PCIe, XGMI,
    ECC, partitions."""
    why: dict[str, str] = {}
    asic = _dict(q.get(dev, "asic", "amdsmi_get_gpu_asic_info", reasons=why))
    board = _dict(q.get(dev, "board", "amdsmi_get_gpu_board_info", reasons=why))
    vbios = _dict(q.get(dev, "vbios", "amdsmi_get_gpu_vbios_info", reasons=why))
    vram = _dict(q.get(dev, "vram", "amdsmi_get_gpu_vram_info", reasons=why))
    caps = _dict(q.get(dev, "power_cap", "amdsmi_get_power_cap_info", reasons=why))
    pcie = _dict(_dict(q.get(dev, "pcie", "amdsmi_get_pcie_info", reasons=why)).get("pcie_static"))
    links = _dict(q.get(dev, "xgmi_links", "amdsmi_get_link_metrics", reasons=why))
    gfx = _dict(q.get(dev, "gfx_clk", "amdsmi_get_clock_info", _clk(q, "GFX"), reasons=why))
    mem = _dict(q.get(dev, "mem_clk", "amdsmi_get_clock_info", _clk(q, "MEM"), reasons=why))
    hotspot = q.const("AmdSmiTemperatureType", "HOTSPOT")
    slowdown = q.get(
        dev,
        "temp_slowdown",
        "amdsmi_get_temp_metric",
        hotspot,
        q.const("AmdSmiTemperatureMetric", "CRITICAL"),
        reasons=why,
    )
    shutdown = q.get(
        dev,
        "temp_shutdown",
        "amdsmi_get_temp_metric",
        hotspot,
        q.const("AmdSmiTemperatureMetric", "EMERGENCY"),
        reasons=why,
    )
    fan = q.get(dev, "fan", "amdsmi_get_gpu_fan_speed_max", 0, reasons=why)
    ecc_mask = q.get(dev, "ecc_enabled", "amdsmi_get_gpu_ecc_enabled", reasons=why)
    compute = q.get(dev, "compute_partition", "amdsmi_get_gpu_compute_partition", reasons=why)
    memory = q.get(dev, "memory_partition", "amdsmi_get_gpu_memory_partition", reasons=why)
    gfx_version = _text(asic.get("target_graphics_version"))
    vram_mb = reading(vram.get("vram_size")).value
    return DeviceInfo(
        index=dev.index,
        name=_text(asic.get("market_name")) or _text(board.get("product_name")) or "AMD GPU",
        uuid=_text(q.get(dev, "uuid", "amdsmi_get_gpu_device_uuid", reasons=why)),
        pci_bus_id=_text(q.get(dev, "bdf", "amdsmi_get_gpu_device_bdf", reasons=why)),
        serial=_text(board.get("product_serial")),
        vbios_version=_text(vbios.get("version")) or _text(vbios.get("part_number")),
        board_part_number=_text(board.get("model_number")),
        architecture=None
        if gfx_version is None
        else f"{_ARCH[gfx_version]} ({gfx_version})"
        if gfx_version in _ARCH
        else gfx_version,
        memory_total_bytes=None if vram_mb is None else int(vram_mb * MIB),
        graphics_clock_max_mhz=_int(gfx.get("max_clk")),
        sm_clock_max_mhz=_int(gfx.get("max_clk")),
        mem_clock_max_mhz=_int(mem.get("max_clk")),
        power_default_limit_w=watts(caps.get("default_power_cap"), microwatts=True).value,
        power_min_limit_w=watts(caps.get("min_power_cap"), microwatts=True).value,
        power_max_limit_w=watts(caps.get("max_power_cap"), microwatts=True).value,
        temp_slowdown_c=reading(slowdown).value,
        temp_shutdown_c=reading(shutdown).value,
        pcie_gen_max=pcie_gen(reading(pcie.get("max_pcie_speed")).value),
        pcie_width_max=_int(pcie.get("max_pcie_width")),
        fan_count=1 if reading(fan).value else 0,
        ecc_mode_current=None if ecc_mask is None else bool(_int(ecc_mask)),
        vendor="amd",
        compute_partition=_text(compute),
        memory_partition=_text(memory),
        xgmi_link_count=_int(links.get("num_links")) or 0,
    )


def _clk(q: AmdQuery, name: str) -> Any:
    return q.const("AmdSmiClkType", name)


def read_topology(q: AmdQuery, devices: list[DeviceState]) -> Topology:
    """GPU x GPU links (``amd-smi topology``): ``XGMI`` one hop apart, ``SYS`` over PCIe."""
    xgmi = q.const("AmdSmiLinkType", "XGMI")
    rows: list[tuple[str | None, ...]] = []
    for a in devices:
        row: list[str | None] = []
        for b in devices:
            if a is b:
                row.append("X")
                continue
            try:
                link = _dict(q.call("amdsmi_topo_get_link_type", a.handle, b.handle))
            except Exception as exc:
                q.failed(a, "topology", "amdsmi_topo_get_link_type", exc)
                row.append(None)
                continue
            row.append("XGMI" if link.get("type") == xgmi else "SYS")
        rows.append(tuple(row))
    return Topology(gpu_indices=tuple(d.index for d in devices), matrix=tuple(rows))


# --- per poll --------------------------------------------------------------------------------


def sample_gpu(q: AmdQuery, dev: DeviceState, now_s: float, slow: bool) -> GpuSample:
    """``amd-smi metric``: one :class:`GpuSample`; ``slow``: read ECC / RAS counts too."""
    why: dict[str, str] = {}
    act = _dict(q.get(dev, "activity", "amdsmi_get_gpu_activity", reasons=why))
    _spread(why, "activity", ("util_gpu_pct", "util_mem_pct", "util_mm_pct"))
    vram = _dict(q.get(dev, "vram_usage", "amdsmi_get_gpu_vram_usage", reasons=why))
    _spread(why, "vram_usage", ("mem_total_bytes", "mem_used_bytes"))
    total = _num(vram.get("vram_total"), "mem_total_bytes", why, MIB)
    used = _num(vram.get("vram_used"), "mem_used_bytes", why, MIB)
    power_w, limit_w, cap_w = _power(q, dev, why)
    energy = _dict(q.get(dev, "energy_total_j", "amdsmi_get_energy_count", reasons=why))
    acc = reading(energy.get("energy_accumulator")).value
    res = reading(energy.get("counter_resolution")).value
    gfx_mhz = _clock(q, dev, "GFX", "clock_graphics_mhz", why)
    temps = {
        fld: _temp(q, dev, sensor, fld, why)
        for fld, sensor in (
            ("temp_gpu_c", "EDGE"),
            ("temp_hotspot_c", "HOTSPOT"),
            ("temp_mem_c", "VRAM"),
        )
    }
    pcie = _dict(_dict(q.get(dev, "pcie", "amdsmi_get_pcie_info", reasons=why)).get("pcie_metric"))
    _spread(why, "pcie", ("pcie_gen", "pcie_width"))
    xgmi_read, xgmi_write = _xgmi(q, dev, now_s, why)
    mask = _throttle(q, dev, why)
    if slow:
        dev.ecc = _ecc(q, dev, why)
    elif "ecc" in dev.skip:
        why["ecc"] = dev.skip["ecc"]
    why["pcie_rx_bytes_s"] = why["pcie_tx_bytes_s"] = "amdsmi has no PCIe rx/tx split"
    if why.get("clock_graphics_mhz"):
        why["clock_sm_mhz"] = why["clock_graphics_mhz"]
    fan = _fan(q, dev, why)
    sample = GpuSample(
        index=dev.index,
        uuid=None if dev.info is None else dev.info.uuid,
        util_gpu_pct=_num(act.get("gfx_activity"), "util_gpu_pct", why),
        util_mem_pct=_num(act.get("umc_activity"), "util_mem_pct", why),
        util_mm_pct=_num(act.get("mm_activity"), "util_mm_pct", why),
        mem_total_bytes=None if total is None else int(total),
        mem_used_bytes=None if used is None else int(used),
        mem_free_bytes=None if total is None or used is None else int(total - used),
        # AMD has one shader-engine clock, GFX: it stands for both graphics and SM clocks.
        clock_graphics_mhz=gfx_mhz,
        clock_sm_mhz=gfx_mhz,
        clock_mem_mhz=_clock(q, dev, "MEM", "clock_mem_mhz", why),
        clock_soc_mhz=_clock(q, dev, "SOC", "clock_soc_mhz", why),
        power_w=power_w,
        power_limit_w=limit_w,
        power_enforced_limit_w=cap_w,
        energy_total_j=None if acc is None or res is None else acc * res * 1e-6,
        temp_gpu_c=temps["temp_gpu_c"],
        temp_hotspot_c=temps["temp_hotspot_c"],
        temp_mem_c=temps["temp_mem_c"],
        fan_speed_pct=fan,
        throttle_mask=mask,
        throttle_reasons=() if mask is None else ClockEventReason(mask).throttle_names,
        pcie_gen=pcie_gen(_num(pcie.get("pcie_speed"), "pcie_gen", why)),
        pcie_width=_int(pcie.get("pcie_width")),
        pcie_replay_count=_int(pcie.get("pcie_replay_count")),
        xgmi_read_bytes_s=xgmi_read,
        xgmi_write_bytes_s=xgmi_write,
        ecc=dev.ecc,
        prof_unavailable="NVML GPM is NVIDIA only; amdsmi has no SM-activity counter",
    )
    absent = tuple(
        (fld, text)
        for fld, text in sorted(why.items())
        if hasattr(sample, fld) and getattr(sample, fld) in (None, ())
    )
    return _with_absent(sample, absent)


def _with_absent(sample: GpuSample, absent: tuple[tuple[str, str], ...]) -> GpuSample:
    return replace(sample, absent=absent) if absent else sample


def _spread(why: dict[str, str], call: str, fields: tuple[str, ...]) -> None:
    """A failed call leaves each of its fields absent for the call's reason."""
    if call in why:
        for fld in fields:
            why.setdefault(fld, why[call])


def _power(q: AmdQuery, dev: DeviceState, why: dict[str, str]) -> tuple[Any, Any, Any]:
    """Socket power (W) now, the power limit and the enforced cap (µW in amdsmi).

    MI300 reports ``current_socket_power`` and "N/A" as average; MI200 the reverse
    (ROCm/pytorch PR #1457); older releases only ``socket_power``: the first that has a value.
    """
    info = _dict(q.get(dev, "power_w", "amdsmi_get_power_info", reasons=why))
    power: Reading = Reading(None, None, why.get("power_w", NA_REASON))
    for key in ("current_socket_power", "average_socket_power", "socket_power"):
        r = watts(info.get(key), microwatts=False)
        if r.value is not None:
            power = r
            break
    if power.value is None:
        why.setdefault("power_w", power.reason or NA_REASON)
    limit = watts(info.get("power_limit"), microwatts=True)
    if limit.value is None:
        why.setdefault("power_limit_w", limit.reason or why.get("power_w", NA_REASON))
    caps = _dict(q.get(dev, "power_enforced_limit_w", "amdsmi_get_power_cap_info", reasons=why))
    cap = watts(caps.get("power_cap"), microwatts=True)
    if cap.value is None:
        why.setdefault("power_enforced_limit_w", cap.reason or NA_REASON)
    return power.value, limit.value, cap.value


def _clock(q: AmdQuery, dev: DeviceState, kind: str, fld: str, why: dict[str, str]) -> Any:
    info = _dict(q.get(dev, fld, "amdsmi_get_clock_info", _clk(q, kind), reasons=why))
    return _num(info.get("clk"), fld, why) if info else None


def _temp(q: AmdQuery, dev: DeviceState, sensor: str, fld: str, why: dict[str, str]) -> Any:
    raw = q.get(
        dev,
        fld,
        "amdsmi_get_temp_metric",
        q.const("AmdSmiTemperatureType", sensor),
        q.const("AmdSmiTemperatureMetric", "CURRENT"),
        reasons=why,
    )
    return None if raw is None else _num(raw, fld, why)


def _fan(q: AmdQuery, dev: DeviceState, why: dict[str, str]) -> tuple[float | None, ...]:
    speed = q.get(dev, "fan_speed_pct", "amdsmi_get_gpu_fan_speed", 0, reasons=why)
    top = q.get(dev, "fan_speed_pct", "amdsmi_get_gpu_fan_speed_max", 0, reasons=why)
    s, m = reading(speed).value, reading(top).value
    if s is None or not m:
        why.setdefault("fan_speed_pct", NA_REASON)
        return ()
    return (100.0 * s / m,)


def _xgmi(
    q: AmdQuery, dev: DeviceState, now_s: float, why: dict[str, str]
) -> tuple[float | None, float | None]:
    """XGMI read/write bytes/s over all links, from gpu_metrics' per-link KB accumulators."""
    if dev.info is not None and not dev.info.xgmi_link_count:
        why["xgmi_read_bytes_s"] = why["xgmi_write_bytes_s"] = "no XGMI links on this GPU"
        return None, None
    metrics = _dict(q.get(dev, "xgmi_read_bytes_s", "amdsmi_get_gpu_metrics_info", reasons=why))
    _spread(why, "xgmi_read_bytes_s", ("xgmi_write_bytes_s",))
    totals = []
    for key in ("xgmi_read_data_acc", "xgmi_write_data_acc"):
        values = [reading(v).value for v in (metrics.get(key) or [])]
        kept = [v for v in values if v is not None]
        totals.append(sum(kept) if kept else None)
    if totals[0] is None or totals[1] is None:
        why.setdefault("xgmi_read_bytes_s", NA_REASON)
        why.setdefault("xgmi_write_bytes_s", NA_REASON)
        dev.xgmi_prev = None
        return None, None
    prev, dev.xgmi_prev = dev.xgmi_prev, (now_s, totals[0], totals[1])
    if prev is None or now_s <= prev[0] or totals[0] < prev[1] or totals[1] < prev[2]:
        why["xgmi_read_bytes_s"] = why["xgmi_write_bytes_s"] = "first sample: a rate needs two"
        return None, None
    dt = now_s - prev[0]
    # amdsmi labels the accumulators KB; taken as 1024 bytes.
    return (totals[0] - prev[1]) * 1024 / dt, (totals[1] - prev[2]) * 1024 / dt


def _throttle(q: AmdQuery, dev: DeviceState, why: dict[str, str]) -> int | None:
    status = q.get(dev, "throttle_mask", "amdsmi_get_violation_status", reasons=why)
    if not isinstance(status, dict):
        why.setdefault("throttle_mask", NA_REASON)
        return None
    mask = ClockEventReason(0)
    for key, reason in _VIOLATIONS.items():
        if status.get(key) is True or reading(status.get(key)).value:
            mask |= reason
    return int(mask)


def _ecc(q: AmdQuery, dev: DeviceState, why: dict[str, str]) -> EccCounts | None:
    """``amd-smi metric --ecc --ecc-blocks``: totals and each enabled block's counts."""
    total = q.get(dev, "ecc", "amdsmi_get_gpu_total_ecc_count", reasons=why)
    if not isinstance(total, dict):
        return None
    blocks = []
    for name in ECC_BLOCKS:
        fld = f"ecc_{name.lower()}"
        block = getattr(q.smi.AmdSmiGpuBlock, name, None)
        if block is None:
            continue
        counts = q.get(dev, fld, "amdsmi_get_gpu_ecc_count", block, reasons={})
        if isinstance(counts, dict):
            blocks.append(
                EccBlock(
                    block=name,
                    corrected=_int(counts.get("correctable_count")),
                    uncorrected=_int(counts.get("uncorrectable_count")),
                    deferred=_int(counts.get("deferred_count")),
                )
            )
    # amdsmi's counts are since the driver loaded: the "volatile" ones in NVML's terms.
    return EccCounts(
        volatile_corrected=_int(total.get("correctable_count")),
        volatile_uncorrected=_int(total.get("uncorrectable_count")),
        blocks=tuple(blocks),
    )


def read_processes(
    q: AmdQuery, dev: DeviceState, now_s: float
) -> dict[int, tuple[str | None, int | None, float | None]]:
    """``amd-smi process``: pid -> (name, VRAM bytes, GFX engine busy % since the last poll)."""
    raw = q.get(dev, "processes", "amdsmi_get_gpu_process_list", reasons={})
    out: dict[int, tuple[str | None, int | None, float | None]] = {}
    seen: dict[int, tuple[float, float]] = {}
    for proc in raw if isinstance(raw, list) else []:
        if not isinstance(proc, dict):
            continue
        pid = _int(proc.get("pid"))
        if pid is None:
            continue
        usage = _dict(proc.get("memory_usage"))
        vram = _int(usage.get("vram_mem"))
        if vram is None:
            vram = _int(proc.get("mem"))
        gfx_ns = reading(_dict(proc.get("engine_usage")).get("gfx")).value
        busy = None
        if gfx_ns is not None:
            seen[pid] = (now_s, gfx_ns)
            prev = dev.proc_prev.get(pid)
            if prev is not None and now_s > prev[0] and gfx_ns >= prev[1]:
                busy = min(100.0, 100.0 * (gfx_ns - prev[1]) * 1e-9 / (now_s - prev[0]))
        out[pid] = (_text(proc.get("name")), vram, busy)
    dev.proc_prev = seen
    return out
