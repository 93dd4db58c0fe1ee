"""argparse ``type=`` helpers for every numeric flag and every output path of the CLI.

A value that is not a finite number, or is outside the range the flag can mean, is a usage
error before any work starts: one line, exit 2 (``argument --count: must be >= 1, got 0``).
``nan``, ``inf`` and ``1e999`` are refused everywhere, as are counts that would overflow a
plausible run (:data:`gpuprof.recommend.workload.LIMITS` holds the workload's own bounds).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from gpuprof.i18n import tr

__all__ = [
    "bounded",
    "finite_float",
    "int_range",
    "output_file",
    "positive_float",
    "positive_int",
    "process_id",
    "window_size",
]


def _fmt(value: float) -> str:
    return f"{value:g}"


def _check_range(
    value: float, text: str, lo: float | None, hi: float | None, lo_open: bool, unit: str
) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(tr("must be a finite number, got {t!r}", t=text))
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and value > hi
    if not (below or above):
        return
    if lo is not None and hi is not None:
        raise argparse.ArgumentTypeError(
            tr(
                "{t} is outside {lo}–{hi}{u}",
                t=text,
                lo=_fmt(lo) if not lo_open else f">{_fmt(lo)}",
                hi=_fmt(hi),
                u=unit,
            )
        )
    if lo is not None:
        op = ">" if lo_open else ">="
        raise argparse.ArgumentTypeError(
            tr("must be {op} {lo}{u}, got {t}", op=op, lo=_fmt(lo), u=unit, t=text)
        )
    assert hi is not None  # above, with no lower bound
    raise argparse.ArgumentTypeError(tr("must be <= {hi}{u}, got {t}", hi=_fmt(hi), u=unit, t=text))


def finite_float(
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    unit: str = "",
) -> Callable[[str], float]:
    """A float in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``); NaN and infinities are refused."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(tr("expected a number, got {t!r}", t=text)) from None
        _check_range(value, text, lo, hi, lo_open, unit)
        return value

    parse.__name__ = "number"  # argparse names the type in "invalid number value"
    return parse


def positive_float(hi: float | None = None, *, unit: str = "") -> Callable[[str], float]:
    """A finite float > 0 (and <= ``hi``)."""
    return finite_float(0.0, hi, lo_open=True, unit=unit)


def int_range(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """A whole number in ``[lo, hi]``; ``1e3`` is read as 1000, ``2.5`` is refused."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""))
        except ValueError:
            try:
                as_float = float(text)
            except ValueError:
                as_float = math.nan
            if not math.isfinite(as_float) or as_float != int(as_float):
                raise argparse.ArgumentTypeError(
                    tr("expected a whole number, got {t!r}", t=text)
                ) from None
            value = int(as_float)
        _check_range(value, text, lo, hi, False, "")
        return value

    parse.__name__ = "integer"
    return parse


def positive_int(hi: int | None = None) -> Callable[[str], int]:
    """A whole number >= 1 (and <= ``hi``)."""
    return int_range(1, hi)


def process_id(text: str) -> int:
    """A process id as ``ps`` prints it: ASCII digits only, above 0.

    Stricter than :func:`int_range`: ``int()`` also takes surrounding white space, a sign, ``_``
    and other scripts' digits, so ``' 12'`` would have named pid 12 (a kernel worker)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(
            tr("a process id is written in the digits 0-9 only, got {t!r}", t=text)
        )
    try:
        value = int(text)
    except ValueError:  # more digits than Python converts (4300): no pid is that long
        raise argparse.ArgumentTypeError(tr("no process id has {n} digits", n=len(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(tr("a process id is above 0, got {t!r}", t=text))
    return value


process_id.__name__ = "pid"


def bounded(
    parse: Callable[[str], float],
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    unit: str = "",
) -> Callable[[str], float]:
    """``parse`` (e.g. ``7B`` → 7e9) for argparse, with the result checked like
    :func:`finite_float`; a ``ValueError`` of ``parse`` becomes argparse's own error."""

    def wrapped(text: str) -> float:
        try:
            value = parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        _check_range(value, text, lo, hi, lo_open, unit)
        return value

    wrapped.__name__ = parse.__name__
    wrapped.__doc__ = parse.__doc__
    return wrapped


def output_file(*, stdout: bool = False) -> Callable[[str], str]:
    """A file to write: its folder must exist and the name must not be a folder, checked when
    the flag is read, before a benchmark or a recording starts. ``-`` is standard output when
    ``stdout``. The write itself still goes through :mod:`gpuprof.fileio` (atomic)."""

    def parse(text: str) -> str:
        if stdout and text == "-":
            return text
        if not text.strip():
            raise argparse.ArgumentTypeError(tr("expected a file name, got {t!r}", t=text))
        path = Path(text)
        if path.is_dir():
            raise argparse.ArgumentTypeError(tr("{p} is a folder; name a file", p=path))
        folder = path.parent
        if not folder.is_dir():
            if folder.exists():
                raise argparse.ArgumentTypeError(tr("{p} is not a folder", p=folder))
            raise argparse.ArgumentTypeError(tr("folder {p} does not exist", p=folder))
        return text

    parse.__name__ = "file"
    return parse


def window_size(text: str) -> tuple[int, int]:
    """A window's size in pixels, ``WIDTHxHEIGHT`` (``1600x1000``), each from 200 to 8000."""
    try:
        w, h = (int(p) for p in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("size must look like 1600x1000, got {t!r}", t=text)
        ) from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(tr("size {t} is out of range 200..8000", t=text))
    return w, h
