"""Currencies of catalog prices and the dated exchange rates that compare them.

Each catalog row keeps the currency its source published it in (``Instance.currency``); a
catalog compares its rows in one currency (``Catalog.currency``), converting at a rate the
user gave, with its date: ``--fx-rate CNY=7.2@2026-11-30`` for one command, or the rates file
(``gpuprof catalog fx --set CNY=7.2@2026-11-30``, one ``currency,per_usd,as_of,source`` row per
currency in :func:`rates_path`). No rate is shipped: an exchange rate the program invented would
be a price nobody published. A row whose currency has no rate keeps its own prices and is left
out of the comparison, with one issue saying which rate to set.
"""

from __future__ import annotations

import csv
import datetime
import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpuprof.catalog.asof import as_of_date, in_future, price_dated
from gpuprof.catalog.row import CatalogIssue, Instance
from gpuprof.csvsafe import unguard
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = [
    "CURRENCIES",
    "FxRate",
    "Rates",
    "convert",
    "fmt_money",
    "has_price",
    "load_rates",
    "parse_fx_rate",
    "published_prices",
    "rates_note",
    "rates_path",
    "reprice",
    "save_rate",
    "shown_as_of",
]

#: The display currencies and how an amount in each is written.
CURRENCIES = {"USD": "$", "CNY": "¥", "EUR": "€"}

#: A rate file larger than this is not a rates file.
_MAX_FILE_BYTES = 64 * 1024
#: Units of a currency per US dollar beyond these are a typo (the rupiah is ~16,000).
_RATE_MIN, _RATE_MAX = 1e-4, 1e6

_SPEC = re.compile(r"^\s*([A-Za-z]{3})\s*=\s*([^@\s]+)\s*@\s*(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class FxRate:
    """``per_usd`` units of ``currency`` buy one US dollar, as of ``as_of`` (YYYY-MM-DD)."""

    currency: str
    per_usd: float
    as_of: str
    source: str = "user"

    def describe(self) -> str:
        return tr(
            "1 USD = {r:g} {c} as of {d} ({s})",
            r=self.per_usd,
            c=self.currency,
            d=self.as_of,
            s=self.source,
        )


#: Rates by currency code ("USD" is implied: 1).
Rates = Mapping[str, FxRate]


def _rate(code: str, value: str, as_of: str, source: str) -> FxRate:
    """An :class:`FxRate` from its parts; ValueError naming the bad part."""
    code = code.strip().upper()
    if not (len(code) == 3 and code.isascii() and code.isalpha()):
        raise ValueError(f"currency {code!r} is not a three-letter code such as CNY")
    if code == "USD":
        raise ValueError("USD is the base of every rate (1 USD = 1 USD): give another currency")
    try:
        per_usd = float(value)
    except ValueError:
        raise ValueError(f"rate {value.strip()!r} is not a number") from None
    if not (math.isfinite(per_usd) and _RATE_MIN <= per_usd <= _RATE_MAX):
        raise ValueError(
            f"rate {value.strip()} is outside {_RATE_MIN:g}..{_RATE_MAX:g} {code} per USD"
        )
    text = as_of.strip()
    if len(text) != 10 or as_of_date(text) is None:
        raise ValueError(f"date {text!r} is not a day (YYYY-MM-DD)")
    if in_future(text):
        raise ValueError(f"date {text} is in the future")
    return FxRate(code, per_usd, text, source.strip() or "user")


def parse_fx_rate(spec: str, *, source: str = "--fx-rate") -> FxRate:
    """``CNY=7.2@2026-11-30`` → a rate; InputError with the form to use otherwise."""
    m = _SPEC.match(spec)
    if m is None:
        raise InputError(
            tr(
                "{src} {v!r}: write CODE=RATE@YYYY-MM-DD, e.g. CNY=7.2@2026-11-30",
                src=source,
                v=spec,
            )
        )
    try:
        return _rate(m.group(1), m.group(2), m.group(3), source)
    except ValueError as exc:
        raise InputError(tr("{src} {v!r}: {why}", src=source, v=spec, why=str(exc))) from None


def rates_path() -> Path:
    """The user's rates file."""
    from gpuprof.paths import config_dir

    return config_dir() / "fx_rates.csv"


def load_rates(path: Path | None = None) -> dict[str, FxRate]:
    """The rates in the user's rates file ({} when there is none). A bad file is one
    InputError naming the file and the line: a wrong rate must not price anything."""
    path = path or rates_path()
    if not path.exists() and not path.is_symlink():
        return {}
    from gpuprof.jsonin import read_regular, utf8_text

    # A regular file only, opened without waiting (a FIFO would block), at most the cap.
    data = read_regular(path, _MAX_FILE_BYTES, what=tr("rates file"))
    text = utf8_text(data, path)
    if "\0" in text:
        raise InputError(tr("{p}: holds a NUL byte: not a rates file", p=path))
    return parse_rates_csv(text, name=str(path))


def parse_rates_csv(text: str, *, name: str) -> dict[str, FxRate]:
    """``currency,per_usd,as_of,source`` rows (header required) → rates by currency."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    want = ["currency", "per_usd", "as_of", "source"]
    if header is None or [h.strip().lower() for h in header[:3]] != want[:3]:
        raise InputError(tr("{p}:1: the header must be {h}", p=name, h=",".join(want)))
    out: dict[str, FxRate] = {}
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < 3 or len(row) > 4:
            raise InputError(
                tr("{p}:{n}: expected 3 or 4 cells, got {k}", p=name, n=line, k=len(row))
            )
        try:
            rate = _rate(row[0], row[1], row[2], unguard(row[3]) if len(row) == 4 else "")
        except ValueError as exc:
            raise InputError(f"{name}:{line}: {exc}") from None
        out[rate.currency] = rate
    return out


def save_rate(rate: FxRate, path: Path | None = None) -> Path:
    """Add or replace ``rate`` in the user's rates file (written atomically)."""
    from gpuprof import csvsafe
    from gpuprof.fileio import atomic_open

    path = path or rates_path()
    rates = load_rates(path) | {rate.currency: rate}
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w", newline="") as fh:
        writer = csvsafe.writer(fh, lineterminator="\n")  # the source is the user's text
        writer.writerow(["currency", "per_usd", "as_of", "source"])
        for r in sorted(rates.values(), key=lambda r: r.currency):
            writer.writerow([r.currency, repr(r.per_usd), r.as_of, r.source])
    return path


def convert(amount: float | None, src: str, dst: str, rates: Rates) -> float | None:
    """``amount`` in ``src`` as ``dst``; None when a rate it needs is missing."""
    if amount is None or src == dst:
        return amount
    per_usd_src = 1.0 if src == "USD" else (rates[src].per_usd if src in rates else None)
    per_usd_dst = 1.0 if dst == "USD" else (rates[dst].per_usd if dst in rates else None)
    if per_usd_src is None or per_usd_dst is None:
        return None
    return amount / per_usd_src * per_usd_dst


def published_prices(inst: Instance) -> tuple[float | None, ...]:
    """The row's prices as its source wrote them, in ``inst.currency``: on-demand, spot,
    reserved 1y, reserved 3y per hour, monthly."""
    return inst.published or (
        inst.price_ondemand_usd_hr,
        inst.price_spot_usd_hr,
        inst.price_reserved_1y_usd_hr,
        inst.price_reserved_3y_usd_hr,
        inst.price_monthly_usd,
    )


def has_price(inst: Instance) -> bool:
    """Whether the row's source gives any price (on-demand, spot, reserved or monthly)."""
    return any(p is not None for p in published_prices(inst))


def shown_as_of(inst: Instance, today: datetime.date | None = None) -> str:
    """The row's "as of" as every table shows it: :func:`~gpuprof.catalog.asof.price_dated`
    ("2026-01-21 (old)" for an old price, the plain date of a row without a price)."""
    return price_dated(inst.as_of, has_price(inst), today)


def reprice(
    rows: Sequence[Instance], currency: str, rates: Rates, *, origin: str = "catalog"
) -> tuple[list[Instance], list[CatalogIssue]]:
    """``rows`` with their prices in ``currency`` (each converted from the source's own
    figures); rows that need a rate nobody gave keep no comparable price, and one issue per
    missing rate says how many and how to set it."""
    out: list[Instance] = []
    missing: dict[str, int] = {}
    for inst in rows:
        own = published_prices(inst)
        if inst.currency == currency:
            out.append(inst if not inst.published else _with(inst, own, ()))
            continue
        need = [c for c in (inst.currency, currency) if c != "USD" and c not in rates]
        if need:
            missing[need[0]] = missing.get(need[0], 0) + 1
            out.append(_with(inst, (None,) * 5, own))
            continue
        out.append(_with(inst, tuple(convert(p, inst.currency, currency, rates) for p in own), own))
    issues = [
        CatalogIssue(
            origin,
            0,
            tr(
                "{n} rows are not compared in {to}: no exchange rate for {c} "
                "(--fx-rate {c}=RATE@YYYY-MM-DD, or gpuprof catalog fx --set)",
                n=n,
                c=code,
                to=currency,
            ),
            "warning",
        )
        for code, n in sorted(missing.items())
    ]
    return out, issues


def _with(
    inst: Instance, prices: Sequence[float | None], published: tuple[float | None, ...]
) -> Instance:
    ondemand, spot, r1, r3, monthly = prices
    return replace(
        inst,
        price_ondemand_usd_hr=ondemand,
        price_spot_usd_hr=spot,
        price_reserved_1y_usd_hr=r1,
        price_reserved_3y_usd_hr=r3,
        price_monthly_usd=monthly,
        published=published,
    )


def fmt_money(value: float | None, currency: str, *, digits: int = 2) -> str:
    """``¥1,234.50``; an amount in a currency without a symbol is written ``1,234.50 XYZ``."""
    from gpuprof.units import NA

    if value is None or not math.isfinite(value):
        return NA
    sign = CURRENCIES.get(currency)
    return f"{sign}{value:,.{digits}f}" if sign else f"{value:,.{digits}f} {currency}"


def rates_from(specs: Iterable[str], base: Rates | None = None) -> dict[str, FxRate]:
    """The user's rates file overlaid with ``--fx-rate`` flags (a flag wins)."""
    rates = dict(load_rates() if base is None else base)
    for spec in specs:
        rate = parse_fx_rate(spec)
        rates[rate.currency] = rate
    return rates


def rates_note(catalog: Any) -> str:
    """The dated rates a catalog's prices were converted at, as one line ("1 USD = 7.2 CNY as
    of 2026-11-30 (…)"): those of every currency other than USD that its rows were published
    in or that it is shown in; "" when no conversion was needed or none could be made."""
    used = {i.currency for i in catalog.instances} | {catalog.currency}
    found = (catalog.rates.get(code) for code in sorted(used - {"USD"}))
    return "; ".join(r.describe() for r in found if r is not None)
