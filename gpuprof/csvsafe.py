"""CSV that a spreadsheet opens as data, never as formulas.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a
formula to Excel, LibreOffice and Google Sheets (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``);
catalog rows, GPU and process names come from outside, so every CSV writer of gpuprof goes
through :func:`writer`, which puts a ``'`` in front of such TEXT cells (OWASP's advice).
Numbers stay numbers: a float or int cell, or a text cell that is a plain number (``-12.5``),
is written as it is. Text cells also lose control and bidi-override characters (as U+FFFD, see
:func:`gpuprof.redact.clean_text`): a CSV printed to a terminal (``export --csv -``,
``monitor --csv``) cannot send escape sequences, and lone surrogates cannot break the write.
:func:`unguard` is the reader's inverse, for gpuprof's own CSV files.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO, Any

from gpuprof.redact import clean_text

__all__ = ["FORMULA_PREFIXES", "guard", "unguard", "writer"]

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)", re.I)


def guard(value: object) -> object:
    """``value`` as a safe cell: text is cleaned and, when it starts with a formula prefix,
    gets a leading ``'``; numbers (and text that is just a number) are returned unchanged."""
    if not isinstance(value, str):
        return value
    text = clean_text(value)
    if text.startswith(FORMULA_PREFIXES) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def unguard(text: str) -> str:
    """The inverse of :func:`guard` for a text cell read back."""
    if text.startswith("'") and text[1:].startswith(FORMULA_PREFIXES):
        return text[1:]
    return text


class _Writer:
    """``csv.writer`` whose rows are :func:`guard`-ed cell by cell."""

    def __init__(self, fh: IO[str], **kwargs: Any) -> None:
        self._w = csv.writer(fh, **kwargs)

    def writerow(self, row: Iterable[object]) -> Any:
        return self._w.writerow([guard(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(fh: IO[str], **kwargs: Any) -> _Writer:
    """A ``csv.writer(fh, **kwargs)`` that guards every text cell (see the module docstring)."""
    return _Writer(fh, **kwargs)
