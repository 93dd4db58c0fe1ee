"""Sampler: schedule with a fake clock, error handling, interval validation, stop, recording."""

from __future__ import annotations

import threading
import time

import pytest

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind, SystemInfo
from gpuprof.telemetry.sampler import Sampler
from gpuprof.telemetry.source import KeptFacts
from gpuprof.telemetry.sources import SimulatedSource
from gpuprof.telemetry.store import SessionStore


class FakeClock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class ScriptedSource(KeptFacts):
    """A source whose poll() can fail, hang or take (fake) time."""

    kind = SourceKind.SIMULATED
    label = "SIMULATED — test"

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.clock = clock
        self.calls = 0
        self.fail_on: set[int] = set()
        self.poll_cost_s = 0.0
        self.block: threading.Event | None = None
        self.in_poll = False

    _system = SystemInfo(hostname="test")

    def poll(self) -> Snapshot:
        self.calls += 1
        if self.block is not None:
            self.in_poll = True
            self.block.wait(10)
            self.in_poll = False
        if self.calls in self.fail_on:
            raise RuntimeError(f"driver hiccup #{self.calls}")
        if self.clock is not None:
            self.clock.t += self.poll_cost_s
        t = 1_700_000_000.0 + self.calls
        return Snapshot(
            time_s=t,
            source=SourceKind.SIMULATED,
            host=HostSample(cpu_pct=float(self.calls)),
            gpus=(GpuSample(index=0, power_w=100.0 + self.calls),),
        )


def test_step_schedules_on_a_fixed_grid_with_fake_clock() -> None:
    clock = FakeClock()
    src = ScriptedSource(clock)
    src.poll_cost_s = 0.2
    s = Sampler(src, interval_s=1.0, history=History(capacity=100), clock=clock)
    assert s.step() == pytest.approx(0.8)  # polled at 100.0, took 0.2 s
    assert src.calls == 1
    clock.t = 100.5
    assert s.step() == pytest.approx(0.5)  # not due yet: no poll
    assert src.calls == 1
    clock.t = 101.0
    assert s.step() == pytest.approx(0.8)
    assert src.calls == 2
    # A poll that overruns three intervals skips them instead of bunching up.
    src.poll_cost_s = 3.3
    clock.t = 102.0
    assert s.step() == pytest.approx(0.7)  # next grid point after 105.3 is 106.0
    assert src.calls == 3
    assert len(s.history) == 3


def test_paused_sampler_skips_scheduled_polls_but_polls_on_demand() -> None:
    clock = FakeClock()
    src = ScriptedSource(clock)
    s = Sampler(src, interval_s=1.0, history=History(capacity=100), clock=clock)
    s.step()
    assert src.calls == 1
    s.pause()
    assert s.paused
    for _ in range(5):
        clock.t += 1.0
        assert s.step() == pytest.approx(1.0)
    assert src.calls == 1 and len(s.history) == 1
    s.poll_once()  # a seek while paused shows the new position
    assert src.calls == 2
    clock.t += 0.25
    s.resume()
    assert not s.paused
    s.step()  # due at once after resuming, then on a grid from there
    assert src.calls == 3
    clock.t += 0.5
    s.step()
    assert src.calls == 3
    clock.t += 0.5
    s.step()
    assert src.calls == 4


def test_set_interval_validates_and_reschedules() -> None:
    clock = FakeClock()
    s = Sampler(ScriptedSource(), interval_s=10.0, history=History(capacity=10), clock=clock)
    for bad in (0.05, 61, -1, float("nan"), float("inf"), "fast"):
        with pytest.raises(ValueError, match=r"between 0\.1 and 60 s|number of seconds"):
            s.set_interval(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Sampler(ScriptedSource(), interval_s=0)
    assert s.step() == pytest.approx(10.0)
    s.set_interval(0.5)
    assert s.interval_s == 0.5
    assert s.step() == pytest.approx(0.5)
    s.set_interval(0.1)
    s.set_interval(60)


def test_poll_error_is_recorded_and_loop_continues() -> None:
    clock = FakeClock()
    src = ScriptedSource(clock)
    src.fail_on = {2}
    s = Sampler(src, interval_s=1.0, history=History(capacity=10), clock=clock)
    for _ in range(4):
        s.step()
        clock.t += 1.0
    assert src.calls == 4
    assert s.error_count == 1
    assert s.last_error == "RuntimeError: driver hiccup #2"
    # The exception itself is kept, for a caller that decides by its type (issue 25).
    assert isinstance(s.last_exception, RuntimeError)
    assert str(s.last_exception) == "driver hiccup #2"
    assert len(s.history) == 3
    with pytest.raises(RuntimeError):
        src.fail_on = {5}
        s.poll_once()


def test_listener_exception_does_not_stop_others() -> None:
    s = Sampler(ScriptedSource(), history=History(capacity=10))
    seen: list[float] = []

    def bad(snap: Snapshot) -> None:
        raise ValueError("listener bug")

    s.add_listener(bad)
    s.add_listener(lambda snap: seen.append(snap.time_s))
    s.poll_once()
    s.poll_once()
    assert len(seen) == 2
    assert s.last_listener_error == "ValueError: listener bug"
    assert isinstance(s.listener_exception, ValueError)
    s.remove_listener(bad)
    s.remove_listener(bad)  # removing twice is harmless


def test_thread_runs_survives_errors_and_stops() -> None:
    src = ScriptedSource()
    src.fail_on = {1, 3}
    s = Sampler(src, interval_s=0.1, history=History(capacity=100))
    got = threading.Event()
    s.add_listener(lambda snap: got.set() if src.calls >= 4 else None)
    s.start()
    assert s.running
    assert got.wait(10), "the thread kept polling after errors"
    s.stop()
    assert not s.running
    calls = src.calls
    time.sleep(0.3)
    assert src.calls == calls, "no polls after stop()"
    assert s.error_count >= 2


def test_stop_returns_while_poll_hangs() -> None:
    src = ScriptedSource()
    src.block = threading.Event()
    s = Sampler(src, interval_s=0.1, history=History(capacity=10))
    s.start()
    while src.calls == 0:
        time.sleep(0.01)
    s.stop(timeout=0.2)
    assert src.in_poll, "stop() returned while the poll was still hanging"
    assert not s.running
    src.block.set()


def test_set_interval_wakes_a_running_sampler() -> None:
    src = ScriptedSource()
    s = Sampler(src, interval_s=60.0, history=History(capacity=10))
    s.start()
    while src.calls == 0:
        time.sleep(0.01)
    s.set_interval(0.1)
    deadline = time.monotonic() + 10
    while src.calls < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    s.stop()
    assert src.calls >= 3


def test_recording_through_the_sampler_sink(tmp_path) -> None:
    clock = FakeClock()
    src = SimulatedSource("rtx4090x2", seed=1, clock=lambda: 1_700_000_000.0 + clock.t)
    s = Sampler(src, interval_s=1.0, history=History(capacity=100), clock=clock)
    store = SessionStore.create(tmp_path / "run.gpuprof", source=src)
    s.poll_once()
    s.set_sink(store)  # anything with append(snapshot) is a sink
    for _ in range(5):
        clock.t += 1
        s.poll_once()
    s.set_sink(None)
    clock.t += 1
    s.poll_once()
    store.close()
    with SessionStore.open(tmp_path / "run.gpuprof") as back:
        assert back.count() == 5
        assert back.source_kind is SourceKind.SIMULATED
        assert back.label == "SIMULATED — 2×RTX 4090 (PCIe)"
    assert len(s.history) == 7


def test_a_failing_sink_is_logged_and_the_poll_goes_on() -> None:
    clock = FakeClock()
    src = SimulatedSource("rtx4090x2", seed=1, clock=lambda: 1_700_000_000.0 + clock.t)
    s = Sampler(src, interval_s=1.0, history=History(capacity=100), clock=clock)
    got = []
    s.add_listener(got.append)

    class Broken:
        def append(self, snap) -> None:
            raise OSError("disk gone")

    s.set_sink(Broken())
    s.poll_once()
    assert len(s.history) == 1 and len(got) == 1 and s.last_error is None


def test_a_poll_of_a_replaced_source_goes_nowhere() -> None:
    """A poll hung in the old source's driver returns after set_source: History and the
    listeners never see the old source's snapshot."""
    clock = FakeClock()
    old = SimulatedSource("rtx4090x2", seed=1, clock=lambda: 1_700_000_000.0 + clock.t)
    new = SimulatedSource("h100x8", seed=1, clock=lambda: 1_700_000_000.0 + clock.t)
    s = Sampler(old, interval_s=1.0, history=History(capacity=100), clock=clock)
    got = []
    s.add_listener(got.append)
    real_poll = old.poll

    def poll_then_replaced():
        snap = real_poll()
        s.set_source(new)  # what the session does while this poll hangs
        return snap

    old.poll = poll_then_replaced  # type: ignore[method-assign]
    s.poll_once()
    assert len(s.history) == 0 and got == [] and s.poll_count == 0
    clock.t += 1
    assert len(s.poll_once().gpus) == 8 and len(s.history) == 1 and len(got) == 1
