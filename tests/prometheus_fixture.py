"""A real Prometheus for the tests: Debian's ``prometheus`` package, started on loopback.

:func:`start_fleet` starts ``gpuprof exporter --demo`` children (each on a free loopback port,
URL read from what it prints), a tiny HTTP server serving a fixed dcgm-exporter ``/metrics``
page (:data:`DCGM_NODE`: plain dcgm-exporter series, a job's pod labels, an XID, an idle GPU
held by a pod, one GPU throttling), and ``prometheus`` with a temporary config and data folder,
scraping them all every second. It waits until Prometheus has scraped every target and stops
everything it started (each child's whole process group), also when the test fails.

Without ``prometheus`` on the PATH the tests that use it are skipped: ``.ci/run`` installs it
(``apt-get install prometheus``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
SKIP_REASON = "prometheus (Debian package prometheus) not installed; .ci/run installs it"
needs_prometheus = pytest.mark.skipif(PROMETHEUS is None, reason=SKIP_REASON)
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool (Debian package prometheus) not installed"
)

#: The dcgm-exporter node: 4 A100s. GPU 1 had XID 48 with double-bit ECC errors, GPU 2 is held
#: by a pod at 0 % utilization, GPU 3 is in hardware thermal slowdown (bit 0x40) alone.
DCGM_HOST = "dgx-a100-07"
DCGM_MODEL = "NVIDIA A100-SXM4-80GB"
DCGM_GPUS: tuple[dict[str, float], ...] = (
    {"DCGM_FI_DEV_GPU_UTIL": 95, "DCGM_FI_DEV_FB_USED": 61000},
    {"DCGM_FI_DEV_GPU_UTIL": 90, "DCGM_FI_DEV_XID_ERRORS": 48, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": 2},
    {"DCGM_FI_DEV_GPU_UTIL": 0, "DCGM_FI_DEV_FB_USED": 40000},
    {"DCGM_FI_DEV_GPU_UTIL": 92, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": 0x40},
)
#: GPU 2's holder, as dcgm-exporter's Kubernetes mapping labels it.
DCGM_POD = {"namespace": "ml", "pod": "train-7", "container": "trainer"}
FIELDS_CSV = ROOT / "tests" / "data" / "dcgm-exporter-fields.csv"
#: The alerting rules of packaging/prometheus, loaded by the fixture's Prometheus too.
RULES = ROOT / "packaging" / "prometheus" / "gpuprof-alerts.yml"
#: Published once enabled (DCGM field 112); the reader decodes its bits.
_EXTRA_FIELDS = (
    ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors."),
    ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bitmask)."),
)
_DEFAULTS = {
    "DCGM_FI_DEV_SM_CLOCK": 1410,
    "DCGM_FI_DEV_MEM_CLOCK": 1593,
    "DCGM_FI_DEV_MEMORY_TEMP": 45,
    "DCGM_FI_DEV_GPU_TEMP": 52,
    "DCGM_FI_DEV_POWER_USAGE": 310.5,
    "DCGM_FI_DEV_FB_FREE": 20000,
    "DCGM_FI_DEV_FB_USED": 61000,
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE": 0.91,
}


def dcgm_fields() -> list[tuple[str, str, str]]:
    """(name, type, help) of the fields dcgm-exporter publishes by default, from its CSV."""
    out = []
    for line in FIELDS_CSV.read_text("utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, kind, help_text = (p.strip() for p in line.split(",", 2))
        if kind != "label":
            out.append((name, kind, help_text))
    return out


def dcgm_metrics_text(host: str = DCGM_HOST) -> str:
    """A dcgm-exporter ``/metrics`` page in its own format (HELP, TYPE, labels in its order,
    ``DCGM_FI_DRIVER_VERSION`` as a label, the pod labels of its Kubernetes mapping)."""
    lines = []
    for name, kind, help_text in [*dcgm_fields(), *_EXTRA_FIELDS]:
        samples = []
        for i, values in enumerate(DCGM_GPUS):
            value = values.get(name, _DEFAULTS.get(name, 0))
            labels = {
                "gpu": str(i),
                "UUID": f"GPU-5f3a{i:04d}-7c1e-4b2a-9e0d-3c8f1a2b{i:04d}",
                "pci_bus_id": f"00000000:{0x07 + i * 8:02X}:00.0",
                "device": f"nvidia{i}",
                "modelName": DCGM_MODEL,
                "Hostname": host,
                "DCGM_FI_DRIVER_VERSION": "550.90.07",
            }
            if i == 2:
                labels.update(DCGM_POD)
            text = ",".join(f'{k}="{v}"' for k, v in labels.items())
            samples.append(f"{name}{{{text}}} {value}")
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *samples]
    return "\n".join(lines) + "\n"


#: What a fake server answers: (status, content type, body) for (method, path, request body).
Answer = Callable[[str, str, bytes], tuple[int, str, bytes]]


class StaticMetrics:
    """A loopback HTTP server answering every request with ``body`` (a dcgm-exporter page, or
    a hostile answer for the fault tests), or with what ``body(method, path, data)`` returns.
    ``token``: a required bearer token (401 without it); ``delay_s``: wait before answering;
    ``trickle_s``: send the body a byte at a time, this far apart."""

    def __init__(
        self,
        body: bytes | str | Answer,
        *,
        status: int = 200,
        content_type: str = "text/plain; version=0.0.4",
        token: str | None = None,
        delay_s: float = 0.0,
        trickle_s: float = 0.0,
    ) -> None:
        if callable(body):
            self.answer: Answer = body
        else:
            data = body.encode() if isinstance(body, str) else body
            self.answer = lambda method, path, got: (status, content_type, data)
        self.token = token
        self.delay_s = delay_s
        self.trickle_s = trickle_s
        self.requests: list[str] = []
        self._closing = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, got: bytes) -> None:
                outer.requests.append(self.path)
                if outer.delay_s and outer._closing.wait(outer.delay_s):
                    return
                if outer.token and self.headers.get("Authorization") != f"Bearer {outer.token}":
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", "Bearer")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, content_type, data = outer.answer(self.command, self.path, got)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    if not outer.trickle_s:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):
                        if outer._closing.wait(outer.trickle_s):
                            return
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()

            def do_GET(self) -> None:
                self._answer(b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._answer(self.rfile.read(length))

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> StaticMetrics:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_prometheus(
    binary: str, config: Path, data: Path, port: int, log: Path, *flags: str
) -> subprocess.Popen[bytes]:
    """Prometheus on 127.0.0.1:``port`` with ``config`` and its TSDB in ``data``, logging
    warnings to the end of ``log``; ``flags``: more of its options. It runs in a session of
    its own, so that stopping its group stops it whole."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [
                binary,
                f"--config.file={config}",
                f"--storage.tsdb.path={data}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
                *flags,
            ],
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the child's process group, SIGKILL after 5 s."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass
class Child:
    proc: subprocess.Popen[bytes]
    url: str
    labels: dict[str, str]

    @property
    def address(self) -> str:
        return self.url.split("//", 1)[1].split("/", 1)[0]

    def stop(self) -> None:
        _stop(self.proc)


@dataclass
class Fleet:
    """What :func:`start_fleet` runs: Prometheus at ``url`` and its targets."""

    url: str
    prometheus: subprocess.Popen[bytes]
    folder: Path
    exporters: list[Child] = field(default_factory=list)
    dcgm: StaticMetrics | None = None
    dcgm_labels: dict[str, str] = field(default_factory=dict)

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=10) as resp:
            return json.loads(resp.read())

    def wait_until(self, what: str, check, deadline_s: float = 30.0) -> None:
        """Poll ``check()`` until true; fail naming ``what`` and Prometheus's log."""
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            with contextlib.suppress(OSError, ValueError):
                if check():
                    return
            time.sleep(0.2)
        log = (self.folder / "prometheus.log").read_text("utf-8", "replace")[-2000:]
        raise AssertionError(f"Prometheus: {what} not within {deadline_s:g} s\n{log}")

    def targets_health(self) -> dict[str, str]:
        active = self.get("/api/v1/targets?state=active")["data"]["activeTargets"]
        return {t["labels"]["instance"]: t["health"] for t in active}

    def gpus_seen(self) -> int:
        query = urllib.parse.quote("count(DCGM_FI_DEV_GPU_UTIL)")
        result = self.get(f"/api/v1/query?query={query}")["data"]["result"]
        return int(float(result[0]["value"][1])) if result else 0


def _start_exporter(folder: Path, name: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    out = (folder / f"{name}.out").open("wb")
    err = (folder / f"{name}.err").open("wb")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "gpuprof", "exporter", "--demo", "--port", "0"],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=folder,
            start_new_session=True,
        )
    finally:
        out.close()
        err.close()


def _exporter_url(folder: Path, name: str, proc: subprocess.Popen[bytes]) -> str:
    end = time.monotonic() + 60.0
    path = folder / f"{name}.out"
    while time.monotonic() < end:
        found = re.search(r"http://127\.0\.0\.1:\d+/metrics", path.read_text("utf-8", "replace"))
        if found:
            return found.group()
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    err = (folder / f"{name}.err").read_text("utf-8", "replace")[-2000:]
    raise AssertionError(f"gpuprof exporter {name} did not print its URL\n{err}")


def _config(fleet: Fleet) -> str:
    jobs = []
    for child in fleet.exporters:
        jobs.append((child.address, child.labels))
    lines = [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "  evaluation_interval: 1s",
        "rule_files:",
        f"  - '{RULES}'",
        "scrape_configs:",
        "  - job_name: gpuprof",
        "    static_configs:",
    ]
    for address, labels in jobs:
        lines += [f"      - targets: ['{address}']", "        labels:"]
        lines += [f"          {k}: '{v}'" for k, v in labels.items()]
    if fleet.dcgm is not None:
        lines += [
            "  - job_name: dcgm",
            "    static_configs:",
            f"      - targets: ['127.0.0.1:{fleet.dcgm.port}']",
        ]
        if fleet.dcgm_labels:
            lines.append("        labels:")
            lines += [f"          {k}: '{v}'" for k, v in fleet.dcgm_labels.items()]
    return "\n".join(lines) + "\n"


def _answers(fleet: Fleet):
    return lambda: fleet.get("/api/v1/status/buildinfo")


@contextlib.contextmanager
def start_fleet(
    folder: Path,
    *,
    exporters: int = 2,
    dcgm: bool = True,
    dcgm_page: str | None = None,
    dcgm_gpus: int = len(DCGM_GPUS),
    dcgm_labels: dict[str, str] | None = None,
) -> Iterator[Fleet]:
    """Prometheus scraping ``exporters`` demo exporters (clusters ``a``, ``b``, ...) and, with
    ``dcgm``, the dcgm-exporter page (cluster ``b``, job ``dcgm``); everything stopped after.
    ``dcgm_page``: another page in its place, with ``dcgm_gpus`` GPUs; ``dcgm_labels``: its
    target's labels instead of ``cluster="b"``."""
    if PROMETHEUS is None:
        pytest.skip(SKIP_REASON)
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        GPUPROF_DATA_DIR=str(folder / "home" / "data"),
        GPUPROF_CONFIG_DIR=str(folder / "home" / "config"),
        GPUPROF_LANG="en",
    )
    started: list[subprocess.Popen[bytes]] = []
    static: StaticMetrics | None = None
    try:
        procs = []
        for i in range(exporters):
            proc = _start_exporter(folder, f"exporter{i}", env)
            started.append(proc)
            procs.append(proc)
        children = [
            Child(proc, _exporter_url(folder, f"exporter{i}", proc), {"cluster": "ab"[i % 2]})
            for i, proc in enumerate(procs)
        ]
        if dcgm:
            static = StaticMetrics(dcgm_page or dcgm_metrics_text())
        for attempt in range(3):
            port = free_port()
            fleet = Fleet(
                url=f"http://127.0.0.1:{port}",
                prometheus=None,  # type: ignore[arg-type]
                folder=folder,
                exporters=children,
                dcgm=static,
                dcgm_labels={"cluster": "b"} if dcgm_labels is None else dcgm_labels,
            )
            config = folder / "prometheus.yml"
            config.write_text(_config(fleet), "utf-8")
            data = folder / f"tsdb{attempt}"
            proc = start_prometheus(PROMETHEUS, config, data, port, folder / "prometheus.log")
            started.append(proc)
            fleet.prometheus = proc
            try:
                fleet.wait_until("ready", _answers(fleet), 20.0)
                break
            except AssertionError:
                if proc.poll() is None or attempt == 2:
                    raise  # running but not answering; or the port race lost three times
        want = len(children) + (1 if dcgm else 0)

        def all_up() -> bool:
            health = fleet.targets_health()
            return len(health) == want and all(h == "up" for h in health.values())

        fleet.wait_until("every target up", all_up)
        gpus = 8 * len(children) + (dcgm_gpus if dcgm else 0)
        fleet.wait_until(f"{gpus} GPUs", lambda: fleet.gpus_seen() == gpus)
        yield fleet
    finally:
        for proc in reversed(started):
            _stop(proc)
        if static is not None:
            static.close()


def api_answer(data: object, status: str = "success") -> bytes:
    """A Prometheus API answer document around ``data``."""
    return json.dumps({"status": status, "data": data}).encode()


EMPTY_VECTOR = api_answer({"resultType": "vector", "result": []})
EMPTY_SERIES = api_answer([])
EMPTY_TARGETS = api_answer({"activeTargets": [], "droppedTargets": []})


def fake_prometheus(
    query: bytes = EMPTY_VECTOR,
    series: bytes = EMPTY_SERIES,
    targets: bytes = EMPTY_TARGETS,
    *,
    content_type: str = "application/json",
    status: int = 200,
) -> Answer:
    """An :data:`Answer` that routes by API endpoint: every instant query gets ``query``."""

    def answer(method: str, path: str, got: bytes) -> tuple[int, str, bytes]:
        if path.startswith("/api/v1/series"):
            return status, content_type, series
        if path.startswith("/api/v1/targets"):
            return status, content_type, targets
        return status, content_type, query

    return answer


@pytest.fixture(scope="session")
def prom_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """One Prometheus for the session: two demo exporters (clusters a and b, job gpuprof)
    and the dcgm-exporter page (cluster b, job dcgm). Tests must not change it."""
    with start_fleet(tmp_path_factory.mktemp("prometheus")) as fleet:
        yield fleet
