"""Step ticks on the Telemetry time axis: a short mark at the bottom of every plot where a step
of the job ended (issue 13).

The times come from the job's markers (:mod:`gpuprof.profile.markers`) stored in a recording:
the one being replayed, or, while the app profiles a job, the profiler's recording, read again
every few seconds (read-only, in a thread). :class:`StepTicks` keeps them as one sorted array;
each frame it only cuts out the window's slice (two binary searches), and each plot's
:class:`TickItem` blits that slice as a strip image a few pixels high, one column per tick
(made once a frame with numpy and shared by the plots of a column), so a job of a million steps
costs a frame no more than a few thousand. Nothing is drawn, and nothing costs anything, while
there are no markers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from gpuprof.profile.markers import Marker
from gpuprof.profile.model import StepMarker
from gpuprof.telemetry.model import SourceKind
from PySide6.QtCore import QObject, QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter

from ...shell.workers import run_in_thread

if TYPE_CHECKING:
    from ...shell.context import StepTickMarks, WindowContext

__all__ = ["LIVE_PERIOD_MS", "RecordingTicks", "StepTicks", "TickItem", "read_step_times"]

log = logging.getLogger(__name__)

#: How often the markers of a job being profiled are read again from its recording.
LIVE_PERIOD_MS = 2000
#: Height of a tick, in device-independent pixels from the bottom of the plot.
TICK_PX = 7
#: Orange: reads on the light and the dark theme.
TICK_COLOUR = QColor(232, 89, 12)


def step_times(markers: Iterable[Marker]) -> np.ndarray:
    """The end times (Unix s) of the step markers among ``markers``, sorted."""
    times = np.fromiter((m.time_s for m in markers if isinstance(m, StepMarker)), dtype=np.float64)
    times.sort()
    return times


def read_step_times(path: str | Path) -> np.ndarray:
    """The step end times stored in the recording ``path`` (empty when it has no markers).

    Opened read-only: the profiler may still be writing it. An unusable file is the
    :class:`~gpuprof.errors.InputError` every reader of recordings raises.
    """
    from gpuprof.profile.storage import read_markers
    from gpuprof.telemetry.store import SessionStore

    with SessionStore.open(Path(path), warn=False) as store:
        return step_times(read_markers(store))


class TickItem(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph has no type hints
    """One plot's ticks: the visible slice of :class:`StepTicks` as a strip image along the
    bottom of the view (stroking hundreds of short lines in nine plots cost ~10 ms a frame;
    blitting a strip made with numpy costs next to nothing)."""

    def __init__(self, ticks: StepTicks) -> None:
        super().__init__()
        self._ticks = ticks
        self._rect = QRectF()
        self.setZValue(40)  # above the curves, below the crosshair

    def set_rect(self, rect: QRectF) -> None:
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, painter: QPainter, *args: object) -> None:
        if not self._ticks.visible_x.size or self._rect.isEmpty():
            return
        tr = painter.transform()
        # The plots are never rotated: x and y map independently.
        left = self._rect.left() * tr.m11() + tr.dx()
        bottom = self._rect.top() * tr.m22() + tr.dy()  # view y grows up: top() is y's minimum
        strip = self._ticks.strip(round(self._rect.width() * tr.m11()), tr.m11(), self._rect.left())
        if strip is None:
            return
        painter.save()
        painter.resetTransform()
        painter.drawImage(QPointF(round(left), round(bottom) - TICK_PX), strip)
        painter.restore()


class StepTicks:
    """The step end times of a job and the tick items that show them in the plots."""

    def __init__(self) -> None:
        self._times = np.empty(0)
        self._items: list[tuple[pg.PlotItem, TickItem]] = []
        #: Ticks in the last frame's window, as seconds before its right edge.
        self.visible_x = np.empty(0)
        #: Ticks the last strip shows (after merging those in one pixel column).
        self.painted = 0
        self._key: tuple[object, ...] = ()
        # This frame's strips by (width px, px per second): the plots of a column share one.
        self._strips: dict[tuple[int, float, float], tuple[np.ndarray, QImage]] = {}

    @property
    def count(self) -> int:
        """Step end times known (all of them, not only the visible ones)."""
        return int(self._times.size)

    @property
    def visible_count(self) -> int:
        return int(self.visible_x.size)

    def set_times(self, times: Sequence[float] | np.ndarray) -> None:
        """Show these step end times (Unix s); an empty sequence removes the ticks."""
        arr = np.asarray(times, dtype=np.float64)
        arr = np.sort(arr[np.isfinite(arr)])
        if arr.size == self._times.size and np.array_equal(arr, self._times):
            return
        self._times = arr
        self._key = ()

    def clear(self) -> None:
        self.set_times(())

    def strip(self, width_px: int, px_per_s: float, left_s: float) -> QImage | None:
        """The visible ticks as an image ``width_px`` wide and :data:`TICK_PX` high, one column
        per tick: column 0 is at ``left_s`` (seconds before the right edge), ``px_per_s`` device
        pixels a second."""
        if width_px <= 0 or width_px > 1 << 15 or not px_per_s > 0:
            return None
        key = (width_px, round(px_per_s, 9), left_s)
        if key not in self._strips:
            cols = np.round((self.visible_x - left_s) * px_per_s).astype(np.int64)
            cols = np.unique(cols[(cols >= 0) & (cols < width_px)])
            pixels = np.zeros((TICK_PX, width_px), dtype=np.uint32)
            pixels[:, cols] = TICK_COLOUR.rgba()  # opaque: no premultiplying needed
            image = QImage(
                pixels.data, width_px, TICK_PX, 4 * width_px, QImage.Format.Format_ARGB32
            )
            self._strips[key] = (pixels, image)  # the array keeps the image's pixels alive
            self.painted = int(cols.size)
        return self._strips[key][1]

    def attach(self, plots: Iterable[pg.PlotItem]) -> None:
        """Add a tick item to each of ``plots`` (the Telemetry tab's, once built)."""
        for plot in plots:
            item = TickItem(self)
            plot.addItem(item, ignoreBounds=True)
            self._items.append((plot, item))

    def draw(self, t0: float, t1: float) -> None:
        """This frame's window: ``[t0, t1]`` Unix s, plotted as x = t - t1."""
        times = self._times
        if times.size:
            i0 = int(np.searchsorted(times, t0, side="left"))
            i1 = int(np.searchsorted(times, t1, side="right"))
            visible = times[i0:i1] - t1
        else:
            visible = self.visible_x[:0]
        key = (t0, t1, visible.size)
        if not visible.size and not self.visible_x.size:
            self._key = key
            return  # nothing shown before or now: no repaint at all
        if key == self._key:
            return
        self._key = key
        self.visible_x = visible
        self._strips.clear()
        if not visible.size:
            self.painted = 0
        for plot, item in self._items:
            (_x0, _x1), (y0, y1) = plot.getViewBox().viewRange()
            item.set_rect(QRectF(t0 - t1, y0, t1 - t0, y1 - y0))


class RecordingTicks(QObject):
    """Feeds a window's step ticks: from the recording it replays, or from the recording of the
    job it is profiling (:meth:`follow`), read again every :data:`LIVE_PERIOD_MS`.

    The source is checked at each snapshot (an identity test), so opening a recording in any
    way (File → Open, ``--replay``, a job profile) shows its ticks.
    """

    #: The followed job's step count, each time its recording was read (the last after its end).
    job_steps = Signal(int)

    def __init__(self, window: WindowContext) -> None:
        super().__init__(window.widget())
        self._window = window
        self._ticks: StepTickMarks = window.step_ticks
        self._source: object = None
        self._live: Path | None = None
        self._reading = False
        self._timer = QTimer(self)
        self._timer.setInterval(LIVE_PERIOD_MS)
        self._timer.timeout.connect(self._read_live)
        window.snapshot_received.connect(self._on_snapshot)

    @property
    def following(self) -> Path | None:
        """The recording of the job being profiled, while ticks follow it."""
        return self._live

    def _on_snapshot(self, _snap: object) -> None:
        source = self._window.source
        if source is self._source:
            return
        self._source = source
        if self._live is not None:
            return  # the job's ticks stay while it runs, whatever the window shows
        path = getattr(source, "path", None)
        if getattr(source, "kind", None) is SourceKind.REPLAY and path is not None:
            self._read(Path(path), lambda: self._source is source and self._live is None)
        else:
            self._ticks.clear()

    def follow(self, path: Path) -> None:
        """Show the ticks of the job being recorded to ``path`` until :meth:`stop_following`."""
        self._live = Path(path)
        self._ticks.clear()
        self._timer.start()

    def stop_following(self) -> None:
        """The job ended: read its markers once more, then leave the ticks as they are."""
        path, self._live = self._live, None
        self._timer.stop()
        if path is not None:
            self._read(path, lambda: self._live is None, job=True)

    def _read_live(self) -> None:
        live = self._live
        if live is not None and not self._reading and live.exists():
            self._read(live, lambda: self._live == live, job=True)

    def _read(self, path: Path, current: Callable[[], bool], *, job: bool = False) -> None:
        """Read ``path``'s step times in a thread; shown if ``current()`` still holds then."""
        self._reading = True

        def done(result: object) -> None:
            self._reading = False
            if isinstance(result, np.ndarray) and current() and not self._window.closing:
                self._ticks.set_times(result)
                self._window.refresh_visible(force=True)
                if job:
                    self.job_steps.emit(self._ticks.count)

        def failed(exc: BaseException) -> None:
            # A recording still being created, or without snapshots yet: try again later.
            self._reading = False
            log.debug("no step ticks from %s: %s", path, exc)

        run_in_thread(lambda: read_step_times(path), done, failed, self, name="gpuprof-step-times")
