"""Benchmark runs as JSON (schema: docs/bench-schema.md) and in the results database (SQLite).

The database keeps each run's whole JSON document plus one row per result with its headline
metric, so ``bench list`` and ``bench compare`` need no decoding of old runs' details.

The database's own schema version (``PRAGMA user_version`` = :data:`DB_SCHEMA_VERSION`) is not
the run documents' ``schema_version``: each document keeps its own and :func:`run_from_dict` reads
it. Opening the database reads the version before writing anything; an older database migrates
forward in place, in one transaction (``BEGIN IMMEDIATE``, so two processes cannot both migrate);
a newer one is refused with one line naming the file and both versions, and left untouched. A
read-only database of the current version is read as it is; one that needs a migration is refused.

To change the schema: never edit :data:`_SCHEMA` (version 1, the base every database started
from); add ``_MIGRATIONS[N] = step`` where ``step(con)`` turns version ``N`` into ``N + 1`` with
SQL on ``con`` (inside the transaction: no COMMIT, no ``executescript``), bump
:data:`DB_SCHEMA_VERSION`, and add ``tests/data/results-v<N+1>.sqlite`` written by the new code
(``python -m tests.test_migrations``); the tests open every file kept there. A new database is made
by the same steps (base schema, then every step).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuprof.bench.base import RESULT_TYPES, Result, RunState
from gpuprof.bench.runner import SCHEMA_VERSION, BenchRun, CaseRecord, Environment, TelemetryPoint
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.jsonin import checked_version
from gpuprof.sqlitedb import Migration, migrate_schema
from gpuprof.telemetry.codec import from_jsonable, to_jsonable

__all__ = [
    "DB_SCHEMA_VERSION",
    "Comparison",
    "ResultsDB",
    "RunSummary",
    "compare_runs",
    "read_json",
    "result_from_dict",
    "result_to_dict",
    "run_from_dict",
    "run_to_dict",
    "write_json",
]

_FORMAT = "gpuprof-bench-run"


def result_to_dict(result: Result) -> dict[str, Any]:
    """``{"type": "GemmResult", ...every field...}``."""
    data: dict[str, Any] = {"type": type(result).__name__}
    data.update(to_jsonable(result, keep_defaults=True))
    return data


def result_from_dict(data: dict[str, Any]) -> Result:
    cls = RESULT_TYPES.get(str(data.get("type", "Result")), Result)
    return from_jsonable(cls, data)


def _case_to_dict(case: CaseRecord) -> dict[str, Any]:
    return {
        "bench": case.bench,
        "name": case.name,
        "state": case.state.value,
        "elapsed_s": case.elapsed_s,
        "budget_s": case.budget_s,
        "attempts": case.attempts,
        "error": case.error,
        "notes": list(case.notes),
        "results": [result_to_dict(r) for r in case.results],
    }


def _case_from_dict(data: dict[str, Any]) -> CaseRecord:
    return CaseRecord(
        bench=str(data["bench"]),
        name=str(data["name"]),
        state=RunState(data["state"]),
        elapsed_s=float(data.get("elapsed_s", 0.0)),
        budget_s=float(data.get("budget_s", 0.0)),
        attempts=int(data.get("attempts", 1)),
        error=data.get("error"),
        notes=tuple(data.get("notes", ())),
        results=tuple(result_from_dict(r) for r in data.get("results", ())),
    )


def run_to_dict(run: BenchRun) -> dict[str, Any]:
    """The JSON document of a run (docs/bench-schema.md)."""
    return {
        "format": _FORMAT,
        "schema_version": run.schema_version,
        "run_id": run.run_id,
        "suite": run.suite,
        "device": run.device,
        "only": list(run.only),
        "state": run.state.value,
        "started_s": run.started_s,
        "ended_s": run.ended_s,
        "environment": to_jsonable(run.environment, keep_defaults=True),
        "notes": list(run.notes),
        "cases": [_case_to_dict(c) for c in run.cases],
        "telemetry": [to_jsonable(p, keep_defaults=True) for p in run.telemetry],
    }


def run_from_dict(data: dict[str, Any]) -> BenchRun:
    if data.get("format") != _FORMAT:
        raise InputError(tr("not a gpuprof benchmark run (format is {f!r})", f=data.get("format")))
    version = checked_version(
        data.get("schema_version", 0),
        SCHEMA_VERSION,
        N_("benchmark run schema {v} is newer than this gpuprof reads ({m})"),
    )
    return BenchRun(
        run_id=str(data["run_id"]),
        suite=str(data["suite"]),
        device=str(data["device"]),
        only=tuple(data.get("only", ())),
        state=RunState(data["state"]),
        started_s=float(data["started_s"]),
        ended_s=float(data["ended_s"]),
        environment=from_jsonable(Environment, data.get("environment", {})),
        cases=tuple(_case_from_dict(c) for c in data.get("cases", ())),
        telemetry=tuple(from_jsonable(TelemetryPoint, p) for p in data.get("telemetry", ())),
        notes=tuple(data.get("notes", ())),
        schema_version=version,
    )


def write_json(run: BenchRun, path: str | Path) -> Path:
    from gpuprof.jsonout import write_json as write_strict

    return write_strict(path, run_to_dict(run))


def read_json(path: str | Path) -> BenchRun:
    from gpuprof.jsonin import read_json as read_json_file
    from gpuprof.resultlimits import MAX_FILE_BYTES

    return run_from_dict(read_json_file(path, MAX_FILE_BYTES, what=tr("benchmark run")))


# --- comparison -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comparison:
    """The same measurement in two runs; ``ratio`` = b / a (None when either is missing)."""

    key: str
    metric: str
    unit: str
    a: float | None
    b: float | None
    a_status: str | None
    b_status: str | None

    @property
    def ratio(self) -> float | None:
        if self.a is None or self.b is None or self.a == 0:
            return None
        return self.b / self.a


def compare_runs(a: BenchRun, b: BenchRun) -> list[Comparison]:
    """Every measurement key in either run, in a's order then b's new ones."""

    def index(run: BenchRun) -> dict[str, Result]:
        out: dict[str, Result] = {}
        for r in run.results:
            out.setdefault(r.key, r)
        return out

    ia, ib = index(a), index(b)
    keys = list(ia) + [k for k in ib if k not in ia]
    rows: list[Comparison] = []
    for key in keys:
        ra, rb = ia.get(key), ib.get(key)
        metric, _, unit = (ra or rb).headline()  # type: ignore[union-attr]
        rows.append(
            Comparison(
                key=key,
                metric=metric,
                unit=unit,
                a=ra.headline()[1] if ra is not None and ra.ok else None,
                b=rb.headline()[1] if rb is not None and rb.ok else None,
                a_status=ra.status if ra is not None else None,
                b_status=rb.status if rb is not None else None,
            )
        )
    return rows


# --- the database ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunSummary:
    run_id: str
    started_s: float
    suite: str
    device: str
    device_name: str | None
    state: str
    n_results: int
    n_ok: int


#: The results database's schema version (``PRAGMA user_version``); older ones migrate forward.
DB_SCHEMA_VERSION = 1
#: The version of :data:`_SCHEMA`, the first one; every migration chain starts here.
_BASE_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started_s REAL NOT NULL,
    ended_s REAL NOT NULL,
    suite TEXT NOT NULL,
    device TEXT NOT NULL,
    device_name TEXT,
    state TEXT NOT NULL,
    n_results INTEGER NOT NULL,
    n_ok INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    bench TEXT NOT NULL,
    key TEXT NOT NULL,
    status TEXT NOT NULL,
    metric TEXT,
    value REAL,
    unit TEXT,
    throttled INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS results_key ON results(key);
"""

#: ``{N: step}``: ``step`` turns a version-``N`` database into version ``N + 1`` (module doc).
_MIGRATIONS: dict[int, Migration] = {}


class ResultsDB:
    """The results database; ``path`` defaults to :func:`gpuprof.paths.results_db_path`.

    Each method opens its own connection, so the GUI thread and a worker can share one instance.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            from gpuprof.paths import results_db_path

            path = results_db_path()
        self.path = Path(path)
        self._open_schema()

    def _open_schema(self) -> None:
        """Read the schema version; create or migrate to :data:`DB_SCHEMA_VERSION` if needed.

        Messages are plain English like the session store's (file errors are not in the
        translation catalog yet).
        """
        p = self.path
        try:
            con = sqlite3.connect(p, timeout=10, isolation_level=None)
        except sqlite3.Error as e:
            raise InputError(f"{p}: cannot open the results database ({e})") from e
        try:
            try:
                version = self._version(con)
            except sqlite3.Error as e:
                raise InputError(f"{p}: cannot open the results database ({e})") from e
            if version != DB_SCHEMA_VERSION:
                self._upgrade(con, version)
        finally:
            if con.in_transaction:
                con.execute("ROLLBACK")
            con.close()

    def _upgrade(self, con: sqlite3.Connection, version: int) -> None:
        """Create (version 0) or migrate the database to :data:`DB_SCHEMA_VERSION`, atomically."""
        p = self.path
        try:
            con.execute("BEGIN IMMEDIATE")
            version = self._version(con)  # another process may have migrated meanwhile
            if version == DB_SCHEMA_VERSION:
                con.execute("COMMIT")
                return
            if version == 0:
                tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
                if tables and "runs" not in tables:
                    raise InputError(f"{p}: not a gpuprof results database (other tables)")
                for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                    con.execute(stmt)
                version = _BASE_VERSION
            migrate_schema(con, version, DB_SCHEMA_VERSION, _MIGRATIONS)
            con.execute("COMMIT")
        except sqlite3.Error as e:
            raise InputError(
                f"{p}: cannot upgrade the results database from schema version {version} "
                f"to {DB_SCHEMA_VERSION} ({e})"
            ) from e

    def _version(self, con: sqlite3.Connection) -> int:
        """``PRAGMA user_version``; a newer one than this gpuprof knows is an :class:`InputError`."""
        try:
            version = int(con.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.OperationalError:
            raise  # locked, cannot open: not a statement about the file's content
        except sqlite3.DatabaseError as e:
            raise InputError(f"{self.path}: not a gpuprof results database ({e})") from e
        if version > DB_SCHEMA_VERSION:
            raise InputError(
                f"{self.path}: results database schema version {version} is newer than this "
                f"gpuprof reads (version {DB_SCHEMA_VERSION}); open it with a newer gpuprof"
            )
        return version

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=10)
        try:
            con.execute("PRAGMA foreign_keys = ON")
            with con:
                yield con
        finally:
            con.close()

    def save(self, run: BenchRun) -> None:
        doc = json.dumps(run_to_dict(run), allow_nan=False)
        results = run.results
        with self._connect() as con:
            con.execute("DELETE FROM runs WHERE run_id = ?", (run.run_id,))
            con.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run.run_id,
                    run.started_s,
                    run.ended_s,
                    run.suite,
                    run.device,
                    run.environment.gpu_name
                    or (run.environment.cpu_model if run.device == "cpu" else None),
                    run.state.value,
                    len(results),
                    sum(1 for r in results if r.ok),
                    doc,
                ),
            )
            con.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (run.run_id, i, r.bench, r.key, r.status, *r.headline(), int(r.throttled))
                    for i, r in enumerate(results)
                ],
            )

    def list_runs(self, limit: int = 50) -> list[RunSummary]:
        """Newest first."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT run_id, started_s, suite, device, device_name, state, n_results, n_ok "
                "FROM runs ORDER BY started_s DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [RunSummary(*row) for row in rows]

    def resolve(self, run_id: str) -> str:
        """The full id for ``run_id`` or a unique prefix of one; ``latest`` is the newest run."""
        with self._connect() as con:
            if run_id == "latest":
                row = con.execute(
                    "SELECT run_id FROM runs ORDER BY started_s DESC LIMIT 1"
                ).fetchone()
                if row is None:
                    raise InputError(tr("no benchmark runs yet"))
                return str(row[0])
            rows = con.execute(
                "SELECT run_id FROM runs WHERE run_id = ? OR run_id LIKE ? ESCAPE '\\'",
                (
                    run_id,
                    run_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",
                ),
            ).fetchall()
        ids = sorted({str(r[0]) for r in rows})
        if run_id in ids:
            return run_id
        if not ids:
            raise InputError(tr("no benchmark run {i} (see `gpuprof bench list`)", i=run_id))
        if len(ids) > 1:
            raise InputError(tr("run id {i} is ambiguous: {m}", i=run_id, m=", ".join(ids[:5])))
        return ids[0]

    def load(self, run_id: str) -> BenchRun:
        full = self.resolve(run_id)
        with self._connect() as con:
            row = con.execute("SELECT doc FROM runs WHERE run_id = ?", (full,)).fetchone()
        return run_from_dict(json.loads(row[0]))

    def delete(self, run_id: str) -> None:
        full = self.resolve(run_id)
        with self._connect() as con:
            con.execute("DELETE FROM runs WHERE run_id = ?", (full,))

    def compare(self, a: str, b: str) -> list[Comparison]:
        return compare_runs(self.load(a), self.load(b))
