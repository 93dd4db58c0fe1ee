"""Catalog import and list against hostile catalogs (issue 11, "catalog import").

Every fault here was a silent wrong answer or a failed import before: a cell over the csv
module's limit failed the whole file, a stray quote swallowed the rows after it, prices were
rounded to 6 digits, duplicates were ranked #1-#5, a provider name became a path, and
``catalog list`` of 100,000 rows took minutes (perf/catalog.py measures that; here the paging).
Each hostile row must be refused as ``FILE:LINE: reason`` (or kept with a warning that says
what was done) while the good rows of the same file load.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpuprof.catalog.instances import COLUMNS, Instance, load_catalog, read_instances_file
from gpuprof.catalog.names import FILE_STEM_MAX
from gpuprof.catalog.skypilot import import_catalog_file
from gpuprof.cli import main
from tests.faults.hostile import run_gpuprof

HEADER = ",".join(COLUMNS)
GOOD = "Acme,gpu.good{n},r1,,H100,8,80,96,1024,,400,{p},,,,src,2026-01-01,ok"


def _good(n: int, price: float = 20.0) -> str:
    return GOOD.format(n=n, p=price)


def _catalog(tmp_path: Path, lines: list[str], name: str = "mine.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def _import(
    path: Path, dest: Path, **kwargs: str
) -> tuple[Path, list[str], list[str], list[Instance]]:
    """Import ``path`` into ``dest``: (stored file, errors, warnings, rows)."""
    dest.mkdir(exist_ok=True)
    stored, rows, issues = import_catalog_file(path, dest_dir=dest, **kwargs)
    errors = [str(i) for i in issues if i.severity == "error"]
    warnings = [str(i) for i in issues if i.severity == "warning"]
    return stored, errors, warnings, rows


# -- rows no real offer can have: one error naming FILE:LINE, the good rows still load -------

#: name -> (the hostile row, what its error says)
HOSTILE_ROWS = {
    "1e12 GPUs": ("Acme,bad,r1,,H100,1e12,80,,,,,20,,,,,,", "gpu_count"),
    "zero GPUs": ("Acme,bad,r1,,H100,0,80,,,,,20,,,,,,", "gpu_count must be > 0"),
    "negative price": ("Acme,bad,r1,,H100,8,80,,,,,-3,,,,,,", "must be >= 0"),
    "NaN price": ("Acme,bad,r1,,H100,8,80,,,,,nan,,,,,,", "price_ondemand_usd_hr"),
    "inf price": ("Acme,bad,r1,,H100,8,80,,,,,inf,,,,,,", "price_ondemand_usd_hr"),
    "absurd price": ("Acme,bad,r1,,H100,8,80,,,,,1e9,,,,,,", "price_ondemand_usd_hr"),
    "NaN spot price": ("Acme,bad,r1,,H100,8,80,,,,,20,NaN,,,,,", "price_spot_usd_hr"),
    "price as text": ("Acme,bad,r1,,H100,8,80,,,,,twenty,,,,,,", "not a number"),
    "decimal comma": ('Acme,bad,r1,,H100,8,80,,,,,"1,5",,,,,,', "not a number"),
    "as of 2099": ("Acme,bad,r1,,H100,8,80,,,,,20,,,,,2099-01-01,", "in the future"),
    "1e12 GiB per GPU": ("Acme,bad,r1,,H100,8,1e12,,,,,20,,,,,,", "gpu_mem_gib"),
    "no provider": (",bad,r1,,H100,8,80,,,,,20,,,,,,", "missing provider"),
}


@pytest.mark.parametrize("fault", list(HOSTILE_ROWS))
def test_an_impossible_row_is_refused_by_line_and_the_rest_imports(
    fault: str, tmp_path: Path
) -> None:
    row, says = HOSTILE_ROWS[fault]
    src = _catalog(tmp_path, [_good(1), row, _good(2)])
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert [r.instance for r in rows] == ["gpu.good1", "gpu.good2"]
    assert len(errors) == 1 and errors[0].startswith(f"{src}:3: "), errors
    assert says in errors[0]
    assert all(math.isfinite(r.price_ondemand_usd_hr or 0) for r in rows)


def test_a_thousands_separator_is_still_a_number(tmp_path: Path) -> None:
    src = _catalog(tmp_path, ['Acme,big,r1,,H100,8,80,,,,,"1,234.5",,,,,,'])
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert not errors and rows[0].price_ondemand_usd_hr == 1234.5


# -- quoting -----------------------------------------------------------------------------


def test_a_stray_quote_no_longer_swallows_the_rows_after_it(tmp_path: Path) -> None:
    lines = [_good(n) for n in range(1, 7)]
    lines[1] = 'Acme,"gpu.stray,r1,,H100,8,80,,,,,20,,,,,2026-01-01,note'  # line 3
    src = _catalog(tmp_path, lines)
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    # Before: lines 3-7 were one row with 2 fields; gpu.good3-6 vanished without a word.
    assert [r.instance for r in rows] == [f"gpu.good{n}" for n in (1, 3, 4, 5, 6)]
    assert len(errors) == 1 and errors[0].startswith(
        f"{src}:3: row 3 has 2 fields, the header {len(COLUMNS)}"
    )
    assert "check quoting" in errors[0] and "lines 3–7" in errors[0]


def test_a_stray_quote_closed_by_a_later_quoted_cell(tmp_path: Path) -> None:
    lines = [_good(n) for n in range(1, 7)]
    lines[0] = _good(1)[: -len("ok")] + '"oops, an open quote'  # line 2
    lines[3] = _good(4)[: -len("ok")] + '"a note, quoted"'  # line 5 closes it
    src = _catalog(tmp_path, lines)
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert [r.instance for r in rows] == [f"gpu.good{n}" for n in range(2, 7)]
    assert rows[2].notes == "a note, quoted"
    assert len(errors) == 1 and errors[0].startswith(f"{src}:2: ") and "check quoting" in errors[0]


def test_a_quote_left_open_on_the_last_line(tmp_path: Path) -> None:
    src = _catalog(tmp_path, [_good(1), _good(2)[: -len("ok")] + '"never closed'])
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert [r.instance for r in rows] == ["gpu.good1"]
    assert len(errors) == 1 and errors[0].startswith(f"{src}:3: ") and "not closed" in errors[0]


def test_a_quoted_note_over_two_lines_is_still_one_cell(tmp_path: Path) -> None:
    src = _catalog(tmp_path, [_good(1)[: -len("ok")] + '"first line\nsecond line"', _good(2)])
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert not errors and rows[0].notes == "first line\nsecond line" and len(rows) == 2


def test_a_skypilot_file_with_a_stray_quote(tmp_path: Path) -> None:
    src = tmp_path / "lambda" / "vms.csv"
    src.parent.mkdir()
    src.write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
        'gpu_1x_a100,A100,1,30,200,"1.29,us-east-1\n'
        "gpu_8x_a100,A100,8,124,1800,10.32,us-east-1\n"
        "gpu_1x_h100,H100,1,26,200,2.49,us-east-1\n"
    )
    _, errors, _, rows = _import(src, tmp_path / "overlays", fmt="skypilot")
    assert [r.instance for r in rows] == ["gpu_8x_a100", "gpu_1x_h100"]
    assert len(errors) == 1 and errors[0].startswith(f"{src}:2: ") and "check quoting" in errors[0]


def test_a_cell_over_the_csv_module_limit_is_one_bad_row(tmp_path: Path) -> None:
    """Before: "field larger than field limit (131072)" and nothing imported."""
    src = _catalog(tmp_path, [_good(1), _good(2)[: -len("ok")] + "x" * 200_000, _good(3)])
    _, errors, _, rows = _import(src, tmp_path / "overlays")
    assert [r.instance for r in rows] == ["gpu.good1", "gpu.good3"]
    assert len(errors) == 1 and errors[0].startswith(f"{src}:3: a cell of 200,000 characters")


# -- numbers are kept exactly ------------------------------------------------------------


def test_prices_survive_import_exactly(tmp_path: Path) -> None:
    prices = [12.3456789012345, 0.000123456789, 98765.4321, 0.1 + 0.2, 1e-7]
    lines = [GOOD.format(n=i, p=repr(p)) for i, p in enumerate(prices)]
    stored, errors, _, rows = _import(_catalog(tmp_path, lines), tmp_path / "overlays")
    assert not errors
    back, _ = read_instances_file(stored)
    # Before: "%g" wrote 12.3457, 0.000123457, 98765.4 - a wrong price for every later estimate.
    assert [r.price_ondemand_usd_hr for r in back] == prices
    assert [r.price_ondemand_usd_hr for r in rows] == prices


def test_skypilot_gpu_memory_is_kept_exactly(tmp_path: Path) -> None:
    src = tmp_path / "aws" / "vms.csv"
    src.parent.mkdir()
    src.write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,GpuInfo\n"
        "p5.48xlarge,H100,8,98.32,us-east-1,"
        "\"{'Gpus': [{'Name': 'H100', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81559}}]}\"\n"
    )
    stored, _, _, _ = _import(src, tmp_path / "overlays", fmt="skypilot")
    back, _ = read_instances_file(stored)
    assert back[0].gpu_mem_gib == 81559 / 1024 and back[0].price_ondemand_usd_hr == 98.32


# -- duplicates are merged, and said so --------------------------------------------------


def test_duplicate_rows_are_merged_on_import(tmp_path: Path) -> None:
    same = "Acme,gpu.dup,r1,{z},H100,8,80,96,1024,,400,20.5,,,,src,2026-01-01,ok"
    lines = [_good(1), *(same.format(z=z) for z in ("r1-a", "r1-b", "r1-a", "", "r1-c"))]
    lines.append(same.format(z="r1-d").replace("20.5", "21"))  # another price: another offer
    stored, errors, warnings, rows = _import(_catalog(tmp_path, lines), tmp_path / "overlays")
    assert not errors
    assert [r.instance for r in rows] == ["gpu.good1", "gpu.dup", "gpu.dup"]
    assert rows[1].zone == "r1-a,r1-b,r1-c" and rows[2].price_ondemand_usd_hr == 21
    assert len(warnings) == 1 and warnings[0].startswith(f"{tmp_path / 'mine.csv'}:4: ")
    assert "merged 4 duplicate rows" in warnings[0]
    assert len(read_instances_file(stored)[0]) == 3


def test_rows_repeated_across_overlays_are_in_the_catalog_once(tmp_path: Path) -> None:
    row = "Acme,gpu.same,r9,,H100,8,80,,,,,7.25,,,,src,2026-01-01,"
    _catalog(tmp_path, [row], "a.csv")
    _catalog(tmp_path, [row, row], "b.csv")
    cat = load_catalog(overlay_dir=tmp_path)
    assert sum(1 for i in cat.instances if i.instance == "gpu.same") == 1
    said = [str(i) for i in cat.issues if "merged" in i.reason]
    assert said == [
        f"{tmp_path / 'b.csv'}:3: merged 1 duplicate rows (same provider, instance, region, GPUs "
        "and prices as an earlier row; the first on this line)",
        f"{tmp_path / 'b.csv'}: merged 1 rows that repeat rows of other catalog files",
    ]


def test_recommend_ranks_an_overlay_with_duplicates_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An overlay written before duplicates were merged (five copies of one offer) is read as
    one offer: the recommendation does not rank it #1-#5."""
    from gpuprof.paths import user_catalog_dir

    row = "Dupe,t4.tiny,z1,,T4,1,16,4,16,,10,0.01,,,,src,2026-01-01,"
    _catalog(user_catalog_dir(), [row] * 5, "old-import.csv")
    assert main(["recommend", "--preset", "nlp-inference-t4", "--json", "--limit", "10"]) == 0
    ranked = json.loads(capsys.readouterr().out)["rows"]
    assert ranked[0]["instance"] == "t4.tiny"
    assert sum(1 for r in ranked if r["instance"] == "t4.tiny") == 1


# -- provider names become file names ----------------------------------------------------

#: name -> (provider, the file stem after "skypilot-")
HOSTILE_PROVIDERS = {
    "slash": ("a/b", "a-b"),
    "parent folders": ("../../escape", "escape"),
    "300 characters": ("p" * 300, "p" * 55 + "-67f102b9"),
    "not ASCII": ("阿里云", "provider-e16fc821"),
    "a device name": ("CON", "provider-CON"),
    "a line break": ("north\nsouth", "north-south"),
    "a leading dash": ("-rf", "rf"),
    "a backslash and colon": ("c:\\temp", "c-temp"),
    "a space": ("Lambda Labs", "Lambda-Labs"),
}


@pytest.mark.parametrize("case", list(HOSTILE_PROVIDERS))
def test_a_provider_name_is_a_safe_file_name_and_said_so(case: str, tmp_path: Path) -> None:
    provider, expected = HOSTILE_PROVIDERS[case]
    src = tmp_path / "vms.csv"
    src.write_text("InstanceType,AcceleratorName,AcceleratorCount,Price\ngpu_1x,A100,1,1.29\n")
    dest = tmp_path / "overlays"
    stored, errors, warnings, rows = _import(src, dest, fmt="skypilot", provider=provider)
    assert not errors and rows[0].provider == provider  # the rows keep the name as given
    assert stored.parent == dest and stored.is_file()
    assert sorted(p.name for p in dest.iterdir()) == [stored.name]
    assert stored.stem.startswith("skypilot-") and len(stored.stem) <= 9 + FILE_STEM_MAX
    assert all(c.isascii() and (c.isalnum() or c in "._-") for c in stored.stem)
    assert stored.stem == f"skypilot-{expected}"
    assert len(warnings) == 1 and f"stored as {stored.name}" in warnings[0]


def test_two_long_provider_names_stay_two_files(tmp_path: Path) -> None:
    src = tmp_path / "vms.csv"
    src.write_text("InstanceType,AcceleratorName,AcceleratorCount,Price\ngpu_1x,A100,1,1.29\n")
    one = _import(src, tmp_path / "o", fmt="skypilot", provider="p" * 299 + "1")[0]
    two = _import(src, tmp_path / "o", fmt="skypilot", provider="p" * 299 + "2")[0]
    assert one != two and one.is_file() and two.is_file()


def test_a_plain_provider_name_is_used_as_it_is(tmp_path: Path) -> None:
    src = tmp_path / "vms.csv"
    src.write_text("InstanceType,AcceleratorName,AcceleratorCount,Price\ngpu_1x,A100,1,1.29\n")
    stored, _, warnings, _ = _import(src, tmp_path / "o", fmt="skypilot", provider="Lambda")
    assert stored.name == "skypilot-Lambda.csv" and not warnings


def test_the_cli_stores_a_slashed_provider_in_the_overlay_folder(tmp_path: Path) -> None:
    src = tmp_path / "vms.csv"
    src.write_text("InstanceType,AcceleratorName,AcceleratorCount,Price\ngpu_1x,A100,1,1.29\n")
    ran = run_gpuprof(["catalog", "import", str(src), "--provider", "../evil/x"], tmp_path)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    overlays = tmp_path / "data" / "catalog"
    assert [p.name for p in overlays.iterdir()] == ["skypilot-evil-x.csv"]
    assert not (tmp_path / "data" / "evil").exists()
    assert "stored as skypilot-evil-x.csv" in ran.stderr


# -- catalog list is paged ---------------------------------------------------------------


@pytest.fixture
def big_overlay(tmp_path: Path) -> int:
    from gpuprof.paths import user_catalog_dir

    _catalog(user_catalog_dir(), [_good(n, 1 + n / 1000) for n in range(1000)], "big.csv")
    return len(load_catalog().instances)


def test_catalog_list_shows_a_page_and_says_how_to_see_more(
    big_overlay: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "list"]) == 0
    out = capsys.readouterr()
    assert f"instances 1–50 of {big_overlay}" in out.out
    assert f"{big_overlay - 50} more rows: --offset 50 for the next page" in out.err
    assert main(["catalog", "list", "--provider", "Acme", "--limit", "3", "--offset", "10"]) == 0
    out = capsys.readouterr()
    assert "instances 11–13 of 1000" in out.out
    assert "gpu.good10" in out.out and "gpu.good13" not in out.out


def test_catalog_list_json_is_every_row_unless_limited(
    big_overlay: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == big_overlay
    assert main(["catalog", "list", "--json", "--provider", "Acme", "--limit", "2"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["instance"] for r in rows] == ["gpu.good0", "gpu.good1"]
    assert main(["catalog", "list", "--json", "--offset", str(big_overlay)]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("bad", ["-1", "ten", "1.5"])
def test_catalog_list_refuses_a_bad_limit_in_one_line(bad: str, tmp_path: Path) -> None:
    ran = run_gpuprof(["catalog", "list", "--limit", bad], tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert len(ran.error_lines) == 1 and "--limit" in ran.error_lines[0]


def test_a_file_with_its_columns_in_another_order_reads_the_same(tmp_path: Path) -> None:
    """The fast reader picks cells by header name: a reordered, partial or repeated header
    gives the same rows as our own order (the last of a repeated column wins, as before)."""
    ours = read_instances_file(_catalog(tmp_path, [_good(1, 12.5)], "ours.csv"))[0]
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(
        "price_ondemand_usd_hr,gpu_count,notes,instance,gpu_model,provider,region,source,"
        "as_of,gpu_mem_gib,vcpus,ram_gib,network_gbps,notes\n"
        "12.5,8,first,gpu.good1,H100,Acme,r1,src,2026-01-01,80,96,1024,400,ok\n",
        encoding="utf-8",
    )
    rows, issues = read_instances_file(mixed)
    assert issues == []
    assert [r.as_dict() | {"origin": ""} for r in rows] == [
        r.as_dict() | {"origin": ""} for r in ours
    ]
    short = tmp_path / "short.csv"
    short.write_text("provider,instance,gpu_model,gpu_count\nAcme,x,H100,2\n", encoding="utf-8")
    (only,), issues = read_instances_file(short)
    assert issues == []
    assert (only.region, only.price_ondemand_usd_hr, only.gpu_mem_gib) == ("", None, 80.0)
