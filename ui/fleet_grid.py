"""The Fleet tab's node × GPU grid: a row per node, a column per GPU, coloured by one metric.

Cells hold the value (sortable as a number), the node's key and the GPU in their roles; a
down node's cells read "down" and a stale or lost GPU's "stale"/"lost", both in grey, whatever
the metric. The legend names the metric, its unit and the colour scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

if TYPE_CHECKING:
    from gpuprof.fleet.model import Fleet, FleetGpu, FleetNode

__all__ = ["GRID_CHOICES", "FleetGrid", "cell_colour", "gpu_value", "legend_html", "matches"]

#: Role of a cell's node key ``(job, instance)`` and of its GPU column name.
NODE_ROLE = int(Qt.ItemDataRole.UserRole) + 1
GPU_ROLE = int(Qt.ItemDataRole.UserRole) + 2
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 3
_ROOT = QModelIndex()
#: The colour of a down node's or a stale GPU's cells.
DOWN_COLOUR = "#9e9e9e"


def _t(text: str) -> str:
    return QCoreApplication.translate("FleetTab", text)


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
    if value is None:
        return None
    if metric == "errors":
        return QColor("#c62828") if value > 0 else QColor("#66bb6a")
    _, _, lo, hi = GRID_CHOICES[metric]
    f = min(1.0, max(0.0, (value - lo) / (hi - lo)))
    # #e3f2fd → #0d47a1
    r = round(0xE3 + (0x0D - 0xE3) * f)
    g = round(0xF2 + (0x47 - 0xF2) * f)
    b = round(0xFD + (0xA1 - 0xFD) * f)
    return QColor(r, g, b)


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


def _gpu_column(g: FleetGpu) -> str:
    return f"{g.gpu}/{g.mig_instance}" if g.mig_instance else g.gpu


def _column_order(gpu: str) -> tuple[int, str]:
    head = gpu.split("/", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, gpu)


#: One cell, computed once per refresh: its data by role (what the view asks for while it
#: paints, one dictionary look-up). A cell that holds no GPU is None.
_Cell = dict[int, object]
_CENTER = int(Qt.AlignmentFlag.AlignCenter)
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_EDIT = int(Qt.ItemDataRole.EditRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled


def _sort_key(value: object) -> tuple[int, float, str]:
    """Numbers before text, None last (as "~")."""
    if isinstance(value, float):
        return (0, value, "")
    return (1, 0.0, str(value or "~"))


def _make_cell(
    text: str,
    sort: object,
    key: tuple[str, str],
    gpu: str | None = None,
    tip: str = "",
    bg: QBrush | None = None,
    fg: QBrush | None = None,
    align: int = 0,
) -> _Cell:
    cell: _Cell = {_DISPLAY: text, _EDIT: text, SORT_ROLE: sort, NODE_ROLE: key}
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


class GridCell:
    """A read-only view of one cell (tests, the click handler): the text, tool tip and roles."""

    __slots__ = ("_cell",)

    def __init__(self, cell: _Cell) -> None:
        self._cell = cell

    def text(self) -> str:
        return str(self._cell[_DISPLAY])

    def toolTip(self) -> str:
        return str(self._cell.get(_TOOLTIP, ""))

    def data(self, role: int) -> object:
        return self._cell.get(int(role))

    def background(self) -> QBrush:
        brush = self._cell.get(_BACKGROUND)
        return brush if isinstance(brush, QBrush) else QBrush()

    def foreground(self) -> QBrush:
        brush = self._cell.get(_FOREGROUND)
        return brush if isinstance(brush, QBrush) else QBrush()

    def textAlignment(self) -> int:
        align = self._cell.get(_ALIGN, 0)
        return align if isinstance(align, int) else 0


class FleetGridModel(QAbstractTableModel):
    """The grid's cells, replaced in one reset per refresh; the view asks only for the cells it
    paints (a 64 × 8 fleet is 768 cells, a screen shows a few dozen rows)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.headers: list[str] = []
        self.rows: list[list[_Cell | None]] = []

    def set_rows(self, headers: list[str], rows: list[list[_Cell | None]]) -> None:
        self.beginResetModel()
        self.headers, self.rows = headers, rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY) -> object:
        cell = self.rows[index.row()][index.column()]  # the view asks for valid cells only
        return None if cell is None else cell.get(role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> object:
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY:
            if 0 <= section < len(self.headers):
                return self.headers[section]
            return None
        if orientation == Qt.Orientation.Vertical and role == _DISPLAY:
            return str(section + 1)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """QTableWidget's sort: stable, by the cells' sort keys; rows without a cell in
        ``column`` last, in their order."""
        if not 0 <= column < len(self.headers):
            return
        self.layoutAboutToBeChanged.emit()
        have = [r for r in range(len(self.rows)) if self.rows[r][column] is not None]
        empty = [r for r in range(len(self.rows)) if self.rows[r][column] is None]
        have.sort(
            key=lambda r: _sort_key(self.rows[r][column].get(SORT_ROLE)),  # type: ignore[union-attr]
            reverse=order == Qt.SortOrder.DescendingOrder,
        )
        order_rows = have + empty
        where = {old: new for new, old in enumerate(order_rows)}
        self.rows = [self.rows[r] for r in order_rows]
        old = self.persistentIndexList()
        self.changePersistentIndexList(old, [self.index(where[i.row()], i.column()) for i in old])
        self.layoutChanged.emit()


class FleetGrid(QTableView):
    """The grid; :meth:`show_fleet` fills it, :meth:`set_filter` hides rows. ``cellClicked``
    (row, column) and :meth:`item` as on a QTableWidget."""

    FIXED = 4  # node, cluster, job, exporter
    cellClicked = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fleetGrid")
        self._model = FleetGridModel(self)
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
        self._brushes: dict[str, QBrush] = {}
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

    def item(self, row: int, column: int) -> GridCell | None:
        """The cell at (``row``, ``column``), None where no GPU is."""
        rows = self._model.rows
        if not (0 <= row < len(rows) and 0 <= column < len(rows[row])):
            return None
        cell = rows[row][column]
        return None if cell is None else GridCell(cell)

    def sortItems(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._model.sort(column, order)

    def clear_fleet(self) -> None:
        """No rows (another Prometheus is being asked)."""
        self._nodes = []
        self._model.set_rows(self._model.headers, [])

    def _brush(self, colour: QColor) -> QBrush:
        name = colour.name()
        brush = self._brushes.get(name)
        if brush is None:
            brush = self._brushes[name] = QBrush(colour)
        return brush

    def show_fleet(self, fleet: Fleet, metric: str) -> None:
        self._nodes = list(fleet.nodes)
        columns = {_gpu_column(g) for g in fleet.gpus}
        before = (self._columns, self.rowCount())
        self._columns = sorted(columns, key=_column_order)
        where = {c: self.FIXED + i for i, c in enumerate(self._columns)}
        width = self.FIXED + len(self._columns)
        _, unit, _, _ = GRID_CHOICES[metric]
        down_bg = self._brush(QColor(DOWN_COLOUR))
        rows: list[list[_Cell | None]] = []
        for node in self._nodes:
            key = node.key
            state = _t("down") if node.down else (node.exporter or "?")
            row: list[_Cell | None] = [None] * width
            for col, text in enumerate((node.name, node.cluster, node.job, state)):
                bg = down_bg if col == 3 and node.down else None
                tip = node.last_error if bg is not None else ""
                row[col] = _make_cell(text, text, key, tip=tip, bg=bg)
            for g in node.gpus:
                row[where[_gpu_column(g)]] = self._cell(node, g, metric, unit, down_bg)
            rows.append(row)
        headers = [_t("node"), _t("cluster"), _t("job"), _t("exporter")]
        headers += [f"GPU {c}" for c in self._columns]
        self.setUpdatesEnabled(False)
        self.setSortingEnabled(False)
        self._model.set_rows(headers, rows)
        self.setSortingEnabled(True)
        if before != (self._columns, self.rowCount()):  # a refresh keeps the user's widths
            self.resizeColumnsToContents()
        self.setUpdatesEnabled(True)
        self.set_filter(self._filter)

    def _cell(self, node: FleetNode, g: FleetGpu, metric: str, unit: str, down_bg: QBrush) -> _Cell:
        value = gpu_value(g, metric)
        bg: QBrush | None
        fg: QBrush | None = None
        key: float | None
        if node.down or g.down:
            text, bg, key = _t("down"), down_bg, None
        elif g.lost or g.stale:
            text, bg, key = (_t("lost") if g.lost else _t("stale")), down_bg, None
        else:
            text = "–" if value is None else f"{value:.0f}" + (unit if unit != "%" else "")
            colour, key = cell_colour(metric, value), value
            bg = None if colour is None else self._brush(colour)
        if bg is not None:
            fg = self._brush(_text_colour(bg.color()))
        tip = g.name + (f" · {g.model_name}" if g.model_name else "")
        return _make_cell(text, key, node.key, _gpu_column(g), tip, bg, fg, _CENTER)

    def set_filter(self, text: str) -> None:
        self._filter = text.strip()
        by_key: dict[object, FleetNode] = {n.key: n for n in self._nodes}
        for row, cells in enumerate(self._model.rows):
            first = cells[0] if cells else None
            node = by_key.get(first.get(NODE_ROLE)) if first is not None else None
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

    def _find(self, node: str, gpu: str) -> GridCell | None:
        if gpu not in self._columns:
            return None
        col = self.FIXED + self._columns.index(gpu)
        for row in range(self.rowCount()):
            name = self.item(row, 0)
            if name is not None and name.text() == node:
                return self.item(row, col)
        return None
