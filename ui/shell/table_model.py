"""What the app's flat table models share: no child rows, a fixed list of columns, and headers
across the top whose text and tooltip each model gives."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

__all__ = ["ColumnsModel"]

_Index = QModelIndex | QPersistentModelIndex


class ColumnsModel(QAbstractTableModel):
    """A table of ``column_count()`` columns; :meth:`header_text` and :meth:`header_tip` give a
    column's header (the display and tooltip roles), nothing for other roles or rows' headers."""

    def column_count(self) -> int:
        raise NotImplementedError

    def header_text(self, section: int) -> str:
        raise NotImplementedError

    def header_tip(self, section: int) -> str | None:
        return None

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else self.column_count()

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:  # noqa: ANN401 - Qt API: a header's value is the role's (text, tooltip)
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < self.column_count():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.header_text(section)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.header_tip(section)
        return None
