"""The Health tab's parts: check codes, severity colours and icons, text helpers, the all-clear page.

Split from :mod:`gpuprof.ui.health.tab`, which lays them out and runs the checks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from gpuprof.health.diagnose import Severity
from gpuprof.telemetry.model import DeviceInfo, Snapshot
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPixmap, QPolygonF
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ..shell.widgets import arg

__all__ = [
    "CHECK_CODES",
    "AllClearPage",
    "gpus_from_snapshots",
    "hint_html",
    "index_ranges",
    "not_run_html",
    "severity_colours",
    "severity_icon",
]

#: Finding codes per entry of :meth:`HealthTab.checks`, in the same order.
CHECK_CODES: tuple[frozenset[str], ...] = (
    frozenset({"gpu_lost"}),
    frozenset({"pcie_link_degraded"}),
    frozenset({"power_limit_below_default"}),
    frozenset({"thermal_throttling", "power_throttling", "hw_slowdown"}),
    frozenset(
        {
            "ecc_uncorrectable",
            "ecc_corrected",
            "row_remap_failure",
            "memory_repair_pending",
            "memory_retired",
        }
    ),
    frozenset({"low_utilization"}),
    frozenset({"persistence_off"}),
    frozenset({"mig_enabled", "mig_pending"}),
    frozenset({"driver_too_old"}),
)

# Filled icon shapes: the same in both themes (the glyph carries the contrast).
_ICON_FILL = {Severity.CRITICAL: "#e03131", Severity.WARNING: "#f59f00", Severity.INFO: "#1c7ed6"}
_ICON_GLYPH = {Severity.CRITICAL: "#ffffff", Severity.WARNING: "#212529", Severity.INFO: "#ffffff"}
# Text colours with ≥ 4.5:1 contrast on each theme's base colour.
_TEXT = {
    "light": {
        Severity.CRITICAL: "#c92a2a",
        Severity.WARNING: "#8a4b00",
        Severity.INFO: "#1864ab",
        "ok": "#2b8a3e",
    },
    "dark": {
        Severity.CRITICAL: "#ff8787",
        Severity.WARNING: "#ffc94d",
        Severity.INFO: "#74c0fc",
        "ok": "#69db7c",
    },
}


def severity_colours(dark: bool) -> dict[Severity | str, str]:
    """Text colour per severity (and ``"ok"``) for a light or dark background."""
    return dict(_TEXT["dark" if dark else "light"])


def severity_icon(severity: Severity) -> QIcon:
    """A filled circle (critical, info) or triangle (warning) with a ``!``/``i`` glyph, drawn with
    shapes rather than a font so it looks the same everywhere."""
    icon = QIcon()
    for size in (16, 24, 32):
        pix = QPixmap(size, size)
        pix.fill(Qt.GlobalColor.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(QColor(_ICON_FILL[severity])))
        s = float(size)
        if severity is Severity.WARNING:
            p.drawPolygon(
                QPolygonF([QPointF(s / 2, 0.5), QPointF(s - 0.5, s - 1.0), QPointF(0.5, s - 1.0)])
            )
            top, bottom = 0.34 * s, 0.68 * s
        else:
            p.drawEllipse(QRectF(0.5, 0.5, s - 1.0, s - 1.0))
            top, bottom = 0.22 * s, 0.58 * s
        p.setBrush(QBrush(QColor(_ICON_GLYPH[severity])))
        w = max(2.0, 0.14 * s)
        if severity is Severity.INFO:  # "i": dot on top, bar below
            p.drawEllipse(QRectF(s / 2 - w / 2, 0.2 * s, w, w))
            p.drawRect(QRectF(s / 2 - w / 2, 0.42 * s, w, 0.38 * s))
        else:  # "!": bar on top, dot below
            p.drawRect(QRectF(s / 2 - w / 2, top, w, bottom - top))
            p.drawEllipse(QRectF(s / 2 - w / 2, bottom + 0.08 * s, w, w))
        p.end()
        icon.addPixmap(pix)
    return icon


def hint_html(text: str) -> str:
    """Escape ``text`` and show its `backticked` commands as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def gpus_from_snapshots(snaps: Iterable[Snapshot]) -> tuple[DeviceInfo, ...]:
    """Minimal device records when the static facts have not arrived: load checks still run."""
    seen: dict[int, DeviceInfo] = {}
    for snap in snaps:
        for g in snap.gpus:
            seen.setdefault(g.index, DeviceInfo(index=g.index, name=f"GPU {g.index}", uuid=g.uuid))
    return tuple(seen[i] for i in sorted(seen))


def index_ranges(indices: Sequence[int]) -> str:
    """Sorted GPU indices as runs: ``[0, 1, 2, 3]`` -> ``"0–3"``, ``[0, 1, 5]`` -> ``"0, 1, 5"``."""
    runs: list[str] = []
    start = prev = indices[0]
    for i in [*indices[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(
            f"{start}–{prev}"
            if prev - start >= 2
            else ", ".join(str(k) for k in range(start, prev + 1))
        )
        if i is not None:
            start = prev = i
    return ", ".join(runs)


def not_run_html(title: str, rows: Sequence[tuple[str, str]]) -> str:
    """The checks that had nothing to judge, each with why, under ``title`` ("" when none):
    apart from the passed ones, with a dash rather than a tick."""
    if not rows:
        return ""
    items = "".join(
        f"<tr><td style='padding-right:8px'><b>–</b></td><td>{html.escape(text)} "
        f"<span style='color:gray'>({html.escape(why)})</span></td></tr>"
        for text, why in rows
    )
    return f"<p><b>{html.escape(title)}</b></p><table cellspacing='3'>{items}</table>"


class AllClearPage(QFrame):
    """The Health tab's page when nothing was found: the verdict, the window, every check."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card")
        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.title.setFont(font)
        self.scope = QLabel(self)
        self.scope.setWordWrap(True)
        self.checks_label = QLabel(self)
        self.checks_label.setTextFormat(Qt.TextFormat.RichText)
        self.checks_label.setWordWrap(True)
        self.checks_label.setToolTip(self.tr("Every check the Health tab runs"))
        self.note = QLabel(self)  # the checks that did not run, apart from the passed ones
        self.note.setObjectName("muted")
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        layout.setSpacing(10)
        layout.addWidget(self.title)
        layout.addWidget(self.scope)
        layout.addWidget(self.checks_label)
        layout.addWidget(self.note)
        layout.addStretch(1)

    def show_result(
        self,
        colours: dict[Severity | str, str],
        scope: str,
        checks: Sequence[str],
        not_run: Sequence[tuple[str, str]] = (),
        *,
        gpus: int = 1,
    ) -> None:
        """Fill the page: ``scope`` is the window checked, ``checks`` the text of each check
        that ran, ``not_run`` the checks with nothing to judge (text, why), listed apart. With
        no GPU (``gpus`` 0) nothing was checked: no verdict and no ticks."""
        tick = f"<span style='color:{colours['ok']}'>✓</span>"
        what = self.tr("What was checked:")
        if gpus:
            self.title.setText("✓ " + self.tr("All clear"))
            self.title.setStyleSheet(f"color: {colours['ok']};")
            self.scope.setText(arg(self.tr("No problems found in the last %1."), scope))
        else:
            tick, what = "–", self.tr("Not checked (no GPU):")
            self.title.setText(self.tr("No GPU to check"))
            self.title.setStyleSheet("")
            self.scope.setText(
                arg(self.tr("No NVIDIA GPU in the last %1: none of the GPU checks ran."), scope)
            )
        items = "".join(
            f"<tr><td style='padding-right:8px'><b>{tick}</b></td><td>{html.escape(c)}</td></tr>"
            for c in checks
        )
        self.checks_label.setText(
            f"<p><b>{html.escape(what)}</b></p><table cellspacing='3'>{items}</table>"
        )
        self.note.setText(not_run_html(self.tr("Not run (nothing to judge):"), not_run))
