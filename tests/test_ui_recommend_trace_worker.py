"""The Recommend tab never blocks on a request trace (issue 22): the simulation runs in a worker
thread with a progress bar and Cancel; the event loop keeps running meanwhile; an edit drops
the result of the old inputs; the last trace file chosen is remembered for the file picker."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.test_ui_recommend_trace import serve_trace, write_trace
from tests.ui_fixtures import serving_form

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.mark.slow
def test_the_window_stays_responsive_while_a_large_trace_simulates_and_cancel_stops_it(
    tab, tmp_path, qtbot
) -> None:
    from PySide6.QtCore import QTimer

    # 100,000 requests arriving far faster than the 1 request/s the replicas are sized for: the
    # queue builds up and the simulation runs for minutes of pure Python (until cancelled).
    serve_trace(tab, tmp_path / "big.csv", 100_000, gap_s=0.002)
    tab.form.rate.setText("1")
    ticks = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(tab.trace_worker is not None))
    rec = tab.run_now()  # returns at once: the ranking is shown, the trace simulates
    assert rec is not None and tab.recommendation is rec
    worker = tab.trace_worker
    assert worker is not None and worker.running
    assert not tab.trace_busy.isHidden() and tab.trace_results == []
    timer.start()
    # The GUI thread's event loop runs the timer (and the worker's progress) meanwhile.
    qtbot.waitUntil(
        lambda: ticks.count(True) >= 5 and tab.trace_progress.value() > 0, timeout=60_000
    )
    timer.stop()
    assert worker.running  # still simulating while the timer ran
    with qtbot.waitSignal(worker.cancelled, timeout=30_000):
        tab.trace_cancel.click()
    assert worker.wait(10)
    qtbot.waitUntil(lambda: tab.trace_worker is None)
    assert tab.trace_busy.isHidden() and tab.trace_results == []
    assert "cancelled" in tab.trace_view.text() and not tab.trace_view.isHidden()
    assert tab.recommendation is rec  # the ranking itself stays


class _Gate:
    """simulate_top held until released: a simulation whose end the test decides."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[object] = []

    def __call__(self, rec, trace, top=3, *, tick=None):
        self.calls.append(trace)
        self.release.wait(30)
        if tick is not None:
            tick(1.0)
        return [("row-of", trace.path)]


@pytest.fixture
def gate(monkeypatch) -> _Gate:
    """The trace worker's simulate_top held by a :class:`_Gate`."""
    from gpuprof.ui.recommend import trace_worker

    held = _Gate()
    monkeypatch.setattr(trace_worker, "simulate_top", held)
    return held


def test_a_result_of_inputs_since_edited_is_dropped(
    tab, tmp_path, qtbot, monkeypatch, gate
) -> None:
    from gpuprof.ui.recommend import trace_run

    monkeypatch.setattr(trace_run, "trace_results_text", lambda t, r: f"SIMULATED {r}")
    first = write_trace(tmp_path / "first.csv", 50)
    second = write_trace(tmp_path / "second.csv", 60)
    serving_form(tab)
    tab.form.trace.load(str(first))
    assert tab.run_now() is not None
    old = tab.trace_worker
    assert old is not None and old.running
    # The user picks another trace before the first finishes: the old run is cancelled and
    # whatever it still reports is dropped.
    tab.form.trace.load(str(second))
    assert tab.trace_worker is None and tab.trace_busy.isHidden()
    gate.release.set()
    assert old.wait(10)
    qtbot.wait(50)  # let anything the old worker sent be delivered
    assert tab.trace_results == [] and tab.trace_view.isHidden()
    # The new inputs' run gives the new result.
    with qtbot.waitSignal(tab.trace_simulated, timeout=10_000) as got:
        tab.run_now()
    assert got.args[0] == [("row-of", str(second))]
    assert tab.trace_results == [("row-of", str(second))]
    assert str(second) in tab.trace_view.text() and str(first) not in tab.trace_view.text()


def test_a_result_for_another_recommendation_is_not_applied(tab, tmp_path, qtbot, gate) -> None:
    serve_trace(tab, tmp_path / "t.csv", 50)
    assert tab.run_now() is not None
    worker = tab.trace_worker
    assert worker is not None
    tab.recommendation = None  # the inputs the worker had are no longer the ones shown
    gate.release.set()
    qtbot.waitUntil(lambda: tab.stale_traces == 1, timeout=10_000)
    assert tab.trace_results == [] and tab.trace_view.isHidden()


def test_the_last_trace_path_is_remembered_for_the_file_picker(
    make_recommend_tab, tmp_path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    ini = tmp_path / "ui.ini"
    tab = make_recommend_tab(ini)
    path = serve_trace(tab, tmp_path / "mine.csv", 20)
    tab.run_now()  # saves the form
    tab.cancel_trace()
    tab._settings.sync()
    again = make_recommend_tab(ini)
    assert again.form.trace.last_path == str(path)
    assert again.form.trace.trace is None  # not read again at start-up
    seen = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (seen.append(a[2]), ("", ""))[1]
    )
    again.form.trace.choose.click()
    assert seen == [str(path)]


def test_cancel_works_again_for_a_run_started_before_the_cancelled_one_ended(
    tab, tmp_path, qtbot, monkeypatch, gate
) -> None:
    from gpuprof.ui.recommend import trace_run

    monkeypatch.setattr(trace_run, "trace_results_text", lambda t, r: f"SIMULATED {r}")
    serve_trace(tab, tmp_path / "t.csv", 50)
    assert tab.run_now() is not None
    old = tab.trace_worker
    assert old is not None
    tab.trace_cancel.click()  # disabled until the run says it stopped...
    assert not tab.trace_cancel.isEnabled()
    tab.run_now()  # ...but a new run replaces it first: its Cancel must be usable
    new = tab.trace_worker
    assert new is not None and new is not old
    assert tab.trace_cancel.isEnabled()
    gate.release.set()
    assert old.wait(10) and new.wait(10)
    qtbot.waitUntil(lambda: tab.trace_worker is None, timeout=10_000)
