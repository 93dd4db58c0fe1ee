"""Hostile inputs and a CLI runner for the fault-injection suite (tests/faults/).

Every reader of outside input and every writer is listed in the test modules' tables; a new
reader or writer gets a row and so inherits every fault here. Readers must answer each hostile
input with one line naming the file, exit 2, no traceback, no hang; writers must report a
failed write the same way (exit non-zero) and leave nothing half-written.
"""

from __future__ import annotations

import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: A recording of today's format (4 SIMULATED snapshots), kept by tests/test_migrations.py.
GOOD_SESSION = ROOT / "tests" / "data" / "session-v1.gpuprof"
GOOD_RESULTS = ROOT / "tests" / "data" / "results-v1.sqlite"
#: No run may take longer: a hang is a failure, not a slow test.
TIMEOUT_S = 60


#: The faults :func:`hostile_files` makes a file for, in its order.
FAULTS = (
    "empty",
    "truncated",
    "random-bytes",
    "non-utf8-text",
    "nul-bytes",
    "huge",
    "a-folder",
    "missing",
    "newer-version",
    "foreign-sqlite",
)
#: The faults a reader of text files meets: "newer-version" is a recording's (a schema
#: version); to a text reader it is one more foreign SQLite file.
TEXT_FAULTS = tuple(f for f in FAULTS if f != "newer-version")


def hostile_files(folder: Path, good: Path = GOOD_SESSION) -> dict[str, Path]:
    """One file per fault, made in ``folder`` from the good file ``good`` where it needs one."""
    folder.mkdir(parents=True, exist_ok=True)
    data = good.read_bytes()
    out: dict[str, Path] = {}

    def put(name: str, content: bytes) -> None:
        path = folder / name
        path.write_bytes(content)
        out[name] = path

    put("empty", b"")
    put("truncated", data[: len(data) // 2])
    put("random-bytes", os.urandom(64 * 1024))
    put("non-utf8-text", "gpu,café,naïve\n\xff\xfe\n".encode("latin-1") + b"\xc3\x28\n")
    put("nul-bytes", b"\0" * 4096)
    put("huge", b"A" * (24 << 20))  # one 24 MiB line: over the csv module's field limit
    (folder / "a-folder").mkdir(exist_ok=True)
    out["a-folder"] = folder / "a-folder"
    out["missing"] = folder / "no-such-file"
    newer = folder / "newer-version"
    shutil.copyfile(good, newer)
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version=999")
    conn.commit()
    conn.close()
    out["newer-version"] = newer
    foreign = folder / "foreign-sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE other_program(x)")
    conn.commit()
    conn.close()
    out["foreign-sqlite"] = foreign
    assert tuple(out) == FAULTS
    return out


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


#: What ``gpuprof profile`` hands its job: a test run under a profiler passes none of it on.
JOB_VARIABLES = (
    "GPUPROF_MARKERS",
    "GPUPROF_TORCH_DIR",
    "GPUPROF_TORCH_ASKED_DIR",
    "GPUPROF_TORCH_SCHEDULE",
)


def gpuprof_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a gpuprof child: data and config folders in ``home``, offscreen Qt,
    English, none of :data:`JOB_VARIABLES`, plus ``extra``."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        GPUPROF_DATA_DIR=str(home / "data"),
        GPUPROF_CONFIG_DIR=str(home / "config"),
        GPUPROF_LANG="en",
    )
    for name in JOB_VARIABLES:
        env.pop(name, None)
    return {**env, **extra}


def start_gpuprof(
    args: Sequence[str], home: Path, *, cwd: Path | None = None, **popen: Any
) -> subprocess.Popen[Any]:
    """``python -m gpuprof ARGS`` started in the background with :func:`gpuprof_env`; the
    caller waits for it (``popen``: Popen's other arguments, such as ``stderr``)."""
    return subprocess.Popen(
        [sys.executable, "-m", "gpuprof", *args], env=gpuprof_env(home), cwd=cwd or home, **popen
    )


def run_gpuprof(
    args: list[str],
    home: Path,
    *,
    file_size_limit: int | None = None,
    cwd: Path | None = None,
    timeout: float = TIMEOUT_S,
    env: dict[str, str] | None = None,
) -> Ran:
    """``python -m gpuprof ARGS`` in a child with its own data and config folders (``home``),
    offscreen Qt (:func:`gpuprof_env`, plus ``env``), and optionally a file-size limit (a disk
    that fills up: writes fail EFBIG)."""
    child_env = gpuprof_env(home, **(env or {}))

    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    done = subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        capture_output=True,
        text=True,
        errors="replace",
        env=child_env,
        cwd=cwd or home,
        timeout=timeout,
        preexec_fn=limit,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def profile_argv(*options: str, job: Sequence[str]) -> list[str]:
    """``profile --interval 0.1 OPTIONS -- JOB``: ``gpuprof profile`` of ``job`` (a command
    line), sampled every 0.1 s."""
    return ["profile", "--interval", "0.1", *options, "--", *job]


def run_profile(home: Path, job: Sequence[str], *options: str, **run: Any) -> Ran:
    """``gpuprof profile OPTIONS -- JOB`` (:func:`profile_argv`) run as :func:`run_gpuprof`
    runs a command (``run``: its keyword arguments, such as ``file_size_limit``)."""
    return run_gpuprof(profile_argv(*options, job=job), home, **run)


def python_job(code: str) -> list[str]:
    """The command line of a job that runs ``code`` in this Python."""
    return [sys.executable, "-c", code]


def assert_one_clear_error(ran: Ran, names: str, *, code: int = 2) -> None:
    """Exit ``code``, no traceback, and exactly one error line that names ``names``."""
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    assert ran.returncode == code, (ran.returncode, ran.stderr[-2000:])
    errors = [line for line in ran.error_lines if "error" in line.lower()]
    assert len(errors) == 1, ran.stderr[-2000:]
    assert names in errors[0], (names, errors[0])


def set_at(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """A change of a JSON document that puts ``value`` at ``path`` (keys and list indices
    joined by dots: ``"gpus.0.name"``), for the tables of hostile documents."""

    def change(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = d
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change
