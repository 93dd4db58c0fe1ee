"""A small client of Prometheus's HTTP API (``/api/v1/query``, ``query_range``, ``series``,
``targets``), on the standard library.

It talks to the one URL it was given and nowhere else: redirects are refused (they would lead
to another host), and nothing is sent before a call. Each failure is a :class:`FleetError`
whose one-line message names the URL and what failed: the name did not resolve, the
connection was refused, TLS failed, 401/403, no answer within the timeout, or the server is not
a Prometheus (an HTML page, JSON of another shape). The timeout bounds the whole request (connect,
headers and body; :mod:`gpuprof.httpread`), not only each socket read, and an answer larger than
``max_bytes`` is refused as it arrives, before it is parsed.

Answers are checked for shape: a result that is not what the API documents is an error; one
malformed series inside a good answer is skipped (counted in :attr:`PrometheusClient.skipped`).
Sample values are floats, NaN for Prometheus's ``NaN``/``±Inf`` and anything unreadable.
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import math
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuprof.errors import GpuprofError
from gpuprof.httperrors import ServerTexts, describe_url_error
from gpuprof.httpread import BoundedRequest, Budget, HttpLimitError, build_opener, read_body
from gpuprof.i18n import tr
from gpuprof.netlimits import PROMETHEUS_MAX_BYTES, PROMETHEUS_TIMEOUT_S

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT_S",
    "FleetError",
    "PrometheusClient",
    "RangeSeries",
    "Sample",
    "Target",
    "display_url",
]

log = logging.getLogger("gpuprof.fleet")

#: Seconds one request may take in all, from connecting to the answer's last byte.
DEFAULT_TIMEOUT_S = PROMETHEUS_TIMEOUT_S
#: The largest answer read (bytes).
DEFAULT_MAX_BYTES = PROMETHEUS_MAX_BYTES
#: FleetError's kinds for gpuprof.httperrors' where they differ.
_FLEET_KINDS = {"not_found": "not_prometheus", "not_http": "not_prometheus"}


class FleetError(GpuprofError):
    """Prometheus could not be asked or did not answer as Prometheus: one line naming the URL.

    ``kind`` says what failed, for callers that react (the app's banner, tests): ``dns``,
    ``refused``, ``tls``, ``auth``, ``timeout``, ``network``, ``http``, ``not_prometheus``,
    ``too_big``, ``query``, ``redirect``, ``url``.
    """

    def __init__(self, url: str, what: str, kind: str) -> None:
        super().__init__(tr("Prometheus at {u}: {w}", u=url, w=what))
        self.url = url
        self.what = what
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Sample:
    """One series of an instant query: its labels, the sample's Unix time (s) and value."""

    labels: Mapping[str, str]
    time_s: float
    value: float


@dataclass(frozen=True, slots=True)
class RangeSeries:
    """One series of a range query: Unix times (s) and values (NaN where not finite)."""

    labels: Mapping[str, str]
    times_s: npt.NDArray[np.float64]
    values: npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Target:
    """One active scrape target (``/api/v1/targets``): its labels, health and last error."""

    labels: Mapping[str, str]
    scrape_url: str
    health: str
    last_error: str


def display_url(url: str) -> str:
    """``url`` as messages show it: without a ``user:password@`` part."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return url
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port is not None else "")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would send the request (and the token) to a URL the user did not give."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        raise urllib.error.HTTPError(req.full_url, code, "redirect", headers, fp)


def _float(text: object) -> float:
    if isinstance(text, str):
        try:
            value = float(text)
        except ValueError:
            return math.nan
        return value if math.isfinite(value) else math.nan
    return math.nan


def _time(value: object) -> float | None:
    """A sample's Unix time: a finite JSON number (not a bool, not an int too big for a float)."""
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is int:
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def _labels(obj: object) -> dict[str, str] | None:
    """``obj`` if it is a label set: an object of strings (JSON's keys are always strings)."""
    if type(obj) is not dict:
        return None
    for v in obj.values():
        if type(v) is not str:
            return None
    return obj


class PrometheusClient:
    """Prometheus's HTTP API at ``url`` (e.g. ``http://127.0.0.1:9090`` or a path prefix such
    as ``https://host/prometheus``). ``token``: sent as ``Authorization: Bearer``;
    ``timeout_s`` bounds each request from connect to the last byte, ``max_bytes`` its answer."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        token: str | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        text = url.strip()
        if text and "://" not in text:
            text = "http://" + text
        self.url = display_url(text)
        try:
            parts = urllib.parse.urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        except ValueError as exc:
            raise FleetError(self.url, tr("not a valid URL ({e})", e=exc), "url") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FleetError(self.url, tr("not an http:// or https:// URL with a host name"), "url")
        if parts.query or parts.fragment:
            raise FleetError(self.url, tr("the URL must not have a query or a fragment"), "url")
        self._base = urllib.parse.urlunsplit(
            (parts.scheme, parts.netloc.rpartition("@")[2], parts.path.rstrip("/"), "", "")
        )
        self._headers = {"Accept": "application/json", "User-Agent": "gpuprof-fleet"}
        if parts.username is not None:
            pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        #: What the requests carry to authenticate: "token", "password" or "" (nothing).
        self._auth = "password" if parts.username is not None else ""
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
            self._auth = "token"
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self._opener = build_opener(_NoRedirect(), ssl_context=ssl_context)
        #: Series skipped because their shape was wrong, since this client was made.
        self.skipped = 0

    # --- the API ----------------------------------------------------------------------------

    def query(self, promql: str, *, at_s: float | None = None) -> list[Sample]:
        """``/api/v1/query``: an instant vector (a scalar comes back as one unlabelled sample)."""
        return [Sample(labels, t, v) for labels, t, v in self.query_vector(promql, at_s=at_s)]

    def query_vector(
        self, promql: str, *, at_s: float | None = None
    ) -> list[tuple[dict[str, str], float, float]]:
        """:meth:`query` as plain ``(labels, time_s, value)`` tuples: the same checks, without a
        :class:`Sample` each (a fleet's overview reads thousands of series at every refresh)."""
        form = {"query": promql}
        if at_s is not None:
            form["time"] = f"{at_s:.3f}"
        data = self._data("/api/v1/query", form)
        kind, result = self._result(data, ("vector", "scalar"))
        if kind == "scalar":
            point = self._point(result)
            return [] if point is None else [({}, point[0], point[1])]
        out: list[tuple[dict[str, str], float, float]] = []
        append = out.append
        bad = 0
        for item in result:  # the shape checks of _labels and _point, inlined: 5,000+ items
            if type(item) is dict:
                labels = _labels(item.get("metric"))
                pair = item.get("value")
                if labels is not None and type(pair) is list and len(pair) == 2:
                    t = _time(pair[0])
                    if t is not None:
                        append((labels, t, _float(pair[1])))
                        continue
            bad += 1
        if bad:
            self.skipped += bad
        return out

    def query_range(
        self, promql: str, *, start_s: float, end_s: float, step_s: float
    ) -> list[RangeSeries]:
        """``/api/v1/query_range``: every series with its points from ``start_s`` to ``end_s``."""
        form = {
            "query": promql,
            "start": f"{start_s:.3f}",
            "end": f"{end_s:.3f}",
            "step": f"{step_s:g}",
        }
        data = self._data("/api/v1/query_range", form)
        _, result = self._result(data, ("matrix",))
        out: list[RangeSeries] = []
        for item in result:
            labels = _labels(item.get("metric")) if isinstance(item, dict) else None
            values = item.get("values") if isinstance(item, dict) else None
            if labels is None or not isinstance(values, list):
                self.skipped += 1
                continue
            times = np.empty(len(values), dtype=np.float64)
            vals = np.empty(len(values), dtype=np.float64)
            n = 0
            for pair in values:
                point = self._point(pair)
                if point is not None:
                    times[n], vals[n] = point
                    n += 1
            out.append(RangeSeries(labels, times[:n], vals[:n]))
        return out

    def series(
        self, matchers: Sequence[str], *, start_s: float | None = None, end_s: float | None = None
    ) -> list[dict[str, str]]:
        """``/api/v1/series``: the label sets of the series matching any of ``matchers``."""
        form: list[tuple[str, str]] = [("match[]", m) for m in matchers]
        if start_s is not None:
            form.append(("start", f"{start_s:.3f}"))
        if end_s is not None:
            form.append(("end", f"{end_s:.3f}"))
        data = self._data("/api/v1/series", form)
        if not isinstance(data, list):
            raise self._shape(tr("the series answer is not a list"))
        out: list[dict[str, str]] = []
        for item in data:
            labels = _labels(item)
            if labels is None:
                self.skipped += 1
                continue
            out.append(labels)
        return out

    def targets(self) -> list[Target]:
        """``/api/v1/targets?state=active``: the scrape targets, their health and last error."""
        data = self._data("/api/v1/targets?state=active", None)
        active = data.get("activeTargets") if isinstance(data, dict) else None
        if not isinstance(active, list):
            raise self._shape(tr("the targets answer has no activeTargets list"))
        out: list[Target] = []
        for item in active:
            labels = _labels(item.get("labels")) if isinstance(item, dict) else None
            if labels is None:
                self.skipped += 1
                continue
            out.append(
                Target(
                    labels,
                    str(item.get("scrapeUrl", "")),
                    str(item.get("health", "")),
                    str(item.get("lastError", "")),
                )
            )
        return out

    # --- answers -----------------------------------------------------------------------------

    def _shape(self, what: str) -> FleetError:
        return FleetError(
            self.url, tr("not a Prometheus API answer: {w}", w=what), "not_prometheus"
        )

    def _result(self, data: Any, kinds: tuple[str, ...]) -> tuple[str, list[Any]]:
        if not isinstance(data, dict):
            raise self._shape(tr("data is not an object"))
        kind = data.get("resultType")
        result = data.get("result")
        if kind not in kinds:
            raise self._shape(
                tr("result type {k!r}, expected {e}", k=str(kind)[:40], e="/".join(kinds))
            )
        if kind == "scalar":
            return kind, result if isinstance(result, list) else []
        if not isinstance(result, list):
            raise self._shape(tr("result is not a list"))
        return str(kind), result

    def _point(self, pair: object) -> tuple[float, float] | None:
        if not isinstance(pair, list) or len(pair) != 2:
            return None
        t = _time(pair[0])
        return None if t is None else (t, _float(pair[1]))

    def _data(self, path: str, form: Mapping[str, str] | Sequence[tuple[str, str]] | None) -> Any:
        body = self._fetch(path, form)
        try:
            text = body.decode("utf-8", "replace")
            doc = json.loads(text, parse_constant=lambda name: None)
        except (ValueError, RecursionError):
            head = body[:200].lstrip().lower()
            if head.startswith((b"<!doctype", b"<html", b"<")):
                raise self._shape(tr("it answered an HTML page")) from None
            raise self._shape(tr("the answer is not valid JSON (cut short?)")) from None
        if not isinstance(doc, dict) or doc.get("status") not in ("success", "error"):
            raise self._shape(tr("no status field"))
        if doc["status"] == "error":
            raise FleetError(
                self.url,
                tr(
                    "the query failed: {t}: {e}",
                    t=str(doc.get("errorType", "error"))[:80],
                    e=str(doc.get("error", ""))[:300],
                ),
                "query",
            )
        for warning in doc.get("warnings") or ():
            log.info("Prometheus at %s warns: %s", self.url, str(warning)[:300])
        return doc.get("data")

    def _fetch(
        self, path: str, form: Mapping[str, str] | Sequence[tuple[str, str]] | None
    ) -> bytes:
        budget = Budget(self.timeout_s, self.max_bytes)
        data = None if form is None else urllib.parse.urlencode(form).encode("ascii")
        headers = dict(self._headers)
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = BoundedRequest(self._base + path, budget, data=data, headers=headers)
        try:
            with self._opener.open(req, timeout=budget.left_s()) as resp:
                content_type = resp.headers.get("Content-Type", "")
                body = read_body(resp, budget)
        except HttpLimitError as exc:
            raise FleetError(
                self.url, exc.what, "timeout" if exc.kind == "deadline" else "too_big"
            ) from None
        except urllib.error.HTTPError as exc:
            try:
                error = self._http_error(exc, budget)
            finally:
                exc.close()
            raise error from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, FleetError):
                raise exc.reason from None
            raise self._error(exc) from None
        # Resets and timeouts while reading; not HTTP, or the answer cut short.
        except (OSError, ValueError, http.client.HTTPException) as exc:
            raise self._error(exc) from None
        if "html" in content_type.lower():
            raise self._shape(tr("it answered an HTML page ({c})", c=content_type[:60]))
        return body

    def _http_error(self, exc: urllib.error.HTTPError, budget: Budget) -> FleetError:
        error = self._error(exc)
        if error.kind not in ("not_prometheus", "http"):  # a redirect, 401, 403
            return error
        # Prometheus says in a JSON body why it refused a query (400, 422, 503).
        try:
            body = read_body(exc, budget) if exc.fp is not None else b""
        except (OSError, ValueError, http.client.HTTPException, HttpLimitError):
            body = b""
        try:
            doc = json.loads(body.decode("utf-8", "replace"))
        except ValueError:
            doc = None
        if isinstance(doc, dict) and doc.get("status") == "error":
            return FleetError(
                self.url,
                tr(
                    "the query failed ({c}): {e}",
                    c=exc.code,
                    e=str(doc.get("error", ""))[:300],
                ),
                "query",
            )
        return error

    def _error(self, exc: BaseException) -> FleetError:
        if self._auth == "password":
            refused_401 = tr("401 Unauthorized: the user name and password were refused")
            refused_403 = tr("403 Forbidden: the user name and password were refused")
        else:
            refused_401 = tr("401 Unauthorized: the token of --token-file was refused")
            refused_403 = tr("403 Forbidden: the token was refused")
        texts = ServerTexts(
            refused=tr("connection refused (is Prometheus running there?)"),
            unauthorized=tr("401 Unauthorized: it needs a token (--token-file)"),
            token_refused=refused_401,
            forbidden=tr(
                "403 Forbidden: the server refused access; no token was sent "
                "(give one with --token-file)"
            ),
            token_forbidden=refused_403,
            not_found=tr("404: no Prometheus API at this address (wrong path?)"),
        )
        kind, what = describe_url_error(
            exc, url=self._base, timeout_s=self.timeout_s, texts=texts, token_sent=bool(self._auth)
        )
        return FleetError(self.url, what, _FLEET_KINDS.get(kind, kind))
