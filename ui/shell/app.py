"""Start the desktop app, or render it headless for ``--screenshot``.

``gpuprof.cli`` calls :func:`run_app` when no sub-command is given. Only Qt and pyqtgraph are
imported here; torch never is (start-up stays under a second, DESIGN.md Known traps).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gpuprof.errors import GpuprofError, InputError, OutputError
from gpuprof.i18n import tr
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S

if TYPE_CHECKING:
    from gpuprof.telemetry.model import Snapshot
    from gpuprof.telemetry.simulated import SimulatedSource
    from gpuprof.telemetry.source import TelemetrySource
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication, QWidget

    from .main_window import MainWindow
    from .settings import UiSettings
    from .theme import Theme

__all__ = [
    "run_app",
    "make_app",
    "offscreen_app",
    "save_png",
    "build_window",
    "take_screenshot",
    "ORG_NAME",
    "APP_NAME",
]

ORG_NAME = "gpuprof"
APP_NAME = "gpuprof"
#: Extra seconds a screenshot waits for the first snapshot after ``--after`` ran out.
FIRST_DATA_GRACE_S = 15.0


#: Qt messages that say nothing about the app: the offscreen plugin warns on every window
#: with size constraints. Dropped by the handler :func:`run_app` installs (not in tests).
_NOISE = ("This plugin does not support propagateSizeHints",)


def _install_message_filter() -> None:
    import logging

    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    log = logging.getLogger("gpuprof.qt")
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind: QtMsgType, context: object, message: str) -> None:
        # Qt's own messages join gpuprof's log (stderr; everything with --debug).
        if any(message.startswith(n) for n in _NOISE):
            return
        log.log(levels.get(kind, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def _check_display() -> None:
    """Fail with a clear message instead of Qt's abort when a Linux session has no display."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise GpuprofError(
        tr(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a "
            "desktop session or with `ssh -X`, render headless with `gpuprof --screenshot OUT.png`, "
            "or use the terminal commands (`gpuprof --help`)"
        )
    )


def make_app(argv: list[str] | None = None) -> QApplication:
    """The QApplication (created once), with names set and pyqtgraph configured."""
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else [sys.argv[0]])
    app.setOrganizationName(ORG_NAME)
    app.setApplicationName(APP_NAME)
    _install_translator(app)
    import pyqtgraph as pg

    # Antialiasing doubles the paint time of dense curves; the min/max view keeps them legible.
    pg.setConfigOptions(antialias=False, useNumba=False, background="w", foreground="k")
    return cast(QApplication, app)  # instance() is typed QCoreApplication


def _install_translator(app: QCoreApplication) -> None:
    """Qt's ``tr()`` looks its texts up in gpuprof's catalog (:mod:`gpuprof.i18n`), once per app."""
    if getattr(app, "_gpuprof_translator", None) is not None:
        return
    from gpuprof.i18n import lookup
    from PySide6.QtCore import QTranslator

    class CatalogTranslator(QTranslator):
        def translate(
            self, context: str, source: str, disambiguation: str | None = None, n: int = -1
        ) -> str | None:
            return lookup(source)  # None: no translation, Qt shows the English text

        def isEmpty(self) -> bool:
            return False

    translator = CatalogTranslator(app)
    app.installTranslator(translator)
    app._gpuprof_translator = translator  # type: ignore[attr-defined]


def choose_language(args: argparse.Namespace, settings_language: str) -> str:
    """The app's language: ``--lang``, else ``GPUPROF_LANG``, else View → Language, else the
    locale. Set before any widget exists: texts are translated when they are made."""
    from gpuprof.i18n import set_language

    flag = getattr(args, "lang", None) or "auto"
    if flag == "auto" and not os.environ.get("GPUPROF_LANG") and settings_language != "auto":
        return set_language(settings_language)
    return set_language(flag)


def missing_font_warning() -> str | None:
    """A warning when the language in use needs a font this system lacks (Chinese shows as
    boxes without one); ``None`` when all is well. Call after :func:`make_app`."""
    from gpuprof.i18n import N_, bilingual, language
    from PySide6.QtGui import QFontDatabase

    if language() != "zh_CN":
        return None
    if QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese):
        return None
    # In both languages: where Chinese shows as boxes, the Chinese half cannot be read.
    return bilingual(
        N_(
            "no Chinese font is installed, so Chinese text shows as boxes; install one "
            "(e.g. `sudo apt install fonts-noto-cjk`) or start with `--lang en`"
        )
    )


def offscreen_app(theme: str = "light") -> tuple[QApplication, Theme]:
    """The QApplication on the offscreen platform (unless one is set) with ``theme`` applied:
    for rendering widgets to PNG without a display. Returns (app, the applied theme)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from .theme import apply_theme

    app = make_app()
    return app, apply_theme(app, theme)


def screenshot_parser(doc: str | None) -> argparse.ArgumentParser:
    """The arguments of every tab's screenshot script: ``OUT.png``, ``--size WxH`` (default
    1600x1000, read as a (width, height) pair) and ``--theme light|dark``."""
    from gpuprof.argtypes import window_size

    p = argparse.ArgumentParser(description=doc)
    p.add_argument("out", type=Path)
    p.add_argument("--size", type=window_size, default=(1600, 1000), metavar="WxH")
    p.add_argument("--theme", default="light", choices=("light", "dark"))
    return p


def save_png(widget: QWidget, out: Path) -> Path:
    """Render ``widget`` to the PNG ``out`` (its folder made if missing); ``OutputError``
    naming the file when it cannot be written."""
    from .png import write_png

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(tr("cannot write {p}: {e}", p=out, e=exc.strerror or exc)) from None
    return write_png(widget.grab(), out)


#: Seconds of simulated history a ``--demo`` window starts with, so the plots show a story,
#: and its step: the simulator costs milliseconds per poll, so the past is sampled every 2 s.
DEMO_PREFILL_S = 600.0
DEMO_PREFILL_STEP_S = 2.0


def demo_source(
    scenario: str = "h100x8", prefill_s: float = DEMO_PREFILL_S
) -> tuple[SimulatedSource, Callable[[], list[Snapshot]]]:
    """The demo's SimulatedSource (in its training phase now, looping its script for as long
    as it runs), and a function making its last ``prefill_s`` seconds.

    The past comes from a twin source on a stepped clock: same seed and start, so the live
    source continues the same script without a jump. All of it is SIMULATED. The function runs
    in a thread after the window is up (the simulator costs milliseconds per poll).
    """
    from gpuprof.telemetry.sources import SimulatedSource, demo_start_s

    now = time.time()
    start = demo_start_s(now, prefill_s)
    first = now - prefill_s

    n = int(prefill_s / DEMO_PREFILL_STEP_S)

    def make() -> list[Snapshot]:
        ticks = iter([first + k * DEMO_PREFILL_STEP_S for k in range(n)])
        twin = SimulatedSource(scenario, clock=lambda: next(ticks), start_s=start)
        try:
            return [twin.poll() for _ in range(n)]
        finally:
            twin.close()

    return SimulatedSource(scenario, start_s=start), make


def _open_source(
    args: argparse.Namespace,
) -> tuple[TelemetrySource, Callable[[], list[Snapshot]] | None]:
    from gpuprof.telemetry.sources import open_source

    if args.replay:  # the session reader names what is wrong: missing, a folder, corrupt
        return open_source(replay=str(args.replay)), None
    if getattr(args, "connect", None):  # one line naming the URL when it cannot be read
        return open_source(
            connect=args.connect,
            token_file=getattr(args, "token_file", None),
            ca_file=getattr(args, "ca_file", None),
        ), None
    if args.demo:
        return demo_source()
    return open_source(), None


def build_window(args: argparse.Namespace, *, settings: UiSettings | None = None) -> MainWindow:
    """The MainWindow for ``args`` (source, interval, tab); raises GpuprofError on bad input."""
    from .main_window import MainWindow

    interval = getattr(args, "interval", None)
    if interval is not None and not MIN_INTERVAL_S <= interval <= MAX_INTERVAL_S:
        raise InputError(
            tr(
                "--interval must be between {lo:g} and {hi:g} seconds, got {i:g}",
                lo=MIN_INTERVAL_S,
                hi=MAX_INTERVAL_S,
                i=interval,
            )
        )
    source, prefill = _open_source(args)
    try:
        window = MainWindow(source, settings=settings, interval_s=interval, autostart=False)
    except BaseException:
        source.close()
        raise
    if prefill is not None:
        window.prefill_async(prefill)
    window.start_sampling()
    from .heap import start_periodic_trim

    start_periodic_trim(window)  # owned by the window (object name "heap-trim")
    if getattr(args, "tab", None):
        try:
            window.select_tab(args.tab)
        except GpuprofError:
            window.close()
            raise
    return window


def take_screenshot(window: MainWindow, out: Path, size: tuple[int, int], after_s: float) -> int:
    """Show ``window`` at ``size``, collect ``after_s`` seconds of data, save a PNG; exit code."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    window.resize(*size)
    window.show()
    started = time.monotonic()
    result = {"code": 1}

    def attempt() -> None:
        waited = time.monotonic() - started
        waiting = window.state.latest is None or window.prefill_pending
        if waiting and waited < after_s + FIRST_DATA_GRACE_S:
            QTimer.singleShot(100, attempt)
            return
        image = window.grab_image("window")
        if image.width() != size[0] or image.height() != size[1]:
            # A window manager may refuse the size; offscreen never does. Scale to what was asked.
            image = image.scaled(size[0], size[1])
        if window.state.latest is None:
            print(
                tr(
                    "gpuprof: warning: no data arrived in {s:g} s; the screenshot shows none",
                    s=waited,
                ),
                file=sys.stderr,
            )
        from .png import write_png

        try:
            write_png(image, out)
            result["code"] = 0
        except GpuprofError as exc:
            print(f"gpuprof: error: {exc}", file=sys.stderr)
        window.close()
        if app is not None:
            app.quit()

    QTimer.singleShot(max(0, int(after_s * 1000)), attempt)
    assert app is not None
    app.exec()
    return result["code"]


def run_app(args: argparse.Namespace) -> int:
    """Open the main window (or render a screenshot headless); returns the exit code."""
    screenshot = getattr(args, "screenshot", None)
    if screenshot:
        out = Path(screenshot)
        if out.suffix.lower() != ".png":
            raise InputError(tr("--screenshot writes PNG; name the file *.png, got {p}", p=out))
        if out.parent and not out.parent.exists():
            raise InputError(tr("folder {p} does not exist", p=out.parent))
        # Headless: no display needed, whatever the environment says.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    else:
        _check_display()
    _install_message_filter()
    from .settings import UiSettings

    settings = None if screenshot else UiSettings()
    if settings is not None:
        choose_language(args, settings.language)
    app = make_app()
    warning = missing_font_warning()
    if warning:
        print(f"gpuprof: warning: {warning}", file=sys.stderr)
    if screenshot:
        # A throwaway settings file: a screenshot neither reads nor changes the user's choices.
        with tempfile.TemporaryDirectory(prefix="gpuprof-shot-") as tmp:
            window = build_window(args, settings=UiSettings(Path(tmp) / "ui.ini"))
            size = tuple(getattr(args, "size", None) or (1600, 1000))
            return take_screenshot(
                window,
                Path(screenshot),
                (int(size[0]), int(size[1])),
                float(getattr(args, "after", 3.0)),
            )
    window = build_window(args, settings=settings)
    window.show()
    return int(app.exec())
