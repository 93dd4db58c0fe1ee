"""A team's own negotiated prices, published at a URL: ``gpuprof catalog update --prices URL``.

Format (documented in ``gpuprof catalog update --help`` and the README): either our catalog CSV
(the columns of :data:`~gpuprof.catalog.instances.COLUMNS`; ``provider``, ``instance``,
``gpu_model`` and ``gpu_count`` required) or JSON: an array of objects with those keys (or
``{"rows": [...]}``), numbers as JSON numbers or strings. Prices are per hour for the whole
instance in the row's ``currency`` (blank: USD); ``price_monthly`` per month.

Each row is marked (``negotiated:`` in its notes, the URL as its source) and stored as the overlay
``negotiated-<host>.csv``: an overlay row with the provider, instance and region of a public row
replaces it, so negotiated prices override public ones. A row without a date is dated the day
it was fetched (the day it was read). The download is bounded like ``catalog update``'s
(HTTPS, or HTTP on loopback; size and time limits); a list with a bad row is refused whole,
naming the URL and the row: half a price list must not mix with public prices.
"""

from __future__ import annotations

import datetime
import json
import math
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from gpuprof.catalog.instances import (
    COLUMNS,
    Instance,
    instance_from_row,
    parse_instances_csv,
    write_instances_csv,
)
from gpuprof.catalog.names import file_stem
from gpuprof.catalog.update import DEFAULT_TIMEOUT_S, MAX_BYTES, _download, _fetchable
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.jsonin import utf8_text

__all__ = ["NEGOTIATED_MARK", "MAX_ROWS", "Negotiated", "fetch_negotiated", "parse_price_list"]

#: The notes clause that marks a negotiated price.
NEGOTIATED_MARK = "negotiated:"
#: More rows than this is not a team's price list.
MAX_ROWS = 200_000


@dataclass(frozen=True)
class Negotiated:
    url: str
    path: Path
    rows: int


def _cell(name: str, value: object, where: str) -> str:
    """A JSON value as a catalog cell: text, a finite number, or null/absent (blank)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise InputError(tr("{w}: {k} is true/false, not a value", w=where, k=name))
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise InputError(tr("{w}: {k} is not a finite number", w=where, k=name))
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value
    raise InputError(tr("{w}: {k} must be text or a number", w=where, k=name))


def _json_rows(text: str, url: str) -> list[Mapping[str, str]]:
    try:
        data = json.loads(text, parse_constant=lambda c: float("nan"))
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise InputError(tr("{u}: not valid JSON{w}", u=url, w=where)) from None
    if isinstance(data, dict):
        data = data.get("rows")
    if not isinstance(data, list):
        raise InputError(tr('{u}: JSON must be an array of rows or {{"rows": [...]}}', u=url))
    if len(data) > MAX_ROWS:
        raise InputError(tr("{u}: over {n} rows: not a price list", u=url, n=MAX_ROWS))
    rows: list[Mapping[str, str]] = []
    for n, obj in enumerate(data, start=1):
        where = f"{url}: row {n}"
        if not isinstance(obj, dict):
            raise InputError(tr("{w}: not an object", w=where))
        rows.append({c: _cell(c, obj.get(c), where) for c in COLUMNS})
    return rows


def parse_price_list(
    data: bytes, url: str, *, today: datetime.date | None = None
) -> list[Instance]:
    """The rows of a price list (CSV or JSON, by its first character), marked negotiated."""
    text = utf8_text(data, url)
    if "\0" in text:
        raise InputError(tr("{u}: holds a NUL byte: not a price list", u=url))
    origin = f"negotiated-{_host(url)}.csv"
    rows: list[Instance]
    if text.lstrip()[:1] in ("[", "{"):
        rows = []
        for n, cells in enumerate(_json_rows(text, url), start=1):
            try:
                inst, _warning = instance_from_row(cells, origin=origin)
            except ValueError as exc:
                raise InputError(tr("{u}: row {n}: {e}", u=url, n=n, e=str(exc))) from None
            rows.append(inst)
    else:
        rows, issues = parse_instances_csv(text, name=url, origin=origin)
        errors = [i for i in issues if i.severity == "error"]
        if errors:
            raise InputError(str(errors[0]))
        if len(rows) > MAX_ROWS:
            raise InputError(tr("{u}: over {n} rows: not a price list", u=url, n=MAX_ROWS))
    if not rows:
        raise InputError(tr("{u}: no rows", u=url))
    day = (today or datetime.date.today()).isoformat()
    return [_marked(r, url, day) for r in rows]


def _marked(inst: Instance, url: str, day: str) -> Instance:
    # the clause head stays English in every language: Instance notes are read by code too
    note = NEGOTIATED_MARK + " " + tr("the team's price list at {u}", u=url)
    return replace(
        inst,
        source=url if inst.source.startswith("user:") else inst.source,
        as_of=inst.as_of or day,
        notes=f"{note}; {inst.notes}" if inst.notes else note,
    )


def _host(url: str) -> str:
    return file_stem(urllib.parse.urlsplit(url).netloc or "prices", fallback="prices")


def fetch_negotiated(
    url: str,
    *,
    dest_dir: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = MAX_BYTES,
    today: datetime.date | None = None,
) -> Negotiated:
    """Download, read and store a team's price list; nothing is written unless every row reads."""
    url = _fetchable(url.strip())
    data = _download(
        url, "prices", timeout=timeout, max_bytes=max_bytes, progress=None, cancel=None
    )
    rows = parse_price_list(data, url, today=today)
    if dest_dir is None:
        from gpuprof.paths import user_catalog_dir

        dest_dir = user_catalog_dir()
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / f"negotiated-{_host(url)}.csv"
    write_instances_csv(rows, dest)  # atomic: the previous list stays whole until replaced
    return Negotiated(url, dest, len(rows))
