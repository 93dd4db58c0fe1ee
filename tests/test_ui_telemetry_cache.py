"""The Telemetry tab's cached curve images: scrolled frames look like a fresh drawing."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.ui_fakes import FakeSource

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def window(make_window):
    w = make_window(FakeSource(1, dt_s=0.1))
    w.select_tab("telemetry")
    return w


def frame(w, polls: int = 1) -> None:
    from PySide6.QtWidgets import QApplication

    for _ in range(polls):
        w.poll_now()
    w.telemetry.refresh(force=True)
    QApplication.processEvents()


def pixels(w) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = w.telemetry.view.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    buf = np.frombuffer(image.constBits(), dtype=np.uint32, count=image.sizeInBytes() // 4)
    return buf.reshape(image.height(), image.bytesPerLine() // 4)[:, : image.width()].copy()


def unmatched(a: np.ndarray, b: np.ndarray) -> int:
    """Pixels of ``a`` that ``b`` has nowhere within one pixel (lines rasterized from another
    sub-pixel start may step one pixel apart; a misplaced or stale curve is far more)."""
    same = a == b
    h, w = a.shape
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx or dy:
                ya, yb = slice(max(0, -dy), h - max(0, dy)), slice(max(0, dy), h - max(0, -dy))
                xa, xb = slice(max(0, -dx), w - max(0, dx)), slice(max(0, dx), w - max(0, -dx))
                same[ya, xa] |= a[ya, xa] == b[yb, xb]
    return int((~same).sum())


GPU0 = 0xFF1F77B4  # gpu_colour(0), as a 32-bit RGB pixel


def crop(w, image: np.ndarray, key: str) -> np.ndarray:
    """The pixels of one plot's view box."""
    vb = w.telemetry.plots[key].item.getViewBox()
    r = w.telemetry.view.mapFromScene(vb.sceneBoundingRect()).boundingRect()
    return image[r.top() - 2 : r.bottom() + 3, r.left() - 2 : r.right() + 3]


# Raw samples over 1 min; min/max buckets of 6 samples over 10 min. The power ramp is smooth at
# any scale; the utilization saw-tooth is smooth only in the 1 min view (dense min/max data
# rasterizes differently at another sub-pixel phase, as any two frames of it do).
@pytest.mark.parametrize(
    "window_s,history,frames,keys", [(60, 400, 30, ("util", "power")), (600, 4000, 300, ("power",))]
)
@pytest.mark.slow
def test_scrolled_cache_matches_a_fresh_drawing(window, window_s, history, frames, keys):
    w = window
    w.set_time_window(window_s)
    frame(w, history)
    layers = {k: w.telemetry.plots[k].layer for k in keys}
    before = {k: layer.rebuild_count for k, layer in layers.items()}
    for _ in range(frames):  # 3 s / 30 s of new samples: buckets complete, the image scrolls
        frame(w)
    # The axes did not change: every frame reused the image.
    assert {k: layer.rebuild_count for k, layer in layers.items()} == before
    cached = pixels(w)
    for layer in layers.values():
        layer.invalidate()
    fresh = pixels(w)
    assert {k: layer.rebuild_count for k, layer in layers.items()} == {
        k: n + 1 for k, n in before.items()
    }
    for key in keys:
        a, b = crop(w, cached, key), crop(w, fresh, key)
        curve_px = int((b == GPU0).sum())
        assert curve_px > 300, key
        assert unmatched(a, b) + unmatched(b, a) <= 0.004 * curve_px, key


def test_reset_history_redraws_from_scratch(window):
    w = window
    w.set_time_window(60)
    frame(w, 300)
    layer = w.telemetry.plots["util"].layer
    count = layer.rebuild_count
    w.state.history.clear()
    frame(w, 50)
    assert layer.rebuild_count > count
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert len(x) == 50


def test_vector_output_gets_lines_not_an_image(window):
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    w = window
    w.set_time_window(60)
    frame(w, 100)
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    plot = w.telemetry.plots["power"].item
    gen.setViewBox(plot.sceneBoundingRect())
    painter = QPainter(gen)
    w.telemetry.view.scene().render(painter, plot.sceneBoundingRect(), plot.sceneBoundingRect())
    painter.end()
    svg = bytes(data).decode().lower()
    # The curve is a polyline in the GPU's colour (the cached path would be one big image).
    assert re.search(r'stroke="#1f77b4"[^>]*>\s*<polyline', svg)
    images = re.findall(r'<image[^>]*width="(\d+)" height="(\d+)"', svg)
    assert not [(w, h) for w, h in images if int(w) > 700 and int(h) > 60]  # axes only


@pytest.mark.slow
def test_plots_are_built_when_the_tab_is_first_shown(make_window):
    w = make_window(size=None)
    w.poll_now()
    w.apply_theme("dark")
    assert w.current_tab_name() == "overview" and not w.telemetry.is_built()
    w.select_tab("telemetry")
    assert w.telemetry.is_built()
    w.telemetry.refresh(force=True)
    # Built after the theme changed: it has the dark theme's colours.
    from gpuprof.ui.shell.theme import THEMES

    axis = w.telemetry.plots["util"].item.getAxis("left")
    assert axis.textPen().color().name() == THEMES["dark"].plot_fg
    assert (1, "util_gpu_pct") in w.telemetry.plots["util"].data
    w.close()


def test_a_growing_all_window_draws_directly_then_a_fixed_one_caches_again(window):
    w = window
    w.set_time_window(0)  # "All": the scale changes with every new sample
    frame(w, 200)
    layer = w.telemetry.plots["util"].layer
    count = layer.rebuild_count
    for _ in range(5):
        frame(w)
    assert layer.rebuild_count <= count + 1  # no image built for a frame it would not outlive
    assert (crop(w, pixels(w), "util") == GPU0).sum() > 300
    w.set_time_window(60)
    frame(w)
    count = layer.rebuild_count
    for _ in range(5):
        frame(w)
    assert layer.rebuild_count <= count + 1 and layer._image is not None


def test_earlier_history_merged_in_is_drawn(window):
    """The demo's history is made after the first frames and merged in before them (a
    prefill): the curves' last points are unchanged, but the image must get the earlier ones.
    It kept only what it had (the --demo screenshots showed empty plots but for NVLink, whose
    axis range happened to change)."""
    w = window
    w.set_time_window(60)
    frame(w, 100)  # 10 s of live samples, stroked into the image
    layers = {k: w.telemetry.plots[k].layer for k in ("util", "power")}
    start_s = w.state.history.time_range()[0]
    past_source = FakeSource(1, dt_s=0.1)
    past_source.t = start_s - 35.0
    w.prefill([past_source.poll() for _ in range(300)])  # 30 s before the live ones
    frame(w)
    cached = pixels(w)
    for layer in layers.values():
        layer.invalidate()
    fresh = pixels(w)
    for key in layers:
        a, b = crop(w, cached, key), crop(w, fresh, key)
        curve_px = int((b == GPU0).sum())
        assert curve_px > 300, key
        assert unmatched(a, b) + unmatched(b, a) <= 0.004 * curve_px, key
