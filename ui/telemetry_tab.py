"""Telemetry tab: pyqtgraph plots of every GPU over a time window, plus the throttle band.

Drawing follows DESIGN.md (Known traps, redraw cost): the plots never draw per sample. The main
window's timer calls :meth:`TelemetryTab.refresh` when this tab is visible; it asks History for a
min/max-decimated view of about 2 points per pixel column and hands that to ``setData`` with
``connect='finite'`` (``None`` samples are NaN and leave gaps). All plots share one scene.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from gpuprof.i18n import N_
from gpuprof.telemetry.history import Block
from gpuprof.units import fmt_num
from PySide6.QtCore import QCoreApplication, QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QPaintEngine,
    QPainter,
    QPen,
    QShowEvent,
    QTransform,
)
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

from .settings import SECONDARY_MODES, TIME_WINDOWS_S
from .state import UiState
from .theme import THEMES, Theme, gpu_colour, throttle_colour

__all__ = ["TelemetryTab", "PlotSpec", "PLOT_SPECS", "SECONDARY_AUTO_MAX_GPUS", "time_window_label"]


def _t(text: str) -> str:
    return QCoreApplication.translate("TelemetryTab", text)


@dataclass(frozen=True)
class PlotSpec:
    """One plot: GpuSample fields (the first bright, the others pale), axis unit and scale."""

    key: str
    title: str
    unit: str
    fields: tuple[str, ...]
    scale: float = 1.0
    y_max: float | None = None  # fixed top (e.g. 100 for %); otherwise from the data
    host_field: str | None = None  # a host series drawn in grey (CPU %)
    digits: int = 0
    axis: str = ""  # short name on the y axis, before the unit
    title_primary: str = ""  # title while the secondary (pale) fields are not drawn

    def title_for(self, secondary: bool) -> str:
        """The untranslated title for what is drawn: with or without the pale fields."""
        return self.title if secondary or not self.title_primary else self.title_primary


# Titles are marked for translation with QT_TRANSLATE_NOOP semantics: translated when shown.
PLOT_SPECS: tuple[PlotSpec, ...] = (
    PlotSpec(
        "util",
        N_("Utilization — GPU (bright), memory (pale)"),
        "%",
        ("util_gpu_pct", "util_mem_pct"),
        y_max=100.0,
        axis=N_("util"),
        title_primary=N_("Utilization — GPU (memory: not drawn)"),
    ),
    PlotSpec(
        "mem",
        N_("Memory used"),
        "GiB",
        ("mem_used_bytes",),
        scale=1 / 2**30,
        digits=1,
        axis=N_("used"),
    ),
    PlotSpec("power", N_("Power draw (limit: dashed line)"), "W", ("power_w",), axis=N_("power")),
    PlotSpec(
        "temp",
        N_("GPU temperature (slowdown: dashed line)"),
        "°C",
        ("temp_gpu_c",),
        axis=N_("temp"),
    ),
    PlotSpec(
        "clock",
        N_("Clocks — SM (bright), memory (pale)"),
        "MHz",
        ("clock_sm_mhz", "clock_mem_mhz"),
        axis=N_("clock"),
        title_primary=N_("Clocks — SM (memory clock: not drawn)"),
    ),
    PlotSpec(
        "pcie",
        N_("PCIe — receive (bright), transmit (pale)"),
        "GB/s",
        ("pcie_rx_bytes_s", "pcie_tx_bytes_s"),
        scale=1e-9,
        digits=2,
        axis=N_("rate"),
        title_primary=N_("PCIe — receive (transmit: not drawn)"),
    ),
    PlotSpec(
        "nvlink",
        N_("NVLink — receive (bright), transmit (pale)"),
        "GB/s",
        ("nvlink_rx_bytes_s", "nvlink_tx_bytes_s"),
        scale=1e-9,
        digits=1,
        axis=N_("rate"),
        title_primary=N_("NVLink — receive (transmit: not drawn)"),
    ),
    PlotSpec(
        "host",
        N_("Host CPU utilization"),
        "%",
        (),
        y_max=100.0,
        host_field="cpu_pct",
        axis=N_("CPU"),
    ),
)

#: Every GPU / host field some plot draws: fetched together, once per frame.
_GPU_FIELDS: tuple[str, ...] = tuple(dict.fromkeys(f for s in PLOT_SPECS for f in s.fields))
#: Only the bright (first) field of each plot: what is fetched while the pale ones are off.
_GPU_PRIMARY_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(s.fields[0] for s in PLOT_SPECS if s.fields)
)
#: With more GPUs than this plotted, the pale secondary series are off unless the user ticks
#: them: 8 GPUs draw 49 curves instead of 89, and the plots stay readable.
SECONDARY_AUTO_MAX_GPUS = 4
_HOST_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(s.host_field for s in PLOT_SPECS if s.host_field)
)


class _Series:
    """One curve of a plot: its pen and the frame's points (the plot's :class:`_CurveLayer`
    strokes them). ``getData`` gives ``x`` in seconds before the right edge, as drawn."""

    def __init__(self, pen: QPen, secondary: int = 0):
        self._pen = QPen(pen)
        self._pen.setCosmetic(True)
        self.secondary = secondary  # index of the field in its plot: 0 main, > 0 pale
        self.t_s = np.empty(0)  # Unix seconds
        self.x = np.empty(0)  # seconds before the right edge
        self.y = np.empty(0)
        self.n_final = 0  # leading points that later samples never change (History.Block)
        self.visible = False

    def pen(self) -> QPen:
        return QPen(self._pen)

    def setPen(self, pen: QPen) -> None:
        self._pen = QPen(pen)
        self._pen.setCosmetic(True)

    def pen_key(self) -> int:
        return int(self._pen.color().rgba())

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    def isVisible(self) -> bool:
        return self.visible

    def set_points(self, t_s: np.ndarray, x: np.ndarray, y: np.ndarray, n_final: int) -> None:
        self.t_s, self.x, self.y, self.n_final = t_s, x, y, n_final
        self.visible = True

    def clear(self) -> None:
        self.t_s = self.x = self.y = np.empty(0)
        self.n_final = 0
        self.visible = False


def _stroke(painter: QPainter, x: np.ndarray, y: np.ndarray) -> None:
    """A polyline through the points, broken at NaN (like ``connect='finite'``)."""
    n = len(x)
    if n < 2:
        return
    if n <= 8:
        # The newest bucket's few points: plain Python beats numpy's per-call overhead.
        run: list[QPointF] = []
        for xv, yv in zip(x.tolist(), y.tolist(), strict=True):
            if xv == xv and yv == yv:  # not NaN
                run.append(QPointF(xv, yv))
                continue
            if len(run) > 1:
                painter.drawPolyline(run)
            run = []
        if len(run) > 1:
            painter.drawPolyline(run)
        return
    bad = np.isnan(y)
    bad |= np.isnan(x)
    if not bad.any():
        runs = [(0, n)]
    else:
        edges = np.diff((~bad).astype(np.int8), prepend=0, append=0)
        runs = [
            (int(a), int(b))
            for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True)
            if b - a > 1
        ]
    for a, b in runs:
        poly = pg.functions.create_qpolygonf(b - a)
        buf = pg.functions.ndarray_from_qpolygonf(poly)
        buf[:, 0] = x[a:b]
        buf[:, 1] = y[a:b]
        painter.drawPolyline(poly)


class _CurveLayer(pg.GraphicsObject):
    """Every curve of one plot, stroked once into an image that then scrolls with time.

    Stroking ~60 curves of ~1,100 points was most of a frame (perf/gui.py). But History's
    min/max buckets are aligned to fixed sample numbers, so the points of complete buckets
    (``Block.n_final``) never change: they are stroked once into an image, in the device pixels
    of the view, at a reference right edge ``t_ref``. A later frame draws the image shifted left
    by ``(t1 - t_ref)`` in pixels, strokes the points of newly completed buckets into it, and
    strokes only the newest partial bucket (a few points per curve) directly. The image is
    redrawn from scratch when the view's scale or size, the pens, the set of curves or the bucket
    size change, when the history does not continue what was drawn (a reset, a seek), or when
    the new columns have used up the spare width on the image's right. While the scale changes
    at every frame (the "All" window), the curves are stroked directly, as on vector devices.
    """

    #: Spare pixels right of the view, filled as time goes by before a full redraw.
    SPARE_PX = 256
    _PAD_PX = 2  # room for a 1 px line on the view's edges

    def __init__(self) -> None:
        super().__init__()
        self.series: list[_Series] = []
        self._t1 = 0.0
        self._bucket = 0
        self._style: tuple[object, ...] = ()
        self._rect = QRectF()  # the view range: x seconds before the right edge, y in units
        self._image: QImage | None = None
        self._image_key: tuple[object, ...] = ()
        self._origin = QPointF()  # logical device position of the image's top-left at t_ref
        self._t_ref = 0.0
        self._sx = 0.0  # device pixels per second
        self._baked: list[tuple[float, float] | None] = []  # last stroked point (t_s, y)
        self._bake_tr = QTransform()
        self._view_changed = False  # the last paint found a new scale
        self.rebuild_count = 0  # full redraws of the image (tests, perf)

    def set_frame(self, series: list[_Series], t1: float, bucket: int, view: QRectF) -> None:
        self.series = series
        self._t1 = t1
        self._bucket = bucket
        self._style = tuple((id(s), s.pen_key()) for s in series)
        if view != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(view)
        self.update()

    def invalidate(self) -> None:
        self._image_key = ()
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, painter: QPainter, *args: object) -> None:
        if not self.series or self._rect.isEmpty():
            return
        engine = painter.paintEngine()
        if engine is None or engine.type() != QPaintEngine.Type.Raster:
            # A vector device (SVG, PDF, printer) gets the lines themselves, not an image.
            self._paint_direct(painter)
            return
        tr = painter.transform()
        device = painter.device()
        dpr = float(device.devicePixelRatioF()) if device is not None else 1.0
        key = (
            round(tr.m11(), 9),
            round(tr.m22(), 9),
            round(tr.dx(), 6),
            round(tr.dy(), 6),
            round(tr.m12(), 9),
            round(tr.m21(), 9),
            dpr,
            self._style,
            self._bucket,
            self._rect.width(),
            self._rect.height(),
        )
        if key != self._image_key:
            # The scale changed (axis range, size, pens). Twice in a row (the "All" window
            # grows every frame): an image would not outlive the frame, so draw directly.
            churn = self._view_changed
            self._view_changed = True
            self._image_key = key
            if churn:
                self._image = None
                self._paint_direct(painter)
                return
            self._rebuild(tr, dpr)
        else:
            self._view_changed = False
            if (
                self._image is None
                or self._shift_px(dpr) > (self.SPARE_PX - self._PAD_PX) * dpr
                or not self._append()
            ):
                self._rebuild(tr, dpr)
        image = self._image
        assert image is not None
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        # Whole device pixels: a blit, not a resampling.
        shift = self._shift_px(dpr)
        width = image.width() - round(self.SPARE_PX * dpr)
        painter.save()
        painter.resetTransform()
        painter.drawImage(
            QRectF(self._origin.x(), self._origin.y(), width / dpr, image.height() / dpr),
            image,
            QRectF(shift, 0, width, image.height()),
        )
        painter.restore()
        t1 = self._t1
        for s in self.series:
            start = s.n_final - 1 if s.n_final > 0 else 0
            if len(s.t_s) - start > 1:
                painter.setPen(s._pen)
                _stroke(painter, s.t_s[start:] - t1, s.y[start:])

    def _paint_direct(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for s in self.series:
            painter.setPen(s._pen)
            _stroke(painter, s.t_s - self._t1, s.y)

    def _shift_px(self, dpr: float) -> int:
        """How far (device pixels) the image has scrolled left since it was drawn."""
        return round((self._t1 - self._t_ref) * self._sx * dpr)

    def _rebuild(self, tr: QTransform, dpr: float) -> None:
        """Stroke every final point of every curve into a fresh image, right edge = now."""
        self.rebuild_count += 1
        rect = tr.mapRect(self._rect)
        pad = self._PAD_PX
        self._origin = QPointF(math.floor(rect.left()) - pad, math.floor(rect.top()) - pad)
        w = math.ceil(rect.right()) + pad - self._origin.x() + self.SPARE_PX
        h = math.ceil(rect.bottom()) + pad - self._origin.y()
        image = QImage(
            max(1, round(w * dpr)),
            max(1, round(h * dpr)),
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        image.setDevicePixelRatio(dpr)
        image.fill(0)
        self._image = image
        self._t_ref = self._t1
        self._sx = tr.m11()
        # Image coordinates: the view's transform, moved to the image's origin.
        self._bake_tr = tr * QTransform.fromTranslate(-self._origin.x(), -self._origin.y())
        self._baked = [None] * len(self.series)
        self._append()

    def _append(self) -> bool:
        """Stroke points that became final since the last call; ``False``: needs a rebuild."""
        image = self._image
        if image is None or len(self._baked) != len(self.series):
            return False
        limit_s = (self.SPARE_PX - self._PAD_PX) / self._sx if self._sx > 0 else 0.0
        jobs: list[tuple[int, int, int]] = []
        for k, s in enumerate(self.series):
            n = s.n_final
            last = self._baked[k]
            if last is None:
                start = 0
            elif n > 0 and s.t_s[n - 1] == last[0] and _same(s.y[n - 1], last[1]):
                continue  # no bucket completed since the last frame (the usual case)
            else:
                start = int(np.searchsorted(s.t_s[:n], last[0]))
                if start >= n or s.t_s[start] != last[0] or not _same(s.y[start], last[1]):
                    return False  # the history does not continue what the image shows
            if n - start > 1:
                if s.t_s[n - 1] - self._t_ref > limit_s:
                    return False  # out of spare columns
                jobs.append((k, start, n))
        if not jobs:
            return True
        p = QPainter(image)
        try:
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            p.setTransform(self._bake_tr)
            for k, start, n in jobs:
                s = self.series[k]
                p.setPen(s._pen)
                _stroke(p, s.t_s[start:n] - self._t_ref, s.y[start:n])
        finally:
            p.end()
        for k, _start, n in jobs:
            s = self.series[k]
            self._baked[k] = (float(s.t_s[n - 1]), float(s.y[n - 1]))
        return True


def _same(a: float, b: float) -> bool:
    return bool(a == b or (math.isnan(a) and math.isnan(b)))


class _Grid(pg.GraphicsObject):
    """Grid lines at the major ticks of a plot's axes, drawn inside its view box.

    pyqtgraph's own grid is drawn by the AxisItem across the plot, which puts the axis (and its
    tick labels, replayed from a QPicture) into every frame's repaint: ~5 ms a frame for the
    nine plots here (perf/gui.py). This item draws the same lines with an opaque pen and leaves
    the axes alone until their range changes.
    """

    def __init__(self, item: pg.PlotItem, x: bool = True, y: bool = True):
        super().__init__()
        self._item = item
        self._axes = (x, y)
        self._pen = QPen(QColor(200, 200, 200))
        self._pen.setCosmetic(True)
        self._pen.setWidth(1)
        self._lines: list[QLineF] = []
        self._rect = QRectF()
        self._key: tuple[object, ...] = ()
        self.setZValue(-100)
        self.setFlag(self.GraphicsItemFlag.ItemIgnoresParentOpacity, True)

    def set_colour(self, colour: QColor) -> None:
        self._pen.setColor(colour)
        self.update()

    def sync(self) -> None:
        """Recompute the lines when the view range or the plot size changed."""
        vb = self._item.getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        w, h = vb.width(), vb.height()
        key = (x0, x1, y0, y1, round(w), round(h))
        if key == self._key:
            return
        self._key = key
        lines: list[QLineF] = []
        if self._axes[0] and w > 0:
            for v in _major_ticks(self._item.getAxis("bottom"), x0, x1, w):
                lines.append(QLineF(v, y0, v, y1))
        if self._axes[1] and h > 0:
            for v in _major_ticks(self._item.getAxis("left"), y0, y1, h):
                lines.append(QLineF(x0, v, x1, v))
        self.prepareGeometryChange()
        self._lines = lines
        self._rect = QRectF(x0, y0, x1 - x0, y1 - y0)
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, painter: QPainter, *args: object) -> None:
        if self._lines:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(self._pen)
            painter.drawLines(self._lines)


def _cache_axis(axis: pg.AxisItem) -> None:
    """Keep the axis as a pixmap: its ticks reach into the view box, so every frame's repaint
    of the curves exposes it, and replaying its QPicture cost ~0.1 ms per axis (perf/gui.py).

    (A vector rendering of the scene would get the axes as images too; the app only makes PNGs.)
    """
    axis.setCacheMode(pg.QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)


def _major_ticks(axis: pg.AxisItem, lo: float, hi: float, size_px: float) -> list[float]:
    """The values the axis labels (its first tick level), within ``[lo, hi]``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    levels = axis.tickValues(lo, hi, size_px)
    if not levels:
        return []
    return [float(v) for v in levels[0][1] if lo <= v <= hi]


def _blend(fg: str, bg: str, alpha: float) -> QColor:
    """``fg`` laid over ``bg`` at ``alpha``, as one opaque colour (cheap to stroke)."""
    a, b = QColor(fg), QColor(bg)
    return QColor(
        round(b.red() + (a.red() - b.red()) * alpha),
        round(b.green() + (a.green() - b.green()) * alpha),
        round(b.blue() + (a.blue() - b.blue()) * alpha),
    )


class _TimedLayoutWidget(pg.GraphicsLayoutWidget):
    """Remembers how long its last paint took: the window budgets frames with it."""

    paint_s = 0.0

    def paintEvent(self, event: object) -> None:
        started = time.perf_counter()
        super().paintEvent(event)
        self.paint_s = time.perf_counter() - started


def time_window_label(seconds: int) -> str:
    if seconds == 0:
        return _t("All")
    if seconds < 3600:
        return _t("%1 min").replace("%1", str(seconds // 60))
    return _t("%1 h").replace("%1", str(seconds // 3600))


@dataclass(frozen=True, eq=False)
class _Fetched:
    """One GPU's (or the host's) view for a frame: History's block with x relative to t1."""

    t_s: np.ndarray
    x: np.ndarray
    rows: dict[str, np.ndarray]
    n_final: int
    bucket_samples: int


class _Plot:
    """A PlotItem with its curves per (gpu, field), threshold lines and crosshair."""

    def __init__(self, spec: PlotSpec, item: pg.PlotItem):
        self.spec = spec
        self.item = item
        self.curves: dict[tuple[int, str], _Series] = {}
        self.lines: list[pg.InfiniteLine] = []
        self.line_values: tuple[float, ...] = ()
        self.data: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self.crosshair = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen((128, 128, 128), width=1)
        )
        self.crosshair.setZValue(50)
        self.crosshair.hide()
        item.addItem(self.crosshair, ignoreBounds=True)
        self.grid = _Grid(item)
        item.addItem(self.grid, ignoreBounds=True)
        self.layer = _CurveLayer()
        item.addItem(self.layer, ignoreBounds=True)


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
        self._band_key: tuple[object, ...] = ()
        self._band_t_ref = 0.0
        self.throttle_bar_count = 0
        self.secondary_mode = "auto"
        self._fetched: dict[tuple[int, tuple[str, ...]], tuple[tuple[object, ...], _Fetched]] = {}
        self._titles_secondary: bool | None = None

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
        self.all_button = QPushButton(self.tr("All GPUs"), self)
        self.all_button.setToolTip(self.tr("Show every GPU again"))
        self.all_button.clicked.connect(self._select_all)
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

        self.view = _TimedLayoutWidget(self)
        self.view.setToolTip("")
        self.view.ci.setSpacing(4)
        self._plots: dict[str, _Plot] | None = None  # built when first needed: see _build
        self._band: pg.PlotItem | None = None
        self.band_grid: _Grid | None = None
        self.band_bars: pg.BarGraphItem | None = None
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
    def plots(self) -> dict[str, _Plot]:
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
        return self._band

    def is_built(self) -> bool:
        return self._plots is not None

    def _build(self) -> None:
        """Make the nine PlotItems: ~0.15 s here, so only once the tab is shown (or asked)."""
        plots: dict[str, _Plot] = {}
        for n, spec in enumerate(PLOT_SPECS):
            item = self.view.addPlot(row=n // 2, col=n % 2)
            self._setup_plot(item, spec)
            plots[spec.key] = _Plot(spec, item)
        band = self.view.addPlot(row=len(PLOT_SPECS) // 2 + 1, col=0, colspan=2)
        self._setup_band(band)
        self.band_grid = _Grid(band, y=False)
        band.addItem(self.band_grid, ignoreBounds=True)
        self._plots, self._band = plots, band
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
            _cache_axis(item.getAxis(name))
        item.setLabel("left", _t(spec.axis), units=spec.unit)
        item.setLabel("bottom", _t("time"), units="s")
        item.getAxis("left").setWidth(52)
        vb = item.getViewBox()
        vb.disableAutoRange()
        vb.setDefaultPadding(0.0)
        item.setXRange(-60, 0, padding=0)
        item.setYRange(0, spec.y_max or 1.0, padding=0)

    def _setup_band(self, item: pg.PlotItem) -> None:
        item.setTitle(
            _t("Throttle reasons per GPU (coloured when clocks are held down)"), size="9pt"
        )
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        item.getAxis("bottom").enableAutoSIPrefix(False)
        item.getAxis("bottom").setStyle(maxTickLevel=0)
        _cache_axis(item.getAxis("bottom"))
        _cache_axis(item.getAxis("left"))
        item.setLabel("bottom", _t("time"), units="s")
        item.setLabel("left", _t("GPU"))
        item.getAxis("left").setWidth(52)
        item.getViewBox().disableAutoRange()
        item.setMaximumHeight(150)
        item.setMinimumHeight(70)

    def apply_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.view.setBackground(theme.plot_bg)
        if self._plots is None:
            return  # _build styles the plots
        self._style_plots(theme)
        self._drawn_key = ()
        self.refresh(force=True)

    def _style_plots(self, theme: Theme) -> None:
        fg = QColor(theme.plot_fg)
        for item in [*(p.item for p in self.plots.values()), self.band]:
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                axis.setPen(fg)
                axis.setTextPen(fg)
            item.titleLabel.setText(item.titleLabel.text, color=theme.plot_fg, size="9pt")
        self._titles_secondary = None
        grid = _blend(theme.plot_fg, theme.plot_bg, theme.grid_alpha)
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
            name = self.state.device_name(i)
            box.setToolTip(
                self.tr("GPU %1 %2 — tick to plot").replace("%1", str(i)).replace("%2", name)
            )
            box.setChecked(self.state.selected_gpus is None or i in self.state.selected_gpus)
            box.toggled.connect(self._on_gpu_toggled)
            self.gpu_box.addWidget(box)
            self.gpu_checks[i] = box

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

    def _sync_titles(self, secondary: bool) -> None:
        if secondary == self._titles_secondary:
            return
        self._titles_secondary = secondary
        for plot in self.plots.values():
            plot.item.setTitle(
                _t(plot.spec.title_for(secondary)), size="9pt", color=self._theme.plot_fg
            )

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
        self._sync_titles(secondary)
        blocks = self._fetch(visible, t0, t1, max_points, secondary)
        for plot in self.plots.values():
            self._draw_plot(plot, visible, blocks, secondary, t0, t1)
        self._draw_band(visible, t0, t1)
        self._set_range(self.band, "x", t0 - t1, 0.0)
        for plot in self.plots.values():
            self._set_range(plot.item, "x", t0 - t1, 0.0)
        for grid in self._grids():
            grid.sync()

    def _grids(self) -> list[_Grid]:
        grids = [p.grid for p in self.plots.values()]  # builds the band's grid too
        assert self.band_grid is not None
        return [*grids, self.band_grid]

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

    def _fetch(
        self, visible: list[int], t0: float, t1: float, max_points: int, secondary: bool
    ) -> dict[int, _Fetched]:
        """Every plotted series of the frame, per GPU (host: ``-1``).

        One :meth:`History.gpu_view` call per GPU decimates all its fields together (the
        buckets are shared), instead of one call per curve; a GPU whose view was fetched for the
        same history version, window and width is not fetched again (a theme change, a GPU
        unticked, the secondary series switched).
        """
        history = self.state.history
        version = getattr(history, "version", None)
        out: dict[int, _Fetched] = {}
        gpu_fields = _GPU_FIELDS if secondary else _GPU_PRIMARY_FIELDS
        jobs: list[tuple[int, tuple[str, ...]]] = [(gpu, gpu_fields) for gpu in visible]
        jobs.append((-1, _HOST_FIELDS))
        cache: dict[tuple[int, tuple[str, ...]], tuple[tuple[object, ...], _Fetched]] = {}
        for gpu, fields in jobs:
            key = (id(history), version, t0, t1, max_points)
            hit = self._fetched.get((gpu, fields))
            if version is not None and hit is not None and hit[0] == key:
                got = hit[1]
            else:
                got = self._fetch_one(gpu, fields, t0, t1, max_points)
            cache[(gpu, fields)] = (key, got)
            out[gpu] = got
        self._fetched = cache
        return out

    def _fetch_one(
        self, gpu: int, fields: tuple[str, ...], t0: float, t1: float, max_points: int
    ) -> _Fetched:
        history = self.state.history
        try:
            if gpu < 0:
                view = history.host_view(fields, t0, t1, max_points)
            else:
                view = history.gpu_view(gpu, fields, t0, t1, max_points)
        except (KeyError, ValueError, IndexError):
            view = Block(np.empty(0), np.empty((len(fields), 0)))
        t = np.asarray(view.t_s, dtype=np.float64)
        return _Fetched(
            t,
            t - t1,
            dict(zip(fields, view.values, strict=True)),
            view.n_final,
            view.bucket_samples,
        )

    def _draw_plot(
        self,
        plot: _Plot,
        visible: list[int],
        blocks: dict[int, _Fetched],
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
        drawn: list[_Series] = []
        bucket = 0
        for gpu, field, n in series:
            ckey = (gpu, field)
            wanted.add(ckey)
            got = blocks.get(gpu)
            if got is None or field not in got.rows:
                t, x, y, n_final = empty, empty, empty, 0
            else:
                t, x, y, n_final = got.t_s, got.x, got.rows[field], got.n_final
                bucket = max(bucket, got.bucket_samples)
            if spec.scale != 1.0:
                y = y * spec.scale
            curve = plot.curves.get(ckey)
            if curve is None:
                curve = _Series(self._curve_pen(gpu, n), n)
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
        top = max(top, self._draw_lines(plot, visible))
        top = spec.y_max * 1.02 if spec.y_max is not None else _nice_top(top)
        self._set_range(plot.item, "y", 0.0, top)
        plot.layer.set_frame(drawn, t1, bucket, QRectF(t0 - t1, 0.0, t1 - t0, top))

    def _curve_pen(self, gpu: int, n: int) -> QPen:
        """GPU colour; a secondary series (n > 0) in a pale tint of it, also solid.

        Dashes cost ~40 % more to stroke than solid lines and do not show on min/max-decimated
        data anyway (every pixel column is a vertical run); an opaque tint is as cheap as the
        main line and stays legible on both themes.
        """
        colour = gpu_colour(gpu) if gpu >= 0 else self._theme.muted
        if n > 0:
            return pg.mkPen(_blend(colour, self._theme.plot_bg, 0.45), width=1)
        return pg.mkPen(colour, width=1)

    def _draw_lines(self, plot: _Plot, visible: list[int]) -> float:
        """Power limit / slowdown threshold lines, one per distinct value; returns the highest."""
        key = plot.spec.key
        values: list[float] = []
        snap = self.state.latest
        if key == "power" and snap is not None:
            for g in snap.gpus:
                limit = g.power_enforced_limit_w or g.power_limit_w
                if g.index in visible and limit:
                    values.append(float(limit))
        elif key == "temp":
            for i in visible:
                info = self.state.devices.get(i)
                if info is not None and info.temp_slowdown_c:
                    values.append(float(info.temp_slowdown_c))
        distinct = tuple(sorted(set(values)))
        if distinct != plot.line_values:
            for line in plot.lines:
                plot.item.removeItem(line)
            plot.lines = []
            label = _t("limit %1") if key == "power" else _t("slowdown %1")
            for v in distinct:
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

    def _draw_band(self, visible: list[int], t0: float, t1: float) -> None:
        """Throttle episodes as bars, one row per GPU.

        Scanning every sample for episodes is the dearest part of a frame over a long window, so
        the bars are rebuilt once the right edge moved by a pixel column (or the view changed);
        in between they are only shifted, at the cost of moving one item.
        """
        period = max(1.0, (t1 - t0) / self._plot_width_px())
        key = (tuple(visible), round(t1 - t0, 6), self.state.paused)
        if key == self._band_key and 0.0 <= t1 - self._band_t_ref < period:
            if self.band_bars is not None:
                self.band_bars.setPos(self._band_t_ref - t1, 0)
            return
        self._band_key = key
        self._band_t_ref = t1
        x0: list[float] = []
        x1: list[float] = []
        y0: list[float] = []
        brushes: list[QColor] = []
        seen: dict[str, str] = {}
        history = self.state.history
        for row, gpu in enumerate(visible):
            try:
                intervals = history.throttle_intervals(gpu, t0, t1)
            except (KeyError, ValueError, IndexError, AttributeError):
                intervals = []
            for start, end, reasons in intervals:
                reason = _most_severe(reasons) if reasons else "unknown"
                colour = throttle_colour(reason)
                for r in reasons or (reason,):
                    seen.setdefault(r, throttle_colour(r))
                x0.append(start - t1)
                x1.append(max(end, start + 1e-3) - t1)
                y0.append(row - 0.4)
                brushes.append(QColor(colour))
        if self.band_bars is not None:
            self.band.removeItem(self.band_bars)
            self.band_bars = None
        if x0:
            self.band_bars = pg.BarGraphItem(
                x0=np.array(x0),
                x1=np.array(x1),
                y0=np.array(y0),
                height=0.8,
                brushes=brushes,
                pen=None,
            )
            self.band.addItem(self.band_bars)
        self.band.getAxis("left").setTicks([[(row, str(g)) for row, g in enumerate(visible)]])
        self.band.setYRange(-0.6, max(len(visible), 1) - 0.4, padding=0)
        if seen:
            parts = [f'<span style="color:{c}">■</span> {html.escape(r)}' for r, c in seen.items()]
            self.band_legend.setText(self.tr("Throttle reasons: ") + " &nbsp; ".join(parts))
        else:
            self.band_legend.setText(self.tr("No throttling in this window."))
        self.throttle_bar_count = len(x0)

    # -- crosshair --------------------------------------------------------------------------------
    def _on_mouse_moved(self, event: tuple[QPointF]) -> None:
        pos = event[0]
        hovered: _Plot | None = None
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
        for (gpu, field), (xs, ys) in sorted(plot.data.items()):
            if xs.size == 0:
                continue
            i = int(np.clip(np.searchsorted(xs, x), 0, xs.size - 1))
            if i > 0 and abs(xs[i - 1] - x) < abs(xs[i] - x):
                i -= 1
            value = ys[i]
            if math.isnan(value):
                continue
            name = _t("host") if gpu < 0 else f"GPU {gpu}"
            colour = self._theme.muted if gpu < 0 else gpu_colour(gpu)
            suffix = "" if field == spec.fields[0] or gpu < 0 else " " + _field_short(field)
            parts.append(
                f'<span style="color:{colour}"><b>{name}</b>{suffix}</span> '
                f"{fmt_num(value, spec.unit, digits=spec.digits)}"
            )
        text = (
            f"<b>{html.escape(_t(spec.title).split(' —')[0].split(' (')[0])}</b> @ "
            f"{x:.1f} s: " + " · ".join(parts)
        )
        self.readout.setText(text)
        return text


def _field_short(field: str) -> str:
    return {
        "util_mem_pct": _t("mem"),
        "clock_mem_mhz": _t("mem"),
        "pcie_tx_bytes_s": _t("tx"),
        "nvlink_tx_bytes_s": _t("tx"),
    }.get(field, "")


_SEVERITY = ("hw_thermal", "hw_slowdown", "hw_power_brake", "sw_thermal", "sw_power_cap")


def _most_severe(reasons: tuple[str, ...]) -> str:
    """The reason that colours a band segment: hardware and thermal before power capping."""
    for key in _SEVERITY:
        for r in reasons:
            if key in r:
                return r
    return reasons[0]


def _nice_top(value: float) -> float:
    """A round axis top a little above ``value`` (1, 2, 2.5, 5 × 10^n)."""
    if not value or not math.isfinite(value) or value <= 0:
        return 1.0
    value *= 1.05
    exp = 10 ** math.floor(math.log10(value))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * exp >= value:
            return m * exp
    return 10 * exp
