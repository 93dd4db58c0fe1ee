"""The main window's actions, menus, toolbar, About box and screenshot saving.

Each action carries its shortcut and a tooltip that names it; :func:`make_actions` sets them as
attributes of the window (``window.open_action``, ``window.pause_action``, ...), which
:func:`make_menus_and_toolbar` then lays out.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof import __version__
from gpuprof.errors import GpuprofError
from gpuprof.i18n import LANGUAGES
from gpuprof.units import NA
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QFileDialog, QLabel, QMessageBox, QToolBar

from .check_tab import add_check_tab
from .compare_dialog import compare_action
from .connect_dialog import connect_action
from .fleet_tab import fleet_action
from .png import write_png
from .profile_status import JobProfiles
from .settings import INTERVALS_S, TIME_WINDOWS_S
from .telemetry_tab import time_window_label

if TYPE_CHECKING:
    from .main_window import MainWindow

__all__ = [
    "about_text",
    "make_actions",
    "make_menus_and_toolbar",
    "save_screenshot",
    "set_language",
    "show_about",
    "show_error",
    "sync_interval_controls",
]


def _t(text: str) -> str:
    return QCoreApplication.translate("MainWindow", text)


def make_actions(window: MainWindow) -> None:
    """The window's actions (with their shortcuts), as attributes of ``window``."""

    def action(
        text: str,
        slot: Callable[..., Any],
        shortcut: str | QKeySequence.StandardKey | None,
        tip: str,
        checkable: bool = False,
    ) -> QAction:
        a = QAction(text, window)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        a.setToolTip(tip)
        a.setStatusTip(tip)
        a.setCheckable(checkable)
        (a.toggled if checkable else a.triggered).connect(slot)
        window.addAction(a)
        return a

    window.open_action = action(
        _t("&Open recording…"),
        lambda: window.open_recording(),
        QKeySequence.StandardKey.Open,
        _t("Replay a recorded session (Ctrl+O)"),
    )
    window.record_action = window.recorder.action
    window.jobs = JobProfiles(window)  # File → Profile a command… / Job profiles…
    window.save_window_action = action(
        _t("Save screenshot of the &window…"),
        lambda: window.save_screenshot(what="window"),
        "Ctrl+S",
        _t("Save the whole window as PNG (Ctrl+S)"),
    )
    window.save_tab_action = action(
        _t("Save screenshot of the current &tab…"),
        lambda: window.save_screenshot(what="tab"),
        "Ctrl+Shift+S",
        _t("Save the current tab as PNG (Ctrl+Shift+S)"),
    )
    window.copy_action = action(
        _t("&Copy screenshot"),
        window.copy_screenshot,
        "Ctrl+Shift+C",
        _t("Copy the window to the clipboard (Ctrl+Shift+C)"),
    )
    window.quit_action = action(
        _t("&Quit"),
        window.close,
        QKeySequence.StandardKey.Quit,
        _t("Close gpuprof (Ctrl+Q)"),
    )
    window.pause_action = action(
        _t("&Pause plots"),
        window.set_paused,
        "Ctrl+P",
        _t("Freeze the plots; sampling goes on (Ctrl+P)"),
        checkable=True,
    )
    window.about_action = action(
        _t("&About gpuprof"),
        window.show_about,
        "F1",
        _t("Versions of gpuprof, Qt, the driver and CUDA (F1)"),
    )

    def choices(items: Any, checked: Any, slot: Callable[[Any], None]) -> QActionGroup:
        """A group of exclusive checkable actions: ``items`` are (value, title, tip[, shortcut])."""
        group = QActionGroup(window)
        for value, title, tip, *shortcut in items:
            a = QAction(title, group)
            a.setCheckable(True)
            a.setData(value)
            a.setChecked(checked(value))
            a.setToolTip(tip)
            if shortcut:
                a.setShortcut(QKeySequence(shortcut[0]))
                window.addAction(a)
            a.triggered.connect(lambda _=False, v=value: slot(v))
        return group

    theme_tip = _t("Switch the colour theme (Ctrl+T toggles)")
    window.theme_actions = choices(
        [
            ("light", _t("&Light theme"), theme_tip),
            ("dark", _t("&Dark theme"), theme_tip),
        ],
        lambda name: name == window.theme.name,
        window.apply_theme,
    )
    window.toggle_theme_action = action(
        _t("Toggle theme"),
        lambda: window.apply_theme("dark" if window.theme.name == "light" else "light"),
        "Ctrl+T",
        _t("Switch between light and dark (Ctrl+T)"),
    )
    window.interval_actions = choices(
        [
            (
                s,
                _t("%1 s").replace("%1", f"{s:g}"),
                _t("Poll the GPUs every %1 s").replace("%1", f"{s:g}"),
            )
            for s in INTERVALS_S
        ],
        lambda s: abs(s - window.interval_s) < 1e-9,
        window.set_interval,
    )
    language_tip = _t("Language of the app; takes effect at the next start")
    window.language_actions = choices(
        [
            (code, title, language_tip)
            for code, title in (
                ("auto", _t("Automatic (from the system)")),
                *LANGUAGES.items(),
            )
        ],
        lambda code: code == window.settings.language,
        lambda code: set_language(window, code),
    )
    window.window_actions = choices(
        [
            (
                s,
                time_window_label(s),
                _t("Show this much history in the plots (Ctrl+%1)").replace("%1", str(n)),
                f"Ctrl+{n}",
            )
            for n, s in enumerate(TIME_WINDOWS_S, start=1)
        ],
        lambda s: s == window.state.time_window_s,
        window.set_time_window,
    )

    for n in range(1, 10):
        a = QAction(window)
        a.setShortcut(QKeySequence(f"Alt+{n}"))
        a.triggered.connect(
            lambda _=False, i=n - 1: (
                window.tabs.setCurrentIndex(i) if i < window.tabs.count() else None
            )
        )
        window.addAction(a)


def make_menus_and_toolbar(window: MainWindow) -> None:
    """File, View and Help menus and the main toolbar of ``window``."""
    add_check_tab(window.tabs)  # the lazy Check tab (main_window.py is at its size limit)
    bar = window.menuBar()
    file_menu = bar.addMenu(_t("&File"))
    file_menu.addAction(window.open_action)
    file_menu.addAction(connect_action(window))  # File → Connect… (another machine)
    file_menu.addAction(fleet_action(window))  # File → Connect to Prometheus… (a fleet)
    file_menu.addAction(window.record_action)
    file_menu.addAction(compare_action(window))  # File → Compare results… (many machines)
    file_menu.addSeparator()
    file_menu.addAction(window.jobs.profile_action)
    file_menu.addAction(window.jobs.list_action)
    file_menu.addSeparator()
    file_menu.addAction(window.save_window_action)
    file_menu.addAction(window.save_tab_action)
    file_menu.addAction(window.copy_action)
    file_menu.addSeparator()
    file_menu.addAction(window.quit_action)
    view_menu = bar.addMenu(_t("&View"))
    view_menu.addActions(window.theme_actions.actions())
    view_menu.addAction(window.toggle_theme_action)
    view_menu.addSeparator()
    interval_menu = view_menu.addMenu(_t("Sampling &interval"))
    interval_menu.addActions(window.interval_actions.actions())
    window_menu = view_menu.addMenu(_t("Time &window"))
    window_menu.addActions(window.window_actions.actions())
    view_menu.addAction(window.pause_action)
    view_menu.addSeparator()
    language_menu = view_menu.addMenu(_t("&Language"))
    language_menu.addActions(window.language_actions.actions())
    help_menu = bar.addMenu(_t("&Help"))
    help_menu.addAction(window.about_action)

    tools = QToolBar(_t("Main"), window)
    tools.setObjectName("mainToolbar")
    tools.setMovable(False)
    tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    tools.addAction(window.open_action)
    tools.addAction(window.record_action)
    tools.addAction(window.save_window_action)
    tools.addSeparator()
    tools.addAction(window.pause_action)
    interval_label = QLabel(_t(" Interval "), tools)
    window.interval_combo = QComboBox(tools)
    for seconds in INTERVALS_S:
        window.interval_combo.addItem(_t("%1 s").replace("%1", f"{seconds:g}"), seconds)
    sync_interval_controls(window)
    window.interval_combo.setToolTip(_t("Sampling interval"))
    interval_label.setToolTip(window.interval_combo.toolTip())
    window.interval_combo.currentIndexChanged.connect(
        lambda i: window.set_interval(float(window.interval_combo.itemData(i)))
    )
    tools.addWidget(interval_label)
    tools.addWidget(window.interval_combo)
    tools.addSeparator()
    tools.addAction(window.toggle_theme_action)
    window.addToolBar(tools)
    window.toolbar = tools


def sync_interval_controls(window: MainWindow) -> None:
    """Show ``window.interval_s`` in View → Sampling interval and in the toolbar's combo
    (without the combo's signal: whichever control made the choice, both show it)."""
    for a in window.interval_actions.actions():
        a.setChecked(abs(float(a.data()) - window.interval_s) < 1e-9)
    combo = getattr(window, "interval_combo", None)
    if combo is None:
        return
    index = combo.findData(window.interval_s)
    if index < 0:  # an interval from --interval that is not one of the choices
        combo.addItem(_t("%1 s").replace("%1", f"{window.interval_s:g}"), window.interval_s)
        index = combo.count() - 1
    if index != combo.currentIndex():
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)


def about_text(window: MainWindow) -> str:
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


def show_about(window: MainWindow) -> QMessageBox:
    box = QMessageBox(window)
    box.setWindowTitle(_t("About gpuprof"))
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(about_text(window))
    box.setIcon(QMessageBox.Icon.Information)
    box.open()  # not exec(): never blocks the redraw timer or a test
    return box


def save_screenshot(window: MainWindow, path: str | Path | None, what: str) -> Path | None:
    """File → Save screenshot (Ctrl+S / Ctrl+Shift+S): ``what`` is "window" or "tab"."""
    if path is None:
        default = Path(window.settings.last_dir or ".") / f"gpuprof-{window.current_tab_name()}.png"
        chosen, _ = QFileDialog.getSaveFileName(
            window, _t("Save screenshot"), str(default), _t("PNG images (*.png)")
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


def show_error(window: MainWindow, title: str, message: str) -> QMessageBox:
    """A warning box (not modal-blocking: ``open()``, so no timer or test waits on it) and the
    same line in the status bar."""
    window.statusBar().showMessage(message, 10000)
    box = QMessageBox(window)
    box.setWindowTitle(title)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(message)
    box.open()
    return box


def set_language(window: MainWindow, code: str) -> None:
    """View → Language: remembered, used from the next start (texts are made once)."""
    window.settings.language = code
    for a in window.language_actions.actions():
        a.setChecked(a.data() == code)
    window.statusBar().showMessage(_t("The language changes at the next start of gpuprof"), 8000)
