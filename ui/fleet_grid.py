"""The Fleet tab's node × GPU grid: a row per node, a column per GPU, coloured by one metric.

Cells hold the value (sortable as a number), the node's key and the GPU in their roles; a
down node's cells read "down" and a stale or lost GPU's "stale"/"lost", both in grey, whatever
the metric. The legend names the metric, its unit and the colour scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QWidget

if TYPE_CHECKING:
    from gpuprof.fleet.model import Fleet, FleetGpu, FleetNode

__all__ = ["GRID_CHOICES", "FleetGrid", "cell_colour", "gpu_value", "legend_html", "matches"]

#: Role of a cell's node key ``(job, instance)`` and of its GPU column name.
NODE_ROLE = int(Qt.ItemDataRole.UserRole) + 1
GPU_ROLE = int(Qt.ItemDataRole.UserRole) + 2
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 3
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


class _Item(QTableWidgetItem):
    """A cell that sorts by its SORT_ROLE (numbers before text, None last)."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        a, b = self.data(SORT_ROLE), other.data(SORT_ROLE)
        ka = (0, a, "") if isinstance(a, float) else (1, 0.0, str(a or "~"))
        kb = (0, b, "") if isinstance(b, float) else (1, 0.0, str(b or "~"))
        return ka < kb


def _gpu_column(g: FleetGpu) -> str:
    return f"{g.gpu}/{g.mig_instance}" if g.mig_instance else g.gpu


def _column_order(gpu: str) -> tuple[int, str]:
    head = gpu.split("/", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, gpu)


class FleetGrid(QTableWidget):
    """The grid; :meth:`show_fleet` fills it, :meth:`set_filter` hides rows."""

    FIXED = 4  # node, cluster, job, exporter

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fleetGrid")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        self._nodes: list[FleetNode] = []
        self._columns: list[str] = []
        self._filter = ""

    @property
    def columns(self) -> Sequence[str]:
        """The GPU columns' names (``0``, ``1``, ``0/1`` for a MIG instance)."""
        return tuple(self._columns)

    def show_fleet(self, fleet: Fleet, metric: str) -> None:
        self._nodes = list(fleet.nodes)
        columns = {_gpu_column(g) for g in fleet.gpus}
        before = (self._columns, self.rowCount())
        self._columns = sorted(columns, key=_column_order)
        self.setUpdatesEnabled(False)
        self.setSortingEnabled(False)
        self.clear()
        self.setColumnCount(self.FIXED + len(self._columns))
        self.setRowCount(len(self._nodes))
        headers = [_t("node"), _t("cluster"), _t("job"), _t("exporter")]
        self.setHorizontalHeaderLabels(headers + [f"GPU {c}" for c in self._columns])
        _, unit, _, _ = GRID_CHOICES[metric]
        for row, node in enumerate(self._nodes):
            state = _t("down") if node.down else (node.exporter or "?")
            for col, text in enumerate((node.name, node.cluster, node.job, state)):
                item = _Item(text)
                item.setData(SORT_ROLE, text)
                item.setData(NODE_ROLE, node.key)
                if col == 3 and node.down:
                    item.setBackground(QColor(DOWN_COLOUR))
                    if node.last_error:
                        item.setToolTip(node.last_error)
                self.setItem(row, col, item)
            for g in node.gpus:
                self.setItem(
                    row,
                    self.FIXED + self._columns.index(_gpu_column(g)),
                    self._cell(node, g, metric, unit),
                )
        self.setSortingEnabled(True)
        if before != (self._columns, self.rowCount()):  # a refresh keeps the user's widths
            self.resizeColumnsToContents()
        self.setUpdatesEnabled(True)
        self.set_filter(self._filter)

    def _cell(self, node: FleetNode, g: FleetGpu, metric: str, unit: str) -> QTableWidgetItem:
        value = gpu_value(g, metric)
        bg: QColor | None
        key: float | None
        if node.down or g.down:
            text, bg, key = _t("down"), QColor(DOWN_COLOUR), None
        elif g.lost or g.stale:
            text, bg, key = (_t("lost") if g.lost else _t("stale")), QColor(DOWN_COLOUR), None
        else:
            text = "–" if value is None else f"{value:.0f}" + (unit if unit != "%" else "")
            bg, key = cell_colour(metric, value), value
        item = _Item(text)
        item.setData(SORT_ROLE, key)
        item.setData(NODE_ROLE, node.key)
        item.setData(GPU_ROLE, _gpu_column(g))
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        item.setToolTip(g.name + (f" · {g.model_name}" if g.model_name else ""))
        if bg is not None:
            item.setBackground(bg)
            item.setForeground(_text_colour(bg))
        return item

    def set_filter(self, text: str) -> None:
        self._filter = text.strip()
        by_key = {n.key: n for n in self._nodes}
        for row in range(self.rowCount()):
            item = self.item(row, 0)
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

    def _find(self, node: str, gpu: str) -> QTableWidgetItem | None:
        if gpu not in self._columns:
            return None
        col = self.FIXED + self._columns.index(gpu)
        for row in range(self.rowCount()):
            name = self.item(row, 0)
            if name is not None and name.text() == node:
                return self.item(row, col)
        return None
