"""A job's markers and its profile, kept inside its recording (a ``.gpuprof`` session file).

- Markers go to the table ``job_markers(id INTEGER PRIMARY KEY, time_s REAL, data TEXT)``,
  created on demand by the first :func:`append_markers`; ``data`` is the marker's own line of the
  marker protocol (:func:`gpuprof.profile.markers.encode`). Recordings without the table (every
  plain ``gpuprof record``, every file of an older gpuprof) have no markers.
- The :class:`~gpuprof.profile.model.JobProfile` is the ``meta`` row ``job_profile``: codec JSON
  (:mod:`gpuprof.telemetry.codec`). A recording without one is not a job's.

Neither changes the schema version: a gpuprof that does not know them reads the snapshots as
before. What a hostile or damaged file holds there is skipped with one warning naming the file
(a marker line that is not one, a profile of the wrong shape or size), never fatal: the
snapshots still play.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.errors import InputError
from gpuprof.profile.build import JobRun, build_profile
from gpuprof.profile.markers import MAX_LINE, Marker, decode_line, encode
from gpuprof.profile.model import SCHEMA_VERSION, JobProfile, TimeBreakdown
from gpuprof.profile.sane import sane_profile
from gpuprof.profile.tree import TreeInfo
from gpuprof.telemetry.codec import from_jsonable, to_jsonable
from gpuprof.telemetry.store.read import (
    MAX_META_BYTES,
    MAX_TIME_S,
    MIN_TIME_S,
    clip,
    valid_time,
    warn_once,
)

if TYPE_CHECKING:
    from gpuprof.telemetry.store import SessionStore

__all__ = [
    "MARKERS_TABLE",
    "MAX_MARKERS",
    "PROFILE_KEY",
    "append_marker_rows",
    "append_markers",
    "copy_job",
    "profile_of_store",
    "read_job_profile",
    "read_markers",
    "read_markers_counted",
    "write_job_profile",
]

MARKERS_TABLE = "job_markers"
#: The ``meta`` key of the job profile.
PROFILE_KEY = "job_profile"
#: The most markers one read returns (a step every 10 ms for almost three hours); the rest are
#: left out with a warning, so a hostile file cannot fill memory.
MAX_MARKERS = 1_000_000
_BATCH = 10_000

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {MARKERS_TABLE} "
    "(id INTEGER PRIMARY KEY, time_s REAL NOT NULL, data TEXT NOT NULL)"
)


def _conn(store: SessionStore) -> sqlite3.Connection:
    conn: sqlite3.Connection = store._conn
    return conn


def _writable(store: SessionStore) -> None:
    if not store._writable or store._closed:
        raise InputError(f"{store.path}: not open for writing")


def append_markers(store: SessionStore, markers: Iterable[Marker]) -> int:
    """Add ``markers`` to the recording (committed with the store's next commit, or by
    :meth:`~gpuprof.telemetry.store.SessionStore.flush`). Returns how many were added."""
    rows = [(m.time_s, encode(m).decode("ascii", "backslashreplace").rstrip("\n")) for m in markers]
    return append_marker_rows(store, rows)


def append_marker_rows(store: SessionStore, rows: list[tuple[float, str]]) -> int:
    """As :func:`append_markers`, for rows already made: ``(time_s, line)`` with each line one
    that :func:`~gpuprof.profile.markers.decode_line` accepted, as the job wrote it
    (:meth:`~gpuprof.profile.tail.MarkerTail.read_rows`; no re-encoding)."""
    if not rows:
        return 0
    _writable(store)
    with store._lock:  # shared with the sampler thread's appends
        conn = _conn(store)
        if not conn.in_transaction:
            conn.execute("BEGIN")
        conn.execute(_CREATE)
        conn.executemany(f"INSERT INTO {MARKERS_TABLE}(time_s, data) VALUES (?, ?)", rows)
    return len(rows)


def _has_markers_table(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", (MARKERS_TABLE,)
    ).fetchone()
    return bool(row and row[0])


def read_markers_counted(store: SessionStore) -> tuple[tuple[Marker, ...], int]:
    """The recording's markers in time order, and how many records were skipped as not markers
    (one warning names the file and the first problem)."""
    markers: list[Marker] = []
    skipped = 0
    first_problem = ""
    truncated = False
    try:
        with store._lock:
            conn = _conn(store)
            if not _has_markers_table(conn):
                return (), 0
            last_id = None
            while True:
                # Long records are not fetched whole: length() first, like snapshot reads.
                rows = conn.execute(
                    f"SELECT id, time_s, CASE WHEN length(CAST(data AS BLOB)) > {MAX_LINE} "
                    f"THEN NULL ELSE data END FROM {MARKERS_TABLE} "
                    "WHERE (? IS NULL OR id > ?) ORDER BY id LIMIT ?",
                    (last_id, last_id, _BATCH),
                ).fetchall()
                if not rows:
                    break
                last_id = rows[-1][0]
                for _row_id, t, data in rows:
                    try:
                        marker = _decode(t, data)
                    except ValueError as e:
                        skipped += 1
                        first_problem = first_problem or f"record {_row_id}: {clip(e, 80)}"
                        continue
                    if len(markers) >= MAX_MARKERS:
                        truncated = True
                        break
                    markers.append(marker)
                if truncated:
                    break
    except sqlite3.Error as e:
        warn_once(f"{store.path}: job markers unreadable ({clip(e, 120)}); left out")
        return tuple(sorted(markers, key=lambda m: m.time_s)), skipped
    if skipped:
        warn_once(
            f"{store.path}: {skipped} job marker record(s) are not markers and were skipped "
            f"({first_problem})"
        )
    if truncated:
        warn_once(f"{store.path}: more than {MAX_MARKERS} job markers; only the first are read")
    markers.sort(key=lambda m: m.time_s)
    return tuple(markers), skipped


def _decode(t: object, data: object) -> Marker:
    if data is None:
        raise ValueError(f"longer than {MAX_LINE} bytes")
    if isinstance(data, bytes):
        data = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if not isinstance(data, str):
        raise ValueError(f"not text (a {type(data).__name__})")
    try:
        marker = decode_line(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if not MIN_TIME_S < marker.time_s <= MAX_TIME_S:
        raise ValueError("impossible time")
    return marker


def read_markers(store: SessionStore) -> tuple[Marker, ...]:
    """The recording's markers in time order (``()`` for a recording without any)."""
    return read_markers_counted(store)[0]


def _dumps(profile: JobProfile) -> str:
    # NaN / infinities would not be JSON; they are unknowns: null.
    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(to_jsonable(profile)), ensure_ascii=True, allow_nan=False)


def profile_of_store(
    store: SessionStore,
    run: JobRun,
    *,
    tree: TreeInfo | None,
    tail_skipped: int,
    breakdown: TimeBreakdown | None,
) -> JobProfile:
    """The profile of ``run`` from what ``store`` recorded (flushed first): its snapshots,
    devices, source and markers; the records skipped as not markers count with
    ``tail_skipped``, the marker lines the tail reader skipped."""
    store.flush()
    markers, skipped = read_markers_counted(store)
    return build_profile(
        run,
        store.snapshots(),
        devices=store.devices(),
        tree=tree,
        markers=markers,
        markers_skipped=tail_skipped + skipped,
        breakdown=breakdown,
        source=store.source_kind,
    )


def write_job_profile(store: SessionStore, profile: JobProfile) -> None:
    """Store ``profile`` in the recording (replacing one stored before); committed at once."""
    _writable(store)
    text = _dumps(profile)
    if len(text) > MAX_META_BYTES:
        raise InputError(f"{store.path}: job profile of {len(text)} bytes is too large to store")
    with store._lock:
        conn = _conn(store)
        if not conn.in_transaction:
            conn.execute("BEGIN")
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (PROFILE_KEY, text))
    store.flush()


def _profile_from(data: object, where: object) -> JobProfile | None:
    def bad(why: str) -> None:
        warn_once(f"{where}: job profile {why}; ignored")

    if not isinstance(data, dict):
        bad(f"is not an object (a {type(data).__name__})")
        return None
    try:
        profile = from_jsonable(JobProfile, data)
    except RecursionError:
        bad("is nested too deeply")
        return None
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        bad(f"is malformed ({clip(e, 80)})")
        return None
    profile = sane_profile(profile)  # nulls, NaN and non-integral counts where types forbid them
    start, end = valid_time(profile.started_s), valid_time(profile.ended_s)
    if start is None or end is None or end < start:
        bad("has impossible start and end times")
        return None
    if profile.schema_version > SCHEMA_VERSION:
        warn_once(
            f"{where}: job profile schema version {profile.schema_version} is newer than this "
            f"gpuprof's ({SCHEMA_VERSION}); fields it does not know are left out"
        )
    return profile


def read_job_profile(store_or_path: SessionStore | str | os.PathLike[str]) -> JobProfile | None:
    """The job profile stored in the recording, or None (a recording without one, or one that
    cannot be read: warned once). A path is opened read-only (an unusable file is the
    :class:`~gpuprof.errors.InputError` every reader of recordings gives)."""
    if isinstance(store_or_path, (str, os.PathLike)):
        from gpuprof.telemetry.store import SessionStore

        with SessionStore.open(Path(store_or_path), warn=False) as store:
            return read_job_profile(store)
    store = store_or_path
    size = "length(CAST(value AS BLOB))"
    try:
        with store._lock:
            row = (
                _conn(store)
                .execute(
                    f"SELECT CASE WHEN {size} > ? THEN NULL ELSE value END, {size} "
                    "FROM meta WHERE key = ?",
                    (MAX_META_BYTES, PROFILE_KEY),
                )
                .fetchone()
            )
    except sqlite3.Error as e:
        warn_once(f"{store.path}: job profile unreadable ({clip(e, 120)}); ignored")
        return None
    if row is None:
        return None
    value, n = row
    if value is None:
        warn_once(
            f"{store.path}: job profile is {n} bytes, more than {MAX_META_BYTES >> 20} MiB; ignored"
        )
        return None
    try:
        data = json.loads(value)
    except (ValueError, TypeError, RecursionError):
        warn_once(f"{store.path}: job profile is not JSON; ignored")
        return None
    return _profile_from(data, store.path)


def copy_job(src: SessionStore, dst: SessionStore) -> None:
    """Carry ``src``'s markers and job profile over to ``dst`` (``gpuprof recover``)."""
    append_markers(dst, read_markers(src))
    profile = read_job_profile(src)
    if profile is not None:
        write_job_profile(dst, profile)
    dst.flush()
