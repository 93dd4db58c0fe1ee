"""``gpuprof catalog gpus`` (issue 16): the spec table shows every rate of the spec file,
FP4 included, with its unit in the header and a blank cell where the sources give none."""

from __future__ import annotations

import json

import pytest

from gpuprof.catalog.specs import SPEC_DTYPES, load_specs
from gpuprof.cli import main

RATES = ["FP64 TFLOPS", "FP32 TFLOPS", "TF32 TFLOPS", "BF16 TFLOPS", "FP16 TFLOPS"]
RATES += ["FP8 TFLOPS", "FP4 TFLOPS", "INT8 TOPS"]


def _cells(line: str, sep: str) -> list[str]:
    return [c.strip() for c in line.strip().strip(sep).split(sep)]


def _table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> dict[str, dict[str, str]]:
    """GPU -> column header -> cell, as printed."""
    monkeypatch.setenv("COLUMNS", "400")  # rich: no folded cells
    assert main(["--lang", "en", "catalog", "gpus"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = _cells(next(ln for ln in lines if ln.startswith("┃")), "┃")
    rows = [dict(zip(header, _cells(ln, "│"), strict=True)) for ln in lines if ln.startswith("│")]
    return {row["GPU"]: row for row in rows}


def test_every_rate_has_its_unit_and_fp4_is_shown(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _table(capsys, monkeypatch)
    specs = load_specs()
    assert set(table) == set(specs)
    header = list(next(iter(table.values())))
    assert header[3 : 3 + len(RATES)] == RATES
    assert len(RATES) == len(SPEC_DTYPES)  # a new dtype in the spec file gets a column here
    with_fp4 = {k for k, s in specs.items() if s.fp4_tflops is not None}
    assert {"B200", "B300", "GB200", "GB300"} <= with_fp4
    for key, spec in specs.items():
        cell = table[key]["FP4 TFLOPS"]
        if spec.fp4_tflops is None:
            assert cell == "", key  # unknown: blank, not N/A or 0
        else:
            assert float(cell.replace(",", "")) == spec.fp4_tflops, key
    assert table["B200"]["FP4 TFLOPS"] == "9,000" and table["B200"]["FP8 TFLOPS"] == "4,500"
    assert table["H100 SXM"]["FP4 TFLOPS"] == "" and table["H100 SXM"]["BF16 TFLOPS"] == "989"
    # A30: FP32 now sourced (issue 24), its tensor rates still unknown: blank, not N/A
    assert table["A30"]["FP32 TFLOPS"] == "10.3" and table["A30"]["BF16 TFLOPS"] == ""


def test_json_keeps_its_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "gpus", "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["B200"]["fp4_tflops"] == 9000 and rows["H100 SXM"]["fp4_tflops"] is None
    assert {f"{d}_tflops" for d in SPEC_DTYPES if d != "int8"} <= set(rows["B200"])
