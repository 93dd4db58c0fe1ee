"""Time-vs-cost scatter of the Recommend tab: log axes, the Pareto front highlighted and joined.

pyqtgraph's ScatterPlotItem has no log mode of its own, so the points are given as log10 values
and only the axes are switched to log mode (they then label 10^x ticks as plain numbers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from gpuprof.recommend.rank import RecommendationRow
from gpuprof.recommend.rank.billing import basis_label
from gpuprof.units import fmt_count, fmt_hours, fmt_usd
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..shell.i18n import translate as _t
from ..shell.theme import Theme, style_plot

__all__ = ["CostTimeScatter", "LogAxis"]

_POINT = "#4c6ef5"
_PARETO = "#e8590c"
_SELECTED = "#c92a2a"
_LOCAL = "#2b8a3e"


class LogAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """Log-axis ticks as plain numbers (``0.5``, ``20``, ``3k``), not ``5·10⁻¹``."""

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        xs = [10.0 ** float(v) * scale for v in values]
        crowded = len(xs) > 6
        out = []
        for x in xs:
            mantissa = x / 10.0 ** math.floor(math.log10(x) + 1e-9) if x > 0 else 0.0
            if crowded and round(mantissa) not in (1, 2, 5):
                out.append("")
            else:
                out.append(fmt_count(x, digits=3))
        return out


class CostTimeScatter(QWidget):
    """Every viable configuration as a point (x: hours, y: cost in the tab's currency);
    ``point_clicked(row_index)``."""

    point_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = pg.PlotWidget(
            self, axisItems={"bottom": LogAxis("bottom"), "left": LogAxis("left")}
        )
        self.view.setToolTip(
            _t(
                "Each point is one configuration that fits: estimated time "
                "against job cost, both on log scales. Orange points joined by a "
                "line are the Pareto front. Click a point to select its row."
            )
        )
        self.plot: pg.PlotItem = self.view.getPlotItem()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setLogMode(x=True, y=True)
        for name in ("left", "bottom"):
            self.plot.getAxis(name).enableAutoSIPrefix(False)
        self.plot.setLabel("bottom", _t("time"), units=_t("hours"))
        self.plot.setLabel("left", _t("job cost"), units=_t("USD"))
        self.plot.setTitle(_t("Time vs cost (log–log); ★ Pareto front"), size="9pt")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getAxis("left").setWidth(64)

        self.points = pg.ScatterPlotItem(
            size=7,
            pen=pg.mkPen(None),
            brush=pg.mkBrush(QColor(_POINT).lighter(110)),
            hoverable=True,
            hoverSize=10,
            tip=self._tip,
        )
        self.front = pg.PlotCurveItem(pen=pg.mkPen(_PARETO, width=1.5))
        self.pareto_points = pg.ScatterPlotItem(
            size=11,
            symbol="star",
            pen=pg.mkPen("#7a2e00", width=0.8),
            brush=pg.mkBrush(_PARETO),
            hoverable=True,
            hoverSize=14,
            tip=self._tip,
        )
        self.selected = pg.ScatterPlotItem(
            size=18, symbol="o", pen=pg.mkPen(_SELECTED, width=2), brush=pg.mkBrush(None)
        )
        self.local_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(_LOCAL, width=1.5, style=Qt.PenStyle.DashLine),
            label=_t("this machine"),
            labelOpts={"position": 0.92, "color": _LOCAL},
        )
        for item in (self.points, self.front, self.pareto_points, self.selected):
            self.plot.addItem(item)
        self.plot.addItem(self.local_line, ignoreBounds=True)
        self.local_line.hide()
        self.points.sigClicked.connect(self._on_clicked)
        self.pareto_points.sigClicked.connect(self._on_clicked)
        self._rows: dict[int, RecommendationRow] = {}
        self._xy: dict[int, tuple[float, float]] = {}
        self._serving = False
        self._job_tip = self.view.toolTip()
        self._currency = "USD"  # the tab's display currency: the cost axis is in it
        self._billing = "on-demand"  # the price basis of the costs (the Billing setting)
        self._rate_note = ""  # the dated exchange rate that converted the prices, if any

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    # -- data -------------------------------------------------------------------------------------
    def set_rows(
        self,
        rows: Sequence[RecommendationRow],
        local_hours: float | None = None,
        points: Sequence[tuple[float, float, bool]] | None = None,
        axes: tuple[str, str] = ("hours", "cost_usd"),
    ) -> None:
        """Plot every viable configuration with a time and a cost.

        ``points`` is ``Recommendation.scatter`` — (hours, USD, pareto) of every such candidate,
        also those beyond the table's row limit; without it the points come from ``rows``. A
        point's data is its index in ``rows`` (-1 when the table does not hold it). ``axes`` is
        ``Recommendation.scatter_axes``: serving plots USD per million output tokens against
        output tokens/s per instance instead (issue 22).
        """
        self._rows.clear()
        self._xy.clear()
        self._serving = axes != ("hours", "cost_usd")
        self._set_labels()
        if self._serving:
            local_hours = None
        if points is None:
            points = [
                (*xy, r.pareto) for r in rows if r.viable and (xy := self._row_xy(r)) is not None
            ]
        # Vectorized: a 10,000-row catalog gives thousands of points on every form change.
        arr = np.array(points, dtype=float).reshape(-1, 3)
        ok = (arr[:, 0] > 0) & (arr[:, 1] > 0) & np.isfinite(arr[:, 0]) & np.isfinite(arr[:, 1])
        arr = arr[ok]
        xs = np.log10(arr[:, 0])
        ys = np.log10(arr[:, 1])
        front = arr[:, 2] > 0
        idx = np.full(len(arr), -1, dtype=np.int64)
        position = {
            (h, c): k
            for k, (h, c) in enumerate(zip(arr[:, 0].tolist(), arr[:, 1].tolist(), strict=True))
        }
        for i, r in enumerate(rows):
            row_xy = self._row_xy(r) if r.viable else None
            if row_xy is None:
                continue
            k = position.get(row_xy)
            if k is not None and idx[k] < 0:
                idx[k] = i
                self._rows[i] = r
                self._xy[i] = (float(xs[k]), float(ys[k]))
        rest = ~front
        self.points.setData(x=xs[rest], y=ys[rest], data=idx[rest])
        order = np.flatnonzero(front)
        order = order[np.lexsort((ys[order], xs[order]))]
        px, py = xs[order], ys[order]
        self.pareto_points.setData(x=px, y=py, data=idx[order])
        if len(px) >= 2:
            self.front.setData(x=px, y=py)
        else:
            self.front.setData(x=np.empty(0), y=np.empty(0))
        self.selected.setData(x=[], y=[])
        if local_hours is not None and local_hours > 0 and math.isfinite(local_hours):
            self.local_line.show()
            self.local_line.label.setFormat(
                _t("this machine: %1").replace("%1", fmt_hours(local_hours))
            )
            self.local_line.setValue(math.log10(local_hours))
            self.local_line.label.valueChanged()
        else:
            self.local_line.hide()
        self._autorange(xs, ys, local_hours)

    def _row_xy(self, r: RecommendationRow) -> tuple[float, float] | None:
        """The row's point: (hours, job USD), or serving's (tokens/s per instance, $/M)."""
        if self._serving:
            s = r.serving
            if s is None or r.usd_per_million is None:
                return None
            return (s.capacity_tokens_per_s_per_instance, r.usd_per_million)
        if r.hours is None or r.cost_usd is None:
            return None
        return (r.hours, r.cost_usd)

    def _set_labels(self) -> None:
        if self._serving:
            self.plot.setLabel("bottom", _t("output tokens/s per instance"), units="")
            per_m = _t("%1 per million output tokens").replace("%1", self._currency)
            self.plot.setLabel("left", f"{per_m} ({basis_label(self._billing)})", units="")
            self.plot.setTitle(
                _t("Cost per million vs throughput per instance (log–log); ★ Pareto front"),
                size="9pt",
            )
            self.view.setToolTip(
                _t(
                    "Each point is one configuration that fits: output tokens per second one "
                    "instance sustains against the cost per million output tokens of the "
                    "instances the traffic needs, both on log scales. Orange points joined by "
                    "a line are the Pareto front. Click a point to select its row."
                )
                + self._currency_tip()
            )
        else:
            self.plot.setLabel("bottom", _t("time"), units=_t("hours"))
            cost = _t("job cost") + f" ({basis_label(self._billing)})"  # the Billing setting
            self.plot.setLabel("left", cost, units=self._currency)
            self.plot.setTitle(_t("Time vs cost (log–log); ★ Pareto front"), size="9pt")
            self.view.setToolTip(self._job_tip + self._currency_tip())

    def set_billing(self, billing: str) -> None:
        """Costs are on the ``billing`` price basis (the tab's Billing setting)."""
        self._billing = billing
        self._set_labels()

    def set_currency(self, code: str, rate_note: str = "") -> None:
        """Costs are in ``code`` (the tab's Currency setting), converted at ``rate_note`` (the
        dated rate, "1 USD = 7.2 CNY as of 2026-11-30 (…)"; "" when none was needed)."""
        self._currency, self._rate_note = code, rate_note
        self._set_labels()

    def currency(self) -> str:
        return self._currency

    def _currency_tip(self) -> str:
        """The tooltip's last line: the costs' currency and the rate that converted them."""
        if not self._rate_note:
            return "\n" + _t("Costs in %1.").replace("%1", self._currency)
        return "\n" + (
            _t("Costs in %1, converted at %2.")
            .replace("%1", self._currency)
            .replace("%2", self._rate_note)
        )

    def _autorange(
        self, xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], local_hours: float | None
    ) -> None:
        if not len(xs):
            self.plot.setXRange(0, 2, padding=0)
            self.plot.setYRange(1, 4, padding=0)
            return
        x_lo, x_hi = float(xs.min()), float(xs.max())
        if local_hours is not None and local_hours > 0 and math.isfinite(local_hours):
            lx = math.log10(local_hours)
            # Keep the local line in view unless it is absurdly far (a decades-long job here).
            if x_lo - 3 <= lx <= x_hi + 3:
                x_lo, x_hi = min(x_lo, lx), max(x_hi, lx)
        y_lo, y_hi = float(ys.min()), float(ys.max())
        self.plot.setXRange(x_lo - 0.15, x_hi + 0.15, padding=0)
        self.plot.setYRange(y_lo - 0.15, y_hi + 0.15, padding=0)

    def select(self, row_index: int | None) -> None:
        """Ring the point of ``row_index`` (no ring when it is not plotted)."""
        xy = self._xy.get(row_index) if row_index is not None else None
        if xy is None:
            self.selected.setData(x=[], y=[])
        else:
            self.selected.setData(x=[xy[0]], y=[xy[1]])

    # -- read back (tests, screenshots) -----------------------------------------------------------
    def pareto_count(self) -> int:
        return len(self.pareto_points.data)

    def point_count(self) -> int:
        return len(self.points.data) + len(self.pareto_points.data)

    def plotted_rows(self) -> tuple[int, ...]:
        return tuple(sorted(self._rows))

    # -- events -----------------------------------------------------------------------------------
    def _on_clicked(
        self, item: pg.ScatterPlotItem, points: npt.NDArray[np.object_], *args: object
    ) -> None:
        """pyqtgraph's sigClicked: the item and the SpotItems under the click."""
        if len(points) and int(points[0].data()) >= 0:
            self.point_clicked.emit(int(points[0].data()))

    def _tip(self, x: float, y: float, data: int | np.int64 | None) -> str:
        """pyqtgraph's hover tip of a point; ``data`` is its row index (-1: none)."""
        r = self._rows.get(int(data)) if data is not None else None
        if self._serving:
            line = _t("%1 tok/s per instance · %2 per million").replace(
                "%1", fmt_count(10.0**x, digits=3)
            )
            line = line.replace("%2", fmt_usd(10.0**y))
            if r is None:
                return _t("%1 (beyond the table's rows)").replace("%1", line)
            return (
                f"{r.label} — {r.instance.region or '?'}\n{line}"
                + (" ★" if r.pareto else "")
                + self._currency_tip()
            )
        if r is None:
            return (
                _t("%1 · %2 (beyond the table's rows)")
                .replace("%1", fmt_hours(10.0**x))
                .replace("%2", fmt_usd(10.0**y, digits=0))
            )
        return (
            f"{r.label} — {r.instance.region or '?'}\n"
            f"{fmt_hours(r.hours)} · {fmt_usd(r.cost_usd, digits=0)}"
            + (" ★" if r.pareto else "")
            + self._currency_tip()
        )

    def apply_theme(self, theme: Theme) -> None:
        self.view.setBackground(theme.plot_bg)
        style_plot(self.plot, theme)
        self.plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)
