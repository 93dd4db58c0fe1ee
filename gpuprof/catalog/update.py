"""``gpuprof catalog update``: fetch SkyPilot's published catalogs, only when the user asks.

Each provider's ``<url-base>/<provider>/vms.csv`` is downloaded (HTTPS; plain HTTP only to this
machine, for tests and mirrors on loopback), at most :data:`MAX_BYTES` within
:data:`DEFAULT_TIMEOUT_S` for the whole download (:mod:`gpuprof.httpread`: a server that
trickles a byte now and then is cut off at the deadline too), read with the SkyPilot
importer (:mod:`gpuprof.catalog.skypilot`, GCP's GPUs composed with their hosts) and dated with
the fetch day. Nothing is replaced until every provider was fetched and read: a refused
connection, an HTTP error, a download cut short or a file with no GPU rows leaves the catalog
as it was and is one :class:`~gpuprof.errors.InputError` naming the URL. Then each provider's
overlay (``skypilot-<provider>.csv`` in the user catalog folder) is replaced atomically.
"""

from __future__ import annotations

import datetime
import http.client
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuprof.catalog.instances import CatalogIssue, Instance, write_instances_csv
from gpuprof.catalog.names import file_stem
from gpuprof.catalog.skypilot import parse_skypilot_csv
from gpuprof.errors import InputError
from gpuprof.httperrors import ServerTexts, describe_url_error
from gpuprof.httpread import (
    BoundedRequest,
    Budget,
    BudgetRedirectHandler,
    HttpLimitError,
    build_opener,
    read_body,
)
from gpuprof.i18n import tr
from gpuprof.jsonin import utf8_text
from gpuprof.netlimits import CATALOG_MAX_BYTES, CATALOG_TIMEOUT_S

__all__ = [
    "DEFAULT_PROVIDERS",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_URL_BASE",
    "MAX_BYTES",
    "Fetched",
    "UpdateCancelled",
    "catalog_url",
    "update_catalogs",
]

#: SkyPilot's published catalogs (skypilot-org/skypilot-catalog, format v8).
DEFAULT_URL_BASE = (
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
)
DEFAULT_PROVIDERS = ("aws", "gcp", "azure", "lambda", "oci", "runpod")
#: The largest catalog file accepted (AWS's v8 vms.csv is about 4 MB).
MAX_BYTES = CATALOG_MAX_BYTES
#: Seconds one provider's download may take in all, from connecting to the last byte.
DEFAULT_TIMEOUT_S = CATALOG_TIMEOUT_S
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}

#: ``progress(provider, bytes_so_far, total_or_None)``
Progress = Callable[[str, int, "int | None"], None]


class UpdateCancelled(Exception):
    """The user cancelled: nothing was replaced."""


@dataclass(frozen=True)
class Fetched:
    provider: str
    url: str
    path: Path
    rows: int
    composed: int
    issues: tuple[CatalogIssue, ...]


def catalog_url(base: str, provider: str) -> str:
    """``<base>/<provider>/vms.csv``; refuses anything but HTTPS (HTTP on loopback only)."""
    return _fetchable(f"{base.rstrip('/')}/{urllib.parse.quote(provider)}/vms.csv")


def _fetchable(url: str) -> str:
    """``url`` when it is HTTPS (or HTTP on loopback); InputError otherwise."""
    parts = urllib.parse.urlsplit(url)
    loopback = (parts.hostname or "") in _LOOPBACK
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise InputError(tr("{u}: only https:// URLs are fetched", u=url))
    return url


#: Redirects are followed only to URLs :func:`catalog_url` would accept: an HTTPS server
#: cannot send the download to plain HTTP elsewhere.
_OPENER = build_opener(BudgetRedirectHandler(check=_fetchable))


def _texts() -> ServerTexts:
    """What :func:`~gpuprof.httperrors.describe_url_error` says of a catalog server: a plain
    file server, whose refusals are its HTTP statuses as they are."""
    return ServerTexts(
        refused=tr("connection refused"),
        unauthorized=tr("HTTP {c} {r}", c=401, r="Unauthorized"),
        token_refused=tr("HTTP {c} {r}", c=401, r="Unauthorized"),
        forbidden=tr("HTTP {c} {r}", c=403, r="Forbidden"),
        not_found=tr("HTTP {c} {r}", c=404, r="Not Found"),
    )


def _download(
    url: str,
    provider: str,
    *,
    timeout: float,
    max_bytes: int,
    progress: Progress | None,
    cancel: threading.Event | None,
    data: bytes | None = None,
    headers: Mapping[str, str] | None = None,
) -> bytes:
    """The body at ``url`` (a POST of ``data`` when given), bounded in time and size; one
    InputError naming the URL for anything else."""
    budget = Budget(timeout, max_bytes)
    request = BoundedRequest(
        url, budget, data=data, headers={"User-Agent": "gpuprof catalog update", **(headers or {})}
    )

    def before_read(got: int, total: int | None) -> None:
        if cancel is not None and cancel.is_set():
            raise UpdateCancelled
        if progress is not None:
            progress(provider, got, total)

    try:
        # schemes: catalog_url, and _fetchable for redirects
        with _OPENER.open(request, timeout=budget.left_s()) as resp:
            return read_body(resp, budget, before_read=before_read)
    except HttpLimitError as exc:
        raise InputError(tr("{u}: {w}", u=url, w=exc.what)) from None
    except http.client.IncompleteRead as exc:
        got, short = len(exc.partial), exc.expected or 0
        raise InputError(
            tr("{u}: download cut short ({n} of {t} bytes)", u=url, n=got, t=got + short)
        ) from None
    except (OSError, http.client.HTTPException) as exc:  # URLError and HTTPError included
        if isinstance(exc, urllib.error.HTTPError):
            exc.close()  # its body stays open otherwise
        _, what = describe_url_error(exc, url=url, timeout_s=timeout, texts=_texts())
        if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
            raise InputError(tr("{u}: cannot connect: {e}", u=url, e=what)) from None
        raise InputError(tr("{u}: {w}", u=url, w=what)) from None


def update_catalogs(
    providers: Sequence[str] = DEFAULT_PROVIDERS,
    *,
    url_base: str = DEFAULT_URL_BASE,
    dest_dir: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = MAX_BYTES,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    today: datetime.date | None = None,
) -> list[Fetched]:
    """Fetch and read every provider's catalog, then replace the overlays (all or none).
    ``timeout``: seconds each download may take in all; ``max_bytes``: the largest file."""
    from gpuprof.catalog.skypilot import COMPOSED_MARK

    wanted = [p.strip().lower() for p in providers if p.strip()]
    if not wanted:
        raise InputError(tr("no providers given"))
    as_of = (today or datetime.date.today()).isoformat()
    urls = {p: catalog_url(url_base, p) for p in wanted}  # every URL checked before any fetch
    read: list[tuple[str, str, list[Instance], list[CatalogIssue]]] = []
    for prov, url in urls.items():
        data = _download(
            url, prov, timeout=timeout, max_bytes=max_bytes, progress=progress, cancel=cancel
        )
        text = utf8_text(data, url)
        rows, issues = parse_skypilot_csv(text, name=url, provider=prov, as_of=as_of)
        if not rows:
            errors = "; ".join(i.reason for i in issues if i.severity == "error")[:300]
            raise InputError(tr("{u}: no GPU rows read ({e})", u=url, e=errors or "empty"))
        read.append((prov, url, rows, issues))
    if cancel is not None and cancel.is_set():
        raise UpdateCancelled
    if dest_dir is None:
        from gpuprof.paths import user_catalog_dir

        dest_dir = user_catalog_dir()
    done = []
    for prov, url, rows, issues in read:
        dest = dest_dir / f"skypilot-{file_stem(prov, fallback='provider')}.csv"
        write_instances_csv(rows, dest)  # atomic: the old file stays whole until replaced
        composed = sum(1 for r in rows if r.notes.startswith(COMPOSED_MARK))
        done.append(Fetched(prov, url, dest, len(rows), composed, tuple(issues)))
    return done
