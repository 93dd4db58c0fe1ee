"""Dates of catalog prices: how old a price is, and whether an "as of" date is in the future."""

from __future__ import annotations

import datetime
import functools
import time

__all__ = [
    "NOT_FUTURE",
    "STALE_DAYS",
    "as_of_date",
    "in_future",
    "is_stale",
    "price_age_days",
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


def is_stale(as_of: str, today: datetime.date | None = None) -> bool:
    """Whether a price as of ``as_of`` is over :data:`STALE_DAYS` old."""
    age = price_age_days(as_of, today)
    return age is not None and age > STALE_DAYS


@functools.lru_cache(maxsize=256)  # a file has a few dates; strptime per row was half the load
def as_of_date(text: str) -> datetime.date | None:
    for fmt in ("%Y-%m-%d", "%Y-%m", "%Y"):
        try:
            return datetime.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None
