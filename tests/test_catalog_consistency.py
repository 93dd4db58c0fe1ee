"""Consistency checks over the shipped instance catalog (issue 16), and the handling of rows
the data itself doubts (``doubtful:`` in the notes): shown with a warning, never winning
silently."""

from __future__ import annotations

import csv
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from gpuprof.catalog.audit import BAND, COUNT_IN_NAME, KNOWN_CONFIG
from gpuprof.catalog.instances import Catalog, Instance, load_catalog
from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.catalog.specs import ARCH_DTYPES, GpuSpec, arch_family, missing_dtypes
from gpuprof.recommend.rank import recommend
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return load_catalog(overlays=False)


def _undoubted(cat: Catalog) -> list[Instance]:
    return [i for i in cat.instances if not i.doubt]


def test_gpu_count_and_memory_match_the_published_configuration(shipped: Catalog) -> None:
    seen = set()
    for inst in shipped.instances:
        known = KNOWN_CONFIG.get((inst.provider.lower(), inst.instance.lower()))
        if known is None:
            continue
        seen.add((inst.provider.lower(), inst.instance.lower()))
        count, mem = known
        assert inst.gpu_count == count, inst
        if mem is not None:
            assert inst.gpu_mem_gib == pytest.approx(mem, rel=0.05), inst
    assert ("azure", "standard_nd96isr_h100_v5") in seen and ("aws", "p4d.24xlarge") in seen


def test_gpu_count_matches_the_count_in_the_instance_name(shipped: Catalog) -> None:
    checked = 0
    for inst in shipped.instances:
        pattern = COUNT_IN_NAME.get(inst.provider.lower())
        m = pattern.match(inst.instance) if pattern else None
        if m:
            checked += 1
            assert inst.gpu_count == int(m.group(1)), inst
    assert checked >= 10


def test_per_gpu_memory_matches_the_spec_table(shipped: Catalog) -> None:
    for inst in shipped.instances:
        spec = shipped.spec_for(inst)
        if spec is None or spec.memory_gib is None or inst.gpu_mem_gib is None:
            continue
        # Clouds report usable memory (22888 MiB for a 24 GiB L4): within 10 %.
        assert inst.gpu_mem_gib == pytest.approx(spec.memory_gib, rel=0.10), inst


def test_spot_is_not_above_on_demand(shipped: Catalog) -> None:
    for inst in _undoubted(shipped):
        od, spot = inst.price_ondemand_usd_hr, inst.price_spot_usd_hr
        if od is not None and spot is not None:
            assert spot <= od, inst


def test_price_per_gpu_hour_is_inside_a_sane_band_per_model(shipped: Catalog) -> None:
    per_model: dict[str, list[tuple[float, Instance]]] = defaultdict(list)
    for inst in _undoubted(shipped):
        if inst.price_ondemand_usd_hr and inst.gpu_count:
            per_model[inst.gpu_model].append((inst.price_ondemand_usd_hr / inst.gpu_count, inst))
    assert len(per_model) > 20
    for model, rows in per_model.items():
        median = statistics.median(p for p, _ in rows)
        for p, inst in rows:
            assert 0.05 <= p <= 40.0, inst
            assert median / BAND <= p <= median * BAND, (model, median, inst)


def test_no_duplicate_rows(shipped: Catalog) -> None:
    offers = Counter(i.offer for i in shipped.instances)
    assert [k for k, n in offers.items() if n > 1] == []
    keys = Counter((i.key, i.source.split(":")[0]) for i in shipped.instances)
    assert [k for k, n in keys.items() if n > 1] == []


def test_the_rows_the_data_doubts_are_marked(shipped: Catalog) -> None:
    doubted = {(i.provider, i.instance) for i in shipped.instances if i.doubt}
    assert ("Azure", "Standard_ND96isr_H100_v5") in doubted
    assert ("RunPod", "1x_L40S_SECURE") in doubted
    # GCP GPUs on N1 hosts are priced VM + GPUs (tests/test_catalog_gcp_n1.py): not doubted.
    n1 = [i for i in shipped.instances if i.provider == "GCP" and i.instance.startswith("n1-")]
    assert len(n1) == 7 and not any(i.doubt for i in n1)
    nd = next(i for i in shipped.instances if i.instance == "Standard_ND96isr_H100_v5")
    assert nd.gpu_count == 8 and nd.price_spot_usd_hr is None
    # p4d: the use1-az1 spot price the notes call an outlier (2.4655) is not the one used.
    p4d = next(i for i in shipped.instances if i.instance == "p4d.24xlarge" and i.region)
    assert p4d.price_spot_usd_hr != pytest.approx(2.4655)


def test_doubt_is_read_from_a_notes_clause() -> None:
    base = Instance(provider="X", instance="a", gpu_model="H100 SXM", gpu_count=8)
    assert base.doubt == ""
    assert Instance(**{**base.as_dict(), "notes": "outlier vs others"}).doubt == ""
    marked = Instance(**{**base.as_dict(), "notes": "zone a; Doubtful: count wrong; x"})
    assert marked.doubt == "count wrong"


def _two_rows(doubt_on_cheaper: bool) -> Catalog:
    cat = load_catalog(overlays=False)
    notes = "doubtful: price from a typo" if doubt_on_cheaper else ""
    cheap = offer("cheap.8x", price=10.0, provider="Acme", as_of="", notes=notes, origin="test")
    dear = Instance(**{**cheap.as_dict(), "instance": "dear.8x", "price_ondemand_usd_hr": 20.0})
    dear = Instance(**{**dear.as_dict(), "notes": ""})
    return Catalog(instances=(cheap, dear), specs=cat.specs, issues=())


@pytest.mark.parametrize("doubt", [False, True])
def test_a_doubtful_row_never_wins_silently(doubt: bool) -> None:
    w = Workload(scenario="train", params=7e9, tokens=2e10)
    rec = recommend(w, _two_rows(doubt), objective="cheapest")
    first, second = rec.rows[0], rec.rows[1]
    if not doubt:
        assert first.instance.instance == "cheap.8x"
        assert not any("doubtful" in x for x in first.warnings)
    else:
        # The cheaper row is doubted: the undoubted one ranks first, the doubted one is listed
        # with the reason as a warning.
        assert first.instance.instance == "dear.8x"
        assert second.instance.instance == "cheap.8x"
        assert any("price from a typo" in x for x in second.warnings)


# GPU models of the catalog whose spec row lacks a dtype its architecture runs
# (gpuprof.catalog.specs.ARCH_DTYPES), each with the reason. Filling one in shrinks this
# table: the test says so.
RATE_EXCEPTIONS = {
    "A10G": "AWS-only variant of the A10: neither NVIDIA nor AWS publishes its tensor rates in "
    "the consulted sources, and they differ from the A10's (so the A10 row is not reused)",
    "RTX 6000 Ada": "NVIDIA's datasheet gives one unlabelled tensor figure (1,457 TFLOPS); the "
    "per-format rates are not in the consulted sources",
    "RTX 4000 Ada": "no NVIDIA per-format figures in the consulted sources",
    "RTX PRO 6000 Blackwell": "NVIDIA publishes FP32 and an FP4 'AI TOPS' figure for the "
    "workstation card only; the server edition's per-format rates are not in the consulted "
    "sources",
    "MI355X": "AMD's per-format peaks are not in the consulted sources; secondary pages disagree "
    "on whether their FP8 figure is dense or sparse",
    "L20": "China-market Ada card (Alibaba gn8is): NVIDIA publishes no datasheet in the consulted "
    "sources; aggregators give memory, bandwidth and FP32 only (issue 24)",
    "Inferentia": "an AWS inference accelerator (Neuron SDK), not a GPU architecture",
    "Inferentia2": "an AWS inference accelerator (Neuron SDK), not a GPU architecture",
    "Trainium": "an AWS training accelerator (Neuron SDK), not a GPU architecture",
    "Trainium2": "an AWS training accelerator (Neuron SDK), not a GPU architecture",
}

SKYPILOT = Path(__file__).parent / "data" / "skypilot"


def _skypilot_gpu_names() -> set[str]:
    names = set()
    for path in sorted(SKYPILOT.glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                name = (row.get("AcceleratorName") or "").strip()
                if name and not name.lower().startswith("tpu"):  # TPUs are not imported
                    names.add(name)
    return names


def _catalog_models(shipped: Catalog) -> set[str]:
    models = {i.gpu_model for i in shipped.instances if i.gpu_known}
    for name in _skypilot_gpu_names():
        key = normalize_gpu_model(name)
        assert key is not None, name  # every GPU of the SkyPilot excerpts has a spec row
        models.add(key)
    return models


def test_every_catalog_gpu_has_the_rates_its_architecture_supports(shipped: Catalog) -> None:
    models = _catalog_models(shipped)
    assert {"H100 NVL", "B300", "GB200", "GB300", "A100 80GB SXM", "T4"} <= models
    gaps = {}
    for model in sorted(models):
        spec = shipped.specs[model]
        missing = missing_dtypes(spec)
        if missing:
            gaps[model] = missing
        if model not in RATE_EXCEPTIONS:
            # training's default dtype, and where its figure comes from
            assert spec.peak_tflops("fp32"), model
            assert spec.source and spec.notes, model
    assert set(gaps) == set(RATE_EXCEPTIONS), gaps
    assert all(len(reason) > 20 for reason in RATE_EXCEPTIONS.values())


def test_blackwell_rows_carry_fp4_and_older_ones_say_they_lack_it() -> None:
    specs = load_catalog(overlays=False).specs
    for key in ("B200", "B300", "GB200", "GB300"):
        assert arch_family(specs[key]) == "Blackwell"
        assert specs[key].peak_tflops("fp4") and specs[key].supports("fp4") is not False
    assert specs["H100 SXM"].supports("fp4") is False  # cc 9.0
    assert specs["A100 80GB SXM"].supports("fp8") is False
    assert missing_dtypes(GpuSpec(key="x", architecture="Blackwell")) == ARCH_DTYPES["Blackwell"]
    assert missing_dtypes(GpuSpec(key="x", architecture="Hopper (Grace Hopper)", fp32_tflops=1))
    assert missing_dtypes(GpuSpec(key="x")) == ("architecture",)


def test_dense_rates_rise_as_the_format_narrows() -> None:
    # A sparse figure stored as dense shows as TF32 > BF16 or FP8 > FP4 of the same row.
    order = ("tf32", "bf16", "fp8", "fp4")
    for key, spec in load_catalog(overlays=False).specs.items():
        rates = [spec.peak_tflops(d) for d in order]
        known = [r for r in rates if r is not None]
        assert known == sorted(known), (key, dict(zip(order, rates, strict=True)))
        if spec.fp16_tflops and spec.bf16_tflops:
            assert spec.fp16_tflops == pytest.approx(spec.bf16_tflops, rel=0.01), key


# Catalog GPUs that had no figure for the dtype (so no time or cost) before their spec rows
# were filled; Kepler and Pascal have no BF16, so they are asked for FP32.
@pytest.mark.parametrize(
    ("model", "precision"),
    [
        ("RTX A6000", "bf16"),
        ("H100 NVL", "bf16"),
        ("B300", "bf16"),
        ("GB200", "bf16"),
        ("GB300", "bf16"),
        ("RTX 3090", "bf16"),
        ("Quadro RTX 6000", "fp16"),
        ("K80", "fp32"),
        ("P100", "fp32"),
    ],
)
def test_the_gpus_with_filled_rows_get_a_time_and_a_cost(model: str, precision: str) -> None:
    cat = load_catalog(overlays=False)
    rows = [i for i in cat.instances if i.gpu_model == model and i.price_ondemand_usd_hr]
    assert rows
    sub = Catalog(instances=tuple(rows), specs=cat.specs, issues=())
    w = Workload(scenario="train", params=1e9, tokens=1e9, precision=precision)
    rec = recommend(w, sub, limit=None)
    assert rec.rows and all(r.hours is not None and r.cost_usd is not None for r in rec.rows)
