"""View → Pause (Ctrl+P) follows the real pause state across a source switch: opening a
recording or connecting to an exporter resumes the plots, and unchecks Pause with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.ui_fixtures import polls

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _pause(w: Any) -> None:
    w.action("view.pause").trigger()  # what Ctrl+P does
    assert w.state.paused and w.state.view_end_s is not None
    assert w.action("view.pause").isChecked() and w.telemetry.pause_button.isChecked()


def _resumed_and_pausable(w: Any) -> None:
    assert not w.state.paused and w.state.view_end_s is None
    assert not w.action("view.pause").isChecked()
    assert not w.telemetry.pause_button.isChecked()
    assert w.telemetry.pause_button.text() == "Pause"
    w.action("view.pause").trigger()  # the next Ctrl+P pauses again
    assert w.state.paused and w.action("view.pause").isChecked()


def test_opening_a_recording_after_pause_unchecks_pause(make_window: Any, tmp_path: Path) -> None:
    w = make_window(n_gpus=2)
    out = tmp_path / "run.gpuprof"
    w.feature("recording").start(out)
    polls(w, 3)
    w.feature("recording").stop()
    _pause(w)
    w.open_recording(out)
    _resumed_and_pausable(w)


def test_connecting_elsewhere_after_pause_unchecks_pause(make_window: Any, qtbot: Any) -> None:
    from gpuprof.ui.telemetry.connect_dialog import ConnectDialog
    from PySide6.QtGui import QAction

    from gpuprof.exporter import Exporter
    from gpuprof.telemetry.remote import RemoteSource
    from gpuprof.telemetry.sources import SimulatedSource

    exporter = Exporter(SimulatedSource.demo(), port=0).start()  # 127.0.0.1
    try:
        w = make_window()
        polls(w, 2)
        _pause(w)
        w.findChild(QAction, "connectAction").trigger()
        dialog = w.findChild(ConnectDialog)
        dialog.url.setText(exporter.url.removesuffix("/metrics"))
        dialog.try_connect()
        qtbot.waitUntil(lambda: isinstance(w.source, RemoteSource), timeout=10000)
        _resumed_and_pausable(w)
    finally:
        exporter.stop()
