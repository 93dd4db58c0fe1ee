"""``gpuprof compare`` against hostile result files: each is named with its reason and left out
while the good ones are still compared; with fewer than two readable files, one clear line and
exit 2; no traceback, no hang. A failed --html/--json write is one line too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from gpuprof.check.compare import Machine
from gpuprof.cli import main
from tests.fakes.fixtures import bench_run
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


# --- issue 21: a FIFO, huge numbers, a byte-order mark, too many items ------------------------------


def _good_doc() -> dict[str, object]:
    doc: dict[str, object] = json.loads(GOOD[0].read_text(encoding="utf-8"))
    return doc


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    """Opening a FIFO for reading waits for a writer: the command hung for ever."""
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    ran = run_gpuprof(["compare", str(GOOD[0]), str(fifo)], tmp_path)  # a hang: TimeoutExpired
    assert_one_clear_error(ran, str(fifo))
    assert "not a regular file (a FIFO)" in ran.stderr


#: A number no float holds, as text in the JSON: 4,000 digits (float() overflowed: exit 1),
#: 5,000 (past Python's 4,300-digit limit: "not JSON"), an exponent that overflows.
HUGE_NUMBERS = {
    "4000-digits": "1" + "0" * 3999,
    "5000-digits": "9" * 5000,
    "negative-4000-digits": "-" + "7" * 4000,
    "exponent": "1e999",
    "negative-exponent-overflow": "-2.5E+400",
}


@pytest.mark.parametrize("number", list(HUGE_NUMBERS.values()), ids=list(HUGE_NUMBERS))
def test_a_huge_number_is_a_bad_value_naming_file_and_field(tmp_path: Path, number: str) -> None:
    text = json.dumps(_good_doc()).replace('"measured": 700', f'"measured": {number}', 1)
    assert number in text
    bad = tmp_path / "huge.json"
    bad.write_text(text, encoding="utf-8")
    ran = run_gpuprof(["compare", str(GOOD[0]), str(bad)], tmp_path)
    assert_one_clear_error(ran, str(bad))
    assert "bad value at items[1].measured" in ran.stderr
    assert len(ran.stderr) < 400  # the number is not printed back in full


def test_a_huge_number_beside_two_good_files_leaves_that_file_out(tmp_path: Path) -> None:
    text = json.dumps(_good_doc()).replace('"measured": 700', '"measured": 1' + "0" * 4000, 1)
    bad = tmp_path / "huge.json"
    bad.write_text(text, encoding="utf-8")
    ran = run_gpuprof(["compare", *map(str, GOOD), str(bad), "--json", "-"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    (left,) = json.loads(ran.stdout)["skipped"]
    assert "huge.json: bad value at items[1].measured" in left["reason"]


def test_a_utf8_byte_order_mark_is_read_like_any_file(tmp_path: Path) -> None:
    """Notepad and PowerShell's Out-File write one; it read as "not JSON"."""
    doc = _good_doc()
    doc["identity"] = {"hostname": "node-bom"}
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc).encode("utf-8"))
    ran = run_gpuprof(["compare", str(GOOD[0]), str(bom), "--json", "-"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert [m["label"] for m in json.loads(ran.stdout)["machines"]] == ["node-a", "node-bom"]


def test_more_items_than_the_cap_is_one_clear_line_and_the_cap_itself_is_read(
    tmp_path: Path,
) -> None:
    from gpuprof.resultlimits import MAX_ITEMS

    item = {"item_id": "perf.x", "status": "PASS", "measured": 1.0, "unit": "TFLOPS"}
    doc = _good_doc()
    at_cap, over = tmp_path / "at-cap.json", tmp_path / "over.json"
    at_cap.write_text(json.dumps({**doc, "items": [item] * MAX_ITEMS}), encoding="utf-8")
    over.write_text(json.dumps({**doc, "items": [item] * (MAX_ITEMS + 1)}), encoding="utf-8")
    ran = run_gpuprof(["compare", str(GOOD[0]), str(over)], tmp_path)
    assert_one_clear_error(ran, str(over))
    assert f"{MAX_ITEMS + 1:,} items, more than the {MAX_ITEMS:,}" in ran.stderr
    assert run_gpuprof(["compare", str(GOOD[0]), str(at_cap)], tmp_path).returncode == 0
    bench = tmp_path / "bench.json"
    cases = [{"bench": "gemm", "name": "x", "state": "success", "results": [{}] * MAX_ITEMS}] * 2
    bench.write_text(
        json.dumps({"format": "gpuprof-bench-run", "schema_version": 1, "cases": cases}),
        encoding="utf-8",
    )
    ran = run_gpuprof(["compare", str(GOOD[0]), str(bench)], tmp_path)
    assert_one_clear_error(ran, str(bench))
    assert "more than the" in ran.stderr


def test_help_states_the_caps() -> None:
    from gpuprof.resultlimits import MAX_FILE_BYTES, MAX_ITEMS

    ran = run_gpuprof(["compare", "--help"], DATA)
    text = " ".join(ran.stdout.split())
    assert f"at most {MAX_ITEMS:,} items and {MAX_FILE_BYTES >> 20} MiB" in text
    assert "regular files" in text and "three or more" in text


# --- every JSON file reader shares gpuprof.jsonin: a FIFO, a BOM, a huge number ----------------------


def _reference_doc() -> dict[str, object]:
    row = {"gpu_model": "CPU", "metric": "gemm_fp32", "value": 1.5, "unit": "TFLOPS", "source": "x"}
    return {"schema": "gpuprof.check-reference", "schema_version": 1, "rows": [row]}


def _bench_doc() -> dict[str, object]:
    from gpuprof.bench.results import run_to_dict
    from gpuprof.bench.runner import Environment

    run = bench_run(run_id="r1", started_s=12345.5, environment=Environment(hostname="node-a"))
    return run_to_dict(run)


#: name → (reader, a good document, a number in it as JSON text, where that number sits).
Reader = tuple[Callable[[Path], object], Callable[[], dict[str, object]], str, str]


def _readers() -> dict[str, Reader]:
    from gpuprof.bench.results import read_json as read_bench
    from gpuprof.check.compare import load_result
    from gpuprof.check.model import load_thresholds
    from gpuprof.check.reference import read_reference_file
    from gpuprof.report.check import load_check

    return {
        "compare": (load_result, _good_doc, "700", "items[1].measured"),
        "report --check": (load_check, _good_doc, "700", "items[1].measured"),
        "check --thresholds": (load_thresholds, lambda: {"pass": 0.9}, "0.9", "pass"),
        "check --reference": (read_reference_file, _reference_doc, "1.5", "rows[0].value"),
        "bench run": (read_bench, _bench_doc, "12345.5", "started_s"),
    }


READERS = ["compare", "report --check", "check --thresholds", "check --reference", "bench run"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("reader", READERS)
def test_every_json_reader_refuses_a_fifo(tmp_path: Path, reader: str) -> None:
    from gpuprof.errors import InputError

    read = _readers()[reader][0]
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file") as refused:
        read(fifo)
    assert str(fifo) in str(refused.value)


@pytest.mark.parametrize("reader", READERS)
def test_every_json_reader_takes_a_byte_order_mark(tmp_path: Path, reader: str) -> None:
    read, doc, _number, _where = _readers()[reader]
    plain, bom = tmp_path / "plain.json", tmp_path / "bom.json"
    plain.write_text(json.dumps(doc()), encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc()).encode("utf-8"))
    got, want = read(bom), read(plain)
    if isinstance(got, Machine) and isinstance(want, Machine):  # each keeps its own path
        got, want = replace(got, path=""), replace(want, path="")
    assert got == want


@pytest.mark.parametrize("reader", READERS)
def test_every_json_reader_names_a_huge_number(tmp_path: Path, reader: str) -> None:
    from gpuprof.errors import InputError

    read, doc, number, where = _readers()[reader]
    text = json.dumps(doc())
    assert number in text
    path = tmp_path / "huge.json"
    path.write_text(text.replace(number, "1" + "0" * 4000, 1), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read(path)
    message = str(refused.value)
    assert str(path) in message and f"bad value at {where}" in message and "\n" not in message
