"""A recording on a full disk: the Recording reports its failure through its listener, once.

The disk is a real SQLite database that may not grow (``PRAGMA max_page_count`` at its current
size): SQLite answers ``database or disk is full`` (SQLITE_FULL) as it does on a full disk. The
session does not look at its snapshots to learn of it: the Recording tells it.
"""

from __future__ import annotations

from pathlib import Path

from gpuprof.telemetry.session import Recording, TelemetrySession
from gpuprof.telemetry.sources import SimulatedSource
from gpuprof.telemetry.store import SessionStore
from tests.ui_fakes import ManualSampler


def _no_room(store: SessionStore) -> None:
    """Let the database grow no more (the test's full disk)."""
    store.flush()
    conn = store._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {int(pages)}")


def _session() -> tuple[TelemetrySession, list[float]]:
    t = [1.7e9]

    def clock() -> float:
        t[0] += 1.0
        return t[0]

    src = SimulatedSource("rtx4090x2", seed=1, clock=clock)
    return TelemetrySession(src, sampler_factory=ManualSampler), t


def test_a_full_disk_stops_the_recording_and_its_listener_hears_it_once(tmp_path: Path):
    session, _ = _session()
    states = []
    session.subscribe_state(states.append)
    out = tmp_path / "full.gpuprof"
    store = SessionStore.create(out, source=session.source)
    failures: list[Recording] = []
    rec = Recording(store, out, owns_store=True, on_failed=failures.append)
    session.sampler.set_sink(rec)
    for _ in range(3):
        session.poll_once()
    _no_room(store)
    for _ in range(20):
        session.poll_once()  # History and the subscribers go on
    assert len(failures) == 1 and failures[0] is rec
    assert not rec.active and rec.error == "OperationalError: database or disk is full"
    assert rec.stopped_s is not None and rec.stopped_s >= rec.started_s
    assert len(session.history) == 23
    rec.finish()  # closing a full database logs, never raises
    with SessionStore.open(out) as back:
        assert back.count() >= 3
    session.close()


def test_the_session_hears_of_the_failure_from_its_recording(tmp_path: Path):
    session, _ = _session()
    states = []
    session.subscribe_state(states.append)
    out = session.start_recording(tmp_path / "rec.gpuprof")
    rec = session.recording
    assert rec is not None and rec.path == out and states[-1].recording_path == out
    for _ in range(3):
        session.poll_once()
    _no_room(rec.store)
    for _ in range(20):
        session.poll_once()
    assert session.recording is None and session.recording_path is None
    assert session.recording_error == "OperationalError: database or disk is full"
    assert session.last_error == "recording failed: OperationalError: database or disk is full"
    failed = [s for s in states if s.recording_error]
    assert len(failed) == 1 and failed[0].recording_path is None
    # A new recording starts clean.
    session.start_recording(tmp_path / "again.gpuprof")
    assert session.recording_error is None and session.last_error is None
    session.close()
    with SessionStore.open(out) as back:
        assert back.count() >= 3
