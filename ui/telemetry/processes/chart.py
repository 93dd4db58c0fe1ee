"""A selected process's own history in the Processes tab: GPU memory, SM % and host CPU %.

:class:`ProcessHistory` keeps, for each (pid, GPU) seen, the last ``max_points`` samples, for
at most ``max_processes`` processes (the least recently seen are forgotten): with the defaults
about 3 MB at most. It is fed every snapshot (the tab subscribes), so a process has a history
even while the tab is hidden; a new source, or a replay that jumps back, starts it afresh.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from gpuprof.telemetry.model import ProcessSample, Snapshot, SourceKind
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...shell.i18n import translate as _t
from ...shell.theme import Theme, style_plot

__all__ = ["ProcessChart", "ProcessHistory", "ProcessKey", "Trace"]

#: (pid, GPU index)
ProcessKey = tuple[int, int]
_GIB = float(2**30)
_MEM, _SM, _CPU = "#1c7ed6", "#2f9e44", "#e8590c"


def _num(value: float | int | None) -> float:
    return float("nan") if value is None else float(value)


@dataclass(frozen=True)
class Trace:
    """One process's history as arrays (Unix seconds; NaN where a value was absent)."""

    t_s: np.ndarray
    gpu_mem_bytes: np.ndarray
    sm_pct: np.ndarray
    cpu_pct: np.ndarray


class ProcessHistory:
    """Bounded per-process history, fed with every snapshot (see the module docstring)."""

    def __init__(self, max_points: int = 3600, max_processes: int = 64) -> None:
        self.max_points = max_points
        self.max_processes = max_processes
        self._rows: OrderedDict[ProcessKey, deque[tuple[float, float, float, float]]] = (
            OrderedDict()
        )
        self._start: dict[ProcessKey, float | None] = {}
        self._source: SourceKind | None = None
        self._last_s: float | None = None

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> None:
        self._rows.clear()
        self._start.clear()
        self._last_s = None

    def add(self, snap: Snapshot) -> None:
        """Take ``snap``'s processes; the same snapshot twice is taken once."""
        if snap.source is self._source and snap.time_s == self._last_s:
            return
        if snap.source is not self._source or (
            self._last_s is not None and snap.time_s < self._last_s
        ):
            self.clear()
            self._source = snap.source
        self._last_s = snap.time_s
        for p in snap.processes:
            self._add(snap.time_s, p)

    def _add(self, t: float, p: ProcessSample) -> None:
        key = (p.pid, p.gpu_index)
        rows = self._rows.get(key)
        if rows is not None and self._start.get(key) != p.start_time_s:
            rows = None  # the pid now belongs to another process
        if rows is None:
            rows = self._rows[key] = deque(maxlen=self.max_points)
            self._start[key] = p.start_time_s
            while len(self._rows) > self.max_processes:
                old, _ = self._rows.popitem(last=False)
                self._start.pop(old, None)
        else:
            self._rows.move_to_end(key)
        rows.append((t, _num(p.gpu_mem_bytes), _num(p.sm_util_pct), _num(p.host_cpu_pct)))

    def trace(self, key: ProcessKey) -> Trace | None:
        rows = self._rows.get(key)
        if not rows:
            return None
        a = np.array(rows, dtype=float)
        return Trace(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def _plot(title: str, y_label: str) -> pg.PlotWidget:
    view = pg.PlotWidget()
    plot = view.getPlotItem()
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setTitle(title, size="9pt")
    plot.setLabel("left", y_label)
    plot.setLabel("bottom", _t("seconds before the latest sample"))
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)
    plot.getAxis("left").setWidth(48)
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.setMouseEnabled(x=False, y=False)
    view.setMinimumHeight(160)
    return view


class ProcessChart(QWidget):
    """Two small plots of one process: GPU memory (GiB), and SM % with host CPU %."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(_t("Select a process to see its history"), self)
        self.title.setObjectName("muted")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.memory = _plot(_t("GPU memory"), _t("GiB"))
        # The title names the two curves in their colours (a legend would cover them).
        sm_label, cpu_label = _t("SM %"), _t("host CPU %")
        title = (
            f'<span style="color:{_SM}">{sm_label}</span> &nbsp;·&nbsp; '
            f'<span style="color:{_CPU}">{cpu_label}</span>'
        )
        self.activity = _plot(title, "%")
        self.activity.setToolTip(_t("SM % and host CPU %"))
        mem_plot = self.memory.getPlotItem()
        act_plot = self.activity.getPlotItem()
        self.mem_curve = mem_plot.plot(pen=pg.mkPen(_MEM, width=2), connect="finite")
        self.sm_curve = act_plot.plot(pen=pg.mkPen(_SM, width=2), connect="finite")
        self.cpu_curve = act_plot.plot(pen=pg.mkPen(_CPU, width=2), connect="finite")
        self.key: ProcessKey | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        self._box = layout
        layout.addWidget(self.title, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.memory, 1)
        layout.addWidget(self.activity, 1)
        self.points = 0  # points drawn per curve, for tests
        self.memory.hide()  # until a process is selected
        self.activity.hide()

    def hint_height_px(self) -> int:
        """The height of the chart without a process: its one-line hint."""
        margins = self._box.contentsMargins()
        return self.title.sizeHint().height() + margins.top() + margins.bottom()

    def show_process(self, key: ProcessKey | None, label: str, trace: Trace | None) -> None:
        """Draw ``trace`` (``None``: nothing selected, or no history yet)."""
        self.key = key
        if key is None:
            self.title.setText(_t("Select a process to see its history"))
        else:
            self.title.setText(label)
        self.memory.setVisible(key is not None)
        self.activity.setVisible(key is not None)
        if trace is None or len(trace.t_s) == 0:
            for curve in (self.mem_curve, self.sm_curve, self.cpu_curve):
                curve.setData([], [])
            self.points = 0
            return
        x = trace.t_s - trace.t_s[-1]
        self.mem_curve.setData(x, trace.gpu_mem_bytes / _GIB, connect="finite")
        self.sm_curve.setData(x, trace.sm_pct, connect="finite")
        self.cpu_curve.setData(x, trace.cpu_pct, connect="finite")
        self.points = len(x)

    def apply_theme(self, theme: Theme) -> None:
        for view in (self.memory, self.activity):
            view.setBackground(theme.plot_bg)
            style_plot(view.getPlotItem(), theme)
