"""A failed request to one HTTP server as one line: what the clients of Prometheus
(:mod:`gpuprof.fleet.client`) and of a gpuprof exporter (:mod:`gpuprof.telemetry.remote_http`)
say when the name does not resolve, the connection is refused, TLS fails, the server answers
401/403/404 or a redirect, nothing comes back in time, or what comes back is not HTTP.

The callers wrap the text in their own error, which names the URL.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import urllib.error
import urllib.parse
from dataclasses import dataclass

from gpuprof.i18n import tr
from gpuprof.redact import clean_text

__all__ = ["NETWORK_KINDS", "ServerTexts", "describe_url_error", "https_hint"]

#: The kinds of :func:`describe_url_error` where no HTTP answer came (the others are statuses).
NETWORK_KINDS = frozenset({"dns", "refused", "tls", "timeout", "network", "not_http"})


@dataclass(frozen=True, slots=True)
class ServerTexts:
    """What a client says of its own kind of server, already translated."""

    refused: str  #: the connection was refused (is the server running?)
    unauthorized: str  #: 401 and no token was sent
    token_refused: str  #: 401 although a token was sent
    forbidden: str  #: 403 and no token was sent
    not_found: str  #: 404
    untrusted_hint: str = ""  #: after "the certificate is not trusted": how to give a CA
    token_forbidden: str = ""  #: 403 although a token was sent (default: ``forbidden``)


def https_hint(url: str) -> str:
    """A hint for a plain ``http://`` URL whose server may speak only HTTPS; else ``""``."""
    return tr(" (an HTTPS server? try https://)") if url.startswith("http:") else ""


def describe_url_error(
    exc: BaseException,
    *,
    url: str,
    timeout_s: float,
    texts: ServerTexts,
    token_sent: bool = False,
) -> tuple[str, str]:
    """``(kind, text)`` for ``exc``, raised by a request to ``url`` or while reading its answer:
    an ``HTTPError`` (kinds ``redirect``, ``auth``, ``not_found``, ``http``), a ``URLError``,
    an ``http.client.HTTPException`` (``not_http``) or an ``OSError`` / ``ValueError`` (the
    :data:`NETWORK_KINDS`). ``texts`` says what is particular to the kind of server."""
    if isinstance(exc, urllib.error.HTTPError):
        return _status(exc, texts, token_sent)
    if isinstance(exc, urllib.error.URLError):
        reason: object = exc.reason
    elif isinstance(exc, http.client.HTTPException):
        return "not_http", _not_http(exc, url)
    else:
        reason = exc
    return _network(reason, url, timeout_s, texts)


def _status(exc: urllib.error.HTTPError, texts: ServerTexts, token_sent: bool) -> tuple[str, str]:
    code = exc.code
    if 300 <= code < 400:
        where = clean_text(exc.headers.get("Location", "") if exc.headers else "", 200)
        return "redirect", tr(
            "redirected to {w}; gpuprof follows no redirect: give that URL", w=where
        )
    if code == 401:
        return "auth", texts.token_refused if token_sent else texts.unauthorized
    if code == 403:
        return "auth", (texts.token_forbidden or texts.forbidden) if token_sent else texts.forbidden
    if code == 404:
        return "not_found", texts.not_found
    return "http", tr("HTTP {c} {r}", c=code, r=clean_text(exc.reason, 100))


def _not_http(exc: BaseException, url: str) -> str:
    if isinstance(exc, http.client.IncompleteRead):
        return tr("the answer was cut short")
    if isinstance(exc, http.client.RemoteDisconnected):
        return tr("the server closed the connection without answering{h}", h=https_hint(url))
    return tr("the answer is not HTTP{h}", h=https_hint(url))


def _detail(exc: object, *names: str) -> object:
    """The first of ``exc``'s attributes ``names`` that is set (an SSL error made by hand has
    none of them), else ``exc``."""
    for name in names:
        value = getattr(exc, name, None)
        if value:
            return value
    return exc


def _network(reason: object, url: str, timeout_s: float, texts: ServerTexts) -> tuple[str, str]:
    if isinstance(reason, socket.gaierror):
        return "dns", tr("cannot resolve the host name {h}", h=urllib.parse.urlsplit(url).hostname)
    if isinstance(reason, ssl.SSLCertVerificationError):
        why = clean_text(_detail(reason, "verify_message", "reason"), 160)
        return "tls", tr(
            "TLS: the server's certificate is not trusted ({e}){h}", e=why, h=texts.untrusted_hint
        )
    if isinstance(reason, ssl.SSLError):
        return "tls", tr("TLS failed: {e}", e=clean_text(_detail(reason, "reason"), 160))
    if isinstance(reason, ConnectionRefusedError):
        return "refused", texts.refused
    if isinstance(reason, TimeoutError | socket.timeout):
        return "timeout", tr("no answer within {s:g} s", s=timeout_s)
    if isinstance(reason, ConnectionResetError):
        return "network", tr("the connection was reset{h}", h=https_hint(url))
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return "network", tr("network error: {e}", e=clean_text(text, 200))
