"""SQLite session store: a recording of snapshots plus the static facts of the machine.

One file per session (suffix ``.gpuprof`` by convention). WAL journal with ``synchronous=NORMAL``:
a committed transaction survives the process being killed (``kill -9``), and :meth:`append`
commits at least every :data:`COMMIT_INTERVAL_S`, so a killed recording loses at most that much.
The WAL is copied into the file itself every :data:`CHECKPOINT_INTERVAL_S` (and right after the
file is made), so the file alone, copied without its ``-wal``, still holds the recording up to
then. The ``meta`` key ``state`` is ``"recording"`` until a clean :meth:`close` makes it
``"closed"``: a reader of a file left ``"recording"`` with no recorder holding it says the
recording was not closed, reads what is there, and points to ``gpuprof recover``
(:mod:`gpuprof.telemetry.recover`). How each state of the files on disk is read is in
:mod:`gpuprof.telemetry.store.files`; the limits on what a file may hold (records, times,
metadata) in :mod:`gpuprof.telemetry.store.read`.

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

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.fileio import regular_target
from gpuprof.i18n import tr
from gpuprof.sqlitedb import Migration, migrate_schema
from gpuprof.telemetry.codec import to_jsonable
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SourceKind, SystemInfo, Topology
from gpuprof.telemetry.source import StaticFacts, TelemetrySource
from gpuprof.telemetry.store.files import (
    connect_readonly,
    hold_writer_lock,
    is_wal_mode,
    live_writer,
    not_ours_message,
    refuse_if_recording,
    wal_path,
)
from gpuprof.telemetry.store.read import (
    MAX_META_BYTES,
    MAX_SNAPSHOT_BYTES,
    MAX_TIME_S,
    MIN_TIME_S,
    RecordError,
    byte_groups,
    decode_snapshot,
    load_meta_value,
    one_line,
    parse_meta,
    read_header,
    size_problem,
    warn_once,
)

__all__ = [
    "APPLICATION_ID",
    "CHECKPOINT_INTERVAL_S",
    "COMMIT_INTERVAL_S",
    "SCHEMA_VERSION",
    "SessionStore",
]

log = logging.getLogger("gpuprof.telemetry.store")

#: The schema version this gpuprof writes; older files migrate forward to it on open.
SCHEMA_VERSION = 1
#: The version of :data:`_SCHEMA`, the first one; every migration chain starts here.
_BASE_VERSION = 1
#: "GPPF" — marks the SQLite file as a gpuprof session.
APPLICATION_ID = 0x47505046
#: The longest time an appended snapshot waits before it is committed to disk.
COMMIT_INTERVAL_S = 0.5
#: How often the WAL is copied into the file itself while recording (the file alone, without
#: its ``-wal``, then holds all but the last seconds).
CHECKPOINT_INTERVAL_S = 5.0
#: Readers keep the first few problems of unreadable records for their one warning.
_PROBLEMS_KEPT = 3
_BAD_ROWS_KEPT = 100_000
#: Records a read fetches at once are at most this many bytes together (one may be larger).
_BATCH_BYTES = 4 * 2**20
#: How many records :meth:`SessionStore.snapshot_at` looks back past unreadable ones.
_LOOK_BACK = 64
#: Rows outside the times a recording can hold are left out of every query (read.py).
_VALID_TIME = f"time_s BETWEEN {MIN_TIME_S!r} AND {MAX_TIME_S!r}"

_SQLITE_MAGIC = b"SQLite format 3\x00"
# quick_check reads the whole file: do it on open only below this size.
_QUICK_CHECK_MAX_BYTES = 64 * 2**20

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE snapshots (id INTEGER PRIMARY KEY, time_s REAL NOT NULL, data BLOB NOT NULL);
CREATE INDEX snapshots_time ON snapshots(time_s);
"""

#: ``{N: step}``: ``step`` turns a version-``N`` file into version ``N + 1`` (see the module doc).
_MIGRATIONS: dict[int, Migration] = {}


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Run the steps from ``version`` to :data:`SCHEMA_VERSION` inside the open transaction."""
    migrate_schema(conn, version, SCHEMA_VERSION, _MIGRATIONS)


def _remove_files(p: Path) -> None:
    """``p`` and what SQLite keeps beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{p}{suffix}").unlink()


def _meta_json(value: Any) -> str:
    """A ``meta`` value as JSON text SQLite can store: readable UTF-8, with text that was not
    valid UTF-8 (a job's command line or name given as bytes: lone surrogates, as in a
    snapshot) written as JSON ``\\u`` escapes, which read back to the same string."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "backslashreplace").decode()


def _encode(snap: Snapshot) -> bytes:
    # ASCII escapes keep text from the system that is not valid UTF-8 (psutil gives a Latin-1
    # command line as lone surrogates, 'caf\udce9') losslessly, where UTF-8 would refuse it.
    text = json.dumps(to_jsonable(snap), separators=(",", ":"), ensure_ascii=True)
    return zlib.compress(text.encode("ascii"), 1)


class SessionStore(StaticFacts):
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
        self._last_checkpoint = time.monotonic()
        fields = parse_meta(self._read_meta(), path)
        self.schema_version: int = SCHEMA_VERSION
        #: The version in the file itself: below :attr:`schema_version` when it was migrated.
        self.file_schema_version: int = SCHEMA_VERSION
        self.source_kind = fields.source_kind
        self.label: str = fields.label
        self.created_s: float | None = fields.created_s
        self.meta: dict[str, Any] = fields.meta
        self._system = fields.system_info
        self._devices = fields.devices
        self._topology = fields.topology
        #: ``"recording"`` (not closed yet, or never: see :attr:`not_closed`), ``"closed"``, or
        #: None in files from before the marker.
        self.state: str | None = fields.state
        #: True when the file says it is being recorded but no recorder holds it (killed).
        self.not_closed = False
        #: What a reader should be told about the file, one line each (logged by :meth:`open`).
        self.warnings: list[str] = list(fields.warnings)
        #: Records left out because their time is impossible (NaN, infinite, 1e300, < 1970).
        self.bad_time_rows = 0
        self._bad_rows: set[int] = set()  # ids of records that could not be read
        self._bad_problems: list[str] = []
        self._warn = True

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
        label: str = "",
        created_s: float | None = None,
    ) -> SessionStore:
        """A new session file. Static facts come from ``source`` unless given explicitly
        (``label`` and ``created_s`` too: ``recover`` keeps the original's).

        An existing file is an :class:`InputError` unless ``overwrite``; only a regular file is
        ever replaced (``--force`` onto ``/dev/null`` or a FIFO must not delete it: anything else
        is an :class:`~gpuprof.errors.OutputError`, overwrite or not). A symbolic link stays a
        link: the recording is the file it points to.
        """
        p = regular_target(path)
        if p.exists():
            if not overwrite:
                raise InputError(f"{p}: file exists (choose another name or remove it)")
            refuse_if_recording(p)
            _remove_files(p)
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
                "created_s": time.time() if created_s is None else created_s,
                "system_info": to_jsonable(system_info or SystemInfo()),
                "devices": to_jsonable(tuple(devices)),
                "topology": to_jsonable(topology or Topology()),
                "meta": meta or {},
                "writer_pid": os.getpid(),
                "state": "recording",
            }
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [(k, _meta_json(v)) for k, v in rows.items()],
            )
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute("COMMIT")
            # The schema and the facts into the file itself: a copy of it alone is a session.
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except BaseException as e:
            # Whatever stopped it half-way, no stub takes the name (it was free or replaced).
            conn.close()
            _remove_files(p)
            if isinstance(e, sqlite3.Error):
                raise InputError(f"{p}: cannot create session file ({e})") from e
            raise
        store = cls(p, conn, writable=True)
        store._writer_lock = hold_writer_lock(p)
        return store

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, warn: bool = True) -> SessionStore:
        """Open a recorded session read-only; :class:`InputError` naming the file if unusable.

        A file of an older schema version is migrated in a private temporary copy (the file
        itself is not written); a newer one is refused. What the reader should know but need
        not stop for (a recording not closed, records left out, metadata ignored) is logged as
        one warning line each (unless not ``warn``: the caller reports) and kept in
        :attr:`warnings`.
        """
        p = Path(path)
        if not p.exists():
            raise InputError(tr("{p}: no such file", p=p))
        if p.is_dir():
            raise InputError(tr("{p}: is a directory, not a session file", p=p))
        header = read_header(p)  # a FIFO or a device is refused here, before anything blocks
        if not header:
            raise InputError(f"{p}: empty file, not a gpuprof session")
        if not header.startswith(_SQLITE_MAGIC):
            raise InputError(f"{p}: not a gpuprof session (not an SQLite database)")
        size = p.stat().st_size
        problem = size_problem(p, header, size)
        if problem is not None:
            raise InputError(problem)
        conn = connect_readonly(p, header)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID:
                raise InputError(not_ours_message(p, conn, header))
            if version > SCHEMA_VERSION:
                raise InputError(
                    f"{p}: session schema version {version} is newer than this gpuprof reads "
                    f"(version {SCHEMA_VERSION}); open it with a newer gpuprof"
                )
            if version < _BASE_VERSION:
                raise InputError(f"{p}: corrupt session file (schema version {version})")
            if size <= _QUICK_CHECK_MAX_BYTES:
                rows = conn.execute("PRAGMA quick_check").fetchall()
                if [tuple(r) for r in rows] != [("ok",)]:
                    raise InputError(f"{p}: corrupt session file ({one_line(r[0] for r in rows)})")
            if version < SCHEMA_VERSION:
                conn = cls._migrated_copy(p, conn, version)
            store = cls(p, conn, writable=False)
        except InputError:
            conn.close()
            raise
        except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as e:
            conn.close()
            raise InputError(f"{p}: corrupt session file ({one_line([e])})") from e
        try:
            store.file_schema_version = version
            store._check_readable(header)
        except BaseException:
            store._warn = False  # the error says it all
            store.close()
            raise
        store._warn = warn
        if warn:
            for line in store.warnings:
                warn_once(line)
        return store

    def _check_readable(self, header: bytes) -> None:
        """Refuse a file with no snapshot to show; note the faults a reader may step over."""
        p = self.path
        total = self.count(valid_only=False)
        self.bad_time_rows = total - self.count()
        if self.state == "recording" and not live_writer(p):
            self.not_closed = True
            lost = ""
            if is_wal_mode(header) and not wal_path(p).exists():
                lost = f" (without its {wal_path(p).name}: the last seconds are not in it)"
            self.warnings.append(
                f"{p}: the recording was not closed (its recorder was killed?); "
                f"{self.count()} samples are readable{lost}; `gpuprof recover {p}` writes "
                "a closed copy"
            )
        if self.bad_time_rows:
            self.warnings.append(
                f"{p}: {self.bad_time_rows} of {total} snapshot records have an impossible "
                "time (not a number, infinite, before 1970 or after 2100) and are left out"
            )
        if total == 0:
            return  # an empty recording is a fact, not a fault (readers say so)
        if self.bad_time_rows == total:
            raise InputError(f"{p}: no snapshot has a valid time ({total} records)")
        for _ in self.snapshots():
            self._bad_rows.clear()  # a reader that reads everything counts them itself
            self._bad_problems.clear()
            return
        raise InputError(
            f"{p}: no readable snapshots: all {total - self.bad_time_rows} records are corrupt "
            f"({self._bad_problems[0]})"
        )

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
        """``{key: value}`` of the ``meta`` table; a value too large or not JSON is marked
        (:func:`~gpuprof.telemetry.store.read.load_meta_value`), never read whole or fatal."""
        size = "length(CAST(value AS BLOB))"
        try:
            rows = self._conn.execute(
                f"SELECT key, CASE WHEN {size} > ? THEN NULL ELSE value END, {size} FROM meta",
                (MAX_META_BYTES,),
            ).fetchall()
        except sqlite3.Error as e:
            raise InputError(f"{self.path}: corrupt session file ({one_line([e])})") from e
        return {str(key): load_meta_value(value, n or 0) for key, value, n in rows}

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
        self._last_commit = now = time.monotonic()
        if now - self._last_checkpoint >= CHECKPOINT_INTERVAL_S:
            self._last_checkpoint = now
            try:  # PASSIVE: never waits for a reader; what it cannot copy stays in the WAL
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as e:
                log.debug("%s: checkpoint failed: %s", self.path, e)

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
                    (_meta_json(self.meta),),
                )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                if self._writable:
                    self._commit_locked()
                    self._mark_closed_locked()
                    self._fold_wal_locked()
            finally:
                self._conn.close()
                self._closed = True
                if self._writer_lock is not None:
                    os.close(self._writer_lock)  # releases the flock
                    self._writer_lock = None
                if self._bad_rows and self._warn:
                    warn_once(self.skipped_warning())

    def _mark_closed_locked(self) -> None:
        try:
            self._conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('state', ?)", ('"closed"',)
            )
            self.state = "closed"
        except sqlite3.Error as e:  # a full disk: readers will offer `gpuprof recover`
            log.warning("%s: could not mark the recording closed: %s", self.path, e)

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

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.Error as e:
                raise InputError(f"{self.path}: corrupt session file ({one_line([e])})") from e

    def count(self, *, valid_only: bool = True) -> int:
        """Snapshot records: those with a valid time (the ones every read sees), or all."""
        where = f" WHERE {_VALID_TIME}" if valid_only else ""
        return int(self._query("SELECT count(*) FROM snapshots" + where)[0][0])

    def time_range(self) -> tuple[float, float] | None:
        """Unix seconds of the first and last snapshot, or None when empty."""
        lo, hi = self._query(f"SELECT min(time_s), max(time_s) FROM snapshots WHERE {_VALID_TIME}")[
            0
        ]
        return None if lo is None else (float(lo), float(hi))

    def snapshots(self, t0: float | None = None, t1: float | None = None) -> Iterator[Snapshot]:
        """Snapshots with ``t0 <= time_s <= t1`` in time order (read in batches of a bounded
        size). A record that cannot be read is skipped and counted (:meth:`skipped_warning`)."""
        lo = MIN_TIME_S if t0 is None else max(float(t0), MIN_TIME_S)
        hi = MAX_TIME_S if t1 is None else min(float(t1), MAX_TIME_S)
        after = ""
        args: tuple[Any, ...] = (lo, hi)
        while True:
            rows = self._query(
                "SELECT id, time_s, length(data) FROM snapshots WHERE time_s BETWEEN ? AND ?"
                f"{after} ORDER BY time_s, id LIMIT 500",
                args,
            )
            if not rows:
                return
            yield from self._decode_rows(rows)
            last_id, last_t = rows[-1][0], rows[-1][1]
            # From the last time read (an index range, not a scan from the start), past its id.
            after = " AND (time_s > ? OR id > ?)"
            args = (last_t, hi, last_t, last_id)

    def snapshot_at(self, t: float) -> Snapshot | None:
        """The last readable snapshot taken at or before ``t`` (Unix s); None before the first
        (or when the last :data:`_LOOK_BACK` records before ``t`` cannot be read)."""
        rows = self._query(
            "SELECT id, time_s, length(data) FROM snapshots "
            f"WHERE time_s BETWEEN ? AND ? ORDER BY time_s DESC, id DESC LIMIT {_LOOK_BACK}",
            (MIN_TIME_S, min(float(t), MAX_TIME_S)),
        )
        return next(self._decode_rows(rows), None)

    def next_time_after(self, t: float) -> float | None:
        """The time of the first snapshot record after ``t`` (Unix s), or None."""
        row = self._query(
            f"SELECT min(time_s) FROM snapshots WHERE {_VALID_TIME} AND time_s > ?", (float(t),)
        )[0]
        return None if row[0] is None else float(row[0])

    def _decode_rows(self, rows: list[Any]) -> Iterator[Snapshot]:
        """Decode ``(id, time_s, length)`` rows in order, fetching their data a few MiB at a
        time (a batch of large records must not all sit in memory at once)."""
        for group in byte_groups(rows, _BATCH_BYTES):
            wanted = tuple(r[0] for r in group if (r[2] or 0) <= MAX_SNAPSHOT_BYTES)
            marks = ",".join("?" * len(wanted))
            sql = f"SELECT id, data FROM snapshots WHERE id IN ({marks})"
            data = dict(self._query(sql, wanted)) if wanted else {}
            for row_id, t, length in group:
                snap = self._decode_row(row_id, t, data.get(row_id), length)
                if snap is not None:
                    yield snap

    def _decode_row(
        self, row_id: int, t: float, blob: object, length: int | None
    ) -> Snapshot | None:
        try:
            if blob is None and (length or 0) > MAX_SNAPSHOT_BYTES:
                raise RecordError(f"{length} bytes, more than a snapshot record can be")
            snap = decode_snapshot(blob)
        except RecordError as e:
            if row_id not in self._bad_rows and len(self._bad_rows) < _BAD_ROWS_KEPT:
                self._bad_rows.add(row_id)
                if len(self._bad_problems) < _PROBLEMS_KEPT:
                    self._bad_problems.append(f"record {row_id}: {e}")
            return None
        # The indexed time is the one every query agrees on (the JSON copy may say NaN).
        return snap if snap.time_s == t else replace(snap, time_s=float(t))

    @property
    def skipped_rows(self) -> int:
        """Snapshot records that could not be read so far (skipped by every read)."""
        return len(self._bad_rows)

    def skipped_warning(self) -> str:
        """One line on the records skipped so far, naming the first."""
        first = self._bad_problems[0] if self._bad_problems else "?"
        more = f"; {self.skipped_rows - 1} more" if self.skipped_rows > 1 else ""
        return f"{self.path}: unreadable snapshot records skipped ({first}{more})"
