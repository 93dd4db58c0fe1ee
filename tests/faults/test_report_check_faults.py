"""The report's check page reader (:func:`gpuprof.report.check.load_check`, the Export report
dialog's "Add check result…") against hostile files: each is one clear error naming the file,
never a traceback or a half-read page; a good file next to them still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.report.check import load_check
from tests.faults.test_compare_faults import GOOD, _all_faults


def test_every_hostile_file_is_one_clear_error_naming_it(tmp_path: Path) -> None:
    faults = _all_faults(tmp_path)
    bench = tmp_path / "a-bench-run.json"
    bench.write_text(json.dumps({"format": "gpuprof-bench-run", "schema_version": 1}))
    faults["a-bench-run"] = bench
    for name, path in faults.items():
        with pytest.raises(InputError) as err:
            load_check(path)
        text = str(err.value)
        assert text.startswith(f"{path}:"), (name, text)
        assert "\n" not in text and "Traceback" not in text, (name, text)
    assert load_check(GOOD[0]).hostname == "node-a"


def test_hostile_values_inside_a_good_file_are_cleaned_and_graded_again(tmp_path: Path) -> None:
    good = json.loads(GOOD[0].read_text(encoding="utf-8"))
    good["verdict"] = "PASS"
    good["identity"] = {
        "hostname": "node\x1b]0;pwned\x07\u202e<b>",
        "gpus": [{"index": 0, "serial": "S\ud800N", "uuid": "GPU-" + "x" * 5000}],
    }
    good["items"][0] = {**good["items"][0], "status": "FAIL", "reason": "token=ghp_" + "a" * 36}
    path = tmp_path / "liar.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    page = load_check(path)
    assert page.verdict == "FAIL" and page.exit_code == 1
    assert "\x1b" not in page.hostname and "\u202e" not in page.hostname
    assert "\ud800" not in page.gpus[0].serial and len(page.gpus[0].uuid) <= 100
    assert "ghp_" not in page.rows[0].reason
