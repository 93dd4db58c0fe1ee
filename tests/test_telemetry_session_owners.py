"""One owner per thing in a TelemetrySession (issue 25): History reset and reloaded in place,
one generation bump per change, static facts read once per source, frozen extracts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind
from gpuprof.telemetry.session import SessionExtract, TelemetrySession
from gpuprof.telemetry.source import ReplayControl, TelemetrySource
from gpuprof.telemetry.sources import ReplaySource, SimulatedSource
from tests.ui_fakes import FakeSource, ManualSampler

T0 = 1_700_000_000.0


def _manual(source, **kw) -> TelemetrySession:
    return TelemetrySession(source, sampler_factory=ManualSampler, **kw)


def _snap(t: float, *gpus: GpuSample, cpu: float = 10.0) -> Snapshot:
    return Snapshot(time_s=t, source=SourceKind.NVML, host=HostSample(cpu_pct=cpu), gpus=gpus)


# -- History.reset / load_before -------------------------------------------------------------


def test_reset_forgets_the_samples_and_the_gpus_and_keeps_the_capacity():
    h = History(capacity=32)
    for k in range(5):
        h.append(_snap(T0 + k, GpuSample(index=3, power_w=100.0 + k)))
    version = h.version
    h.reset()
    assert len(h) == 0 and h.gpu_indices == () and h.latest() is None
    assert h.time_range() is None and h.capacity == 32 and h.version > version
    # A GPU of a new source decides its shared rings afresh (AMD junction in temp_gpu_c's).
    h.append(_snap(T0 + 10, GpuSample(index=0, temp_hotspot_c=71.0)))
    assert h.gpu_indices == (0,) and h.stored_field(0, "temp_gpu_c") == "temp_hotspot_c"
    assert h.gpu_series(0, "temp_hotspot_c")[1].tolist() == [71.0]


def test_load_before_puts_the_past_first_and_keeps_the_live_rows_as_they_were():
    h = History(capacity=100)
    for k in range(3):  # live samples, one of them throttled
        reasons = ("sw_power_cap",) if k == 1 else ()
        h.append(_snap(T0 + k, GpuSample(index=0, power_w=500.0 + k, throttle_reasons=reasons)))
    latest = h.latest()
    before = h.gpu_series(0, "power_w")
    past = [_snap(T0 - 10 + k, GpuSample(index=0, power_w=float(k))) for k in range(10)]
    # The newest "past" one overlaps the live samples: left out.
    assert h.load_before([*past, _snap(T0 + 1, GpuSample(index=0, power_w=-1.0))]) == 10
    t, v = h.gpu_series(0, "power_w")
    assert len(h) == 13 and np.all(np.diff(t) > 0)
    assert v[:10].tolist() == list(range(10))
    assert t[10:].tolist() == before[0].tolist() and v[10:].tolist() == before[1].tolist()
    assert h.throttle_intervals(0) == [(T0 + 1, T0 + 2, ("sw_power_cap",))]
    assert h.latest() is latest  # the newest snapshot is still the live one
    assert h.load_before(past) == 0  # nothing older than what is kept now


def test_load_before_keeps_the_newest_samples_within_capacity_and_a_past_only_gpu():
    h = History(capacity=8)
    for k in range(3):
        h.append(_snap(T0 + k, GpuSample(index=0, power_w=100.0 + k)))
    past = [
        _snap(T0 - 10 + k, GpuSample(index=0, power_w=float(k)), GpuSample(index=1, power_w=7.0))
        for k in range(10)
    ]
    h.load_before(past)
    t, v = h.gpu_series(0, "power_w")
    assert len(h) == 8 and t[-3:].tolist() == [T0, T0 + 1, T0 + 2]
    assert v.tolist() == [5.0, 6.0, 7.0, 8.0, 9.0, 100.0, 101.0, 102.0]
    # GPU 1 was seen only in the past: absent (NaN) in the live rows.
    v1 = h.gpu_series(1, "power_w")[1]
    assert v1[:5].tolist() == [7.0] * 5 and np.isnan(v1[5:]).all()


def test_load_before_keeps_a_live_sample_that_lands_while_the_past_is_staged():
    """The past goes into a scratch History without the lock: a poll landing meanwhile (here
    the first one, with a GPU the past never had) is kept after it, and nothing overlaps."""
    h = History(capacity=64)
    past = [_snap(T0 + k, GpuSample(index=0, power_w=float(k))) for k in range(10)]
    real = h._scratch
    landed = []

    def scratch_then_a_poll(names):
        out = real(names)
        if not landed:  # the live poll, while the past is being staged
            landed.append(_snap(T0 + 5, GpuSample(index=0, power_w=50.0), GpuSample(index=1)))
            h.append(landed[0])
        return out

    h._scratch = scratch_then_a_poll  # type: ignore[method-assign]
    assert h.load_before(past) == 5  # T0 + 5 .. T0 + 9 are not older than the live sample
    t, v = h.gpu_series(0, "power_w")
    assert t.tolist() == [T0 + k for k in range(6)] and v.tolist() == [0, 1, 2, 3, 4, 50]
    assert h.gpu_indices == (0, 1) and h.latest() is landed[0]
    assert h.gpu_samples(1) == [(T0 + 5, GpuSample(index=1))]  # absent in the past


def test_load_before_into_an_empty_history():
    h = History(capacity=16)
    assert h.load_before([_snap(T0 + k, GpuSample(index=0, power_w=1.0)) for k in range(4)]) == 4
    assert len(h) == 4 and h.latest() is not None and h.latest().time_s == T0 + 3


# -- one generation bump per change ----------------------------------------------------------


def test_generation_bumps_once_per_change_and_never_per_poll(tmp_path: Path):
    session = _manual(FakeSource(2))
    states = []
    session.subscribe_state(states.append)
    gens = [session.generation]
    for _ in range(3):
        session.poll_once()
    session.set_interval(2.0)
    session.start_recording(tmp_path / "r.gpuprof")
    session.poll_once()
    session.stop_recording()
    assert session.generation == gens[0]  # polls, interval and recording change nothing
    history, sampler = session.history, session.sampler

    session.set_source(FakeSource(3), start=False)
    gens.append(session.generation)
    session.poll_once()
    session.begin_prefill()
    past = FakeSource(3)
    past.t = 1.7e9 - 100
    session.prefill([past.poll() for _ in range(5)])
    gens.append(session.generation)
    assert gens == [gens[0], gens[0] + 1, gens[0] + 2]
    assert [s.generation for s in states][-2:] == gens[1:]  # the clients saw each bump
    assert session.history is history and session.sampler is sampler
    assert len(session.history) == 6
    session.close()


def test_a_replay_seek_bumps_the_generation_once(tmp_path: Path):
    rec = _manual(FakeSource(1))
    out = rec.start_recording(tmp_path / "rec.gpuprof")
    for _ in range(21):
        rec.poll_once()
    rec.close()
    clock = [0.0]
    session = _manual(ReplaySource(out, clock=lambda: clock[0]))
    assert isinstance(session.replay, ReplayControl)
    session.poll_once()
    session.pause()
    generation = session.generation
    session.seek(10.0)
    assert session.generation == generation + 1 and len(session.history) == 1
    session.close()


# -- static facts ----------------------------------------------------------------------------


class CountingSource(FakeSource):
    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.static_reads = 0

    def devices(self):
        self.static_reads += 1
        return super().devices()


def test_static_facts_are_read_once_per_source():
    first = CountingSource(2)
    session = _manual(first)
    facts = session.static()
    assert session.static() is facts and first.static_reads == 1
    assert [d.index for d in facts.devices] == [0, 1] and facts.system.hostname == "testbox"
    second = CountingSource(3)
    session.set_source(second, start=False)
    assert len(session.static().devices) == 3 and second.static_reads == 1
    session.static()
    assert second.static_reads == 1 and first.static_reads == 1
    session.close()


# -- extracts --------------------------------------------------------------------------------


def _throttled_two_gpus(gpu: int, reasons: tuple[str, ...]) -> TelemetrySession:
    """A session on a two-GPU fake source whose GPU ``gpu`` is throttled for ``reasons``,
    polled ten times, one (fake) second apart."""
    src = FakeSource(2)
    src.throttled[gpu] = reasons
    session = _manual(src)
    for _ in range(10):
        session.poll_once()
    return session


def test_extract_is_frozen_and_covers_its_range_only():
    session = _throttled_two_gpus(1, ("hw_slowdown",))
    ex = session.extract(1.7e9 + 3, 1.7e9 + 6)
    assert isinstance(ex, SessionExtract) and ex.span == (1.7e9 + 3, 1.7e9 + 6)
    assert ex.times_s.tolist() == [1.7e9 + 3, 1.7e9 + 4, 1.7e9 + 5, 1.7e9 + 6]
    power = ex.gpus[0][ex.gpu_fields.index("power_w")]
    assert power.tolist() == [303.0, 304.0, 305.0, 306.0]
    assert ex.host[ex.host_fields.index("cpu_pct")].tolist() == [25.0] * 4
    assert ex.simulated and ex.source_kind is SourceKind.SIMULATED
    assert ex.source_label == "SIMULATED — fake" and len(ex.static.devices) == 2
    assert [(e.gpu_index, e.reasons) for e in ex.events] == [(1, ("hw_slowdown",))]
    assert {p.sample.pid for p in ex.processes} == {4242, 1001, 777}

    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.span = None  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        ex.times_s[0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        ex.gpus[0][0, 0] = 0.0
    with pytest.raises(TypeError):
        ex.gpus[5] = ex.gpus[0]  # type: ignore[index]
    # The session goes on; the extract does not change with it.
    for _ in range(5):
        session.poll_once()
    session.set_source(FakeSource(1), start=False)
    assert len(ex) == 4 and power.tolist() == [303.0, 304.0, 305.0, 306.0]
    session.close()


def test_extract_defaults_to_the_report_span_and_empty_sessions_give_no_span():
    session = _manual(FakeSource(1))
    empty = session.extract()
    assert empty.span is None and len(empty) == 0 and empty.events == ()
    for _ in range(20):
        session.poll_once()
    session.report_window_s = 5.0
    ex = session.extract(samples=False)
    assert ex.span == (1.7e9 + 15, 1.7e9 + 20) and len(ex) == 0 and not ex.gpus
    session.close()


# -- the source protocol ---------------------------------------------------------------------


def test_every_source_takes_a_close_timeout():
    src = SimulatedSource("h100x8", seed=1)
    assert isinstance(src, TelemetrySource)
    src.close(timeout_s=0.1)
    session = _manual(FakeSource(1))
    assert session.replay is None  # a live source has no replay controls
    session.close(timeout_s=0.1)


def test_a_report_is_built_from_the_extract_while_the_session_goes_on():
    from gpuprof.report.build import from_extract

    session = _throttled_two_gpus(0, ("sw_thermal_slowdown",))
    ex = session.extract(1.7e9 + 2, 1.7e9 + 8, samples=False)
    report = from_extract(ex, session.history, created_s=1.7e9 + 20)
    assert report.simulated and [g.index for g in report.gpus] == [0, 1]
    assert report.machine is not None
    tel = report.telemetry
    assert tel is not None and (tel.start_s, tel.end_s) == ex.span and tel.sample_count == 7
    assert tel.source_label == "SIMULATED — fake"
    assert [e.gpu_index for e in tel.throttle_events] == [e.gpu_index for e in ex.events] == [0]
    session.close()


def test_a_bench_runner_closes_only_a_source_it_owns():
    from gpuprof.bench.runner import Runner

    for owns in (True, False):
        src = FakeSource(1)  # SIMULATED: not attached to results, but the runner holds it
        runner = Runner(
            device="cpu",
            cases=[],
            source=src,
            owns_source=owns,
            capture_env=False,
            telemetry_interval_s=None,
        )
        runner.run()
        assert src.closed is owns
        runner.close()  # idempotent
    src = FakeSource(1)
    Runner(device="cpu", cases=[], source=src, owns_source=True).close()
    assert src.closed
