"""``gpuprof report --check FILE`` against hostile check files: each is one line naming the file,
exit 2, no traceback, and no report written (the file is read before any work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.cli import main
from tests.faults.hostile import (
    GOOD_SESSION,
    Ran,
    assert_one_clear_error,
    run_gpuprof,
)
from tests.faults.test_compare_faults import GOOD, _all_faults


def _faults(tmp_path: Path) -> dict[str, Path]:
    faults = _all_faults(tmp_path)
    bench = tmp_path / "a-bench-run.json"  # another gpuprof file, not a check
    bench.write_text(json.dumps({"format": "gpuprof-bench-run", "schema_version": 1}))
    faults["a-bench-run"] = bench
    return faults


def test_each_hostile_check_file_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    for name, path in _faults(tmp_path).items():
        argv = ["report", "--session", str(GOOD_SESSION), "--check", str(path), "--out", str(out)]
        code = main(argv)
        ran = capsys.readouterr()
        assert_one_clear_error(
            Ran(code, ran.out, ran.err), f"{path}:" if path.exists() else path.name
        )
        assert not out.exists(), name
    assert (
        main(["report", "--session", str(GOOD_SESSION), "--check", str(GOOD[0]), "--out", str(out)])
        == 0
    )
    assert 'id="verdict"' in out.read_text("utf-8")


@pytest.mark.parametrize("fault", ["newer-schema", "foreign-json", "truncated-json"])
def test_the_real_cli_names_the_file_and_why(fault: str, tmp_path: Path) -> None:
    path = _faults(tmp_path)[fault]
    ran = run_gpuprof(
        ["report", "--session", str(GOOD_SESSION), "--check", str(path), "--out", "r.json"],
        tmp_path,
    )
    assert_one_clear_error(ran, f"{path}:")
    assert not (tmp_path / "r.json").exists()
    if fault == "newer-schema":
        assert "newer" in ran.error_lines[0]


@pytest.mark.parametrize("when", [1e300, -1e300, 1e18, -1e18])
def test_a_start_time_no_clock_shows_is_left_out(
    when: float, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A finite number that is no date (localtime overflows: OverflowError / OSError EOVERFLOW)
    # is left out like a value of the wrong type; the report is still written.
    data = json.loads(Path(GOOD[0]).read_text("utf-8"))
    data["started_s"] = when
    data["ended_s"] = when
    path = tmp_path / "odd-time.json"
    path.write_text(json.dumps(data), "utf-8")
    out = tmp_path / "r.html"
    argv = ["report", "--session", str(GOOD_SESSION), "--check", str(path), "--out", str(out)]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 0, err
    html = out.read_text("utf-8")
    assert 'id="verdict"' in html
    from gpuprof.report.check import load_check

    section = load_check(path)
    assert section.started_s is None and section.ended_s is None
