"""The Fleet tab's node × GPU grid: a row per node, a column per GPU, coloured by one metric.

Cells hold the value (sortable as a number), the node's key and the GPU in their roles; a
down node's cells read "down" and a stale or lost GPU's "stale"/"lost", both in grey, whatever
the metric. The legend names the metric, its unit and the colour scale.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

from ..shell.i18n import translate as _t

if TYPE_CHECKING:
    from gpuprof.fleet.model import Fleet, FleetGpu, FleetNode

__all__ = ["GRID_CHOICES", "FleetGrid", "cell_colour", "gpu_value", "legend_html", "matches"]

#: Role of a cell's node key ``(job, instance)`` and of its GPU column name.
NODE_ROLE = int(Qt.ItemDataRole.UserRole) + 1
GPU_ROLE = int(Qt.ItemDataRole.UserRole) + 2
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 3
#: The colour of a down node's or a stale GPU's cells.
DOWN_COLOUR = "#9e9e9e"


#: What the grid can be coloured by: key → (title, unit, low end, high end of the scale).
GRID_CHOICES: dict[str, tuple[str, str, float, float]] = {
    "util": ("GPU utilization", "%", 0.0, 100.0),
    "sm": ("SM active", "%", 0.0, 100.0),
    "mem": ("Memory used", "%", 0.0, 100.0),
    "temp": ("Temperature", "°C", 30.0, 90.0),
    "power": ("Power", "W", 0.0, 700.0),
    "errors": ("XID / ECC errors", "", 0.0, 1.0),
}


def _titles() -> None:  # the catalog's copies of GRID_CHOICES' titles, for lupdate
    _t("GPU utilization")
    _t("SM active")
    _t("Memory used")
    _t("Temperature")
    _t("Power")
    _t("XID / ECC errors")


def gpu_value(g: FleetGpu, metric: str) -> float | None:
    """The value ``g`` shows for ``metric``; ``errors``: the XID code, else the ECC DBE count,
    else 0 when the exporter serves either (None when it serves neither)."""
    if metric != "errors":
        return g.metric(metric)
    if g.xid:
        return g.xid
    if g.ecc_dbe:
        return g.ecc_dbe
    return 0.0 if g.xid is not None or g.ecc_dbe is not None else None


def cell_colour(metric: str, value: float | None) -> QColor | None:
    """Light (low) to dark blue (high) on the metric's scale; errors: green 0, red otherwise."""
    rgb = _rgb(metric, value)
    return None if rgb is None else QColor(*rgb)


def _rgb(metric: str, value: float | None) -> tuple[int, int, int] | None:
    if value is None:
        return None
    if metric == "errors":
        return (0xC6, 0x28, 0x28) if value > 0 else (0x66, 0xBB, 0x6A)
    _, _, lo, hi = GRID_CHOICES[metric]
    f = min(1.0, max(0.0, (value - lo) / (hi - lo)))
    # #e3f2fd → #0d47a1
    r = round(0xE3 + (0x0D - 0xE3) * f)
    g = round(0xF2 + (0x47 - 0xF2) * f)
    b = round(0xFD + (0xA1 - 0xFD) * f)
    return (r, g, b)


def _text_colour(bg: QColor) -> QColor:
    return QColor("#000000") if bg.lightness() > 140 else QColor("#ffffff")


def legend_html(metric: str) -> str:
    """The legend: the metric, its unit and five swatches of its scale."""
    title, unit, lo, hi = GRID_CHOICES[metric]
    name = _t(title) + (f" ({unit})" if unit else "")
    if metric == "errors":
        swatches = [(0.0, _t("none")), (1.0, _t("XID or ECC"))]
    else:
        steps = [lo + (hi - lo) * i / 4 for i in range(5)]
        swatches = [(v, f"{v:g}") for v in steps]
    cells = "".join(
        f'<span style="background:{cell_colour(metric, v).name()};">&nbsp;&nbsp;&nbsp;</span>'  # type: ignore[union-attr]
        f"&nbsp;{label}&nbsp;&nbsp;"
        for v, label in swatches
    )
    grey = f'<span style="background:{DOWN_COLOUR};">&nbsp;&nbsp;&nbsp;</span>&nbsp;'
    stale = _t("down / stale")
    return f"<b>{name}</b>&nbsp;&nbsp;{cells}{grey}{stale}"


def matches(node: FleetNode, text: str) -> bool:
    """The label filter: ``key=value`` terms (cluster, job, node, instance, or any label) must
    all match exactly; other words must appear in the node's cluster, job or name."""
    for term in text.split():
        key, eq, value = term.partition("=")
        if eq:
            have = {
                "cluster": node.cluster,
                "job": node.job,
                "node": node.name,
                "instance": node.instance,
            }
            got = have[key] if key in have else node.labels.get(key)
            if got != value:
                return False
        elif not any(term.lower() in s.lower() for s in (node.cluster, node.job, node.name)):
            return False
    return True


def _column_order(gpu: str) -> tuple[int, str]:
    head = gpu.split("/", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, gpu)


#: One cell, computed once per refresh: its data by role, set in one call. A cell that holds
#: no GPU is None (no item).
_Cell = dict[int, object]
_CENTER = int(Qt.AlignmentFlag.AlignCenter)
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_SIGN = 1 << 63
_ALL = (1 << 64) - 1


def _order_key(value: float | str | None) -> str:
    """A cell's sort order (numbers first by value, then text, None as "~") as a string Qt
    compares the same way: ASCII only, so code-unit order is code-point order. A number is its
    IEEE bits made monotonic (negatives' bits flipped, positives' sign bit set); text is its
    code points, 8 hex digits each (UTF-32 big-endian; lone surrogates as their value)."""
    if isinstance(value, float):
        (bits,) = struct.unpack(">Q", struct.pack(">d", value + 0.0))  # + 0.0: -0.0 is 0.0
        bits = bits ^ _ALL if bits & _SIGN else bits | _SIGN
        return f"0{bits:016x}"
    return "1" + str(value or "~").encode("utf-32-be", "surrogatepass").hex()


def _make_cell(
    text: str,
    sort: float | str | None,
    key: tuple[str, str],
    gpu: str | None = None,
    tip: str = "",
    bg: QBrush | None = None,
    fg: QBrush | None = None,
    align: int = 0,
) -> _Cell:
    cell: _Cell = {_DISPLAY: text, NODE_ROLE: key, SORT_ROLE: _order_key(sort)}
    if gpu is not None:
        cell[GPU_ROLE] = gpu
    if tip:
        cell[_TOOLTIP] = tip
    if bg is not None:
        cell[_BACKGROUND] = bg
    if fg is not None:
        cell[_FOREGROUND] = fg
    if align:
        cell[_ALIGN] = align
    return cell


class FleetGrid(QTableView):
    """The grid; :meth:`show_fleet` fills it, :meth:`set_filter` hides rows. ``cellClicked``
    (row, column), :meth:`item` and :meth:`sortItems` as on a QTableWidget.

    The cells live in a QStandardItemModel, each set in one call with all its roles: painting
    then never calls back into Python (a Python model would be asked seven roles per visible
    cell per paint), and a refresh is one ``setItemData`` per cell instead of eight calls per
    QTableWidgetItem."""

    FIXED = 4  # node, cluster, job, exporter
    cellClicked = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fleetGrid")
        self._model = QStandardItemModel(self)
        self._model.setSortRole(SORT_ROLE)
        self.setModel(self._model)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        # No sort until the user picks a column: the nodes come sorted (cluster, name); a
        # column picked then holds across refreshes.
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
        self._nodes: list[FleetNode] = []
        self._columns: list[str] = []
        self._filter = ""
        self._brushes: dict[tuple[int, int, int], tuple[QBrush, QBrush]] = {}
        self.clicked.connect(lambda index: self.cellClicked.emit(index.row(), index.column()))
        self._model.layoutChanged.connect(lambda *_: self.set_filter(self._filter))

    @property
    def columns(self) -> Sequence[str]:
        """The GPU columns' names (``0``, ``1``, ``0/1`` for a MIG instance)."""
        return tuple(self._columns)

    def rowCount(self) -> int:
        return self._model.rowCount()

    def columnCount(self) -> int:
        return self._model.columnCount()

    def item(self, row: int, column: int) -> QStandardItem | None:
        """The cell at (``row``, ``column``), None where no GPU is."""
        return self._model.item(row, column)

    def sortItems(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._model.sort(column, order)

    def clear_fleet(self) -> None:
        """No rows (another Prometheus is being asked)."""
        self._nodes = []
        self._model.setRowCount(0)

    def _brushes_of(self, rgb: tuple[int, int, int]) -> tuple[QBrush, QBrush]:
        """The background and text brushes of a cell coloured ``rgb`` (made once each)."""
        pair = self._brushes.get(rgb)
        if pair is None:
            bg = QColor(*rgb)
            pair = self._brushes[rgb] = (QBrush(bg), QBrush(_text_colour(bg)))
        return pair

    def show_fleet(self, fleet: Fleet, metric: str) -> None:
        self._nodes = list(fleet.nodes)
        columns = {g.column for g in fleet.gpus}
        before = (self._columns, self.rowCount())
        self._columns = sorted(columns, key=_column_order)
        where = {c: self.FIXED + i for i, c in enumerate(self._columns)}
        width = self.FIXED + len(self._columns)
        _, unit, _, _ = GRID_CHOICES[metric]
        down = QColor(DOWN_COLOUR)
        down_bg, down_fg = self._brushes_of((down.red(), down.green(), down.blue()))
        rows: list[list[_Cell | None]] = []
        for node in self._nodes:
            key = node.key
            state = _t("down") if node.down else (node.exporter or "?")
            if node.simulated and not node.down:
                state += " · SIMULATED"
            row: list[_Cell | None] = [None] * width
            for col, text in enumerate((node.name, node.cluster, node.job, state)):
                bg = down_bg if col == 3 and node.down else None
                tip = node.last_error if bg is not None else ""
                row[col] = _make_cell(text, text, key, tip=tip, bg=bg)
            for g in node.gpus:
                row[where[g.column]] = self._cell(node, g, metric, unit, down_bg, down_fg)
            rows.append(row)
        headers = [_t("node"), _t("cluster"), _t("job"), _t("exporter")]
        headers += [f"GPU {c}" for c in self._columns]
        model = self._model
        self.setUpdatesEnabled(False)
        self.setSortingEnabled(False)
        # Rows go and come; the columns stay when their number does (inserting columns would
        # move the header's sort indicator off the user's column).
        model.setRowCount(0)
        model.setColumnCount(width)
        model.setRowCount(len(rows))
        model.setHorizontalHeaderLabels(headers)
        index, put = model.index, model.setItemData
        for r, cells in enumerate(rows):
            for c, cell in enumerate(cells):
                if cell is not None:
                    put(index(r, c), cell)
        self.setSortingEnabled(True)
        if before != (self._columns, self.rowCount()):  # a refresh keeps the user's widths
            self.resizeColumnsToContents()
        self.setUpdatesEnabled(True)
        self.set_filter(self._filter)

    def _cell(
        self,
        node: FleetNode,
        g: FleetGpu,
        metric: str,
        unit: str,
        down_bg: QBrush,
        down_fg: QBrush,
    ) -> _Cell:
        value = gpu_value(g, metric)
        bg: QBrush | None
        fg: QBrush | None
        key: float | None
        if node.down or g.down:
            text, bg, fg, key = _t("down"), down_bg, down_fg, None
        elif g.lost or g.stale:
            text, bg, fg, key = (_t("lost") if g.lost else _t("stale")), down_bg, down_fg, None
        else:
            text = "–" if value is None else f"{value:.0f}" + (unit if unit != "%" else "")
            rgb, key = _rgb(metric, value), value
            bg, fg = (None, None) if rgb is None else self._brushes_of(rgb)
        tip = g.name + (f" · {g.model_name}" if g.model_name else "")
        if g.simulated:
            tip = "SIMULATED · " + tip
        return _make_cell(text, key, node.key, g.column, tip, bg, fg, _CENTER)

    def set_filter(self, text: str) -> None:
        self._filter = text.strip()
        by_key: dict[object, FleetNode] = {n.key: n for n in self._nodes}
        model = self._model
        for row in range(model.rowCount()):
            item = model.item(row, 0)
            node = by_key.get(item.data(NODE_ROLE)) if item is not None else None
            self.setRowHidden(row, node is not None and not matches(node, self._filter))

    def visible_nodes(self) -> list[str]:
        """The names of the rows shown, top to bottom (tests, screenshots)."""
        out = []
        for row in range(self.rowCount()):
            item = self.item(row, 0)
            if item is not None and not self.isRowHidden(row):
                out.append(item.text())
        return out

    def cell_text(self, node: str, gpu: str) -> str:
        item = self._find(node, gpu)
        return item.text() if item is not None else ""

    def cell_background(self, node: str, gpu: str) -> str:
        item = self._find(node, gpu)
        return item.background().color().name() if item is not None else ""

    def _find(self, node: str, gpu: str) -> QStandardItem | None:
        if gpu not in self._columns:
            return None
        col = self.FIXED + self._columns.index(gpu)
        for row in range(self.rowCount()):
            name = self.item(row, 0)
            if name is not None and name.text() == node:
                return self.item(row, col)
        return None
