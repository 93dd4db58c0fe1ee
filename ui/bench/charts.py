"""The Benchmarks tab's four live charts (pyqtgraph): GEMM TFLOPS by size per dtype with the
spec-peak lines, copy bandwidth vs size, the P2P bandwidth heatmap and all-reduce bus bandwidth
vs size.

Each chart is redrawn whole from the results so far (a run has at most a few hundred), on the
tab's coalescing timer, never per result. Sizes go on log2 axes labelled in bytes or elements.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import pyqtgraph as pg
from gpuprof.bench.base import CollectiveResult, GemmResult, MemoryResult, P2PResult, Result
from gpuprof.units import fmt_bytes
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGridLayout, QWidget

from ..shell.i18n import translate as _t
from ..shell.theme import GPU_COLOURS, Theme, style_plot

__all__ = ["BenchCharts", "Log2Axis", "DTYPE_COLOURS"]

#: One colour per GEMM dtype, the same in every run.
DTYPE_COLOURS: dict[str, str] = {
    "fp32": "#1f77b4",
    "tf32": "#17becf",
    "fp16": "#ff7f0e",
    "bf16": "#2ca02c",
    "fp8": "#d62728",
}
_DIRECTIONS = ("h2d", "d2h", "d2d", "host")
_OPS_COLOURS = {"all_reduce": "#9467bd", "all_gather": "#8c564b"}


#: A benchmark family's result type.
R = TypeVar("R", bound=Result)


def _fmt_size(value: float) -> str:
    return f"{value:.0f}"


def _fmt_bytes_tick(value: float) -> str:
    return fmt_bytes(value, digits=0)


class Log2Axis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """An axis whose values are log2(x); ticks fall on powers of two and read as ``fmt(2**v)``."""

    def __init__(self, orientation: str, fmt: Callable[[float], str] = _fmt_size) -> None:
        super().__init__(orientation)
        self._fmt = fmt

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        if not (math.isfinite(minVal) and math.isfinite(maxVal)):
            return list(super().tickValues(minVal, maxVal, size))
        lo, hi = math.ceil(minVal - 1e-6), math.floor(maxVal + 1e-6)
        if hi < lo:
            return list(super().tickValues(minVal, maxVal, size))
        most = max(2, int(size / 55))
        step = 1
        while (hi - lo) / step + 1 > most:
            step *= 2
        start = math.ceil(lo / step) * step
        return [(float(step), [float(v) for v in range(start, hi + 1, step)])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [self._fmt(2.0**v) for v in values]


def _short_link(label: str | None) -> str | None:
    """``"NVLink (NV18)"`` → ``"NV18"``, ``"PCIe (PIX)"`` → ``"PIX"``: fits a heatmap cell."""
    if not label:
        return None
    if "(" in label and label.endswith(")"):
        return label[label.index("(") + 1 : -1]
    return label


def _x_range(plot: pg.PlotItem, xs: Sequence[float]) -> None:
    """Fit x to the points with a margin, so the first and last points are not on the frame."""
    lo, hi = min(xs), max(xs)
    margin = max(0.5, 0.08 * (hi - lo))  # room for the end tick labels ("256 MiB")
    plot.setXRange(lo - margin, hi + margin, padding=0)


def _dotted_line(
    sizes: Sequence[float],
    ys: np.ndarray,
    colour: str,
    name: str,
    style: Qt.PenStyle = Qt.PenStyle.SolidLine,
) -> pg.PlotDataItem:
    """A named line over log2 of ``sizes`` (bytes, or a GEMM's side), with a dot at each."""
    return pg.PlotDataItem(
        np.log2(sizes),
        ys,
        pen=pg.mkPen(colour, width=2, style=style),
        symbol="o",
        symbolSize=6,
        symbolBrush=colour,
        symbolPen=None,
        name=name,
    )


def _new_plot(
    title: str, x_label: str, y_label: str, x_fmt: Callable[[float], str] | None, tooltip: str
) -> pg.PlotWidget:
    axes = {"bottom": Log2Axis("bottom", x_fmt)} if x_fmt is not None else {}
    view = pg.PlotWidget(axisItems=axes)
    view.setToolTip(tooltip)
    plot = view.getPlotItem()
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setTitle(title, size="9pt")
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", y_label)
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)
    plot.getAxis("left").setWidth(56)
    plot.showGrid(x=True, y=True, alpha=0.25)
    return view


class BenchCharts(QWidget):
    """Four plots in a 2×2 grid; :meth:`set_results` redraws them from a run's results."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gemm = _new_plot(
            _t("GEMM throughput by size (dashed: spec peak)"),
            _t("matrix size ∛(m·n·k)"),
            _t("TFLOPS (median)"),
            _fmt_size,
            _t(
                "Median TFLOPS of each matrix product, by dtype. Squares are joined; stars are "
                "LLM-shaped products at the cube root of m·n·k. Dashed lines: the spec sheet's "
                "dense peak for that dtype on this GPU (none for a CPU or an unknown GPU)."
            ),
        )
        self.memory = _new_plot(
            _t("Copy bandwidth vs size"),
            _t("bytes copied"),
            _t("GB/s"),
            _fmt_bytes_tick,
            _t(
                "Median bandwidth of each copy (bytes copied ÷ time), by direction; solid pinned, "
                "dashed pageable host memory. A device or host copy moves twice the bytes shown."
            ),
        )
        self.p2p = _new_plot(
            _t("P2P unidirectional bandwidth, peer access on"),
            _t("destination GPU"),
            _t("source GPU"),
            None,
            _t(
                "GPU-to-GPU copy bandwidth for every pair (GB/s) and the link between them "
                "(NVLink or PCIe path from NVML topology)."
            ),
        )
        self.collective = _new_plot(
            _t("Collective bus bandwidth vs size"),
            _t("message size"),
            _t("busbw GB/s"),
            _fmt_bytes_tick,
            _t(
                "nccl-tests' bus bandwidth: algbw × 2(n−1)/n for all-reduce, × (n−1)/n for "
                "all-gather. NCCL across GPUs, gloo between processes on the CPU."
            ),
        )
        self.plots: dict[str, pg.PlotWidget] = {
            "gemm": self.gemm,
            "memory": self.memory,
            "p2p": self.p2p,
            "collective": self.collective,
        }
        for key, view in self.plots.items():
            # GEMM's peak lines run along the top; its curves rise to the right: legend bottom right.
            offset = (-10, -10) if key == "gemm" else (10, 10)
            view.getPlotItem().addLegend(offset=offset, labelTextSize="8pt", verSpacing=-6)
        self.p2p.getPlotItem().invertY(True)
        self._colour_bar: pg.ColorBarItem | None = None
        self._signatures: dict[str, tuple[Any, ...]] = {}
        self._keep: dict[str, list[Result]] = {}
        self._last: tuple[tuple[Result, ...], dict[str, float] | None, frozenset[str]] = (
            (),
            None,
            frozenset(),
        )
        self._theme: Theme | None = None
        self._text_colour = "#30363d"
        #: (kind → what the chart shows now) for tests and the screenshot check.
        self.drawn: dict[str, Any] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        grid.addWidget(self.gemm, 0, 0)
        grid.addWidget(self.memory, 0, 1)
        grid.addWidget(self.p2p, 1, 0)
        grid.addWidget(self.collective, 1, 1)
        self.set_results((), {})

    # -- data ---------------------------------------------------------------------------------
    def set_results(
        self,
        results: Sequence[Result],
        peaks: dict[str, float] | None = None,
        waiting: frozenset[str] = frozenset(),
    ) -> None:
        """Redraw every chart. ``peaks``: dtype → spec TFLOPS (from the results when None);
        ``waiting``: benchmark families that are planned but have no result yet."""
        self._last = (tuple(results), dict(peaks) if peaks else None, waiting)
        peaks = dict(peaks) if peaks else {}
        for r in results:
            if isinstance(r, GemmResult) and r.peak_tflops:
                peaks.setdefault(r.dtype, r.peak_tflops)
        families: dict[str, tuple[type[Result], Callable[..., None]]] = {
            "gemm": (GemmResult, lambda rows, why: self._draw_gemm(rows, peaks, why)),
            "memory": (MemoryResult, self._draw_memory),
            "p2p": (P2PResult, self._draw_p2p),
            "collective": (CollectiveResult, self._draw_collective),
        }
        for bench, (cls, draw) in families.items():
            rows = [r for r in results if isinstance(r, cls)]
            why = self._reason(results, bench, waiting)
            # A chart whose results did not change is not rebuilt: during a run only the
            # family being measured redraws (an 8-GPU P2P matrix alone costs ~100 ms).
            signature = (
                tuple(id(r) for r in rows),
                why,
                tuple(sorted(peaks.items())) if bench == "gemm" else (),
            )
            if self._signatures.get(bench) == signature:
                continue
            self._signatures[bench] = signature
            self._keep[bench] = rows  # ids stay unique while the results are referenced
            draw(rows, why)

    @staticmethod
    def _reason(results: Sequence[Result], bench: str, waiting: frozenset[str]) -> str:
        """What an empty chart says: why nothing was measured, or that it is still to come."""
        for r in results:
            if r.bench == bench and not r.ok:
                return r.status
        if bench in waiting:
            return _t("waiting for results…")
        return _t("not run yet: press Run (Ctrl+B)")

    def _reset(self, view: pg.PlotWidget) -> pg.PlotItem:
        plot = view.getPlotItem()
        plot.clear()
        plot.enableAutoRange()
        for name in ("left", "bottom"):
            plot.showAxis(name)
        alpha = self._theme.grid_alpha if self._theme is not None else 0.25
        plot.showGrid(x=True, y=True, alpha=alpha)
        return plot

    def _placeholder(self, view: pg.PlotWidget, text: str) -> None:
        plot = view.getPlotItem()
        plot.disableAutoRange()
        plot.setXRange(0, 1, padding=0)
        plot.setYRange(0, 1, padding=0)
        for name in ("left", "bottom"):
            plot.hideAxis(name)
        plot.showGrid(x=False, y=False)
        item = pg.TextItem(text, anchor=(0.5, 0.5), color=self._text_colour)
        item.setPos(0.5, 0.5)
        font = QFont()
        font.setPointSize(10)
        item.setFont(font)
        plot.addItem(item)

    def _start(
        self, view: pg.PlotWidget, family: str, rows: list[R], reason: str
    ) -> tuple[pg.PlotItem, list[R]]:
        """``view`` cleared for ``family``'s rows: its plot and the rows that succeeded; with
        none, the placeholder saying ``reason`` is drawn."""
        plot = self._reset(view)
        ok = [r for r in rows if r.ok]
        self.drawn[family] = {}
        if not ok:
            self._placeholder(view, reason)
        return plot, ok

    def _draw_gemm(self, rows: list[GemmResult], peaks: dict[str, float], reason: str) -> None:
        plot, ok = self._start(self.gemm, "gemm", rows, reason)
        if not ok:
            return
        top = 0.0
        for dtype in DTYPE_COLOURS:
            mine = [r for r in ok if r.dtype == dtype]
            if not mine:
                continue
            colour = DTYPE_COLOURS[dtype]
            squares = sorted((r for r in mine if r.m == r.n == r.k), key=lambda r: r.m)
            shaped = [r for r in mine if not r.m == r.n == r.k]
            ys = np.array([r.tflops_median for r in squares])
            plot.addItem(_dotted_line([float(r.m) for r in squares], ys, colour, dtype.upper()))
            if shaped:
                sx = np.log2([float(r.m * r.n * r.k) ** (1 / 3) for r in shaped])
                sy = np.array([r.tflops_median for r in shaped])
                plot.addItem(
                    pg.ScatterPlotItem(
                        sx, sy, symbol="star", size=11, brush=pg.mkBrush(colour), pen=pg.mkPen(None)
                    )
                )
            top = max(top, float(max(r.tflops_median for r in mine)))
            peak = peaks.get(dtype)
            if peak:
                line = pg.InfiniteLine(
                    pos=peak,
                    angle=0,
                    movable=False,
                    pen=pg.mkPen(colour, width=1.2, style=Qt.PenStyle.DashLine),
                    label=_t("%1 peak %2").replace("%1", dtype.upper()).replace("%2", f"{peak:g}"),
                    labelOpts={"position": 0.03, "color": colour, "anchors": [(0, 1), (0, 1)]},
                )
                plot.addItem(line)
                top = max(top, peak)
            self.drawn["gemm"][dtype] = {
                "x": [float(r.m) for r in squares],
                "tflops": ys.tolist(),
                "peak": peak,
            }
        xs_all = [math.log2(float(r.m * r.n * r.k) ** (1 / 3)) for r in ok]
        _x_range(plot, xs_all)
        plot.setYRange(0, top * 1.08 if top > 0 else 1, padding=0)

    def _draw_memory(self, rows: list[MemoryResult], reason: str) -> None:
        plot, ok = self._start(self.memory, "memory", rows, reason)
        if not ok:
            return
        groups: dict[tuple[str, bool | None], list[MemoryResult]] = {}
        for r in ok:
            groups.setdefault((r.direction, r.pinned), []).append(r)

        def order(key: tuple[str, bool | None]) -> tuple[int, str]:
            direction = key[0]
            return (_DIRECTIONS.index(direction) if direction in _DIRECTIONS else 9, str(key[1]))

        for i, ((direction, pinned), mine) in enumerate(
            sorted(groups.items(), key=lambda kv: order(kv[0]))
        ):
            mine.sort(key=lambda r: r.size_bytes)
            slot = _DIRECTIONS.index(direction) if direction in _DIRECTIONS else i
            colour = GPU_COLOURS[slot % len(GPU_COLOURS)]
            label = (
                direction.upper() + {True: _t(" pinned"), False: _t(" pageable"), None: ""}[pinned]
            )
            style = Qt.PenStyle.DashLine if pinned is False else Qt.PenStyle.SolidLine
            ys = np.array([r.bandwidth_bytes_s / 1e9 for r in mine])
            plot.addItem(
                _dotted_line([float(r.size_bytes) for r in mine], ys, colour, label, style)
            )
            self.drawn["memory"][label] = {
                "size_bytes": [r.size_bytes for r in mine],
                "gb_s": ys.tolist(),
            }
        plot.setYRange(
            0, max(max(v["gb_s"]) for v in self.drawn["memory"].values()) * 1.1, padding=0
        )
        _x_range(plot, [math.log2(r.size_bytes) for r in ok])

    def _draw_collective(self, rows: list[CollectiveResult], reason: str) -> None:
        plot, ok = self._start(self.collective, "collective", rows, reason)
        if not ok:
            return
        for op in sorted({r.op for r in ok}, key=lambda o: (o != "all_reduce", o)):
            mine = sorted((r for r in ok if r.op == op), key=lambda r: r.size_bytes)
            colour = _OPS_COLOURS.get(op, "#7f7f7f")
            ys = np.array([r.busbw_bytes_s / 1e9 for r in mine])
            name = op.replace("_", "-") + f" ({mine[0].backend}, {mine[0].world_size})"
            plot.addItem(_dotted_line([float(r.size_bytes) for r in mine], ys, colour, name))
            self.drawn["collective"][op] = {
                "size_bytes": [r.size_bytes for r in mine],
                "busbw_gb_s": ys.tolist(),
            }
        _x_range(plot, [math.log2(r.size_bytes) for r in ok])
        top = max(max(v["busbw_gb_s"]) for v in self.drawn["collective"].values())
        plot.setYRange(0, top * 1.1 if top > 0 else 1, padding=0)

    def _draw_p2p(self, rows: list[P2PResult], reason: str) -> None:
        plot = self._reset(self.p2p)
        if self._colour_bar is not None:
            self.p2p.getPlotItem().layout.removeItem(self._colour_bar)
            self._colour_bar.setParentItem(None)
            self._colour_bar = None
        ok = [r for r in rows if r.ok and r.uni_bw_on_bytes_s]
        self.drawn["p2p"] = None
        bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
        if not ok:
            bottom.setTicks(None)
            left.setTicks(None)
            self._placeholder(self.p2p, reason)
            return
        plot.showGrid(x=False, y=False)  # the cells are the grid
        res = ok[-1]
        n = len(res.uni_bw_on_bytes_s)
        gb = np.array(
            [[math.nan if v is None else v / 1e9 for v in row] for row in res.uni_bw_on_bytes_s],
            dtype=float,
        )
        off_diag = gb[~np.eye(n, dtype=bool)]
        finite = off_diag[np.isfinite(off_diag)]
        hi = float(finite.max()) if finite.size else 1.0
        image = np.nan_to_num(gb.T, nan=0.0)  # ImageItem is x-major: image[x=dst, y=src]
        img = pg.ImageItem(image)
        img.setRect(0, 0, n, n)
        plot.addItem(img)
        cmap = pg.colormap.get("viridis")
        bar = pg.ColorBarItem(
            values=(0, hi), colorMap=cmap, label=_t("GB/s"), interactive=False, colorMapMenu=False
        )
        bar.setImageItem(img, insert_in=plot)
        self._colour_bar = bar
        font = QFont()
        font.setPointSize(8 if n <= 4 else 7)
        for i in range(n):
            for j in range(n):
                v = gb[i, j]
                link = _short_link(res.links[i][j]) if res.links and i != j else None
                text = ("—" if not math.isfinite(v) else f"{v:.0f}") + (f"\n{link}" if link else "")
                light = math.isfinite(v) and v > 0.6 * hi
                item = pg.TextItem(text, anchor=(0.5, 0.5), color="#000000" if light else "#ffffff")
                item.setFont(font)
                item.setPos(j + 0.5, i + 0.5)
                plot.addItem(item)
        ticks = [[(k + 0.5, f"GPU{d}") for k, d in enumerate(res.devices or range(n))]]
        bottom.setTicks(ticks)
        left.setTicks(ticks)
        plot.setXRange(0, n, padding=0)
        plot.setYRange(0, n, padding=0)
        self.drawn["p2p"] = gb.tolist()

    # -- theme --------------------------------------------------------------------------------
    def apply_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._text_colour = theme.plot_fg
        for view in self.plots.values():
            view.setBackground(theme.plot_bg)
            style_plot(view.getPlotItem(), theme)
        self._signatures.clear()
        self.set_results(*self._last)  # grids, placeholder text and cell labels take the colours
