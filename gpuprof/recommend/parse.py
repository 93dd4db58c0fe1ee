"""Counts and durations as people type them (``7B``, ``5k``, ``72h``, ``3d``), for the CLI's flags
and the Recommend tab's form alike. Bad text raises :class:`ParseError` with a translated line."""

from __future__ import annotations

import math
import re

from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["ParseError", "parse_count", "parse_hours", "parse_seconds", "parse_usd"]

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


class ParseError(InputError, ValueError):
    """A count or a duration that does not read; the message says what was expected."""


def parse_count(text: str) -> float:
    """``7e9``, ``7B``, ``70b``, ``2T``, ``1.5M`` → a number."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    mult = 1.0
    if t and t[-1] in _SUFFIX:
        mult, t = _SUFFIX[t[-1]], t[:-1]
    try:
        value = float(t) * mult
    except ValueError:
        raise ParseError(tr("not a number: {t!r} (e.g. 7e9 or 7B)", t=text)) from None
    if not math.isfinite(value) or value < 0:
        raise ParseError(tr("must be a number >= 0: {t!r}", t=text))
    return value


#: Currency signs an amount may be typed with; the amount is in the display currency whatever
#: the sign (``recommend --currency``, the GUI's setting): ``¥50k`` with ``--currency CNY``.
_MONEY_SIGNS = str.maketrans("", "", "$¥￥€")


def parse_usd(text: str) -> float:
    """``5000``, ``$5k``, ``¥50k`` → an amount in the display currency (US dollars unless one
    is chosen)."""
    return parse_count(text.translate(_MONEY_SIGNS))


def parse_hours(text: str) -> float:
    """``72h``, ``3d``, ``90m``, ``1w``, ``48`` (hours) → hours."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([mhdw]?)\s*", text.lower())
    if not m:
        raise ParseError(tr("not a duration: {t!r} (e.g. 72h, 3d, 90m)", t=text))
    value = float(m.group(1)) * {"": 1, "h": 1, "m": 1 / 60, "d": 24, "w": 168}[m.group(2)]
    if not math.isfinite(value):
        raise ParseError(tr("not a duration: {t!r} (e.g. 72h, 3d, 90m)", t=text))
    if value <= 0:
        raise ParseError(tr("duration must be > 0: {t!r}", t=text))
    return value


def parse_seconds(text: str) -> float:
    """A latency: ``50ms``, ``2s``, ``0.5`` (seconds), ``1m`` → seconds (> 0)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*(ms|s|m|)\s*", text.lower())
    if not m:
        raise ParseError(tr("not a latency: {t!r} (e.g. 50ms, 2s)", t=text))
    value = float(m.group(1)) * {"": 1.0, "s": 1.0, "ms": 1e-3, "m": 60.0}[m.group(2)]
    if not math.isfinite(value) or value <= 0:
        raise ParseError(tr("latency must be > 0: {t!r}", t=text))
    return value
