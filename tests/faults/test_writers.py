"""Every writer against a missing folder, a folder in the file's place and a full disk.

A full disk is a file-size limit (RLIMIT_FSIZE) on the child: each write past it fails with
EFBIG, as on a disk that filled up. A writer must say so in one line naming the file, exit
non-zero, and leave what stood at that path before exactly as it was, with no temporary file.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.hostile import (
    GOOD_RESULTS,
    GOOD_SESSION,
    assert_one_clear_error,
    run_gpuprof,
    start_gpuprof,
)

ROOT = Path(__file__).resolve().parents[2]
#: Smaller than every output below (the smallest, a CSV of 8 rows, is about 2.7 kB).
FULL_DISK_BYTES = 1000

#: Writers whose target the user names: name -> arguments writing to OUT.
WRITERS: dict[str, Callable[[str], list[str]]] = {
    "report html": lambda out: ["report", "--session", str(GOOD_SESSION), "--out", out + ".html"],
    "report json": lambda out: ["report", "--session", str(GOOD_SESSION), "--out", out + ".json"],
    "report pdf": lambda out: ["report", "--session", str(GOOD_SESSION), "--out", out + ".pdf"],
    "export csv": lambda out: ["export", str(GOOD_SESSION), "--csv", out + ".csv"],
    "bench json": lambda out: ["bench", "show", "latest", "--json", out + ".json"],
}
SUFFIX = {"report html": ".html", "report pdf": ".pdf", "export csv": ".csv"}


def _home(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    shutil.copyfile(GOOD_RESULTS, tmp_path / "data" / "results.sqlite")
    return tmp_path


def _target(writer: str, tmp_path: Path, stem: str = "out") -> Path:
    return tmp_path / (stem + SUFFIX.get(writer, ".json"))


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_missing_folder_is_named(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    ran = run_gpuprof(WRITERS[writer](str(home / "no-such-folder" / "out")), home)
    assert_one_clear_error(ran, "no-such-folder")


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_folder_in_the_files_place_is_refused(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    target = _target(writer, home)
    target.mkdir()
    ran = run_gpuprof(WRITERS[writer](str(home / "out")), home)
    assert_one_clear_error(ran, target.name)
    assert target.is_dir() and not any(target.iterdir())


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_full_disk_keeps_the_old_file_and_leaves_no_half_file(
    writer: str, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    target = _target(writer, home)
    target.write_text("the report from yesterday\n")
    ran = run_gpuprof(WRITERS[writer](str(home / "out")), home, file_size_limit=FULL_DISK_BYTES)
    assert_one_clear_error(ran, target.name)
    assert "File too large" in ran.stderr
    assert target.read_text() == "the report from yesterday\n"
    assert sorted(p.name for p in home.iterdir()) == sorted(["data", target.name])


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_with_room_the_writers_write(writer: str, tmp_path: Path) -> None:
    """The faults above fail for the fault: the same commands succeed with room to write."""
    home = _home(tmp_path)
    ran = run_gpuprof(WRITERS[writer](str(home / "out")), home)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert _target(writer, home).stat().st_size > FULL_DISK_BYTES


def test_catalog_import_on_a_full_disk_names_the_overlay(tmp_path: Path) -> None:
    """The overlay file is written into the data folder; a full disk leaves no overlay."""
    home = _home(tmp_path)
    source = ROOT / "resources" / "cloud_instances.csv"
    ran = run_gpuprof(["catalog", "import", str(source)], home, file_size_limit=FULL_DISK_BYTES)
    assert_one_clear_error(ran, "cloud_instances.csv")
    overlays = home / "data" / "catalog"
    assert not overlays.exists() or not any(overlays.iterdir())


@pytest.mark.slow
def test_recording_on_a_full_disk_stops_once_and_keeps_what_was_saved(tmp_path: Path) -> None:
    out = tmp_path / "full.gpuprof"
    ran = run_gpuprof(
        ["record", "--demo", "--duration", "8", "--interval", "0.1", "--out", str(out)],
        tmp_path,
        file_size_limit=160_000,
    )
    assert ran.returncode == 1, ran.stderr[-2000:]  # never exit 0 after losing samples
    assert "Traceback" not in ran.stderr
    errors = [line for line in ran.error_lines if "error" in line.lower()]
    assert len(errors) == 1 and out.name in ran.stderr  # one message, not one per sample
    assert "stopped" in ran.stderr and "were saved" in ran.stderr
    replay = run_gpuprof(["replay", "--json", str(out)], tmp_path)
    assert replay.returncode == 0, replay.stderr
    saved = len(replay.stdout.splitlines())
    assert saved > 0 and f"{saved} samples" in ran.stderr.replace("\n", " ")


def test_atomic_open_keeps_the_target_when_the_block_or_the_disk_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.errors import OutputError
    from gpuprof.fileio import atomic_open, write_atomic

    target = tmp_path / "report.html"
    write_atomic(target, "old")
    with pytest.raises(RuntimeError), atomic_open(target) as fh:
        fh.write("half of a new")
        raise RuntimeError("the renderer broke")
    assert target.read_text() == "old"

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match=r"report\.html: No space left on device"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


@pytest.mark.slow
def test_concurrent_recorders_do_not_damage_each_other(tmp_path: Path) -> None:
    """`record --force` onto a file another recorder is writing refuses, naming its pid."""
    import subprocess
    import time

    out = tmp_path / "live.gpuprof"
    first = start_gpuprof(
        ["record", "--demo", "--interval", "0.2", "--out", str(out)],
        tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        second = run_gpuprof(
            ["record", "--demo", "--duration", "1", "--out", str(out), "--force"], tmp_path
        )
        assert_one_clear_error(second, out.name)
        assert f"pid {first.pid}" in second.stderr
    finally:
        first.terminate()
        first.communicate(timeout=30)
    assert first.returncode == 0
    conn = sqlite3.connect(out)
    try:
        assert conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] >= 5
    finally:
        conn.close()


def test_system_text_that_is_not_utf8_is_recorded_and_replayed(tmp_path: Path) -> None:
    """psutil gives a Latin-1 command line as lone surrogates ('caf\\udce9'): the sample is
    stored losslessly, and `replay --json` prints it as valid JSON."""
    import json

    from gpuprof.telemetry.model import HostSample, ProcessSample, Snapshot, SourceKind
    from gpuprof.telemetry.store import SessionStore

    odd = "python caf\udce9.py --token=s\udcffcret"
    out = tmp_path / "latin1.gpuprof"
    with SessionStore.create(out) as store:
        store.append(
            Snapshot(
                time_s=1.7e9,
                source=SourceKind.NVML,
                host=HostSample(),
                processes=(ProcessSample(pid=7, gpu_index=0, name="caf\udce9", cmdline=odd),),
            )
        )
    with SessionStore.open(out) as store:
        (snap,) = store.snapshots()
    assert snap.processes[0].cmdline == odd and snap.processes[0].name == "caf\udce9"
    ran = run_gpuprof(["replay", "--json", str(out)], tmp_path)
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)
    assert printed["processes"][0]["name"] == "caf\udce9"
