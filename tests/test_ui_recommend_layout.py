"""The Recommend tab's layout at the window's default size, by geometry and by screenshot.

A screenshot that is written is not a screenshot that looks right: the tab once opened with a
~370 px blank band above its form (the "Update prices…" bar had grown to fill it), squeezing
the form, the table and the reasons, and every test passed. These tests measure the layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.faults.hostile import gpuprof_env

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

ROOT = Path(__file__).resolve().parents[1]
#: The most blank pixels allowed between two consecutive widgets, or above the first one.
MAX_GAP_PX = 24


def _span(widget: Any, tab: Any) -> tuple[int, int]:
    """``widget``'s top and bottom in ``tab``'s coordinates, px."""
    from PySide6.QtCore import QPoint

    top = widget.mapTo(tab, QPoint(0, 0)).y()
    return top, top + widget.height()


def vertical_gaps(tab: Any, widgets: list[Any]) -> list[tuple[int, str]]:
    """The blank vertical bands between ``widgets`` (their union, top to bottom) and above the
    first one: (height px, what is below it), largest first."""
    spans = sorted((*_span(w, tab), w.objectName() or type(w).__name__) for w in widgets)
    gaps = []
    reached = 0
    for top, bottom, name in spans:
        if top > reached:
            gaps.append((top - reached, name))
        reached = max(reached, bottom)
    return sorted(gaps, reverse=True)


def test_recommend_tab_layout_at_the_default_window_size(make_window, qtbot):
    from PySide6.QtWidgets import QApplication

    w = make_window(size=None)  # the window's own default size
    assert (w.width(), w.height()) == (1600, 1000)
    w.select_tab("recommend")
    tab = w.feature("recommend").widget()
    tab.run_now()
    QApplication.processEvents()
    height = tab.height()
    assert height > 700

    shown = [
        tab.prices.button,
        tab.form,
        tab.provider_filter,
        tab.fits_only,
        tab.summary,
        tab.table,
        tab.scatter,
        tab.details,
    ]
    assert all(x.isVisible() for x in shown)
    gaps = vertical_gaps(tab, shown)
    assert not gaps or gaps[0][0] <= MAX_GAP_PX, gaps
    # The price bar is one line; the form starts right under it.
    bar_top, bar_bottom = _span(tab.prices, tab)
    assert bar_bottom - bar_top <= tab.prices.sizeHint().height() + 2
    assert _span(tab.form, tab)[0] <= bar_bottom + MAX_GAP_PX
    # Each part gets its share of the height.
    assert tab.form.height() >= 0.85 * height
    assert tab.table.height() >= 0.3 * height
    assert tab.details.height() >= 0.25 * height
    assert tab.scatter.height() >= 0.25 * height


def longest_blank_band(path: Path) -> int:
    """The most consecutive pixel rows of the PNG at ``path`` that are one colour, px."""
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    assert not image.isNull(), path
    longest = run = 0
    for y in range(image.height()):
        first = image.pixel(0, y)
        blank = all(image.pixel(x, y) == first for x in range(0, image.width(), 3))
        run = run + 1 if blank else 0
        longest = max(longest, run)
    return longest


@pytest.mark.slow
def test_the_recommend_screenshot_has_no_blank_band(tmp_path):
    """The README's screenshot path (``gpuprof --demo --screenshot … --tab recommend``) at the
    default size: no band of one colour across the whole width."""
    out = tmp_path / "recommend.png"
    env = gpuprof_env(tmp_path)
    args = ["--demo", "--screenshot", str(out), "--tab", "recommend", "--after", "0.5"]
    done = subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert longest_blank_band(out) <= MAX_GAP_PX
