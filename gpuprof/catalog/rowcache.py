"""A parsed copy of a big overlay catalog, so that the next load need not parse it again.

Reading a 100,000-row overlay (a whole SkyPilot catalog, a company's price list) costs well
over a second of CSV parsing and checking on every ``catalog list`` and ``recommend``. The rows
it gave are kept in ``data_dir()/cache/catalog/`` and used while nothing they depend on has
changed; then reading the file costs a hash of its bytes and unpacking.

A cached copy is used only when all of these match what it was made from:

* the file's bytes (BLAKE2b of the whole file, read in blocks; its size and modification time
  before and after parsing, so that a file being rewritten is never cached);
* the code and data that turn a row into an instance (the catalog modules' sources, the GPU
  spec table, gpuprof's version: a new GPU name rule re-reads every file);
* today's date (a row dated tomorrow is refused today and accepted tomorrow).

A file is kept from its second read on (the first leaves a note of its hash): a file read once
never pays for the copy. Only regular files of at least :data:`MIN_BYTES` are cached (small
ones parse in milliseconds; a FIFO or a device is never read twice). The cache is only ever a copy: a cached
file that is truncated, corrupt, foreign, of another format or unreadable is ignored (and
rewritten), and a cache that cannot be written (read-only, full disk) changes nothing but the
speed. Each entry carries a BLAKE2b digest of its payload, checked before it is unpacked.
One entry per catalog file (named after a hash of its path), so the cache never grows beyond
the overlays the user has.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import hashlib
import logging
import marshal
import os
import stat
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TypeVar

__all__ = ["MIN_BYTES", "cache_dir", "cached"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Files smaller than this are parsed every time (about 10,000 rows).
MIN_BYTES = 1 << 20
#: The entry format: a new one makes every older entry a miss.
FORMAT = 1
_MAGIC = b"gpuprof catalog cache\n"
_DIGEST = 32
#: No entry is larger than this (a 100,000-row overlay packs into about 15 MB).
MAX_ENTRY_BYTES = 1 << 30
_BLOCK = 1 << 20
#: What the first read of a file leaves: packing and writing its rows (a third of a parse) is
#: only worth it for a file that is read again.
_SEEN = "read once"


def cache_dir() -> Path:
    """Where entries live (not created until one is written)."""
    from gpuprof.paths import data_dir

    return data_dir() / "cache" / "catalog"


#: The modules that turn rows into instances: a change to any of them makes old entries stale.
_SOURCES = (
    "asof.py",
    "csvrows.py",
    "instances.py",
    "row.py",
    "names.py",
    "specs.py",
    "rowcache.py",
)


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """What turns rows into instances: these modules' sources, the spec table, the version."""
    from gpuprof.version import __version__

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    here = Path(__file__).resolve().parent
    for name in _SOURCES:
        try:
            digest.update((here / name).read_bytes())
        except OSError:  # a frozen executable has no sources: its version says it all
            digest.update(name.encode())
    digest.update(resources.files("gpuprof.resources").joinpath("gpu_specs.csv").read_bytes())
    return digest.hexdigest()


def _today() -> str:
    return datetime.date.today().isoformat()


def _entry_path(path: Path) -> Path:
    key = hashlib.blake2b(str(path.resolve()).encode("utf-8", "surrogatepass"), digest_size=16)
    return cache_dir() / f"{key.hexdigest()}.bin"


def _file_digest(path: Path) -> tuple[str, tuple[int, int, int]] | None:
    """(hash of the bytes, (size, mtime_ns, inode)) of a regular file big enough to cache."""
    try:
        first = path.stat()  # before opening: a FIFO is read once, by the parser
        if not stat.S_ISREG(first.st_mode) or first.st_size < MIN_BYTES:
            return None
        with path.open("rb") as fh:
            before = os.fstat(fh.fileno())
            if not stat.S_ISREG(before.st_mode) or before.st_size < MIN_BYTES:
                return None
            digest = hashlib.blake2b(digest_size=32)
            while block := fh.read(_BLOCK):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest(), (before.st_size, before.st_mtime_ns, before.st_ino)


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        now = path.stat()
    except OSError:
        return None
    return (now.st_size, now.st_mtime_ns, now.st_ino)


def cached(
    path: Path,
    build: Callable[[], T],
    pack: Callable[[T], object],
    unpack: Callable[[object], T | None],
) -> T:
    """``build()``'s result for the catalog file ``path``, from the cache when it is current.

    ``pack`` turns a result into values :mod:`marshal` can write (tuples, lists, str, float,
    int, None); ``unpack`` turns them back, or returns None when they are not of the expected
    shape (then ``build()`` runs). ``build`` reads the file; its errors pass through unchanged
    and nothing is cached for them."""
    found = _file_digest(path)
    if found is None:
        return build()
    content, before = found
    key = (FORMAT, content, _code_fingerprint(), _today())
    entry = _entry_path(path)
    hit = _read_entry(entry, key)
    if hit is not None and hit != _SEEN:
        result = unpack(hit)
        if result is not None:
            return result
        log.debug("catalog cache %s: unexpected contents, rebuilt", entry)
    result = build()
    if _signature(path) == before:  # not rewritten while it was parsed
        # The first read leaves a note; a second one of the same bytes keeps the rows.
        _write_entry(entry, key, pack(result) if hit == _SEEN else _SEEN)
    return result


def _read_entry(entry: Path, key: tuple[object, ...]) -> object | None:
    """The payload stored for ``key``; None when absent, stale, damaged or foreign."""
    try:
        with entry.open("rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                return None
            data = fh.read()
    except OSError:
        return None
    head = len(_MAGIC)
    if not data.startswith(_MAGIC) or len(data) < head + _DIGEST:
        return None
    digest, payload = data[head : head + _DIGEST], data[head + _DIGEST :]
    if hashlib.blake2b(payload, digest_size=_DIGEST).digest() != digest:
        return None
    try:
        stored: object = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key):
        return None
    value: object = stored[1]
    return value


def _write_entry(entry: Path, key: tuple[object, ...], value: object) -> None:
    """Store ``value`` for ``key``, atomically; a cache that cannot be written is no error."""
    try:
        payload = marshal.dumps((key, value))  # type: ignore[arg-type]  # checked by marshal
    except ValueError:  # a value marshal cannot write: not cached
        log.debug("catalog cache %s: not cacheable", entry)
        return
    if len(payload) > MAX_ENTRY_BYTES:
        return
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{entry.name}.", suffix=".tmp", dir=entry.parent)
    except OSError as exc:
        log.debug("catalog cache %s not written: %s", entry, exc)
        return
    # Not fsynced (a copy: a crash leaves a stale or torn entry, which its digest refuses),
    # but complete before it replaces the old one: readers see one entry or the other.
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC)
            fh.write(hashlib.blake2b(payload, digest_size=_DIGEST).digest())
            fh.write(payload)
        os.replace(tmp, entry)
    except OSError as exc:
        log.debug("catalog cache %s not written: %s", entry, exc)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
