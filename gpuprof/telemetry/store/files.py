"""The files of a session on disk: the recorder's lock, and how a reader connects.

A recording is written in WAL mode: while it runs, what is committed sits in ``FILE-wal`` and is
copied into ``FILE`` itself every :data:`~gpuprof.telemetry.store.CHECKPOINT_INTERVAL_S`; a clean
close folds the rest in and leaves one self-contained file. After ``kill -9`` the file is left in
WAL mode beside its ``-wal`` and ``-shm``, and it may travel without them (copied alone, or to a
read-only folder). :func:`connect_readonly` reads each of these as it is, never writing beside
the file it reads:

- a WAL file with no ``-wal`` (or an empty one) and no live recorder: ``immutable=1``, which
  needs no ``-shm`` and creates none;
- a live recording (its recorder holds the lock) or a rollback-journal file: ``mode=ro``;
- a ``-wal`` that ``mode=ro`` cannot use (a read-only folder without ``-shm``): the file and its
  ``-wal`` are copied to a private temporary folder, read there into a private database, and
  the copy is removed; ``immutable=1`` would silently miss what the ``-wal`` holds.
"""

from __future__ import annotations

try:  # POSIX: recorders lock their file; elsewhere a second writer is not detected
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from gpuprof.errors import InputError
from gpuprof.telemetry.store.read import clip

__all__ = [
    "connect_readonly",
    "hold_writer_lock",
    "is_wal_mode",
    "live_writer",
    "not_ours_message",
    "refuse_if_recording",
    "wal_path",
]


def wal_path(p: Path) -> Path:
    return Path(str(p) + "-wal")


def is_wal_mode(header: bytes) -> bool:
    """Bytes 18 and 19 of the SQLite header are 2 in a WAL-mode database."""
    return len(header) >= 20 and header[18] == 2 and header[19] == 2


def hold_writer_lock(p: Path) -> int | None:
    """An exclusive flock on the file for as long as this process writes it (SQLite's own
    locks are fcntl locks, which flock does not touch). ``None`` where flock does not exist."""
    if fcntl is None:
        return None
    fd = os.open(p, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def live_writer(p: Path) -> bool:
    """Whether a recorder holds ``p`` now (the kernel drops the lock of a killed one)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # also releases our probe lock
    return False


def _writer_pid(p: Path) -> str:
    pid = "?"
    with contextlib.suppress(Exception):
        conn = sqlite3.connect(p.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='writer_pid'").fetchone()
            pid = str(json.loads(row[0])) if row else "?"
        finally:
            conn.close()
    return pid


def refuse_if_recording(p: Path) -> None:
    """:class:`InputError` when another recorder holds ``p``: overwriting it would destroy a
    recording in progress (``record --force`` twice onto one file)."""
    if live_writer(p):
        raise InputError(
            f"{p}: in use: another gpuprof is recording to it (pid {_writer_pid(p)}); "
            "stop that recording or choose another file"
        )


def connect_readonly(p: Path, header: bytes) -> sqlite3.Connection:
    """A read-only connection to the session file ``p`` whose first bytes are ``header``."""
    uri = p.resolve().as_uri()
    wal = wal_path(p)
    try:
        has_wal = wal.is_file() and wal.stat().st_size > 0
    except OSError:
        has_wal = False
    try:
        if is_wal_mode(header) and not has_wal and not live_writer(p):
            return sqlite3.connect(uri + "?immutable=1", uri=True, check_same_thread=False)
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, check_same_thread=False)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
            return conn
        except sqlite3.OperationalError:
            # No -shm and no right to make one (read-only folder or media).
            conn.close()
        if has_wal:
            return _private_copy(p, wal)
        return sqlite3.connect(uri + "?immutable=1", uri=True, check_same_thread=False)
    except sqlite3.Error as e:
        raise InputError(f"{p}: cannot open session file ({clip(e)})") from e


def _private_copy(p: Path, wal: Path) -> sqlite3.Connection:
    """``p`` with its ``-wal`` applied, read through a temporary copy into a private database
    (SQLite's ``""``: in memory, spilling to a temporary file deleted on close)."""
    with tempfile.TemporaryDirectory(prefix="gpuprof-read-") as tmp:
        copy = Path(tmp) / "session.gpuprof"
        try:
            shutil.copyfile(p, copy)
            shutil.copyfile(wal, wal_path(copy))
        except OSError as e:
            raise InputError(f"{p}: cannot read ({e.strerror})") from None
        src = sqlite3.connect(str(copy), check_same_thread=False)
        out = sqlite3.connect("", check_same_thread=False, isolation_level=None)
        try:
            src.backup(out)
        except BaseException:
            out.close()
            raise
        finally:
            src.close()
    return out


def not_ours_message(p: Path, conn: sqlite3.Connection, header: bytes) -> str:
    """Why an SQLite file without gpuprof's mark is refused. A recording killed before its
    first checkpoint and copied without its ``-wal`` is such a file: say so."""
    try:
        empty = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    except sqlite3.Error:
        empty = False
    if empty and is_wal_mode(header):
        return (
            f"{p}: a recording that was not closed, without its {wal_path(p).name} file: "
            f"nothing was saved in the file itself yet (keep {wal_path(p).name} beside it)"
        )
    return f"{p}: not a gpuprof session (an SQLite database of another program)"
