"""SQLite session store: a recording of snapshots plus the static facts of the machine.

One file per session (suffix ``.gpuprof`` by convention). WAL journal with ``synchronous=NORMAL``:
a committed transaction survives the process being killed (``kill -9``), and :meth:`append`
commits at least every :data:`COMMIT_INTERVAL_S`, so a killed recording loses at most that much.

Schema (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`, ``PRAGMA application_id`` =
:data:`APPLICATION_ID`):

- ``meta(key TEXT PRIMARY KEY, value TEXT)``: JSON values — ``source_kind``, ``label``,
  ``created_s``, ``system_info``, ``devices``, ``topology``, ``meta`` (free-form dict).
- ``snapshots(id INTEGER PRIMARY KEY, time_s REAL, data BLOB)``, indexed by ``time_s``; ``data`` is
  zlib-compressed compact JSON of the :class:`Snapshot` (see :mod:`gpuprof.telemetry.codec`).
  A 8×H100 snapshot is ~15 kB as JSON (18 NVLinks per GPU) and ~2 kB compressed.

Files migrate forward. A file of an older schema version opens through the migration steps in
:data:`_MIGRATIONS`, applied to a private temporary copy: opening (replay, report, export) never
writes to the recording, so a read-only or shared file of an older gpuprof still replays. A file of
a newer version than :data:`SCHEMA_VERSION` is refused with one line naming both versions.

To change the schema: never edit :data:`_SCHEMA` (it is version 1, the base every file started
from); add ``_MIGRATIONS[N] = step`` where ``step(conn)`` turns version ``N`` into ``N + 1`` with
SQL on ``conn`` (inside the caller's transaction: no COMMIT, no ``executescript``), bump
:data:`SCHEMA_VERSION` to ``N + 1``, and add ``tests/data/session-v<N+1>.gpuprof`` written by the
new code (``python -m tests.test_migrations``); the tests open every file kept there. New files
are made by the same steps (base schema, then every step), so a step cannot drift from them.
"""

from __future__ import annotations

try:  # POSIX: recorders lock their file; elsewhere a second writer is not detected
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

import contextlib
import csv
import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from gpuprof.errors import InputError
from gpuprof.fileio import atomic_open
from gpuprof.i18n import tr
from gpuprof.telemetry.codec import from_jsonable, to_jsonable
from gpuprof.telemetry.model import (
    GPU_NUMERIC_FIELDS,
    DeviceInfo,
    Snapshot,
    SourceKind,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.source import TelemetrySource

__all__ = ["APPLICATION_ID", "COMMIT_INTERVAL_S", "SCHEMA_VERSION", "SessionStore", "export_csv"]

log = logging.getLogger(__name__)

#: The schema version this gpuprof writes; older files migrate forward to it on open.
SCHEMA_VERSION = 1
#: The version of :data:`_SCHEMA`, the first one; every migration chain starts here.
_BASE_VERSION = 1
#: "GPPF" — marks the SQLite file as a gpuprof session.
APPLICATION_ID = 0x47505046
#: The longest time an appended snapshot waits before it is committed to disk.
COMMIT_INTERVAL_S = 0.5

_SQLITE_MAGIC = b"SQLite format 3\x00"
# quick_check reads the whole file: do it on open only below this size.
_QUICK_CHECK_MAX_BYTES = 64 * 2**20

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE snapshots (id INTEGER PRIMARY KEY, time_s REAL NOT NULL, data BLOB NOT NULL);
CREATE INDEX snapshots_time ON snapshots(time_s);
"""

Migration = Callable[[sqlite3.Connection], None]
#: ``{N: step}``: ``step`` turns a version-``N`` file into version ``N + 1`` (see the module doc).
_MIGRATIONS: dict[int, Migration] = {}


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Run the steps from ``version`` to :data:`SCHEMA_VERSION` inside the open transaction."""
    for v in range(version, SCHEMA_VERSION):
        step = _MIGRATIONS.get(v)
        if step is None:
            raise sqlite3.OperationalError(f"no migration step from version {v} to {v + 1}")
        step(conn)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _encode(snap: Snapshot) -> bytes:
    # ASCII escapes keep text from the system that is not valid UTF-8 (psutil gives a Latin-1
    # command line as lone surrogates, 'caf\udce9') losslessly, where UTF-8 would refuse it.
    text = json.dumps(to_jsonable(snap), separators=(",", ":"), ensure_ascii=True)
    return zlib.compress(text.encode("ascii"), 1)


def _decode(blob: bytes) -> Snapshot:
    return from_jsonable(Snapshot, json.loads(zlib.decompress(blob)))


class SessionStore:
    """A recorded session. Create with :meth:`create` (writable) or :meth:`open` (read-only)."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, writable: bool) -> None:
        self.path = path
        self._conn = conn
        self._writable = writable
        self._lock = threading.RLock()
        self._pending = 0
        self._last_commit = time.monotonic()
        self._closed = False
        self._writer_lock: int | None = None  # an fd holding flock while this writes the file
        values = self._read_meta()
        self.schema_version: int = SCHEMA_VERSION
        #: The version in the file itself: below :attr:`schema_version` when it was migrated.
        self.file_schema_version: int = SCHEMA_VERSION
        self.source_kind = SourceKind(values.get("source_kind", SourceKind.NVML.value))
        self.label: str = str(values.get("label", ""))
        self.created_s: float | None = values.get("created_s")
        self.meta: dict[str, Any] = dict(values.get("meta") or {})
        self._system_info = from_jsonable(SystemInfo, values.get("system_info") or {})
        self._devices = from_jsonable(tuple[DeviceInfo, ...], values.get("devices") or [])
        self._topology = from_jsonable(Topology, values.get("topology") or {})

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        *,
        source: TelemetrySource | None = None,
        system_info: SystemInfo | None = None,
        devices: tuple[DeviceInfo, ...] | list[DeviceInfo] = (),
        topology: Topology | None = None,
        source_kind: SourceKind = SourceKind.NVML,
        meta: dict[str, Any] | None = None,
        overwrite: bool = False,
    ) -> SessionStore:
        """A new session file. Static facts come from ``source`` unless given explicitly.

        An existing file is an :class:`InputError` unless ``overwrite``.
        """
        p = Path(path)
        if p.exists():
            if not overwrite:
                raise InputError(f"{p}: file exists (choose another name or remove it)")
            if p.is_dir():
                raise InputError(f"{p}: is a directory")
            _refuse_if_recording(p)
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    Path(str(p) + suffix).unlink()
        label = ""
        if source is not None:
            system_info = system_info if system_info is not None else source.system_info()
            devices = devices or source.devices()
            topology = topology if topology is not None else source.topology()
            source_kind = source.kind
            label = source.label
        try:
            conn = sqlite3.connect(str(p), check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            raise InputError(f"{p}: cannot create session file ({e})") from e
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN")
            for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                conn.execute(stmt)
            _migrate(conn, _BASE_VERSION)
            rows = {
                "source_kind": source_kind.value,
                "label": label,
                "created_s": time.time(),
                "system_info": to_jsonable(system_info or SystemInfo()),
                "devices": to_jsonable(tuple(devices)),
                "topology": to_jsonable(topology or Topology()),
                "meta": meta or {},
                "writer_pid": os.getpid(),
            }
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [(k, json.dumps(v, ensure_ascii=False)) for k, v in rows.items()],
            )
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            conn.close()
            raise InputError(f"{p}: cannot create session file ({e})") from e
        store = cls(p, conn, writable=True)
        store._writer_lock = _hold_writer_lock(p)
        return store

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SessionStore:
        """Open a recorded session read-only; :class:`InputError` naming the file if unusable.

        A file of an older schema version is migrated in a private temporary copy (the file
        itself is not written); a newer one is refused.
        """
        p = Path(path)
        if not p.exists():
            raise InputError(tr("{p}: no such file", p=p))
        if p.is_dir():
            raise InputError(tr("{p}: is a directory, not a session file", p=p))
        try:
            with p.open("rb") as fh:
                header = fh.read(100)
        except OSError as e:
            raise InputError(f"{p}: cannot read ({e.strerror})") from e
        if not header:
            raise InputError(f"{p}: empty file, not a gpuprof session")
        if not header.startswith(_SQLITE_MAGIC):
            raise InputError(f"{p}: not a gpuprof session (not an SQLite database)")
        if len(header) < 100:
            raise InputError(f"{p}: truncated session file")
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        page_count = int.from_bytes(header[28:32], "big")
        size = p.stat().st_size
        if page_count and size < page_size * page_count:
            raise InputError(
                f"{p}: truncated session file ({size} of {page_size * page_count} bytes)"
            )
        conn = cls._connect_readonly(p)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise InputError(
                    f"{p}: not a gpuprof session (an SQLite database of another program)"
                )
            if version > SCHEMA_VERSION:
                raise InputError(
                    f"{p}: session schema version {version} is newer than this gpuprof reads "
                    f"(version {SCHEMA_VERSION}); open it with a newer gpuprof"
                )
            if version < _BASE_VERSION:
                raise InputError(f"{p}: corrupt session file (schema version {version})")
            if size <= _QUICK_CHECK_MAX_BYTES:
                result = conn.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    raise InputError(f"{p}: corrupt session file ({result})")
            if version < SCHEMA_VERSION:
                conn = cls._migrated_copy(p, conn, version)
            store = cls(p, conn, writable=False)
            store.file_schema_version = version
            store.time_range()  # touches the index and the first and last rows
            return store
        except InputError:
            conn.close()
            raise
        except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as e:
            conn.close()
            raise InputError(f"{p}: corrupt session file ({e})") from e

    @staticmethod
    def _connect_readonly(p: Path) -> sqlite3.Connection:
        uri = p.resolve().as_uri()
        try:
            conn = sqlite3.connect(uri + "?mode=ro", uri=True, check_same_thread=False)
            try:
                conn.execute("PRAGMA schema_version").fetchone()
            except sqlite3.OperationalError:
                # A WAL file on read-only media cannot get its -shm index: read it as immutable
                # (what was not checkpointed into the main file is then not visible).
                conn.close()
                conn = sqlite3.connect(uri + "?immutable=1", uri=True, check_same_thread=False)
            return conn
        except sqlite3.Error as e:
            raise InputError(f"{p}: cannot open session file ({e})") from e

    @staticmethod
    def _migrated_copy(p: Path, conn: sqlite3.Connection, version: int) -> sqlite3.Connection:
        """A private temporary database (SQLite's ``""``: in memory, spilling to a temporary file
        that is deleted on close) holding ``conn``'s data migrated to :data:`SCHEMA_VERSION`.

        ``conn`` is closed. The steps run in one transaction, so a failing one leaves nothing.
        """
        copy = sqlite3.connect("", check_same_thread=False, isolation_level=None)
        try:
            conn.backup(copy)
            conn.close()
            copy.execute("BEGIN")
            _migrate(copy, version)
            copy.execute("COMMIT")
        except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as e:
            conn.close()
            copy.close()
            raise InputError(
                f"{p}: cannot migrate session schema version {version} to {SCHEMA_VERSION} ({e})"
            ) from e
        return copy

    def _read_meta(self) -> dict[str, Any]:
        try:
            rows = self._conn.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.Error as e:
            raise InputError(f"{self.path}: corrupt session file ({e})") from e
        out: dict[str, Any] = {}
        for key, value in rows:
            try:
                out[str(key)] = json.loads(value)
            except (TypeError, ValueError) as e:
                raise InputError(f"{self.path}: corrupt session metadata {key!r}") from e
        return out

    # -- writing ---------------------------------------------------------------------------

    def append(self, snap: Snapshot) -> None:
        """Add one snapshot; committed within :data:`COMMIT_INTERVAL_S`."""
        if not self._writable:
            raise InputError(f"{self.path}: opened read-only")
        blob = _encode(snap)
        with self._lock:
            if self._closed:
                raise InputError(f"{self.path}: session is closed")
            if not self._conn.in_transaction:
                self._conn.execute("BEGIN")
            self._conn.execute(
                "INSERT INTO snapshots(time_s, data) VALUES (?, ?)", (snap.time_s, blob)
            )
            self._pending += 1
            if time.monotonic() - self._last_commit >= COMMIT_INTERVAL_S:
                self._commit_locked()

    def _commit_locked(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")
        self._pending = 0
        self._last_commit = time.monotonic()

    def flush(self) -> None:
        """Commit what is pending now."""
        with self._lock:
            if self._writable and not self._closed:
                self._commit_locked()

    def set_meta(self, key: str, value: Any) -> None:
        """Store an extra free-form value in ``meta`` (e.g. the end time or a note)."""
        with self._lock:
            self.meta[key] = value
            if self._writable and not self._closed:
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('meta', ?)",
                    (json.dumps(self.meta, ensure_ascii=False),),
                )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                if self._writable:
                    self._commit_locked()
                    self._fold_wal_locked()
            finally:
                self._conn.close()
                self._closed = True
                if self._writer_lock is not None:
                    os.close(self._writer_lock)  # releases the flock
                    self._writer_lock = None

    def _fold_wal_locked(self) -> None:
        # A finished recording is one self-contained file: readers (mode=ro) of a WAL database
        # would leave -wal and -shm files beside it, and a copy of the main file alone would
        # miss what was not checkpointed. If this fails (a full disk), the rows stay in the WAL.
        try:
            self._conn.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as e:
            log.warning("%s: could not fold the WAL into the file: %s", self.path, e)

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------

    def system_info(self) -> SystemInfo:
        return self._system_info

    def devices(self) -> tuple[DeviceInfo, ...]:
        return self._devices

    def topology(self) -> Topology:
        return self._topology

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as e:
                raise InputError(f"{self.path}: corrupt session file ({e})") from e

    def count(self) -> int:
        return int(self._query("SELECT count(*) FROM snapshots")[0][0])

    def time_range(self) -> tuple[float, float] | None:
        """Unix seconds of the first and last snapshot, or None when empty."""
        lo, hi = self._query("SELECT min(time_s), max(time_s) FROM snapshots")[0]
        return None if lo is None else (float(lo), float(hi))

    def snapshots(self, t0: float | None = None, t1: float | None = None) -> Iterator[Snapshot]:
        """Snapshots with ``t0 <= time_s <= t1`` in time order (read in batches)."""
        lo = -float("inf") if t0 is None else float(t0)
        hi = float("inf") if t1 is None else float(t1)
        last_id = -1
        while True:
            rows = self._query(
                "SELECT id, data FROM snapshots WHERE time_s >= ? AND time_s <= ? AND id > ? "
                "ORDER BY id LIMIT 500",
                (lo, hi, last_id),
            )
            if not rows:
                return
            for row_id, blob in rows:
                yield self._decode_row(blob)
                last_id = row_id

    def snapshot_at(self, t: float) -> Snapshot | None:
        """The last snapshot taken at or before ``t`` (Unix s); None before the first."""
        rows = self._query(
            "SELECT data FROM snapshots WHERE time_s <= ? ORDER BY time_s DESC, id DESC LIMIT 1",
            (float(t),),
        )
        return self._decode_row(rows[0][0]) if rows else None

    def _decode_row(self, blob: bytes) -> Snapshot:
        try:
            return _decode(blob)
        except (zlib.error, ValueError, TypeError, KeyError) as e:
            raise InputError(f"{self.path}: corrupt snapshot record ({e})") from e


#: Columns of the per-GPU CSV (``gpuprof export`` and ``gpuprof monitor --csv``); units in names.
CSV_HEADER: tuple[str, ...] = (
    "time_s",
    "time_utc",
    "source",
    "gpu_index",
    "uuid",
    "lost",
    *GPU_NUMERIC_FIELDS,
    "mem_used_pct",
    "throttle_reasons",
)


def csv_rows(snap: Snapshot) -> Iterator[list[object]]:
    """One CSV row per GPU of ``snap`` (columns :data:`CSV_HEADER`); unsupported values empty."""
    stamp = datetime.fromtimestamp(snap.time_s, tz=timezone.utc).isoformat(timespec="milliseconds")
    for g in snap.gpus:
        values = [getattr(g, name) for name in GPU_NUMERIC_FIELDS]
        yield [
            repr(snap.time_s),
            stamp,
            snap.source.value,
            g.index,
            g.uuid or "",
            int(g.lost),
            *("" if v is None else v for v in values),
            "" if g.mem_used_pct is None else round(g.mem_used_pct, 3),
            "|".join(g.throttle_reasons),
        ]


def write_csv(snaps: Iterable[Snapshot], fh: IO[str]) -> int:
    """Write :data:`CSV_HEADER` and the rows of ``snaps`` to an open text file; returns rows."""
    writer = csv.writer(fh)
    writer.writerow(CSV_HEADER)
    rows = 0
    for snap in snaps:
        for row in csv_rows(snap):
            writer.writerow(row)
            rows += 1
    return rows


def export_csv(store: SessionStore, out_path: str | os.PathLike[str]) -> int:
    """Write one row per GPU per snapshot of ``store`` to ``out_path``; returns the row count.

    Columns: ``time_s`` (Unix), ``time_utc`` (ISO 8601), ``source``, ``gpu_index``, ``uuid``,
    ``lost``, every numeric GPU field (units in the names: ``power_w``, ``clock_sm_mhz``, ...),
    ``mem_used_pct`` and ``throttle_reasons`` (``|``-separated). Unsupported values are empty.
    """
    with atomic_open(out_path, "w", newline="") as fh:
        return write_csv(store.snapshots(), fh)


def _hold_writer_lock(p: Path) -> int | None:
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


def _refuse_if_recording(p: Path) -> None:
    """:class:`InputError` when another recorder holds ``p``: overwriting it would destroy a
    recording in progress (``record --force`` twice onto one file)."""
    if fcntl is None:
        return
    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = "?"
        with contextlib.suppress(Exception):
            conn = sqlite3.connect(p.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                row = conn.execute("SELECT value FROM meta WHERE key='writer_pid'").fetchone()
                pid = str(json.loads(row[0])) if row else "?"
            finally:
                conn.close()
        raise InputError(
            f"{p}: in use: another gpuprof is recording to it (pid {pid}); "
            "stop that recording or choose another file"
        ) from None
    finally:
        os.close(fd)  # also releases our probe lock
