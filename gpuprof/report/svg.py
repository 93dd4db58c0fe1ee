"""Draw a :class:`~gpuprof.report.model.Chart` as a small, standalone SVG (no matplotlib).

Only SVG Tiny 1.2 features (``rect``, ``line``, ``polyline``, ``circle``, ``text`` with
presentation attributes, no CSS), so that Qt's ``QSvgRenderer`` rasterizes the same picture for
the PDF that the browser shows in the HTML. Every text is escaped; series labels and categories
may come from the system.
"""

from __future__ import annotations

import math
from html import escape

from gpuprof.redact import clean_text
from gpuprof.report.model import Chart
from gpuprof.units import fmt_duration, fmt_num, fmt_usd

__all__ = ["PALETTE", "render_svg", "tick_label"]

#: Line colours (Okabe–Ito plus extras), readable on white and in greyscale print.
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#8C564B",
    "#7F7F7F",
    "#BCBD22",
)
_FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"

_BYTES = (("B", 1.0), ("KiB", 2.0**10), ("MiB", 2.0**20), ("GiB", 2.0**30), ("TiB", 2.0**40))
_RATE = (("B/s", 1.0), ("kB/s", 1e3), ("MB/s", 1e6), ("GB/s", 1e9), ("TB/s", 1e12))
_SIMPLE = {"pct": "%", "w": "W", "c": "°C", "mhz": "MHz", "tflops": "TFLOPS"}


def _t(text: object, max_len: int = 120) -> str:
    return escape(clean_text(text, max_len), quote=True)


def _scale(unit: str, vmax: float) -> tuple[float, str]:
    """Divide values by the factor; the axis names the unit once."""
    table = _BYTES if unit == "bytes" else _RATE if unit == "bytes_s" else None
    if table is None:
        return 1.0, _SIMPLE.get(unit, "")
    name, factor = table[0]
    for n, f in table:
        if vmax >= f:
            name, factor = n, f
    return factor, name


def _nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    v = start
    while v <= hi + step * 1e-9:
        if v >= lo - step * 1e-9:
            ticks.append(round(v, 10))
        v += step
    return ticks


def tick_label(value: float, unit: str, factor: float = 1.0) -> str:
    """An axis label for ``value`` already divided by ``factor``."""
    if unit == "usd":
        for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= scale:
                return fmt_usd(value / scale, digits=0 if value % scale == 0 else 1) + suffix
        return fmt_usd(value, digits=0)
    if unit == "hours":
        if value >= 48:
            return fmt_num(value / 24.0, "d", digits=0 if value / 24.0 >= 10 else 1)
        return fmt_num(value, "h", digits=0 if value >= 10 else 1)
    if unit == "s":
        text = fmt_duration(value) if value >= 60 else f"{value:g} s"
        return text.removesuffix(" 0s")
    digits = 0 if abs(value) >= 10 or value == int(value) else 1
    return fmt_num(value, digits=digits)


def _x_ticks(lo: float, hi: float, unit: str, log: bool = False) -> list[float]:
    if unit == "s" and hi - lo > 120:
        # whole minutes read better than 250 s steps
        ticks = [t * 60.0 for t in _nice_ticks(lo / 60.0, hi / 60.0, 6)]
        return [t for t in ticks if lo <= t <= hi]
    if unit == "hours" and log:
        lo_l, hi_l = math.log10(max(lo, 1e-3)), math.log10(max(hi, 1e-3))
        return [10.0**e for e in range(math.floor(lo_l), math.ceil(hi_l) + 1)]
    return _nice_ticks(lo, hi, 6)


def render_svg(
    chart: Chart, width: int = 760, height: int = 240, *, standalone: bool = True
) -> str:
    """The chart as an ``<svg>`` element string. ``standalone`` adds the ``xmlns`` a file (or
    QSvgRenderer) needs; HTML5 inline SVG does without, so the report holds no URL at all."""
    xmlns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    left, right, top, bottom = 64, 12, 28, 42
    legend_rows = 0
    labels = [s.label for s in chart.series]
    if len(labels) > 1:
        per_row = max(1, (width - left - right) // 110)
        legend_rows = math.ceil(len(labels) / per_row)
    pw = width - left - right
    ph = height - top - bottom - 16 * legend_rows
    ys = [v for s in chart.series for v in s.y if v is not None and math.isfinite(v)]
    xs = [v for s in chart.series for v in s.x if math.isfinite(v)]
    parts: list[str] = [
        f'<svg{xmlns} version="1.2" baseProfile="tiny" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="{_FONT}" font-size="11">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="17" font-size="13" font-weight="bold" fill="#222222">{_t(chart.title)}</text>',
    ]
    vmax = max(ys) if ys else 1.0
    factor, unit_name = _scale(chart.unit, max(abs(vmax), 1e-12))
    if unit_name:
        parts.append(
            f'<text x="{width - right}" y="17" text-anchor="end" fill="#555555">{_t(unit_name)}</text>'
        )
    if not ys:
        no_data = _t("no data")
        parts.append(
            f'<text x="{left + pw / 2:.1f}" y="{top + ph / 2:.1f}" text-anchor="middle" '
            f'fill="#777777">{no_data}</text></svg>'
        )
        return "".join(parts)
    y_lo = chart.y_min if chart.y_min is not None else min(ys)
    y_hi = chart.y_max if chart.y_max is not None else vmax
    y_hi = max(y_hi, vmax) if chart.y_max is None else y_hi
    if y_hi <= y_lo:
        y_hi = y_lo + (abs(y_lo) or 1.0)
    yticks = _nice_ticks(y_lo / factor, y_hi / factor * (1.0 if chart.y_max is not None else 1.05))
    y_lo_s, y_hi_s = min(yticks[0], y_lo / factor), max(yticks[-1], y_hi / factor)

    def py(v: float) -> float:
        return top + ph - (v / factor - y_lo_s) / (y_hi_s - y_lo_s) * ph

    for t in yticks:
        y = py(t * factor)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e3e3e3" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#444444">'
            f"{_t(tick_label(t, chart.unit, factor))}</text>"
        )
    parts.append(
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999999" stroke-width="1"/>'
    )

    if chart.kind == "bar":
        _bars(chart, parts, left, top, pw, ph, py)
    else:
        log_x = (
            chart.kind == "scatter"
            and chart.x_unit == "hours"
            and xs
            and min(xs) > 0
            and max(xs) / min(xs) > 20
        )
        x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
        if log_x:
            x_lo, x_hi = (
                10 ** math.floor(math.log10(max(x_lo, 1e-3))),
                10 ** math.ceil(math.log10(max(x_hi, 1e-3))),
            )
        if x_hi <= x_lo:
            x_hi = x_lo + 1.0

        def px(v: float) -> float:
            if log_x:
                return (
                    left
                    + (math.log10(max(v, 1e-3)) - math.log10(x_lo))
                    / (math.log10(x_hi) - math.log10(x_lo))
                    * pw
                )
            return left + (v - x_lo) / (x_hi - x_lo) * pw

        for t in _x_ticks(x_lo, x_hi, chart.x_unit, bool(log_x)):
            x = px(t)
            parts.append(
                f'<line x1="{x:.1f}" y1="{top + ph}" x2="{x:.1f}" y2="{top + ph + 4}" stroke="#999999" stroke-width="1"/>'
            )
            parts.append(
                f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle" fill="#444444">'
                f"{_t(tick_label(t, chart.x_unit))}</text>"
            )
        for k, s in enumerate(chart.series):
            color = PALETTE[k % len(PALETTE)]
            if chart.kind == "scatter":
                for sx, sy in zip(s.x, s.y, strict=True):
                    if sy is not None and math.isfinite(sy):
                        parts.append(
                            f'<circle cx="{px(sx):.1f}" cy="{py(sy):.1f}" r="3" fill="{color}" fill-opacity="0.8"/>'
                        )
                continue
            run: list[str] = []
            for lx, ly in [*zip(s.x, s.y, strict=True), (math.nan, None)]:
                if ly is None or not math.isfinite(ly) or not math.isfinite(lx):
                    if len(run) > 1:
                        parts.append(
                            f'<polyline points="{" ".join(run)}" fill="none" stroke="{color}" '
                            f'stroke-width="1.4" stroke-linejoin="round"/>'
                        )
                    elif len(run) == 1:
                        cx, cy = run[0].split(",")
                        parts.append(f'<circle cx="{cx}" cy="{cy}" r="1.5" fill="{color}"/>')
                    run = []
                    continue
                run.append(f"{px(lx):.1f},{py(ly):.1f}")
        if chart.x_label:
            parts.append(
                f'<text x="{left + pw / 2:.1f}" y="{top + ph + 30}" text-anchor="middle" '
                f'fill="#555555">{_t(chart.x_label)}</text>'
            )

    if legend_rows:
        per_row = max(1, pw // 110)
        for k, label in enumerate(labels):
            row, col = divmod(k, per_row)
            x = left + col * 110
            y = height - 16 * legend_rows + row * 16 + 4
            parts.append(
                f'<rect x="{x}" y="{y}" width="14" height="4" fill="{PALETTE[k % len(PALETTE)]}"/>'
            )
            parts.append(f'<text x="{x + 18}" y="{y + 6}" fill="#333333">{_t(label, 16)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _bars(
    chart: Chart, parts: list[str], left: int, top: int, pw: int, ph: int, py: object
) -> None:
    cats = chart.categories or tuple(
        str(i) for i in range(max((len(s.y) for s in chart.series), default=0))
    )
    n = max(1, len(cats))
    group = pw / n
    nseries = max(1, len(chart.series))
    bar_w = min(48.0, group * 0.8 / nseries)
    base = py(0.0)  # type: ignore[operator]
    for i, cat in enumerate(cats):
        gx = left + i * group + (group - bar_w * nseries) / 2
        for k, s in enumerate(chart.series):
            if i >= len(s.y) or s.y[i] is None:
                continue
            v = float(s.y[i])  # type: ignore[arg-type]
            y = py(v)  # type: ignore[operator]
            x = gx + k * bar_w
            color = PALETTE[k % len(PALETTE)]
            parts.append(
                f'<rect x="{x:.1f}" y="{min(y, base):.1f}" width="{bar_w - 2:.1f}" '
                f'height="{abs(base - y):.1f}" fill="{color}"/>'
            )
        parts.append(
            f'<text x="{left + i * group + group / 2:.1f}" y="{top + ph + 16}" text-anchor="middle" '
            f'fill="#444444">{_t(cat, 24)}</text>'
        )
