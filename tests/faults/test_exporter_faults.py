"""The Prometheus exporter under load and faults (issue 11).

Hostile clients (connect and leave, stop half way, reset mid-answer, never send a request, send a
byte now and then, flood the server with idle connections) cost no traceback and a bounded number
of threads, and are closed after the timeout; ``HEAD`` answers like ``GET`` without the body; 20
concurrent scrapers all get whole answers. A source whose poll fails or hangs (on the first poll
or later) is served as ``gpuprof_source_up 0``, its GPU series dropped once the last good poll is
older than the staleness bound, while the exporter keeps serving. No test here is timed: the
speed targets are measured by perf/exporter.py.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuprof.exporter import Exporter
from gpuprof.exporter.server import BoundedHTTPServer, HeadHandler
from gpuprof.telemetry.model import (
    DeviceInfo,
    HostSample,
    Snapshot,
    SourceKind,
    SystemInfo,
)
from gpuprof.telemetry.nvml import source as nvml
from gpuprof.telemetry.nvml.source import NvmlSource
from gpuprof.telemetry.source import KeptFacts
from tests.fakes.devices import h100_info, h100_sample, h100_sxm_8gpu_box
from tests.fakes.fake_nvml import FakeNvml
from tests.fakes.fixtures import FakeClock
from tests.faults.hostile import start_gpuprof

GPU_SERIES = "DCGM_FI_DEV_GPU_UTIL"
#: A bounded wait for something the sampler thread does; a hang fails, slowness does not.
WAIT_S = 20.0


class PollFailed(RuntimeError):
    pass


@dataclass
class ScriptedSource(KeptFacts):
    """A source whose poll succeeds, raises or blocks, as the test says; so may its facts."""

    n: int = 2
    failing: bool = False
    facts_fail: bool = False
    polls: int = 0

    kind = SourceKind.NVML
    label = "scripted"

    def system_info(self) -> SystemInfo:
        if self.facts_fail:
            raise PollFailed("system info unavailable")
        return SystemInfo(hostname="node-a")

    def devices(self) -> tuple[DeviceInfo, ...]:
        if self.facts_fail:
            raise PollFailed("no devices")
        return tuple(replace(h100_info(i % 8), index=i) for i in range(self.n))

    def poll(self) -> Snapshot:
        if self.failing:
            raise PollFailed("the driver said no")
        self.polls += 1
        return Snapshot(
            time_s=1_700_000_000.0 + self.polls,
            source=self.kind,
            host=HostSample(),
            gpus=tuple(
                replace(h100_sample(i % 8, util_gpu_pct=50.0 + i), index=i) for i in range(self.n)
            ),
        )

    def close(self, timeout_s: float = 1.0) -> None:
        pass


def get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read()


def scrape(url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    status, headers, body = get(url)
    assert status == 200
    assert int(headers["Content-Length"]) == len(body)
    return {
        fam.name: [(s.labels, s.value) for s in fam.samples]
        for fam in text_string_to_metric_families(body.decode())
    }


def value(fams: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float:
    (sample,) = fams[name]
    return sample[1]


def wait_until(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def reset(sock: socket.socket) -> None:
    """Close with an RST (SO_LINGER 0), as a client killed mid-request does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(10)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    finally:
        sock.close()


# --- hostile clients --------------------------------------------------------------------------


def _leave_at_once(port: int) -> None:
    connect(port).close()


def _leave_half_way(port: int) -> None:
    sock = connect(port)
    sock.sendall(b"GET /metr")
    sock.close()


def _reset_after_request(port: int) -> None:
    sock = connect(port)
    sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    reset(sock)


def _reset_mid_answer(port: int) -> None:
    sock = connect(port)
    sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.recv(100)
    reset(sock)


def _half_close_after_partial_request(port: int) -> None:
    sock = connect(port)
    sock.sendall(b"GET /metrics HTTP/1.1\r\nHost")
    sock.shutdown(socket.SHUT_WR)
    sock.recv(65536)
    sock.close()


def _garbage(port: int) -> None:
    sock = connect(port)
    sock.sendall(os.urandom(4096) + b"\r\n\r\n")
    sock.recv(65536)
    sock.close()


def _huge_head(port: int) -> None:
    sock = connect(port)
    with contextlib.suppress(OSError):
        sock.sendall(b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\n\r\n")
        sock.recv(65536)
    sock.close()


def _post(port: int) -> None:
    sock = connect(port)
    sock.sendall(b"POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    sock.recv(65536)
    sock.close()


HOSTILE_CLIENTS = {
    f.__name__.strip("_"): f
    for f in (
        _leave_at_once,
        _leave_half_way,
        _reset_after_request,
        _reset_mid_answer,
        _half_close_after_partial_request,
        _garbage,
        _huge_head,
        _post,
    )
}


@pytest.fixture
def served() -> Iterator[Exporter]:
    with Exporter(ScriptedSource(n=32), port=0, interval_s=0.1, bench_values=None) as exporter:
        yield exporter


def test_clients_that_leave_early_cost_no_traceback(
    served: Exporter, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="gpuprof.exporter")
    for _ in range(10):  # resets race with the answer: repeat so every path is taken
        for client in HOSTILE_CLIENTS.values():
            client(served.port)
    fams = scrape(served.url)  # still serving, whole answers
    assert len(fams[GPU_SERIES]) == 32
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err[-3000:]
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not loud, [r.getMessage() for r in loud]


def test_head_answers_like_get_without_a_body() -> None:
    clock = FakeClock()  # a still clock: the age series, and so the length, stay the same
    with Exporter(
        ScriptedSource(), port=0, interval_s=60, bench_values=None, clock=clock
    ) as exporter:
        for path in ("/metrics", "/", "/nope"):
            conn = http.client.HTTPConnection("127.0.0.1", exporter.port, timeout=10)
            conn.request("GET", path)
            resp = conn.getresponse()
            got = (resp.status, resp.getheader("Content-Type"), resp.read())
            conn.close()
            sock = connect(exporter.port)
            sock.sendall(f"HEAD {path} HTTP/1.0\r\n\r\n".encode())
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
            sock.close()
            head, _, body = raw.partition(b"\r\n\r\n")
            status_line, *lines = head.decode().split("\r\n")
            headers = dict(line.split(": ", 1) for line in lines)
            assert int(status_line.split()[1]) == got[0]
            assert headers["Content-Type"] == got[1]
            assert int(headers["Content-Length"]) == len(got[2]) > 0
            assert body == b""


@pytest.mark.slow
def test_idle_and_slow_connections_are_closed_and_threads_stay_bounded() -> None:
    source = ScriptedSource()
    with Exporter(
        source, port=0, interval_s=60, bench_values=None, timeout_s=1.0, max_threads=4
    ) as exporter:
        baseline = threading.active_count()
        idle = [connect(exporter.port) for _ in range(300)]
        slow = []
        for _ in range(100):
            sock = connect(exporter.port)
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # the blank line never comes
            slow.append(sock)
        # Served while 400 connections hold on (and after every one of them was accepted).
        assert len(scrape(exporter.url)[GPU_SERIES]) == 2
        assert threading.active_count() <= baseline + 4
        assert exporter._httpd is not None and exporter._httpd.threads <= 4
        assert all(closed_by_server(s) for s in idle + slow)
        wait_until(lambda: exporter._httpd is not None and exporter._httpd.open_connections == 0)
        assert len(scrape(exporter.url)[GPU_SERIES]) == 2


def test_slow_clients_do_not_hold_the_request_threads() -> None:
    """With one worker and a 30 s timeout, 50 clients stuck half way through their request do not
    delay a scrape: a worker only ever gets a whole request."""
    with Exporter(
        ScriptedSource(), port=0, interval_s=60, bench_values=None, timeout_s=30, max_threads=1
    ) as exporter:
        stuck = []
        for _ in range(50):
            sock = connect(exporter.port)
            sock.sendall(b"GET /metrics HTTP/1.1\r\n")
            stuck.append(sock)
        for _ in range(5):
            assert len(scrape(exporter.url)[GPU_SERIES]) == 2  # urlopen gives up after 10 s
        for sock in stuck:
            sock.close()


def test_a_flood_of_idle_connections_closes_the_oldest_not_the_scrape() -> None:
    class Hello(HeadHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = BoundedHTTPServer(("127.0.0.1", 0), Hello, max_connections=20, timeout_s=60)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        flood = [connect(server.server_port) for _ in range(60)]
        status, _, body = get(f"http://127.0.0.1:{server.server_port}/")
        assert (status, body) == (200, b"hello")
        assert server.open_connections <= 20
        assert sum(closed_by_server(s) for s in flood[:40]) == 40  # the oldest went first
        for sock in flood[40:]:
            sock.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.slow
def test_twenty_concurrent_scrapers_all_get_whole_answers(served: Exporter) -> None:
    results: list[int] = []
    errors: list[BaseException] = []

    def client() -> None:
        try:
            for _ in range(20):
                results.append(len(scrape(served.url)[GPU_SERIES]))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=client) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[:3]
    assert results == [32] * 400


# --- sources in trouble -----------------------------------------------------------------------


def test_a_source_failing_from_the_first_poll_starts_and_reports_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    source = ScriptedSource(failing=True, facts_fail=True)
    with Exporter(source, port=0, interval_s=0.1, bench_values=None) as exporter:
        fams = scrape(exporter.url)
        assert value(fams, "gpuprof_source_up") == 0.0
        assert value(fams, "gpuprof_source_last_success_age_seconds") == float("inf")
        assert value(fams, "gpuprof_source_poll_errors") >= 1
        assert GPU_SERIES not in fams and "gpuprof_snapshot_timestamp_seconds" not in fams
        assert fams["gpuprof_source_info"][0][0]["source"] == "nvml"
        # It answers once the source does.
        source.failing = False
        wait_until(lambda: value(scrape(exporter.url), "gpuprof_source_up") == 1.0)
        assert len(scrape(exporter.url)[GPU_SERIES]) == 2
    assert any("first poll" in r.getMessage() for r in caplog.records)


def test_a_source_that_starts_failing_goes_down_then_stale() -> None:
    clock = FakeClock()
    source = ScriptedSource()
    with Exporter(
        source, port=0, interval_s=0.1, bench_values=None, clock=clock, stale_after_s=30
    ) as exporter:
        fams = scrape(exporter.url)
        assert value(fams, "gpuprof_source_up") == 1.0
        assert value(fams, "gpuprof_source_poll_errors") == 0
        assert value(fams, "gpuprof_source_stale_after_seconds") == 30
        source.failing = True
        errors = exporter.session.sampler.error_count
        wait_until(lambda: exporter.session.sampler.error_count > errors)
        fams = scrape(exporter.url)
        # Down at once; the last good values stay within the bound.
        assert value(fams, "gpuprof_source_up") == 0.0
        assert value(fams, "gpuprof_source_poll_errors") > errors
        assert len(fams[GPU_SERIES]) == 2
        clock.advance(31)
        fams = scrape(exporter.url)
        assert value(fams, "gpuprof_source_up") == 0.0
        assert value(fams, "gpuprof_source_last_success_age_seconds") >= 31
        assert GPU_SERIES not in fams and "gpuprof_gpu_lost" not in fams
        source.failing = False
        wait_until(lambda: value(scrape(exporter.url), "gpuprof_source_up") == 1.0)
        assert len(scrape(exporter.url)[GPU_SERIES]) == 2


@pytest.fixture
def fake() -> Iterator[FakeNvml]:
    fake = FakeNvml(h100_sxm_8gpu_box())
    yield fake
    fake.release_all()


@pytest.fixture(autouse=True)
def _not_exiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvml, "_exiting", False)


def test_a_driver_call_that_hangs_goes_stale_while_the_exporter_serves(fake: FakeNvml) -> None:
    clock = FakeClock()
    source = NvmlSource(nvml=fake, clock=fake.clock)
    try:
        with Exporter(
            source, port=0, interval_s=0.1, bench_values=None, clock=clock, stale_after_s=5
        ) as exporter:
            assert len(scrape(exporter.url)[GPU_SERIES]) == 8
            stuck = fake.block("nvmlDeviceGetPowerUsage", device=0)
            assert stuck.entered.wait(WAIT_S)
            clock.advance(6)
            fams = scrape(exporter.url)
            assert value(fams, "gpuprof_source_up") == 0.0
            assert GPU_SERIES not in fams
            fake.release_all()
            wait_until(lambda: value(scrape(exporter.url), "gpuprof_source_up") == 1.0)
            assert len(scrape(exporter.url)[GPU_SERIES]) == 8
    finally:
        fake.release_all()
        source.close()


def test_a_first_poll_that_hangs_still_lets_the_exporter_start(fake: FakeNvml) -> None:
    source = NvmlSource(nvml=fake, clock=fake.clock)
    stuck = fake.block("nvmlDeviceGetPowerUsage")
    try:
        with Exporter(
            source, port=0, interval_s=0.1, bench_values=None, first_poll_timeout_s=0.2
        ) as exporter:
            assert stuck.entered.wait(WAIT_S)
            fams = scrape(exporter.url)
            assert value(fams, "gpuprof_source_up") == 0.0
            assert value(fams, "gpuprof_source_last_success_age_seconds") == float("inf")
            assert GPU_SERIES not in fams
            fake.release_all()
            wait_until(lambda: GPU_SERIES in scrape(exporter.url))
    finally:
        fake.release_all()
        source.close()


# --- the command, end to end ------------------------------------------------------------------


def test_the_command_survives_hostile_clients_quietly(tmp_path: Path) -> None:
    args = ["exporter", "--demo", "--port", "0", "--stale-after", "30"]
    proc = start_gpuprof(args, tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
        assert match, line
        port = int(match.group(1))
        for _ in range(5):
            for client in HOSTILE_CLIENTS.values():
                client(port)
        status, headers, body = get(match.group(0), "HEAD")
        assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0
        fams = scrape(match.group(0))
        assert value(fams, "gpuprof_source_up") == 1.0
        assert value(fams, "gpuprof_source_stale_after_seconds") == 30
        assert len(fams[GPU_SERIES]) == 8
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert [line for line in err.splitlines() if line.strip()] == ["gpuprof exporter: stopped"]
