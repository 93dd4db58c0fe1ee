"""The name lookup is inside a request's deadline (issue 21's review).

``socket.getaddrinfo`` is not covered by a socket timeout: a resolver that never answers (a
dead DNS server, a stalled ``/etc/nsswitch`` module) held ``fleet``, ``catalog update`` and
``--connect`` for as long as the C library waited, past the deadline their ``--help`` states.
The hanging resolver here is the one fault injected in-process (no test can make a real DNS
server stall on loopback); everything else is real: a loopback HTTP server, urllib, the
clients' own error messages.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from gpuprof.fleet import FleetError, PrometheusClient
from gpuprof.httpread import Budget, HttpLimitError, resolve
from tests.faults.hostile_http import HostileServer, endless_body

STALLED = "stalled-resolver.invalid"


@pytest.fixture
def stalled_resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """``getaddrinfo`` that hangs for :data:`STALLED` until the test ends."""
    real = socket.getaddrinfo
    release = threading.Event()

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == STALLED:
            release.wait(30)
            raise socket.gaierror(socket.EAI_AGAIN, "released")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield release
    release.set()


def test_a_stalled_lookup_is_the_deadline(stalled_resolver: threading.Event) -> None:
    budget = Budget(0.3, 1024)
    with pytest.raises(HttpLimitError) as err:
        resolve(STALLED, 80, budget)
    assert err.value.kind == "deadline"
    assert budget.expired()


def test_a_prometheus_query_to_a_stalled_name_stops_at_its_deadline(
    stalled_resolver: threading.Event,
) -> None:
    with pytest.raises(FleetError) as err:
        PrometheusClient(f"http://{STALLED}:9090", timeout_s=0.5).query("up")
    assert err.value.kind == "timeout"
    assert "within 0.5 s" in str(err.value)
    assert STALLED in str(err.value)


def test_a_name_that_does_not_exist_is_still_its_own_error(
    stalled_resolver: threading.Event,
) -> None:
    with pytest.raises(socket.gaierror):
        resolve("no-such-host.invalid", 80, Budget(10.0, 1024))


def test_localhost_is_looked_up_and_served_within_the_budget() -> None:
    # The lookup runs through the bounded resolver; the cap still applies after it.
    with HostileServer(endless_body()) as server, pytest.raises(FleetError) as err:
        PrometheusClient(f"http://localhost:{server.port}", max_bytes=2**20).query("up")
    assert err.value.kind == "too_big"
    assert server.connections, "the client reached the server by its name"


def test_an_ipv6_loopback_server_is_reached_through_the_bounded_connect() -> None:
    # The resolved address is connected to whole (family, flow and scope id kept), not
    # re-resolved from its host string.
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    listener = socket.socket(socket.AF_INET6)
    try:
        listener.bind(("::1", 0))
    except OSError:
        listener.close()
        pytest.skip("no IPv6 loopback here")
    listener.listen(1)
    port = listener.getsockname()[1]

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            body = b'{"status":"success","data":{"resultType":"vector","result":[]}}'
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )

    server = threading.Thread(target=answer, daemon=True)
    server.start()
    try:
        assert PrometheusClient(f"http://[::1]:{port}", timeout_s=5.0).query("up") == []
    finally:
        server.join(5)
        listener.close()
