"""The clouds Chinese teams use (issue 24): Alibaba, Tencent, Huawei and Volcano Engine rows
with their sources, published currency, monthly prices and zones; --provider aliases; the
providers' Chinese names."""

from __future__ import annotations

import pytest

from gpuprof.catalog.instances import Catalog, Instance, load_catalog
from gpuprof.catalog.money import FxRate, published_prices
from gpuprof.catalog.names import provider_key


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return load_catalog(overlays=False)


def _machine(row: Instance) -> tuple[object, ...]:
    """A row's machine: GPU model, GPU count, vCPUs, RAM (GiB), network (Gbit/s)."""
    return (row.gpu_model, row.gpu_count, row.vcpus, row.ram_gib, row.network_gbps)


def test_rows_per_provider(shipped: Catalog) -> None:
    count = {p: sum(1 for i in shipped.instances if i.provider == p) for p in shipped.providers}
    assert count["Alibaba Cloud"] >= 4 and count["Tencent Cloud"] >= 20
    assert count["Huawei Cloud"] >= 12 and count["Volcano Engine"] >= 1


def test_every_china_row_has_its_source_and_says_where_no_price_was_found(
    shipped: Catalog,
) -> None:
    china = shipped.filter(providers=["alibaba", "tencent", "huawei", "volcano"]).instances
    for inst in china:
        assert inst.source and inst.gpu_known and inst.gpu_count and inst.gpu_mem_gib, inst
        if not any(p is not None for p in published_prices(inst)):
            assert "no public price found" in inst.notes or inst.source.startswith("seed:"), inst


def test_alibaba_prices_are_kept_in_cny_with_the_monthly_quote(shipped: Catalog) -> None:
    gn7i = next(i for i in shipped.instances if i.instance == "ecs.gn7i-c8g1.2xlarge")
    assert gn7i.currency == "CNY" and gn7i.as_of == "2026-09-24"
    assert published_prices(gn7i)[0] == 9.74 and published_prices(gn7i)[4] == 4675.66
    # no CNY rate set: not compared in USD, never a made-up conversion
    assert gn7i.price_ondemand_usd_hr is None
    in_cny = shipped.in_currency("CNY", {})
    gn7i = next(i for i in in_cny.instances if i.instance == "ecs.gn7i-c8g1.2xlarge")
    assert gn7i.price_ondemand_usd_hr == 9.74 and gn7i.price_monthly_usd == 4675.66
    rate = FxRate("CNY", 7.0, "2026-11-30", "test")
    gn7i = next(
        i
        for i in shipped.in_currency("USD", {"CNY": rate}).instances
        if i.instance == gn7i.instance
    )
    assert gn7i.price_ondemand_usd_hr == pytest.approx(9.74 / 7.0)


def test_tencent_families_and_zones_in_china_and_abroad(shipped: Catalog) -> None:
    # the Guangzhou rows (a type also has a specs-only row abroad)
    tencent = {
        i.instance: i
        for i in shipped.filter(providers=["腾讯云"], regions=["ap-guangzhou"]).instances
    }
    gt4 = tencent["GT4.41XLARGE948"]
    assert _machine(gt4) == ("A100 40GB SXM", 8, 164, 948, 50)
    xp = tencent["GN10Xp.20XLARGE320"]
    assert xp.gpu_model == "V100 SXM2 32GB" and "法兰克福" in xp.notes and "广州" in xp.notes
    gn7 = tencent["GN7.2XLARGE32"]
    assert gn7.price_ondemand_usd_hr == 1.26 and gn7.zone == "ap-guangzhou-3"
    # the price page as Tencent's own documentation repository keeps it: dated by its commits
    assert gn7.as_of == "2024-12-24" and "tencentyun/intlcloud-documents" in gn7.source
    assert "last changed on 2023-06-30" in gn7.notes and "snapshot date:" not in gn7.notes


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("alibaba", "alibaba cloud"),
        ("Aliyun", "alibaba cloud"),
        ("阿里云", "alibaba cloud"),
        ("tencent", "tencent cloud"),
        ("huawei", "huawei cloud"),
        ("火山引擎", "volcano engine"),
        ("baidu", "baidu ai cloud"),
        ("AWS", "aws"),
    ],
)
def test_provider_aliases(typed: str, key: str) -> None:
    assert provider_key(typed) == key


def test_catalog_list_names_providers_in_chinese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof import i18n
    from gpuprof.cli import main

    # the real catalog in Chinese (patching tr itself leaked an unformatting tr into every
    # module first imported during the command); English again afterwards
    monkeypatch.setenv("GPUPROF_LANG", "zh_CN")
    try:
        args = ["catalog", "list", "--no-overlays", "--provider", "tencent", "--limit", "2"]
        assert main(args) == 0
    finally:
        i18n.set_language("en")
    assert "腾讯云" in capsys.readouterr().out


def test_baidu_hgn5_from_baidus_own_api_reference() -> None:
    cat = load_catalog(overlays=False).filter(providers=["百度智能云"])
    (row,) = cat.instances
    assert row.provider == "Baidu AI Cloud" and row.instance == "bcc.hgn5IB.c116m978.8A100-80g"
    assert (row.gpu_model, row.gpu_count, row.gpu_mem_gib, row.vcpus, row.ram_gib) == (
        "A100 80GB SXM",
        8,
        80,
        116,
        978,
    )
    assert "cloud.baidu.com/doc/BCC/s/imqoohncm" in row.source and row.as_of == "2026-12-02"
    assert row.price_ondemand_usd_hr is None and "no public price found" in row.notes


def test_alibaba_a100_v100_t4_a10_list_prices_from_a_dated_copy(shipped: Catalog) -> None:
    ali = {
        i.instance: i
        for i in shipped.filter(providers=["阿里云"]).instances
        if i.region == "cn-shanghai"
    }
    assert len(ali) >= 28
    for inst in ali.values():
        assert inst.currency == "CNY" and inst.as_of == "2023-06-17", inst
        assert "arthurchiao.github.io" in inst.source and "ecs-buy.aliyun.com" in inst.source
        assert published_prices(inst)[0] and published_prices(inst)[4], inst  # hour and 包月
    gn7e = ali["ecs.gn7e-c16g1.32xlarge"]
    assert _machine(gn7e) == ("A100 80GB SXM", 8, 128, 1000, 64)
    assert published_prices(gn7e)[0] == 277.93 and published_prices(gn7e)[4] == 133408
    assert "阿里云 GPU计算型 gn7e" in gn7e.notes


def test_tencent_v100_prices_from_tencents_own_documentation_repository(
    shipped: Catalog,
) -> None:
    tencent = {
        i.instance: i
        for i in shipped.filter(providers=["tencent"], regions=["ap-guangzhou"]).instances
    }
    expected = {"GN10Xp.20XLARGE320": 13.78, "GN10X.18XLARGE320": 21.71, "GN7.20XLARGE320": 8.06}
    for name, usd in expected.items():
        row = tencent[name]
        assert row.price_ondemand_usd_hr == usd and row.currency == "USD", row
        assert (row.region, row.zone, row.as_of) == ("ap-guangzhou", "ap-guangzhou-3", "2024-12-24")
        assert "no public price found" not in row.notes


def test_the_china_clouds_give_a_priced_answer_for_a_72b_model(shipped: Catalog) -> None:
    # the done-when: rows of Alibaba, Tencent and Huawei that hold Qwen2.5-72B's 145 GB
    # of bf16 weights on one node, with a price and a full date
    china = shipped.filter(providers=["alibaba", "tencent", "huawei"]).instances
    big = [
        i
        for i in china
        if i.gpu_count * (i.gpu_mem_gib or 0) >= 160 and published_prices(i)[0] is not None
    ]
    assert {i.provider for i in big} >= {"Alibaba Cloud", "Tencent Cloud"}
    assert len(big) >= 8 and all(len(i.as_of) == 10 for i in big)


@pytest.mark.parametrize(
    ("provider", "instance", "kind", "code"),
    [
        ("Alibaba Cloud", "ecs.gn7i-c8g1.2xlarge", "GPU compute", "gn7i"),
        ("Alibaba Cloud", "ecs.ebmgn7e.32xlarge", "GPU compute bare metal", "ebmgn7e"),
        ("Alibaba Cloud", "ecs.vgn6i-m4.xlarge", "vGPU accelerated", "vgn6i"),
        ("Tencent Cloud", "GN10Xp.20XLARGE320", "GPU compute", "GN10Xp"),
        ("Tencent Cloud", "HCCPNV4h.48XLARGE1024", "HPC cluster", "HCCPNV4h"),
        ("Huawei Cloud", "p2s.2xlarge.8", "computing-accelerated", "P2s"),
        ("Huawei Cloud", "pi2.2xlarge.4", "inference-accelerated", "Pi2"),
        ("Huawei Cloud", "g6.10xlarge.7", "graphics-accelerated", "G6"),
        ("Volcano Engine", "ecs.gni2.3xlarge", "GPU compute", "gni2"),
        ("Baidu AI Cloud", "bcc.hgn5IB.c116m978.8A100-80g", "GPU compute", "hgn5IB"),
    ],
)
def test_instance_families_as_the_clouds_name_them(
    provider: str, instance: str, kind: str, code: str
) -> None:
    from gpuprof.catalog.families import family_of, instance_label

    assert family_of(provider, instance) == (kind, code)
    assert instance_label(provider, instance) == f"{instance} ({kind} {code})"


def test_no_family_for_other_clouds_or_a_bare_family_name() -> None:
    from gpuprof.catalog.families import family_of, instance_label

    assert family_of("AWS", "p4d.24xlarge") is None and family_of("Alibaba Cloud", "x") is None
    assert instance_label("AWS", "p4d.24xlarge") == "p4d.24xlarge"
    assert instance_label("Tencent Cloud", "GN10Xp") == "GN10Xp"  # the seed rows' names
    assert instance_label("Alibaba Cloud", "ecs.gn7i") == "ecs.gn7i"


#: The zh_CN words this interface uses for the families (the helper's translation list; the
#: bundled catalog's own entries win once it carries them).
_ZH = {
    "GPU compute": "GPU计算型",
    "GPU compute bare metal": "GPU计算型弹性裸金属",
    "computing-accelerated": "计算加速型",
    "inference-accelerated": "推理加速型",
    "graphics-accelerated": "图形加速型",
    "{kind} {code}": "{kind} {code}",
    "{instance} ({family})": "{instance}（{family}）",
}


def test_catalog_list_in_chinese_names_providers_and_families(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof import i18n
    from gpuprof.cli import main

    monkeypatch.setenv("GPUPROF_LANG", "zh_CN")
    monkeypatch.setenv("COLUMNS", "400")
    zh = i18n._bundled("zh_CN")
    for en, text in _ZH.items():
        if en not in zh:
            monkeypatch.setitem(zh, en, text)
    providers = "alibaba,tencent,huawei,baidu,volcano"
    try:
        args = ["catalog", "list", "--no-overlays", "--limit", "0", "--provider", providers]
        assert main(args) == 0
    finally:
        i18n.set_language("en")
    out = capsys.readouterr().out
    for name in ("阿里云", "腾讯云", "华为云", "百度智能云", "火山引擎"):
        assert name in out, name
    assert "ecs.gn7i-c8g1.2xlarge（GPU计算型 gn7i）" in out
    assert "ecs.ebmgn7e.32xlarge（GPU计算型弹性裸金属 ebmgn7e）" in out
    assert "GN10Xp.20XLARGE320（GPU计算型 GN10Xp）" in out
    assert "p2s.2xlarge.8（计算加速型 P2s）" in out and "pi2.2xlarge.4（推理加速型 Pi2）" in out


def test_gt4_has_a_dated_monthly_price_and_no_invented_hourly_one(shipped: Catalog) -> None:
    (gt4,) = [i for i in shipped.instances if i.instance == "GT4.4XLARGE96"]
    assert gt4.currency == "CNY" and gt4.as_of == "2026-06-15"
    assert published_prices(gt4) == (None, None, None, None, 12948)
    assert "buy.cloud.tencent.com/price/cvm/overview" in gt4.source
    assert "no public pay-as-you-go price found" in gt4.notes


def test_tencent_pnv4_a10_sizes_with_their_allowlist_note(shipped: Catalog) -> None:
    pnv4 = {i.instance: i for i in shipped.instances if i.instance.startswith("PNV4.")}
    assert sorted((i.gpu_count, i.vcpus, i.network_gbps) for i in pnv4.values()) == [
        (1, 28, 13),
        (2, 56, 25),
        (4, 112, 50),
        (8, 224, 100),
    ]
    for row in pnv4.values():
        assert row.gpu_model == "A10" and row.price_ondemand_usd_hr is None
        assert "no public price found" in row.notes and "allowlist" in row.notes
        assert row.as_of == "2026-12-02" and "snapshot date: 2026-12-02" in row.notes
