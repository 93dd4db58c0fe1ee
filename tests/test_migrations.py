"""Files last: recordings and the results database of today's format open after schema changes.

``tests/data`` keeps one small file per schema version, written by the gpuprof of that version
(``python -m tests.test_migrations`` writes the current version's files). Every kept file must
open with the current code and keep its content, so a schema change without a migration step
fails here. The migration machinery itself is exercised with a test-only later step.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench import results
from gpuprof.bench.base import MemoryResult, RunState
from gpuprof.bench.results import ResultsDB
from gpuprof.errors import InputError
from gpuprof.telemetry.model import SourceKind
from gpuprof.telemetry.simulated import SimulatedSource
from gpuprof.telemetry.store import SessionStore
from gpuprof.telemetry.store import session_store as store
from tests.helpers.sqlite import execute, query

DATA = Path(__file__).resolve().parent / "data"

# What the fixture writers below put in the files; the tests check the kept files against it.
SESSION_SCENARIO = "rtx4090x2"
SESSION_TIMES = (1_700_000_000.0, 1_700_000_001.0, 1_700_000_002.0, 1_700_000_003.0)
SESSION_NOTE = "fixture for tests/test_migrations.py"
RESULTS_RUN_ID = "20240101-000000-fixt"
RESULTS_CPU = "fixture CPU"


def write_session_fixture(path: Path) -> None:
    """A tiny recording of the SIMULATED 2×RTX 4090 box: four snapshots, one a second."""
    src = SimulatedSource(
        SESSION_SCENARIO, seed=0, clock=iter(SESSION_TIMES).__next__, start_s=SESSION_TIMES[0]
    )
    with SessionStore.create(path, source=src, meta={"note": SESSION_NOTE}) as st:
        for _ in SESSION_TIMES:
            st.append(src.poll())


def write_results_fixture(path: Path) -> None:
    """A results database holding one real CPU run (host memory copies, P2P skipped)."""
    from gpuprof.bench.runner import Environment, Runner

    run = Runner(
        device="cpu", suite="quick", only="memory,p2p", capture_env=False, telemetry_interval_s=None
    ).run()
    run = replace(
        run,
        run_id=RESULTS_RUN_ID,
        environment=Environment(hostname="fixture", cpu_model=RESULTS_CPU),
    )
    ResultsDB(path).save(run)


def _kept(pattern: str) -> list[Path]:
    return sorted(DATA.glob(pattern))


def _version_of(path: Path) -> int:
    match = re.search(r"-v(\d+)\.", path.name)
    assert match, path
    return int(match.group(1))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy(src: Path, tmp_path: Path) -> Path:
    out = tmp_path / src.name
    shutil.copyfile(src, out)
    return out


def _user_version(path: Path) -> int:
    return int(query(path, "PRAGMA user_version")[0][0])


def _set_user_version(path: Path, version: int) -> None:
    execute(path, f"PRAGMA user_version={version}")


def _later_schema(
    monkeypatch: pytest.MonkeyPatch, module: Any, version_name: str, *statements: str
) -> list[int]:
    """``module``'s schema one version later, test-only: its migration from today's version
    runs ``statements``; the list returned gets a 1 each time that migration runs."""
    calls: list[int] = []

    def step(con: sqlite3.Connection) -> None:
        calls.append(1)
        for sql in statements:
            con.execute(sql)

    version = getattr(module, version_name)
    monkeypatch.setattr(module, version_name, version + 1)
    monkeypatch.setitem(module._MIGRATIONS, version, step)
    return calls


@pytest.fixture
def session_v2(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A later session schema, test-only: version 2 adds ``snapshots.n_gpus``, filled in."""
    return _later_schema(
        monkeypatch,
        store,
        "SCHEMA_VERSION",
        "ALTER TABLE snapshots ADD COLUMN n_gpus INTEGER",
        "UPDATE snapshots SET n_gpus = 2",
    )


@pytest.fixture
def results_v2(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A later results schema, test-only: version 2 adds ``runs.note``."""
    sql = "ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''"
    return _later_schema(monkeypatch, results, "DB_SCHEMA_VERSION", sql)


@pytest.fixture
def query_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every new SQLite connection refuses writes, as a file without write permission does
    (the tests run as root here, where chmod does not stop a write)."""
    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        con = real(*args, **kwargs)  # type: ignore[call-overload]
        con.execute("PRAGMA query_only = ON")
        return con

    monkeypatch.setattr(sqlite3, "connect", connect)


# --- the kept files ---------------------------------------------------------------------------


def test_a_file_of_the_current_version_is_kept() -> None:
    assert DATA / f"session-v{store.SCHEMA_VERSION}.gpuprof" in _kept("session-v*.gpuprof")
    assert DATA / f"results-v{results.DB_SCHEMA_VERSION}.sqlite" in _kept("results-v*.sqlite")


@pytest.mark.parametrize("kept", _kept("session-v*.gpuprof"), ids=lambda p: p.name)
def test_every_kept_recording_opens_with_its_content(kept: Path, tmp_path: Path) -> None:
    path = _copy(kept, tmp_path)
    before = _digest(path)
    with SessionStore.open(path) as st:
        assert st.file_schema_version == _version_of(kept)
        assert st.schema_version == store.SCHEMA_VERSION
        assert st.source_kind is SourceKind.SIMULATED
        assert st.meta == {"note": SESSION_NOTE}
        assert [d.name for d in st.devices()] == ["NVIDIA GeForce RTX 4090"] * 2
        assert st.topology().gpu_indices == (0, 1)
        snaps = list(st.snapshots())
        assert st.time_range() == (SESSION_TIMES[0], SESSION_TIMES[-1])
        assert st.snapshot_at(SESSION_TIMES[1] + 0.5) == snaps[1]
    assert [s.time_s for s in snaps] == list(SESSION_TIMES)
    for snap in snaps:
        assert snap.source is SourceKind.SIMULATED
        assert [g.index for g in snap.gpus] == [0, 1]
        assert all(g.power_w is not None and g.power_w > 0 for g in snap.gpus)
        assert snap.host.cpu_pct is not None
    assert _digest(path) == before  # opening never writes to the recording


@pytest.mark.parametrize("kept", _kept("results-v*.sqlite"), ids=lambda p: p.name)
def test_every_kept_results_db_opens_with_its_content(kept: Path, tmp_path: Path) -> None:
    path = _copy(kept, tmp_path)
    db = ResultsDB(path)
    assert _user_version(path) == results.DB_SCHEMA_VERSION
    [summary] = db.list_runs()
    assert (summary.run_id, summary.suite, summary.device, summary.state) == (
        RESULTS_RUN_ID,
        "quick",
        "cpu",
        "success",
    )
    assert summary.device_name == RESULTS_CPU
    run = db.load("latest")
    assert run.state is RunState.SUCCESS and run.environment.cpu_model == RESULTS_CPU
    memory = [r for r in run.results if r.bench == "memory"]
    assert memory and all(isinstance(r, MemoryResult) and r.ok for r in memory)
    assert all(r.verified and r.bandwidth_bytes_s > 0 for r in memory)  # type: ignore[attr-defined]
    assert [r.status for r in run.results if r.bench == "p2p"] == ["skipped: needs 2 CUDA devices"]
    assert (summary.n_results, summary.n_ok) == (len(run.results), len(memory))
    same = db.compare(RESULTS_RUN_ID, "latest")
    assert [c.ratio for c in same if c.a is not None] == [1.0] * len(memory)


# --- recordings: the migration machinery ------------------------------------------------------


def test_an_old_recording_migrates_in_a_copy_and_the_file_is_untouched(
    session_v2: list[int], tmp_path: Path
) -> None:
    path = _copy(DATA / "session-v1.gpuprof", tmp_path)
    path.chmod(0o444)
    before = _digest(path)
    with SessionStore.open(path) as st:
        assert (st.file_schema_version, st.schema_version) == (1, 2)
        assert st._query("SELECT DISTINCT n_gpus FROM snapshots") == [(2,)]
        assert [s.time_s for s in st.snapshots()] == list(SESSION_TIMES)
    assert session_v2 == [1]
    assert _digest(path) == before and _user_version(path) == 1


def test_a_new_recording_is_made_by_the_same_steps(session_v2: list[int], tmp_path: Path) -> None:
    path = tmp_path / "new.gpuprof"
    write_session_fixture(path)
    assert session_v2 == [1] and _user_version(path) == 2
    with SessionStore.open(path) as st:
        assert st.file_schema_version == 2 and st.count() == len(SESSION_TIMES)
    assert session_v2 == [1]  # a current file is not migrated again


def test_a_failing_recording_migration_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def step(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE nowhere ADD COLUMN x")

    monkeypatch.setattr(store, "SCHEMA_VERSION", store.SCHEMA_VERSION + 1)
    path = _copy(DATA / "session-v1.gpuprof", tmp_path)
    with pytest.raises(InputError, match=r"no migration step from version 1 to 2") as missing:
        SessionStore.open(path)
    monkeypatch.setitem(store._MIGRATIONS, 1, step)
    with pytest.raises(InputError) as failing:
        SessionStore.open(path)
    for err in (missing, failing):
        assert str(err.value).startswith(f"{path}: cannot migrate session schema version 1 to 2")
        assert "\n" not in str(err.value)
    assert "no such table: nowhere" in str(failing.value)


def test_a_newer_recording_is_refused_naming_the_file_and_both_versions(tmp_path: Path) -> None:
    path = _copy(DATA / f"session-v{store.SCHEMA_VERSION}.gpuprof", tmp_path)
    newer = store.SCHEMA_VERSION + 1
    _set_user_version(path, newer)
    with pytest.raises(InputError) as err:
        SessionStore.open(path)
    assert str(err.value) == (
        f"{path}: session schema version {newer} is newer than this gpuprof reads "
        f"(version {store.SCHEMA_VERSION}); open it with a newer gpuprof"
    )
    assert _user_version(path) == newer


# --- the results database: the migration machinery --------------------------------------------


def test_an_old_results_db_migrates_in_place_once(results_v2: list[int], tmp_path: Path) -> None:
    path = _copy(DATA / "results-v1.sqlite", tmp_path)
    ResultsDB(path)
    assert results_v2 == [1] and _user_version(path) == 2
    assert query(path, "SELECT run_id, note FROM runs") == [(RESULTS_RUN_ID, "")]
    assert ResultsDB(path).load("latest").run_id == RESULTS_RUN_ID
    assert results_v2 == [1]


def test_a_new_results_db_is_made_by_the_same_steps(results_v2: list[int], tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    ResultsDB(path)
    assert results_v2 == [1] and _user_version(path) == 2
    assert "note" in {row[1] for row in query(path, "PRAGMA table_info(runs)")}


def test_a_failing_results_migration_leaves_the_file_as_it_was(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def step(con: sqlite3.Connection) -> None:
        con.execute("ALTER TABLE runs ADD COLUMN half_done TEXT")
        con.execute("INSERT INTO nowhere VALUES (1)")

    monkeypatch.setattr(results, "DB_SCHEMA_VERSION", results.DB_SCHEMA_VERSION + 1)
    monkeypatch.setitem(results._MIGRATIONS, 1, step)
    path = _copy(DATA / "results-v1.sqlite", tmp_path)
    before = _digest(path)
    with pytest.raises(InputError) as err:
        ResultsDB(path)
    message = str(err.value)
    assert message.startswith(
        f"{path}: cannot upgrade the results database from schema version 1 to 2"
    )
    assert "no such table: nowhere" in message and "\n" not in message
    assert _digest(path) == before  # the transaction took the half-done step back


def test_a_newer_results_db_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = _copy(DATA / f"results-v{results.DB_SCHEMA_VERSION}.sqlite", tmp_path)
    newer = results.DB_SCHEMA_VERSION + 1
    _set_user_version(path, newer)
    before = _digest(path)
    with pytest.raises(InputError) as err:
        ResultsDB(path)
    assert str(err.value) == (
        f"{path}: results database schema version {newer} is newer than this gpuprof reads "
        f"(version {results.DB_SCHEMA_VERSION}); open it with a newer gpuprof"
    )
    assert _digest(path) == before


@pytest.mark.usefixtures("query_only")
def test_a_read_only_results_db_reads_and_an_old_one_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = _copy(DATA / f"results-v{results.DB_SCHEMA_VERSION}.sqlite", tmp_path)
    assert [r.run_id for r in ResultsDB(path).list_runs()] == [RESULTS_RUN_ID]
    monkeypatch.setattr(results, "DB_SCHEMA_VERSION", results.DB_SCHEMA_VERSION + 1)
    monkeypatch.setitem(results._MIGRATIONS, 1, lambda con: None)
    with pytest.raises(InputError, match=r"from schema version 1 to 2 \(.*readonly database\)$"):
        ResultsDB(path)
    assert _user_version(path) == 1


def test_other_files_are_not_taken_for_a_results_db(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all, " * 100)
    with pytest.raises(InputError, match=r"garbage\.sqlite: not a gpuprof results database"):
        ResultsDB(garbage)
    other = tmp_path / "other.sqlite"
    execute(other, "CREATE TABLE t(x)")
    with pytest.raises(InputError, match=r"other\.sqlite: not a gpuprof results database"):
        ResultsDB(other)
    assert [r[0] for r in query(other, "SELECT name FROM sqlite_master")] == ["t"]


if __name__ == "__main__":
    # Write the current version's kept files (after a schema change): python -m tests.test_migrations
    targets = (
        (DATA / f"session-v{store.SCHEMA_VERSION}.gpuprof", write_session_fixture),
        (DATA / f"results-v{results.DB_SCHEMA_VERSION}.sqlite", write_results_fixture),
    )
    for target, write in targets:
        if target.exists():
            sys.exit(f"{target}: exists; a kept file is never rewritten")
        write(target)
        print(f"wrote {target} ({target.stat().st_size} bytes)")
