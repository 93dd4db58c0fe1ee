"""The exporter's JSON API, its bearer token and its TLS: what a remote gpuprof reads.

``GET /api/v1/snapshot`` answers the latest :class:`~gpuprof.telemetry.model.Snapshot` (the
codec's :func:`~gpuprof.telemetry.codec.to_jsonable`, processes redacted as in reports) with the
source's kind, label and host name and its health; ``GET /api/v1/static`` answers the system
facts, the GPU list and the topology, which change only when the exporter restarts. Both carry
``"version": API_VERSION`` and a ``"kind"`` naming the document, are strict JSON
(:mod:`gpuprof.jsonout`) and are described in ``docs/exporter-api.md``. A client refuses a
version it does not know (:mod:`gpuprof.telemetry.remote`). The paths, kinds and version are
:mod:`gpuprof.telemetry.wire`'s, which both sides import.

The token (``--token-file``) guards every path, ``/metrics`` included (Prometheus sends it with
``authorization: {credentials_file: ...}``); it is compared in constant time. The token file is
read by :func:`gpuprof.tokenfile.read_token` (here and in every client).
"""

from __future__ import annotations

import hmac
import os
import ssl
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from gpuprof import jsonout
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.redact import redact_cmdline, redact_text, redact_tree
from gpuprof.telemetry.codec import to_jsonable
from gpuprof.telemetry.model import (
    DeviceInfo,
    ProcessSample,
    Snapshot,
    SourceKind,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.wire import API_VERSION, SNAPSHOT_KIND, STATIC_KIND
from gpuprof.tokenfile import read_token

__all__ = [
    "auth_failure",
    "encode",
    "read_token",
    "redact_snapshot",
    "server_tls_context",
    "snapshot_document",
    "static_document",
]

_MAX_PROCESS_TEXT = 256


def _source(kind: SourceKind, label: str, hostname: str) -> dict[str, Any]:
    return {"kind": kind.value, "label": redact_text(label, 200), "hostname": hostname}


def _redact_process(p: ProcessSample) -> ProcessSample:
    return replace(
        p,
        name=redact_text(p.name, _MAX_PROCESS_TEXT) if p.name is not None else None,
        user=redact_text(p.user, _MAX_PROCESS_TEXT) if p.user is not None else None,
        cmdline=redact_cmdline(p.cmdline),
    )


def redact_snapshot(snap: Snapshot) -> Snapshot:
    """``snap`` as it may leave the machine: process names and users as in the exporter's
    labels, command lines as in reports (the program's name only), secrets hidden."""
    if not snap.processes:
        return snap
    return replace(snap, processes=redact_tree(tuple(_redact_process(p) for p in snap.processes)))


def snapshot_document(
    snap: Snapshot | None,
    *,
    kind: SourceKind,
    label: str,
    hostname: str,
    health: Any,
) -> dict[str, Any]:
    """What ``GET /api/v1/snapshot`` answers; ``snap`` already through :func:`redact_snapshot`
    (``None`` when no poll succeeded within the staleness bound); ``health`` a SourceHealth."""
    return {
        "version": API_VERSION,
        "kind": SNAPSHOT_KIND,
        "source": _source(kind, label, hostname),
        "health": asdict(health),
        "snapshot": None if snap is None else to_jsonable(snap),
    }


def static_document(
    system: SystemInfo,
    devices: Sequence[DeviceInfo],
    topology: Topology,
    *,
    kind: SourceKind,
    label: str,
) -> dict[str, Any]:
    """What ``GET /api/v1/static`` answers."""
    return {
        "version": API_VERSION,
        "kind": STATIC_KIND,
        "source": _source(kind, label, system.hostname),
        "system": to_jsonable(system),
        "devices": to_jsonable(tuple(devices)),
        "topology": to_jsonable(topology),
    }


def encode(document: Any) -> bytes:
    """Strict, compact JSON (UTF-8) of ``document``."""
    return jsonout.dumps(document, indent=None, reasons=False).encode("utf-8")


# -- the bearer token ----------------------------------------------------------------------


#: ``WWW-Authenticate`` values (RFC 6750): no token sent, a wrong one.
CHALLENGE = 'Bearer realm="gpuprof"'
CHALLENGE_INVALID = 'Bearer realm="gpuprof", error="invalid_token"'


def auth_failure(header: str | None, token: str | None) -> tuple[bytes, str] | None:
    """``None`` when the request may pass (no token configured, or the right one sent); else
    the 401 answer's body and ``WWW-Authenticate`` header. The comparison takes the same time
    whatever the token sent."""
    if token is None:
        return None
    scheme, _, given = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return (
            b"401 Unauthorized: this gpuprof exporter needs a bearer token "
            b"(Authorization: Bearer TOKEN; gpuprof --connect URL --token-file FILE)\n",
            CHALLENGE,
        )
    sent = given.strip().encode("utf-8", "replace")
    if hmac.compare_digest(sent, token.encode("ascii")):
        return None
    return b"401 Unauthorized: the bearer token is wrong\n", CHALLENGE_INVALID


# -- TLS -------------------------------------------------------------------------------------


def server_tls_context(
    cert: str | os.PathLike[str], key: str | os.PathLike[str] | None
) -> ssl.SSLContext:
    """A server-side TLS context for the PEM certificate (chain) ``cert`` and its private key
    ``key`` (``None``: in ``cert`` too); ``InputError`` naming the file that is wrong."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    for path in (cert, key):
        if path is None or Path(path).is_file():
            continue
        if not os.path.lexists(path):
            raise InputError(tr("{p}: no such file", p=path))
        # A FIFO would hold ssl's read for ever; a folder or a device is no certificate.
        raise InputError(tr("{p}: not a regular file, not a certificate or key", p=path))
    try:
        ctx.load_cert_chain(str(cert), None if key is None else str(key))
    except ssl.SSLError as exc:
        raise InputError(
            tr(
                "{c}: cannot use this certificate and key: {e}",
                c=cert,
                e=exc.reason or exc,
            )
        ) from None
    except OSError as exc:
        raise InputError(tr("{c}: cannot read: {e}", c=cert, e=exc.strerror or exc)) from None
    return ctx
