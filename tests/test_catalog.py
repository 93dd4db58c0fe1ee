"""Spec table, packaged instance catalog, overlays, bad rows as file:line, SkyPilot import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.catalog.instances import COLUMNS, load_catalog, parse_instances_csv
from gpuprof.catalog.skypilot import import_catalog_file
from gpuprof.catalog.specs import load_specs
from gpuprof.cli import main

HEADER = ",".join(COLUMNS)


def test_spec_table_keeps_unknowns_blank() -> None:
    specs = load_specs()
    h100 = specs["H100 SXM"]
    assert h100.bf16_tflops == 989 and h100.fp8_tflops == 1979
    assert h100.fp64_tflops is None and h100.tdp_w is None  # not in sources: never guessed
    # A30: memory and FP32 sourced (issue 24); its tensor rates are in no consulted source
    assert specs["A30"].fp32_tflops == 10.32 and specs["A30"].bf16_tflops is None
    # Catalog-only GPU: memory from the instance row, no rates.
    assert specs["RTX PRO 6000 Blackwell"].memory_gib == 96
    assert specs["RTX PRO 6000 Blackwell"].bf16_tflops is None
    assert all(s.source for s in specs.values())
    assert specs["T4"].supports("bf16") is False and specs["A100 80GB SXM"].supports("bf16") is True
    assert specs["A100 80GB SXM"].supports("fp8") is False and specs["L4"].supports("fp8") is True


def test_every_catalog_gpu_has_a_spec_row() -> None:
    cat = load_catalog(overlays=False)
    assert not [i for i in cat.issues if i.severity == "error"]
    assert all(i.gpu_known for i in cat.instances)
    providers = set(cat.providers)
    assert {"AWS", "Azure", "GCP", "Lambda", "OCI", "RunPod"} <= providers
    assert {"Alibaba Cloud", "Tencent Cloud", "Huawei Cloud"} <= providers
    assert all(i.source for i in cat.instances)
    # every row carries the day it was read (tests/test_catalog_audit.py: a full ISO date)
    from gpuprof.catalog.asof import date_precision

    assert all(date_precision(i.as_of) == "day" for i in cat.instances)


def test_seed_rows_carry_their_figures() -> None:
    cat = load_catalog(overlays=False)
    tencent = [
        i
        for i in cat.instances
        if i.provider == "Tencent Cloud"
        and i.gpu_model == "V100 SXM2 32GB"
        and i.instance == "GN10Xp"
    ]
    assert len(tencent) == 1
    t = tencent[0]
    assert (t.gpu_count, t.network_gbps, t.price_ondemand_usd_hr) == (8, 25, None)
    assert t.source.startswith("seed:")
    gn7i = next(i for i in cat.instances if i.provider == "Alibaba Cloud")
    assert (gn7i.gpu_model, gn7i.gpu_count, gn7i.network_gbps, gn7i.price_spot_usd_hr) == (
        "A10",
        4,
        100,
        0.5,
    )
    huawei = next(i for i in cat.instances if i.provider == "Huawei Cloud" and i.instance == "G6")
    assert huawei.gpu_model == "RTX A6000" and huawei.price_ondemand_usd_hr is None
    assert "T4" in huawei.doubt  # the flavor table says G6 is a T4 (issue 24)
    p4d_seed = next(
        i for i in cat.instances if i.instance == "p4d.24xlarge" and i.source.startswith("seed:")
    )
    assert p4d_seed.price_ondemand_usd_hr == 32.77
    assert p4d_seed.price_reserved_3y_usd_hr == pytest.approx(12000 / 720, abs=1e-3)
    p4d = next(i for i in cat.instances if i.instance == "p4d.24xlarge" and i.region == "us-east-1")
    assert p4d.price_ondemand_usd_hr == pytest.approx(21.957642)


def test_bad_rows_are_reported_as_file_line_and_good_rows_load() -> None:
    text = (
        "\n".join(
            [
                HEADER,
                "Acme,gpu.8x,r1,,H100,8,80,,,,,10,,,,,note",  # line 2: good
                "Acme,gpu.bad,r1,,A100,eight,,,,,,1,,,,,",  # line 3: bad count
                'Acme,"gpu.multi',  # line 4-5: a quoted cell across two lines, then a negative price
                'line",r1,,L4,1,,,,,,-1,,,,,',
                "Acme,gpu.x,r1,,Gaudi2,8,96,,,,,9,,,,,",  # line 6: unknown GPU → kept, flagged
                ",gpu.noprov,r1,,T4,1,,,,,,1,,,,,",  # line 7: missing provider
            ]
        )
        + "\n"
    )
    rows, issues = parse_instances_csv(text, name="mine.csv", origin="mine.csv")
    assert [r.instance for r in rows] == ["gpu.8x", "gpu.x"]
    assert rows[0].gpu_model == "H100 SXM" and rows[0].source == "user:mine.csv"
    assert rows[1].gpu_known is False and rows[1].gpu_model == "Gaudi2"
    as_text = [str(i) for i in issues]
    assert as_text[0].startswith("mine.csv:3: gpu_count is not a number")
    assert as_text[1] == "mine.csv:4: price_ondemand_usd_hr must be >= 0, got -1"
    assert as_text[2].startswith("mine.csv:6: unknown GPU 'Gaudi2'")
    assert issues[2].severity == "warning"
    assert as_text[3] == "mine.csv:7: missing provider"


def test_missing_required_column_is_one_issue() -> None:
    rows, issues = parse_instances_csv("provider,instance\nA,b\n", name="x.csv")
    assert rows == [] and str(issues[0]) == "x.csv:1: missing column(s): gpu_model, gpu_count"


def test_overlay_replaces_packaged_row(tmp_path: Path) -> None:
    (tmp_path / "negotiated.csv").write_text(
        HEADER
        + "\nAWS,p5.48xlarge,us-east-1,,NVIDIA H100,8,80,192,2048,,3200,30.0,,,,,2026-02-01,\n"
    )
    cat = load_catalog(overlay_dir=tmp_path)
    p5 = [i for i in cat.instances if i.instance == "p5.48xlarge"]
    assert len(p5) == 1 and p5[0].price_ondemand_usd_hr == 30.0 and p5[0].origin == "negotiated.csv"
    assert len(cat.instances) == len(load_catalog(overlays=False).instances)


SKY = """InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
cpu_4x_general,,,4.0,16.0,0.2,us-east-1,,
gpu_8x_a100,A100,8.0,124.0,1800.0,15.92,us-east-1,"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 40960}",
gpu_1x_h100,H100,1.0,26.0,200.0,abc,us-east-1,,
gpu_8x_a100_80gb,A100-80GB,8.0,240.0,1800.0,22.32,us-west-1,"{'Gpus': [{'Name': 'A100-80GB', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 81920}}]}",11.0
gpu_1x_gaudi,Gaudi2,1.0,8.0,64.0,2.0,us-east-1,,
"""


def test_skypilot_import(tmp_path: Path) -> None:
    src = tmp_path / "lambda" / "vms.csv"
    src.parent.mkdir()
    src.write_text(SKY)
    dest_dir = tmp_path / "overlays"
    dest_dir.mkdir()
    dest, rows, issues = import_catalog_file(src, fmt="skypilot", dest_dir=dest_dir)
    assert dest == dest_dir / "skypilot-lambda.csv"
    assert [r.instance for r in rows] == ["gpu_8x_a100", "gpu_8x_a100_80gb", "gpu_1x_gaudi"]
    a100, a100_80, gaudi = rows
    assert (
        a100.provider == "lambda" and a100.gpu_model == "A100 40GB SXM" and a100.gpu_mem_gib == 40
    )
    assert a100.price_ondemand_usd_hr == 15.92 and a100.price_spot_usd_hr is None
    assert a100_80.gpu_model == "A100 80GB SXM" and a100_80.price_spot_usd_hr == 11.0
    assert gaudi.gpu_known is False
    assert str(issues[0]) == f"{src}:4: price_ondemand_usd_hr is not a number: 'abc'"
    assert issues[1].severity == "warning" and issues[1].line == 6
    # The stored overlay reloads through the ordinary loader.
    cat = load_catalog(overlay_dir=dest_dir)
    assert {"gpu_8x_a100", "gpu_1x_gaudi"} <= {i.instance for i in cat.instances}


def test_cli_import_and_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "aws" / "vms.csv"
    src.parent.mkdir()
    src.write_text(SKY)
    assert (
        main(["catalog", "import", str(src), "--format", "skypilot", "--provider", "mycloud"]) == 0
    )
    out = capsys.readouterr()
    assert "imported 3 rows" in out.out and ":4: price_ondemand_usd_hr" in out.err
    assert main(["catalog", "list", "--provider", "mycloud", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["instance"] for r in rows} == {"gpu_8x_a100", "gpu_8x_a100_80gb", "gpu_1x_gaudi"}
    assert main(["catalog", "list", "--gpu", "H100", "--provider", "aws", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["gpu_model"] == "H100 SXM" and r["provider"] == "AWS" for r in rows)


def test_cli_import_of_garbage_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.csv"
    bad.write_text("hello,world\n1,2\n")
    assert main(["catalog", "import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpuprof: error: nothing imported") and err.count("\n") == 1
