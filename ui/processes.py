"""Processes tab: GPU processes in a sortable, filterable table (like ``nvidia-smi`` + ``pmon``)."""

from __future__ import annotations

import functools
from typing import Any

from gpuprof.i18n import N_
from gpuprof.redact import redact_text
from gpuprof.telemetry.model import ProcessSample
from gpuprof.units import NA, fmt_bytes, fmt_pct
from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from .state import UiState
from .theme import gpu_colour

__all__ = ["ProcessModel", "ProcessesTab", "COLUMNS", "shown_text"]

_Index = QModelIndex | QPersistentModelIndex


def _t(text: str) -> str:
    return QCoreApplication.translate("ProcessModel", text)


@functools.lru_cache(maxsize=4096)
def shown_text(text: str) -> str:
    """A name, user or command line as the table shows it (and screenshots share it): control
    characters neutralised and secrets hidden, as in reports. Cached: rows repaint often."""
    return redact_text(text)


#: (attribute, header) per column; headers are translated when shown.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("pid", N_("PID")),
    ("user", N_("User")),
    ("name", N_("Name")),
    ("gpu_index", N_("GPU")),
    ("gpu_mem_bytes", N_("GPU memory")),
    ("sm_util_pct", N_("SM %")),
    ("kind", N_("Type")),
    ("cmdline", N_("Command line")),
)
_TOOLTIPS = {
    "pid": N_("Process id"),
    "user": N_("Owner of the process"),
    "name": N_("Executable name"),
    "gpu_index": N_("GPU the process runs on"),
    "gpu_mem_bytes": N_("GPU memory used by the process (nvidia-smi: GPU Memory Usage)"),
    "sm_util_pct": N_("Share of SM time used by the process (nvidia-smi pmon: sm)"),
    "kind": N_("Compute (C), graphics (G) or both"),
    "cmdline": N_("Full command line; hover a row to read it all"),
}


class ProcessModel(QAbstractTableModel):
    """Rows of :class:`ProcessSample`; ``Qt.UserRole`` gives raw values for sorting."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ProcessSample] = []

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        attr, header = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return _t(header)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _t(_TOOLTIPS[attr])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        attr = COLUMNS[index.column()][0]
        value = getattr(row, attr)
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None:
                return NA
            if attr == "gpu_mem_bytes":
                return fmt_bytes(value)
            if attr == "sm_util_pct":
                return fmt_pct(value)
            return shown_text(value) if isinstance(value, str) else str(value)
        if role == Qt.ItemDataRole.UserRole:
            # Sort key: numbers as numbers, missing values first, text case-insensitive.
            if value is None:
                return -1.0 if attr not in ("user", "name", "cmdline", "kind") else ""
            return value.lower() if isinstance(value, str) else float(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            if attr == "cmdline":
                return shown_text(row.cmdline) if row.cmdline else NA
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and attr in (
            "pid",
            "gpu_index",
            "gpu_mem_bytes",
            "sm_util_pct",
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and attr == "gpu_index":
            return QColor(gpu_colour(row.gpu_index))
        return None

    def set_processes(self, rows: tuple[ProcessSample, ...] | list[ProcessSample]) -> None:
        rows = list(rows)
        same_keys = [(r.pid, r.gpu_index) for r in rows] == [
            (r.pid, r.gpu_index) for r in self._rows
        ]
        if same_keys and rows:
            # Same processes: update in place so the selection and scroll position stay.
            self._rows = rows
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(COLUMNS) - 1))
            return
        if same_keys:
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def process(self, row: int) -> ProcessSample:
        return self._rows[row]


class ProcessesTab(QWidget):
    """The table behind a QSortFilterProxyModel with a filter box over all columns."""

    name = "processes"

    def __init__(self, state: UiState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.model = ProcessModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setDynamicSortFilter(True)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(self.tr("Filter by pid, user, name, GPU or command line"))
        self.filter.setToolTip(self.tr("Show only rows containing this text (Ctrl+F)"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.note = QLabel(self)
        self.note.setObjectName("muted")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(4, Qt.SortOrder.DescendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for col, width in enumerate((80, 110, 160, 50, 110, 70, 90)):
            self.table.setColumnWidth(col, width)
        self.table.setToolTip("")
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self._generation = -1

    def refresh(self, force: bool = False) -> None:
        if not force and self._generation == self.state.generation:
            return
        self._generation = self.state.generation
        snap = self.state.latest
        if snap is None:
            return
        self.model.set_processes(snap.processes)
        if not self.state.status.process_info_permitted:
            self.note.setText(
                self.tr(
                    "Process details need more permissions: some rows are missing names or users."
                )
            )
        else:
            self.note.setText(self.tr("%1 processes").replace("%1", str(len(snap.processes))))
