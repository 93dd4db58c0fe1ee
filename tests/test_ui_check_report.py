"""The Check tab and the app's Export report (issue 14, "In the app"): the last check is the
report's first page, a check file can be added, and closing the window stops a running check."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pytestqt")

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

DATA = Path(__file__).resolve().parent / "data" / "compare"


class SlowCheck:
    """A check that reports one item, then works until cancelled (or, ``stuck``, until
    ``release`` is set: a call hung in a driver)."""

    def __init__(self, *, stuck: bool = False) -> None:
        self.stuck = stuck
        self.release = threading.Event()
        self.started = threading.Event()
        self.ended = threading.Event()
        self.saw_cancel = False

    def make(self, **_kwargs: Any) -> tuple[Any, Any]:
        return self, lambda: None

    def run(self, on_progress: Any = None, on_item: Any = None, cancel: Any = None) -> Any:
        from gpuprof.check.model import CheckItem, CheckResult, Status
        from gpuprof.check.run import CheckProgress

        try:
            item = CheckItem(item_id="inventory", group="inventory", status=Status.PASS)
            on_progress(CheckProgress(0.1, "inventory"))
            on_item(item)
            self.started.set()
            deadline = time.monotonic() + 60.0
            while time.monotonic() < deadline:
                if self.stuck and self.release.wait(0.01):
                    break
                if not self.stuck and cancel.cancelled:
                    self.saw_cancel = True
                    break
                time.sleep(0.01)
            on_progress(CheckProgress(1.0, "done"))
            return CheckResult(
                level="quick",
                device="cpu",
                started_s=0.0,
                ended_s=1.0,
                items=(item,),
                cancelled=cancel.cancelled,
            )
        finally:
            self.ended.set()


def _check_tab(window: Any) -> Any:
    from gpuprof.ui.check.tab import CheckTab

    window.select_tab("check")
    tab = window.tabs.currentWidget()
    assert isinstance(tab, CheckTab)
    tab.device.setEditText("cpu")
    return tab


def test_closing_the_window_cancels_a_running_check(make_window: Any, qtbot: Any) -> None:
    window = make_window()
    tab = _check_tab(window)
    slow = SlowCheck()
    tab._make = slow.make
    assert tab.start()
    assert slow.started.wait(10.0)
    qtbot.waitUntil(lambda: tab.scorecard.rowCount() == 1, timeout=5000)
    window.close()
    # Bounded and synchronous: by the time close() returns, the thread has ended.
    assert slow.saw_cancel and slow.ended.is_set()
    assert not tab.worker.running


@pytest.mark.slow
def test_a_check_stuck_past_the_wait_is_detached_and_reports_nothing_more(
    make_window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window()
    tab = _check_tab(window)
    slow = SlowCheck(stuck=True)
    tab._make = slow.make
    errors: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    finished: list[Any] = []
    tab.worker.finished.connect(finished.append)
    assert tab.start()
    assert slow.started.wait(10.0)
    t0 = time.monotonic()
    window.close()
    assert time.monotonic() - t0 < 10.0  # bounded (2 s), however long the check hangs
    assert tab.worker.running  # still stuck: detached, not waited for
    slow.release.set()
    assert slow.ended.wait(10.0)
    qtbot.waitUntil(lambda: not tab.worker.running, timeout=5000)
    qtbot.wait(50)  # any queued signal would arrive now
    assert finished == [] and errors == []


def _fake_result() -> Any:
    from tests.test_report_check import _result

    return _result(hostname="node-17")


def test_export_report_opens_with_the_last_check(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window()
    window.poll_now()
    tab = _check_tab(window)
    window.action("file.export_report").trigger()
    dialog = window.feature("report").dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    assert dialog.report.check is None  # no check has run
    assert "acceptance check" not in dialog.preview.toPlainText()
    dialog.reject()

    assert not tab.export_report_button.isEnabled()
    tab._on_finished(_fake_result())  # as when a run ends
    assert tab.export_report_button.isEnabled()
    assert tab.open_report()  # the Check tab's button: the window's File → Export report…
    dialog = window.feature("report").dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    check = dialog.report.check
    assert check is not None and check.hostname == "node-17" and check.verdict == "WARN"
    text = dialog.preview.toPlainText()
    assert text.lstrip().startswith("GPU acceptance check (quick)")
    assert text.index("verdict: WARN") < text.index("At a glance")
    assert "verdict WARN" in dialog.check_label.text()
    dialog.cmdline_box.setChecked(True)  # the report is made again: the check stays
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    assert dialog.report.check == check
    html = dialog.save_to(tmp_path / "r.html").read_text("utf-8")
    assert html.index('id="verdict"') < html.index("At a glance")
    dialog.reject()


def test_a_check_file_can_be_added_and_a_bad_one_is_named(
    make_window: Any, qtbot: Any, tmp_path: Path
) -> None:
    window = make_window()
    window.poll_now()
    window.action("file.export_report").trigger()
    dialog = window.feature("report").dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gpuprof.check", "schema_version": 99, "items": []}')
    assert not dialog.load_check_file(bad)
    assert str(bad) in dialog.check_label.text() and "newer" in dialog.check_label.text()
    assert dialog.report.check is None
    assert dialog.load_check_file(DATA / "node-c.json")
    qtbot.waitUntil(lambda: not dialog.preview_pending, timeout=60_000)
    assert dialog.report.check is not None and dialog.report.check.hostname == "node-c"
    assert "node-c" in dialog.preview.toPlainText().split("At a glance")[0]
    assert not dialog.load_check_file(tmp_path / "missing.json")
    assert dialog.report.check.hostname == "node-c"  # a failed load keeps the last good one
    dialog.reject()
