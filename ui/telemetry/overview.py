"""Overview tab: one card per GPU and one for the host, with sparklines of the last minutes."""

from __future__ import annotations

import math

import numpy as np
from gpuprof.telemetry.model import DeviceInfo, GpuSample, HostSample
from gpuprof.telemetry.nvml.gpm import GPM_INTERVAL_S
from gpuprof.telemetry.prof import any_prof, has_prof, prof_reason
from gpuprof.units import NA, fmt_bytes, fmt_num, fmt_pct, fmt_rate
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..shell.state import UiState
from ..shell.theme import gpu_colour, throttle_colour
from ..shell.widgets import MeterBar, Sparkline, Swatch, plain_label

__all__ = ["OverviewTab", "GpuCard", "HostCard"]

#: Seconds of history each sparkline shows.
SPARK_WINDOW_S = 120.0


def _frac(value: float | None, maximum: float | None) -> float | None:
    if value is None or not maximum:
        return None
    return float(value) / float(maximum)


class _Card(QFrame):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("card")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.setMinimumWidth(300)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(12, 10, 12, 10)
        self.body.setSpacing(5)

    def _row(self, caption: str, widget: QWidget, tooltip: str, compact: bool = False) -> QLabel:
        row = QHBoxLayout()
        label = QLabel(caption, self)
        label.setObjectName("muted")
        label.setFixedWidth(62)
        label.setToolTip(tooltip)
        widget.setToolTip(tooltip)
        row.addWidget(label)
        if compact:
            row.addWidget(widget, 0, Qt.AlignmentFlag.AlignLeft)
            row.addStretch(1)
        else:
            row.addWidget(widget, 1)
        self.body.addLayout(row)
        return label


class GpuCard(_Card):
    """Utilization (and SM activity where the GPU reports it), memory, power, temperature, SM
    clock, throttle and PCIe of one GPU."""

    def __init__(self, index: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.index = index
        colour = gpu_colour(index)
        head = QHBoxLayout()
        head.addWidget(Swatch(colour, self))
        self.title = QLabel(self.tr("GPU %1").replace("%1", str(index)), self)
        self.title.setObjectName("cardTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        head.addWidget(self.title, 1)
        self.lost_badge = QLabel(self)
        self.lost_badge.setObjectName("badge")
        self.lost_badge.setStyleSheet("background: #c92a2a; color: white;")
        self.lost_badge.hide()
        head.addWidget(self.lost_badge)
        self.body.addLayout(head)

        util_row = QHBoxLayout()
        self.util = QLabel(NA, self)
        self.util.setObjectName("bigNumber")
        self.util.setMinimumWidth(80)
        self.util.setToolTip(
            self.tr("GPU utilization: share of time a kernel ran (nvidia-smi: GPU-Util)")
        )
        util_row.addWidget(self.util)
        self.sm = QLabel(self)
        self.sm.setObjectName("muted")
        self.sm.setTextFormat(Qt.TextFormat.PlainText)
        self.sm.hide()  # shown once some GPU reports SM activity (NVML GPM)
        util_row.addWidget(self.sm)
        self.spark = Sparkline(colour, y_max=100.0, parent=self)
        self.spark.setToolTip(self.tr("GPU utilization over the last 2 minutes"))
        util_row.addWidget(self.spark, 1)
        self.body.addLayout(util_row)

        self.mem = MeterBar(colour, self)
        self._row(
            self.tr("Memory"), self.mem, self.tr("Memory used of total (nvidia-smi: Memory-Usage)")
        )
        self.power = MeterBar(colour, self)
        self._row(
            self.tr("Power"), self.power, self.tr("Power draw against the enforced power limit")
        )
        self.temp = MeterBar(colour, self)
        self._row(
            self.tr("Temp"),
            self.temp,
            self.tr("GPU temperature; the red tick is the slowdown threshold"),
        )
        self.clock = MeterBar(colour, self)
        self._row(self.tr("SM clock"), self.clock, self.tr("SM clock against its maximum"))
        self.badge = QLabel(self.tr("none"), self)
        self.badge.setObjectName("badge")
        self._row(
            self.tr("Throttle"),
            self.badge,
            self.tr("Why the clocks are held down right now (nvidia-smi -q -d PERFORMANCE)"),
            compact=True,
        )
        self.pcie = QLabel(NA, self)
        self.pcie.setTextFormat(Qt.TextFormat.PlainText)
        self._row(
            self.tr("PCIe"),
            self.pcie,
            self.tr(
                "PCIe link generation and width now, against the maximum. An idle GPU "
                "lowers its link generation to save power; check under load."
            ),
        )
        # AMD (amdsmi) readings NVML has no field for, and why any field is absent; both
        # hidden on NVIDIA GPUs, whose samples carry neither.
        self.amd = plain_label(parent=self)
        self.amd_caption = self._row(
            self.tr("AMD"),
            self.amd,
            self.tr(
                "amdsmi readings: junction (hotspot) and HBM temperatures, multimedia (VCN) "
                "activity, SoC clock, XGMI read/write over all links, partition modes "
                "(compute SPX/CPX, memory NPS1/NPS4: the analogue of MIG)"
            ),
        )
        self.absent = QLabel(self)
        self.absent.setObjectName("muted")
        self.absent.setTextFormat(Qt.TextFormat.PlainText)
        self.absent_caption = self._row(
            self.tr("N/A"),
            self.absent,
            self.tr("Fields this GPU does not report, each with the reason the driver gave"),
        )
        self._vendor_rows(False)

    def _vendor_rows(self, amd: bool, absent: bool = False) -> None:
        for widgets, shown in (
            ((self.amd, self.amd_caption), amd),
            ((self.absent, self.absent_caption), absent),
        ):
            for widget in widgets:
                widget.setVisible(shown)

    def update_card(
        self,
        sample: GpuSample | None,
        info: DeviceInfo | None,
        spark: np.ndarray | None,
        lost: bool = False,
        gpm: bool = False,
    ) -> None:
        """Show ``sample``; ``gpm``: some GPU reports SM activity, so this card shows it too
        (or "–" with the reason)."""
        name = info.name if info is not None else ""
        self.title.setText(
            self.tr("GPU %1 · %2").replace("%1", str(self.index)).replace("%2", name)
            if name
            else self.tr("GPU %1").replace("%1", str(self.index))
        )
        if spark is not None:
            self.spark.set_values(spark)
        lost = lost or (sample is not None and sample.lost)
        if sample is None or lost:
            self.setEnabled(False)
            self.lost_badge.setText(self.tr("LOST") if lost else self.tr("NO DATA"))
            self.lost_badge.setToolTip(
                self.tr(
                    "The GPU fell off the bus or stopped answering. Check dmesg for Xid "
                    "errors; a reset or reboot is usually needed."
                )
                if lost
                else self.tr("This GPU is missing from the latest sample.")
            )
            self.lost_badge.show()
            self.util.setText(NA)
            self.sm.hide()
            return
        self.setEnabled(True)
        self.lost_badge.hide()
        self.util.setText(fmt_pct(sample.util_gpu_pct))
        self._show_sm(sample, gpm)
        self.mem.set_value(
            _frac(sample.mem_used_bytes, sample.mem_total_bytes),
            f"{fmt_bytes(sample.mem_used_bytes)} / {fmt_bytes(sample.mem_total_bytes)}",
        )
        limit = sample.power_enforced_limit_w or sample.power_limit_w
        self.power.set_value(
            _frac(sample.power_w, limit), f"{fmt_num(sample.power_w, 'W')} / {fmt_num(limit, 'W')}"
        )
        slowdown = info.temp_slowdown_c if info is not None else None
        top = (slowdown + 10.0) if slowdown else 100.0
        temp = sample.temp_gpu_c
        temp_text = fmt_num(temp, "°C")
        if temp is None and sample.temp_hotspot_c is not None:
            # MI300 has no edge sensor: its junction temperature (the slowdown threshold's).
            temp = sample.temp_hotspot_c
            temp_text = self.tr("%1 junction").replace("%1", fmt_num(temp, "°C"))
        if slowdown:
            temp_text += "  " + self.tr("(slowdown %1)").replace("%1", fmt_num(slowdown, "°C"))
        self.temp.set_value(_frac(temp, top), temp_text, mark=_frac(slowdown, top))
        clock_max = info.sm_clock_max_mhz if info is not None else None
        self.clock.set_value(
            _frac(sample.clock_sm_mhz, clock_max),
            f"{fmt_num(sample.clock_sm_mhz, 'MHz')} / {fmt_num(clock_max, 'MHz')}",
        )
        self.pcie.setText(self._pcie_text(sample, info))
        self._show_vendor(sample, info)
        events = sample.clock_events.without_idle
        if events:
            self.badge.setText(", ".join(events.names))
            self.badge.setToolTip(events.label)
            self.badge.setStyleSheet(f"background: {throttle_colour(events)}; color: black;")
        else:
            self.badge.setText(self.tr("none"))
            self.badge.setToolTip("")
            self.badge.setStyleSheet("")

    def _show_vendor(self, sample: GpuSample, info: DeviceInfo | None) -> None:
        amd = info is not None and info.vendor == "amd"
        self._vendor_rows(amd, bool(sample.absent))
        if amd and info is not None:
            parts = [
                self.tr("junction %1").replace("%1", fmt_num(sample.temp_hotspot_c, "°C")),
                self.tr("HBM %1").replace("%1", fmt_num(sample.temp_mem_c, "°C")),
                self.tr("MM %1").replace("%1", fmt_pct(sample.util_mm_pct)),
                self.tr("SoC %1").replace("%1", fmt_num(sample.clock_soc_mhz, "MHz")),
            ]
            if info.xgmi_link_count:
                parts.append(
                    self.tr("XGMI ×%1 read %2 write %3")
                    .replace("%1", str(info.xgmi_link_count))
                    .replace("%2", fmt_rate(sample.xgmi_read_bytes_s))
                    .replace("%3", fmt_rate(sample.xgmi_write_bytes_s))
                )
            modes = [m for m in (info.compute_partition, info.memory_partition) if m]
            if modes:
                parts.append(self.tr("partition %1").replace("%1", "/".join(modes)))
            self.amd.setText(" · ".join(parts))
        if sample.absent:
            by_reason: dict[str, list[str]] = {}
            for name, why in sample.absent:
                by_reason.setdefault(_short_reason(why), []).append(_FIELD_NAMES.get(name, name))
            self.absent.setText(
                "\n".join(f"{', '.join(names)}: {why}" for why, names in by_reason.items())
            )
            self.absent.setToolTip("\n".join(f"{name}: {why}" for name, why in sample.absent))

    def _show_sm(self, sample: GpuSample, gpm: bool) -> None:
        if not gpm:
            self.sm.hide()
            return
        why = self.tr(
            "SM active: the share of cycles the SMs had work (at least one warp resident; NVML "
            "GPM, DCGM_FI_PROF_SM_ACTIVE). GPU utilization only says that some kernel ran during "
            "the sample: a GPU can read 100% while most of its SMs are idle (small kernels, "
            "launch-bound or sync-heavy code)."
        )
        why += "\n\n" + self.tr(
            "Sampled at every poll while the Overview or Telemetry tab is shown, otherwise "
            "every %1 s, as the mean over that span"
        ).replace("%1", f"{GPM_INTERVAL_S:g}")
        if has_prof(sample):
            self.sm.setText(self.tr("SM %1").replace("%1", fmt_pct(sample.prof_sm_active_pct)))
            self.sm.setToolTip(why)
        else:
            self.sm.setText(self.tr("SM %1").replace("%1", "–"))
            self.sm.setToolTip(
                why + "\n\n" + self.tr("Not available: %1").replace("%1", prof_reason(sample))
            )
        self.sm.show()

    def _pcie_text(self, sample: GpuSample, info: DeviceInfo | None) -> str:
        def link(gen: int | None, width: int | None) -> str:
            g = f"Gen{gen}" if gen is not None else "Gen?"
            w = f"x{width}" if width is not None else "x?"
            return f"{g} {w}"

        now = link(sample.pcie_gen, sample.pcie_width)
        if info is not None and (info.pcie_gen_max or info.pcie_width_max):
            return (
                self.tr("%1 (max %2)")
                .replace("%1", now)
                .replace("%2", link(info.pcie_gen_max, info.pcie_width_max))
            )
        return now


#: What the "N/A" row calls each field (the model's names are for code).
_FIELD_NAMES = {
    "temp_gpu_c": "edge temp",
    "temp_hotspot_c": "junction temp",
    "temp_mem_c": "memory temp",
    "fan_speed_pct": "fan",
    "power_w": "power",
    "power_limit_w": "power limit",
    "power_enforced_limit_w": "power cap",
    "util_gpu_pct": "GFX activity",
    "util_mem_pct": "memory activity",
    "util_mm_pct": "multimedia activity",
    "clock_soc_mhz": "SoC clock",
    "clock_sm_mhz": "GFX clock",
    "clock_graphics_mhz": "graphics clock",
    "clock_mem_mhz": "memory clock",
    "pcie_rx_bytes_s": "PCIe rx",
    "pcie_tx_bytes_s": "PCIe tx",
    "xgmi_read_bytes_s": "XGMI read",
    "xgmi_write_bytes_s": "XGMI write",
    "throttle_mask": "throttle status",
    "ecc": "ECC",
    "energy_total_j": "energy",
}


def _short_reason(why: str) -> str:
    """The reason without the amdsmi function's name ("amdsmi_get_temp_metric: ...") and
    status code (the tooltip has them)."""
    head, sep, rest = why.partition(": ")
    if sep and head.startswith("amdsmi_"):
        why = rest
    return why.split(" (amdsmi: ")[0]


class HostCard(_Card):
    """CPU, memory, load and I/O of the host."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        head = QHBoxLayout()
        self.title = QLabel(self.tr("Host"), self)
        self.title.setObjectName("cardTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        head.addWidget(self.title, 1)
        self.body.addLayout(head)
        row = QHBoxLayout()
        self.cpu = QLabel(NA, self)
        self.cpu.setObjectName("bigNumber")
        self.cpu.setMinimumWidth(80)
        self.cpu.setToolTip(self.tr("CPU utilization over all cores"))
        row.addWidget(self.cpu)
        self.spark = Sparkline("#495057", y_max=100.0, parent=self)
        self.spark.setToolTip(self.tr("CPU utilization over the last 2 minutes"))
        row.addWidget(self.spark, 1)
        self.body.addLayout(row)
        self.ram = MeterBar("#495057", self)
        self._row(self.tr("RAM"), self.ram, self.tr("Host memory used of total"))
        self.load = QLabel(NA, self)
        self._row(self.tr("Load"), self.load, self.tr("Load average over 1, 5 and 15 minutes"))
        self.io = QLabel(NA, self)
        self.io.setWordWrap(True)
        self._row(
            self.tr("I/O"), self.io, self.tr("Disk read/write and network receive/send rates")
        )

    def update_card(self, host: HostSample | None, hostname: str, spark: np.ndarray | None) -> None:
        if hostname:
            self.title.setText(self.tr("Host · %1").replace("%1", hostname))
        if spark is not None:
            self.spark.set_values(spark)
        if host is None:
            return
        self.cpu.setText(fmt_pct(host.cpu_pct))
        used = host.mem_used_bytes
        self.ram.set_value(
            _frac(used, host.mem_total_bytes),
            f"{fmt_bytes(used)} / {fmt_bytes(host.mem_total_bytes)}",
        )
        if host.load_avg is not None:
            self.load.setText("  ".join(f"{v:.2f}" for v in host.load_avg))
        self.io.setText(
            self.tr("disk %1 read / %2 write\nnet %3 in / %4 out")
            .replace("%1", fmt_rate(host.disk_read_bytes_s))
            .replace("%2", fmt_rate(host.disk_write_bytes_s))
            .replace("%3", fmt_rate(host.net_rx_bytes_s))
            .replace("%4", fmt_rate(host.net_tx_bytes_s))
        )


class OverviewTab(QWidget):
    """Cards in a grid that reflows with the window width."""

    name = "overview"

    def __init__(self, state: UiState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.cards: dict[int, GpuCard] = {}
        self.host_card = HostCard()
        self.no_gpu = QLabel(
            self.tr("No NVIDIA or AMD GPU is visible. Host telemetry is still shown.")
        )
        self.no_gpu.setObjectName("muted")
        self.no_gpu.hide()
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        inner = QWidget()
        self._grid = QGridLayout()
        self._grid.setSpacing(10)
        outer = QVBoxLayout(inner)
        outer.addWidget(self.no_gpu)
        outer.addLayout(self._grid)
        outer.addStretch(1)
        scroll.setWidget(inner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(scroll)
        self._columns = 0
        self._generation: tuple[int, int] | None = None
        self._relayout()

    def _column_count(self) -> int:
        return max(1, min(4, self.width() // 330))

    def _relayout(self) -> None:
        columns = self._column_count()
        items = [*(self.cards[i] for i in sorted(self.cards)), self.host_card]
        for w in items:
            self._grid.removeWidget(w)
        for n, w in enumerate(items):
            self._grid.addWidget(w, n // columns, n % columns)
        for c in range(4):
            self._grid.setColumnStretch(c, 1 if c < columns else 0)
        self._columns = columns

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self._column_count() != self._columns:
            self._relayout()

    def _spark(self, gpu: int | None, field: str, t1: float, width: int) -> np.ndarray | None:
        history = self.state.history
        try:
            if gpu is None:
                _, y = history.host_series(field, t1 - SPARK_WINDOW_S, t1, max(8, width))
            else:
                _, y = history.gpu_series(gpu, field, t1 - SPARK_WINDOW_S, t1, max(8, width))
        except (KeyError, ValueError, IndexError):
            return None
        return np.asarray(y)

    def refresh(self, force: bool = False) -> None:
        if not force and self._generation == self.state.generation:
            return
        self._generation = self.state.generation
        state = self.state
        indices = state.gpu_indices()
        if set(indices) != set(self.cards):
            for i in indices:
                if i not in self.cards:
                    self.cards[i] = GpuCard(i)
            for i in list(self.cards):
                if i not in indices:
                    self.cards.pop(i).deleteLater()
            self._relayout()
        self.no_gpu.setVisible(not indices and state.latest is not None)
        snap = state.latest
        t1 = state.end_time()
        samples = {g.index: g for g in snap.gpus} if snap is not None else {}
        lost = set(state.status.lost_gpus)
        gpm = snap is not None and any_prof(snap.gpus)
        for i, card in self.cards.items():
            sample = samples.get(i)
            spark = (
                None
                if t1 is None or math.isnan(t1)
                else self._spark(i, "util_gpu_pct", t1, card.spark.width() // 2)
            )
            card.update_card(sample, state.devices.get(i), spark, lost=i in lost, gpm=gpm)
        host_spark = (
            None
            if t1 is None
            else self._spark(None, "cpu_pct", t1, self.host_card.spark.width() // 2)
        )
        self.host_card.update_card(
            snap.host if snap is not None else None, state.system.hostname, host_spark
        )
