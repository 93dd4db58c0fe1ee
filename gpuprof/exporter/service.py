"""Prometheus endpoint: serves the latest :class:`Snapshot` of a telemetry session over HTTP.

The metrics (dcgm-exporter's names, labels and units, plus ``gpuprof_*``) are
:mod:`gpuprof.exporter.metrics`; the package hands them on with :class:`Exporter`. Serving:
``prometheus_client.generate_latest`` re-validates and re-escapes every label of every sample
(about 4 ms for 8 GPUs here); :func:`render_text` writes the same text format 0.0.4 with the
per-GPU label block escaped once, which keeps a scrape of 8 GPUs near 1 ms, and the body is
rendered once per poll: concurrent scrapes of the same snapshot share it, and only the few health
series (their age changes by the second) are written per scrape.

Under load and faults: the server (:mod:`gpuprof.exporter.server`) has a bounded pool of threads,
a listen backlog of 128 and a per-connection timeout; a source whose poll fails or hangs is
served as ``gpuprof_source_up 0``, and once no poll succeeded within the staleness bound its GPU
series are dropped rather than served as fresh; a source that fails its first poll still lets the
exporter start and report it.

``/api/v1/snapshot`` and ``/api/v1/static`` serve the same session as JSON for a remote gpuprof
(:mod:`gpuprof.exporter.api`, ``docs/exporter-api.md``); with a ``token`` every path answers 401
without it, and with an ``ssl_context`` the server speaks HTTPS only.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from prometheus_client.core import Metric

import gpuprof.exporter.api as api
from gpuprof.exporter.metrics import (
    BenchValue,
    SnapshotCollector,
    SourceHealth,
    _default_bench_values,
    health_families,
)
from gpuprof.exporter.server import (
    DEFAULT_MAX_THREADS,
    DEFAULT_TIMEOUT_S,
    BoundedHTTPServer,
    HeadHandler,
)
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SystemInfo, Topology
from gpuprof.telemetry.source import TelemetrySource
from gpuprof.telemetry.wire import JSON_CONTENT_TYPE, SNAPSHOT_PATH, STATIC_PATH

if TYPE_CHECKING:
    from gpuprof.telemetry.session import TelemetrySession

__all__ = ["CONTENT_TYPE", "DEFAULT_BIND", "DEFAULT_PORT", "Exporter", "render_text"]

log = logging.getLogger("gpuprof.exporter")

DEFAULT_PORT = 9400  # dcgm-exporter's port
DEFAULT_BIND = "127.0.0.1"
#: The shortest staleness bound; the default is the larger of this and three intervals.
MIN_STALE_AFTER_S = 5.0
#: The longest :meth:`Exporter.start` waits for a first poll before serving without data.
FIRST_POLL_TIMEOUT_S = 2.0

#: The Prometheus text exposition format this module writes (what dcgm-exporter serves).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_TYPES = {"gauge": "gauge", "counter": "counter", "unknown": "untyped", "untyped": "untyped"}


_INF = float("inf")


def _number(value: float) -> str:
    # Once per sample, some 400 per render: plain comparisons against a constant.
    if value != value:
        return "NaN"
    if value == _INF:
        return "+Inf"
    if value == -_INF:
        return "-Inf"
    return repr(float(value))


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render_text(families: Iterable[Metric]) -> bytes:
    """Prometheus text format 0.0.4 for gauge/untyped families whose sample names are the family's,
    and counters without ``_created`` (named ``<family>_total``, as prometheus_client writes them).

    Label blocks are cached per distinct label set within one call, so each GPU's six labels are
    escaped once per scrape instead of once per sample.
    """
    cache: dict[tuple[tuple[str, str], ...], str] = {}
    out: list[str] = []
    for fam in families:
        if fam.type not in _TYPES:
            raise ValueError(f"render_text does not handle {fam.type} metrics ({fam.name})")
        doc = fam.documentation.replace("\\", "\\\\").replace("\n", "\\n")
        name = fam.name + "_total" if fam.type == "counter" else fam.name
        out.append(f"# HELP {name} {doc}\n# TYPE {name} {_TYPES[fam.type]}\n")
        for sample in fam.samples:
            key = tuple(sample.labels.items())
            block = cache.get(key)
            if block is None:
                inner = ",".join(f'{k}="{_escape_label(v)}"' for k, v in key)
                block = cache[key] = "{" + inner + "}" if inner else ""
            out.append(f"{sample.name}{block} {_number(sample.value)}\n")
    return "".join(out).encode("utf-8")


class _Handler(HeadHandler):
    server_version = "gpuprof-exporter"
    exporter: Exporter  # set on the per-server subclass

    def do_GET(self) -> None:
        self._respond(head=False)

    def do_HEAD(self) -> None:
        """The headers a GET would get (Content-Length included), no body."""
        self._respond(head=True)

    def _respond(self, *, head: bool) -> None:
        path = self.path.split("?", 1)[0]
        denied = api.auth_failure(self.headers.get("Authorization"), self.exporter.token)
        extra: dict[str, str] = {}
        if denied is not None:
            body, ctype, code = denied[0], "text/plain; charset=utf-8", 401
            extra["WWW-Authenticate"] = denied[1]
        elif path in (SNAPSHOT_PATH, STATIC_PATH):
            try:
                body, ctype, code = self.exporter.api_body(path), JSON_CONTENT_TYPE, 200
            except Exception:  # answer 500 and keep serving
                log.exception("%s failed", path)
                body, ctype, code = b"snapshot failed\n", "text/plain; charset=utf-8", 500
        elif path == "/metrics":
            try:
                body, ctype, code = self.exporter.metrics_body(), CONTENT_TYPE, 200
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
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        # A scrape every few seconds would flood the terminal: --debug shows them.
        log.debug("exporter: %s %s", self.address_string(), format % args)


class Exporter:
    """Serves ``/metrics`` over HTTP from a telemetry session's latest snapshot.

    ``source`` is a :class:`~gpuprof.telemetry.session.TelemetrySession` to attach to (it stays
    the caller's), or a source, for which the exporter makes its own session with a History of
    :data:`~gpuprof.telemetry.session.MINIMAL_HISTORY` samples (it serves only the latest) and
    closes that session on :meth:`stop` (not the source: the caller's). ``port=0`` picks a free
    port (see :attr:`port`). The default bind address is loopback: exposing GPU telemetry to
    the network is the user's explicit choice.

    ``stale_after_s`` bounds how old the last good poll may be before the GPU series are
    dropped (default: the larger of 5 s and three intervals); ``timeout_s`` closes connections
    that stay silent that long; ``max_threads`` bounds the request threads. ``per_process``
    serves a series per GPU process too (``--per-process``).
    """

    def __init__(
        self,
        source: TelemetrySource | TelemetrySession,
        *,
        port: int = DEFAULT_PORT,
        bind: str = DEFAULT_BIND,
        interval_s: float = 1.0,
        bench_values: Callable[[], Iterable[BenchValue]] | None = _default_bench_values,
        stale_after_s: float | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_threads: int = DEFAULT_MAX_THREADS,
        first_poll_timeout_s: float = FIRST_POLL_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
        per_process: bool = False,
        token: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
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
        self._stale_after_s = stale_after_s
        self._timeout_s = float(timeout_s)
        self._max_threads = int(max_threads)
        self._first_poll_timeout_s = float(first_poll_timeout_s)
        self._clock = clock
        self._lock = threading.Lock()
        self._latest: Snapshot | None = None
        self._last_ok_s: float | None = None  # clock() of the last good poll
        self._errors_at_ok: tuple[object, int] | None = None  # (sampler, its error_count) then
        self._got_snapshot = threading.Event()
        self._render_lock = threading.Lock()
        self._rendered: tuple[Snapshot | None, object, bytes] | None = None
        #: The bearer token every request must carry (``None``: none needed).
        self.token = token
        self._ssl_context = ssl_context
        self._api_snap: tuple[Snapshot | None, Snapshot | None] = (None, None)
        self._static_body: bytes | None = None
        system, devices = self._static_facts()
        self._system, self._devices = system, devices
        self.collector = SnapshotCollector(
            self.latest,
            devices,
            hostname=system.hostname or None,
            label=self.source.label,
            bench_values=bench_values,
            health=self.health,
            kind=self.source.kind,
            per_process=per_process,
        )
        self._unsubscribe: Callable[[], None] | None = None
        self._per_process = per_process
        self._unwatch: Callable[[], None] | None = None
        self._httpd: BoundedHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _static_facts(self) -> tuple[SystemInfo, tuple[DeviceInfo, ...]]:
        # A source in trouble must not stop the exporter from starting and saying so.
        try:
            system = self.source.system_info()
        except Exception as exc:
            log.warning("exporter: the source's system facts are unavailable: %s", exc)
            system = SystemInfo()
        try:
            devices = tuple(self.source.devices())
        except Exception as exc:
            log.warning("exporter: the source's GPU list is unavailable: %s", exc)
            devices = ()
        return system, devices

    def latest(self) -> Snapshot | None:
        with self._lock:
            return self._latest

    def _on_snapshot(self, snap: Snapshot) -> None:
        sampler = self.session.sampler
        with self._lock:
            self._latest = snap
            self._last_ok_s = self._clock()
            self._errors_at_ok = (sampler, sampler.error_count)
        self._got_snapshot.set()

    @property
    def stale_after_s(self) -> float:
        """Seconds after the last good poll when the GPU series are dropped."""
        if self._stale_after_s is not None:
            return float(self._stale_after_s)
        return max(MIN_STALE_AFTER_S, 3.0 * self.session.interval_s)

    def health(self) -> SourceHealth:
        """Whether the source answers: its latest poll, the age of its last good one, errors."""
        sampler = self.session.sampler
        errors = int(sampler.error_count)
        with self._lock:
            last_ok, at_ok = self._last_ok_s, self._errors_at_ok
        baseline = at_ok[1] if at_ok is not None and at_ok[0] is sampler else 0
        bound = self.stale_after_s
        age = None if last_ok is None else max(0.0, self._clock() - last_ok)
        stale = age is None or age > bound
        return SourceHealth(
            up=not stale and errors <= baseline,
            stale=stale,
            last_success_age_s=age,
            poll_errors=errors,
            stale_after_s=bound,
        )

    def api_body(self, path: str) -> bytes:
        """What ``GET /api/v1/snapshot`` or ``/api/v1/static`` serves (strict JSON); the
        snapshot's processes redacted once per poll, the static facts read once."""
        kind, label = self.source.kind, self.source.label
        if path == STATIC_PATH:
            if self._static_body is None:
                try:
                    topology = self.source.topology()
                except Exception as exc:
                    log.warning("exporter: the source's topology is unavailable: %s", exc)
                    topology = Topology()
                doc = api.static_document(
                    self._system, self._devices, topology, kind=kind, label=label
                )
                self._static_body = api.encode(doc)
            return self._static_body
        health = self.health()
        snap = None if health.stale else self.latest()
        with self._render_lock:
            if self._api_snap[0] is not snap:
                redacted = None if snap is None else api.redact_snapshot(snap)
                self._api_snap = (snap, redacted)
            redacted = self._api_snap[1]
        hostname = self._system.hostname
        return api.encode(
            api.snapshot_document(
                redacted, kind=kind, label=label, hostname=hostname, health=health
            )
        )

    def metrics_body(self) -> bytes:
        """What ``GET /metrics`` serves: the snapshot's families, rendered once per poll (and
        per change of the benchmark values), then the health series, fresh each time."""
        health = self.health()
        snap = None if health.stale else self.latest()
        bench = self.collector.bench()
        with self._render_lock:
            cached = self._rendered
            if cached is None or cached[0] is not snap or cached[1] is not bench:
                body = render_text(self.collector.collect_snapshot(snap, bench))
                self._rendered = cached = (snap, bench, body)
        return cached[2] + render_text(health_families(health, simulated=self.collector.simulated))

    @property
    def port(self) -> int:
        return self._httpd.server_port if self._httpd is not None else self._requested_port

    @property
    def url(self) -> str:
        host = f"[{self._bind}]" if ":" in self._bind else self._bind
        scheme = "https" if self._ssl_context is not None else "http"
        return f"{scheme}://{host}:{self.port}/metrics"

    def start(self) -> Exporter:
        """Listen, start the session's polls and wait (at most ``first_poll_timeout_s``) for
        the first, so that the first scrape has data; a source that fails or hangs meanwhile
        is served as down (``gpuprof_source_up 0``). ``OSError`` when the port is taken."""
        self._unsubscribe = self.session.subscribe(self._on_snapshot)
        if self._per_process:  # its series show CPU % and RSS: read them at every poll
            self._unwatch = self.session.watch_processes()
        latest = self.session.history.latest()
        if latest is not None:
            self._on_snapshot(latest)
        handler = type("Handler", (_Handler,), {"exporter": self})
        self._httpd = BoundedHTTPServer(
            (self._bind, self._requested_port),
            handler,
            ipv6=":" in self._bind,
            max_threads=self._max_threads,
            timeout_s=self._timeout_s,
            ssl_context=self._ssl_context,
        )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="gpuprof-exporter-http",
            daemon=True,
        )
        self._thread.start()
        errors = self.session.sampler.error_count
        self.session.start()
        if latest is None:
            self._wait_first_poll(errors)
        return self

    def _wait_first_poll(self, errors: int) -> None:
        # On the sampler's thread, not ours: a poll that hangs in the driver must not stop
        # the exporter from serving gpuprof_source_up 0.
        deadline = time.monotonic() + self._first_poll_timeout_s
        while not self._got_snapshot.wait(0.01):
            if self.session.sampler.error_count > errors:
                log.warning(
                    "exporter: the first poll of %s failed (%s); serving gpuprof_source_up 0",
                    self.source.label,
                    self.session.last_error,
                )
                return
            if time.monotonic() >= deadline:
                log.warning(
                    "exporter: no answer from %s after %.1f s; serving gpuprof_source_up 0",
                    self.source.label,
                    self._first_poll_timeout_s,
                )
                return

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
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
