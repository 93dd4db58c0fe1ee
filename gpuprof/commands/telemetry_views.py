"""What the telemetry commands print: rich tables and views (devices, monitor, replay).

Outside text (device names, bus ids, hostnames, labels, status messages) is shown through
:mod:`gpuprof.termtext`: literally in cells, escaped where it joins our own markup.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuprof.i18n import N_, tr
from gpuprof.telemetry.prof import any_prof, has_prof, prof_reason
from gpuprof.termtext import markup, safe, styled
from gpuprof.units import NA, fmt_bytes, fmt_num, fmt_pct, fmt_rate

if TYPE_CHECKING:
    from rich.console import RenderableType

    from gpuprof.telemetry.model import DeviceInfo, GpuSample, Snapshot, SystemInfo, Topology
    from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "MONITOR_COLUMNS",
    "devices_table",
    "gpu_table",
    "host_table",
    "monitor_view",
    "source_banner",
    "system_table",
    "topology_table",
]


def throttle_text(g: GpuSample) -> str:
    return ", ".join(g.clock_events.throttle_names) or "—"


def source_banner(source: TelemetrySource) -> str:
    """The source as rich markup (its label escaped)."""
    from gpuprof.telemetry.model import SourceKind

    if source.kind is SourceKind.SIMULATED:
        what = source.label.split("—", 1)[-1].strip()
        return tr(
            "[bold yellow]SIMULATED[/] {what} — demo data, not measured on this machine",
            what=safe(what, one_line=True),
        )
    if source.kind is SourceKind.REPLAY:
        return f"[bold cyan]{safe(source.label, one_line=True)}[/]"
    return safe(source.label, one_line=True)


def system_table(system: SystemInfo) -> RenderableType:
    from rich.table import Table

    t = Table(title=tr("System"), show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    t.add_row(tr("Host"), system.hostname or NA)
    t.add_row(tr("OS"), system.os or NA)
    t.add_row(
        tr("CPU"),
        tr(
            "{model} ({n} logical)",
            model=system.cpu_model or NA,
            n=fmt_num(system.cpu_count_logical),
        ),
    )
    t.add_row(tr("RAM"), fmt_bytes(system.memory_total_bytes))
    t.add_row(tr("Driver"), system.driver_version or NA)
    t.add_row(tr("CUDA (driver)"), system.cuda_driver_version or NA)
    t.add_row(tr("NVML"), system.nvml_version or NA)
    return t


def devices_table(devices: Sequence[DeviceInfo], snap: Snapshot) -> RenderableType:
    from rich.table import Table

    samples = {g.index: g for g in snap.gpus}
    t = Table(title=tr("GPUs"), title_justify="left")
    for col in (
        "#",
        N_("Name"),
        N_("Memory"),
        N_("PCIe (now / max)"),
        N_("Power limit"),
        N_("Max SM clock"),
        "ECC",
        "MIG",
        N_("Persist."),
        N_("Bus id"),
        "UUID",
    ):
        t.add_column(tr(col))
    for d in devices:
        g = samples.get(d.index)
        pcie_now = f"Gen{g.pcie_gen} x{g.pcie_width}" if g and g.pcie_gen else NA
        pcie_max = f"Gen{d.pcie_gen_max} x{d.pcie_width_max}" if d.pcie_gen_max else NA
        t.add_row(
            str(d.index),
            markup(safe(d.name) + (tr(" [red](lost)[/]") if g and g.lost else "")),
            fmt_bytes(d.memory_total_bytes),
            f"{pcie_now} / {pcie_max}",
            fmt_num(g.power_limit_w if g else d.power_default_limit_w, "W"),
            fmt_num(d.sm_clock_max_mhz, "MHz"),
            onoff(d.ecc_mode_current),
            _partition(d),
            onoff(d.persistence_mode),
            d.pci_bus_id or NA,
            d.uuid or NA,
        )
    return t


def _partition(d: DeviceInfo) -> str:
    """MIG on/off (and instances); for an AMD GPU its compute/memory partition modes."""
    if d.compute_partition or d.memory_partition:
        return "/".join(p for p in (d.compute_partition, d.memory_partition) if p)
    return onoff(d.mig_mode_current) + (f" ({len(d.mig_devices)})" if d.mig_devices else "")


def onoff(value: bool | None) -> str:
    if value is None:
        return NA
    return tr("on") if value else tr("off")


def topology_table(topology: Topology) -> RenderableType:
    from rich.table import Table

    t = Table(title=tr("Topology (like nvidia-smi topo -m)"), title_justify="left")
    t.add_column("")
    for i in topology.gpu_indices:
        t.add_column(f"GPU{i}", justify="center")
    for i, row in zip(topology.gpu_indices, topology.matrix, strict=False):
        t.add_row(f"GPU{i}", *[cell or NA for cell in row])
    t.caption = tr(
        "NV# = # NVLinks; PIX/PXB = PCIe switch(es); PHB = host bridge; NODE = same NUMA node; SYS = across sockets"
    )
    if any(cell == "XGMI" for row in topology.matrix for cell in row):
        t.caption += "\n" + tr("XGMI = AMD Infinity Fabric link (one hop)")
    return t


def host_table(snap: Snapshot) -> RenderableType:
    from rich.table import Table

    h = snap.host
    t = Table(title=tr("Host"), title_justify="left")
    for col in (
        "CPU",
        N_("Load avg"),
        N_("RAM used"),
        N_("Swap used"),
        N_("Disk r/w"),
        N_("Net rx/tx"),
    ):
        t.add_column(tr(col))
    load = " ".join(f"{v:.2f}" for v in h.load_avg) if h.load_avg else NA
    t.add_row(
        fmt_pct(h.cpu_pct) + (f" @ {fmt_num(h.cpu_freq_mhz, 'MHz')}" if h.cpu_freq_mhz else ""),
        load,
        f"{fmt_bytes(h.mem_used_bytes)} / {fmt_bytes(h.mem_total_bytes)}",
        f"{fmt_bytes(h.swap_used_bytes)} / {fmt_bytes(h.swap_total_bytes)}",
        f"{fmt_rate(h.disk_read_bytes_s)} / {fmt_rate(h.disk_write_bytes_s)}",
        f"{fmt_rate(h.net_rx_bytes_s)} / {fmt_rate(h.net_tx_bytes_s)}",
    )
    return t


#: Monitor columns: (header, min terminal width to show it). Narrow terminals keep the essentials.
MONITOR_COLUMNS: tuple[tuple[str, int], ...] = (
    ("GPU", 0),
    (N_("Name"), 165),
    (N_("Util"), 0),
    # NVML GPM's SM activity (DCGM_FI_PROF_SM_ACTIVE), shown only when some GPU reports it.
    (N_("SM active"), 0),
    (N_("Mem util"), 110),
    (N_("Memory used"), 0),
    (N_("Power"), 0),
    (N_("Temp"), 0),
    (N_("SM clk"), 0),
    (N_("Mem clk"), 140),
    (N_("PCIe rx/tx"), 100),
    (N_("NVLink rx/tx"), 128),
    (N_("Throttle"), 0),
)


def short_name(name: str) -> str:
    return name.removeprefix("NVIDIA ").removeprefix("GeForce ")


def gpu_table(
    snap: Snapshot, devices: Sequence[DeviceInfo] = (), title: str | None = None, width: int = 200
) -> RenderableType:
    """The monitor's table: one row per GPU, what `nvidia-smi dmon` shows, with units.

    ``width`` is the terminal width: columns that would not fit are dropped, not squeezed. The
    SM active column (NVML GPM) is there when any GPU reports it; a GPU without it shows "–" and
    the reason in the caption.
    """
    from rich.table import Table

    names = {d.index: short_name(d.name) for d in devices}
    gpm = any_prof(snap.gpus)
    shown = [
        col
        for col, min_width in MONITOR_COLUMNS
        if width >= min_width and (gpm or col != "SM active")
    ]
    t = Table(title=title, title_justify="left", expand=False, pad_edge=False)
    for col in shown:
        t.add_column(tr(col), no_wrap=True)
    cells: dict[str, RenderableType]
    for g in snap.gpus:
        if g.lost:
            cells = {
                "GPU": str(g.index),
                "Name": names.get(g.index, ""),
                "Throttle": markup(tr("[red]GPU LOST[/]")),
            }
            t.add_row(*[cells.get(col, "") for col in shown])
            continue
        throttle = throttle_text(g)
        cells = {
            "GPU": str(g.index),
            "Name": names.get(g.index, ""),
            "Util": fmt_pct(g.util_gpu_pct),
            "SM active": fmt_pct(g.prof_sm_active_pct) if has_prof(g) else NO_PROF,
            "Mem util": fmt_pct(g.util_mem_pct),
            "Memory used": f"{fmt_bytes(g.mem_used_bytes)} / {fmt_bytes(g.mem_total_bytes, digits=0)}",
            "Power": f"{fmt_num(g.power_w, digits=0)} / {fmt_num(g.power_limit_w, 'W')}",
            "Temp": _temp_cell(g),
            "SM clk": fmt_num(g.clock_sm_mhz, "MHz"),
            "Mem clk": fmt_num(g.clock_mem_mhz, "MHz"),
            "PCIe rx/tx": f"{fmt_rate(g.pcie_rx_bytes_s)} / {fmt_rate(g.pcie_tx_bytes_s)}",
            "NVLink rx/tx": _link_cell(g),
            "Throttle": styled(throttle, "yellow") if g.throttle_reasons else throttle,
        }
        t.add_row(*[cells[col] for col in shown])
    if "SM active" in shown:
        t.caption = prof_caption(snap.gpus)
    return t


def _temp_cell(g: GpuSample) -> str:
    """The GPU (edge) temperature; an AMD GPU without an edge sensor (MI300) shows its
    junction (hotspot) temperature, marked "J"."""
    if g.temp_gpu_c is None and g.temp_hotspot_c is not None:
        return fmt_num(g.temp_hotspot_c, "°C") + " J"
    return fmt_num(g.temp_gpu_c, "°C")


def _link_cell(g: GpuSample) -> str:
    """NVLink receive/transmit; on an AMD GPU, XGMI read/write (marked "XGMI")."""
    if g.nvlink_rx_bytes_s is None and g.xgmi_read_bytes_s is not None:
        return f"{fmt_rate(g.xgmi_read_bytes_s)} / {fmt_rate(g.xgmi_write_bytes_s)} XGMI"
    return f"{fmt_rate(g.nvlink_rx_bytes_s)} / {fmt_rate(g.nvlink_tx_bytes_s)}"


#: The SM active cell of a GPU without profiling activity.
NO_PROF = "–"


def prof_caption(gpus: Sequence[GpuSample]) -> str | None:
    """Why some GPUs have no SM activity ("–"), grouped by reason; None when all have it."""
    by_reason: dict[str, list[str]] = {}
    for g in gpus:
        if not g.lost and not has_prof(g):
            by_reason.setdefault(prof_reason(g), []).append(str(g.index))
    if not by_reason:
        return None
    parts = [
        tr("GPU {i}: {r}", i=", ".join(idx), r=safe(reason, one_line=True))
        for reason, idx in by_reason.items()
    ]
    return tr("SM active {na}: {why}", na=NO_PROF, why="; ".join(parts))


def monitor_view(
    source: TelemetrySource,
    snap: Snapshot,
    devices: Sequence[DeviceInfo],
    interval: float,
    width: int = 200,
    live: bool = True,
) -> RenderableType:
    from rich.console import Group

    stamp = time.strftime("%H:%M:%S", time.localtime(snap.time_s))
    every = tr("every {s} s", s=f"{interval:g}")
    head = f"{source_banner(source)}  ·  {stamp}  ·  {every}"
    stop = "  ·  " + tr("Ctrl-C to stop") if live else ""
    parts: list[RenderableType] = [markup(head + stop)]
    if not snap.status.ok:
        msg, hint = safe(snap.status.message), safe(snap.status.hint)
        parts.append(markup(f"[bold red]{msg}[/] {hint}"))
    if snap.gpus:
        models = sorted({short_name(d.name) for d in devices})
        parts.append(
            gpu_table(snap, devices, title=" · ".join(models) if width < 165 else None, width=width)
        )
    parts.append(host_table(snap))
    return Group(*parts)
