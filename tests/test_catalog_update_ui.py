"""The Recommend tab's "Update prices…": the download runs off the GUI thread with progress,
can be cancelled, and on success the tab ranks with the new catalog; on failure the old one
stays and the status line says why (naming the URL)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt

from gpuprof.catalog.instances import Catalog
from gpuprof.catalog.update import Fetched, UpdateCancelled
from gpuprof.errors import InputError
from tests.ui_fixtures import shipped_catalog

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def make_tab(make_recommend_tab: Any) -> Any:
    loads: list[int] = []

    def loader() -> Catalog:
        loads.append(1)
        return shipped_catalog()

    def make(update: Any) -> Any:
        tab = make_recommend_tab(size=None, catalog_loader=loader, price_update=update)
        tab.loads = loads
        return tab

    return make


def _click_update(qtbot: Any, tab: Any, until: str) -> int:
    """Load the catalog, click "Update prices…" and wait for ``until`` in the status line;
    returns how many times the catalog had been read before the click."""
    tab.catalog()
    before = len(tab.loads)
    qtbot.mouseClick(tab.prices.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: until in tab.prices.status.text(), timeout=5000)
    return before


def test_update_then_rank_with_the_new_catalog(qtbot: Any, make_tab: Any) -> None:
    gui = threading.get_ident()
    ran_in: list[int] = []

    def update(*, progress: Any, cancel: threading.Event) -> list[Fetched]:
        ran_in.append(threading.get_ident())
        progress("aws", 2048, 4096)
        return [Fetched("aws", "https://x/aws/vms.csv", Path("a.csv"), 7, 0, ())]

    tab = make_tab(update)
    before = _click_update(qtbot, tab, "Prices updated")
    assert "7 instances from 1 catalogs" in tab.prices.status.text()
    assert ran_in and ran_in[0] != gui  # off the GUI thread
    assert len(tab.loads) == before + 1  # the catalog is read again
    assert tab.prices.button.text() == "Update prices…"


def test_a_failed_update_keeps_the_prices_and_says_why(qtbot: Any, make_tab: Any) -> None:
    def update(**_: Any) -> list[Fetched]:
        raise InputError("https://x/gcp/vms.csv: HTTP 500 Internal Server Error")

    tab = make_tab(update)
    before = _click_update(qtbot, tab, "failed")
    assert "https://x/gcp/vms.csv: HTTP 500" in tab.prices.status.text()
    assert len(tab.loads) == before


def test_cancel(qtbot: Any, make_tab: Any) -> None:
    started = threading.Event()

    def update(*, progress: Any, cancel: threading.Event) -> list[Fetched]:
        started.set()
        if not cancel.wait(5):
            return []
        raise UpdateCancelled

    tab = make_tab(update)
    qtbot.mouseClick(tab.prices.button, Qt.MouseButton.LeftButton)
    assert started.wait(5) and tab.prices.button.text() == "Cancel"
    qtbot.mouseClick(tab.prices.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Cancelled" in tab.prices.status.text(), timeout=5000)
    assert tab.prices.worker.wait(5)
