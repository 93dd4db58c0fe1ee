"""The window holds its TelemetrySession and reads the session's one History (issue 25): no
mirror to re-sync, and the session's generation is what makes the tabs redraw after a reset."""

from __future__ import annotations

import pytest

from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls


def test_a_new_source_restarts_the_one_history_the_window_reads(make_window, qtbot):
    w = make_window(FakeSource(2))
    history, sampler = w.session.history, w.session.sampler
    polls(w, 5)
    assert w.state.history is history and len(history) == 5
    before = w.state.generation
    w.set_source(FakeSource(3), autostart=False)
    qtbot.waitUntil(lambda: len(w.state.devices) == 3, timeout=5000)
    assert w.session.history is history and w.state.history is history
    assert w.session.sampler is sampler and len(history) == 0
    assert w.state.generation[0] == before[0] + 1 == w.session.generation
    polls(w, 2)
    assert len(w.state.history) == 2 and w.state.history.gpu_indices == (0, 1, 2)


@pytest.mark.slow  # builds the Telemetry tab's plots
def test_a_prefill_redraws_the_shown_tab_without_a_new_snapshot(make_window, qtbot):
    w = make_window(FakeSource(2), tab="telemetry")
    polls(w, 3)
    w.refresh_visible(force=True)
    drawn, count = w.telemetry.redraw_count, w.snapshot_count
    past = FakeSource(2)
    past.t = 1.7e9 - 200
    w.session.begin_prefill()
    w.prefill([past.poll() for _ in range(100)])
    qtbot.waitUntil(lambda: w.telemetry.redraw_count > drawn, timeout=5000)
    assert w.snapshot_count == count and len(w.state.history) == 103
    x, _ = w.telemetry.plots["util"].data[(0, "util_gpu_pct")]
    assert x.min() < -100  # the past is drawn
