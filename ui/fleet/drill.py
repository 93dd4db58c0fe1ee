"""The Fleet tab's drill-down: one node's six plots (utilization, SM active, memory,
temperature, power, SM clock) over the chosen window, a curve per GPU, from
:func:`gpuprof.fleet.drill.node_history`. The clicked GPU's curve is drawn thick."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtWidgets import QGridLayout, QWidget

from ..shell.i18n import translate as _t
from ..shell.theme import gpu_colour

if TYPE_CHECKING:
    from gpuprof.fleet.drill import NodeHistory

__all__ = ["DRILL_WINDOWS", "FleetDrill"]

#: The windows offered: (seconds, label).
DRILL_WINDOWS: tuple[tuple[int, str], ...] = ((900, "15 min"), (3600, "1 h"), (21600, "6 h"))


class FleetDrill(QWidget):
    """Six pyqtgraph plots in a 3 × 2 grid; :meth:`show_history` draws a node's history."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fleetDrill")
        self._layout = QGridLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.history: NodeHistory | None = None

    def _plot(self, key: str, title: str, unit: str, index: int) -> pg.PlotWidget:
        plot = self.plots.get(key)
        if plot is None:
            plot = pg.PlotWidget(self, axisItems={"bottom": pg.DateAxisItem()})
            plot.setMinimumHeight(140)
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.addLegend(offset=(-5, 5), labelTextSize="7pt")
            self._layout.addWidget(plot, index // 2, index % 2)
            self.plots[key] = plot
        plot.setTitle(f"{_t(title)} ({unit})")
        plot.setLabel("left", unit)
        return plot

    def clear(self) -> None:
        """No node shown (another Prometheus is being asked): the plots go."""
        self.history = None
        for plot in self.plots.values():
            self._layout.removeWidget(plot)
            plot.deleteLater()
        self.plots.clear()

    def show_history(self, history: NodeHistory, gpu: str = "") -> None:
        self.history = history
        for i, p in enumerate(history.plots):
            plot = self._plot(p.key, p.title, p.unit, i)
            plot.clear()
            for j, (name, (times, values)) in enumerate(p.curves.items()):
                width = 3 if gpu and name == gpu else 1
                pen = pg.mkPen(gpu_colour(j), width=width)
                plot.plot(times, values, pen=pen, name=f"GPU {name}", connect="finite")
            plot.setXRange(history.start_s, history.end_s, padding=0)

    def points(self) -> dict[str, int]:
        """Points drawn per plot (tests): the sum over its curves."""
        out = {}
        for key, plot in self.plots.items():
            out[key] = sum(
                len(item.xData) for item in plot.listDataItems() if item.xData is not None
            )
        return out
