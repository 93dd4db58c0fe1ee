"""Dates of catalog prices: how old a price is, and whether an "as of" date is in the future.

:func:`staleness` is the one judgement of a price's date that every view uses (``catalog
list``, ``catalog audit``, recommendation rows, the report, the GUI): a price is old when it
was read more than :data:`STALE_DAYS` ago, or when its date names only a year or a month
(``2026``) or is missing: the day it was read is unknown, so it is never trusted as current."""

from __future__ import annotations

import datetime
import functools
import time
from dataclasses import dataclass

from gpuprof.i18n import tr

__all__ = [
    "NOT_FUTURE",
    "STALE_DAYS",
    "Staleness",
    "as_of_date",
    "date_precision",
    "dated",
    "in_future",
    "is_stale",
    "price_age_days",
    "price_dated",
    "stale_mark",
    "stale_note",
    "staleness",
    "tomorrow",
]


class _Tomorrow:
    """Tomorrow's date (a day of slack for time zones: no price is as of a later day), looked
    up once a minute: ``date.today()`` for each of 100,000 rows cost more than the row."""

    def __init__(self) -> None:
        self._until = -1.0
        self._date = datetime.date.min

    def __call__(self) -> datetime.date:
        now = time.monotonic()
        if now >= self._until:
            self._until = now + 60.0
            self._date = datetime.date.today() + datetime.timedelta(days=1)
        return self._date


tomorrow = _Tomorrow()

#: "as of" texts already found not to be in the future: time only moves on, so they never will
#: be (a few per catalog; bounded all the same).
NOT_FUTURE: set[str] = set()
_NOT_FUTURE_MAX = 4096


def in_future(text: str) -> bool:
    """Whether the date ``text`` is after tomorrow (an unreadable date is not)."""
    when = as_of_date(text)
    if when is not None and when > tomorrow():
        return True
    if len(NOT_FUTURE) >= _NOT_FUTURE_MAX:
        NOT_FUTURE.clear()
    NOT_FUTURE.add(text)
    return False


#: Prices older than this are flagged (``catalog list``, recommendation rows, the report).
STALE_DAYS = 90


def price_age_days(as_of: str, today: datetime.date | None = None) -> int | None:
    """Days since the last day ``as_of`` can mean ("2026" → 31 Dec 2026, "2026-03" → 31 Mar):
    a price is never called older than it may be. None when there is no date."""
    text = as_of.strip()
    when = as_of_date(text) if text else None
    if when is None:
        return None
    if len(text) == 4:
        when = datetime.date(when.year, 12, 31)
    elif len(text) == 7:
        nxt = datetime.date(when.year + (when.month == 12), when.month % 12 + 1, 1)
        when = nxt - datetime.timedelta(days=1)
    return ((today or datetime.date.today()) - when).days


def date_precision(as_of: str) -> str:
    """ "day", "month" or "year" for a readable ``as_of``; "" for none or an unreadable one."""
    text = as_of.strip()
    if not text or as_of_date(text) is None:
        return ""
    return {4: "year", 7: "month"}.get(len(text), "day")


@dataclass(frozen=True, slots=True)
class Staleness:
    """How far a price's date can be trusted. ``stale``: over :data:`STALE_DAYS` days old,
    dated only to the ``precision`` of a month or a year, or not dated at all. ``age_days``
    counts from the last day the date can mean (None when there is no readable date)."""

    stale: bool
    precision: str  # "day", "month", "year" or "" (no readable date)
    age_days: int | None


def staleness(as_of: str, today: datetime.date | None = None) -> Staleness:
    """The one judgement of a price date (see the module's docstring)."""
    precision = date_precision(as_of)
    age = price_age_days(as_of, today) if precision else None
    old = age is None or age > STALE_DAYS
    return Staleness(old or precision in ("month", "year"), precision, age)


def is_stale(as_of: str, today: datetime.date | None = None) -> bool:
    """Whether a price as of ``as_of`` is old (:func:`staleness`)."""
    return staleness(as_of, today).stale


def stale_mark(as_of: str, today: datetime.date | None = None) -> str:
    """What a table writes after an old date: "(old)", "(year only)" or "(month only)"; ""
    for a current one."""
    s = staleness(as_of, today)
    if not s.stale:
        return ""
    if s.precision == "year":
        return tr("(year only)")
    if s.precision == "month":
        return tr("(month only)")
    if not s.precision:
        return tr("(undated)")
    return tr("(old)")


def dated(as_of: str, today: datetime.date | None = None) -> str:
    """``as_of`` as every view shows it: with its mark when old ("2026 (year only)",
    "2026-01-21 (old)"); "" for no date."""
    text = as_of.strip()
    if not text:
        return ""
    mark = stale_mark(text, today)
    return f"{text} {mark}" if mark else text


def price_dated(as_of: str, priced: bool = True, today: datetime.date | None = None) -> str:
    """A catalog row's "as of" as every view shows it (``catalog list``, recommend's job and
    serving tables and reasons, the GUI's table and tooltips): the date marked when the row has
    a price and it is old (:func:`dated`); a row without a price keeps its plain date (there is
    no price to go stale); "" for no date. Rows: :func:`gpuprof.catalog.money.shown_as_of`."""
    return dated(as_of, today) if priced else as_of.strip()


def stale_note(as_of: str, today: datetime.date | None = None) -> str:
    """A recommendation row's warning about its price date ("" when the price is current)."""
    s = staleness(as_of, today)
    if not s.stale:
        return ""
    if not s.precision:
        return tr("prices carry no date they were read: treat them as old (gpuprof catalog update)")
    if s.precision in ("month", "year"):
        return tr(
            "prices dated only {d}: the day they were read is unknown, treat them as old "
            "(gpuprof catalog update)",
            d=as_of.strip(),
        )
    return tr(
        "prices as of {d} are over {n} days old (gpuprof catalog update)",
        d=as_of.strip(),
        n=STALE_DAYS,
    )


@functools.lru_cache(maxsize=256)  # a file has a few dates; strptime per row was half the load
def as_of_date(text: str) -> datetime.date | None:
    for fmt in ("%Y-%m-%d", "%Y-%m", "%Y"):
        try:
            return datetime.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None
