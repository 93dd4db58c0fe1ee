"""Topology & details tab: the GPU×GPU link matrix (``nvidia-smi topo -m``) and static facts."""

from __future__ import annotations

from collections.abc import Callable

from gpuprof.i18n import N_
from gpuprof.telemetry.model import DeviceInfo, SystemInfo, Topology
from gpuprof.units import NA, fmt_bytes, fmt_num
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..shell.i18n import translate as _t
from ..shell.state import UiState
from ..shell.theme import gpu_colour
from ..shell.widgets import plain_label

__all__ = ["TopologyTab", "DETAIL_ROWS", "link_tooltip"]


_LINKS = {
    "X": N_("Self"),
    "SYS": N_("PCIe plus the SMP interconnect between NUMA nodes (e.g. QPI/UPI): the slowest path"),
    "NODE": N_("PCIe plus the interconnect between PCIe host bridges within one NUMA node"),
    "PHB": N_("PCIe through a PCIe host bridge (typically the CPU)"),
    "PXB": N_("PCIe through several PCIe bridges, without the host bridge"),
    "PIX": N_("PCIe through at most one PCIe bridge"),
}


def link_tooltip(label: str | None) -> str:
    if label is None:
        return _t("Unknown")
    if label.startswith("NV"):
        return _t("Connected by %1 NVLinks").replace("%1", label[2:])
    return _t(_LINKS.get(label, label))


def _bool(v: bool | None) -> str:
    if v is None:
        return NA
    return _t("Enabled") if v else _t("Disabled")


def _mode(current: bool | None, pending: bool | None) -> str:
    text = _bool(current)
    if pending is not None and current is not None and pending != current:
        text += " " + _t("(pending: %1)").replace("%1", _bool(pending))
    return text


#: Detail rows: (label, getter). Labels are translated when shown.
DETAIL_ROWS: tuple[tuple[str, Callable[[DeviceInfo], str]], ...] = (
    (N_("Name"), lambda d: d.name),
    (N_("UUID"), lambda d: d.uuid or NA),
    (N_("PCI bus id"), lambda d: d.pci_bus_id or NA),
    (N_("Architecture"), lambda d: d.architecture or NA),
    (
        N_("Compute capability"),
        lambda d: (
            f"{d.compute_capability[0]}.{d.compute_capability[1]}" if d.compute_capability else NA
        ),
    ),
    (N_("Memory"), lambda d: fmt_bytes(d.memory_total_bytes)),
    (N_("VBIOS"), lambda d: d.vbios_version or NA),
    (N_("Serial"), lambda d: d.serial or NA),
    (N_("ECC mode"), lambda d: _mode(d.ecc_mode_current, d.ecc_mode_pending)),
    (N_("MIG mode"), lambda d: _mode(d.mig_mode_current, d.mig_mode_pending)),
    (N_("MIG devices"), lambda d: ", ".join(m.name for m in d.mig_devices) or "—"),
    (N_("Persistence mode"), lambda d: _bool(d.persistence_mode)),
    (N_("Compute mode"), lambda d: d.compute_mode or NA),
    (N_("Power limit default"), lambda d: fmt_num(d.power_default_limit_w, "W")),
    (
        N_("Power limit range"),
        lambda d: f"{fmt_num(d.power_min_limit_w, 'W')} – {fmt_num(d.power_max_limit_w, 'W')}",
    ),
    (N_("SM clock max"), lambda d: fmt_num(d.sm_clock_max_mhz, "MHz")),
    (N_("Memory clock max"), lambda d: fmt_num(d.mem_clock_max_mhz, "MHz")),
    (N_("Slowdown temperature"), lambda d: fmt_num(d.temp_slowdown_c, "°C")),
    (N_("Shutdown temperature"), lambda d: fmt_num(d.temp_shutdown_c, "°C")),
    (
        N_("PCIe max link"),
        lambda d: f"Gen{d.pcie_gen_max} x{d.pcie_width_max}" if d.pcie_gen_max else NA,
    ),
    (N_("NVLinks"), lambda d: str(d.nvlink_count)),
)


def _item(text: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if tooltip:
        item.setToolTip(tooltip)
    return item


class TopologyTab(QWidget):
    """The link matrix on top, the per-GPU details below; rebuilt when static facts change."""

    name = "topology"

    def __init__(self, state: UiState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.system_label = plain_label(parent=self)
        self.matrix = QTableWidget(self)
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.setToolTip(
            self.tr(
                "How each pair of GPUs is connected (nvidia-smi topo -m). "
                "NV# = number of NVLinks; hover a cell for the meaning."
            )
        )
        self.details = QTableWidget(self)
        self.details.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.details.setToolTip(self.tr("Static facts per GPU (nvidia-smi -q)"))
        # UUIDs (and bus ids) differ at the end: elided there, every GPU would read alike. The
        # cell's tooltip keeps the whole text.
        self.details.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.details.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.details.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        top = QGroupBox(self.tr("GPU interconnect"), self)
        top_layout = QVBoxLayout(top)
        top_layout.addWidget(self.matrix)
        legend = QLabel(
            self.tr(
                "NV# = NVLinks · PIX/PXB = PCIe switch · PHB = host bridge · "
                "NODE = same NUMA node · SYS = across NUMA nodes"
            ),
            top,
        )
        legend.setObjectName("muted")
        top_layout.addWidget(legend)
        bottom = QGroupBox(self.tr("Details"), self)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.addWidget(self.details)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.system_label)
        layout.addWidget(splitter, 1)
        self._shown: tuple[object, ...] = ()

    def refresh(self, force: bool = False) -> None:
        key = (self.state.system, tuple(sorted(self.state.devices.items())), self.state.topology)
        if not force and key == self._shown:
            return
        self._shown = key
        self._fill_system(self.state.system)
        self._fill_matrix(self.state.topology)
        self._fill_details([self.state.devices[i] for i in sorted(self.state.devices)])

    def _fill_system(self, s: SystemInfo) -> None:
        parts = [
            self.tr("Host %1").replace("%1", s.hostname or NA),
            s.os or NA,
            self.tr("Driver %1").replace("%1", s.driver_version or NA),
            self.tr("CUDA %1").replace("%1", s.cuda_driver_version or NA),
            self.tr("NVML %1").replace("%1", s.nvml_version or NA),
        ]
        if s.cpu_model:
            parts.append(s.cpu_model)
        self.system_label.setText(" · ".join(parts))

    def _fill_matrix(self, topo: Topology) -> None:
        n = len(topo.gpu_indices)
        self.matrix.clear()
        self.matrix.setRowCount(n)
        self.matrix.setColumnCount(n)
        labels = [f"GPU{i}" for i in topo.gpu_indices]
        self.matrix.setHorizontalHeaderLabels(labels)
        self.matrix.setVerticalHeaderLabels(labels)
        for r, row in enumerate(topo.matrix):
            for c, label in enumerate(row):
                item = _item(label or "?", link_tooltip(label))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if label and label.startswith("NV"):
                    item.setBackground(QBrush(QColor(46, 160, 67, 70)))
                elif label in ("SYS", "NODE"):
                    item.setBackground(QBrush(QColor(214, 51, 108, 45)))
                elif label in ("PHB", "PXB", "PIX"):
                    item.setBackground(QBrush(QColor(242, 177, 52, 55)))
                self.matrix.setItem(r, c, item)
        for c in range(n):
            self.matrix.setColumnWidth(c, 64)
        for i, g in enumerate(topo.gpu_indices):
            for header in (self.matrix.verticalHeaderItem(i), self.matrix.horizontalHeaderItem(i)):
                if header is not None:
                    header.setForeground(QBrush(QColor(gpu_colour(g))))

    def _fill_details(self, devices: list[DeviceInfo]) -> None:
        self.details.clear()
        self.details.setRowCount(len(DETAIL_ROWS))
        self.details.setColumnCount(len(devices))
        self.details.setHorizontalHeaderLabels([f"GPU {d.index}" for d in devices])
        self.details.setVerticalHeaderLabels([_t(label) for label, _ in DETAIL_ROWS])
        for c, d in enumerate(devices):
            for r, (_, getter) in enumerate(DETAIL_ROWS):
                text = getter(d)
                self.details.setItem(r, c, _item(text, text))
