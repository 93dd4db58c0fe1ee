"""The one reader of JSON files from outside: result files, reference and thresholds files,
benchmark runs, JSON reports.

- **A regular file only.** Opening a FIFO for reading waits for a writer for ever and
  ``/dev/zero`` never ends, so the file is opened with ``O_NONBLOCK`` and its kind read from the
  open file itself (``fstat``): nothing can swap it in between.
- **At most** ``max_bytes``, read with that bound even if the file grows meanwhile.
- **UTF-8, with or without a byte-order mark**: Notepad and PowerShell's ``Out-File`` write one,
  and ``json.loads`` calls the result "not JSON".
- **Strict JSON** (:func:`loads_strict`): ``NaN`` and ``Infinity`` are errors, and so is a
  number no 64-bit float holds (a 4,000-digit integer, ``1e999``): :class:`BadNumber` names
  where it is (``items[3].measured``) instead of a later ``OverflowError`` or, past Python's
  4,300-digit limit, a "not JSON" that hides what is wrong.

Each error is an :class:`~gpuprof.errors.InputError` of one line that names the file.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = [
    "BadNumber",
    "checked_version",
    "loads_strict",
    "read_json",
    "read_regular",
    "utf8_text",
]


def checked_version(version: object, newest: int, newer: str) -> int:
    """A document's ``schema_version`` as this gpuprof reads it: ``InputError`` when it is not
    a whole number, or ``newer`` (an ``N_`` text with ``{v}`` and ``{m}``) when it is above
    ``newest``."""
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError(tr("schema_version is not a whole number"))
    if version > newest:
        raise InputError(tr(newer, v=version, m=newest))
    return version


#: The largest integer a float holds (1.8e308, 309 digits): past it, float() overflows.
_FLOAT_MAX_INT = int(1.7976931348623157e308)
_MAX_INT_DIGITS = len(str(_FLOAT_MAX_INT))


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    if stat.S_ISFIFO(mode):
        return tr("a FIFO")
    if stat.S_ISCHR(mode):
        return tr("a character device")
    if stat.S_ISBLK(mode):
        return tr("a block device")
    if stat.S_ISSOCK(mode):
        return tr("a socket")
    return tr("not a file")


class BadNumber(ValueError):
    """A JSON number that no finite float holds; :attr:`where` is its path in the document."""

    def __init__(self, where: str, text: str) -> None:
        where = where or tr("the top level")
        if len(text) <= 24:
            message = tr("bad value at {w}: {t} is too large for any measurement", w=where, t=text)
        else:
            message = tr(
                "bad value at {w}: a number of {n} digits is too large for any measurement",
                w=where,
                n=sum(c.isdigit() for c in text),
            )
        super().__init__(message)
        self.where = where


class _Absurd:
    """Stands in the parsed document for a number :class:`BadNumber` will name."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _refuse(name: str) -> Any:
    raise ValueError(tr("{n} is not JSON", n=name))


def _path_to(doc: Any, target: _Absurd) -> str:
    """``items[3].measured``: where ``target`` sits in ``doc`` (only on the error path)."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        node, where = stack.pop()
        if node is target:
            return where
        if isinstance(node, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(node))
    return ""


def loads_strict(text: str | bytes) -> Any:
    """Parse JSON as strict readers do: a leading byte-order mark is skipped; ``NaN``,
    ``Infinity`` and a number beyond any float (:class:`BadNumber`) are errors (ValueError)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig")
    elif text.startswith("\ufeff"):
        text = text[1:]
    absurd: list[_Absurd] = []

    def parse_int(digits: str) -> int | _Absurd:
        # Python refuses to convert more than 4,300 digits (ValueError: "not JSON"), and an
        # integer past 1.8e308 makes float() raise OverflowError later: both are named here.
        if len(digits) < _MAX_INT_DIGITS:
            return int(digits)
        if len(digits) <= _MAX_INT_DIGITS + 1 and abs(value := int(digits)) <= _FLOAT_MAX_INT:
            return value
        absurd.append(_Absurd(digits))
        return absurd[-1]

    def parse_float(digits: str) -> float | _Absurd:
        value = float(digits)
        if math.isinf(value):  # JSON has no infinity: only an overflow gives one
            absurd.append(_Absurd(digits))
            return absurd[-1]
        return value

    doc = json.loads(text, parse_constant=_refuse, parse_int=parse_int, parse_float=parse_float)
    if absurd:
        raise BadNumber(_path_to(doc, absurd[0]), absurd[0].text)
    return doc


def read_regular(path: str | os.PathLike[str], max_bytes: int, *, what: str) -> bytes:
    """The bytes of ``path``, refusing anything but a regular file of at most ``max_bytes``.

    ``what`` names the kind of file in the messages ("result file")."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=p, e=exc.strerror or exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(tr("{p}: is a folder, not a {w}", p=p, w=what))
        if not stat.S_ISREG(mode):
            raise InputError(
                tr("{p}: not a regular file ({k}), not a {w}", p=p, k=_kind(mode), w=what)
            )
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes and (chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(tr("{p}: cannot read: {e}", p=p, e=exc.strerror or exc)) from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise InputError(tr("{p}: larger than {n}, not a {w}", p=p, n=_size(max_bytes), w=what))
    return b"".join(chunks)


def utf8_text(data: bytes, where: object) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped); an :class:`InputError` naming
    ``where`` (a file, a URL) and the first byte that is not UTF-8 otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(tr("{p}: not UTF-8 text (byte {n})", p=where, n=exc.start)) from None


def _size(n: int) -> str:
    """``16 MiB``, ``64 KiB``: a cap as a person would write it."""
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB"


def read_json(path: str | os.PathLike[str], max_bytes: int, *, what: str) -> Any:
    """The JSON document in ``path`` (:func:`read_regular`, then :func:`loads_strict`)."""
    p = Path(path)
    raw = read_regular(p, max_bytes, what=what)
    try:
        return loads_strict(raw)
    except BadNumber as exc:
        raise InputError(tr("{p}: {e}", p=p, e=exc)) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            tr("{p}: not UTF-8 text (byte {b}), not a {w}", p=p, b=exc.start, w=what)
        ) from None
    except (ValueError, RecursionError):
        raise InputError(tr("{p}: not JSON, not a {w}", p=p, w=what)) from None
