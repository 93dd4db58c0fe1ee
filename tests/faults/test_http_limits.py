"""Whole-request deadlines and size caps on every network read (issue 21).

A per-read socket timeout is not a deadline: a server that trickles a byte every 0.2 s held
``catalog update`` for ever (its status line and headers were bounded by nothing), and the
Prometheus client read up to 256 MiB per query, 7 at once. Against real loopback servers
(tests/faults/hostile_http.py) each client — catalog update, the Prometheus client, the remote
exporter source — stops at the deadline set in the test, or at its byte cap, with one line
naming the URL and the limit; what it read before it stopped is bounded by the cap, not by
what the server had to send.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.catalog.update import update_catalogs
from gpuprof.cli import main
from gpuprof.errors import InputError
from gpuprof.fleet import FleetError, PrometheusClient
from gpuprof.httpread import HEAD_ROOM_BYTES
from gpuprof.netlimits import EXPORTER_MAX_BYTES, PROMETHEUS_MAX_BYTES
from gpuprof.telemetry.model import SourceState
from gpuprof.telemetry.remote import RemoteError, RemoteSource
from gpuprof.telemetry.remote_http import timeout_for_interval
from tests.faults.hostile import assert_one_clear_error, run_gpuprof
from tests.faults.hostile_http import (
    Conn,
    HostileServer,
    Script,
    endless_body,
    endless_redirect,
    trickle_body,
    trickle_head,
)
from tests.faults.test_remote_faults import STATIC, http

DATA = Path(__file__).resolve().parents[1] / "data" / "skypilot"
#: A good answer does not come within it: the trickle below takes 0.2 s a byte.
DEADLINE_S = 1.0
#: What the kernel's socket buffers on loopback may hold beyond what a client read (the
#: server counts what it handed to the kernel, not what the client took).
SOCKET_BUFFERS = 16 * 2**20


def _catalog_body() -> bytes:
    return (DATA / "lambda_vms.csv").read_bytes()


# -- catalog update ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    [trickle_head(), trickle_body(_catalog_body())],
    ids=["trickled-head", "trickled-body"],
)
@pytest.mark.slow
def test_catalog_update_stops_at_the_deadline_of_the_whole_download(
    script: Script, tmp_path: Path
) -> None:
    with HostileServer(script) as server, pytest.raises(InputError) as err:
        update_catalogs(["lambda"], url_base=server.url, dest_dir=tmp_path, timeout=DEADLINE_S)
    message = str(err.value)
    assert message.startswith(f"{server.url}/lambda/vms.csv: "), message
    assert f"within {DEADLINE_S:g} s" in message and "\n" not in message
    assert 0 < server.sent_bytes < 100  # a byte at a time: a few, then the deadline
    assert list(tmp_path.iterdir()) == []


def test_catalog_update_stops_an_endless_download_at_its_cap(tmp_path: Path) -> None:
    too_big = r"larger than 1 MiB \(the size limit\)"
    with (
        HostileServer(endless_body("text/csv")) as server,
        pytest.raises(InputError, match=too_big) as err,
    ):
        update_catalogs(["lambda"], url_base=server.url, dest_dir=tmp_path, max_bytes=2**20)
    assert str(err.value).startswith(f"{server.url}/lambda/vms.csv: ")
    assert server.most_sent_bytes < 2**20 + SOCKET_BUFFERS
    assert list(tmp_path.iterdir()) == []


def test_catalog_update_bounds_a_redirect_whose_body_never_ends(tmp_path: Path) -> None:
    """urllib reads a redirect's body whole before it follows it: the bytes on the wire are
    counted too (the cap plus room for headers and redirects)."""
    too_big = r"larger than 64\.0 KiB \(the size limit\)"
    with HostileServer(endless_redirect()) as server, pytest.raises(InputError, match=too_big):
        update_catalogs(["lambda"], url_base=server.url, dest_dir=tmp_path, max_bytes=64 * 1024)
    assert server.most_sent_bytes < 64 * 1024 + HEAD_ROOM_BYTES + SOCKET_BUFFERS


def test_catalog_update_cli_says_the_limit_in_one_line(tmp_path: Path) -> None:
    limits = (
        (trickle_body(_catalog_body()), ["--timeout", "1"], "no complete answer within 1 s"),
        (endless_body("text/csv"), ["--max-mib", "1"], "larger than 1 MiB"),
    )
    for script, limit, says in limits:
        with HostileServer(script) as server:
            update = ["catalog", "update", "--providers", "lambda", "--url-base", server.url]
            ran = run_gpuprof([*update, *limit], tmp_path)
        assert_one_clear_error(ran, f"{server.url}/lambda/vms.csv")
        assert says in ran.stderr


# -- the Prometheus client (gpuprof fleet, the Fleet tab) --------------------------------------


def test_a_prometheus_query_stops_at_the_deadline_even_in_the_headers() -> None:
    with HostileServer(trickle_head()) as server, pytest.raises(FleetError) as err:
        PrometheusClient(server.url, timeout_s=DEADLINE_S).query("up")
    assert err.value.kind == "timeout"
    assert f"no complete answer within {DEADLINE_S:g} s" in str(err.value)
    assert server.url in str(err.value)


def test_an_endless_prometheus_answer_stops_at_the_default_cap() -> None:
    with HostileServer(endless_body()) as server, pytest.raises(FleetError) as err:
        PrometheusClient(server.url).query("up")
    assert err.value.kind == "too_big"
    assert "larger than 32 MiB (the size limit)" in str(err.value)
    # 256 MiB per query before: now the default cap, whatever the server had to send.
    assert PROMETHEUS_MAX_BYTES == 32 * 2**20
    assert server.most_sent_bytes < PROMETHEUS_MAX_BYTES + SOCKET_BUFFERS


def test_fleet_cli_takes_its_limits_from_the_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with HostileServer(
        trickle_body(b'{"status": "success"}' * 10, content_type="application/json")
    ) as server:
        code = main(["fleet", "--prometheus", server.url, "--timeout", "1"])
    err = capsys.readouterr().err
    assert code == 2 and server.url in err and "within 1 s" in err, err
    with HostileServer(endless_body()) as server:
        code = main(["fleet", "--prometheus", server.url, "--max-mib", "1"])
    err = capsys.readouterr().err
    assert code == 2 and server.url in err and "larger than 1 MiB" in err, err
    assert server.most_sent_bytes < 2**20 + SOCKET_BUFFERS


# -- the remote exporter source (--connect) ----------------------------------------------------


def test_a_remote_source_stops_at_the_deadline_even_in_the_headers() -> None:
    with HostileServer(trickle_head()) as server, pytest.raises(RemoteError) as err:
        RemoteSource(server.url, timeout_s=DEADLINE_S)
    assert f"no complete answer within {DEADLINE_S:g} s" in str(err.value)
    assert str(err.value).startswith(server.url)


def _exporter(hostile: Script) -> Script:
    """A gpuprof exporter whose first contact (``/api/v1/static``) is good and whose snapshots
    are ``hostile``."""
    static = http(json.dumps(STATIC).encode())

    def script(conn: Conn) -> None:
        if b"/api/v1/static" in conn.request.split(b"\r\n", 1)[0]:
            conn.send(static)
        else:
            hostile(conn)

    return script


def test_a_remote_poll_of_a_trickling_exporter_is_a_clear_status() -> None:
    with HostileServer(_exporter(trickle_head())) as server:
        remote = RemoteSource(server.url, timeout_s=DEADLINE_S)
        snap = remote.poll()  # never raises
    assert snap.status.state is SourceState.ERROR
    assert f"no complete answer within {DEADLINE_S:g} s" in snap.status.message
    assert server.url in snap.status.message


def test_a_remote_poll_of_an_endless_exporter_stops_at_the_cap() -> None:
    with HostileServer(_exporter(endless_body())) as server:
        remote = RemoteSource(server.url)
        snap = remote.poll()
    assert snap.status.state is SourceState.ERROR
    assert "larger than 8 MiB (the size limit)" in snap.status.message
    assert server.most_sent_bytes < EXPORTER_MAX_BYTES + SOCKET_BUFFERS


def test_the_remote_deadline_follows_the_sampling_interval() -> None:
    assert timeout_for_interval(0.1) == 2.0  # at least a few round trips on a slow link
    assert timeout_for_interval(1.0) == 2.0
    assert timeout_for_interval(10.0) == 10.0


def test_the_limits_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for args, texts in (
        (["catalog", "update"], ("(default 120)", "(default 32")),
        (["fleet"], ("(default 30)", "(default 32")),
        (["monitor"], ("within 2 s", "8 MiB")),
        ([], ("within 2 s", "8 MiB", "30 s", "32 MiB")),
    ):
        with pytest.raises(SystemExit):
            main([*args, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        for text in texts:
            assert text in out, (args, text)
