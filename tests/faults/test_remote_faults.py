"""Hostile exporters and token files for ``--connect`` (issue 15).

A loopback server answers ``/api/v1/static`` and ``/api/v1/snapshot`` with what each case
scripts: cut short, the wrong types, too big, nested too deeply, not UTF-8, not JSON, not HTTP,
a redirect, a trickle. :class:`~gpuprof.telemetry.remote.RemoteSource` must answer every one
with a snapshot whose status names the URL and what failed, in one bounded line, and never
raise, hang or hand a plot an impossible value; a good answer afterwards is OK again. When
the first contact is hostile, opening fails with one line naming the URL (``monitor --connect``:
exit 2, no traceback). A token file of the wrong kind is one line naming the file, exit 2, for
the exporter and for the client.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gpuprof.errors import InputError
from gpuprof.exporter import SourceHealth, api
from gpuprof.telemetry.model import SourceKind, SourceState
from gpuprof.telemetry.remote import MAX_ANSWER_BYTES, RemoteError, RemoteSource
from gpuprof.telemetry.sources import SimulatedSource
from tests.faults.hostile import assert_one_clear_error, hostile_files, run_gpuprof, set_at
from tests.faults.hostile_http import Conn, HostileServer

Answer = bytes | Callable[[socket.socket], None]
WAIT_S = 20.0


def _demo_documents() -> tuple[dict[str, Any], dict[str, Any]]:
    src = SimulatedSource.demo()
    static = api.static_document(
        src.system_info(), src.devices(), src.topology(), kind=src.kind, label=src.label
    )
    health = SourceHealth(
        up=True, stale=False, last_success_age_s=0.2, poll_errors=0, stale_after_s=5.0
    )
    snap = api.snapshot_document(
        api.redact_snapshot(src.poll()),
        kind=src.kind,
        label=src.label,
        hostname=src.system_info().hostname,
        health=health,
    )
    return json.loads(api.encode(static)), json.loads(api.encode(snap))


STATIC, SNAPSHOT = _demo_documents()


def http(
    body: bytes,
    *,
    status: str = "200 OK",
    ctype: str | None = "application/json",
    length: int | None = -1,
    headers: tuple[str, ...] = (),
) -> bytes:
    """An HTTP/1.0 answer; ``length`` -1: the body's, None: no Content-Length."""
    lines = [f"HTTP/1.0 {status}"]
    if ctype is not None:
        lines.append(f"Content-Type: {ctype}")
    if length is not None:
        lines.append(f"Content-Length: {len(body) if length == -1 else length}")
    lines += [*headers, "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def doc(change: Callable[[dict[str, Any]], None], base: dict[str, Any] = SNAPSHOT) -> bytes:
    """The good snapshot document, changed by ``change``, as an answer."""
    d = json.loads(json.dumps(base))
    change(d)
    return http(json.dumps(d).encode("utf-8"))


def _stream(total: int) -> Callable[[socket.socket], None]:
    def send(conn: socket.socket) -> None:
        conn.sendall(http(b"", length=None))
        block = b"[" + b"0," * (1 << 15)
        sent = 0
        while sent < total:
            conn.sendall(block)
            sent += len(block)

    return send


def _trickle(conn: socket.socket) -> None:
    good = json.dumps(SNAPSHOT).encode()
    conn.sendall(http(good)[: -len(good)])
    for i in range(40):  # a byte every 0.1 s: never a socket timeout, always the deadline
        conn.sendall(good[i : i + 1])
        time.sleep(0.1)


def _cut(conn: socket.socket) -> None:
    good = json.dumps(SNAPSHOT).encode()
    conn.sendall(http(good)[: -len(good) // 2])


def _silent(conn: socket.socket) -> None:
    pass


_GOOD = json.dumps(SNAPSHOT).encode()

#: name -> (the snapshot answer, what the status must say).
HOSTILE: dict[str, tuple[Answer, str]] = {
    "truncated": (http(_GOOD[: len(_GOOD) // 2]), "not valid JSON"),
    "length-lie": (_cut, "cut short"),
    "empty": (http(b""), "not valid JSON"),
    "non-utf8": (http(b'{"version": 1, "kind": "gpuprof.snapshot", "x": "\xff\xfe\xc3("}'), "UTF-8"),
    "nan": (http(_GOOD.replace(b'"cpu_pct": ', b'"cpu_pct": NaN, "x": ', 1)), "not valid JSON"),
    "deeply-nested": (http(b"[" * 200_000 + b"]" * 200_000), "not valid JSON"),
    "nested-in-a-document": (doc(set_at("snapshot.x", json.loads("[" * 60 + "]" * 60))), "shape"),
    "huge-declared": (http(b"", length=MAX_ANSWER_BYTES + 1), "larger than 8 MiB"),
    "huge-streamed": (_stream(MAX_ANSWER_BYTES + (1 << 20)), "larger than 8 MiB"),
    "html": (http(b"<html>login</html>", ctype="text/html"), "not a gpuprof exporter"),
    "no-content-type": (http(_GOOD, ctype=None), "not a gpuprof exporter"),
    "json-list": (http(b"[1, 2, 3]"), "other JSON"),
    "json-null": (http(b"null"), "other JSON"),
    "json-number": (http(b"42"), "other JSON"),
    "wrong-kind": (doc(set_at("kind", "gpuprof.static")), "other JSON"),
    "newer-version": (doc(set_at("version", 2)), "version 2"),
    "version-as-text": (doc(set_at("version", "1")), 'version "1"'),
    "gpus-a-string": (doc(set_at("snapshot.gpus", "eight")), "shape"),
    "time-as-text": (doc(set_at("snapshot.time_s", "now")), "shape"),
    "host-a-list": (doc(set_at("snapshot.host", [1, 2])), "shape"),
    "unknown-kind": (doc(set_at("source.kind", "quantum")), "shape"),
    "snapshot-kind-unknown": (doc(set_at("snapshot.source", "quantum")), "shape"),
    "no-source": (doc(set_at("source", None)), "shape"),
    "index-as-text": (doc(set_at("snapshot.gpus.0.index", "0")), "shape"),
    "index-negative": (doc(set_at("snapshot.gpus.0.index", -1)), "shape"),
    "index-fraction": (doc(set_at("snapshot.gpus.0.index", 1.5)), "shape"),
    "index-duplicate": (doc(set_at("snapshot.gpus.1.index", 0)), "shape"),
    "a-thousand-gpus": (
        doc(set_at("snapshot.gpus", [{"index": i % 64} for i in range(1000)])),
        "shape",
    ),
    "int-out-of-range": (doc(set_at("snapshot.gpus.0.mem_used_bytes", 10**30)), "shape"),
    "int-of-5000-digits": (http(_GOOD.replace(b'"cpu_pct": ', b'"cpu_pct": ' + b"7" * 5000 + b", \"y\": ", 1)), "not valid JSON"),
    "cores-by-the-million": (doc(set_at("snapshot.host.cpu_per_core_pct", [1.0] * 100_000)), "shape"),
    "processes-not-a-list": (doc(set_at("snapshot.processes", {"pid": 1})), "shape"),
    "state-unknown": (doc(set_at("snapshot.status", {"state": "exploded"})), "shape"),
    "http-500": (http(b"boom", status="500 Internal Server Error", ctype="text/plain"), "HTTP 500"),
    "unauthorized": (http(b"no", status="401 Unauthorized", ctype="text/plain"), "401"),
    "redirect": (
        http(b"", status="302 Found", headers=("Location: http://elsewhere.example/steal",)),
        "redirected to http://elsewhere.example/steal",
    ),
    "not-http": (b"\x16\x03\x01\x00garbage that is no HTTP at all\r\n\r\n", "not HTTP"),
    "silent-close": (_silent, "without answering"),
    "trickle": (_trickle, "no complete answer within 1 s"),
}  # fmt: skip


@dataclass
class Scripted:
    """A loopback server: ``/api/v1/static`` good unless ``static`` is set, ``/api/v1/snapshot``
    answering ``snapshot`` (bytes, or a function writing to the connection)."""

    snapshot: Answer
    static: Answer | None = None
    requests: int = 0

    def start(self) -> Scripted:
        self._server = HostileServer(self._answer)
        return self

    @property
    def url(self) -> str:
        return self._server.url

    def _answer(self, conn: Conn) -> None:
        conn.sock.settimeout(WAIT_S)
        self.requests += 1
        path = conn.request.split(b" ", 2)[1].decode()
        if path.endswith("/static"):
            answer = self.static or http(json.dumps(STATIC).encode())
        else:
            answer = self.snapshot
        if callable(answer):
            answer(conn.sock)
        else:
            conn.sock.sendall(answer)

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def scripted() -> Iterator[Scripted]:
    server = Scripted(http(_GOOD)).start()
    yield server
    server.close()


def _clear_status_line(message: str, url: str) -> None:
    assert url in message, message
    assert "\n" not in message and "\x1b" not in message
    assert len(message) < 1000, len(message)
    assert "Traceback" not in message


@pytest.mark.slow
def test_every_hostile_snapshot_is_a_clear_status_and_the_good_one_after_it_is_ok(
    scripted: Scripted,
) -> None:
    remote = RemoteSource(scripted.url, timeout_s=1.0)
    assert remote.poll().status.ok
    handled = []
    for name, (answer, expected) in HOSTILE.items():
        scripted.snapshot = answer
        snap = remote.poll()  # never raises
        assert snap.status.state is SourceState.ERROR, name
        _clear_status_line(snap.status.message, scripted.url)
        assert expected in snap.status.message, (name, snap.status.message)
        # The known GPUs, without values (a gap), and nothing a plot cannot take.
        assert [g.index for g in snap.gpus] == list(range(8)), name
        assert all(g.util_gpu_pct is None for g in snap.gpus), name
        assert snap.source is SourceKind.SIMULATED, name
        scripted.snapshot = http(_GOOD)
        back = remote.poll()
        assert back.status.ok and len(back.gpus) == 8, (name, back.status)
        assert "is back" in back.status.message, name
        handled.append(name)
    assert len(handled) == len(HOSTILE) >= 35


def test_hostile_text_in_a_good_snapshot_is_cleaned_and_bounded(scripted: Scripted) -> None:
    remote = RemoteSource(scripted.url)
    status = {
        "state": "gpu_lost",
        "message": "\x1b[2J\x1b]0;owned\x07GPU 3 \u202egone" + "!" * 100_000,
        "hint": "\x9b31m" * 10,
        "lost_gpus": [3],
    }
    scripted.snapshot = doc(set_at("snapshot.status", status))
    snap = remote.poll()
    assert snap.status.state is SourceState.GPU_LOST and snap.status.lost_gpus == (3,)
    assert snap.status.message.startswith("sim-hgx-h100: ")  # the remote host is named
    for text in (snap.status.message, snap.status.hint):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), text
        assert len(text) < 1000


def test_an_exporter_whose_gpus_stopped_answering_says_so(scripted: Scripted) -> None:
    remote = RemoteSource(scripted.url)

    def stale(d: dict[str, Any]) -> None:
        d["snapshot"] = None
        d["health"]["last_success_age_s"] = 42.0

    scripted.snapshot = doc(stale)
    snap = remote.poll()
    assert snap.status.state is SourceState.ERROR
    assert "no fresh data" in snap.status.message and "42 s" in snap.status.message
    assert snap.source is SourceKind.SIMULATED and len(snap.gpus) == 8


@pytest.mark.slow
def test_a_session_on_a_hostile_exporter_keeps_sampling(scripted: Scripted) -> None:
    from gpuprof.telemetry.session import TelemetrySession

    remote = RemoteSource(scripted.url, timeout_s=1.0)
    statuses: list[SourceState] = []

    def wait_for(state: SourceState) -> None:
        deadline = time.monotonic() + WAIT_S
        n = len(statuses)
        while state not in statuses[n:] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert state in statuses[n:]

    with TelemetrySession(remote, interval_s=0.1) as session:
        session.subscribe(lambda snap: statuses.append(snap.status.state))
        session.start()
        wait_for(SourceState.OK)
        for name in ("deeply-nested", "a-thousand-gpus", "int-out-of-range", "non-utf8"):
            scripted.snapshot = HOSTILE[name][0]
            wait_for(SourceState.ERROR)
            scripted.snapshot = http(_GOOD)
            wait_for(SourceState.OK)
        assert session.sampler.error_count == 0
        assert session.last_error is None
        assert session.history.latest() is not None


#: Answers to the first contact (``/api/v1/static``) that must refuse to open, in one line.
HOSTILE_STATIC = (
    "truncated", "empty", "non-utf8", "deeply-nested", "huge-declared", "html", "json-list",
    "newer-version", "http-500", "unauthorized", "redirect", "not-http", "silent-close",
    "trickle",
)  # fmt: skip


@pytest.mark.slow
def test_a_hostile_first_contact_refuses_to_open_in_one_line() -> None:
    bad_static = {
        "gpus-as-devices": doc(set_at("devices", "eight"), STATIC),
        "device-index-duplicate": doc(set_at("devices.1.index", 0), STATIC),
        "topology-huge": doc(set_at("topology.matrix", [["X"]] * 100), STATIC),
        "name-a-number": doc(set_at("devices.0.name", 7), STATIC),
        "no-source": doc(set_at("source", None), STATIC),
        "hostname-a-list": doc(set_at("system.hostname", ["a"]), STATIC),
    }
    for name in HOSTILE_STATIC:
        bad_static[name] = HOSTILE[name][0]
    for answer in bad_static.values():
        server = Scripted(http(_GOOD), static=answer).start()
        try:
            with pytest.raises(RemoteError) as info:
                RemoteSource(server.url, timeout_s=1.0)
            _clear_status_line(str(info.value), server.url)
        finally:
            server.close()


@pytest.mark.parametrize("name", ["html", "deeply-nested", "not-http"])
@pytest.mark.slow
def test_monitor_connect_to_a_hostile_exporter_is_one_clear_error(
    name: str, tmp_path: Path
) -> None:
    server = Scripted(http(_GOOD), static=HOSTILE[name][0]).start()
    try:
        ran = run_gpuprof(["monitor", "--connect", server.url, "--once"], tmp_path)
        assert_one_clear_error(ran, server.url)
    finally:
        server.close()


# -- token files -----------------------------------------------------------------------------


def _token_files(folder: Path) -> dict[str, Path]:
    files = hostile_files(folder)
    fifo = folder / "a-fifo"
    os.mkfifo(fifo)
    files["a-fifo"] = fifo
    spaced = folder / "with-a-space"
    spaced.write_text("two words\n")
    files["with-a-space"] = spaced
    return files


def test_hostile_token_files_are_refused_by_the_client_naming_the_file(tmp_path: Path) -> None:
    files = _token_files(tmp_path / "tokens")
    for name, path in files.items():
        with pytest.raises(InputError) as info:
            RemoteSource("http://127.0.0.1:9", token_file=path)  # refused before any connection
        assert str(path) in str(info.value), name
        assert "\n" not in str(info.value)


@pytest.mark.slow
def test_hostile_token_files_stop_the_exporter_in_one_line(tmp_path: Path) -> None:
    files = _token_files(tmp_path / "tokens")
    for name, path in files.items():
        ran = run_gpuprof(
            ["exporter", "--demo", "--port", "0", "--token-file", str(path)], tmp_path
        )
        assert_one_clear_error(ran, str(path))
        assert "serving" not in ran.stdout, name
