"""A full or closed standard output, for every command that prints.

``gpuprof replay --json … > /dev/full`` (``monitor --json``, ``export --csv -``, ``recommend
--json``, ...) ended in "unexpected error: OSError", exit 1. It is one line naming stdout and the
cause, exit 2; a reader that leaves (``| head``) stays quiet, exit 0; any other OSError, a broken
pipe to anything but stdout included, is still an unexpected error. Real child processes with
their standard output on /dev/full or on a pipe whose reader has gone.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuprof.cli import main
from tests.faults.hostile import (
    GOOD_RESULTS,
    GOOD_SESSION,
    TIMEOUT_S,
    Ran,
    assert_one_clear_error,
    gpuprof_env,
)

COMPARE = Path(__file__).resolve().parents[1] / "data" / "compare"


def _home(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    shutil.copyfile(GOOD_RESULTS, tmp_path / "data" / "results.sqlite")
    return tmp_path


#: Commands that print to standard output.
PRINTERS: dict[str, list[str]] = {
    "replay --json": ["replay", "--json", str(GOOD_SESSION)],
    "monitor --json": ["monitor", "--json", "--once", "--demo"],
    "monitor --json (stream)": ["monitor", "--json", "--count", "2", "--interval", "0.1", "--demo"],
    "export --csv -": ["export", str(GOOD_SESSION), "--csv", "-"],
    "recommend --json": ["recommend", "--preset", "llm-100b-train", "--json"],
    "recommend (table)": ["recommend", "--preset", "llm-100b-train"],
    "devices --json": ["devices", "--json", "--demo"],
    "catalog list --json": ["catalog", "list", "--json"],
    "compare --json -": [
        "compare",
        str(COMPARE / "node-a.json"),
        str(COMPARE / "node-d.json"),
        "--json",
        "-",
    ],
    "bench show --json -": ["bench", "show", "latest", "--json", "-"],
    "--help": ["--help"],
}


def _run_to(args: list[str], home: Path, stdout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=gpuprof_env(home),
        cwd=home,
        timeout=TIMEOUT_S,
    )


@pytest.mark.parametrize("printer", list(PRINTERS))
@pytest.mark.slow
def test_a_full_stdout_is_one_line_naming_it(printer: str, tmp_path: Path) -> None:
    home = _home(tmp_path)
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    fd = os.open("/dev/full", os.O_WRONLY)
    try:
        done = _run_to(PRINTERS[printer], home, fd)
    finally:
        os.close(fd)
    ran = Ran(done.returncode, "", done.stderr)
    assert_one_clear_error(ran, "stdout")
    assert "cannot write to stdout: No space left on device" in ran.stderr
    assert "unexpected" not in ran.stderr and "Exception ignored" not in ran.stderr


@pytest.mark.parametrize("printer", ["replay --json", "export --csv -", "recommend --json"])
def test_a_reader_that_leaves_is_not_an_error(printer: str, tmp_path: Path) -> None:
    """``| head``: the pipe closes early; gpuprof stops quietly, exit 0."""
    home = _home(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left before the first line
    try:
        done = _run_to(PRINTERS[printer], home, write_end)
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "" or "error" not in done.stderr.lower(), done.stderr


def test_other_os_errors_are_not_taken_for_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a failed write to standard output is reported as one; a broken pipe elsewhere (a
    socket) is still an unexpected error, never a quiet exit 0."""
    import gpuprof.commands.telemetry as telemetry

    for exc in (BrokenPipeError(errno.EPIPE, "Broken pipe"), OSError(errno.EIO, "I/O error")):

        def fail(args: object, exc: OSError = exc) -> int:
            print("some output first")
            raise exc

        rows = tuple(
            dataclasses.replace(c, run=fail) if c.name == "devices" else c
            for c in telemetry.COMMANDS
        )
        monkeypatch.setattr(telemetry, "COMMANDS", rows)  # the parser is made from the rows
        assert main(["devices", "--demo"]) == 1
        err = capsys.readouterr().err
        assert "unexpected error" in err and "stdout" not in err


def _run_with_stdout_closed(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """``gpuprof ARGS >&-``: the child starts with descriptor 1 closed (Python's sys.stdout is
    then None)."""
    return subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "gpuprof", *args],
        stderr=subprocess.PIPE,
        text=True,
        env=gpuprof_env(home),
        cwd=home,
        timeout=TIMEOUT_S,
    )


@pytest.mark.parametrize(
    "printer", ["replay --json", "export --csv -", "recommend (table)", "compare --json -"]
)
def test_a_closed_stdout_is_one_line_naming_it(printer: str, tmp_path: Path) -> None:
    """``replay --json … >&-`` exited 0 having written nothing (print drops text when there is
    no sys.stdout); ``export --csv - >&-`` was "unexpected error: TypeError", exit 1."""
    done = _run_with_stdout_closed(PRINTERS[printer], _home(tmp_path))
    ran = Ran(done.returncode, "", done.stderr)
    assert_one_clear_error(ran, "stdout")
    assert "cannot write to stdout: Bad file descriptor" in ran.stderr
    assert "unexpected" not in ran.stderr


def test_a_closed_stdout_does_not_stop_a_command_that_does_not_print_to_it(
    tmp_path: Path,
) -> None:
    home = _home(tmp_path)
    out = home / "run.gpuprof"
    args = ["record", "--demo", "--out", str(out), "--duration", "0.3", "--interval", "0.1"]
    done = _run_with_stdout_closed(args, home)
    assert done.returncode == 0, done.stderr
    assert "saved" in done.stderr and out.is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["export", str(GOOD_SESSION), "--csv", "/dev/stderr"],
        ["export", "no-such-recording.gpuprof", "--csv", "out.csv"],
    ],
    ids=["the-output-is-stderr", "an-error-to-say"],
)
def test_a_full_stderr_still_exits_with_the_error_status(args: list[str], tmp_path: Path) -> None:
    """``export --csv /dev/stderr 2>/dev/full`` exited 1 with nothing said: the error line
    itself met the full stderr and became an unexpected error. There is nowhere to say it, so
    the status (2, a clear error) is all that is left, and it is the right one."""
    with open(os.devnull, "w") as devnull, open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gpuprof", *args],
            stdout=devnull,
            stderr=full,
            env=gpuprof_env(tmp_path),
            cwd=tmp_path,
            timeout=TIMEOUT_S,
        )
    assert done.returncode == 2
