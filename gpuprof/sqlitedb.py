"""The schema version of gpuprof's SQLite files, carried forward.

A recording (:mod:`gpuprof.telemetry.store`) and the benchmark results database
(:mod:`gpuprof.bench.results`) each keep ``PRAGMA user_version`` and a table of steps
``{N: step}``, where ``step(conn)`` turns version ``N`` into ``N + 1``; :func:`migrate_schema`
runs them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping

__all__ = ["Migration", "migrate_schema"]

Migration = Callable[[sqlite3.Connection], None]


def migrate_schema(
    conn: sqlite3.Connection, version: int, target: int, steps: Mapping[int, Migration]
) -> None:
    """Run ``steps`` from ``version`` up to ``target`` inside the open transaction, then set
    ``PRAGMA user_version`` to ``target``; a missing step is an ``sqlite3.OperationalError``."""
    for v in range(version, target):
        step = steps.get(v)
        if step is None:
            raise sqlite3.OperationalError(f"no migration step from version {v} to {v + 1}")
        step(conn)
    conn.execute(f"PRAGMA user_version={target}")
