"""One registry of report renderers, read by ``gpuprof report`` and File → Export report….

The core registers HTML and JSON. PDF is drawn by Qt (``QPdfWriter``), so the core never imports
it: the front end injects it. ``gpuprof.cli`` (the entry point, which also starts the app)
registers the Qt renderer lazily, and ``gpuprof.ui.report.pdf`` registers itself when imported.
A PNG is a screenshot of the app, not a rendering of the report model: the entry point injects
the function that takes it (:func:`set_app_screenshot`).

Factories are called on first use, so registering costs no import.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr

if TYPE_CHECKING:  # the report model is only needed once a report is written: every CLI
    # command registers the front ends here at start-up
    from gpuprof.report.model import Report

__all__ = [
    "Renderer",
    "app_screenshot",
    "formats",
    "register",
    "renderer",
    "set_app_screenshot",
]


@dataclass(frozen=True)
class Renderer:
    """Writes a report as one format: ``write(report, path, **options) -> path``.

    ``options`` are format-specific (``paper="a4"|"letter"`` for PDF); others are ignored.
    """

    fmt: str
    extension: str
    binary: bool
    write: Callable[..., Path]


RendererFactory = Callable[[], Renderer]
_FACTORIES: dict[str, RendererFactory] = {}
_LOADED: dict[str, Renderer] = {}
_APP_SCREENSHOT: list[Callable[[argparse.Namespace], int]] = []


def register(fmt: str, factory: RendererFactory) -> None:
    """Make ``fmt`` available; ``factory()`` builds the renderer on first use (it may raise
    ImportError when what it needs is missing from this build)."""
    _FACTORIES[fmt] = factory
    _LOADED.pop(fmt, None)


def formats() -> tuple[str, ...]:
    """The formats registered so far, sorted."""
    return tuple(sorted(_FACTORIES))


def renderer(fmt: str) -> Renderer:
    """The renderer of ``fmt``; :class:`InputError` with the reason when it is not available."""
    loaded = _LOADED.get(fmt)
    if loaded is not None:
        return loaded
    factory = _FACTORIES.get(fmt)
    try:
        if factory is None:
            if fmt != "pdf":
                raise ValueError(f"no report renderer for {fmt!r}; registered: {formats()}")
            raise ImportError("no PDF renderer was registered")
        made = factory()
    except ImportError as exc:
        if fmt == "pdf":
            raise InputError(
                tr(
                    "PDF needs the desktop app's Qt (PySide6), which this build lacks: {e}; "
                    "write .html and print it to PDF instead",
                    e=exc,
                )
            ) from None
        raise
    _LOADED[fmt] = made
    return made


def set_app_screenshot(take: Callable[[argparse.Namespace], int]) -> None:
    """Inject the app's screenshot taker (``gpuprof.ui.shell.app.run_app`` with ``--screenshot``)."""
    _APP_SCREENSHOT[:] = [take]


def app_screenshot() -> Callable[[argparse.Namespace], int]:
    """The injected screenshot taker; :class:`InputError` when no front end provided one."""
    if not _APP_SCREENSHOT:
        raise InputError(
            tr(
                "PNG screenshots need the desktop app, which this build lacks: {e}",
                e="no front end registered one",
            )
        )
    return _APP_SCREENSHOT[0]


def _html() -> Renderer:
    from gpuprof.report.html import write_html

    def write(report: Report, path: str | Path, **_options: Any) -> Path:
        return write_html(report, path)

    return Renderer("html", ".html", False, write)


def _json() -> Renderer:
    from gpuprof.report.json import write_json

    def write(report: Report, path: str | Path, **_options: Any) -> Path:
        return write_json(report, path)

    return Renderer("json", ".json", False, write)


register("html", _html)
register("json", _json)
