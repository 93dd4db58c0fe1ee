"""An output path that is not a regular file is never replaced by one.

An atomic write (temporary file + rename) replaces whatever the path was: run as root,
``export --csv /dev/null`` turned the system's /dev/null into a regular file. Every writer now
writes through to a character device or a FIFO, follows a symbolic link to its file (the link
stays a link), refuses a folder in one line (exit 2), and keeps the atomic replace for regular
files. Recordings (SQLite) cannot be written through: a device or a FIFO is refused in one line.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.faults.hostile import (
    GOOD_RESULTS,
    GOOD_SESSION,
    TIMEOUT_S,
    Ran,
    assert_one_clear_error,
    profile_argv,
    python_job,
    run_gpuprof,
)

COMPARE = Path(__file__).resolve().parents[1] / "data" / "compare"
A_JOB = python_job("pass")

#: Writers of a file the user names: name -> (file suffix, arguments writing to OUT, check of
#: what was written).
WRITERS: dict[str, tuple[str, Callable[[Path, str], list[str]], Callable[[bytes], None]]] = {
    "export --csv": (
        ".csv",
        lambda home, out: ["export", str(GOOD_SESSION), "--csv", out],
        lambda data: _assert_csv(data, rows=8),
    ),
    "compare --json": (
        ".json",
        lambda home, out: [
            "compare",
            str(COMPARE / "node-a.json"),
            str(COMPARE / "node-d.json"),
            "--json",
            out,
        ],
        lambda data: _assert_json(data, "machines"),
    ),
    "compare --html": (
        ".html",
        lambda home, out: [
            "compare",
            str(COMPARE / "node-a.json"),
            str(COMPARE / "node-d.json"),
            "--html",
            out,
        ],
        lambda data: _assert_html(data),
    ),
    "profile --json": (
        ".json",
        lambda home, out: profile_argv(
            "--demo", "--out", str(home / "job.gpuprof"), "--json", out, job=A_JOB
        ),
        lambda data: _assert_json(data, "command"),
    ),
    "report --out (html)": (
        ".html",
        lambda home, out: ["report", "--session", str(GOOD_SESSION), "--out", out],
        lambda data: _assert_html(data),
    ),
    "bench show --json": (
        ".json",
        lambda home, out: ["bench", "show", "latest", "--json", out],
        lambda data: _assert_json(data, "cases"),
    ),
}


def _assert_csv(data: bytes, *, rows: int) -> None:
    lines = data.decode().splitlines()
    assert lines[0].startswith("time_s,time_utc,source,gpu_index")
    assert len(lines) == 1 + rows


def _assert_json(data: bytes, key: str) -> None:
    doc = json.loads(data)
    assert isinstance(doc, dict) and key in doc, sorted(doc)[:20]


def _assert_html(data: bytes) -> None:
    assert data.lstrip().lower().startswith(b"<!doctype html")


def _home(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    shutil.copyfile(GOOD_RESULTS, tmp_path / "data" / "results.sqlite")
    return tmp_path


def _run(writer: str, home: Path, out: Path) -> Ran:
    return run_gpuprof(WRITERS[writer][1](home, str(out)), home)


def _assert_wrote(writer: str, ran: Ran) -> None:
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    assert ran.returncode == 0, (ran.returncode, ran.stderr[-2000:])
    assert "error" not in ran.stderr.lower(), ran.stderr[-2000:]


def _char_device(path: Path, minor: int) -> None:
    """A private node of the memory driver: 3 is what /dev/null is, 7 what /dev/full is."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    except OSError as e:
        if e.errno in (errno.EPERM, errno.EACCES):
            pytest.skip(f"making a device node is not permitted here: {e.strerror}")
        raise


def _assert_same_device(path: Path, minor: int) -> None:
    st = os.lstat(path)
    assert stat.S_ISCHR(st.st_mode), oct(st.st_mode)
    assert st.st_rdev == os.makedev(1, minor)


@contextmanager
def _fifo_reader(path: Path) -> Iterator[list[bytes]]:
    """A FIFO at ``path`` and a thread reading everything written to it; the list holds what it
    read once the block ends."""
    os.mkfifo(path)
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fh:  # blocks until a writer opens the FIFO
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield got
    finally:
        if not got:
            # Nobody opened it for writing: unblock the reader with an empty write end.
            with suppress(OSError):
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(TIMEOUT_S)
        assert not reader.is_alive()


# -- writers through fileio, end to end ---------------------------------------------------------


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_fifo_is_written_through_and_stays_a_fifo(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    fifo = home / ("pipe" + WRITERS[writer][0])
    with _fifo_reader(fifo) as got:
        ran = _run(writer, home, fifo)
    _assert_wrote(writer, ran)
    assert got and got[0], "the reader got nothing"
    WRITERS[writer][2](got[0])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not [p for p in home.iterdir() if p.name.startswith(".")]  # no temporary file left


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_device_node_is_written_through_and_stays_a_device(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    null = home / ("null" + WRITERS[writer][0])
    _char_device(null, 3)
    ran = _run(writer, home, null)
    _assert_wrote(writer, ran)
    _assert_same_device(null, 3)
    assert not [p for p in home.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("writer", ["export --csv", "compare --json", "profile --json"])
def test_a_full_device_is_one_error_and_stays_a_device(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    full = home / ("full" + WRITERS[writer][0])
    _char_device(full, 7)
    ran = _run(writer, home, full)
    assert_one_clear_error(ran, full.name)
    assert "No space left on device" in ran.stderr
    _assert_same_device(full, 7)


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.slow
def test_a_symlink_stays_a_link_and_its_file_gets_the_output(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    elsewhere = home / "elsewhere"
    elsewhere.mkdir()
    suffix = WRITERS[writer][0]
    real = elsewhere / ("real" + suffix)
    real.write_text("yesterday's output\n")
    link = home / ("link" + suffix)
    link.symlink_to(Path("elsewhere") / real.name)  # relative, as ln -s makes them
    ran = _run(writer, home, link)
    _assert_wrote(writer, ran)
    assert link.is_symlink() and os.readlink(link) == str(Path("elsewhere") / real.name)
    WRITERS[writer][2](real.read_bytes())
    assert sorted(p.name for p in elsewhere.iterdir()) == [real.name]  # no temporary file


@pytest.mark.parametrize("writer", ["export --csv", "compare --html"])
def test_a_replaced_file_keeps_its_permissions(writer: str, tmp_path: Path) -> None:
    """``> FILE`` keeps FILE's mode; the atomic replace gave every output 0666 & ~umask, so a
    report kept private (``chmod 600``) became readable by everyone. Through a link too."""
    home = _home(tmp_path)
    suffix = WRITERS[writer][0]
    private = home / ("private" + suffix)
    private.write_text("yesterday's output\n")
    private.chmod(0o600)
    ran = _run(writer, home, private)
    _assert_wrote(writer, ran)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    shared = home / ("shared" + suffix)
    shared.write_text("yesterday's output\n")
    shared.chmod(0o640)
    link = home / ("link" + suffix)
    link.symlink_to(shared.name)
    _assert_wrote(writer, _run(writer, home, link))
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640
    WRITERS[writer][2](shared.read_bytes())


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    home = _home(tmp_path)
    out = home / "new.csv"
    mask = os.umask(0o027)
    try:
        _assert_wrote("export --csv", _run("export --csv", home, out))
    finally:
        os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_link_to_nothing_gets_its_file_made(tmp_path: Path) -> None:
    home = _home(tmp_path)
    link = home / "new.csv"
    link.symlink_to("made.csv")
    ran = _run("export --csv", home, link)
    _assert_wrote("export --csv", ran)
    assert link.is_symlink()
    _assert_csv((home / "made.csv").read_bytes(), rows=8)


@pytest.mark.parametrize("writer", ["export --csv", "compare --json", "profile --json"])
def test_a_folder_is_refused_in_one_line(writer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    for target in (home / ("folder" + WRITERS[writer][0]), home / "link-to-folder"):
        if target.name == "link-to-folder":
            target.symlink_to(home / ("folder" + WRITERS[writer][0]))
        else:
            target.mkdir()
        ran = _run(writer, home, target)
        assert_one_clear_error(ran, target.name)
        assert not any((home / ("folder" + WRITERS[writer][0])).iterdir())


def test_a_block_device_or_a_socket_is_refused(tmp_path: Path) -> None:
    from gpuprof.errors import OutputError
    from gpuprof.fileio import write_atomic

    sock_path = tmp_path / "s.csv"
    import socket

    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(OutputError, match=r"s\.csv: not a regular file"):
            write_atomic(sock_path, "x\n")
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    block = tmp_path / "loop.csv"
    try:
        os.mknod(block, stat.S_IFBLK | 0o600, os.makedev(7, 200))
    except OSError:
        return  # no CAP_MKNOD: the socket above covered the refusal
    with pytest.raises(OutputError, match=r"loop\.csv: not a regular file"):
        write_atomic(block, "x\n")
    assert stat.S_ISBLK(os.lstat(block).st_mode)


def test_dev_stdout_appends_where_the_shell_appends(tmp_path: Path) -> None:
    """``--csv /dev/stdout >> log``: the rows go through gpuprof's own descriptor (as a shell's
    ``> /dev/stdout`` does), after what the log held; a rename would have replaced the log."""
    log = tmp_path / "log.csv"
    log.write_text("earlier lines\n")
    env = dict(os.environ, GPUPROF_DATA_DIR=str(tmp_path / "data"), GPUPROF_LANG="en")
    with log.open("a") as out:
        done = subprocess.run(
            [sys.executable, "-m", "gpuprof", "export", str(GOOD_SESSION), "--csv", "/dev/stdout"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=TIMEOUT_S,
        )
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("earlier lines\ntime_s,")
    assert len(text.splitlines()) == 1 + 1 + 8


# -- recordings (SQLite cannot be written through) ----------------------------------------------


#: Writers of a recording: name -> arguments writing to OUT, with FLAGS (--force) where the
#: command's own options go.
RECORDERS: dict[str, Callable[[Path, Path, list[str]], list[str]]] = {
    "record": lambda home, out, flags: [
        "record",
        *flags,
        "--demo",
        "--duration",
        "0.3",
        "--interval",
        "0.1",
        "--out",
        str(out),
    ],
    "profile --out": lambda home, out, flags: profile_argv(
        *flags, "--demo", "--out", str(out), job=python_job(f"open({str(home / 'job-ran')!r}, 'w')")
    ),
    "recover --out": lambda home, out, flags: [
        "recover",
        *flags,
        str(GOOD_SESSION),
        "--out",
        str(out),
    ],
}


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("recorder", list(RECORDERS))
@pytest.mark.slow
def test_a_recording_onto_a_device_or_fifo_is_refused(
    recorder: str, force: bool, tmp_path: Path
) -> None:
    home = _home(tmp_path)
    fifo = home / "pipe.gpuprof"
    os.mkfifo(fifo)
    null = home / "null.gpuprof"
    _char_device(null, 3)
    for target in (fifo, null):
        ran = run_gpuprof(RECORDERS[recorder](home, target, ["--force"] if force else []), home)
        assert_one_clear_error(ran, target.name)
        assert "not a regular file" in ran.stderr
        assert "--force" not in ran.stderr  # no advice to overwrite /dev/null
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    _assert_same_device(null, 3)
    assert not (home / "job-ran").exists()  # refused before the job started
    assert sorted(p.name for p in home.iterdir()) == sorted(["data", fifo.name, null.name])


@pytest.mark.parametrize("recorder", list(RECORDERS))
@pytest.mark.slow
def test_a_recording_onto_a_symlink_keeps_the_link(recorder: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / "elsewhere").mkdir()
    real = home / "elsewhere" / "real.gpuprof"
    link = home / "link.gpuprof"
    link.symlink_to(real)
    for flags in ([], ["--force"]):  # a new file through the link, then one replaced
        ran = run_gpuprof(RECORDERS[recorder](home, link, flags), home)
        assert "Traceback" not in ran.stderr and ran.returncode == 0, ran.stderr[-2000:]
        assert link.is_symlink() and os.readlink(link) == str(real)
        conn = sqlite3.connect(real)
        try:
            assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] > 0
        finally:
            conn.close()
        assert sorted(p.name for p in (home / "elsewhere").iterdir()) == ["real.gpuprof"]
    assert sorted(p.name for p in home.iterdir()) == sorted(
        ["data", "elsewhere", "link.gpuprof", *(["job-ran"] if "profile" in recorder else [])]
    )
