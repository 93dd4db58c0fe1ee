"""Another machine's ``gpuprof exporter`` as a telemetry source (``gpuprof --connect URL``).

:class:`RemoteSource` reads the exporter's ``/api/v1/static`` once (and again after a
reconnection) and polls ``/api/v1/snapshot`` at the session's interval, with a bearer token
(``--token-file``) and, for ``https://``, the system's CA store or ``--ca-file``. It talks to the
URL it was given and nowhere else: no proxy from the environment, no redirect followed (either
would carry the token elsewhere). The timeout bounds each whole request, and an answer is read
only up to :data:`MAX_ANSWER_BYTES`.

Opening fails with one line naming the URL and what failed (:class:`RemoteError`: the name did
not resolve, the connection was refused, TLS, 401, no answer within the timeout, not a gpuprof
exporter). Once open, :meth:`RemoteSource.poll` never raises for the network or for a hostile
answer: it returns a snapshot of the known GPUs without values (a gap in the plots) whose
status says what failed, with the URL, until the exporter answers again; the first snapshots
after that say the connection is back (:data:`BACK_NOTICE_S`).

Snapshots keep the remote's source kind (a remote ``--demo`` is SIMULATED here too) and their
time is when they arrived here, so another machine's clock cannot move them off the plots.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Unpack

from gpuprof.i18n import tr
from gpuprof.redact import clean_text
from gpuprof.telemetry.codec import from_jsonable
from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    HostSample,
    Snapshot,
    SourceKind,
    SourceState,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.remote_http import (
    DEFAULT_TIMEOUT_S,
    MAX_ANSWER_BYTES,
    ClientOptions,
    ExporterClient,
    RemoteError,
    base_url,
    shape_error,
)
from gpuprof.telemetry.source import CLOSE_TIMEOUT_S, KeptFacts
from gpuprof.telemetry.wire import SNAPSHOT_KIND, SNAPSHOT_PATH, STATIC_KIND, STATIC_PATH

__all__ = [
    "BACK_NOTICE_S",
    "DEFAULT_TIMEOUT_S",
    "MAX_ANSWER_BYTES",
    "MAX_GPUS",
    "MAX_PROCESSES",
    "RemoteError",
    "RemoteSource",
    "base_url",
]

log = logging.getLogger(__name__)

#: Seconds the snapshots say the connection is back, after it was lost.
BACK_NOTICE_S = 10.0
#: Bounds on what a remote may send: GPUs (indices below this too), processes.
MAX_GPUS = 64
MAX_PROCESSES = 4096
_MAX_TEXT = 500


def _indices(items: tuple[Any, ...], what: str) -> None:
    if len(items) > MAX_GPUS:
        raise ValueError(f"{len(items)} {what}")
    seen = set()
    for item in items:
        i = item.index
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < MAX_GPUS or i in seen:
            raise ValueError(f"{what} index {i!r}")
        seen.add(i)


#: Longest tuples a sample may hold: (record type, field) -> items.
_MAX_ITEMS = {
    "cpu_per_core_pct": 4096,
    "temps_c": 256,
    "fan_speed_pct": 32,
    "throttle_reasons": 64,
    "nvlinks": 64,
    "mig_prof": 64,
    "mig_devices": 64,
}


def _bounded(record: Any) -> None:
    """``ValueError`` when a tuple field of ``record`` is longer than :data:`_MAX_ITEMS`."""
    for name, most in _MAX_ITEMS.items():
        items = getattr(record, name, ())
        if isinstance(items, tuple) and len(items) > most:
            raise ValueError(f"{len(items)} {name}")


def _check_topology(topology: Topology) -> None:
    rows = topology.matrix
    if len(topology.gpu_indices) > MAX_GPUS or len(rows) > MAX_GPUS:
        raise ValueError("topology larger than the GPUs")
    if any(len(row) > MAX_GPUS for row in rows):
        raise ValueError("topology larger than the GPUs")


def _text(value: object) -> str:
    return clean_text(value, _MAX_TEXT) if isinstance(value, str) else ""


class RemoteSource(KeptFacts):
    """The exporter at ``url`` as a :class:`~gpuprof.telemetry.source.TelemetrySource`.

    Connects at once (``RemoteError`` when the exporter cannot be read). The ``options``
    (:class:`~gpuprof.telemetry.remote_http.ClientOptions`) go to its client: ``token_file``
    holds the bearer token (:func:`gpuprof.tokenfile.read_token`); ``ca_file`` the CA that signed
    an ``https://`` exporter's certificate (default: the system's store). ``clock`` gives the
    snapshots' Unix time; ``monotonic`` times the requests and the notices.
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        **options: Unpack[ClientOptions],
    ) -> None:
        self.client = ExporterClient(url, **options)
        self.url = self.client.url
        for line in self.client.warnings:
            log.warning("%s", line)
        self._clock = clock
        self._monotonic = self.client.monotonic
        self._lock = threading.Lock()
        self._closed = False
        self._down_since: float | None = None
        self._down_reason = ""
        self._back_until: float | None = None
        self._back_text = ""
        self._kind = SourceKind.NVML
        self._remote_label = ""
        self._read_static()  # raises: an exporter that cannot be read is not opened
        self._status = SourceStatus()

    # -- TelemetrySource -------------------------------------------------------------------

    @property
    def kind(self) -> SourceKind:
        return self._kind

    @property
    def label(self) -> str:
        """The remote's label, its host and the URL: "NVML on node-3 via http://…"."""
        return tr(
            "{label} on {host} via {url}",
            label=self._remote_label or self._kind.value,
            host=self.hostname or "?",
            url=self.url,
        )

    @property
    def hostname(self) -> str:
        return self._system.hostname

    def status(self) -> SourceStatus:
        with self._lock:
            return self._status

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        self._closed = True

    def poll(self) -> Snapshot:
        """The exporter's latest snapshot, or one saying why there is none (never raises)."""
        if self._closed:
            return self._down(tr("the connection was closed"))
        try:
            if self._down_since is not None:
                self._read_static()  # the exporter may have restarted on other GPUs
            doc = self.client.get(SNAPSHOT_PATH, SNAPSHOT_KIND)
            snap = self._snapshot(doc)
        except RemoteError as exc:
            return self._down(exc.what, network=exc.network)
        self._came_back()
        status = self._status_of(snap.status)
        with self._lock:
            self._status = status
        return replace(snap, status=status)

    # -- the connection's state ------------------------------------------------------------

    def _down(self, what: str, *, network: bool = True) -> Snapshot:
        if self._down_since is None:
            self._down_since = self._monotonic()
            log.warning("%s: %s", self.url, what)
        elif what != self._down_reason:  # once per new reason, not at every poll
            log.warning("%s: %s", self.url, what)
        self._down_reason = what
        self._back_until = None
        status = SourceStatus(
            SourceState.ERROR,
            message=(
                tr("Lost the connection to {u}: {w}", u=self.url, w=what)
                if network
                else tr("Cannot read {u}: {w}", u=self.url, w=what)
            ),
            hint=tr(
                "gpuprof keeps trying at every sampling interval; the plots show a gap until "
                "the exporter answers (check that `gpuprof exporter` runs there, or the SSH "
                "tunnel)."
            ),
        )
        with self._lock:
            self._status = status
        return self._empty(status)

    def _empty(self, status: SourceStatus) -> Snapshot:
        """A snapshot without readings (one empty sample per GPU) that says ``status``."""
        return Snapshot(
            time_s=float(self._clock()),
            source=self._kind,
            host=HostSample(),
            gpus=tuple(GpuSample(index=d.index, uuid=d.uuid) for d in self._devices),
            status=status,
        )

    def _came_back(self) -> None:
        if self._down_since is None:
            return
        down_s = max(0.0, self._monotonic() - self._down_since)
        log.warning("the connection to %s is back after %.0f s", self.url, down_s)
        self._down_since = None
        self._back_until = self._monotonic() + BACK_NOTICE_S
        self._back_text = tr(
            "The connection to {u} is back (it was lost for {s:.0f} s).", u=self.url, s=down_s
        )

    def _status_of(self, remote: SourceStatus) -> SourceStatus:
        """The remote's own status (its host named), or the notice that the connection is
        back while that lasts and the remote has nothing worse to say."""
        if not remote.ok:
            host = self.hostname or self.url
            return replace(remote, message=f"{host}: {remote.message}")
        if self._back_until is not None and self._monotonic() < self._back_until:
            return replace(
                remote,
                message=self._back_text,
                hint=tr("The plots show a gap where no data came."),
            )
        self._back_until = None
        return remote

    # -- reading the exporter --------------------------------------------------------------

    def _read_static(self) -> None:
        doc = self.client.get(STATIC_PATH, STATIC_KIND)
        try:
            system = from_jsonable(SystemInfo, doc.get("system") or {})
            devices: tuple[DeviceInfo, ...] = from_jsonable(
                tuple[DeviceInfo, ...],  # type: ignore[arg-type]
                doc.get("devices") or [],
            )
            topology = from_jsonable(Topology, doc.get("topology") or {})
            _indices(devices, "GPUs")
            for device in devices:
                _bounded(device)
            _check_topology(topology)
            kind = self._kind_of(doc)
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            raise self._not_gpuprof(STATIC_PATH, exc) from None
        source = doc["source"]  # a dict: _kind_of checked
        self._system = replace(
            system,
            hostname=clean_text(system.hostname, 253),
            os=_text(system.os),
        )
        self._devices = tuple(replace(d, name=_text(d.name)) for d in devices)
        self._topology = topology
        self._kind = kind
        self._remote_label = clean_text(source.get("label") or "", 200)

    def _kind_of(self, doc: dict[str, Any]) -> SourceKind:
        source = doc.get("source")
        if not isinstance(source, dict):
            raise TypeError("no source")
        return SourceKind(source.get("kind"))

    def _snapshot(self, doc: dict[str, Any]) -> Snapshot:
        data = doc.get("snapshot")
        try:
            kind = self._kind_of(doc)
            if data is None:
                return self._stale(doc, kind)
            snap = from_jsonable(Snapshot, data)
            _indices(snap.gpus, "GPUs")
            _bounded(snap.host)
            for gpu in snap.gpus:
                _bounded(gpu)
            if not isinstance(snap.time_s, float) or not math.isfinite(snap.time_s):
                raise ValueError("time_s")
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            raise self._not_gpuprof(SNAPSHOT_PATH, exc) from None
        # SIMULATED stays SIMULATED whichever of the two says so; never relabelled as real.
        source = snap.source
        if SourceKind.SIMULATED in (kind, snap.source):
            source = SourceKind.SIMULATED
        self._kind = source
        status = snap.status
        status = replace(
            status,
            message=_text(status.message),
            hint=_text(status.hint),
            lost_gpus=tuple(i for i in status.lost_gpus if isinstance(i, int))[:MAX_GPUS],
        )
        return replace(
            snap,
            time_s=float(self._clock()),
            source=source,
            processes=snap.processes[:MAX_PROCESSES],
            status=status,
        )

    def _stale(self, doc: dict[str, Any], kind: SourceKind) -> Snapshot:
        """The exporter answers but its own source has not (no good poll lately)."""
        self._kind = SourceKind.SIMULATED if kind is SourceKind.SIMULATED else self._kind
        health = doc.get("health")
        age = health.get("last_success_age_s") if isinstance(health, dict) else None
        if isinstance(age, (int, float)) and not isinstance(age, bool) and math.isfinite(age):
            message = tr(
                "the exporter on {h} has no fresh data: its last good poll was {s:.0f} s ago",
                h=self.hostname or self.url,
                s=float(age),
            )
        else:
            message = tr(
                "the exporter on {h} has no data: its GPUs have not answered",
                h=self.hostname or self.url,
            )
        return self._empty(SourceStatus(SourceState.ERROR, message=message))

    def _not_gpuprof(self, path: str, exc: BaseException) -> RemoteError:
        return RemoteError(self.url, shape_error(path, exc))
