"""Closing Export report… hands the freed preview back to the OS (glibc's malloc_trim): each
opening left its pages in glibc's arenas otherwise (perf/soak.py ``--report-every``)."""

from __future__ import annotations

import ctypes
import sys

import pytest

pytest.importorskip("PySide6")

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_trim_heap_calls_malloc_trim_where_libc_has_it(monkeypatch) -> None:
    from gpuprof.ui import report_dialog

    calls: list[int] = []

    class Libc:
        def malloc_trim(self, pad: int) -> int:
            calls.append(pad)
            return 1

    monkeypatch.setattr(report_dialog.sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", lambda _name: Libc())
    assert report_dialog.trim_heap() is True and calls == [0]


def test_trim_heap_is_a_no_op_elsewhere(monkeypatch) -> None:
    from gpuprof.ui import report_dialog

    monkeypatch.setattr(ctypes, "CDLL", lambda _name: object())  # a libc without malloc_trim
    assert report_dialog.trim_heap() is False

    def broken(_name: str) -> None:
        raise OSError("no libc")

    monkeypatch.setattr(ctypes, "CDLL", broken)
    assert report_dialog.trim_heap() is False
    monkeypatch.setattr(report_dialog.sys, "platform", "darwin")
    assert report_dialog.trim_heap() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_closing_the_dialog_trims_once_the_preview_is_gone(make_window, qtbot, monkeypatch) -> None:
    from gpuprof.ui import report_dialog

    trims: list[bool] = []
    monkeypatch.setattr(report_dialog, "trim_heap", lambda: trims.append(True) or True)
    w = make_window(size=None)
    w.poll_now()
    w.export_report_action.trigger()
    dialog = w.report_dialog
    assert dialog._doc is not None
    dialog.reject()
    assert dialog._doc is None and trims == []  # not before the deferred delete has run
    qtbot.waitUntil(lambda: trims == [True], timeout=5000)
