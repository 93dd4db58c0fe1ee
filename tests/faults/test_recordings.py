"""Hostile recordings: what a session file may hold that no gpuprof wrote, and what a killed
recorder leaves behind.

Every reader of a recording (``replay``, ``export``, ``report --session``, the app's
``--replay``, ``recover``) goes through :class:`~gpuprof.telemetry.store.SessionStore.open`,
so each fault here is met once, at the root, and every reader inherits the answer:

- a file that cannot be played at all (a FIFO, a device, every record corrupt, no valid time)
  is refused with one line naming the file, exit 2, no hang and nothing written;
- a file with some damage plays what it can: the damaged records are skipped with one warning
  naming the file and the record, exit 0;
- a recording whose recorder was killed says so and is read as far as it goes, with or without
  its ``-wal``, and ``gpuprof recover`` writes a clean closed copy.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.telemetry.replay import ReplaySource
from gpuprof.telemetry.store import SessionStore
from gpuprof.telemetry.store.read import MAX_TIME_S
from tests.faults.hostile import (
    GOOD_SESSION,
    TIMEOUT_S,
    assert_one_clear_error,
    run_gpuprof,
    start_gpuprof,
)

GOOD_ROWS = 4  # snapshots in GOOD_SESSION, ids 1..4, one second apart

Change = Callable[[sqlite3.Connection], None]


def _sql(*statements: str) -> Change:
    def change(conn: sqlite3.Connection) -> None:
        for s in statements:
            conn.execute(s)

    return change


def _row_data(row_id: int, data: bytes) -> Change:
    return lambda conn: conn.execute("UPDATE snapshots SET data=? WHERE id=?", (data, row_id))


def _row_time(row_id: int, t: float) -> Change:
    """The time of a record, in the indexed column and in its JSON alike."""

    def change(conn: sqlite3.Connection) -> None:
        (blob,) = conn.execute("SELECT data FROM snapshots WHERE id=?", (row_id,)).fetchone()
        data = json.loads(zlib.decompress(blob))
        data["time_s"] = t
        packed = zlib.compress(json.dumps(data).encode())
        conn.execute("UPDATE snapshots SET time_s=?, data=? WHERE id=?", (t, packed, row_id))

    return change


def _nullable_times(conn: sqlite3.Connection) -> None:
    """Another writer's schema: no NOT NULL on time_s, so NaN (stored as NULL) and text get in."""
    conn.executescript(
        "CREATE TABLE s2 (id INTEGER PRIMARY KEY, time_s REAL, data BLOB NOT NULL);"
        "INSERT INTO s2 SELECT * FROM snapshots; DROP TABLE snapshots;"
        "ALTER TABLE s2 RENAME TO snapshots; CREATE INDEX snapshots_time ON snapshots(time_s);"
    )
    _row_time(2, math.nan)(conn)
    conn.execute("UPDATE snapshots SET time_s='yesterday' WHERE id=3")


def _backwards(conn: sqlite3.Connection) -> None:
    """Later records earlier (a clock stepped back): readers still see time go forward."""
    for row_id, t in conn.execute("SELECT id, time_s FROM snapshots").fetchall():
        _row_time(row_id, 3_400_000_003.0 - t)(conn)


def _meta(key: str, value: object) -> Change:
    text = value if isinstance(value, str) and value.startswith("\0") else json.dumps(value)
    return lambda conn: conn.execute("UPDATE meta SET value=? WHERE key=?", (text, key))


DEEP = zlib.compress(b"[" * 200_000 + b"]" * 200_000)
#: ~400 KiB that inflates to 400 MiB of spaces.
BOMB = zlib.compress(b" " * (400 << 20), 9)

#: Faults a reader plays through: name -> (change, snapshots left, what the warning names).
TOLERATED: dict[str, tuple[Change, int, str]] = {
    "time-1e300": (_row_time(4, 1e300), 3, "impossible time"),
    "time-infinite": (_sql("UPDATE snapshots SET time_s=9e999 WHERE id=4"), 3, "impossible time"),
    "time-negative": (_row_time(1, -1e300), 3, "impossible time"),
    "time-nan-and-text": (_nullable_times, 2, "impossible time"),
    "time-backwards": (_backwards, 4, ""),
    "time-years-later": (_row_time(4, 4.0e9), 4, ""),
    "deep-json": (_row_data(2, DEEP), 3, "record 2: JSON nested too deeply"),
    "compression-bomb": (_row_data(2, BOMB), 3, "record 2: inflates to more than 8 MiB"),
    "not-zlib": (_row_data(3, b"\x00garbage"), 3, "record 3: not zlib data"),
    "ill-typed-snapshot": (
        _row_data(2, zlib.compress(b'{"time_s": 1700000001.0, "source": "nvml", "host": []}')),
        3,
        "record 2: not a snapshot",
    ),
    "label-a-number": (_meta("label", 12345), 4, "'label' is not text"),
    "label-huge": (_meta("label", "x" * (5 << 20)), 4, "'label' is 5242882 bytes"),
    "source-kind-a-list": (_meta("source_kind", [1, 2]), 4, "'source_kind'"),
    "meta-a-list": (_meta("meta", [1, 2]), 4, "'meta' is not an object"),
    "system-info-ill-typed": (_meta("system_info", {"hostname": [1]}), 4, "'system_info'"),
    "devices-a-string": (_meta("devices", "GPU 0"), 4, "'devices' is malformed"),
    "topology-nested-deep": (
        lambda c: c.execute(
            "UPDATE meta SET value=? WHERE key='topology'", ("[" * 100_000 + "]" * 100_000,)
        ),
        4,
        "'topology' is not JSON",
    ),
    "created-a-word": (_meta("created_s", "yesterday"), 4, "'created_s' is not a time"),
}

#: Faults no reader can play: name -> (change, what the one error line says).
REFUSED: dict[str, tuple[Change, str]] = {
    "all-records-corrupt": (
        _sql("UPDATE snapshots SET data=x'00112233'"),
        "no readable snapshots: all 4 records are corrupt (record 1: not zlib data",
    ),
    "all-times-impossible": (
        _sql("UPDATE snapshots SET time_s=1e300"),
        "no snapshot has a valid time (4 records)",
    ),
}


def make(folder: Path, name: str, change: Change) -> Path:
    """GOOD_SESSION changed by ``change``, as one self-contained file ``folder/name.gpuprof``."""
    path = folder / f"{name}.gpuprof"
    shutil.copyfile(GOOD_SESSION, path)
    conn = sqlite3.connect(path)
    change(conn)
    conn.commit()
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("recordings")
    faults = {n: c for n, (c, *_) in TOLERATED.items()} | {n: c for n, (c, _) in REFUSED.items()}
    return {name: make(folder, name, change) for name, change in faults.items()}


# -- every reader, through the command line ---------------------------------------------------

READERS: dict[str, Callable[[str], list[str]]] = {
    "replay": lambda f: ["replay", "--json", f],
    "export": lambda f: ["export", f, "--csv", "-"],
    "report --session": lambda f: ["report", "--session", f, "--out", "r.html"],
}


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("fault", list(TOLERATED))
@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.slow
def test_readers_play_what_a_damaged_recording_holds_and_say_what_was_left_out(
    reader: str, fault: str, files: dict[str, Path], tmp_path: Path
) -> None:
    path = files[fault]
    _, left, says = TOLERATED[fault]
    ran = run_gpuprof(READERS[reader](str(path)), tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    notes = [line for line in _warnings(ran.stderr) if path.name in line]
    if says:
        assert len(notes) == 1 and says in notes[0], ran.stderr[-2000:]  # once, even if read twice
    else:
        assert notes == [], ran.stderr[-2000:]
    if reader == "replay":
        times = [json.loads(line)["time_s"] for line in ran.stdout.splitlines()]
        assert len(times) == left
        assert times == sorted(times) and all(0 <= t <= MAX_TIME_S for t in times)
    elif reader == "export":
        rows = ran.stdout.splitlines()[1:]
        assert len(rows) == left * 2  # two GPUs per snapshot
    else:
        assert (tmp_path / "r.html").stat().st_size > 1000


@pytest.mark.parametrize("fault", list(TOLERATED))
@pytest.mark.slow
def test_export_counts_the_samples_it_wrote(
    fault: str, files: dict[str, Path], tmp_path: Path
) -> None:
    """The count export prints is what the CSV holds: it said "wrote 4 samples" (the records
    in the store) when an unreadable one had been skipped."""
    _, left, _ = TOLERATED[fault]
    out = tmp_path / "out.csv"
    ran = run_gpuprof(["export", str(files[fault]), "--csv", str(out)], tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert f"wrote {left} samples ({left * 2} rows, one per GPU)" in ran.stderr, ran.stderr
    assert len(out.read_text().splitlines()) == 1 + left * 2


@pytest.mark.parametrize("fault", list(REFUSED))
@pytest.mark.parametrize(
    "reader",
    [*READERS, "app --replay", "recover"],
)
@pytest.mark.slow
def test_readers_refuse_a_recording_with_nothing_to_play_in_one_line(
    reader: str, fault: str, files: dict[str, Path], tmp_path: Path
) -> None:
    path = files[fault]
    args = {
        **READERS,
        "app --replay": lambda f: ["--replay", f, "--screenshot", "s.png", "--after", "0"],
        "recover": lambda f: ["recover", f, "--out", "copy.gpuprof"],
    }[reader](str(path))
    started = time.monotonic()
    ran = run_gpuprof(args, tmp_path)
    assert_one_clear_error(ran, path.name)
    assert REFUSED[fault][1] in ran.stderr
    # No warning about the file besides the error (the records it skipped, say).
    assert len([line for line in _warnings(ran.stderr) if path.name in line]) == 1, ran.stderr
    assert not [p for p in tmp_path.iterdir() if p.name != "data" and p.name != "config"]
    if reader == "app --replay":  # failed fast: not after waiting for data that never comes
        assert time.monotonic() - started < 15


@pytest.mark.slow
def test_the_app_replays_a_recording_whose_first_record_is_damaged(tmp_path: Path) -> None:
    path = make(tmp_path, "first-record-bomb", _row_data(1, BOMB))
    ran = run_gpuprof(["--replay", str(path), "--screenshot", "s.png", "--after", "0"], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert "no data arrived" not in ran.stderr  # it plays from the first record it can read
    assert (tmp_path / "s.png").stat().st_size > 10_000


# -- the bomb, the times and the metadata, in the store itself --------------------------------


def test_a_compression_bomb_costs_a_bounded_amount_of_memory(files: dict[str, Path]) -> None:
    tracemalloc.start()
    try:
        with SessionStore.open(files["compression-bomb"]) as store:
            got = list(store.snapshots())
            assert store.skipped_rows == 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(got) == GOOD_ROWS - 1
    assert peak < 64 * 2**20, peak  # the record alone would inflate to 400 MiB


@pytest.mark.parametrize("fault", ["time-1e300", "time-years-later", "time-infinite"])
def test_replay_of_a_recording_with_a_wild_time_reaches_its_end(
    fault: str, files: dict[str, Path]
) -> None:
    """A record at 1e300 (or in 2096, a valid time years after the rest) must not make the
    replay last for ever: impossible times are left out, and dead air is jumped over."""
    now = [0.0]
    source = ReplaySource(files[fault], clock=lambda: now[0])
    try:
        assert math.isfinite(source.duration_s) and source.end_s <= MAX_TIME_S
        seen = []
        for _ in range(1000):  # a replay at 1x, one poll per second of the fake clock
            seen.append(source.poll().time_s)
            if source.finished:
                break
            now[0] += 1.0
        assert source.finished, (seen[-3:], source.position_s, source.duration_s)
        assert seen == sorted(seen)
    finally:
        source.close()


def test_metadata_of_the_wrong_type_falls_back_to_defaults(files: dict[str, Path]) -> None:
    with SessionStore.open(files["label-a-number"]) as store:
        assert store.label == "" and store.count() == GOOD_ROWS
    with SessionStore.open(files["source-kind-a-list"]) as store:
        assert store.source_kind.value == "none"  # never claimed to be NVML (real hardware)
    with SessionStore.open(files["system-info-ill-typed"]) as store:
        assert store.system_info().hostname == ""
    with SessionStore.open(files["label-huge"]) as store:
        assert store.label == ""


# -- what is not a recording at all: FIFOs and devices ----------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = tmp_path / "pipe.gpuprof"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("what", ["fifo", "/dev/zero", "/dev/null"])
@pytest.mark.parametrize("reader", [*READERS, "app --replay"])
@pytest.mark.slow
def test_a_fifo_or_a_device_is_refused_at_once(
    reader: str, what: str, fifo: Path, tmp_path: Path
) -> None:
    path = fifo if what == "fifo" else Path(what)
    if not path.exists():
        pytest.skip(f"{what} does not exist here")
    args = {
        **READERS,
        "app --replay": lambda f: ["--replay", f, "--screenshot", "s.png", "--after", "0"],
    }[reader](str(path))
    ran = run_gpuprof(args, tmp_path)  # a hang (opening a FIFO waits for a writer) times out
    assert_one_clear_error(ran, path.name)
    assert "not a regular file" in ran.stderr
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "s.png").exists()


def test_record_force_never_replaces_a_fifo(fifo: Path, tmp_path: Path) -> None:
    """``--force`` replaces a recording, not whatever has that name (as root, /dev/null)."""
    ran = run_gpuprof(
        ["record", "--demo", "--duration", "1", "--force", "--out", str(fifo)], tmp_path
    )
    assert_one_clear_error(ran, fifo.name)
    assert fifo.exists() and not fifo.is_file()


# -- a header that lies about the size --------------------------------------------------------


def _with(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value) :]


#: Made from the good session (5 pages of 4096 bytes), with seeded junk (the same every run).
_JUNK = random.Random(21).randbytes(3000)
_GOOD = GOOD_SESSION.read_bytes()
SIZE_LIES: dict[str, tuple[bytes, str]] = {
    # SQLite's 16-byte magic, then junk: the junk read as a page size and count claimed 58 TB.
    "magic-then-junk": (_GOOD[:16] + _JUNK, "corrupt"),
    # A real header, then junk where page 1's b-tree should be.
    "header-then-junk": (_GOOD[:100] + _JUNK, "corrupt"),
    # A consistent header claiming 2**32 - 16 pages (17.6 TB): no recording is that large.
    "huge-page-count": (_with(_GOOD, 28, (2**32 - 16).to_bytes(4, "big")), "corrupt"),
    "invalid-page-size": (_with(_GOOD, 16, (12345).to_bytes(2, "big")), "corrupt"),
    # A real recording cut short (a copy that stopped): still truncated, with both sizes.
    "cut-in-half": (_GOOD[: len(_GOOD) // 2], "truncated"),
    "cut-after-page-1": (_GOOD[: 4096 + 10], "truncated"),
}


@pytest.mark.parametrize("fault", list(SIZE_LIES))
def test_a_header_that_lies_about_the_size_is_corrupt_not_truncated(
    fault: str, tmp_path: Path
) -> None:
    data, word = SIZE_LIES[fault]
    path = tmp_path / f"{fault}.gpuprof"
    path.write_bytes(data)
    with pytest.raises(InputError) as refused:
        SessionStore.open(path)
    said = str(refused.value)
    assert said.startswith(f"{path}: {word} session file"), said
    assert "\n" not in said
    if word == "truncated":
        assert f"({len(data)} of {len(_GOOD)} bytes)" in said
    ran = run_gpuprof(["replay", "--json", str(path)], tmp_path)
    assert_one_clear_error(ran, path.name)
    assert f"{word} session file" in ran.stderr


# -- SQLite's reports of many lines -----------------------------------------------------------


@pytest.mark.slow
def test_a_corrupt_file_with_many_problems_is_one_line(tmp_path: Path) -> None:
    from gpuprof.telemetry.simulated import SimulatedSource

    good = tmp_path / "many.gpuprof"
    source = SimulatedSource()
    try:
        snap = source.poll()
        with SessionStore.create(good, source=source) as store:
            for k in range(300):
                store.append(dataclasses.replace(snap, time_s=1.7e9 + k))
    finally:
        source.close()
    data = bytearray(good.read_bytes())
    for page in (3, 5, 7):  # a b-tree page of the snapshots, damaged
        data[page * 4096 + 8 : page * 4096 + 200] = b"\x07" * 192
    bad = tmp_path / "damaged.gpuprof"
    bad.write_bytes(bytes(data))
    problems = sqlite3.connect(bad).execute("PRAGMA quick_check").fetchall()
    assert sum(len(str(r[0]).splitlines()) for r in problems) >= 10  # what SQLite says
    ran = run_gpuprof(["replay", "--json", str(bad)], tmp_path)
    assert_one_clear_error(ran, bad.name)
    assert len(_warnings(ran.stderr)) == 1 and " more)" in ran.stderr, ran.stderr


# -- kill -9 -----------------------------------------------------------------------------------


def _killed_recording(folder: Path, at_least: int) -> Path:
    """A real ``gpuprof record --demo`` killed with SIGKILL once its file alone (without the
    -wal) holds ``at_least`` samples: the recorder checkpoints every few seconds."""
    folder.mkdir()
    out = folder / "rec.gpuprof"
    child = start_gpuprof(
        ["record", "--demo", "--interval", "0.1", "--out", str(out)],
        folder.parent,
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    probe = folder.parent / "probe"
    probe.mkdir()
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            if out.exists() and out.stat().st_size > 4096:
                shutil.copyfile(out, probe / out.name)
                try:
                    with SessionStore.open(probe / out.name, warn=False) as seen:
                        if seen.count() >= at_least:
                            break
                except InputError:
                    pass  # copied in the middle of a checkpoint: look again
            time.sleep(0.2)
        else:
            pytest.fail("the recorder never checkpointed")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(TIMEOUT_S)
        shutil.rmtree(probe)
    assert Path(f"{out}-wal").exists()  # killed: not folded into the file
    return out


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _killed_recording(tmp_path_factory.mktemp("killed") / "rec", at_least=5)


def _samples(ran_stdout: str) -> int:
    return len(ran_stdout.splitlines())


@pytest.mark.slow
def test_a_killed_recording_says_so_and_plays(killed: Path, tmp_path: Path) -> None:
    ran = run_gpuprof(["replay", "--json", str(killed)], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert _samples(ran.stdout) >= 5
    assert "the recording was not closed" in ran.stderr
    assert f"gpuprof recover {killed}" in ran.stderr


@pytest.mark.slow
def test_a_killed_recording_copied_without_its_wal_plays_what_it_holds(
    killed: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(killed, alone / killed.name)
    ran = run_gpuprof(["replay", "--json", str(alone / killed.name)], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    n = _samples(ran.stdout)
    assert n >= 5  # checkpointed while recording; before, the file alone held nothing
    assert (
        "the recording was not closed" in ran.stderr and f"{n} samples are readable" in ran.stderr
    )
    assert "not a gpuprof session" not in ran.stderr
    assert sorted(p.name for p in alone.iterdir()) == [killed.name]  # no -wal/-shm left beside it


@pytest.mark.slow
def test_recover_writes_a_closed_copy_and_leaves_the_recording_alone(
    killed: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(killed.parent, folder)
    src = folder / killed.name
    before = {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith("-shm")}
    ran = run_gpuprof(["recover", str(src)], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    out = folder / "rec.recovered.gpuprof"
    assert f"to {out}" in ran.stderr
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.name in before}
    assert after == before  # read, never written
    assert out.read_bytes()[18:20] == b"\x01\x01"  # a rollback-journal file: one file, closed
    assert not Path(f"{out}-wal").exists()
    played = run_gpuprof(["replay", "--json", str(out)], tmp_path)
    assert played.returncode == 0 and _warnings(played.stderr) == [], played.stderr
    original = run_gpuprof(["replay", "--json", str(src)], tmp_path)
    assert played.stdout == original.stdout  # every sample, the same
    again = run_gpuprof(["recover", str(src)], tmp_path)
    assert_one_clear_error(again, out.name)  # exists: --force to overwrite


RECORD = ["record", "--demo", "--interval", "0.1"]


def test_recover_force_never_replaces_a_recording_in_progress(tmp_path: Path) -> None:
    """``recover --force`` onto a file a live ``gpuprof record`` writes is refused like
    ``record --force``: replacing it lost the recording while its recorder went on to report
    "saved N samples" of the copy that took its place."""
    from gpuprof.telemetry.store.files import live_writer

    out = tmp_path / "live.gpuprof"
    recorder = start_gpuprof(
        [*RECORD, "--out", str(out)],
        tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not (out.exists() and live_writer(out)):
            assert recorder.poll() is None, recorder.communicate()
            assert time.monotonic() < deadline, "the recorder never started"
            time.sleep(0.05)
        ran = run_gpuprof(["recover", "--force", str(GOOD_SESSION), "--out", str(out)], tmp_path)
        assert_one_clear_error(ran, out.name)
        assert "in use" in ran.stderr and f"pid {recorder.pid}" in ran.stderr, ran.stderr
        assert recorder.poll() is None  # still recording
    finally:
        recorder.send_signal(signal.SIGTERM)  # stops it the way Ctrl-C does: closed and saved
        _, said = recorder.communicate(timeout=TIMEOUT_S)
    assert recorder.returncode == 0, said
    with SessionStore.open(out, warn=False) as kept:
        n = kept.count()
        assert kept.state == "closed" and not kept.warnings, kept.warnings
    conn = sqlite3.connect(f"{out.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='writer_pid'").fetchone()
    finally:
        conn.close()
    assert json.loads(row[0]) == recorder.pid  # the recorder's own file, not a recovered copy
    assert n > 0 and f"saved {n} samples" in said, said
    assert not list(tmp_path.glob(".live.gpuprof.*.tmp*"))  # no temporary copy left behind


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores a read-only folder's permissions",
)
def test_a_killed_recording_in_a_read_only_folder_plays_all_it_holds(
    killed: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    for name in (killed.name, f"{killed.name}-wal"):  # no -shm, and none can be made
        shutil.copyfile(killed.parent / name, folder / name)
    full = run_gpuprof(["replay", "--json", str(killed)], tmp_path)
    folder.chmod(0o555)
    try:
        ran = run_gpuprof(["replay", "--json", str(folder / killed.name)], tmp_path)
    finally:
        folder.chmod(0o755)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert ran.stdout == full.stdout  # the -wal's samples too, not only the checkpointed ones
    assert "the recording was not closed" in ran.stderr


def test_a_recording_killed_before_its_first_checkpoint_says_what_is_missing(
    tmp_path: Path,
) -> None:
    """What an older gpuprof's killed recorder left: everything in the -wal, nothing in the
    file itself. Copied alone, it is not 'another program's database'."""
    live = tmp_path / "live.gpuprof"
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.commit()
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(live, alone / live.name)
    conn.close()
    with pytest.raises(InputError, match=r"not closed, without its live\.gpuprof-wal") as refused:
        SessionStore.open(alone / live.name)
    assert "\n" not in str(refused.value)
