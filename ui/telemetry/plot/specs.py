"""What the Telemetry tab plots: one :class:`PlotSpec` per plot, the History fields each frame
fetches, and the small helpers that label a field and round an axis.

Titles are marked with ``N_`` and translated when shown (``QT_TRANSLATE_NOOP`` semantics).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from gpuprof.i18n import N_
from gpuprof.telemetry.model import Snapshot
from gpuprof.telemetry.prof import has_prof, prof_reason

from ...shell.i18n import translate as _t

__all__ = [
    "GPU_FIELDS",
    "GPU_PRIMARY_FIELDS",
    "HOST_FIELDS",
    "PLOT_SPECS",
    "SECONDARY_AUTO_MAX_GPUS",
    "VENDOR_TITLES",
    "PlotSpec",
    "VendorTitles",
    "activity_unavailable",
    "field_short",
    "nice_top",
]


@dataclass(frozen=True)
class PlotSpec:
    """One plot: GpuSample fields (the first bright, the others pale), axis unit and scale."""

    key: str
    title: str
    unit: str
    fields: tuple[str, ...]
    scale: float = 1.0
    y_max: float | None = None  # fixed top (e.g. 100 for %); otherwise from the data
    host_field: str | None = None  # a host series drawn in grey (CPU %)
    digits: int = 0
    axis: str = ""  # short name on the y axis, before the unit
    title_primary: str = ""  # title while the secondary (pale) fields are not drawn
    needs_prof: bool = False  # NVML GPM fields: greyed with the reason where no GPU has them

    def title_for(self, secondary: bool) -> str:
        """The untranslated title for what is drawn: with or without the pale fields."""
        return self.title if secondary or not self.title_primary else self.title_primary


# Titles are marked for translation with QT_TRANSLATE_NOOP semantics: translated when shown.
PLOT_SPECS: tuple[PlotSpec, ...] = (
    PlotSpec(
        "util",
        N_("Utilization — GPU (bright), memory (pale)"),
        "%",
        ("util_gpu_pct", "util_mem_pct"),
        y_max=100.0,
        axis=N_("util"),
        title_primary=N_("Utilization — GPU (memory: not drawn)"),
    ),
    # NVML GPM (DCGM_FI_PROF_*): what "GPU utilization" does not say. Greyed with the reason
    # while no plotted GPU reports it (activity_unavailable).
    PlotSpec(
        "activity",
        N_("SM / tensor / DRAM activity — SM (bright), tensor (pale), DRAM (palest)"),
        "%",
        ("prof_sm_active_pct", "prof_tensor_active_pct", "prof_dram_active_pct"),
        y_max=100.0,
        axis=N_("active"),
        title_primary=N_("SM / tensor / DRAM activity — SM (tensor, DRAM: not drawn)"),
        needs_prof=True,
    ),
    PlotSpec(
        "mem",
        N_("Memory used"),
        "GiB",
        ("mem_used_bytes",),
        scale=1 / 2**30,
        digits=1,
        axis=N_("used"),
    ),
    PlotSpec("power", N_("Power draw (limit: dashed line)"), "W", ("power_w",), axis=N_("power")),
    PlotSpec(
        "temp",
        N_("GPU temperature (slowdown: dashed line)"),
        "°C",
        ("temp_gpu_c",),
        axis=N_("temp"),
    ),
    PlotSpec(
        "clock",
        N_("Clocks — SM (bright), memory (pale)"),
        "MHz",
        ("clock_sm_mhz", "clock_mem_mhz"),
        axis=N_("clock"),
        title_primary=N_("Clocks — SM (memory clock: not drawn)"),
    ),
    PlotSpec(
        "pcie",
        N_("PCIe — receive (bright), transmit (pale)"),
        "GB/s",
        ("pcie_rx_bytes_s", "pcie_tx_bytes_s"),
        scale=1e-9,
        digits=2,
        axis=N_("rate"),
        title_primary=N_("PCIe — receive (transmit: not drawn)"),
    ),
    PlotSpec(
        "nvlink",
        N_("NVLink — receive (bright), transmit (pale)"),
        "GB/s",
        ("nvlink_rx_bytes_s", "nvlink_tx_bytes_s"),
        scale=1e-9,
        digits=1,
        axis=N_("rate"),
        title_primary=N_("NVLink — receive (transmit: not drawn)"),
    ),
    PlotSpec(
        "host",
        N_("Host CPU utilization"),
        "%",
        (),
        y_max=100.0,
        host_field="cpu_pct",
        axis=N_("CPU"),
    ),
)


@dataclass(frozen=True)
class VendorTitles:
    """A plot's titles while some (``mixed``) or all (``every``) of the plotted GPUs draw the
    vendor field that History keeps in its first field's ring (History.stored_field: the
    junction temperature of a GPU without an edge sensor, XGMI instead of NVLink)."""

    every: str
    every_primary: str
    mixed: str
    mixed_primary: str

    def title_for(self, secondary: bool, every: bool) -> str:
        if every:
            return self.every if secondary else self.every_primary
        return self.mixed if secondary else self.mixed_primary


#: Plot key -> its titles where a vendor field is drawn; never "edge" for a junction value.
VENDOR_TITLES: dict[str, VendorTitles] = {
    "temp": VendorTitles(
        N_("GPU junction temperature — hotspot sensor (slowdown: dashed line)"),
        N_("GPU junction temperature — hotspot sensor (slowdown: dashed line)"),
        N_("GPU temperature — junction where a GPU has no edge sensor (slowdown: dashed line)"),
        N_("GPU temperature — junction where a GPU has no edge sensor (slowdown: dashed line)"),
    ),
    "nvlink": VendorTitles(
        N_("XGMI — read (bright), write (pale)"),
        N_("XGMI — read (write: not drawn)"),
        N_("NVLink / XGMI — receive or read (bright), transmit or write (pale)"),
        N_("NVLink / XGMI — receive or read (transmit, write: not drawn)"),
    ),
}

#: Every GPU / host field some plot draws: fetched together, once per frame.
GPU_FIELDS: tuple[str, ...] = tuple(dict.fromkeys(f for s in PLOT_SPECS for f in s.fields))
#: Only the bright (first) field of each plot: what is fetched while the pale ones are off.
GPU_PRIMARY_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(s.fields[0] for s in PLOT_SPECS if s.fields)
)
#: With more GPUs than this plotted, the pale secondary series are off unless the user ticks
#: them: 8 GPUs draw 49 curves instead of 89, and the plots stay readable.
SECONDARY_AUTO_MAX_GPUS = 4
HOST_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(s.host_field for s in PLOT_SPECS if s.host_field)
)


def field_short(field: str) -> str:
    return {
        "util_mem_pct": _t("mem"),
        "clock_mem_mhz": _t("mem"),
        "pcie_tx_bytes_s": _t("tx"),
        "nvlink_tx_bytes_s": _t("tx"),
        "prof_tensor_active_pct": _t("tensor"),
        "prof_dram_active_pct": _t("DRAM"),
        "temp_hotspot_c": _t("junction"),
        "xgmi_read_bytes_s": _t("XGMI read"),
        "xgmi_write_bytes_s": _t("XGMI write"),
    }.get(field, "")


def activity_unavailable(snap: Snapshot | None, visible: Iterable[int]) -> str | None:
    """Why the profiling (GPM) plot is empty, translated — ``None`` while a plotted GPU in the
    latest snapshot reports SM activity (or before the first snapshot)."""
    if snap is None:
        return None
    shown = set(visible)
    gpus = [g for g in snap.gpus if g.index in shown]
    if not gpus or any(has_prof(g) for g in gpus):
        return None
    reasons = list(dict.fromkeys(prof_reason(g) for g in gpus))
    return _t("not available: %1").replace("%1", "; ".join(reasons))


def nice_top(value: float) -> float:
    """A round axis top a little above ``value`` (1, 2, 2.5, 5 × 10^n)."""
    if not value or not math.isfinite(value) or value <= 0:
        return 1.0
    value *= 1.05
    exp = 10.0 ** math.floor(math.log10(value))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * exp >= value:
            return m * exp
    return 10 * exp
