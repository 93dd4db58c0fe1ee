"""Frontier-scale training terms (issue 23): a layout held fixed (a published run's), tensor-
parallel communication overlapped with the GEMMs, micro-batches of several sequences, the
attention's own rate and its recomputation, and the published-runs table's ``relative_to`` and
``hours_basis`` columns as the cross-validation reads them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gpuprof.catalog.specs import load_specs
from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY
from gpuprof.recommend.estimate import build_arrays, estimate
from gpuprof.recommend.parallel import pinned_layout
from gpuprof.recommend.roofline import training_work
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import offer
from tests.helpers.workloads import model_workload

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "tests" / "data" / "published_runs.csv"


def _arrays(nodes_gpus: int = 8, gbps: float = 3200.0):  # type: ignore[no-untyped-def]
    inst = offer("p5", count=nodes_gpus, network_gbps=gbps)
    specs = load_specs()
    return build_arrays((inst,), specs), specs


def _llama(name: str, **kw: object) -> Workload:
    return model_workload("pretrain", name, **kw)


def _run(w: Workload, nodes: int = 1) -> tuple[float, list[int]]:
    arr, specs = _arrays()
    est = estimate(w.with_(nodes=nodes, node_limit=max(nodes, 1)), arr, specs)
    assert est.layout is not None and bool(est.fits[0])
    return float(est.seconds[0]), [int(x) for x in est.layout[0]]


def test_a_layout_text_names_sizes_micro_batches_and_overlap() -> None:
    assert pinned_layout("TP4 PP8 cp2, VP4 interleaved mbs4 overlap") == {
        "tp": 4,
        "pp": 8,
        "cp": 2,
        "vp": 4,
        "mbs": 4,
        "overlap": 1,
    }
    assert pinned_layout("") == {} and pinned_layout("tp0 ppx fsdp8") == {}


def test_a_pinned_layout_is_the_one_costed_even_when_another_is_faster() -> None:
    w = _llama("llama-3-8b", precision="bf16", tokens=1e9, seq_len=8192, batch=64)
    free_s, free = _run(w)
    pinned_s, pinned = _run(w.with_(layout="tp4 pp2 cp1"))
    assert pinned[:2] == [4, 2] and pinned[3] == 1 and pinned[2] == 1  # d = 8 / (4 × 2)
    assert free != pinned and pinned_s > free_s  # the search had found a faster one


def test_tensor_parallel_overlap_hides_the_all_reduces_under_the_gemms() -> None:
    w = _llama("llama-3-70b", precision="bf16", tokens=1e9, seq_len=8192, batch=64)
    plain_s, plain = _run(w.with_(layout="tp8 pp1 cp1"), nodes=4)
    over_s, over = _run(w.with_(layout="tp8 pp1 cp1 overlap"), nodes=4)
    assert plain[:4] == over[:4] == [8, 1, 4, 1]
    assert over_s < plain_s
    # With no tensor parallelism there is nothing to overlap.
    w8 = _llama("llama-3-8b", precision="bf16", tokens=1e9, seq_len=8192, batch=64)
    a, _ = _run(w8.with_(layout="tp1 pp1 cp1"))
    b, _ = _run(w8.with_(layout="tp1 pp1 cp1 overlap"))
    assert a == pytest.approx(b)


def test_bigger_micro_batches_mean_fewer_of_them_and_a_bigger_pipeline_bubble() -> None:
    # 32 sequences per replica through 8 stages: 1F1B takes (m + p - 1) micro-batch times,
    # m = 32 of one sequence or 8 of four: (32 + 7) / 32 against (8 + 7) / 8 of the work.
    # (70B on 4 nodes: pipeline 8 × data parallel 4, batch 128.)
    w = _llama("llama-3-70b", precision="bf16", tokens=1e9, seq_len=4096, batch=128)
    one_s, lay = _run(w.with_(layout="tp1 pp8 cp1 vp1"), nodes=4)
    assert lay == [1, 8, 4, 1, 1, 1]  # tp pp dp cp vp ep
    four_s, _ = _run(w.with_(layout="tp1 pp8 cp1 vp1 mbs4"), nodes=4)
    assert four_s / one_s == pytest.approx((15 / 8) / (39 / 32), rel=0.02)
    # Interleaving (2 virtual stages) halves the bubble: (8 + 3.5) / 8.
    inter_s, lay = _run(w.with_(layout="tp1 pp8 cp1 vp2 mbs4"), nodes=4)
    assert lay[4] == 2
    assert inter_s / four_s == pytest.approx((11.5 / 8) / (15 / 8), rel=0.02)


def test_attention_runs_at_its_own_share_and_full_recompute_repeats_its_forward() -> None:
    te = TRAIN_EFFICIENCY
    w = _llama("llama-3-8b", precision="bf16", tokens=1e9, seq_len=8192)
    spec = load_specs()["H100 SXM"]
    peak = np.array([spec.peak_tflops("bf16") * 1e12])  # type: ignore[operator]
    base = np.array([te.gemm_share("tuned") * te.generation_share("Hopper")])
    attn_share = np.array([te.attention_share("tuned", "Hopper")])
    layers, hidden = w.layers or 0, w.hidden or 0

    def work(recompute: str) -> float:
        out, _ = training_work(
            w.with_(recompute=recompute),
            llm=True,
            flops=w.total_flops(),
            base=base,
            peak=peak,
            peak16=peak,
            mem_bw=np.array([3350e9]),
            train_eff=te,
            layers=layers,
            hidden=hidden,
            attention=attn_share,
        )
        return float(out[0])

    attn = w.attention_flops() / (peak[0] * attn_share[0])
    rest = work("none") - attn
    assert rest > 0 and attn > 0
    # Full recompute: the rest × the fitted factor, the attention × 4/3.
    assert work("full") == pytest.approx(rest * te.recompute_full + attn * 4.0 / 3.0)
    assert te.recompute_full < 4.0 / 3.0


@pytest.fixture(scope="module")
def tt():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "perf"))
    import truth_train

    return truth_train


def test_rows_on_another_gpu_count_as_ratios_to_a_row_of_their_run(tt) -> None:  # type: ignore[no-untyped-def]
    counted = {r["id"]: r for r in tt.read_rows(CSV)}
    apart = {r["id"] for r in tt.read_rows(CSV, hardware="other")}
    fp8 = counted["tt-h100-llama31-8b-8-fp8"]
    assert fp8["hardware"] == "other" and fp8["_ref"]["id"] == "tt-h100-llama31-8b-8"
    # The reference rows stay out of the fit: their GPU's clock is not known.
    assert "tt-h100-llama31-8b-8" in apart and "tt-h100-llama31-8b-8" not in counted
    assert not apart & set(counted)
    (m,) = tt.build([fp8])
    assert m.observed == pytest.approx(8532 / 6667)
    params = tt.params_of(TRAIN_EFFICIENCY)
    ratio = tt.predict(params, m)
    assert ratio == pytest.approx(tt._predict(params, m) / tt._predict(params, m.ref))
    # The estimate the recommender itself gives, as the same ratio.
    est, layout = tt.estimate_metric(m)
    assert est == pytest.approx(ratio, rel=0.005) and layout["tp"] == 1


def test_hours_derived_from_a_steady_throughput_carry_no_run_overhead(tt) -> None:  # type: ignore[no-untyped-def]
    rows = {r["id"]: r for r in tt.read_rows(CSV)}
    steady, run = rows["llama1-65b-gpu-hours"], rows["llama2-70b-gpu-hours"]
    assert steady["hours_basis"] == "steady" and not tt.whole_run(steady)
    assert tt.whole_run(run)
    m_steady, m_run = tt.build([steady, run])
    params = tt.params_of(TRAIN_EFFICIENCY)
    no_overhead = {**params, "run_overhead": 0.0}
    assert tt.predict(params, m_steady) == pytest.approx(tt.predict(no_overhead, m_steady))
    assert tt.predict(params, m_run) == pytest.approx(
        tt.predict(no_overhead, m_run) * (1.0 + params["run_overhead"])
    )


def test_a_layout_word_the_model_does_not_know_is_refused_not_ignored() -> None:
    from gpuprof.errors import InputError

    w = Workload("pretrain", 7e9, tokens=1e9, layout=" TP4,  pp8 Overlap")
    assert w.layout == "tp4 pp8 overlap"
    for bad in ("tpp4", "tp0", "interleaved", "fsdp8"):
        with pytest.raises(InputError, match="unknown layout word"):
            Workload("pretrain", 7e9, tokens=1e9, layout=bad)


def test_the_cli_takes_a_layout_and_costs_that_one(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from gpuprof.cli import main

    args = ["recommend", "--scenario", "pretrain", "--model", "llama-3-8b", "--tokens", "1e9"]
    args += ["--seq-len", "8192", "--batch", "64", "--gpu", "H100 SXM", "--gpus", "8", "--json"]
    assert main([*args, "--layout", "tp2 pp2 cp1"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert (row["layout"]["tp"], row["layout"]["pp"], row["layout"]["dp"]) == (2, 2, 2)
    assert main([*args, "--layout", "tp3x"]) == 2
    assert "unknown layout word" in capsys.readouterr().err
