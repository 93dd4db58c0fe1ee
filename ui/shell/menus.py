"""The shell's own actions (open, save, quit, theme, interval, time window, pause, language,
About), its menus and toolbar items, the About box and screenshot saving.

Actions are data (:class:`~.context.ActionSpec`); the window builds its menus and toolbar from
these and from its features' (:mod:`.features`), so nothing here knows a feature.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from gpuprof import __version__
from gpuprof.errors import GpuprofError
from gpuprof.i18n import LANGUAGES
from gpuprof.units import NA
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QLabel,
    QMenuBar,
    QMessageBox,
    QStatusBar,
    QToolBar,
    QWidget,
)

from ..telemetry.tab import time_window_label
from .context import (
    ActionSpec,
    Feature,
    MenuSpec,
    ToolbarItem,
    WindowContext,
    build_actions,
    build_menus,
    build_toolbar,
)
from .i18n import translate as _t
from .png import write_png
from .settings import INTERVALS_S, TIME_WINDOWS_S
from .theme import Theme

__all__ = [
    "Chrome",
    "build_chrome",
    "about_text",
    "interval_combo",
    "main_toolbar",
    "save_screenshot",
    "set_language",
    "shell_actions",
    "shell_menus",
    "shell_toolbar_items",
    "show_about",
    "show_error",
    "sync_interval_controls",
]


T = TypeVar("T")


class ChromeHost(WindowContext, Protocol):
    """The window as its menus, toolbar and About box see it (the main window): the
    :class:`WindowContext` and the shell's own controls. Typed here, so that this module does
    not import the window that imports it."""

    chrome: Chrome
    interval_s: float
    theme: Theme

    def addToolBar(self, toolbar: QToolBar) -> None: ...

    def menuBar(self) -> QMenuBar: ...

    def statusBar(self) -> QStatusBar: ...

    def close(self) -> bool: ...

    def apply_theme(self, name: str) -> None: ...

    def copy_screenshot(self) -> None: ...

    def current_tab_name(self) -> str: ...

    def grab_image(self, what: str = "window") -> QPixmap: ...

    def save_screenshot(
        self, path: str | Path | None = None, what: str = "window"
    ) -> Path | None: ...

    def set_interval(self, seconds: float) -> None: ...

    def set_paused(self, paused: bool) -> None: ...

    def set_time_window(self, seconds: int) -> None: ...

    def show_about(self) -> QMessageBox: ...


@dataclass(frozen=True)
class Chrome:
    """What :func:`build_chrome` made: the actions (by spec id) and the toolbar's interval."""

    specs: tuple[ActionSpec, ...]
    actions: dict[str, QAction]
    toolbar: QToolBar
    interval_combo: QComboBox

    def choices(self, exclusive: str) -> list[QAction]:
        return [self.actions[s.id] for s in self.specs if s.exclusive == exclusive]


def build_chrome(window: ChromeHost, features: Iterable[Feature]) -> Chrome:
    """The window's actions, menus, toolbar and strips: its own and its features'."""
    features = list(features)
    specs = (*shell_actions(window), *(s for f in features for s in f.actions()))
    actions = build_actions(window.widget(), window, specs)
    build_menus(window.menuBar(), shell_menus(), specs, actions)
    combo = interval_combo(window)
    toolbar = main_toolbar(window.widget())
    build_toolbar(toolbar, specs, actions, shell_toolbar_items(combo))
    window.addToolBar(toolbar)
    for feature in features:
        strip = feature.strip()
        if strip is not None:
            window.add_strip(strip)
    return Chrome(specs, actions, toolbar, combo)


def shell_menus() -> list[MenuSpec]:
    """File, View (with its submenus) and Help."""
    return [
        MenuSpec("file", _t("&File"), order=1),
        MenuSpec("view", _t("&View"), order=2),
        MenuSpec("view/interval", _t("Sampling &interval"), parent="view", group="2", order=1),
        MenuSpec("view/window", _t("Time &window"), parent="view", group="2", order=2),
        MenuSpec("view/language", _t("&Language"), parent="view", group="3", order=1),
        MenuSpec("help", _t("&Help"), order=3),
    ]


def shell_actions(window: ChromeHost) -> list[ActionSpec]:
    """The window's own actions. File's groups: 1 open and connect, 2 jobs, 3 save, 9 quit;
    View's: 1 theme, 2 sampling, 3 language."""
    theme_tip = _t("Switch the colour theme (Ctrl+T toggles)")
    language_tip = _t("Language of the app; takes effect at the next start")
    specs = [
        ActionSpec(
            "file.open",
            _t("&Open recording…"),
            lambda _c, _on: window.open_recording(),
            menu="file",
            order=0,
            shortcut=QKeySequence.StandardKey.Open,
            tip=_t("Replay a recorded session (Ctrl+O)"),
            toolbar="1",
            toolbar_order=0,
        ),
        ActionSpec(
            "file.save_window",
            _t("Save screenshot of the &window…"),
            lambda _c, _on: window.save_screenshot(what="window"),
            menu="file",
            group="3",
            order=1,
            shortcut="Ctrl+S",
            tip=_t("Save the whole window as PNG (Ctrl+S)"),
            toolbar="1",
            toolbar_order=2,
        ),
        ActionSpec(
            "file.save_tab",
            _t("Save screenshot of the current &tab…"),
            lambda _c, _on: window.save_screenshot(what="tab"),
            menu="file",
            group="3",
            order=2,
            shortcut="Ctrl+Shift+S",
            tip=_t("Save the current tab as PNG (Ctrl+Shift+S)"),
        ),
        ActionSpec(
            "file.copy",
            _t("&Copy screenshot"),
            lambda _c, _on: window.copy_screenshot(),
            menu="file",
            group="3",
            order=3,
            shortcut="Ctrl+Shift+C",
            tip=_t("Copy the window to the clipboard (Ctrl+Shift+C)"),
        ),
        ActionSpec(
            "file.quit",
            _t("&Quit"),
            lambda _c, _on: window.close(),
            menu="file",
            group="9",
            shortcut=QKeySequence.StandardKey.Quit,
            tip=_t("Close gpuprof (Ctrl+Q)"),
        ),
        *_choice(
            "theme",
            "view",
            [("light", _t("&Light theme"), theme_tip), ("dark", _t("&Dark theme"), theme_tip)],
            window.apply_theme,
            lambda name: name == window.theme.name,
        ),
        ActionSpec(
            "view.toggle_theme",
            _t("Toggle theme"),
            lambda _c, _on: window.apply_theme("dark" if window.theme.name == "light" else "light"),
            menu="view",
            order=9,
            shortcut="Ctrl+T",
            tip=_t("Switch between light and dark (Ctrl+T)"),
            toolbar="3",
        ),
        *_choice(
            "interval",
            "view/interval",
            [
                (
                    seconds,
                    _t("%1 s").replace("%1", f"{seconds:g}"),
                    _t("Poll the GPUs every %1 s").replace("%1", f"{seconds:g}"),
                )
                for seconds in INTERVALS_S
            ],
            window.set_interval,
            lambda seconds: abs(seconds - window.interval_s) < 1e-9,
        ),
        *_choice(
            "time_window",
            "view/window",
            [
                (
                    seconds,
                    time_window_label(seconds),
                    _t("Show this much history in the plots (Ctrl+%1)").replace("%1", str(n)),
                    f"Ctrl+{n}",
                )
                for n, seconds in enumerate(TIME_WINDOWS_S, start=1)
            ],
            window.set_time_window,
            lambda seconds: seconds == window.state.time_window_s,
        ),
        ActionSpec(
            "view.pause",
            _t("&Pause plots"),
            lambda _c, on: window.set_paused(on),
            menu="view",
            group="2",
            order=3,
            shortcut="Ctrl+P",
            tip=_t("Freeze the plots; sampling goes on (Ctrl+P)"),
            checkable=True,
            toolbar="2",
        ),
        *_choice(
            "language",
            "view/language",
            [
                (code, title, language_tip)
                for code, title in (("auto", _t("Automatic (from the system)")), *LANGUAGES.items())
            ],
            lambda code: set_language(window, code),
            lambda code: code == window.settings.language,
        ),
        ActionSpec(
            "help.about",
            _t("&About gpuprof"),
            lambda _c, _on: window.show_about(),
            menu="help",
            shortcut="F1",
            tip=_t("Versions of gpuprof, Qt, the driver and CUDA (F1)"),
        ),
    ]
    # Alt+1…9: the tabs, in their order.
    specs += [
        ActionSpec(f"tabs.{n}", "", _calls(_select_tab, n - 1), shortcut=f"Alt+{n}")
        for n in range(1, 10)
    ]
    return specs


def _choice(
    exclusive: str,
    menu: str,
    items: Sequence[tuple[T, str, str] | tuple[T, str, str, str]],
    choose: Callable[[T], object],
    chosen: Callable[[T], bool],
) -> list[ActionSpec]:
    """One exclusive choice in ``menu``: ``items`` are (value, title, tip[, shortcut])."""
    return [
        ActionSpec(
            f"{exclusive}.{value}",
            title,
            _calls(lambda _c, v: choose(v), value),
            menu=menu,
            order=n,
            shortcut=shortcut[0] if shortcut else None,
            tip=tip,
            exclusive=exclusive,
            data=value,
            checked=_holds(chosen, value),
        )
        for n, (value, title, tip, *shortcut) in enumerate(items)
    ]


def _calls(
    fn: Callable[[WindowContext, T], object], value: T
) -> Callable[[WindowContext, bool], object]:
    return lambda context, _checked: fn(context, value)


def _holds(test: Callable[[T], bool], value: T) -> Callable[[WindowContext], bool]:
    return lambda _context: test(value)


def _select_tab(context: WindowContext, index: int) -> None:
    if index < context.tabs.count():
        context.tabs.setCurrentIndex(index)


def interval_combo(window: ChromeHost) -> QComboBox:
    """The toolbar's sampling interval choice (View → Sampling interval's twin)."""
    combo = QComboBox()
    for seconds in INTERVALS_S:
        combo.addItem(_t("%1 s").replace("%1", f"{seconds:g}"), seconds)
    combo.setToolTip(_t("Sampling interval"))
    combo.currentIndexChanged.connect(lambda i: window.set_interval(float(combo.itemData(i))))
    return combo


def shell_toolbar_items(combo: QComboBox) -> list[ToolbarItem]:
    """The interval label and combo, after Pause."""

    def make(toolbar: QToolBar) -> list[QWidget]:
        label = QLabel(_t(" Interval "), toolbar)
        label.setToolTip(combo.toolTip())
        combo.setParent(toolbar)
        return [label, combo]

    return [ToolbarItem("interval", make, group="2", order=1)]


def main_toolbar(window: QWidget) -> QToolBar:
    """The empty main toolbar (:func:`~.context.build_toolbar` fills it)."""
    tools = QToolBar(_t("Main"), window)
    tools.setObjectName("mainToolbar")
    tools.setMovable(False)
    tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    return tools


def sync_interval_controls(window: ChromeHost) -> None:
    """Show ``window.interval_s`` in View → Sampling interval and in the toolbar's combo
    (without the combo's signal: whichever control made the choice, both show it)."""
    for a in window.chrome.choices("interval"):
        a.setChecked(abs(float(a.data()) - window.interval_s) < 1e-9)
    combo = window.chrome.interval_combo
    index = combo.findData(window.interval_s)
    if index < 0:  # an interval from --interval that is not one of the choices
        combo.addItem(_t("%1 s").replace("%1", f"{window.interval_s:g}"), window.interval_s)
        index = combo.count() - 1
    if index != combo.currentIndex():
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)


def about_text(window: ChromeHost) -> str:
    import numpy
    import pyqtgraph
    import PySide6

    system = window.state.system
    lines = [
        f"gpuprof {__version__}",
        _t("A desktop GPU profiler, microbenchmarks and cloud recommender."),
        "",
        f"Python {platform.python_version()} · Qt {PySide6.QtCore.qVersion()} · "
        f"PySide6 {PySide6.__version__} · pyqtgraph {pyqtgraph.__version__} · "
        f"numpy {numpy.__version__}",
        _t("NVIDIA driver %1 · CUDA %2 · NVML %3")
        .replace("%1", system.driver_version or NA)
        .replace("%2", system.cuda_driver_version or NA)
        .replace("%3", system.nvml_version or NA),
        _t("Source: %1").replace("%1", str(getattr(window.source, "label", NA))),
    ]
    return "\n".join(lines)


def show_about(window: ChromeHost) -> QMessageBox:
    box = QMessageBox(window.widget())
    box.setWindowTitle(_t("About gpuprof"))
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(about_text(window))
    box.setIcon(QMessageBox.Icon.Information)
    box.open()  # not exec(): never blocks the redraw timer or a test
    return box


def save_screenshot(window: ChromeHost, path: str | Path | None, what: str) -> Path | None:
    """File → Save screenshot (Ctrl+S / Ctrl+Shift+S): ``what`` is "window" or "tab"."""
    if path is None:
        default = Path(window.settings.last_dir or ".") / f"gpuprof-{window.current_tab_name()}.png"
        chosen, _ = QFileDialog.getSaveFileName(
            window.widget(), _t("Save screenshot"), str(default), _t("PNG images (*.png)")
        )
        if not chosen:
            return None
        path = chosen
    out = Path(path)
    try:
        write_png(window.grab_image(what), out)
    except GpuprofError as exc:
        # A slot must not raise (the user would see nothing): say it, naming the file.
        show_error(window, _t("Save screenshot"), str(exc))
        return None
    window.statusBar().showMessage(_t("Saved %1").replace("%1", str(out)), 5000)
    return out


def show_error(window: ChromeHost, title: str, message: str) -> QMessageBox:
    """A warning box (not modal-blocking: ``open()``, so no timer or test waits on it) and the
    same line in the status bar."""
    window.statusBar().showMessage(message, 10000)
    box = QMessageBox(window.widget())
    box.setWindowTitle(title)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(message)
    box.open()
    return box


def set_language(window: ChromeHost, code: str) -> None:
    """View → Language: remembered, used from the next start (texts are made once)."""
    window.settings.language = code
    for a in window.chrome.choices("language"):
        a.setChecked(a.data() == code)
    window.statusBar().showMessage(_t("The language changes at the next start of gpuprof"), 8000)
