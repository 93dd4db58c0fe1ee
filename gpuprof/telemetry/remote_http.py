"""HTTP for :mod:`gpuprof.telemetry.remote`: one GET of an exporter's JSON document.

:class:`ExporterClient` talks to the URL it was given and nowhere else: no proxy from the
environment and no redirect followed (either would carry the token elsewhere). The timeout
bounds each whole request (connect, headers and body: :mod:`gpuprof.httpread`), and an answer
is read only up to :data:`MAX_ANSWER_BYTES`. Every failure is a :class:`RemoteError` whose one
line names the URL and what failed: the name did not resolve, the connection was refused, TLS,
401, no answer within the timeout, not HTTP, not a gpuprof exporter (HTML, JSON of another kind
or version).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any, TypedDict, Unpack

from gpuprof.errors import InputError
from gpuprof.httperrors import NETWORK_KINDS, ServerTexts, describe_url_error
from gpuprof.httpread import BoundedRequest, Budget, HttpLimitError, build_opener, read_body
from gpuprof.i18n import tr
from gpuprof.netlimits import EXPORTER_MAX_BYTES, EXPORTER_MIN_TIMEOUT_S
from gpuprof.redact import clean_text
from gpuprof.telemetry.wire import API_VERSION, SNAPSHOT_PATH, STATIC_PATH
from gpuprof.tokenfile import read_token
from gpuprof.version import __version__

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_ANSWER_BYTES",
    "MAX_DEPTH",
    "ClientOptions",
    "ExporterClient",
    "RemoteError",
    "base_url",
    "shape_error",
    "timeout_for_interval",
]

#: Seconds a request (connect, headers and body) may take at least.
MIN_TIMEOUT_S = EXPORTER_MIN_TIMEOUT_S
#: The timeout at the default interval (1 s).
DEFAULT_TIMEOUT_S = MIN_TIMEOUT_S
#: The largest answer read.
MAX_ANSWER_BYTES = EXPORTER_MAX_BYTES
#: The deepest JSON nesting read (a snapshot's is 5).
MAX_DEPTH = 32
_MAX_INT = 2**63
_SUFFIXES = (SNAPSHOT_PATH, STATIC_PATH, "/metrics")


def timeout_for_interval(interval_s: float) -> float:
    """The time limit of each request when polling every ``interval_s`` seconds: the
    interval, and at least :data:`MIN_TIMEOUT_S`."""
    return max(MIN_TIMEOUT_S, float(interval_s))


class RemoteError(InputError):
    """The exporter could not be read: one line naming the URL and what failed. ``network``:
    the connection failed (no answer, or none that is HTTP), not the answer's content."""

    def __init__(self, url: str, what: str, *, network: bool = False) -> None:
        super().__init__(tr("{u}: {w}", u=url, w=what))
        self.url = url
        self.what = what
        self.network = network


def base_url(url: str) -> tuple[str, str]:
    """``(base, shown)``: the exporter's base URL (``http://`` added when no scheme is given;
    ``/metrics`` or an API path taken off) and the same without ``user:password@``, for
    messages. ``InputError`` for another scheme or no host."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 -- raises ValueError for a port out of range
    except ValueError as exc:
        raise InputError(tr("{u}: not a URL ({e})", u=clean_text(url, 200), e=exc)) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            tr(
                "{u}: --connect needs an http:// or https:// URL of a gpuprof exporter",
                u=clean_text(url, 200),
            )
        )
    path = parts.path.rstrip("/")
    for suffix in _SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    shown = urllib.parse.urlunsplit((parts.scheme, netloc, path, "", ""))
    return base, shown


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would send the request, and the token, to a URL the user did not give."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None  # the 3xx answer becomes an HTTPError


_SSL_SOURCE_LINE = re.compile(r"\s*\(_ssl\.c:\d+\)$")
#: The largest CA file read (a bundle of every public CA is about 220 KiB).
MAX_CA_FILE_BYTES = 4 << 20


def _ca_data(ca_file: str) -> str | bytes:
    """The certificates in ``ca_file``: PEM text, or one DER certificate. Read here, without
    blocking and at most :data:`MAX_CA_FILE_BYTES`: ``ssl`` reads a ``cafile`` itself and waits
    for ever on a FIFO (``--ca-file`` of a FIFO hung the command, and the app's Connect dialog)."""
    from gpuprof.jsonin import read_regular

    raw = read_regular(ca_file, MAX_CA_FILE_BYTES, what=tr("CA file"))
    # ssl takes PEM as ASCII text; comments outside the blocks may be in any encoding.
    return raw.decode("ascii", "replace") if b"-----BEGIN" in raw else raw


def _opener(https: bool, ca_file: str | None) -> urllib.request.OpenerDirector:
    context = None
    if https:
        cadata = None if ca_file is None else _ca_data(ca_file)
        try:
            context = ssl.create_default_context(cadata=cadata)
        except (OSError, ssl.SSLError, ValueError) as exc:
            what = str(getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc)
            what = _SSL_SOURCE_LINE.sub("", what)  # OpenSSL's "(_ssl.c:4020)" says nothing here
            raise InputError(tr("{p}: cannot use this CA file: {e}", p=ca_file, e=what)) from None
    return build_opener(urllib.request.ProxyHandler({}), _NoRedirect(), ssl_context=context)


def _check_tree(obj: Any, depth: int = 0) -> None:
    """``ValueError`` for JSON nested deeper than :data:`MAX_DEPTH` or an integer no field
    holds (the codec would pass it on to plots and tables)."""
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if isinstance(obj, dict):
        for value in obj.values():
            _check_tree(value, depth + 1)
    elif isinstance(obj, list):
        for value in obj:
            _check_tree(value, depth + 1)
    elif isinstance(obj, int) and not isinstance(obj, bool) and abs(obj) >= _MAX_INT:
        raise ValueError("an integer out of range")


class ClientOptions(TypedDict, total=False):
    """How an :class:`ExporterClient` (and the remote source over it) reads the exporter: the
    bearer token's file, the CA file of an ``https://`` exporter, each request's timeout and
    the clock that times it."""

    token_file: str | os.PathLike[str] | None
    ca_file: str | None
    timeout_s: float
    monotonic: Callable[[], float]


class ExporterClient:
    """GETs of the exporter at ``url``'s JSON documents, with the bearer token in
    ``token_file`` and, for ``https://``, the CA in ``ca_file`` (default: the system's store).
    ``InputError`` for a bad URL, token file or CA file; :attr:`warnings` (a token file that
    every user may read) are the caller's to show."""

    def __init__(self, url: str, **options: Unpack[ClientOptions]) -> None:
        self.base, self.url = base_url(url)
        self.timeout_s = float(options.get("timeout_s", DEFAULT_TIMEOUT_S))
        self.warnings: list[str] = []
        self.token: str | None = None
        token_file = options.get("token_file")
        if token_file is not None:
            self.token, self.warnings = read_token(token_file)
        self._opener = _opener(self.base.startswith("https:"), options.get("ca_file"))
        #: the clock of the requests' deadlines (a remote source times its notices on it too)
        self.monotonic = options.get("monotonic", time.monotonic)

    @property
    def hostname(self) -> str:
        return urllib.parse.urlsplit(self.base).hostname or ""

    def get(self, path: str, kind: str) -> dict[str, Any]:
        """The JSON document at ``path``, checked to be a gpuprof document ``kind`` of a
        version this gpuprof reads; ``RemoteError`` otherwise."""
        body, content_type = self._fetch(path)
        if "json" not in content_type.lower():
            shown = clean_text(content_type or tr("no content type"), 80)
            raise RemoteError(
                self.url, tr("not a gpuprof exporter: {p} answered {t}", p=path, t=shown)
            )
        try:
            doc = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise RemoteError(self.url, tr("the answer of {p} is not UTF-8", p=path)) from None
        except (ValueError, RecursionError) as exc:
            detail = clean_text(str(exc) or type(exc).__name__, 160)
            raise RemoteError(
                self.url, tr("the answer of {p} is not valid JSON ({e})", p=path, e=detail)
            ) from None
        if not isinstance(doc, dict) or doc.get("kind") != kind:
            raise RemoteError(
                self.url, tr("not a gpuprof exporter: {p} answered other JSON", p=path)
            )
        try:
            _check_tree(doc)
        except ValueError as exc:
            raise RemoteError(self.url, shape_error(path, exc)) from None
        version = doc.get("version")
        if version != API_VERSION:
            raise RemoteError(
                self.url,
                tr(
                    "the exporter speaks snapshot API version {v}; this gpuprof reads "
                    "version {n}: use the same gpuprof version on both machines",
                    v=clean_text(json.dumps(version), 40),
                    n=API_VERSION,
                ),
            )
        return doc

    def _fetch(self, path: str) -> tuple[bytes, str]:
        budget = Budget(self.timeout_s, MAX_ANSWER_BYTES, monotonic=self.monotonic)
        req = BoundedRequest(
            self.base + path,
            budget,
            headers={"Accept": "application/json", "User-Agent": f"gpuprof/{__version__}"},
        )
        if self.token is not None:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with self._opener.open(req, timeout=budget.left_s()) as resp:
                content_type = str(resp.headers.get("Content-Type", ""))
                return read_body(resp, budget), content_type
        except HttpLimitError as exc:
            raise RemoteError(self.url, exc.what, network=exc.kind == "deadline") from None
        except urllib.error.HTTPError as exc:
            exc.close()
            raise self._error(exc, path) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, RemoteError):
                raise exc.reason from None
            raise self._error(exc, path) from None
        # Not HTTP or an answer cut short; resets and timeouts while reading.
        except (http.client.HTTPException, OSError, ValueError) as exc:
            raise self._error(exc, path) from None

    def _error(self, exc: BaseException, path: str) -> RemoteError:
        texts = ServerTexts(
            refused=tr(
                "connection refused: is `gpuprof exporter` running there (or the SSH tunnel open)?"
            ),
            unauthorized=tr("401 Unauthorized: the exporter needs a token (--token-file FILE)"),
            token_refused=tr("401 Unauthorized: the exporter refused the token of --token-file"),
            forbidden=tr(
                "403 Forbidden: the exporter refused access; no token was sent "
                "(give one with --token-file FILE)"
            ),
            token_forbidden=tr("403 Forbidden: the exporter refused the token of --token-file"),
            not_found=tr(
                "not a gpuprof exporter: 404 for {p} (an exporter older than this gpuprof?)",
                p=path,
            ),
            untrusted_hint=tr("; see --ca-file"),
        )
        kind, what = describe_url_error(
            exc,
            url=self.base,
            timeout_s=self.timeout_s,
            texts=texts,
            token_sent=self.token is not None,
        )
        return RemoteError(self.url, what, network=kind in NETWORK_KINDS)


def shape_error(path: str, exc: BaseException) -> str:
    """What :class:`RemoteError` says of a gpuprof document of the wrong shape."""
    detail = clean_text(str(exc) or type(exc).__name__, 160)
    return tr("not a gpuprof exporter: {p} answered JSON of another shape ({e})", p=path, e=detail)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
