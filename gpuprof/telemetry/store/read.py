"""Reading a session file defensively: what a recording may hold is checked before it is used.

:class:`~gpuprof.telemetry.store.SessionStore` reads every file through these, so each reader
(``replay``, ``export``, ``report --session``, the app's ``--replay``, ``recover``) inherits the
same limits and the same one-line messages:

- the path must be a regular file: opening a FIFO for reading waits for a writer for ever, and
  ``/dev/zero`` never ends (:func:`read_header` never blocks: ``O_NONBLOCK``, then ``fstat``);
- a snapshot record inflates to at most :data:`MAX_SNAPSHOT_BYTES` (a 400 KiB compression bomb
  inflates to 400 MiB), is JSON nested no deeper than Python parses, and has the model's types
  (the codec checks them); a record that is not is skipped and counted (:class:`RecordError`);
- a time outside :data:`MIN_TIME_S` .. :data:`MAX_TIME_S` (NaN, infinities, 1e300, before 1970)
  is no time a recording can hold: such records are left out of every query, with one warning;
- metadata of the wrong type or size is ignored with a warning (:func:`parse_meta`): the
  samples still play;
- SQLite's reports of many lines (``PRAGMA quick_check``) become one (:func:`one_line`).
"""

from __future__ import annotations

import json
import logging
import math
import os
import stat
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.telemetry.codec import from_jsonable
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SourceKind, SystemInfo, Topology

__all__ = [
    "MAX_META_BYTES",
    "MAX_SNAPSHOT_BYTES",
    "MAX_TIME_S",
    "MIN_TIME_S",
    "MetaFields",
    "RecordError",
    "byte_groups",
    "clip",
    "decode_snapshot",
    "one_line",
    "parse_meta",
    "read_header",
    "size_problem",
    "warn_once",
]

log = logging.getLogger("gpuprof.telemetry.store")

#: The most one snapshot record may inflate to. An 8×H100 snapshot is ~15 kB of JSON and a
#: thousand processes add ~300 kB: this leaves room twenty times over, and bounds what one
#: record can cost in memory (JSON parsed into Python objects takes several times its size).
MAX_SNAPSHOT_BYTES = 8 * 2**20
#: The most one metadata value (static facts, label, free-form dict) may be, as stored JSON text.
MAX_META_BYTES = 4 * 2**20
#: The longest label kept (the window title and report heading show it).
MAX_LABEL_CHARS = 200
#: Times a recording can hold (Unix s): 1970-01-01 .. 2100-01-01. Anything else (NaN, infinite,
#: 1e300, negative) is a damaged record: it would overflow dates and make replay endless.
MIN_TIME_S = 0.0
MAX_TIME_S = 4_102_444_800.0

_FILE_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class RecordError(ValueError):
    """One snapshot record cannot be read; the message says why (the caller adds file and row)."""


def clip(text: object, limit: int = 160) -> str:
    """``text`` on one line and at most ``limit`` characters: error text quotes what it read."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


_warned: set[str] = set()


def warn_once(line: str) -> None:
    """Log ``line`` once per process: a command that opens a file twice (a check, then the
    work) tells its warnings once."""
    if line not in _warned:
        _warned.add(line)
        log.warning("%s", line)


def byte_groups(rows: Sequence[Any], limit: int) -> Iterator[list[Any]]:
    """``rows`` (``(id, time, size)``) in consecutive groups of at most ``limit`` bytes of
    ``size`` together (a group of one may be larger)."""
    group: list[Any] = []
    size = 0
    for row in rows:
        n = row[2] or 0
        if group and size + n > limit:
            yield group
            group, size = [], 0
        group.append(row)
        size += n
    if group:
        yield group


def one_line(lines: Iterable[object]) -> str:
    """SQLite's report of many rows or lines (``PRAGMA quick_check``) as one line: the first
    problem and how many more (the ``*** in database main ***`` headings dropped)."""
    problems = [
        part.strip()
        for text in lines
        for part in str(text).splitlines()
        if part.strip() and not part.strip().startswith("*** in database")
    ]
    if not problems:
        return "unknown problem"
    first = clip(problems[0], 200)
    return first if len(problems) == 1 else f"{first}; {len(problems) - 1} more"


#: What :func:`read_header` reads: SQLite's 100-byte database header and the 8-byte b-tree
#: page header of page 1 after it (https://www.sqlite.org/fileformat.html).
HEADER_BYTES = 108
#: A header claiming more is not one of a recording: at ~7 kB a sample (8 GPUs and their
#: processes), 4 TiB is 20 years of samples at one a second. A file cut short claims what it
#: was; 58 TB is what junk read as a page count claims.
MAX_CLAIMED_BYTES = 4 * 2**40
#: Page 1's b-tree page kinds (interior and leaf table pages).
_TABLE_PAGES = (0x05, 0x0D)


def read_header(p: Path) -> bytes:
    """The first :data:`HEADER_BYTES` bytes of ``p``, refusing anything but a regular file.

    ``O_NONBLOCK`` makes opening a FIFO return at once instead of waiting for a writer; the
    kind is then read from the open file itself, so nothing can swap it in between.
    """
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(tr("{p}: no such file", p=p)) from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(tr("{p}: is a directory, not a session file", p=p))
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a file")
            raise InputError(f"{p}: not a regular file ({kind}), not a gpuprof session")
        return os.read(fd, HEADER_BYTES)
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)


def _header_fault(head: bytes) -> str | None:
    """What makes SQLite's header ``head`` invalid (the rules SQLite itself applies), or None."""
    page_size = int.from_bytes(head[16:18], "big")
    if page_size != 1 and not (512 <= page_size <= 32768 and page_size & (page_size - 1) == 0):
        return f"page size {page_size}"
    if head[18] not in (1, 2) or head[19] not in (1, 2):
        return f"file format version {head[18]}/{head[19]}"
    if head[21:24] != b"\x40\x20\x20":  # the payload fractions, fixed at 64, 32 and 32
        return "payload fractions"
    return None


def size_problem(p: Path, head: bytes, size: int) -> str | None:
    """Why the SQLite file ``p`` (``size`` bytes, first bytes ``head`` from
    :func:`read_header`) cannot hold a whole database: it is truncated, or its header is not
    one (junk after SQLite's magic); None when it may (SQLite decides the rest).

    The header's page count is only believed as SQLite believes it: non-zero, with the change
    counter (offset 24) equal to the version-valid-for number (offset 92). A header that claims
    more than :data:`MAX_CLAIMED_BYTES`, or a page 1 that is not a table b-tree page, is
    corrupt however short the file: a truncated recording keeps its valid first page."""
    if len(head) < 100:
        return f"{p}: truncated session file"
    fault = _header_fault(head)
    if fault is not None:
        return f"{p}: corrupt session file (not a valid SQLite header: {fault})"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(head[28:32], "big")
    if not page_count or head[24:28] != head[92:96]:
        return None  # SQLite takes the size from the file itself
    claimed = page_size * page_count
    if claimed > MAX_CLAIMED_BYTES:
        return f"{p}: corrupt session file (its header claims {claimed} bytes, the file has {size})"
    if len(head) > 100 and head[100] not in _TABLE_PAGES:
        return f"{p}: corrupt session file (its first page is not a database page)"
    if size < claimed:
        return f"{p}: truncated session file ({size} of {claimed} bytes)"
    return None


def inflate(blob: object) -> bytes:
    """A record's zlib data inflated, refusing more than :data:`MAX_SNAPSHOT_BYTES`."""
    if not isinstance(blob, bytes):
        raise RecordError(f"not compressed data (a {type(blob).__name__} value)")
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(blob, MAX_SNAPSHOT_BYTES + 1)
    except zlib.error as e:
        raise RecordError(f"not zlib data ({e})") from None
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise RecordError(
            f"inflates to more than {MAX_SNAPSHOT_BYTES >> 20} MiB from "
            f"{len(blob)} bytes (a compression bomb?)"
        )
    if not inflater.eof:
        raise RecordError("truncated compressed data")
    return raw


def decode_snapshot(blob: object) -> Snapshot:
    """One snapshot record (zlib-compressed JSON) as a :class:`Snapshot`, or :class:`RecordError`."""
    raw = inflate(blob)
    try:
        data = json.loads(raw)
    except RecursionError:
        raise RecordError("JSON nested too deeply") from None
    except ValueError as e:  # UnicodeDecodeError included
        raise RecordError(f"not JSON ({clip(e)})") from None
    try:
        snap = from_jsonable(Snapshot, data)
    except RecursionError:
        raise RecordError("nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise RecordError(f"not a snapshot ({clip(e)})") from None
    return snap


def valid_time(value: object) -> float | None:
    """``value`` as a time a recording can hold (Unix s), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    t = float(value)
    return t if math.isfinite(t) and MIN_TIME_S <= t <= MAX_TIME_S else None


@dataclass
class MetaFields:
    """The metadata of a session file, each value checked; :attr:`warnings` says what was not
    usable (and was replaced by its default)."""

    source_kind: SourceKind = SourceKind.NONE
    label: str = ""
    created_s: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    system_info: SystemInfo = field(default_factory=SystemInfo)
    devices: tuple[DeviceInfo, ...] = ()
    topology: Topology = field(default_factory=Topology)
    #: ``"recording"`` from the first commit until a clean close, then ``"closed"``; None in
    #: files older than the marker.
    state: str | None = None
    warnings: list[str] = field(default_factory=list)


def parse_meta(values: dict[str, Any], where: object) -> MetaFields:
    """Check the ``meta`` table's decoded values (``{key: value}``; a value too large to read
    is given as :class:`TooLarge`). ``where`` names the file in the warnings."""
    out = MetaFields()

    def bad(key: str, why: str) -> None:
        out.warnings.append(f"{where}: metadata {key!r} {why}; ignored")

    def get(key: str) -> Any:
        value = values.get(key)
        if isinstance(value, TooLarge):
            bad(key, f"is {value.size} bytes, more than {MAX_META_BYTES >> 20} MiB")
            return None
        if isinstance(value, Unreadable):
            bad(key, "is not JSON")
            return None
        return value

    kind = get("source_kind")
    if kind is None and "source_kind" not in values:
        out.source_kind = SourceKind.NVML  # files of the first gpuprof had no such key
    elif isinstance(kind, str) and kind in {k.value for k in SourceKind}:
        out.source_kind = SourceKind(kind)
    elif kind is not None:
        bad("source_kind", f"is not a source gpuprof knows ({clip(kind, 40)})")
    label = get("label")
    if isinstance(label, str):
        out.label = label if len(label) <= MAX_LABEL_CHARS else clip(label, MAX_LABEL_CHARS)
        if len(label) > MAX_LABEL_CHARS:
            out.warnings.append(f"{where}: label of {len(label)} characters shortened")
    elif label is not None:
        bad("label", f"is not text (a {type(label).__name__})")
    created = get("created_s")
    if created is not None:
        out.created_s = valid_time(created)
        if out.created_s is None:
            bad("created_s", f"is not a time ({clip(created, 40)})")
    free = get("meta")
    if isinstance(free, dict):
        out.meta = free
    elif free is not None:
        bad("meta", f"is not an object (a {type(free).__name__})")
    state = get("state")
    if state in ("recording", "closed"):
        out.state = state
    for key, cls, default in (
        ("system_info", SystemInfo, SystemInfo()),
        ("devices", tuple[DeviceInfo, ...], ()),
        ("topology", Topology, Topology()),
    ):
        value = get(key)
        if value is None:
            continue
        try:
            setattr(out, key, from_jsonable(cls, value))
        except RecursionError:
            bad(key, "is nested too deeply")
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            bad(key, f"is malformed ({clip(e, 80)})")
            setattr(out, key, default)
    return out


@dataclass(frozen=True)
class TooLarge:
    """A metadata value left unread: ``size`` bytes of JSON text."""

    size: int


@dataclass(frozen=True)
class Unreadable:
    """A metadata value that is not JSON."""


def load_meta_value(value: object, size: int) -> Any:
    """One ``meta`` row's value decoded (JSON text), :class:`TooLarge` or :class:`Unreadable`."""
    if size > MAX_META_BYTES:
        return TooLarge(size)
    if not isinstance(value, (str, bytes)):
        return Unreadable()
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return Unreadable()
