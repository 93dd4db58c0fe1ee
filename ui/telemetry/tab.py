"""Telemetry tab: every GPU over a time window, one plot per metric, plus the throttle band.

Drawing follows DESIGN.md (Known traps, redraw cost): the plots never draw per sample. The main
window's timer calls :meth:`TelemetryTab.refresh` when this tab is visible; it asks History for a
min/max-decimated view of about 2 points per pixel column (one call per GPU for all its fields,
cached while nothing changed) and hands the points to each plot's
:class:`~gpuprof.ui.telemetry.plot.items.CurveLayer`, not to ``PlotDataItem.setData``. The layer is one
``GraphicsObject`` that paints all of a plot's curves itself: the points of complete buckets are
stroked once into a cached image that scrolls with time, only the newest ones are stroked per
frame, and ``None`` samples are NaN and break the lines (as ``connect='finite'`` would). Grid
lines are their own item so that the axes stay cached as pixmaps. All plots share one scene.

What is plotted: :mod:`~gpuprof.ui.telemetry.plot.specs`; the frame's data from History:
:mod:`~gpuprof.ui.telemetry.plot.data`; the graphics items: :mod:`~gpuprof.ui.telemetry.plot.items`; the throttle
band: :mod:`~gpuprof.ui.telemetry.throttle_band`.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from gpuprof.i18n import tr
from gpuprof.telemetry.prof import prof_reason
from gpuprof.units import fmt_num
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPen, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..shell.i18n import translate as _t
from ..shell.settings import SECONDARY_MODES, TIME_WINDOWS_S
from ..shell.state import UiState
from ..shell.theme import THEMES, Theme, gpu_colour, style_plot
from ..shell.widgets import button
from .plot.data import Fetched, FrameFetcher
from .plot.items import Grid, PlotPanel, Series, TimedLayoutWidget, blend, cache_axis
from .plot.lines import draw_limit_lines
from .plot.specs import (
    PLOT_SPECS,
    SECONDARY_AUTO_MAX_GPUS,
    VENDOR_TITLES,
    PlotSpec,
    activity_unavailable,
    field_short,
    nice_top,
)
from .plot.ticks import StepTicks
from .throttle_band import ThrottleBand

__all__ = ["TelemetryTab", "PlotSpec", "PLOT_SPECS", "SECONDARY_AUTO_MAX_GPUS", "time_window_label"]


def time_window_label(seconds: int) -> str:
    if seconds == 0:
        return _t("All")
    if seconds < 3600:
        return _t("%1 min").replace("%1", str(seconds // 60))
    return _t("%1 h").replace("%1", str(seconds // 3600))


class TelemetryTab(QWidget):
    """Plots per metric, one curve per GPU in the GPU's colour; a throttle band below."""

    name = "telemetry"
    #: Selected GPU indices changed (a set of ints).
    selection_changed = Signal(object)
    #: Time window chosen in the tab (seconds, 0 = all).
    time_window_changed = Signal(int)
    pause_toggled = Signal(bool)
    #: The secondary-series choice changed: "auto", "on" or "off" (the window saves it).
    secondary_mode_changed = Signal(str)

    def __init__(self, state: UiState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self._theme: Theme = THEMES["light"]
        self._generation = -1
        self._drawn_key: tuple[object, ...] = ()
        self.redraw_count = 0
        self._ranges: dict[tuple[int, str], tuple[float, float]] = {}
        self.secondary_mode = "auto"
        self._frames = FrameFetcher()
        self._titles_key: tuple[object, ...] | None = None
        self._shown_titles: dict[str, str] = {}  # plot key -> its untranslated title now
        self._junction_gpus: frozenset[int] = frozenset()  # plotting junction, not edge
        self._line_kinds: dict[str, tuple[bool, ...]] = {}  # plot key -> junction per line
        self.step_ticks = StepTicks()  # a job's steps (plot_ticks.RecordingTicks feeds it)

        # Header: GPU check boxes (the legend), window, pause, crosshair read-out.
        self.gpu_box = QHBoxLayout()
        self.gpu_box.setSpacing(10)
        self.gpu_checks: dict[int, QCheckBox] = {}
        self.window_combo = QComboBox(self)
        for seconds in TIME_WINDOWS_S:
            self.window_combo.addItem(time_window_label(seconds), seconds)
        self.window_combo.setToolTip(self.tr("Time window shown in the plots (Ctrl+1 … Ctrl+4)"))
        self.window_combo.currentIndexChanged.connect(self._on_window_combo)
        self.pause_button = QPushButton(self.tr("Pause"), self)
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip(
            self.tr("Freeze the plots; sampling and recording go on (Space)")
        )
        self.pause_button.toggled.connect(self.pause_toggled)
        self.all_button = button(
            self.tr("All GPUs"), self.tr("Show every GPU again"), self._select_all, self
        )
        header = QHBoxLayout()
        legend_label = QLabel(self.tr("GPUs:"), self)
        legend_label.setToolTip(
            self.tr("Tick the GPUs to plot; each GPU keeps its colour everywhere")
        )
        header.addWidget(legend_label)
        header.addLayout(self.gpu_box)
        header.addWidget(self.all_button)
        header.addStretch(1)
        window_label = QLabel(self.tr("Window:"), self)
        window_label.setToolTip(self.window_combo.toolTip())
        self.secondary_check = QCheckBox(self.tr("Secondary series"), self)
        self.secondary_check.setToolTip(
            self.tr(
                "Draw the pale series too: memory utilization, memory clock, PCIe and NVLink "
                "transmit.\nBy default they are drawn only while %1 or fewer GPUs are plotted, "
                "which keeps the plots legible and the redraws cheap.\nTick or untick to choose "
                "yourself; the choice is remembered."
            ).replace("%1", str(SECONDARY_AUTO_MAX_GPUS))
        )
        self.secondary_check.setChecked(True)
        self.secondary_check.toggled.connect(self._on_secondary_toggled)
        header.addWidget(self.secondary_check)
        header.addWidget(window_label)
        header.addWidget(self.window_combo)
        header.addWidget(self.pause_button)

        self.readout = QLabel(self)
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setMinimumHeight(20)
        self.readout.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.readout.setToolTip(self.tr("Values under the mouse cursor"))

        self.view = TimedLayoutWidget(self)
        self.view.setToolTip("")
        self.view.ci.setSpacing(4)
        self._plots: dict[str, PlotPanel] | None = None  # built when first needed: see _build
        self._band: ThrottleBand | None = None
        self.band_legend = QLabel(self)
        self.band_legend.setTextFormat(Qt.TextFormat.RichText)
        self.band_legend.setToolTip(self.tr("Throttle reasons seen in the window, by colour"))
        self._mouse_proxy = pg.SignalProxy(
            self.view.scene().sigMouseMoved, rateLimit=30, slot=self._on_mouse_moved
        )

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.readout)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.band_legend)

    # -- set-up -----------------------------------------------------------------------------------
    @property
    def plots(self) -> dict[str, PlotPanel]:
        """The plots by key (``PLOT_SPECS``); built on first use."""
        if self._plots is None:
            self._build()
        assert self._plots is not None
        return self._plots

    @property
    def band(self) -> pg.PlotItem:
        """The throttle band's plot; built on first use."""
        if self._band is None:
            self._build()
        assert self._band is not None
        return self._band.item

    @property
    def throttle_bar_count(self) -> int:
        """Bars in the throttle band's last drawing (one per throttle episode and GPU)."""
        return self._band.bar_count if self._band is not None else 0

    def is_built(self) -> bool:
        return self._plots is not None

    def _build(self) -> None:
        """Make the nine PlotItems: ~0.15 s here, so only once the tab is shown (or asked)."""
        plots: dict[str, PlotPanel] = {}
        for n, spec in enumerate(PLOT_SPECS):
            item = self.view.addPlot(row=n // 2, col=n % 2)
            self._setup_plot(item, spec)
            plots[spec.key] = PlotPanel(spec, item)
        band = self.view.addPlot(row=len(PLOT_SPECS) // 2 + 1, col=0, colspan=2)
        self._plots, self._band = plots, ThrottleBand(band, self.band_legend)
        self.step_ticks.attach(p.item for p in plots.values())
        self._style_plots(self._theme)

    def showEvent(self, event: QShowEvent) -> None:
        if self._plots is None:
            self._build()
        super().showEvent(event)

    def _setup_plot(self, item: pg.PlotItem, spec: PlotSpec) -> None:
        item.setTitle(_t(spec.title), size="9pt")
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        for name in ("left", "bottom"):
            item.getAxis(name).enableAutoSIPrefix(False)
            # Grid lines of minor ticks cost more to paint than all the curves (perf/gui.py).
            item.getAxis(name).setStyle(maxTickLevel=0)
            cache_axis(item.getAxis(name))
        item.setLabel("left", _t(spec.axis), units=spec.unit)
        item.setLabel("bottom", _t("time"), units="s")
        item.getAxis("left").setWidth(52)
        vb = item.getViewBox()
        vb.disableAutoRange()
        vb.setDefaultPadding(0.0)
        item.setXRange(-60, 0, padding=0)
        item.setYRange(0, spec.y_max or 1.0, padding=0)

    def apply_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.view.setBackground(theme.plot_bg)
        if self._plots is None:
            return  # _build styles the plots
        self._style_plots(theme)
        self._drawn_key = ()
        self.refresh(force=True)

    def _style_plots(self, theme: Theme) -> None:
        for item in [*(p.item for p in self.plots.values()), self.band]:
            style_plot(item, theme)
        self._titles_key = None
        grid = blend(theme.plot_fg, theme.plot_bg, theme.grid_alpha)
        for g in self._grids():
            g.set_colour(grid)
        for plot in self.plots.values():
            for (gpu, _field), curve in plot.curves.items():
                curve.setPen(self._curve_pen(gpu, curve.secondary))

    # -- GPU selection ----------------------------------------------------------------------------
    def _sync_gpu_checks(self) -> None:
        indices = self.state.gpu_indices()
        if list(self.gpu_checks) == indices:
            for i, box in self.gpu_checks.items():
                want = self.state.selected_gpus is None or i in self.state.selected_gpus
                if box.isChecked() != want:
                    box.blockSignals(True)
                    box.setChecked(want)
                    box.blockSignals(False)
            return
        for box in self.gpu_checks.values():
            self.gpu_box.removeWidget(box)
            box.deleteLater()
        self.gpu_checks = {}
        for i in indices:
            box = QCheckBox(str(i), self)
            colour = gpu_colour(i)
            box.setStyleSheet(f"QCheckBox {{ color: {colour}; font-weight: 700; }}")
            box.setToolTip(self._gpu_tip(i))
            box.setChecked(self.state.selected_gpus is None or i in self.state.selected_gpus)
            box.toggled.connect(self._on_gpu_toggled)
            self.gpu_box.addWidget(box)
            self.gpu_checks[i] = box

    def _gpu_tip(self, i: int) -> str:
        tip = self.tr("GPU %1 %2 — tick to plot").replace("%1", str(i))
        tip = tip.replace("%2", self.state.device_name(i))
        if i in self._junction_gpus:
            note = self.tr("Temperature plotted: junction (hotspot); this GPU has no edge sensor")
            tip += "\n" + note
        return tip

    def _sync_junction_tips(self, blocks: dict[int, Fetched]) -> None:
        """The legend's tooltips say which GPUs' temperature curve is the junction's."""
        junction = frozenset(
            gpu for gpu, got in blocks.items() if gpu >= 0 and "temp_gpu_c" in got.stored
        )
        if junction == self._junction_gpus:
            return
        self._junction_gpus = junction
        for i, box in self.gpu_checks.items():
            box.setToolTip(self._gpu_tip(i))

    def _on_gpu_toggled(self) -> None:
        chosen = {i for i, box in self.gpu_checks.items() if box.isChecked()}
        self.selection_changed.emit(chosen)

    def _select_all(self) -> None:
        self.selection_changed.emit(set(self.gpu_checks))

    # -- secondary series -------------------------------------------------------------------------
    def secondary_shown(self) -> bool:
        """Whether the pale series are drawn: the user's choice, else ≤ 4 GPUs plotted."""
        if self.secondary_mode == "on":
            return True
        if self.secondary_mode == "off":
            return False
        return len(self.state.visible_gpus()) <= SECONDARY_AUTO_MAX_GPUS

    def set_secondary_mode(self, mode: str) -> None:
        """``"auto"`` (by GPU count), ``"on"`` or ``"off"``; redraws, does not emit."""
        if mode not in SECONDARY_MODES:
            raise ValueError(f"secondary series mode {mode!r} is not one of {SECONDARY_MODES}")
        self.secondary_mode = mode
        self._sync_secondary_check()
        self._drawn_key = ()
        self.refresh(force=True)

    def _on_secondary_toggled(self, checked: bool) -> None:
        # Ticking what the GPU-count rule would draw anyway goes back to the rule.
        auto = len(self.state.visible_gpus()) <= SECONDARY_AUTO_MAX_GPUS
        mode = "auto" if checked == auto else ("on" if checked else "off")
        self.secondary_mode = mode
        self.secondary_mode_changed.emit(mode)
        self._drawn_key = ()
        self.refresh(force=True)

    def _sync_secondary_check(self) -> None:
        shown = self.secondary_shown()
        if self.secondary_check.isChecked() != shown:
            self.secondary_check.blockSignals(True)
            self.secondary_check.setChecked(shown)
            self.secondary_check.blockSignals(False)

    def _sync_titles(self, secondary: bool, visible: list[int], blocks: dict[int, Fetched]) -> None:
        """Each plot's title for what it draws: with or without the pale fields, and naming the
        vendor field (junction, XGMI) where some or every plotted GPU draws one."""
        titles: dict[str, str] = {}
        for key, plot in self.plots.items():
            title = plot.spec.title_for(secondary)
            vendor = VENDOR_TITLES.get(key)
            if vendor is not None and plot.spec.fields:
                first = plot.spec.fields[0]
                drawn = [gpu in blocks and first in blocks[gpu].stored for gpu in visible]
                if any(drawn):
                    title = vendor.title_for(secondary, all(drawn))
            titles[key] = title
        key_now = (secondary, tuple(titles.items()))
        if key_now == self._titles_key:
            return
        self._titles_key = key_now
        self._shown_titles = titles
        for key, plot in self.plots.items():
            plot.item.setTitle(_t(titles[key]), size="9pt", color=self._theme.plot_fg)

    def _sync_activity_title(self, secondary: bool, visible: list[int]) -> None:
        """Grey the GPM plot's title with the reason while no plotted GPU reports activity."""
        for plot in self.plots.values():
            if not plot.spec.needs_prof:
                continue
            title, colour = _t(plot.spec.title_for(secondary)), self._theme.plot_fg
            why = activity_unavailable(self.state.latest, visible)
            if why is not None:
                title = f"{_t(plot.spec.title).split(' —')[0]} — {why}"
                colour = self._theme.muted
            label = plot.item.titleLabel
            if label.text != title or label.opts.get("color") != colour:
                plot.item.setTitle(title, size="9pt", color=colour)

    def _on_window_combo(self, row: int) -> None:
        self.time_window_changed.emit(int(self.window_combo.itemData(row)))

    def sync_controls(self) -> None:
        """Reflect the state (window, pause, selection) in the header without emitting."""
        row = self.window_combo.findData(self.state.time_window_s)
        if row >= 0 and row != self.window_combo.currentIndex():
            self.window_combo.blockSignals(True)
            self.window_combo.setCurrentIndex(row)
            self.window_combo.blockSignals(False)
        if self.pause_button.isChecked() != self.state.paused:
            self.pause_button.blockSignals(True)
            self.pause_button.setChecked(self.state.paused)
            self.pause_button.blockSignals(False)
        self.pause_button.setText(self.tr("Resume") if self.state.paused else self.tr("Pause"))
        self._sync_gpu_checks()
        self._sync_secondary_check()
        self._drawn_key = ()

    # -- drawing ----------------------------------------------------------------------------------
    def _plot_width_px(self) -> int:
        vb = self.plots["util"].item.getViewBox()
        return max(50, int(vb.width()) or 600)

    def last_paint_s(self) -> float:
        return float(self.view.paint_s)

    def min_redraw_period_s(self) -> float:
        """A new frame only pays off once new data fills a pixel column (≤ 20 Hz, ≥ 0.5 Hz)."""
        window = self.state.time_window_s
        if window == 0:
            t_range = self._history_range()
            window = int(t_range[1] - t_range[0]) if t_range else 60
        return min(max(window / self._plot_width_px(), 0.05), 2.0)

    def _history_range(self) -> tuple[float, float] | None:
        try:
            rng = self.state.history.time_range()
        except (AttributeError, ValueError):
            return None
        return rng if rng and rng[0] is not None else None

    def refresh(self, force: bool = False) -> None:
        """Redraw from History if anything changed since the last frame."""
        state = self.state
        if len(self.gpu_checks) != len(state.gpu_indices()):
            self._sync_gpu_checks()
        t1 = state.end_time()
        if t1 is None:
            return
        if state.view_end_s is None:
            # Following the newest sample: the right edge is the newest time History holds. A
            # sample back in time by at most BACKWARD_RESET_S (a poll landing after a replay
            # seek cleared History) is stored at History's newest time, past the snapshot's
            # own: with the snapshot's time as the edge, every new sample would land past it.
            rng = self._history_range()
            if rng is not None and rng[1] > t1:
                t1 = float(rng[1])
        secondary = self.secondary_shown()
        key = (
            state.generation if not state.paused else -1,
            t1,
            state.time_window_s,
            tuple(state.visible_gpus()),
            self._plot_width_px(),
            secondary,
        )
        if not force and key == self._drawn_key:
            return
        self._drawn_key = key
        self.redraw_count += 1
        if state.time_window_s:
            t0 = t1 - state.time_window_s
        else:
            rng = self._history_range()
            t0 = rng[0] if rng else t1 - 60
            t0 = min(t0, t1 - 1.0)
        width = self._plot_width_px()
        max_points = 2 * width
        visible = state.visible_gpus()
        self._sync_secondary_check()
        blocks = self._frames.fetch(state.history, visible, t0, t1, max_points, secondary)
        self._sync_titles(secondary, visible, blocks)
        self._sync_activity_title(secondary, visible)
        self._sync_junction_tips(blocks)
        for plot in self.plots.values():
            self._draw_plot(plot, visible, blocks, secondary, t0, t1)
        assert self._band is not None  # built by self.plots above
        self._band.draw(state.history, visible, t0, t1, self._plot_width_px(), state.paused)
        self._set_range(self.band, "x", t0 - t1, 0.0)
        for plot in self.plots.values():
            self._set_range(plot.item, "x", t0 - t1, 0.0)
        self.step_ticks.draw(t0, t1)
        for grid in self._grids():
            grid.sync()

    def _grids(self) -> list[Grid]:
        grids = [p.grid for p in self.plots.values()]  # builds the band's grid too
        assert self._band is not None
        return [*grids, self._band.grid]

    def _set_range(self, item: pg.PlotItem, axis: str, lo: float, hi: float) -> None:
        """Set a view range only when it moved: each change re-lays the axis ticks."""
        key = (id(item), axis)
        old = self._ranges.get(key)
        if old is not None and abs(old[0] - lo) < 1e-9 and abs(old[1] - hi) < 1e-9:
            return
        self._ranges[key] = (lo, hi)
        if axis == "x":
            item.setXRange(lo, hi, padding=0)
        else:
            item.setYRange(lo, hi, padding=0)

    def _draw_plot(
        self,
        plot: PlotPanel,
        visible: list[int],
        blocks: dict[int, Fetched],
        secondary: bool,
        t0: float,
        t1: float,
    ) -> None:
        spec = plot.spec
        top = 0.0
        wanted: set[tuple[int, str]] = set()
        fields = spec.fields if secondary else spec.fields[:1]
        series: list[tuple[int, str, int]] = [
            (gpu, f, n) for gpu in visible for n, f in enumerate(fields)
        ]
        if spec.host_field:
            series.append((-1, spec.host_field, 0))
        empty = np.empty(0)
        drawn: list[Series] = []
        bucket = 0
        for gpu, asked, n in series:
            got = blocks.get(gpu)
            # What this GPU's ring of the asked field holds (junction, XGMI: plot_data.Fetched).
            field = asked if got is None else got.stored.get(asked, asked)
            ckey = (gpu, field)
            wanted.add(ckey)
            if got is None or field not in got.rows:
                t, x, y, n_final = empty, empty, empty, 0
            else:
                t, x, y, n_final = got.t_s, got.x, got.rows[field], got.n_final
                bucket = max(bucket, got.bucket_samples)
            if spec.scale != 1.0:
                y = y * spec.scale
            curve = plot.curves.get(ckey)
            if curve is None:
                curve = Series(self._curve_pen(gpu, n), n)
                plot.curves[ckey] = curve
            curve.set_points(t, x, y, n_final)
            drawn.append(curve)
            plot.data[ckey] = (x, y)
            if y.size:
                hi = float(np.fmax.reduce(y))  # NaN only when every value is
                if hi > top:
                    top = hi
        for ckey, curve in plot.curves.items():
            if ckey not in wanted and curve.isVisible():
                curve.clear()
                plot.data.pop(ckey, None)
        top = max(top, draw_limit_lines(plot, self.state, visible, self._line_kinds))
        top = spec.y_max * 1.02 if spec.y_max is not None else nice_top(top)
        self._set_range(plot.item, "y", 0.0, top)
        plot.layer.set_frame(drawn, t1, bucket, QRectF(t0 - t1, 0.0, t1 - t0, top))

    def _curve_pen(self, gpu: int, n: int) -> QPen:
        """GPU colour; a secondary series (n > 0) in a pale tint of it, also solid.

        Dashes cost ~40 % more to stroke than solid lines and do not show on min/max-decimated
        data anyway (every pixel column is a vertical run); an opaque tint is as cheap as the
        main line and stays legible on both themes.
        """
        colour = gpu_colour(gpu) if gpu >= 0 else self._theme.muted
        # A third series (the GPM plot's DRAM) is paler still than the second.
        tint = blend(colour, self._theme.plot_bg, 0.45 if n == 1 else 0.7) if n > 0 else colour
        pen: QPen = pg.mkPen(tint, width=1)
        return pen

    # -- crosshair --------------------------------------------------------------------------------
    def _on_mouse_moved(self, event: tuple[QPointF]) -> None:
        pos = event[0]
        hovered: PlotPanel | None = None
        for plot in self.plots.values():
            if plot.item.sceneBoundingRect().contains(pos):
                hovered = plot
        if hovered is None:
            for plot in self.plots.values():
                plot.crosshair.hide()
            return
        x = float(hovered.item.getViewBox().mapSceneToView(pos).x())
        self.show_values_at(x, hovered.spec.key)

    def show_values_at(self, x: float, plot_key: str) -> str:
        """Move the crosshair to ``x`` (seconds before the right edge) and list the values."""
        for plot in self.plots.values():
            plot.crosshair.setPos(x)
            plot.crosshair.show()
        plot = self.plots[plot_key]
        spec = plot.spec
        parts: list[str] = []
        absent: dict[int, str] = {}  # GPM plot: GPU -> why it has no value here
        shown: set[int] = set()
        for (gpu, field), (xs, ys) in sorted(plot.data.items()):
            if xs.size == 0:
                continue
            i = int(np.clip(np.searchsorted(xs, x), 0, xs.size - 1))
            if i > 0 and abs(xs[i - 1] - x) < abs(xs[i] - x):
                i -= 1
            value = ys[i]
            if math.isnan(value):
                if spec.needs_prof and gpu >= 0:
                    absent.setdefault(gpu, self._prof_reason(gpu))
                continue
            shown.add(gpu)
            name = _t("host") if gpu < 0 else f"GPU {gpu}"
            colour = self._theme.muted if gpu < 0 else gpu_colour(gpu)
            # The host plot has no GPU fields (spec.fields is empty): test the host first.
            suffix = "" if gpu < 0 or field == spec.fields[0] else " " + field_short(field)
            parts.append(
                f'<span style="color:{colour}"><b>{name}</b>{suffix}</span> '
                f"{fmt_num(value, spec.unit, digits=spec.digits)}"
            )
        for gpu, why in sorted((g, w) for g, w in absent.items() if g not in shown):
            # Absent values say so, with the reason (as the greyed title does), not nothing.
            parts.append(
                f'<span style="color:{gpu_colour(gpu)}"><b>GPU {gpu}</b></span> '
                f"– ({html.escape(why)})"
            )
        title = _t(self._shown_titles.get(plot_key, spec.title)).split(" —")[0].split(" (")[0]
        text = f"<b>{html.escape(title)}</b> @ {x:.1f} s: " + " · ".join(parts)
        self.readout.setText(text)
        return text

    def _prof_reason(self, gpu: int) -> str:
        """Why ``gpu`` has no profiling (GPM) value, from the latest snapshot, translated."""
        snap = self.state.latest
        sample = next((g for g in snap.gpus if g.index == gpu), None) if snap else None
        return prof_reason(sample) if sample is not None else tr("no data")
