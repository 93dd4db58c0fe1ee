"""The rows of a catalog CSV (ours or SkyPilot's), checked the same way for every reader.

What a spreadsheet or a hand edit does to a CSV, and what happens here:

* a cell over the ``csv`` module's field limit (131,072 characters) no longer fails the whole
  file: the limit is lifted while a file is read, and a cell over :data:`MAX_CELL_CHARS` is an
  error for its row only;
* a quote that is never closed makes the ``csv`` module read the following lines, up to the next
  quote or the end of the file, as one cell: those rows vanish without a word. A row with a
  multi-line cell that holds what look like rows (a line with the commas of a row) is
  reported, "row N has M fields, the header K; check quoting", its first line (the one with
  the stray quote) is skipped and the lines after it are read again as rows. A quoted cell
  over two lines of plain text is a cell, as before;
* a row on one line with fewer fields than the header is read with the missing cells blank
  (hand-written files leave trailing cells out); one with more (not just trailing empty
  cells) is an error;
* lines with no text are skipped; text that is not UTF-8 or holds a NUL is one
  :class:`~gpuprof.errors.InputError` naming the file and the line.

Cells that repeat (provider, region, GPU, source, notes) are shared within a file: 100,000 rows
of one provider hold one ``"AWS"``.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import operator
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

from gpuprof import csvsafe
from gpuprof.errors import InputError

__all__ = ["MAX_CELL_CHARS", "open_text", "paused_gc", "read_cells", "read_rows"]

#: The longest cell a catalog row may have (a note of a few pages); longer is a broken row.
MAX_CELL_CHARS = 65_536

# A cell csvsafe.guard wrote ('=..., '+..., ...): only such rows need unguarding.
_GUARDED = re.compile(r"'[=+\-@\t\r]")

# How many distinct cells are kept for sharing; the repeating ones come back at once.
_SHARED_MAX = 20_000

#: ``on_issue(line, reason, severity)``; severity is "error" (row skipped) or "warning".
OnIssue = Callable[[int, str, str], None]


class _Lines:
    """The file's lines for ``csv.reader``, counted, with the lines of the current row kept so
    that a row swallowed by a stray quote can be read again."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._it = iter(lines)
        self._again: deque[str] = deque()
        self.number = 0  # lines handed out so far
        self.taken: list[str] = []  # the lines of the row being read

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = self._again.popleft() if self._again else next(self._it)
        self.number += 1
        self.taken.append(line)
        return line

    def read_again(self, lines: list[str]) -> None:
        self._again.extendleft(reversed(lines))
        self.number -= len(lines)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (nesting allowed) while catalog rows are made.

    Rows make no reference cycles, yet each new one counts towards a collection, and every
    full collection walks all rows made so far: for 100,000 rows that was a tenth of the load."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def open_text(path: Path) -> TextIO:
    """``path`` opened for :func:`read_rows`: UTF-8 (a BOM dropped), line ends kept for the
    csv module, read as it is needed (a 100,000-row file is never held as one text)."""
    try:
        return path.open("r", encoding="utf-8-sig", newline="")
    except OSError as exc:  # missing, a folder, no permission
        raise InputError(f"cannot read catalog {path}: {exc.strerror or exc}") from None


def _holds_rows(cell: str, commas: int) -> bool:
    """True when a multi-line cell has a line with ``commas`` commas (a row's worth)."""
    return any(part.count(",") >= commas for part in cell.split("\n")[1:])


def read_rows(
    lines: Iterable[str],
    *,
    name: str,
    required: Sequence[str],
    on_issue: OnIssue,
    missing: str = "missing column(s): {cols}",
    unguard: bool = False,
) -> Iterator[tuple[int, dict[str, str]]]:
    """``(first line, {column: cell})`` for each row of a CSV whose first line is the header.

    See :func:`read_cells` for what is checked; this is the same reading, a dict per row."""
    header: list[str] = []
    for first_line, raw in _read(lines, name, required, on_issue, missing, unguard, header):
        yield first_line, dict(zip(header, raw, strict=False))


def read_cells(
    lines: Iterable[str],
    *,
    name: str,
    columns: Sequence[str],
    required: Sequence[str],
    on_issue: OnIssue,
    missing: str = "missing column(s): {cols}",
    unguard: bool = False,
) -> Iterator[tuple[int, tuple[str, ...]]]:
    """``(first line, cells)`` for each row, the cells of ``columns`` in that order ("" for a
    column the file lacks; the last one of a repeated header name), whatever the file's own
    column order. The fast form of :func:`read_rows`: no dict is made per row.

    ``lines`` are the file's lines with their line ends (a file opened with ``newline=""``, or
    ``io.StringIO(text)``). A header without the ``required`` columns is one error at line 1
    (``missing`` formats it) and no rows. ``unguard`` undoes :mod:`gpuprof.csvsafe`'s formula
    guard (gpuprof's own files). Raises InputError naming ``name`` and the line for text that is
    not UTF-8 or not CSV at all (a NUL byte). The garbage collector is paused until the rows
    are read (the caller's work on each row, done while this generator waits, included).
    """
    header: list[str] = []
    rows = _read(lines, name, required, on_issue, missing, unguard, header)
    getter: Callable[[list[str]], tuple[str, ...]] | None = None
    for first_line, raw in rows:
        if getter is None:
            at = {h: i for i, h in enumerate(header)}  # a repeated name: its last column
            picks = [at.get(c, len(header)) for c in columns]  # len(header): the "" appended
            getter = _picker(picks)
        raw.append("")
        yield first_line, getter(raw)


def _picker(picks: Sequence[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """The cells at ``picks``, always as a tuple (``itemgetter`` of one index is not)."""
    if len(picks) == 1:
        only = picks[0]
        return lambda row: (row[only],)
    return operator.itemgetter(*picks)


def _read(
    lines: Iterable[str],
    name: str,
    required: Sequence[str],
    on_issue: OnIssue,
    missing: str,
    unguard: bool,
    header_out: list[str],
) -> Iterator[tuple[int, list[str]]]:
    """The rows' cells, ``header_out`` filled with the header before the first row."""
    src = _Lines(lines)
    reader = csv.reader(src)
    old_limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # the file's own size bounds a cell; MAX_CELL_CHARS below
    try:
        with paused_gc():
            try:
                first = next(reader, None)
            except UnicodeDecodeError as exc:
                raise InputError(f"{name}: not UTF-8 text ({exc.reason})") from None
            except csv.Error as exc:
                where = f"{name}:{src.number or 1}"
                raise InputError(f"{where}: not a readable CSV ({exc})") from None
            except OSError as exc:  # an I/O error part way
                raise InputError(f"cannot read catalog {name}: {exc.strerror or exc}") from None
            header = [h.strip() for h in first or []]
            header_out[:] = header
            absent = [c for c in required if c not in header]
            if absent:
                on_issue(1, missing.format(cols=", ".join(absent)), "error")
                return
            # A line of a multi-line cell with as many commas as a row needs to reach its last
            # required column is a row swallowed by a stray quote, not text.
            commas = max([3, *(header.index(c) for c in required)])
            yield from _rows(
                src, reader, header, commas=commas, name=name, on_issue=on_issue, unguard=unguard
            )
    finally:
        csv.field_size_limit(old_limit)


def _rows(
    src: _Lines,
    reader: Iterator[list[str]],
    header: list[str],
    *,
    commas: int,
    name: str,
    on_issue: OnIssue,
    unguard: bool,
) -> Iterator[tuple[int, list[str]]]:
    width = len(header)
    shared: dict[str, str] = {}
    setdefault = shared.setdefault
    strip = str.strip
    while True:
        src.taken = []
        first_line = src.number + 1
        if len(shared) > _SHARED_MAX:  # unique cells (instance names, prices) need no sharing
            shared.clear()
        try:
            raw = next(reader, None)
        except UnicodeDecodeError as exc:  # decoded in blocks: the line is not known exactly
            raise InputError(
                f"{name}: not UTF-8 text after line {src.number} ({exc.reason})"
            ) from None
        except csv.Error as exc:
            raise InputError(f"{name}:{src.number}: not a readable CSV ({exc})") from None
        except OSError as exc:
            raise InputError(f"cannot read catalog {name}: {exc.strerror or exc}") from None
        if raw is None:
            return
        last_line = src.number
        count = len(raw)
        if count == width and last_line == first_line and "\n" not in raw[-1]:
            # The common row, checked on its one line with as little Python as possible.
            line = src.taken[0]
            if not any(map(strip, raw)):
                continue
            if len(line) <= MAX_CELL_CHARS:
                if unguard and _GUARDED.search(line):
                    raw = [csvsafe.unguard(c) for c in raw]
                yield first_line, list(map(setdefault, raw, raw))
                continue
        if last_line == first_line and raw and "\n" in raw[-1]:
            # On one line, a cell with a line end is a quote left open at the end of the file.
            on_issue(
                first_line,
                f"row {first_line} has {count} fields, the header {width}; check quoting: "
                f"a quote on line {first_line} is not closed (row skipped)",
                "error",
            )
            continue
        if last_line > first_line and any("\n" in c and _holds_rows(c, commas) for c in raw):
            what = (
                f"row {first_line} has {count} fields, the header {width}"
                if count != width
                else f"row {first_line} has a cell holding what look like rows"
            )
            on_issue(
                first_line,
                f"{what}; check quoting: a quote on line {first_line} is not closed, so lines "
                f"{first_line}–{last_line} were read as one row (line {first_line} skipped, "
                "the lines after it read again)",
                "error",
            )
            src.read_again(src.taken[1:])
            continue
        if not any(map(strip, raw)):
            continue
        if count > width:
            if any(c.strip() for c in raw[width:]):
                on_issue(
                    first_line,
                    f"row {first_line} has {count} fields, the header {width}; check quoting",
                    "error",
                )
                continue
            raw = raw[:width]  # trailing empty cells, as spreadsheets write them
        elif count < width:  # trailing cells left out, as hand-written files do: blank
            raw = raw + [""] * (width - count)
        longest = max(map(len, raw))
        if longest > MAX_CELL_CHARS:
            on_issue(
                first_line,
                f"a cell of {longest:,} characters (at most {MAX_CELL_CHARS:,}): row skipped",
                "error",
            )
            continue
        if unguard:
            raw = [csvsafe.unguard(c) for c in raw]
        yield first_line, list(map(setdefault, raw, raw))
