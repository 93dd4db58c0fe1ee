"""The Check tab's scorecard: one row per graded item, filled in as the check runs.

Columns: item, GPU, status (coloured PASS/WARN/FAIL/SKIP/INFO), measured, expected, ratio, reason,
hint. Long texts are elided in the cell and shown whole in the tooltip, with the reference's
source.
"""

from __future__ import annotations

from gpuprof.check.model import CheckItem, fmt_value
from gpuprof.i18n import tr_text
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ..shell.i18n import translate as _t

__all__ = ["STATUS_COLOURS", "Scorecard", "fmt_value"]

#: Foreground colours of the statuses (readable on light and dark backgrounds).
#: INCOMPLETE (a verdict only: a cancelled check) is neither green nor red.
STATUS_COLOURS = {
    "PASS": "#2e9e44",
    "WARN": "#d08a00",
    "FAIL": "#e03030",
    "SKIP": "#8a8a8a",
    "INFO": "#3a7fc0",  # measured, not graded
    "INCOMPLETE": "#7a6fd0",
}


class Scorecard(QTableWidget):
    """The items of one check, in the order they were graded."""

    COLUMNS = ("item", "GPU", "status", "measured", "expected", "ratio", "reason", "hint")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.COLUMNS), parent)
        self.setObjectName("checkScorecard")
        self.setHorizontalHeaderLabels(
            [
                _t("Item"),
                _t("GPU"),
                _t("Status"),
                _t("Measured"),
                _t("Expected"),
                _t("Ratio"),
                _t("Reason"),
                _t("Hint"),
            ]
        )
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(7, QHeaderView.ResizeMode.Stretch)
        self.items_shown: list[CheckItem] = []

    def clear_items(self) -> None:
        self.setRowCount(0)
        self.items_shown = []

    def add_item(self, item: CheckItem) -> None:
        """Append one :class:`~gpuprof.check.model.CheckItem`."""
        row = self.rowCount()
        self.insertRow(row)
        status = item.status.value
        reason, hint = tr_text(item.reason), tr_text(item.hint)
        source = tr_text(item.source) if item.source else ""
        cells = (
            item.item_id,
            "" if item.gpu_index is None else str(item.gpu_index),
            status,
            fmt_value(item.measured, item.unit),
            fmt_value(item.expected, item.unit),
            f"{100 * item.ratio:.0f}%" if item.ratio is not None else "",
            reason,
            hint,
        )
        tip_parts = [f"{item.item_id}: {status}"]
        tip_parts += [t for t in (reason, hint) if t]
        if source:
            tip_parts.append(_t("Reference: %1").replace("%1", source))
        tip = "\n".join(tip_parts)
        for col, text in enumerate(cells):
            cell = QTableWidgetItem(text)
            cell.setToolTip(tip)
            if col == 2:
                cell.setForeground(QBrush(QColor(STATUS_COLOURS.get(status, "#8a8a8a"))))
                font = cell.font()
                font.setBold(status in ("FAIL", "WARN"))
                cell.setFont(font)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            elif col in (3, 4, 5):
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, col, cell)
        self.items_shown.append(item)
        self.scrollToBottom()

    def statuses(self) -> list[str]:
        return [i.status.value for i in self.items_shown]
