"""pytest fixtures for the main window: ``settings`` (a private INI) and ``make_window``.

A plugin (see ``conftest.py``), so every UI test file builds its window the same way. Qt is
imported inside the fixtures only: non-UI tests never load it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuprof.catalog.instances import Catalog, load_catalog
from tests.ui_fakes import FakeSource, ManualSampler


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    from gpuprof.ui.shell.settings import UiSettings

    return UiSettings(tmp_path / "ui.ini")


@pytest.fixture
def make_window(qtbot: Any, settings: Any) -> Iterator[Callable[..., Any]]:
    """``make_window(source=None, *, n_gpus=2, tab=None, ...)``: a shown MainWindow on a fake
    source, polled by hand (``ManualSampler``), once it has read the static facts; closed after
    the test."""
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.main_window import MainWindow

    make_app()
    windows: list[Any] = []

    def make(
        source: Any = None,
        *,
        n_gpus: int = 2,
        sampler_factory: Any = ManualSampler,
        size: tuple[int, int] | None = (1600, 1000),
        ui_settings: Any = None,
        tab: str | None = None,
        **kwargs: Any,
    ) -> Any:
        src = source if source is not None else FakeSource(n_gpus)
        s = ui_settings or settings
        if tab:
            s.tab = tab
        w = MainWindow(src, settings=s, sampler_factory=sampler_factory, **kwargs)
        qtbot.addWidget(w)
        if size is not None:
            w.resize(*size)
        w.show()
        qtbot.waitUntil(lambda: w.state.system.hostname != "", timeout=5000)
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()


def polls(w: Any, n: int) -> None:
    """Poll the window's source ``n`` times (each snapshot is delivered as a live one)."""
    for _ in range(n):
        w.poll_now()


@functools.cache
def shipped_catalog() -> Catalog:
    """The shipped catalog without the user's overlays, read once per test run (a Recommend
    tab's ``catalog_loader``)."""
    return load_catalog(overlays=False)


@pytest.fixture
def make_recommend_tab(qtbot: Any, tmp_path: Path) -> Callable[..., Any]:
    """``make_recommend_tab(ini=None, *, size=(1600, 1000), **kwargs)``: a RecommendTab over
    :func:`shipped_catalog` keeping its settings in the INI file ``ini`` (default
    ``tmp_path/ui.ini``), resized to ``size`` (None: not resized); ``kwargs`` go to the tab."""
    from gpuprof.ui.recommend.tab import RecommendTab
    from gpuprof.ui.shell.app import make_app
    from PySide6.QtCore import QSettings

    make_app()

    def make(
        ini: Path | None = None, *, size: tuple[int, int] | None = (1600, 1000), **kwargs: Any
    ) -> Any:
        kwargs.setdefault("catalog_loader", shipped_catalog)
        path = str(ini or tmp_path / "ui.ini")
        kwargs.setdefault("settings", QSettings(path, QSettings.Format.IniFormat))
        tab = RecommendTab(**kwargs)
        qtbot.addWidget(tab)
        if size is not None:
            tab.resize(*size)
        return tab

    return make


@pytest.fixture
def tab(make_recommend_tab: Callable[..., Any]) -> Any:
    """The Recommend tab as :func:`make_recommend_tab` makes it by default: the ``tab`` of the
    Recommend tab's test modules (a module testing another tab defines its own ``tab``)."""
    return make_recommend_tab()


def serving_form(tab: Any) -> None:
    """A Recommend tab's form set for serving Llama-3-70B (custom preset, inference), its
    token, sample and traffic fields empty."""
    form = tab.form
    tab.select_preset("custom")
    tab.scenario.setCurrentIndex(tab.scenario.findData("inference"))
    form.model.setCurrentIndex(form.model.findData("llama-3-70b"))
    for edit in (tab.tokens, tab.samples, tab.throughput, form.rate):
        edit.setText("")
