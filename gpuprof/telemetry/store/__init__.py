"""Recordings on disk: a session's snapshots and the machine's static facts in one SQLite file.

- :mod:`.session_store`: :class:`SessionStore`, which writes and reads a recording, and its
  schema and migrations;
- :mod:`.read`: the limits on what a file may hold and the decoding of its records;
- :mod:`.files`: the states of the files on disk (WAL, a live writer, read-only copies);
- :mod:`.csv_export`: the recording as CSV (``gpuprof export --csv``).
"""

from __future__ import annotations

from gpuprof.telemetry.store.csv_export import CSV_HEADER, csv_rows, export_csv, write_csv
from gpuprof.telemetry.store.session_store import (
    APPLICATION_ID,
    CHECKPOINT_INTERVAL_S,
    COMMIT_INTERVAL_S,
    SCHEMA_VERSION,
    SessionStore,
)

__all__ = [
    "APPLICATION_ID",
    "CHECKPOINT_INTERVAL_S",
    "COMMIT_INTERVAL_S",
    "CSV_HEADER",
    "SCHEMA_VERSION",
    "SessionStore",
    "csv_rows",
    "export_csv",
    "write_csv",
]
