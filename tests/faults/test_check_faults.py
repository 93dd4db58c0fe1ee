"""Hostile input to ``gpuprof check``: thresholds and reference files, --expect, --device."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.hostile import TEXT_FAULTS, assert_one_clear_error, hostile_files, run_gpuprof


@pytest.mark.parametrize("flag", ["--thresholds", "--reference"])
@pytest.mark.slow
def test_a_hostile_file_is_one_clear_error(tmp_path: Path, flag: str) -> None:
    files = hostile_files(tmp_path / "in")
    for fault in TEXT_FAULTS:
        path = files[fault]
        ran = run_gpuprof(["check", "--device", "cpu", flag, str(path)], tmp_path)
        assert_one_clear_error(ran, path.name)


#: Files that parse and say the wrong thing, by the flag that reads them (the thresholds' with
#: a 100,000-deep nesting among them take longer: slow).
WRONG_FILES = {
    "--thresholds": [
        '{"pass": 0.5, "warn": 0.9}',
        '{"pass": -1}',
        '{"pass": 1e999}',
        '{"pass": Infinity}',
        '{"pass": 0.9, "extra": 1}',
        "[" * 100000,
    ],
    "--reference": [
        '{"schema": "gpuprof.check-reference", "schema_version": 2, "rows": []}',
        '{"schema": "gpuprof.check", "schema_version": 1, "rows": []}',
        '{"schema": "gpuprof.check-reference", "schema_version": 1, "rows": [{"gpu_model": "CPU",'
        ' "metric": "gemm_fp32", "value": -1, "unit": "TFLOPS", "source": "x"}]}',
        '{"schema": "gpuprof.check-reference", "schema_version": 1, "rows": {}}',
    ],
}


@pytest.mark.parametrize(
    ("flag", "content"),
    [
        pytest.param(flag, content, marks=[pytest.mark.slow] if flag == "--thresholds" else [])
        for flag, contents in WRONG_FILES.items()
        for content in contents
    ],
)
def test_a_wrong_file_is_one_clear_error(tmp_path: Path, flag: str, content: str) -> None:
    path = tmp_path / "wrong.json"
    path.write_text(content)
    ran = run_gpuprof(["check", "--device", "cpu", flag, str(path)], tmp_path)
    assert_one_clear_error(ran, "wrong.json")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--expect", "8xNoSuchGPU"], "8xNoSuchGPU"),
        (["--device", "gpu7"], "gpu7"),
        (["--level", "forever"], "--level"),
    ],
)
def test_bad_arguments_are_one_usage_error(tmp_path: Path, args: list[str], names: str) -> None:
    assert_one_clear_error(run_gpuprof(["check", *args], tmp_path), names)


@pytest.mark.slow
def test_a_full_disk_while_writing_the_json_is_one_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    ran = run_gpuprof(
        ["check", "--device", "cpu", "--json", str(out)], tmp_path, file_size_limit=1024
    )
    assert_one_clear_error(ran, "check.json")
    assert not out.exists()  # nothing half-written


def test_outputs_into_a_missing_folder_are_refused_before_the_check_runs(tmp_path: Path) -> None:
    for flag in ("--json", "--html", "--save-reference"):
        ran = run_gpuprof(["check", "--device", "cpu", flag, str(tmp_path / "no" / "x")], tmp_path)
        assert_one_clear_error(ran, flag)
