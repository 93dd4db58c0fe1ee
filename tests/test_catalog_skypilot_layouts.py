"""SkyPilot's catalog layouts per provider (tests/data/skypilot/, see its README): every provider's
column order (9 to 11 columns), LF or CRLF, and GCP's GPUs listed apart from their host VMs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpuprof.catalog.gcp_compose import Attachable, Host, host_for
from gpuprof.catalog.instances import Instance
from gpuprof.catalog.skypilot import COMPOSED_MARK, import_catalog_file, parse_skypilot_csv
from gpuprof.cli import main

DATA = Path(__file__).parent / "data" / "skypilot"
PROVIDERS = ("aws", "gcp", "azure", "lambda", "oci", "runpod")


def _parse(name: str, *, crlf: bool | None = None) -> tuple[list[Instance], list[str]]:
    text = (DATA / f"{name}_vms.csv").read_bytes().decode("utf-8")
    if crlf is not None:
        lf = text.replace("\r\n", "\n")
        text = lf.replace("\n", "\r\n") if crlf else lf
    rows, issues = parse_skypilot_csv(text, name=f"{name}/vms.csv", provider=name)
    return rows, [str(i) for i in issues]


def _by_instance(rows: list[Instance]) -> dict[str, Instance]:
    return {r.instance: r for r in rows}


def test_the_excerpts_keep_the_real_layouts() -> None:
    widths = {}
    for name in PROVIDERS:
        with open(DATA / f"{name}_vms.csv", newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh))
        widths[name] = len(header)
        assert header[0] == "InstanceType"
    assert widths == {"aws": 11, "gcp": 10, "azure": 10, "lambda": 9, "oci": 10, "runpod": 10}
    assert b"\r\n" in (DATA / "gcp_vms.csv").read_bytes()  # one excerpt as published on Windows


@pytest.mark.parametrize("name", PROVIDERS)
def test_lf_and_crlf_read_the_same(name: str) -> None:
    lf, crlf = _parse(name, crlf=False), _parse(name, crlf=True)
    assert lf == crlf and lf[0]


def test_aws_eleven_columns_zones_merged() -> None:
    rows, _ = _parse("aws")
    (p4d,) = rows  # CPU-only rows (a1.large, c3.large) skipped silently
    assert p4d.gpu_model == "A100 40GB SXM" and p4d.gpu_count == 8 and p4d.gpu_mem_gib == 40
    assert p4d.price_ondemand_usd_hr == 21.957642 and p4d.price_spot_usd_hr == 8.1915
    assert p4d.zone == "use1-az2,use1-az4"


def test_azure_generation_column() -> None:
    rows, issues = _parse("azure")
    t4 = _by_instance(rows)["Standard_NC4as_T4_v3"]
    assert t4.gpu_model == "T4" and t4.gpu_mem_gib == 16 and t4.price_spot_usd_hr == 0.0526
    assert set(_by_instance(rows)) == {"Standard_NC4as_T4_v3", "Standard_ND96asr_v4"}
    assert issues == []


def test_lambda_nine_columns_no_zone() -> None:
    rows, _ = _parse("lambda")
    assert [(r.instance, r.region) for r in rows] == [
        ("gpu_8x_v100", "us-east-1"),
        ("gpu_4x_a6000", "us-east-1"),
        ("gpu_4x_a6000", "us-west-1"),
    ]
    assert rows[1].gpu_model == "RTX A6000" and rows[1].gpu_mem_gib == 48


def test_oci_bare_metal_gpu_shapes() -> None:
    rows, _ = _parse("oci")
    h100 = _by_instance(rows)["BM.GPU.H100.8"]
    assert h100.gpu_model == "H100 SXM" and h100.gpu_count == 8 and h100.price_ondemand_usd_hr == 80
    assert h100.price_spot_usd_hr is None
    assert "VM.Standard.E4.Flex$_2_8" not in _by_instance(rows)


def test_runpod_price_after_spot_and_gb_written_as_mib() -> None:
    rows, _ = _parse("runpod")
    one = _by_instance(rows)["1x_A100-80GB_SECURE"]
    # RunPod's GpuInfo says 'SizeInMiB': 80 (it means GB): not 0.08 GiB; the spec table's 80.
    assert one.gpu_mem_gib == 80 and one.price_ondemand_usd_hr == 1.39
    assert one.zone == "US-TX-3,US-TX-4"


def test_gcp_gpu_rows_are_composed_with_their_host() -> None:
    rows, issues = _parse("gcp")
    by = _by_instance(rows)
    # A100 attaches only to its A2 type: host 0.73948 + GPU 2.93391 = 3.67339, the total
    # reference/cloud_gpu_instances.csv gives for a2-highgpu-1g in us-central1.
    a2 = by["a2-highgpu-1g"]
    assert a2.gpu_model == "A100 40GB SXM" and a2.gpu_count == 1 and a2.vcpus == 12
    assert a2.price_ondemand_usd_hr == pytest.approx(3.67339)
    assert a2.price_spot_usd_hr == pytest.approx(0.36975 + 1.4341)
    assert a2.zone == "us-central1-a,us-central1-b" and a2.notes.startswith(COMPOSED_MARK)
    # 1x T4 on N1: at least 4 vCPUs and 16 GiB; n1-standard-4 (15 GiB) is too small, so the
    # cheapest fit is n1-highmem-4.
    t4 = by["n1-highmem-4 + 1x T4"]
    assert t4.price_ondemand_usd_hr == pytest.approx(0.35 + 0.236606) and t4.ram_gib == 26
    # Host-only rows (a2-highgpu-2g has no A100x2 row here), CPU rows and TPUs: no instance.
    assert set(by) == {"a2-highgpu-1g", "n1-highmem-4 + 1x T4"}
    # 4x T4 needs 48 vCPUs (none in the zone); V100 in a zone without N1 rows: said once.
    (no_host,) = [i for i in issues if "no host VM" in i]
    assert "2 GPU rows" in no_host and "4x T4" in no_host


def test_host_choice_follows_the_count() -> None:
    hosts = [
        Host("n1-standard-16", "r", "z", 16, 60, 0.76, None),
        Host("n1-highmem-16", "r", "z", 16, 104, 0.95, None),
        Host("n1-standard-32", "r", "z", 32, 120, 1.52, None),
        Host("a2-highgpu-2g", "r", "z", 24, 170, 1.48, None),
    ]

    def gpu(name: str, count: float) -> Attachable:
        return Attachable(1, name, count, "r", "z", 1.0, None, "")

    # 2x V100 wants 16 vCPUs and 64 GiB: n1-standard-16 has 60 GiB, so n1-highmem-16.
    assert host_for(gpu("V100", 2), hosts).instance == "n1-highmem-16"  # type: ignore[union-attr]
    assert host_for(gpu("A100", 2), hosts).instance == "a2-highgpu-2g"  # type: ignore[union-attr]
    assert host_for(gpu("A100", 4), hosts) is None  # no a2-highgpu-4g in the zone
    assert host_for(gpu("P4", 3), hosts) is None  # a count GCP does not offer
    assert host_for(gpu("P4", 1), hosts).instance == "n1-standard-16"  # type: ignore[union-attr]


def test_cli_import_says_what_was_composed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "gcp" / "vms.csv"
    src.parent.mkdir()
    src.write_bytes((DATA / "gcp_vms.csv").read_bytes())
    assert main(["catalog", "import", str(src)]) == 0
    out = capsys.readouterr().out
    assert "imported 2 rows" in out and "composed 2 instances" in out


def test_import_stores_the_composed_rows(tmp_path: Path) -> None:
    src = tmp_path / "gcp" / "vms.csv"
    src.parent.mkdir()
    src.write_bytes((DATA / "gcp_vms.csv").read_bytes())
    dest, rows, _ = import_catalog_file(src, dest_dir=tmp_path)
    assert dest.name == "skypilot-gcp.csv" and len(rows) == 2
    assert "n1-highmem-4 + 1x T4" in dest.read_text("utf-8")
