"""The shipped GCP rows for GPUs attached to N1 VMs are priced VM + GPUs (issue 16), composed
the way a SkyPilot GCP import composes them, from the real N1 host rows of the reference's
catalog commit (tests/data/skypilot/gcp_n1_us_central1.csv, see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuprof.catalog.instances import Instance, load_catalog
from gpuprof.catalog.skypilot import COMPOSED_MARK, parse_skypilot_csv

EXCERPT = Path(__file__).parent / "data" / "skypilot" / "gcp_n1_us_central1.csv"


def _composed() -> dict[str, Instance]:
    rows, issues = parse_skypilot_csv(
        EXCERPT.read_text("utf-8"), name=EXCERPT.name, provider="GCP", as_of="2026"
    )
    assert issues == []
    return {r.instance: r for r in rows}


def _shipped_n1() -> dict[str, Instance]:
    cat = load_catalog(overlays=False)
    return {
        i.instance: i for i in cat.instances if i.provider == "GCP" and i.instance.startswith("n1")
    }


def test_the_shipped_n1_rows_are_the_composed_ones() -> None:
    composed, shipped = _composed(), _shipped_n1()
    assert set(shipped) == set(composed)
    assert len(shipped) == 7
    for name, want in composed.items():
        got = shipped[name]
        assert (got.gpu_model, got.gpu_count) == (want.gpu_model, want.gpu_count), name
        assert (got.vcpus, got.ram_gib, got.zone) == (want.vcpus, want.ram_gib, want.zone), name
        assert got.price_ondemand_usd_hr == pytest.approx(want.price_ondemand_usd_hr), name
        assert got.price_spot_usd_hr == pytest.approx(want.price_spot_usd_hr), name
        host = name.split(" + ")[0]
        assert got.notes.startswith(COMPOSED_MARK) and f"host {host} $" in got.notes, name
        assert got.doubt == "", name


def test_the_host_is_the_cheapest_that_fits() -> None:
    composed = _composed()
    # 1x T4 wants 4 vCPUs and 16 GiB: n1-standard-4 (15 GiB) is too small.
    t4 = composed["n1-highmem-4 + 1x T4"]
    assert t4.price_ondemand_usd_hr == pytest.approx(0.35 + 0.23661)
    assert t4.price_spot_usd_hr == pytest.approx(0.175 + 0.06466)
    # 4x T4 wants 48 vCPUs and 192 GiB: n1-standard-64 (240 GiB) is cheaper than highmem-64.
    assert composed["n1-standard-64 + 4x T4"].price_ondemand_usd_hr == pytest.approx(1.4 + 3.03998)
    # 8x V100 wants 64 vCPUs and 256 GiB: n1-standard-64 (240 GiB) is too small.
    v100 = composed["n1-highmem-64 + 8x V100"]
    assert v100.price_ondemand_usd_hr == pytest.approx(19.84 + 3.7857) and v100.ram_gib == 416
    # P100 rows are in us-central1-c, where the same hosts are listed.
    assert composed["n1-highmem-32 + 4x P100"].zone == "us-central1-c"


def test_the_excerpt_rows_are_the_reference_commit_layout() -> None:
    lines = EXCERPT.read_text("utf-8").splitlines()
    assert lines[0] == (
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
        "AvailabilityZone,Price,SpotPrice"
    )
    hosts = [line for line in lines[1:] if line.startswith("n1-")]
    gpus = [line for line in lines[1:] if line.startswith(",,,")]
    assert len(hosts) + len(gpus) == len(lines) - 1
    assert all(",us-central1,us-central1-" in line for line in hosts + gpus)
