"""Numbers and units, formatted in one place (CLI, UI, reports)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

__all__ = [
    "fmt_bytes",
    "fmt_rate",
    "fmt_pct",
    "fmt_num",
    "fmt_duration",
    "fmt_usd",
    "fmt_measure",
    "fmt_latency",
    "fmt_hours",
    "fmt_count",
    "fmt_sig",
    "tflops_digits",
    "NA",
]

#: What an unsupported or missing value prints as (nvidia-smi prints "N/A").
NA = "N/A"

_BIN = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
_DEC = ("B", "kB", "MB", "GB", "TB", "PB")


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _finite(value: float | None) -> float | None:
    """``value`` as a float; None when it is missing, NaN or infinite."""
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def fmt_bytes(value: float | None, *, binary: bool = True, digits: int = 1) -> str:
    """``fmt_bytes(81559 * 2**20) == '79.6 GiB'``; decimal units with ``binary=False``."""
    if _missing(value):
        return NA
    assert value is not None
    base, names = (1024.0, _BIN) if binary else (1000.0, _DEC)
    v = float(value)
    for name in names:
        if abs(v) < base or name == names[-1]:
            return f"{v:.0f} {name}" if name == "B" else f"{v:.{digits}f} {name}"
        v /= base
    raise AssertionError("unreachable")


def fmt_rate(value: float | None, *, digits: int = 1) -> str:
    """Bytes per second in decimal units, as bandwidth tools print them: ``'12.3 GB/s'``."""
    if _missing(value):
        return NA
    return fmt_bytes(value, binary=False, digits=digits) + "/s"


def fmt_pct(value: float | None, *, digits: int = 0) -> str:
    if _missing(value):
        return NA
    return f"{value:.{digits}f}%"


def fmt_num(value: float | None, unit: str = "", *, digits: int = 0) -> str:
    """A number with an optional unit; ``N/A`` when missing."""
    if _missing(value):
        return NA
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}" if unit else text


def fmt_sig(value: float | None, unit: str = "", *, digits: int = 4) -> str:
    """A measured figure to ``digits`` significant digits, without an exponent and without
    trailing zeros, so a small value keeps its digits: ``fmt_sig(0.000134, "TFLOPS") ==
    "0.000134 TFLOPS"`` (a CPU's figure, not "0"), ``fmt_sig(42.8, "GB/s") == "42.8 GB/s"``,
    ``fmt_sig(12345.6) == "12,346"``. ``N/A`` when missing or infinite."""
    v = _finite(value)
    if v is None:
        return NA
    if abs(v) >= 1000:
        text = f"{v:,.0f}"
    elif v != 0 and abs(v) < 1e-6:
        text = f"{v:.{digits}g}"  # beyond a fixed point's reach: an exponent, never "0"
    else:
        decimals = 0 if v == 0 else max(0, digits - 1 - math.floor(math.log10(abs(v))))
        text = f"{v:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    return f"{text} {unit}" if unit else text


def fmt_duration(seconds: float | None) -> str:
    """``fmt_duration(93784) == '1d 2h 3m'``; sub-minute values keep seconds; an infinity
    (a hostile recording's time) is ``N/A``, like NaN."""
    s = _finite(seconds)
    if s is None:
        return NA
    if s < 60:
        return f"{s:.1f} s"
    total = round(s)
    minutes = total // 60
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours}h {minutes}m"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {total % 60}s"


def fmt_measure(unit: str, value: float | None) -> str:
    """A benchmark's headline value with its unit: TFLOPS, bytes/s as GB/s, tokens/s, …"""
    if _missing(value):
        return NA
    assert value is not None
    if unit == "B/s":
        return fmt_rate(value)
    if unit == "TFLOPS":
        return fmt_num(value, "TFLOPS", digits=tflops_digits(value))
    return fmt_num(value, unit, digits=0 if value >= 100 else 1)


def tflops_digits(value: float | None) -> int:
    """Decimals for a column of TFLOPS: three significant digits below 0.1 (a CPU's 0.0013
    TFLOPS is not "0.001"), else 3, or 1 from 10 up; one unit throughout, so that a column of
    runs stays comparable."""
    if value is None or not math.isfinite(value):
        return 1
    if 0 < abs(value) < 0.1:
        return min(9, 2 - math.floor(math.log10(abs(value))))
    return 1 if value >= 10 else 3


#: The sign money is written with: "$" unless a command compares prices in another currency
#: (``recommend --currency CNY``: every amount is then in yuan, see :func:`money_currency`).
_MONEY_SIGN = ["$"]
_SIGNS = {"USD": "$", "CNY": "¥", "EUR": "€"}


@contextlib.contextmanager
def money_currency(code: str) -> Iterator[None]:
    """Within the block, :func:`fmt_usd` writes amounts in ``code`` (their values must already
    be in it: a catalog converted by ``Catalog.in_currency``)."""
    _MONEY_SIGN.append(_SIGNS.get(code, code + " "))
    try:
        yield
    finally:
        _MONEY_SIGN.pop()


def set_money_currency(code: str) -> None:
    """Write amounts in ``code`` from now on (the GUI's currency setting: every amount it shows
    comes from a catalog converted to that currency)."""
    _MONEY_SIGN[0] = _SIGNS.get(code, code + " ")


def money_sign() -> str:
    return _MONEY_SIGN[-1]


def fmt_usd(value: float | None, *, digits: int = 2) -> str:
    if _missing(value):
        return NA
    return f"{_MONEY_SIGN[-1]}{value:,.{digits}f}"


def fmt_latency(seconds: float | None, *, digits: int = 1) -> str:
    """Short times: ``fmt_latency(12.3e-6) == "12.3 µs"``; also ns, ms and s."""
    if _missing(seconds):
        return NA
    assert seconds is not None
    s = float(seconds)
    for scale, unit in ((1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms")):
        if abs(s) < scale * 1000:
            return f"{s / scale:.{digits}f} {unit}"
    return f"{s:.{digits}f} s"


def fmt_hours(hours: float | None) -> str:
    """Job lengths in hours, digits by size: ``'0.0024 h'``, ``'13.6 h'``, ``'2,207 h'``."""
    if _missing(hours):
        return NA
    assert hours is not None
    h = float(hours)
    if 0 < abs(h) < 1:
        return f"{h:.2g} h"
    digits = 2 if abs(h) < 10 else 1 if abs(h) < 100 else 0
    return fmt_num(h, "h", digits=digits)


_COUNT_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def fmt_count(value: float | None, *, digits: int = 4) -> str:
    """Large counts with a suffix that ``parse_count`` reads back: ``'100B'``, ``'25.6M'``, ``'2T'``."""
    if _missing(value):
        return NA
    assert value is not None
    v = float(value)
    for scale, suffix in _COUNT_SUFFIXES:
        if abs(v) >= scale:
            return f"{v / scale:.{digits}g}{suffix}"
    return f"{v:.{digits}g}"
