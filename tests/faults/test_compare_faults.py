"""``gpuprof compare`` against hostile result files: each is named with its reason and left out
while the good ones are still compared; with fewer than two readable files, one clear line and
exit 2; no traceback, no hang. A failed --html/--json write is one line too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.cli import main
from tests.faults.hostile import Ran, assert_one_clear_error, hostile_files, run_gpuprof

DATA = Path(__file__).resolve().parents[1] / "data" / "compare"
GOOD = [DATA / "node-a.json", DATA / "node-d.json"]


def _json_faults(folder: Path) -> dict[str, Path]:
    """JSON that parses (or nearly) but is not a result this reader can use."""
    good = json.loads(GOOD[0].read_text(encoding="utf-8"))
    cases: dict[str, object] = {
        "a-list": [1, 2, 3],
        "items-not-a-list": {**good, "items": {"x": 1}},
        "item-not-an-object": {**good, "items": [1]},
        "item-without-id": {**good, "items": [{"measured": 3}]},
        "version-as-text": {**good, "schema_version": "1"},
        "version-missing": {k: v for k, v in good.items() if k != "schema_version"},
        "newer-schema": {**good, "schema_version": 2},
        "foreign-json": {"hello": "world"},
        "bench-broken": {"format": "gpuprof-bench-run", "schema_version": 1, "cases": 5},
        "bench-newer": {"format": "gpuprof-bench-run", "schema_version": 99},
    }
    out: dict[str, Path] = {}
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in cases.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        out[name] = path
    text_cases = {
        "nan-literal": GOOD[0].read_text(encoding="utf-8").replace("700", "NaN", 1),
        "deep-nesting": "[" * 100_000 + "]" * 100_000,
        "truncated-json": GOOD[0].read_text(encoding="utf-8")[:300],
    }
    for name, text in text_cases.items():
        path = folder / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


def _all_faults(tmp_path: Path) -> dict[str, Path]:
    return {**hostile_files(tmp_path / "h"), **_json_faults(tmp_path / "j")}


def test_each_hostile_file_alone_beside_one_good_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, path in _all_faults(tmp_path).items():
        code = main(["compare", str(GOOD[0]), str(path)])
        out = capsys.readouterr()
        assert_one_clear_error(Ran(code, out.out, out.err), path.name)
        assert name and "Traceback" not in out.err


def test_hostile_files_are_left_out_and_the_good_ones_compared(tmp_path: Path) -> None:
    faults = _all_faults(tmp_path)
    ran = run_gpuprof(
        ["compare", *map(str, GOOD), *map(str, faults.values()), "--json", "-"], tmp_path
    )
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 0, ran.stderr[-2000:]
    doc = json.loads(ran.stdout)
    assert [m["label"] for m in doc["machines"]] == ["node-a", "node-d"]
    assert len(doc["skipped"]) == len(faults)
    for path in faults.values():
        assert sum(f"{path}:" in line for line in ran.error_lines) == 1, path.name


def test_control_and_bidi_characters_in_a_hostname_are_made_plain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(GOOD[0].read_text(encoding="utf-8"))
    doc["identity"]["hostname"] = "evil\x1b[31m\u202enode\n"
    bad = tmp_path / "evil.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["compare", str(GOOD[1]), str(bad)]) == 0
    out = capsys.readouterr().out
    assert "\x1b[31m" not in out and "\u202e" not in out


def test_a_failed_html_write_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "big.html"
    ran = run_gpuprof(
        ["compare", *map(str, GOOD), "--html", str(out)], tmp_path, file_size_limit=1000
    )
    assert_one_clear_error(ran, "big.html")
    assert not out.exists()
