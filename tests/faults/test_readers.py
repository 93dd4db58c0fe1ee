"""Every reader of outside input against every hostile file (tests/faults/hostile.py).

A row per reader: what it reads and the command that reads it. A new reader gets a row and
inherits every fault: one error line naming the file, exit 2, no traceback, no hang.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.hostile import (
    FAULTS,
    GOOD_RESULTS,
    GOOD_SESSION,
    assert_one_clear_error,
    hostile_files,
    run_gpuprof,
)

#: Readers that take the file on the command line: name -> arguments for FILE.
FILE_READERS: dict[str, Callable[[str], list[str]]] = {
    "replay": lambda f: ["replay", "--json", f],
    "export": lambda f: ["export", f, "--csv", "-"],
    "report --session": lambda f: ["report", "--session", f, "--out", "r.html"],
    "catalog import": lambda f: ["catalog", "import", f],
    "app --replay": lambda f: ["--replay", f, "--screenshot", "s.png", "--after", "0"],
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return hostile_files(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("reader", list(FILE_READERS))
@pytest.mark.slow
def test_file_readers_refuse_hostile_files_in_one_line(
    reader: str, fault: str, hostile: dict[str, Path], tmp_path: Path
) -> None:
    path = hostile[fault]
    ran = run_gpuprof(FILE_READERS[reader](str(path)), tmp_path)
    assert_one_clear_error(ran, path.name)
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("reader", list(FILE_READERS))
@pytest.mark.slow
def test_the_same_readers_accept_a_good_file(reader: str, tmp_path: Path) -> None:
    """The faults above fail for the fault, not for everything (catalog import needs a CSV)."""
    if reader == "catalog import":
        good = Path(__file__).resolve().parents[2] / "resources" / "cloud_instances.csv"
    else:
        good = GOOD_SESSION
    ran = run_gpuprof(FILE_READERS[reader](str(good)), tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize("fault", [f for f in FAULTS if f not in ("missing", "empty")])
@pytest.mark.slow
def test_the_results_database_refuses_hostile_files(
    fault: str, hostile: dict[str, Path], tmp_path: Path
) -> None:
    """`bench list` reads the results database from the data folder."""
    db = tmp_path / "data" / "results.sqlite"
    db.parent.mkdir(parents=True)
    source = hostile[fault]
    if source.is_dir():
        db.mkdir()
    else:
        shutil.copyfile(source, db)
    before = db.read_bytes() if db.is_file() else None
    ran = run_gpuprof(["bench", "list"], tmp_path)
    assert_one_clear_error(ran, "results.sqlite")
    if before is not None:
        assert db.read_bytes() == before  # refused, never "repaired" or upgraded in place


def test_an_empty_results_database_is_an_empty_one(tmp_path: Path) -> None:
    """SQLite's own rule: a 0-byte file is a database with nothing in it (a crash right after
    creating it leaves one)."""
    db = tmp_path / "data" / "results.sqlite"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"")
    ran = run_gpuprof(["bench", "list"], tmp_path)
    assert ran.returncode == 0 and "no benchmark runs yet" in ran.stdout, ran.stderr


def test_the_results_database_of_today_lists_its_run(tmp_path: Path) -> None:
    db = tmp_path / "data" / "results.sqlite"
    db.parent.mkdir(parents=True)
    shutil.copyfile(GOOD_RESULTS, db)
    ran = run_gpuprof(["bench", "list"], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr
    assert "cpu" in ran.stdout.lower()


@pytest.mark.parametrize("fault", FAULTS)
def test_the_report_json_reader_names_the_file(fault: str, hostile: dict[str, Path]) -> None:
    from gpuprof.errors import InputError
    from gpuprof.report.json import load_report

    path = hostile[fault]
    with pytest.raises(InputError) as refused:
        load_report(path)
    assert path.name in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("fault", ["random-bytes", "non-utf8-text", "nul-bytes", "huge"])
def test_external_tool_parsers_refuse_garbage_naming_the_tool(
    fault: str, hostile: dict[str, Path]
) -> None:
    """nvbandwidth's and mamf-finder's output is outside input too."""
    from gpuprof.bench.external import (
        ReferenceOutputError,
        parse_mamf_finder,
        parse_nvbandwidth,
    )

    text = hostile[fault].read_bytes().decode("utf-8", errors="replace")
    with pytest.raises(ReferenceOutputError, match=r"^nvbandwidth: ") as refused:
        parse_nvbandwidth(text, "host_to_device_memcpy_ce")
    assert len(str(refused.value)) < 400  # the start of the output, not all 24 MiB of it
    with pytest.raises(ReferenceOutputError, match=r"^mamf-finder: "):
        parse_mamf_finder(text)


@pytest.mark.slow
def test_garbage_settings_fall_back_to_defaults(tmp_path: Path) -> None:
    """The settings file is outside input as well: garbage values must not stop the app."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "gpuprof-ui.ini").write_bytes(
        b"[window]\ngeometry=\xff\xfe garbage\ntab=\x00nope\n[telemetry]\n"
        b"selected_gpus=a,b,-1\ntime_window_s=banana\ninterval_s=1e999\n[view]\ntheme=\xc3\x28\n"
    )
    ran = run_gpuprof(["--demo", "--screenshot", "s.png", "--after", "0"], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr[-2000:]
    assert (tmp_path / "s.png").stat().st_size > 10_000
