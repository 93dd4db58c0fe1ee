"""Prometheus endpoint: serves the latest :class:`Snapshot` of a telemetry session over HTTP.

The metrics (dcgm-exporter's names, labels and units, plus ``gpuprof_*``) are
:mod:`gpuprof.exporter_metrics`; they are re-exported here. Serving:
``prometheus_client.generate_latest`` re-validates and re-escapes every label of every sample
(about 4 ms for 8 GPUs here); :func:`render_text` writes the same text format 0.0.4 with the
per-GPU label block escaped once, which keeps a scrape of 8 GPUs near 1 ms.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prometheus_client.core import Metric

from gpuprof.exporter_metrics import (
    LABELS,
    THROTTLE_REASONS,
    BenchValue,
    SnapshotCollector,
    _default_bench_values,
    bench_values_of,
)
from gpuprof.telemetry.model import Snapshot
from gpuprof.telemetry.source import TelemetrySource

if TYPE_CHECKING:
    from gpuprof.telemetry.session import TelemetrySession

__all__ = [
    "CONTENT_TYPE",
    "DEFAULT_BIND",
    "DEFAULT_PORT",
    "LABELS",
    "THROTTLE_REASONS",
    "BenchValue",
    "Exporter",
    "SnapshotCollector",
    "bench_values_of",
    "render_text",
]

log = logging.getLogger(__name__)

DEFAULT_PORT = 9400  # dcgm-exporter's port
DEFAULT_BIND = "127.0.0.1"

#: The Prometheus text exposition format this module writes (what dcgm-exporter serves).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_TYPES = {"gauge": "gauge", "counter": "counter", "unknown": "untyped", "untyped": "untyped"}


def _number(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render_text(families: Iterable[Metric]) -> bytes:
    """Prometheus text format 0.0.4 for gauge/untyped families whose sample names are the family's.

    Label blocks are cached per distinct label set within one call, so each GPU's six labels are
    escaped once per scrape instead of once per sample.
    """
    cache: dict[tuple[tuple[str, str], ...], str] = {}
    out: list[str] = []
    for fam in families:
        if fam.type not in _TYPES:
            raise ValueError(f"render_text does not handle {fam.type} metrics ({fam.name})")
        doc = fam.documentation.replace("\\", "\\\\").replace("\n", "\\n")
        out.append(f"# HELP {fam.name} {doc}\n# TYPE {fam.name} {_TYPES[fam.type]}\n")
        for sample in fam.samples:
            key = tuple(sample.labels.items())
            block = cache.get(key)
            if block is None:
                inner = ",".join(f'{k}="{_escape_label(v)}"' for k, v in key)
                block = cache[key] = "{" + inner + "}" if inner else ""
            out.append(f"{sample.name}{block} {_number(sample.value)}\n")
    return "".join(out).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    server_version = "gpuprof-exporter"
    collector: SnapshotCollector  # set on the per-server subclass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            try:
                body, ctype, code = render_text(self.collector.collect()), CONTENT_TYPE, 200
            except Exception:  # answer 500 and keep serving
                log.exception("scrape failed")
                body, ctype, code = b"scrape failed\n", "text/plain; charset=utf-8", 500
        elif path == "/":
            body = b"<html><body><a href='/metrics'>metrics</a></body></html>\n"
            ctype, code = "text/html; charset=utf-8", 200
        else:
            body, ctype, code = b"not found\n", "text/plain; charset=utf-8", 404
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a scrape every few seconds would flood the terminal


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


class Exporter:
    """Serves ``/metrics`` over HTTP from a telemetry session's latest snapshot.

    ``source`` is a :class:`~gpuprof.telemetry.session.TelemetrySession` to attach to (it stays
    the caller's), or a source, for which the exporter makes its own session with a History of
    :data:`~gpuprof.telemetry.session.MINIMAL_HISTORY` samples (it serves only the latest) and
    closes that session on :meth:`stop` (not the source: the caller's). ``port=0`` picks a free
    port (see :attr:`port`). The default bind address is loopback: exposing GPU telemetry to
    the network is the user's explicit choice.
    """

    def __init__(
        self,
        source: TelemetrySource | TelemetrySession,
        *,
        port: int = DEFAULT_PORT,
        bind: str = DEFAULT_BIND,
        interval_s: float = 1.0,
        bench_values: Callable[[], Iterable[BenchValue]] | None = _default_bench_values,
    ) -> None:
        from gpuprof.telemetry.session import TelemetrySession

        if isinstance(source, TelemetrySession):
            self._own_session = False
            self.session = source
        else:
            self._own_session = True
            self.session = _own_session(source, interval_s)
        self.source = self.session.source
        self._bind = bind
        self._requested_port = port
        self._lock = threading.Lock()
        self._latest: Snapshot | None = None
        system = self.source.system_info()
        self.collector = SnapshotCollector(
            self.latest,
            self.source.devices(),
            hostname=system.hostname or None,
            label=self.source.label,
            bench_values=bench_values,
        )
        self._unsubscribe: Callable[[], None] | None = None
        self._httpd: Any = None
        self._thread: threading.Thread | None = None

    def latest(self) -> Snapshot | None:
        with self._lock:
            return self._latest

    def _on_snapshot(self, snap: Snapshot) -> None:
        with self._lock:
            self._latest = snap

    @property
    def port(self) -> int:
        return int(self._httpd.server_port) if self._httpd is not None else self._requested_port

    @property
    def url(self) -> str:
        host = f"[{self._bind}]" if ":" in self._bind else self._bind
        return f"http://{host}:{self.port}/metrics"

    def start(self) -> Exporter:
        self._unsubscribe = self.session.subscribe(self._on_snapshot)
        latest = self.session.history.latest()
        if latest is None:
            latest = self.session.poll_once()  # the first scrape already has data
        self._on_snapshot(latest)
        handler = type("Handler", (_Handler,), {"collector": self.collector})
        server_cls = _Server6 if ":" in self._bind else _Server
        self._httpd = server_cls((self._bind, self._requested_port), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="gpuprof-exporter-http",
            daemon=True,
        )
        self._thread.start()
        self.session.start()
        return self

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._own_session:
            self.session.close(close_source=False)
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def __enter__(self) -> Exporter:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _own_session(source: TelemetrySource, interval_s: float) -> TelemetrySession:
    from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession

    return TelemetrySession(source, interval_s=interval_s, history_capacity=MINIMAL_HISTORY)
