"""Regions of the Chinese clouds' rows (issue 24, round three): Tencent's GPU families in the
regions its NVIDIA instance page lists, in China and abroad, each abroad row a specs-only row
that says no public price was found; a row naming several regions answers --region for each;
a row with no region says why."""

from __future__ import annotations

import pytest

from gpuprof.catalog.instances import Catalog, load_catalog
from gpuprof.catalog.money import published_prices

# regions in mainland China, by the providers' own region IDs
MAINLAND = {
    "cn-shanghai",
    "cn-shenzhen",
    "cn-beijing",
    "cn-hangzhou",
    "cn-north-4",
    "ap-guangzhou",
    "ap-shanghai",
    "ap-beijing",
    "ap-nanjing",
    "ap-chengdu",
    "ap-chongqing",
    "bj",
    "gz",
    "su",
}
# outside mainland China (Hong Kong counted with them: a separate market and price list)
ABROAD = {"ap-hongkong", "ap-singapore", "na-siliconvalley", "na-ashburn", "eu-frankfurt"}
CLOUDS = ("Alibaba Cloud", "Tencent Cloud", "Huawei Cloud", "Baidu AI Cloud", "Volcano Engine")


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return load_catalog(overlays=False)


def _parts(region: str) -> set[str]:
    return {p for p in region.split("/") if p}


def test_tencent_abroad_rows_are_specs_only_copies_of_the_guangzhou_types(
    shipped: Catalog,
) -> None:
    tencent = shipped.filter(providers=["tencent"]).instances
    guangzhou = {i.instance: i for i in tencent if i.region == "ap-guangzhou"}
    abroad = [i for i in tencent if _parts(i.region) and _parts(i.region) <= ABROAD]
    assert len(abroad) == 13
    assert {i.instance.split(".")[0] for i in abroad} == {"GN7", "GN10X", "GN10Xp"}
    for row in abroad:
        home = guangzhou[row.instance]
        same = ("gpu_model", "gpu_count", "gpu_mem_gib", "vcpus", "ram_gib", "network_gbps")
        assert [getattr(row, f) for f in same] == [getattr(home, f) for f in same], row
        assert home.price_ondemand_usd_hr is not None  # the Guangzhou row keeps its price
        assert not any(p is not None for p in published_prices(row)), row
        assert "no public price found" in row.notes and row.as_of == "2026-12-02"
        assert "cloud.tencent.com/document/product/560/19700" in row.source
        assert "https://www.tencentcloud.com/zh/document/api/213/35072" in row.source
        assert row.zone.count("/") == row.region.count("/"), row  # one zone per region
    by_name = {(i.instance, i.region): i for i in abroad}
    gn10x = by_name[("GN10X.18XLARGE320", "ap-singapore/na-siliconvalley/eu-frankfurt")]
    assert (gn10x.gpu_count, gn10x.vcpus, gn10x.ram_gib) == (8, 72, 320)
    assert "孟买二区" in gn10x.notes and "left out" in gn10x.notes
    gn7 = by_name[
        ("GN7.2XLARGE32", "ap-hongkong/ap-singapore/na-siliconvalley/na-ashburn/eu-frankfurt")
    ]
    assert gn7.gpu_model == "T4" and gn7.gpu_count == 1 and gn7.zone.startswith("ap-hongkong-2/")
    xp = by_name[("GN10Xp.20XLARGE320", "ap-hongkong/eu-frankfurt")]
    assert xp.gpu_model == "V100 SXM2 32GB" and xp.gpu_count == 8


def test_tencent_gt4_and_pnv4_carry_their_documented_china_regions(shipped: Catalog) -> None:
    rows = [
        i
        for i in shipped.filter(providers=["tencent"]).instances
        if i.instance.split(".")[0] in ("GT4", "PNV4")
    ]
    assert len(rows) == 8
    for row in rows:
        assert row.region == "ap-guangzhou/ap-shanghai/ap-beijing", row
        want = "ap-guangzhou-4" if row.instance.startswith("GT4") else "ap-guangzhou-7"
        assert row.zone.split("/")[0] == want
        assert "region: the family's zones" in row.notes
    monthly = next(i for i in rows if i.instance == "GT4.4XLARGE96")
    assert "does not say which region" in monthly.notes


def test_a_row_naming_several_regions_answers_for_each_of_them(shipped: Catalog) -> None:
    shanghai = {i.instance for i in shipped.filter(regions=["ap-shanghai"]).instances}
    assert {"GT4.41XLARGE948", "PNV4.7XLARGE116"} <= shanghai
    frankfurt = shipped.filter(providers=["tencent"], regions=["EU-Frankfurt "]).instances
    assert {i.instance.split(".")[0] for i in frankfurt} == {"GN7", "GN10X", "GN10Xp"}
    # Alibaba's quotes read in Shanghai or Shenzhen (the quote does not say which)
    shenzhen = shipped.filter(providers=["alibaba"], regions=["cn-shenzhen"]).instances
    assert {i.region for i in shenzhen} == {"cn-shanghai/cn-shenzhen"} and len(shenzhen) == 3
    # a whole region is still matched as given, and a part of a name is not a region
    assert shipped.filter(regions=["cn-shanghai/cn-shenzhen"]).instances
    assert not shipped.filter(regions=["ap-guang"]).instances
    assert not shipped.filter(regions=["/"]).instances


def test_each_chinese_cloud_has_its_regions_or_says_why_not(shipped: Catalog) -> None:
    rows = [i for i in shipped.instances if i.provider in CLOUDS]
    in_china = {i.provider for i in rows if _parts(i.region) & MAINLAND}
    abroad = {i.provider for i in rows if _parts(i.region) & ABROAD}
    # the clouds whose documents in the stored copies name a region
    assert {"Alibaba Cloud", "Tencent Cloud", "Baidu AI Cloud"} <= in_china
    # Tencent's NVIDIA instance page is the only one that names regions abroad
    assert "Tencent Cloud" in abroad
    for row in rows:
        if row.source.startswith("seed:") or row.region:
            continue
        assert "region: none given" in row.notes, row
    regionless = {i.provider for i in rows if not i.region and not i.source.startswith("seed:")}
    assert regionless == {"Huawei Cloud", "Volcano Engine"}


def test_every_new_region_is_a_known_one(shipped: Catalog) -> None:
    tencent = shipped.filter(providers=["tencent"]).instances
    for row in tencent:
        if row.region and not row.source.startswith("seed:"):
            assert _parts(row.region) <= MAINLAND | ABROAD, row
