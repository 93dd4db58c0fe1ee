"""The graphics items the Telemetry tab draws with, instead of pyqtgraph's ``PlotDataItem``.

- :class:`CurveLayer`: every curve of one plot, painted by one ``GraphicsObject``. Points of
  complete min/max buckets never change, so they are stroked once into a cached image (device
  pixels) that scrolls left with time; each frame strokes only the newly completed buckets into
  it and the newest partial bucket directly. :func:`stroke` draws a polyline broken at NaN
  (like ``connect='finite'``). Vector devices (SVG, PDF) get the lines themselves.
- :class:`Series`: one curve's pen and points (not a scene item: the layer paints it).
- :class:`Grid`: grid lines at the major ticks, so the axes can stay cached as pixmaps
  (:func:`cache_axis`).
- :class:`PlotPanel`: a ``PlotItem`` with its layer, grid, threshold lines and crosshair.
- :class:`TimedLayoutWidget`: the layout widget that times its own paint.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPaintEngine, QPainter, QPen, QTransform

from .specs import PlotSpec

__all__ = [
    "CurveLayer",
    "Grid",
    "PlotPanel",
    "Series",
    "TimedLayoutWidget",
    "blend",
    "cache_axis",
    "major_ticks",
    "stroke",
]


class Series:
    """One curve of a plot: its pen and the frame's points (the plot's :class:`CurveLayer`
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


def stroke(painter: QPainter, x: np.ndarray, y: np.ndarray) -> None:
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


class CurveLayer(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph has no type hints
    """Every curve of one plot, stroked once into an image that then scrolls with time.

    Stroking ~60 curves of ~1,100 points was most of a frame (perf/gui.py). But History's
    min/max buckets are aligned to fixed sample numbers, so the points of complete buckets
    (``Block.n_final``) never change: they are stroked once into an image, in the device pixels
    of the view, at a reference right edge ``t_ref``. A later frame draws the image shifted left
    by ``(t1 - t_ref)`` in pixels, strokes the points of newly completed buckets into it, and
    strokes only the newest partial bucket (a few points per curve) directly. The image is
    redrawn from scratch when the view's scale or size, the pens, the set of curves or the bucket
    size change, when the history does not continue what was drawn (a reset, a seek) or grew
    backwards (earlier samples merged in: the demo's history, made after the first frames), or when
    the new columns have used up the spare width on the image's right. While the scale changes
    at every frame (the "All" window), the curves are stroked directly, as on vector devices.
    """

    #: Spare pixels right of the view, filled as time goes by before a full redraw.
    SPARE_PX = 256
    _PAD_PX = 2  # room for a 1 px line on the view's edges

    def __init__(self) -> None:
        super().__init__()
        self.series: list[Series] = []
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
        self._first_s: list[float] = []  # each curve's first time when the image was drawn
        self._bake_tr = QTransform()
        self._view_changed = False  # the last paint found a new scale
        self.rebuild_count = 0  # full redraws of the image (tests, perf)

    def set_frame(self, series: list[Series], t1: float, bucket: int, view: QRectF) -> None:
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
                stroke(painter, s.t_s[start:] - t1, s.y[start:])

    def _paint_direct(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for s in self.series:
            painter.setPen(s._pen)
            stroke(painter, s.t_s - self._t1, s.y)

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
        self._first_s = [float(s.t_s[0]) if len(s.t_s) else math.inf for s in self.series]
        self._append()

    def _append(self) -> bool:
        """Stroke points that became final since the last call; ``False``: needs a rebuild."""
        image = self._image
        if image is None or len(self._baked) != len(self.series):
            return False
        limit_s = (self.SPARE_PX - self._PAD_PX) / self._sx if self._sx > 0 else 0.0
        jobs: list[tuple[int, int, int]] = []
        for k, s in enumerate(self.series):
            if len(s.t_s) and s.t_s[0] < self._first_s[k]:
                # Points left of what the image holds: the window only scrolls right, so
                # History gained earlier samples (a prefill). The last point still matches.
                return False
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
                stroke(p, s.t_s[start:n] - self._t_ref, s.y[start:n])
        finally:
            p.end()
        for k, _start, n in jobs:
            s = self.series[k]
            self._baked[k] = (float(s.t_s[n - 1]), float(s.y[n - 1]))
        return True


def _same(a: float, b: float) -> bool:
    return bool(a == b or (math.isnan(a) and math.isnan(b)))


class Grid(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph has no type hints
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
            for v in major_ticks(self._item.getAxis("bottom"), x0, x1, w):
                lines.append(QLineF(v, y0, v, y1))
        if self._axes[1] and h > 0:
            for v in major_ticks(self._item.getAxis("left"), y0, y1, h):
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


def cache_axis(axis: pg.AxisItem) -> None:
    """Keep the axis as a pixmap: its ticks reach into the view box, so every frame's repaint
    of the curves exposes it, and replaying its QPicture cost ~0.1 ms per axis (perf/gui.py).

    (A vector rendering of the scene would get the axes as images too; the app only makes PNGs.)
    """
    axis.setCacheMode(pg.QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)


def major_ticks(axis: pg.AxisItem, lo: float, hi: float, size_px: float) -> list[float]:
    """The values the axis labels (its first tick level), within ``[lo, hi]``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    levels = axis.tickValues(lo, hi, size_px)
    if not levels:
        return []
    return [float(v) for v in levels[0][1] if lo <= v <= hi]


def blend(fg: str, bg: str, alpha: float) -> QColor:
    """``fg`` laid over ``bg`` at ``alpha``, as one opaque colour (cheap to stroke)."""
    a, b = QColor(fg), QColor(bg)
    return QColor(
        round(b.red() + (a.red() - b.red()) * alpha),
        round(b.green() + (a.green() - b.green()) * alpha),
        round(b.blue() + (a.blue() - b.blue()) * alpha),
    )


class TimedLayoutWidget(pg.GraphicsLayoutWidget):  # type: ignore[misc]  # untyped base
    """Remembers how long its last paint took: the window budgets frames with it."""

    paint_s = 0.0

    def paintEvent(self, event: object) -> None:
        started = time.perf_counter()
        super().paintEvent(event)
        self.paint_s = time.perf_counter() - started


class PlotPanel:
    """A PlotItem with its curves per (gpu, field), threshold lines and crosshair."""

    def __init__(self, spec: PlotSpec, item: pg.PlotItem):
        self.spec = spec
        self.item = item
        self.curves: dict[tuple[int, str], Series] = {}
        self.lines: list[pg.InfiniteLine] = []
        self.line_values: tuple[float, ...] = ()
        self.data: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self.crosshair = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen((128, 128, 128), width=1)
        )
        self.crosshair.setZValue(50)
        self.crosshair.hide()
        item.addItem(self.crosshair, ignoreBounds=True)
        self.grid = Grid(item)
        item.addItem(self.grid, ignoreBounds=True)
        self.layer = CurveLayer()
        item.addItem(self.layer, ignoreBounds=True)
