"""The Telemetry tab's threshold lines: the power limit and the slowdown temperature, dashed,
one per distinct value among the plotted GPUs, each labelled with what it is.

amdsmi reads an AMD GPU's slowdown threshold from its junction (hotspot) sensor, so that line
says "junction slowdown", also on a GPU whose plotted temperature is the edge one (MI250X).
"""

from __future__ import annotations

import pyqtgraph as pg
from gpuprof.units import fmt_num
from PySide6.QtCore import Qt

from ...shell.i18n import translate as _t
from ...shell.state import UiState
from .items import PlotPanel

__all__ = ["draw_limit_lines"]


def draw_limit_lines(
    plot: PlotPanel, state: UiState, visible: list[int], kinds_drawn: dict[str, tuple[bool, ...]]
) -> float:
    """Power limit / slowdown threshold lines, one per distinct value; returns the highest
    (x 1.1, for the axis). ``kinds_drawn``: plot key -> whether each drawn line is a junction
    threshold, kept by the caller between frames."""
    key = plot.spec.key
    values: list[float] = []
    junction: set[float] = set()  # thresholds of AMD's junction (hotspot) sensor
    snap = state.latest
    if key == "power" and snap is not None:
        for g in snap.gpus:
            limit = g.power_enforced_limit_w or g.power_limit_w
            if g.index in visible and limit:
                values.append(float(limit))
    elif key == "temp":
        for i in visible:
            info = state.devices.get(i)
            if info is not None and info.temp_slowdown_c:
                values.append(float(info.temp_slowdown_c))
                if info.vendor == "amd":  # amdsmi reads it from the hotspot sensor
                    junction.add(float(info.temp_slowdown_c))
    distinct = tuple(sorted(set(values)))
    kinds = tuple(v in junction for v in distinct)
    if (distinct, kinds) != (plot.line_values, kinds_drawn.get(key)):
        for line in plot.lines:
            plot.item.removeItem(line)
        plot.lines = []
        kinds_drawn[key] = kinds
        for v, is_junction in zip(distinct, kinds, strict=True):
            if key == "power":
                label = _t("limit %1")
            else:
                label = _t("junction slowdown %1") if is_junction else _t("slowdown %1")
            line = pg.InfiniteLine(
                pos=v,
                angle=0,
                movable=False,
                pen=pg.mkPen("#c92a2a", width=1, style=Qt.PenStyle.DashLine),
                label=label.replace("%1", fmt_num(v, plot.spec.unit)),
                labelOpts={"position": 0.04, "color": "#c92a2a", "anchors": [(0, 0), (0, 0)]},
            )
            plot.item.addItem(line, ignoreBounds=True)
            plot.lines.append(line)
        plot.line_values = distinct
    return max(distinct) * 1.1 if distinct else 0.0
