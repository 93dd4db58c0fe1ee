"""One remote machine, live (issue 15): ``gpuprof exporter`` children on loopback read by
:class:`~gpuprof.telemetry.remote.RemoteSource`, ``monitor --connect`` and the app.

Exporters here are real ``python -m gpuprof exporter --demo`` processes on 127.0.0.1 (the token,
TLS and restart cases need the command line's flags and a process to kill); the failures
(refused, not a gpuprof exporter, no answer, a name that does not resolve) use loopback sockets.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuprof.errors import InputError
from gpuprof.telemetry.model import SourceKind, SourceState
from gpuprof.telemetry.remote import RemoteError, RemoteSource, base_url
from tests.faults.hostile import assert_one_clear_error, run_gpuprof
from tests.helpers.loopback import QuietHandler, http_server

#: A bounded wait for a child or a socket; a hang fails, slowness does not.
WAIT_S = 30.0
TOKEN = "tok-3f9a1c7e5b2d4086"
DEMO_HOST = "sim-hgx-h100"


class Child:
    """A ``gpuprof exporter --demo`` child and its base URL."""

    def __init__(self, *args: str, port: int = 0) -> None:
        cmd = [sys.executable, "-m", "gpuprof", "exporter", "--demo", "--port", str(port), *args]
        env = dict(os.environ, GPUPROF_LANG="en")
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], WAIT_S)
        line = self.proc.stdout.readline() if ready else ""
        match = re.search(r"(https?)://127\.0\.0\.1:(\d+)/metrics", line)
        if not match:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=WAIT_S)
            raise AssertionError(f"exporter did not start: {line!r} {err[-2000:]}")
        self.port = int(match.group(2))
        self.url = f"{match.group(1)}://127.0.0.1:{self.port}"
        self.stderr = ""

    def kill(self) -> None:
        """SIGKILL: the machine or the exporter went away without a word."""
        self.proc.kill()
        self.proc.communicate(timeout=WAIT_S)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                _, self.stderr = self.proc.communicate(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def demo() -> Iterator[Child]:
    child = Child()
    yield child
    child.stop()


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("token") / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def guarded(token_file: Path) -> Iterator[Child]:
    child = Child("--token-file", str(token_file))
    yield child
    child.stop()


def http_get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


# -- reading a remote machine ------------------------------------------------------------------


def test_remote_source_reads_what_the_exporter_serves(demo: Child) -> None:
    remote = RemoteSource(demo.url)
    try:
        _, _, body = http_get(demo.url + "/api/v1/static")
        static = json.loads(body)
        assert static["version"] == 1 and static["kind"] == "gpuprof.static"
        names = [d["name"] for d in static["devices"]]
        assert len(names) == 8
        assert [d.name for d in remote.devices()] == names
        assert remote.system_info().hostname == DEMO_HOST
        # A remote demo is SIMULATED here too: in its kind, its label and every snapshot.
        assert remote.kind is SourceKind.SIMULATED
        assert "SIMULATED" in remote.label and DEMO_HOST in remote.label
        assert demo.url in remote.label

        snap = remote.poll()
        _, _, body = http_get(demo.url + "/api/v1/snapshot")
        served = json.loads(body)
        assert served["version"] == 1 and served["source"]["kind"] == "simulated"
        assert snap.source is SourceKind.SIMULATED
        assert snap.status.state is SourceState.OK
        assert [g.uuid for g in snap.gpus] == [g["uuid"] for g in served["snapshot"]["gpus"]]
        assert all(g.util_gpu_pct is not None for g in snap.gpus)
        assert snap.host.cpu_pct is not None
        # Processes come through the exporter's redaction: the program's name, no arguments.
        assert snap.processes
        assert all(p.cmdline is None or "[arguments hidden]" in p.cmdline for p in snap.processes)
        assert abs(snap.time_s - time.time()) < 60  # when it arrived here
    finally:
        remote.close()


def test_the_snapshot_endpoint_is_strict_json_and_head_works(demo: Child) -> None:
    status, headers, body = http_get(demo.url + "/api/v1/snapshot")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    json.loads(body, parse_constant=lambda name: pytest.fail(f"{name} in the snapshot"))
    req = urllib.request.Request(demo.url + "/api/v1/static", method="HEAD")
    with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
        assert int(resp.headers["Content-Length"]) > 100 and resp.read() == b""


@pytest.mark.slow
def test_monitor_connect_prints_the_remote_gpus(demo: Child, tmp_path: Path) -> None:
    ran = run_gpuprof(["monitor", "--connect", demo.url, "--once", "--json"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    snap = json.loads(ran.stdout)
    assert snap["source"] == "simulated"
    assert len(snap["gpus"]) == 8
    ran = run_gpuprof(["monitor", "--connect", demo.url, "--once"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "SIMULATED" in ran.stdout and DEMO_HOST in ran.stdout
    assert ran.stdout.count("H100 80GB HBM3") == 8


def test_base_url_takes_the_path_off_and_refuses_other_schemes() -> None:
    assert base_url("127.0.0.1:9400") == ("http://127.0.0.1:9400", "http://127.0.0.1:9400")
    assert base_url("http://u:pw@h:9400/metrics")[1] == "http://h:9400"
    assert base_url("https://proxy/gpu1/api/v1/snapshot")[0] == "https://proxy/gpu1"
    for bad in ("file:///etc/passwd", "ftp://h/x", "http://", "http://h:99999"):
        with pytest.raises(InputError):
            base_url(bad)


# -- the token -----------------------------------------------------------------------------------


def test_token_right_is_200_wrong_or_missing_is_401(guarded: Child) -> None:
    for path in ("/api/v1/snapshot", "/api/v1/static", "/metrics", "/"):
        status, headers, body = http_get(guarded.url + path)
        assert status == 401, path
        assert headers["WWW-Authenticate"] == 'Bearer realm="gpuprof"'
        assert b"needs a bearer token" in body
        status, headers, body = http_get(
            guarded.url + path, {"Authorization": "Bearer wrong-token"}
        )
        assert status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"]
        assert b"wrong" in body
        status, _, _ = http_get(guarded.url + path, {"Authorization": f"Bearer {TOKEN}"})
        assert status == 200, path


@pytest.mark.slow
def test_the_client_sends_the_token_and_says_when_it_is_missing_or_wrong(
    guarded: Child, token_file: Path, tmp_path: Path
) -> None:
    remote = RemoteSource(guarded.url, token_file=token_file)
    assert len(remote.poll().gpus) == 8
    with pytest.raises(RemoteError, match=r"401 Unauthorized: the exporter needs a token"):
        RemoteSource(guarded.url)
    wrong = tmp_path / "wrong"
    wrong.write_text("not-the-token\n")
    wrong.chmod(0o600)
    with pytest.raises(RemoteError, match="refused the token"):
        RemoteSource(guarded.url, token_file=wrong)
    ran = run_gpuprof(["monitor", "--connect", guarded.url, "--once"], tmp_path)
    assert_one_clear_error(ran, guarded.url)
    assert "401" in ran.stderr and "--token-file" in ran.stderr
    ran = run_gpuprof(
        ["monitor", "--connect", guarded.url, "--token-file", str(token_file), "--once"], tmp_path
    )
    assert ran.returncode == 0 and ran.stdout.count("H100 80GB HBM3") == 8, ran.stderr


def test_a_token_file_every_user_can_read_is_warned_of(tmp_path: Path) -> None:
    from gpuprof.exporter.api import read_token

    path = tmp_path / "token"
    path.write_text(TOKEN)
    path.chmod(0o644)
    token, warnings = read_token(path)
    assert token == TOKEN
    assert len(warnings) == 1 and "chmod 600" in warnings[0] and str(path) in warnings[0]
    path.chmod(0o600)
    assert read_token(path) == (TOKEN, [])


# -- TLS -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (``openssl req``) and its key."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs openssl to make a self-signed certificate")
    folder = tmp_path_factory.mktemp("tls")
    crt, key = folder / "cert.pem", folder / "key.pem"
    done = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(crt)],
        capture_output=True, text=True, timeout=WAIT_S, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"openssl cannot make a certificate here: {done.stderr[-300:]}")
    return crt, key


@pytest.mark.slow
def test_tls_with_a_self_signed_certificate_and_its_ca_file(cert: tuple[Path, Path]) -> None:
    crt, key = cert
    child = Child("--tls-cert", str(crt), "--tls-key", str(key))
    try:
        assert child.url.startswith("https://")
        remote = RemoteSource(child.url, ca_file=str(crt))
        snap = remote.poll()
        assert snap.status.ok and len(snap.gpus) == 8 and snap.source is SourceKind.SIMULATED
        # Without the CA file the system's store does not trust it: a clear TLS message.
        with pytest.raises(RemoteError, match="certificate is not trusted") as info:
            RemoteSource(child.url)
        assert child.url in str(info.value) and "--ca-file" in str(info.value)
        # Plain HTTP to the HTTPS port: the server says nothing, the message suggests https://.
        plain = child.url.replace("https://", "http://")
        with pytest.raises(RemoteError, match="try https://"):
            RemoteSource(plain)
        # The server still serves after the failed handshakes.
        ctx = ssl.create_default_context(cafile=str(crt))
        with urllib.request.urlopen(child.url + "/metrics", timeout=WAIT_S, context=ctx) as r:
            assert b"DCGM_FI_DEV_GPU_UTIL" in r.read()
    finally:
        child.stop()
    assert "Traceback" not in child.stderr


@pytest.mark.slow
def test_tls_flags_that_cannot_work_are_one_clear_line(
    cert: tuple[Path, Path], tmp_path: Path
) -> None:
    _, key = cert
    ran = run_gpuprof(["exporter", "--demo", "--port", "0", "--tls-key", str(key)], tmp_path)
    assert_one_clear_error(ran, "--tls-cert")
    ran = run_gpuprof(
        ["exporter", "--demo", "--port", "0", "--tls-cert", str(key), "--tls-key", str(key)],
        tmp_path,
    )
    assert_one_clear_error(ran, str(key))


# -- the connection drops and comes back --------------------------------------------------------


@pytest.mark.slow
def test_a_dropped_connection_is_a_status_naming_the_url_and_it_comes_back() -> None:
    child = Child()
    now = [1000.0]
    remote = RemoteSource(child.url, monotonic=lambda: now[0])
    try:
        assert remote.poll().status.ok
        child.kill()
        down = remote.poll()
        assert down.status.state is SourceState.ERROR
        assert child.url in down.status.message and "refused" in down.status.message
        assert down.status.hint
        # The GPUs are still there, without values: a gap in the plots, not a vanished GPU.
        assert [g.index for g in down.gpus] == list(range(8))
        assert all(g.util_gpu_pct is None and not g.lost for g in down.gpus)
        assert down.source is SourceKind.SIMULATED
        now[0] += 12.0
        child = Child(port=child.port)
        back = remote.poll()
        assert back.status.ok and len(back.gpus) == 8
        assert "is back" in back.status.message and child.url in back.status.message
        assert "12 s" in back.status.message and back.status.hint
        now[0] += 11.0  # after BACK_NOTICE_S, the notice is gone
        later = remote.poll()
        assert later.status.ok and "is back" not in later.status.message
    finally:
        child.stop()


# -- failures, each one line naming the URL -----------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_connection_refused(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(RemoteError, match="connection refused") as info:
        RemoteSource(url)
    assert str(info.value).startswith(url + ": ")
    ran = run_gpuprof(["monitor", "--connect", url, "--once"], tmp_path)
    assert_one_clear_error(ran, url)
    # The app fails fast too, before any window (as --replay of a missing file does).
    shot = tmp_path / "shot.png"
    ran = run_gpuprof(["--connect", url, "--screenshot", str(shot)], tmp_path)
    assert_one_clear_error(ran, url)
    assert not shot.exists()


class _Html(QuietHandler):
    def do_GET(self) -> None:
        body = b"<html><body>a router's login page</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_not_a_gpuprof_exporter() -> None:
    with (
        http_server(_Html) as url,
        pytest.raises(RemoteError, match="not a gpuprof exporter") as info,
    ):
        RemoteSource(url)
    assert url in str(info.value) and "text/html" in str(info.value)


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts; nobody ever answers
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(RemoteError, match=r"no answer within 0.5 s") as info:
            RemoteSource(url, timeout_s=0.5)
        assert url in str(info.value)


def test_a_name_that_does_not_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    def nowhere(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", nowhere)
    with pytest.raises(RemoteError, match="cannot resolve the host name gpu-node-7"):
        RemoteSource("http://gpu-node-7:9400")


# -- the app -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_app_shows_the_remote_host_and_a_banner_when_the_connection_drops(
    make_window: Any, qtbot: Any
) -> None:
    from gpuprof.exporter import Exporter
    from gpuprof.telemetry.sources import SimulatedSource

    source = SimulatedSource.demo()
    exporter = Exporter(source, port=0).start()
    url = exporter.url.removesuffix("/metrics")
    port = exporter.port
    try:
        w = make_window(RemoteSource(url))
        title = w.windowTitle()
        assert DEMO_HOST in title and "SIMULATED" in title and url in title
        assert DEMO_HOST in w.status_line.source.text()
        assert not w.source_badge.isHidden()  # the SIMULATED badge
        w.poll_now()
        qtbot.waitUntil(lambda: w.snapshot_count >= 1, timeout=5000)
        assert w.banner.text() == ""
        exporter.stop()
        w.poll_now()
        qtbot.waitUntil(lambda: "Lost the connection" in w.banner.text(), timeout=5000)
        assert url in w.banner.text()
        exporter = Exporter(source, port=port).start()
        w.poll_now()
        qtbot.waitUntil(lambda: "is back" in w.banner.text(), timeout=5000)
    finally:
        exporter.stop()


@pytest.mark.slow
def test_file_connect_opens_the_dialog_and_switches_the_source(
    make_window: Any, qtbot: Any
) -> None:
    from gpuprof.ui.telemetry.connect_dialog import ConnectDialog
    from PySide6.QtGui import QAction

    from gpuprof.exporter import Exporter
    from gpuprof.telemetry.sources import SimulatedSource

    exporter = Exporter(SimulatedSource.demo(), port=0).start()
    url = exporter.url.removesuffix("/metrics")
    try:
        w = make_window()
        action = w.findChild(QAction, "connectAction")
        assert action is not None
        action.trigger()
        dialog = w.findChild(ConnectDialog)
        assert dialog is not None and dialog.isVisible()
        dialog.url.setText(f"http://127.0.0.1:{_free_port()}")
        dialog.try_connect()
        qtbot.waitUntil(lambda: "refused" in dialog.message.text(), timeout=10000)
        assert dialog.isVisible()
        dialog.url.setText(url)
        dialog.try_connect()
        qtbot.waitUntil(lambda: isinstance(w.source, RemoteSource), timeout=10000)
        qtbot.waitUntil(lambda: DEMO_HOST in w.windowTitle(), timeout=10000)
    finally:
        exporter.stop()


def test_the_app_command_line_opens_a_remote_source(demo: Child) -> None:
    import argparse

    from gpuprof.ui.shell.app import _open_source

    args = argparse.Namespace(replay=None, demo=False, connect=demo.url, token_file=None)
    source, prefill = _open_source(args)
    assert isinstance(source, RemoteSource) and prefill is None
    source.close()
