"""The Telemetry tab's throttle band: one row per GPU, a bar per throttle episode in the window.

Scanning every sample for episodes is the dearest part of a frame over a long window, so the bars
are rebuilt once the right edge moved by a pixel column (or the view changed); in between they are
only shifted, at the cost of moving one item.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from gpuprof.telemetry.history import History
from gpuprof.telemetry.reasons import ClockEventReason
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from ..shell.i18n import translate as _t
from ..shell.theme import throttle_colour
from .plot.items import Grid, cache_axis

__all__ = ["ThrottleBand"]


class ThrottleBand:
    """The band's PlotItem, its grid and bars, and the legend label (owned by the tab)."""

    def __init__(self, item: pg.PlotItem, legend: QLabel):
        self.item = item
        self.legend = legend
        self.bars: pg.BarGraphItem | None = None
        self.bar_count = 0
        self._key: tuple[object, ...] = ()
        self._t_ref = 0.0
        item.setTitle(
            _t("Throttle reasons per GPU (coloured when clocks are held down)"), size="9pt"
        )
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.getAxis("bottom").enableAutoSIPrefix(False)
        # Rows are GPU numbers: with 0 or 1 GPU the range is under 1 and pyqtgraph would
        # otherwise label the axis "GPU (x0.001)".
        item.getAxis("left").enableAutoSIPrefix(False)
        item.getAxis("bottom").setStyle(maxTickLevel=0)
        cache_axis(item.getAxis("bottom"))
        cache_axis(item.getAxis("left"))
        item.setLabel("bottom", _t("time"), units="s")
        item.setLabel("left", _t("GPU"))
        item.getAxis("left").setWidth(52)
        item.getViewBox().disableAutoRange()
        item.setMaximumHeight(150)
        item.setMinimumHeight(70)
        self.grid = Grid(item, y=False)
        item.addItem(self.grid, ignoreBounds=True)

    def draw(
        self,
        history: History,
        visible: list[int],
        t0: float,
        t1: float,
        width_px: int,
        paused: bool,
    ) -> None:
        """Throttle episodes of ``visible`` GPUs in ``[t0, t1]`` (Unix s) as bars, x = t - t1."""
        period = max(1.0, (t1 - t0) / width_px)
        key = (tuple(visible), round(t1 - t0, 6), paused)
        if key == self._key and 0.0 <= t1 - self._t_ref < period:
            if self.bars is not None:
                self.bars.setPos(self._t_ref - t1, 0)
            return
        self._key = key
        self._t_ref = t1
        x0: list[float] = []
        x1: list[float] = []
        y0: list[float] = []
        brushes: list[QColor] = []
        seen: dict[str, str] = {}
        for row, gpu in enumerate(visible):
            try:
                intervals = history.throttle_intervals(gpu, t0, t1)
            except (KeyError, ValueError, IndexError, AttributeError):
                intervals = []
            for start, end, reasons in intervals:
                # a bar takes the colour of its most severe reason (hardware, thermal first)
                colour = throttle_colour(ClockEventReason.from_names(reasons))
                for r in reasons or ("unknown",):
                    seen.setdefault(r, throttle_colour(r))
                x0.append(start - t1)
                x1.append(max(end, start + 1e-3) - t1)
                y0.append(row - 0.4)
                brushes.append(QColor(colour))
        if self.bars is not None:
            self.item.removeItem(self.bars)
            self.bars = None
        if x0:
            self.bars = pg.BarGraphItem(
                x0=np.array(x0),
                x1=np.array(x1),
                y0=np.array(y0),
                height=0.8,
                brushes=brushes,
                pen=None,
            )
            self.item.addItem(self.bars)
        self.item.getAxis("left").setTicks([[(row, str(g)) for row, g in enumerate(visible)]])
        self.item.setYRange(-0.6, max(len(visible), 1) - 0.4, padding=0)
        if seen:
            parts = [f'<span style="color:{c}">■</span> {html.escape(r)}' for r, c in seen.items()]
            self.legend.setText(_t("Throttle reasons: ") + " &nbsp; ".join(parts))
        else:
            self.legend.setText(_t("No throttling in this window."))
        self.bar_count = len(x0)
