"""Shutdown never hangs (issue 10): a call stuck in the driver bounds close() and exit."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuprof.telemetry.model import Snapshot, SourceKind, SourceState
from gpuprof.telemetry.nvml import source as nvml
from gpuprof.telemetry.nvml.source import NvmlSource
from tests.fakes.devices import h100_sxm_8gpu_box
from tests.fakes.fake_nvml import Block, FakeNvml

ROOT = Path(__file__).resolve().parents[1]
STUCK_CALL = "nvmlDeviceGetPowerUsage"
# close() waits at most 1 s; the rest is slack for a busy 2-core machine.
BOUND_S = 1.2


@pytest.fixture(autouse=True)
def _not_exiting(monkeypatch: pytest.MonkeyPatch) -> None:
    # _shutdown_all() marks the whole process as exiting; undo that after each test.
    monkeypatch.setattr(nvml, "_exiting", False)


@pytest.fixture
def fake() -> Iterator[FakeNvml]:
    fake = FakeNvml(h100_sxm_8gpu_box())
    yield fake
    fake.release_all()  # a stuck call left behind would count as in flight for later tests


@pytest.fixture
def stuck_poll(fake: FakeNvml) -> Iterator[Callable[[NvmlSource], tuple[Block, list[Snapshot]]]]:
    """Start a poll of ``source`` on another thread and return once it hangs in the driver."""
    threads: list[threading.Thread] = []

    def start(source: NvmlSource) -> tuple[Block, list[Snapshot]]:
        stuck = fake.block(STUCK_CALL, device=0)
        results: list[Snapshot] = []
        thread = threading.Thread(target=lambda: results.append(source.poll()), daemon=True)
        threads.append(thread)
        thread.start()
        assert stuck.entered.wait(5.0), "the poll never reached the blocked call"
        return stuck, results

    yield start
    fake.release_all()
    for thread in threads:
        thread.join(5.0)
        assert not thread.is_alive()
    assert nvml._GATE.in_flight() == 0


def make_source(fake: FakeNvml) -> NvmlSource:
    source = NvmlSource(nvml=fake, clock=fake.clock)
    source.poll()  # nvmlInit and the static reads happen here, not under the test's clock
    return source


def timed(fn: Callable[[], object]) -> float:
    start = time.monotonic()
    fn()
    return time.monotonic() - start


# --- close() ---------------------------------------------------------------------------------


def test_close_with_nothing_in_flight_shuts_down_once(fake: FakeNvml) -> None:
    source = make_source(fake)
    assert timed(source.close) < 0.5
    assert fake.calls["nvmlShutdown"] == 1
    assert fake.shutdown_count == 1 and not fake.initialized
    source.close()  # nothing owed any more
    assert fake.calls["nvmlShutdown"] == 1


@pytest.mark.slow
def test_close_with_a_poll_stuck_in_the_driver_is_bounded_and_skips_shutdown(
    fake: FakeNvml, stuck_poll, caplog: pytest.LogCaptureFixture
) -> None:
    source = make_source(fake)
    _stuck, results = stuck_poll(source)
    with caplog.at_level(logging.WARNING, logger="gpuprof.telemetry.nvml"):
        elapsed = timed(source.close)
    assert 0.9 <= elapsed <= BOUND_S  # it did wait for the call, and no longer than the bound
    assert fake.calls["nvmlShutdown"] == 0
    assert fake.initialized
    assert STUCK_CALL in caplog.text and "skipping nvmlShutdown" in caplog.text

    # The stuck call returns late: the rest of that poll makes no driver call.
    calls = sum(fake.calls.values())
    fake.release_all()
    for _ in range(500):
        if results:
            break
        time.sleep(0.01)
    assert sum(fake.calls.values()) == calls
    assert results[0].source is SourceKind.NONE
    assert results[0].status.state is SourceState.ERROR

    # Now idle: a second close() pays the nvmlShutdown that the first one owed.
    source.close()
    assert fake.calls["nvmlShutdown"] == 1 and not fake.initialized


def test_close_timeout_is_a_parameter(fake: FakeNvml, stuck_poll) -> None:
    source = make_source(fake)
    stuck_poll(source)
    elapsed = timed(lambda: source.close(timeout_s=0.2))
    assert 0.15 <= elapsed <= 0.5
    assert fake.calls["nvmlShutdown"] == 0


def test_close_waits_for_a_slow_call_then_shuts_down(fake: FakeNvml, stuck_poll) -> None:
    source = make_source(fake)
    stuck, results = stuck_poll(source)
    releaser = threading.Timer(0.3, stuck.release.set)
    releaser.start()
    elapsed = timed(source.close)
    releaser.join()
    assert 0.25 <= elapsed <= BOUND_S
    assert fake.calls["nvmlShutdown"] == 1 and not fake.initialized
    assert results and results[0].source is SourceKind.NONE  # it stopped at its next query


@pytest.mark.slow
def test_queries_fail_fast_once_close_has_begun(fake: FakeNvml, stuck_poll) -> None:
    source = make_source(fake)
    stuck_poll(source)
    closer = threading.Thread(target=source.close)
    closer.start()
    while not source._closing:  # close() is now waiting for the stuck poll
        time.sleep(0.001)
    calls = sum(fake.calls.values())
    start = time.monotonic()
    snap = source.poll()
    status = source.status()
    source.system_info()
    assert source.devices() == ()
    assert source.topology().matrix == ()
    assert time.monotonic() - start < 0.3  # none of them waited behind the stuck poll
    assert closer.is_alive()
    assert sum(fake.calls.values()) == calls  # and none of them called the driver
    assert snap.source is SourceKind.NONE and snap.gpus == ()
    assert status.state is SourceState.ERROR and "closed" in status.message
    closer.join(5.0)
    assert fake.calls["nvmlShutdown"] == 0


# --- at exit ---------------------------------------------------------------------------------


def test_at_exit_nothing_in_flight_shuts_every_source_down(fake: FakeNvml) -> None:
    sources = [make_source(fake), make_source(fake)]
    assert fake.init_count == 2
    assert timed(nvml._shutdown_all) < 0.5  # what atexit runs
    assert fake.calls["nvmlShutdown"] == 2 and not fake.initialized
    late = NvmlSource(nvml=fake, clock=fake.clock)
    for source in [*sources, late]:  # at exit nothing starts NVML again, not even a new source
        assert source.poll().source is SourceKind.NONE
    assert fake.init_count == 2


@pytest.mark.slow
def test_at_exit_a_stuck_call_bounds_the_wait_and_skips_shutdown(
    fake: FakeNvml, stuck_poll, caplog: pytest.LogCaptureFixture
) -> None:
    stuck_source, idle_source = make_source(fake), make_source(fake)
    stuck_poll(stuck_source)
    with caplog.at_level(logging.WARNING, logger="gpuprof.telemetry.nvml"):
        start = time.monotonic()
        clean = nvml._shutdown_all()
        elapsed = time.monotonic() - start
    assert not clean
    assert elapsed <= BOUND_S
    # The stuck call may hold the driver's lock: no source calls nvmlShutdown behind it.
    assert fake.calls["nvmlShutdown"] == 0
    assert STUCK_CALL in caplog.text
    calls = sum(fake.calls.values())
    assert idle_source.poll().source is SourceKind.NONE
    assert sum(fake.calls.values()) == calls


_CHILD = """
import atexit, sys, threading, time
sys.path.insert(0, {root!r})
from tests.fakes.devices import h100_sxm_8gpu_box
from tests.fakes.fake_nvml import FakeNvml

fake = FakeNvml(h100_sxm_8gpu_box())
script_end_s = [0.0]
# Registered before gpuprof's own exit hook, so they run after it (atexit: last in, first out).
atexit.register(lambda: print(f"exit_s={{time.monotonic() - script_end_s[0]}}", flush=True))
atexit.register(lambda: print(f"shutdown_calls={{fake.calls['nvmlShutdown']}}", flush=True))

from gpuprof.telemetry.nvml import source as nvml

source = nvml.NvmlSource(nvml=fake)
source.poll()
if {stuck}:
    stuck = fake.block({call!r}, device=0)
    threading.Thread(target=source.poll, daemon=True).start()
    assert stuck.entered.wait(10)
script_end_s[0] = time.monotonic()
# The script ends here: the interpreter exits with the poll (if any) stuck in the driver.
"""


@pytest.mark.parametrize("stuck", [True, False], ids=["stuck", "idle"])
@pytest.mark.slow
def test_a_process_exits_promptly_even_with_a_call_stuck_in_the_driver(stuck: bool) -> None:
    script = textwrap.dedent(_CHILD).format(root=str(ROOT), stuck=stuck, call=STUCK_CALL)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the process hung at exit: {exc.stderr!r}")
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("=", 1) for line in done.stdout.split() if "=" in line)
    assert float(lines["exit_s"]) <= BOUND_S + 0.3  # from the script's end to the last hook
    if stuck:
        assert lines["shutdown_calls"] == "0"
        assert STUCK_CALL in done.stderr and "skipping nvmlShutdown" in done.stderr
    else:
        assert lines["shutdown_calls"] == "1"
        assert "skipping" not in done.stderr


# --- the session ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_session_on_nvml_closes_within_the_bound_when_a_poll_hangs(fake: FakeNvml) -> None:
    """The window and the CLI close their TelemetrySession: one bound for sampler and source."""
    from gpuprof.telemetry.session import TelemetrySession

    source = make_source(fake)
    session = TelemetrySession(source, interval_s=0.1)
    stuck = fake.block(STUCK_CALL, device=0)
    session.start()  # the sampler thread's first poll hangs in the driver
    assert stuck.entered.wait(5.0)
    elapsed = timed(session.close)
    assert elapsed <= BOUND_S, f"session.close() took {elapsed:.2f} s"
    assert fake.calls["nvmlShutdown"] == 0
