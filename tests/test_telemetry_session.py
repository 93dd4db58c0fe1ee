"""TelemetrySession: one source, sampler, History, recording and replay, and its clients."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from gpuprof.telemetry.model import SourceKind
from gpuprof.telemetry.session import MINIMAL_HISTORY, ProcessLedger, TelemetrySession
from gpuprof.telemetry.sources import ReplaySource
from gpuprof.telemetry.store import SessionStore
from tests.ui_fakes import FakeSource, ManualSampler


def _manual(source, **kw) -> TelemetrySession:
    return TelemetrySession(source, sampler_factory=ManualSampler, **kw)


def test_subscribers_get_every_snapshot_and_a_failing_one_does_not_stop_the_others():
    session = _manual(FakeSource(2))
    got: list[float] = []

    def broken(_snap):
        raise RuntimeError("subscriber bug")

    session.subscribe(broken)
    unsubscribe = session.subscribe(lambda s: got.append(s.time_s))
    for _ in range(3):
        session.poll_once()
    assert got == [1.7e9 + 1, 1.7e9 + 2, 1.7e9 + 3]
    assert len(session.history) == 3
    unsubscribe()
    session.poll_once()
    assert len(got) == 3 and len(session.history) == 4
    session.close()


def test_history_is_sized_by_the_client():
    session = _manual(FakeSource(1), history_capacity=MINIMAL_HISTORY)
    for _ in range(40):
        session.poll_once()
    assert session.history.capacity == MINIMAL_HISTORY
    assert len(session.history) == MINIMAL_HISTORY
    assert session.history.time_range() == (1.7e9 + 25, 1.7e9 + 40)
    session.close()


def test_recording_through_the_session(tmp_path: Path):
    session = _manual(FakeSource(2))
    states = []
    session.subscribe_state(states.append)
    out = session.start_recording(tmp_path / "r.gpuprof")
    assert session.recording and states[-1].recording_path == out
    for _ in range(5):
        session.poll_once()
    assert session.stop_recording() == out
    assert not session.recording and states[-1].recording_path is None
    session.poll_once()  # not recorded
    with SessionStore.open(out) as store:
        assert store.count() == 5
    # An existing file is refused without overwrite, and nothing is recording after.
    with pytest.raises(Exception, match="exists"):
        session.start_recording(out)
    assert not session.recording
    session.close()


def test_close_stops_a_recording_and_closes_the_source(tmp_path: Path):
    src = FakeSource(1)
    session = _manual(src)
    out = session.start_recording(tmp_path / "c.gpuprof")
    session.poll_once()
    session.close()
    assert src.closed and session.closed and not session.recording
    assert not Path(str(out) + "-wal").exists()
    with SessionStore.open(out) as store:
        assert store.count() == 1
    session.close()  # idempotent


def test_close_is_bounded_when_a_poll_hangs_in_the_driver():
    gate = threading.Event()
    src = FakeSource(1, block=gate)
    session = TelemetrySession(src, interval_s=0.1)
    session.start()
    try:
        time.sleep(0.2)  # the sampler thread is now stuck in poll()
        t0 = time.monotonic()
        session.close(timeout_s=0.5)
        elapsed = time.monotonic() - t0
        assert elapsed < 1.0, f"close() took {elapsed:.2f} s"
        assert src.closed
    finally:
        gate.set()


def test_set_source_closes_the_old_one_and_restarts_the_same_history():
    old, new = FakeSource(2), FakeSource(3)
    session = _manual(old)
    session.poll_once()
    history, sampler, generation = session.history, session.sampler, session.generation
    session.set_source(new, start=False)
    assert old.closed and not new.closed
    # One History and one Sampler for the session's whole life; the generation says it restarted.
    assert session.source is new and session.history is history and session.sampler is sampler
    assert session.generation == generation + 1 and len(session.history) == 0
    assert session.history.gpu_indices == ()  # the old source's GPUs are gone
    assert len(session.poll_once().gpus) == 3 and session.history.gpu_indices == (0, 1, 2)
    session.close()


def test_prefill_puts_the_past_first_and_keeps_the_live_snapshots_in_order():
    src = FakeSource(1)
    session = _manual(src)
    session.begin_prefill()
    live = [session.poll_once() for _ in range(3)]
    past_src = FakeSource(1)
    past_src.t = 1.7e9 - 100
    past = [past_src.poll() for _ in range(50)]
    assert session.prefill_pending
    session.prefill(past)
    assert not session.prefill_pending
    t = session.history.gpu_series(0, "util_gpu_pct")[0]
    assert len(t) == 53 and np.all(np.diff(t) > 0)
    assert t[-1] == live[-1].time_s
    session.poll_once()  # the sampler feeds the same History
    assert len(session.history) == 54 and session.sampler.history is session.history
    session.close()


def test_prefill_keeps_the_newest_poll_even_before_its_subscribers_ran():
    """A poll lands in History, then the swap happens before its callback: it is not lost."""
    session = _manual(FakeSource(1))
    session.begin_prefill()
    snap = session.source.poll()
    session.history.append(snap)  # what the sampler does before notifying the subscribers
    session.prefill([])
    assert session.history.time_range() == (snap.time_s, snap.time_s)
    session.close()


def _recording(tmp_path: Path, seconds: int) -> Path:
    session = _manual(FakeSource(1))
    out = session.start_recording(tmp_path / "rec.gpuprof")
    for _ in range(seconds + 1):
        session.poll_once()
    session.close()
    return out


def test_replay_control(tmp_path: Path):
    out = _recording(tmp_path, 20)
    clock = [0.0]
    src = ReplaySource(out, clock=lambda: clock[0])
    session = _manual(src)
    states = []
    session.subscribe_state(states.append)
    assert session.replay_state() is not None and session.replay_state().playing
    session.set_speed(2.0)
    clock[0] = 3.0
    assert session.replay_state().position_s == pytest.approx(6.0)
    session.poll_once()
    session.pause()
    assert session.sampler.paused and not session.replay_state().playing
    # A seek while paused restarts History there and shows the new position at once.
    before = len(session.history)
    assert before == 1
    session.seek(15.0)
    assert len(session.history) == 1
    assert session.history.latest().time_s == pytest.approx(1.7e9 + 1 + 15, abs=1)
    clock[0] = 100.0
    assert session.replay_state().position_s == pytest.approx(15.0)
    session.play()
    assert not session.sampler.paused
    clock[0] = 110.0
    assert session.replay_state().finished
    session.play()  # from the end: starts over
    assert session.replay_state().position_s == pytest.approx(0.0)
    assert {s.replay.speed for s in states if s.replay} == {2.0}
    session.close()


def test_replay_control_is_a_no_op_on_a_live_source():
    session = _manual(FakeSource(1))
    session.pause()
    session.seek(10.0)
    session.play()
    assert session.replay_state() is None and not session.sampler.paused
    assert session.state().source_kind is SourceKind.SIMULATED
    session.close()


def test_report_span_follows_the_report_window():
    session = _manual(FakeSource(1))
    assert session.report_span() is None
    for _ in range(100):
        session.poll_once()
    assert session.report_span() == (1.7e9 + 1, 1.7e9 + 100)
    session.report_window_s = 10.0
    assert session.report_span() == (1.7e9 + 90, 1.7e9 + 100)
    session.close()


def test_process_ledger_keeps_the_peak_memory_and_is_bounded():
    session = _manual(FakeSource(2))
    for _ in range(3):
        session.poll_once()
    rows = {(r.sample.pid, r.sample.gpu_index): r for r in session.processes.rows()}
    assert set(rows) == {(4242, 0), (1001, 1), (777, 1)}
    assert rows[(4242, 0)].first_s == 1.7e9 + 1 and rows[(4242, 0)].last_s == 1.7e9 + 3
    session.close()

    from gpuprof.telemetry.model import HostSample, ProcessSample, Snapshot

    def snap(t: float, *procs: ProcessSample) -> Snapshot:
        return Snapshot(time_s=t, source=SourceKind.NVML, host=HostSample(), processes=procs)

    ledger = ProcessLedger(max_processes=2)
    for k, mem in enumerate((5, 9, 7)):
        ledger.add(snap(float(k), ProcessSample(1, 0, gpu_mem_bytes=mem)))
    assert ledger.rows()[0].gpu_mem_max_bytes == 9
    for pid in (2, 3):
        ledger.add(snap(5.0 + pid, ProcessSample(pid, 0)))
    assert [r.sample.pid for r in ledger.rows()] == [2, 3]  # pid 1 was the least recent
    assert [r.sample.pid for r in ledger.rows(t0=7.5)] == [3]


def test_a_failing_write_stops_the_recording_once_and_keeps_the_file(tmp_path: Path):
    import sqlite3

    session = _manual(FakeSource(1))
    states = []
    session.subscribe_state(states.append)
    out = session.start_recording(tmp_path / "full.gpuprof")
    for _ in range(3):
        session.poll_once()
    rec = session.recording
    assert rec is not None
    rec.store.flush()
    calls = []

    def full(snap):
        calls.append(snap)
        raise sqlite3.OperationalError("database or disk is full")

    rec.store.append = full
    for _ in range(5):
        session.poll_once()  # History and the subscribers go on
    assert len(calls) == 1  # stopped at the first failure, not retried per sample
    assert not session.recording and session.recording_path is None
    assert session.recording_error == "OperationalError: database or disk is full"
    assert isinstance(rec.exception, sqlite3.OperationalError) and not rec.active
    assert session.last_error == "recording failed: OperationalError: database or disk is full"
    assert states[-1].recording_error == session.recording_error
    assert len(session.history) == 8
    with SessionStore.open(out) as store:
        assert store.count() == 3
    session.close()
