"""Colours and the light/dark theme: one place, so a GPU has the same colour everywhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuprof.telemetry.reasons import ClockEventReason
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    import pyqtgraph as pg

__all__ = [
    "style_plot",
    "GPU_COLOURS",
    "THROTTLE_COLOURS",
    "Theme",
    "THEMES",
    "apply_theme",
    "gpu_colour",
    "throttle_colour",
]

# Tableau 10 reordered so that neighbouring indices differ in hue; 8 GPUs (one HGX board) never
# repeat a colour. Beyond 10 the colours cycle; the legend still names each GPU.
GPU_COLOURS: tuple[str, ...] = (
    "#1f77b4",  # blue
    "#ff7f0e",  # orange
    "#2ca02c",  # green
    "#d62728",  # red
    "#9467bd",  # purple
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#17becf",  # cyan
    "#bcbd22",  # olive
    "#7f7f7f",  # grey
)

_R = ClockEventReason
#: Clock-event (throttle) reason -> band colour; the reasons not here (idle, unknown) are grey.
THROTTLE_COLOURS: dict[ClockEventReason, str] = {
    _R.SW_POWER_CAP: "#f2b134",
    _R.HW_POWER_BRAKE_SLOWDOWN: "#e8590c",
    _R.HW_SLOWDOWN: "#d6336c",
    _R.HW_THERMAL_SLOWDOWN: "#c92a2a",
    _R.SW_THERMAL_SLOWDOWN: "#f76707",
    _R.SYNC_BOOST: "#4dabf7",
    _R.APPLICATIONS_CLOCKS_SETTING: "#845ef7",
    _R.DISPLAY_CLOCK_SETTING: "#20c997",
}
_GREY = "#868e96"


def gpu_colour(index: int) -> str:
    """The colour of GPU ``index`` in every plot, card and legend."""
    return GPU_COLOURS[index % len(GPU_COLOURS)]


def throttle_colour(reason: ClockEventReason | str) -> str:
    """The colour of a reason (a flag or a name in any spelling); of several, the most severe's."""
    flag = reason if isinstance(reason, ClockEventReason) else ClockEventReason.from_names([reason])
    return THROTTLE_COLOURS.get(flag.most_severe(), _GREY)


@dataclass(frozen=True)
class Theme:
    """Colours of one theme; ``plot_bg``/``plot_fg`` go to pyqtgraph."""

    name: str
    window: str
    base: str
    text: str
    muted: str
    card: str
    border: str
    accent: str
    warn_bg: str
    warn_fg: str
    error_bg: str
    error_fg: str
    plot_bg: str
    plot_fg: str
    grid_alpha: float


THEMES: dict[str, Theme] = {
    "light": Theme(
        name="light",
        window="#f5f6f8",
        base="#ffffff",
        text="#1d2125",
        muted="#5f6b76",
        card="#ffffff",
        border="#d5d9de",
        accent="#1c7ed6",
        warn_bg="#fff3bf",
        warn_fg="#5c3c00",
        error_bg="#ffe3e3",
        error_fg="#7a0b0b",
        plot_bg="#ffffff",
        plot_fg="#30363d",
        grid_alpha=0.25,
    ),
    "dark": Theme(
        name="dark",
        window="#1e2227",
        base="#16191d",
        text="#e6e8eb",
        muted="#9aa5b1",
        card="#262b31",
        border="#3a414a",
        accent="#4dabf7",
        warn_bg="#4a3b00",
        warn_fg="#ffe8a3",
        error_bg="#5c1a1a",
        error_fg="#ffd6d6",
        plot_bg="#16191d",
        plot_fg="#c9d1d9",
        grid_alpha=0.2,
    ),
}

_QSS = """
QFrame#card {{ background: {card}; border: 1px solid {border}; border-radius: 6px; }}
QLabel#cardTitle {{ font-weight: 600; font-size: 11pt; }}
QLabel#bigNumber {{ font-size: 20pt; font-weight: 600; }}
QLabel#muted {{ color: {muted}; }}
QLabel#badge {{ border-radius: 4px; padding: 1px 6px; font-weight: 600; }}
QFrame#banner[severity="warning"] {{ background: {warn_bg}; border: 1px solid {border}; }}
QFrame#banner[severity="warning"] QLabel {{ color: {warn_fg}; }}
QFrame#banner[severity="error"] {{ background: {error_bg}; border: 1px solid {border}; }}
QFrame#banner[severity="error"] QLabel {{ color: {error_fg}; }}
QLabel#simulated {{ background: #e8590c; color: white; font-weight: 700; padding: 1px 6px;
    border-radius: 3px; }}
QLabel#replay {{ background: #1c7ed6; color: white; font-weight: 700; padding: 1px 6px;
    border-radius: 3px; }}
QLabel#recording {{ background: #c92a2a; color: white; font-weight: 700; padding: 1px 6px;
    border-radius: 3px; }}
"""


def _palette(theme: Theme) -> QPalette:
    pal = QPalette()
    role = QPalette.ColorRole
    pal.setColor(role.Window, QColor(theme.window))
    pal.setColor(role.WindowText, QColor(theme.text))
    pal.setColor(role.Base, QColor(theme.base))
    pal.setColor(role.AlternateBase, QColor(theme.card))
    pal.setColor(role.Text, QColor(theme.text))
    pal.setColor(role.Button, QColor(theme.card))
    pal.setColor(role.ButtonText, QColor(theme.text))
    pal.setColor(role.ToolTipBase, QColor(theme.card))
    pal.setColor(role.ToolTipText, QColor(theme.text))
    pal.setColor(role.Highlight, QColor(theme.accent))
    pal.setColor(role.HighlightedText, QColor("#ffffff"))
    pal.setColor(role.PlaceholderText, QColor(theme.muted))
    pal.setColor(QPalette.ColorGroup.Disabled, role.Text, QColor(theme.muted))
    pal.setColor(QPalette.ColorGroup.Disabled, role.WindowText, QColor(theme.muted))
    pal.setColor(QPalette.ColorGroup.Disabled, role.ButtonText, QColor(theme.muted))
    return pal


def apply_theme(app: QApplication, name: str) -> Theme:
    """Set the palette and style sheet of ``app``; returns the theme (plots restyle themselves)."""
    theme = THEMES.get(name, THEMES["light"])
    app.setStyle("Fusion")
    app.setPalette(_palette(theme))
    app.setStyleSheet(_QSS.format(**theme.__dict__))
    return theme


def style_plot(plot: pg.PlotItem, theme: Theme) -> None:
    """``plot``'s axes, title and legend (where it has one) in ``theme``'s plot colour; the
    background is its view's."""
    fg = QColor(theme.plot_fg)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(fg)
        axis.setTextPen(fg)
    plot.titleLabel.setText(plot.titleLabel.text, color=theme.plot_fg, size="9pt")
    if plot.legend is not None:
        plot.legend.setLabelTextColor(fg)
