"""Memory fit, time, cost and ranking — expected numbers worked out by hand in each test."""

from __future__ import annotations

import json

import pytest

from gpuprof.catalog.instances import load_catalog
from gpuprof.cli import main
from gpuprof.errors import InputError
from gpuprof.recommend.memory import memory_need, model_shape
from gpuprof.recommend.rank import LocalMachine, recommend
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import catalog_of, offer
from tests.helpers.cli import train_argv

GiB = 2**30
T = 4096 * 1024  # default tokens per optimizer step: seq 4096 × global batch 1024


# -- memory ---------------------------------------------------------------------------------


def test_shape_rule() -> None:
    # N = 12·L·(128L)² → L = (7e9 / 196608)^(1/3) = 32.9 → 33, h = 4224; 175e9 → 96, 12288.
    assert model_shape(Workload("train", 7e9, tokens=1)) == (33, 4224)
    assert model_shape(Workload("train", 175e9, tokens=1)) == (96, 12288)


def test_memory_7b_training_bf16_on_8_gpus() -> None:
    w = Workload("train", 7e9, "bf16", tokens=1e9, layers=32, hidden=4096)
    need = memory_need(w, 8.0)
    # Data parallel with ZeRO-1: 2 + 2 bytes/param whole on every GPU = 28e9, the 12 optimizer
    # bytes sharded over 8: 12 × 7e9 / 8 = 10.5e9 → 38.5e9; activations 2·s·h·L + 34·s·h, s=4096.
    acts = 2 * 4096 * 4096 * 32 + 34 * 4096 * 4096  # 1,644,167,168
    assert float(need.weights + need.grads + need.optimizer) == pytest.approx(38.5e9)
    assert float(need.activations) == acts
    assert float(need.total) == pytest.approx(38.5e9 + 1_644_167_168)
    # Tensor parallel 8: weights and grads 4 × 7e9 / 8 = 3.5e9, optimizer 10.5e9 over all 8
    # GPUs → 14e9 (the fully sharded total); activations split by 8 (sequence parallel).
    tp8 = memory_need(w, 8.0, tp=8.0)
    assert float(tp8.weights + tp8.grads + tp8.optimizer) == pytest.approx(14e9)
    assert float(tp8.activations) == acts / 8


def test_memory_70b_training_needs_16_80gb_gpus() -> None:
    w = Workload("finetune-full", 70e9, "bf16", tokens=1e9, layers=80, hidden=8192)
    acts = 2 * 4096 * 8192 * 80 + 34 * 4096 * 8192  # 6,509,559,808
    usable = 0.85 * 80 * GiB  # 73,014,444,032
    # One replica on all GPUs (tp 8 × pp = G/8, dp 1): 16 bytes × 70e9 = 1.12e12 over G;
    # activations ÷ tp 8 = 813,694,976.
    on8 = float(memory_need(w, 8.0, tp=8).total)  # 140e9 + 0.81e9 > usable
    on16 = float(memory_need(w, 16.0, tp=8, pp=2).total)  # 70e9 + 0.81e9 = 70.81e9
    assert on8 == pytest.approx(140e9 + acts / 8) and on8 > usable
    assert on16 == pytest.approx(70e9 + acts / 8) and on16 < usable
    # Without tensor parallelism the whole 6.5e9 of activations stays: 76.5e9 > usable.
    pp16 = float(memory_need(w, 16.0, pp=16).total)
    assert pp16 == pytest.approx(70e9 + acts) and pp16 > usable
    # ZeRO-1 with two replicas (tp 8 × pp 2 × dp 2 on 32): 4 × 70e9 / 16 + 12 × 70e9 / 32
    # = 17.5e9 + 26.25e9 = 43.75e9.
    dp2 = memory_need(w, 32.0, tp=8, pp=2)
    assert float(dp2.weights + dp2.grads + dp2.optimizer) == pytest.approx(43.75e9)


def test_memory_175b_inference_fp16() -> None:
    w = Workload("inference", 175e9, "fp16", tokens=1e6, seq_len=2048, batch=1)
    # Weights alone: 175e9 × 2 bytes = 350 GB. KV: 2·L·h·s·b·2 = 2·96·12288·2048·1·2.
    kv = 2 * 96 * 12288 * 2048 * 1 * 2  # 9,663,676,416
    need1 = memory_need(w, 1.0)
    assert float(need1.weights) == 350e9
    assert float(need1.kv_cache) == kv
    assert float(memory_need(w, 8.0).total) == pytest.approx((350e9 + kv) / 8)


def test_memory_7b_and_70b_inference() -> None:
    w7 = Workload("inference", 7e9, "bf16", tokens=1e6, seq_len=4096, batch=16)
    kv7 = 2 * 33 * 4224 * 4096 * 16 * 2  # L=33, h=4224 from the shape rule
    assert float(memory_need(w7, 1.0).total) == pytest.approx(14e9 + kv7)
    w70 = Workload(
        "inference", 70e9, "int4", tokens=1e6, seq_len=4096, batch=1, layers=80, hidden=8192
    )
    kv70 = 2 * 80 * 8192 * 4096 * 1 * 2  # int4 weights keep a 16-bit KV cache
    assert float(memory_need(w70, 2.0).total) == pytest.approx((35e9 + kv70) / 2)


def test_memory_175b_training_total_state() -> None:
    w = Workload("pretrain", 175e9, "bf16", tokens=1e9)
    need = memory_need(w, 64.0, tp=8, pp=8)  # one replica over 64 GPUs: nothing repeated
    assert float(need.weights + need.grads + need.optimizer) * 64 == pytest.approx(16 * 175e9)


def test_lora_memory() -> None:
    w = Workload("finetune-lora", 70e9, "int4", tokens=1e8, layers=80, hidden=8192)
    need = memory_need(w, 1.0)
    # QLoRA: 70e9 × 0.5 bytes frozen + 0.5% trainable × 16 bytes = 35e9 + 5.6e9.
    assert float(need.weights + need.grads + need.optimizer) == pytest.approx(
        35e9 + 0.005 * 70e9 * 16
    )


# -- ranking --------------------------------------------------------------------------------


def test_70b_full_finetune_never_recommends_a_single_24gb_gpu() -> None:
    w = Workload("finetune-full", 70e9, "bf16", tokens=1e9)
    rec = recommend(w, load_catalog(overlays=False), limit=None)
    small = [r for r in rec.rows if r.gpus_total <= 1 and r.mem_per_gpu_bytes <= 24 * GiB]
    assert small, "the catalog has single 24 GB GPUs to reject"
    assert all(not r.viable for r in small)
    assert all("does not fit" in " ".join(r.warnings) for r in small)
    assert rec.rows[0].viable and rec.rows[0].mem_per_gpu_bytes * rec.rows[0].gpus_total > 1e12
    # Non-viable rows always rank after viable ones.
    flags = [r.viable for r in rec.rows]
    assert flags == sorted(flags, reverse=True)


def test_8xa100_vs_8xh100_time_is_a_roofline_of_matmul_peak_and_memory_bandwidth() -> None:
    """Issue 23: the generations differ by their compute AND bandwidth, not by one constant."""
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY
    from gpuprof.recommend.memory import model_shape

    cat = catalog_of(offer("a", "A100 80GB SXM", 8, 80, 20.0), offer("h", "H100 SXM", 8, 80, 40.0))
    w = Workload("pretrain", 7e9, "bf16", tokens=2e10)
    rows = {r.instance.instance: r for r in recommend(w, cat).rows}
    # Data parallel over 8 (ZeRO-1 fits): the gradient all-reduce hides under the backward of
    # the last micro-batch and the forward of the first; no pipeline, no tensor parallel.
    gemm = TRAIN_EFFICIENCY.gemm["tuned"]
    k = TRAIN_EFFICIENCY.bytes_per_token_layer_hidden
    layers, hidden = model_shape(w)
    flops = 6 * 7e9 * 2e10
    membytes = k * layers * hidden * 2e10

    hopper = TRAIN_EFFICIENCY.generation_share("Hopper")  # fitted, < 1

    run = 1 + TRAIN_EFFICIENCY.run_overhead  # a whole pretraining run (fitted)

    def hours(peak: float, bw: float, gen: float = 1.0) -> float:
        return (flops / (peak * gemm * gen) + membytes / (bw * 0.70)) / 8 / 3600 * run

    assert rows["a"].hours == pytest.approx(hours(312e12, 2039e9), rel=1e-6)
    assert rows["h"].hours == pytest.approx(hours(989e12, 3350e9, hopper), rel=1e-6)
    # H100 is 3.2x A100's peak but 1.6x its bandwidth, and its GEMMs reach a smaller share of
    # their peak: less than 3.2x faster.
    assert hopper < 1.0 and 1.5 < rows["a"].hours / rows["h"].hours < 989 / 312
    # Efficiency reads as the matmul share achieved: below the stack's GEMM share.
    assert rows["h"].efficiency < rows["a"].efficiency < gemm
    assert f"{_training_rows()} published training runs" in rows["h"].efficiency_source


def test_cost_is_hours_times_price_and_spot_adds_ten_percent() -> None:
    cat = catalog_of(
        offer(
            "a", "A100 80GB SXM", 8, 80, 20.0, price_spot_usd_hr=8.0, price_reserved_3y_usd_hr=10.0
        )
    )
    w = Workload("pretrain", 7e9, "bf16", tokens=2e10)
    r = recommend(w, cat).rows[0]
    assert r.cost_basis == "on-demand"
    assert r.cost_usd == pytest.approx(r.hours * 20.0)
    assert r.cost_spot_usd == pytest.approx(r.hours * 1.1 * 8.0)
    assert r.cost_reserved_3y_usd == pytest.approx(r.hours * 10.0)
    achieved_pflops = 6 * 7e9 * 2e10 / (r.hours * 3600) / 1e15
    assert r.usd_per_pflop_hour == pytest.approx(20.0 / achieved_pflops)
    rs = recommend(w.with_(spot=True), cat).rows[0]
    assert rs.cost_basis == "spot"
    assert rs.hours == pytest.approx(r.hours * 1.1)
    assert rs.cost_usd == pytest.approx(r.hours * 1.1 * 8.0)
    assert any("spot" in t for t in recommend(w.with_(spot=True), cat).warnings)


def test_multi_node_scaling_uses_the_network_and_warns_about_zones() -> None:
    p5 = offer("p5", "H100 SXM", 8, 80, 55.04, network_gbps=3200.0)
    w = Workload("pretrain", 70e9, "bf16", tokens=1e10)
    r = recommend(w, catalog_of(p5)).rows[0]
    # Shape from N: L = 71, h = 9088. 16 bytes × 70e9 = 1.12e12 of state: 8 GPUs hold at most
    # 140e9 each; 16 (2 nodes) as one replica hold 70e9 + activations ÷ tp. Activations
    # 2·4096·9088·71 + 34·4096·9088 = 6.55e9: tp 8 → 0.82e9, tp 4 → 1.64e9 fit in 73.0e9,
    # tp 2 → 3.28e9 does not (73.3e9).
    assert r.nodes == 2 and r.gpus_total == 16 and r.viable
    # Per sequence 6·70e9·4096 / (989e12 × gemm share) GPU-seconds of matmuls plus the memory-
    # bound operators' k·L·h bytes per token at 70 % of 3,350 GB/s; 1024 micro-batches, dp 1.
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY as eff

    act = 4096 * 9088 * 2  # one sequence's activations, 16-bit
    matmul = 6 * 70e9 * 4096 / (989e12 * eff.gemm["tuned"] * eff.generation_share("Hopper")) / 16
    membound = eff.bytes_per_token_layer_hidden * 71 * 9088 * 4096 / (3350e9 * 0.70) / 16
    tau_c = matmul + membound

    def ar(n: int) -> float:  # NCCL latency + ring term on NVLink, 450 GB/s per direction
        return 5.56e-6 + 1.98e-6 * 2 * (n - 1) + 2 * (n - 1) / n * act / 450e9

    # Pipeline sends over the network: 3200 Gbit/s per node / 8 GPUs = 50 GB/s per GPU.
    # Stages hold whole layers: the fullest of 4 has 18 of the 71, of 2 has 36.
    tau_44 = tau_c * 18 * 4 / 71 + 18 * 4 * ar(4) + 2 * act / 4 / 50e9  # tp 4, pp 4
    tau_82 = tau_c * 36 * 2 / 71 + 36 * 4 * ar(8) + 2 * act / 8 / 50e9  # tp 8, pp 2
    assert tau_44 < tau_82  # the faster layout is kept
    # Scaling: the matmul time of an ideal step ÷ the step (1F1B bubble (p-1)/m, all-reduces,
    # and the memory-bound operators).
    s = 1024 * matmul / ((1024 + 4 - 1) * tau_44)
    assert r.scaling_efficiency == pytest.approx(s)  # ≈ 0.83
    assert r.cost_usd == pytest.approx(r.hours * 55.04 * 2)
    assert any("one zone" in t for t in r.warnings)
    # Without a known network, a row never goes multi-node.
    alone = recommend(w, catalog_of(offer("nonet", "H100 SXM", 8, 80, 30.0))).rows[0]
    assert alone.nodes == 1 and not alone.viable


def test_deadline_objective_and_pareto() -> None:
    slow = offer("slow", "A100 80GB SXM", 8, 80, 10.0)
    fast = offer("fast", "H100 SXM", 8, 80, 40.0)
    dominated = offer("dom", "A100 80GB SXM", 8, 80, 50.0)
    cat = catalog_of(slow, fast, dominated)
    w = Workload("pretrain", 7e9, "bf16", tokens=2e10)
    base = {r.instance.instance: r for r in recommend(w, cat).rows}
    assert next(r.instance.instance for r in recommend(w, cat).rows) == "slow"  # cheapest
    assert base["slow"].pareto and base["fast"].pareto and not base["dom"].pareto
    between = (base["fast"].hours + base["slow"].hours) / 2
    rec = recommend(w.with_(deadline_hours=between), cat)
    assert rec.rows[0].instance.instance == "fast" and rec.rows[0].meets_deadline
    assert rec.rows[1].meets_deadline is False
    budget = base["slow"].cost_usd * 1.01
    rec = recommend(w.with_(budget_usd=budget), cat)
    assert rec.objective == "fastest" and rec.rows[0].instance.instance == "slow"
    assert recommend(w, cat, objective="fastest").rows[0].instance.instance == "fast"


def test_local_row_speedup_and_measured_efficiency() -> None:
    cat = catalog_of(offer("h", "H100 SXM", 8, 80, 40.0))
    w = Workload("pretrain", 1e9, "bf16", tokens=1e9)
    local = LocalMachine((("NVIDIA A100-SXM4-80GB", 1),), measured_tflops={"bf16": 250.0})
    rec = recommend(w, cat, local=local, local_util_pct=50)
    assert rec.local is not None and rec.local.efficiency_measured
    # Measured: 250/312 of spec, scaled by the stack's fitted GEMM share over the 83% typical
    # GEMM ceiling; the memory-bound operators add their roofline time (issue 23).
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY as te
    from gpuprof.recommend.memory import model_shape

    eff = 250 / 312 * te.gemm["tuned"] / 0.83
    layers, hidden = model_shape(w)
    matmul = 6 * 1e9 * 1e9 / (312e12 * eff)
    membound = te.bytes_per_token_layer_hidden * layers * hidden * 1e9 / (2039e9 * 0.70)
    assert rec.local.hours == pytest.approx((matmul + membound) / 3600 * (1 + te.run_overhead))
    assert rec.local.efficiency == pytest.approx(eff * matmul / (matmul + membound))
    row = rec.rows[0]
    assert row.speedup_vs_local == pytest.approx(rec.local.hours / row.hours)
    assert any("input pipeline" in t for t in rec.warnings)


def test_compatibility_and_fp64_pitfalls() -> None:
    cat = catalog_of(
        offer("a100", "A100 80GB SXM", 1, 80, 3.0),
        offer("t4", "T4", 1, 16, 0.5),
        offer("l4", "L4", 1, 24, 0.8),
        offer("mi", "MI300X", 8, 192, 48.0),
    )
    fp8 = {
        r.instance.instance: r
        for r in recommend(Workload("inference", 1e9, "fp8", tokens=1e6), cat).rows
    }
    assert not fp8["a100"].viable and any(
        "compute capability 8.0" in t for t in fp8["a100"].warnings
    )
    assert fp8["l4"].viable
    bf16 = {
        r.instance.instance: r
        for r in recommend(Workload("pretrain", 1e8, "bf16", tokens=1e8), cat).rows
    }
    assert not bf16["t4"].viable
    assert any("not a CUDA device" in t for t in bf16["mi"].warnings)
    hpc = Workload.presets()["fp64-risk"].with_(node_limit=1)
    rows = {r.instance.instance: r for r in recommend(hpc, cat, limit=None).rows}
    assert any("weak FP64" in t for t in rows["l4"].warnings)
    # A100 FP64 tensor 19.5 TFLOPS × 70% (HPL-like): 1e18 / (19.5e12 × 0.7) s.
    assert rows["a100"].hours == pytest.approx(1e18 / (19.5e12 * 0.7) / 3600)


def test_unknown_rates_give_unknown_time_not_a_guess() -> None:
    cat = catalog_of(offer("rtxpro", "RTX PRO 6000 Blackwell", 1, 96, 3.4))
    r = recommend(Workload("pretrain", 1e9, "bf16", tokens=1e9), cat).rows[0]
    assert r.hours is None and r.cost_usd is None
    assert any("no bf16 rate" in t for t in r.warnings)


def test_presets_are_valid_and_rank() -> None:
    cat = load_catalog(overlays=False)
    for key, w in Workload.presets().items():
        rec = recommend(w, cat, limit=5)
        assert rec.viable > 0, key
        assert rec.rows[0].viable and rec.rows[0].hours is not None, key


def test_bad_workloads_raise_input_error() -> None:
    with pytest.raises(InputError):
        Workload("train", 7e9, "bf17", tokens=1)
    with pytest.raises(InputError):
        Workload("train", 7e9, "int4", tokens=1)
    with pytest.raises(InputError):
        Workload("dance", 7e9, tokens=1)
    with pytest.raises(InputError):
        Workload("train", 7e9)


# -- CLI ------------------------------------------------------------------------------------


def test_cli_json_one_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    argv = train_argv(
        "7e9", "2e10", "--precision", "bf16", "--gpu", "A100-80GB", "--gpus", "8", "--json"
    )
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["rows"]
    # Data parallel on one node, gradient all-reduce hidden behind the backward pass: the
    # roofline of test_8xa100_vs_8xh100_time_is_a_roofline_of_matmul_peak_and_memory_bandwidth.
    from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY as te
    from gpuprof.recommend.memory import model_shape

    layers, hidden = model_shape(Workload("pretrain", 7e9, tokens=2e10))
    matmul = 6 * 7e9 * 2e10 / (312e12 * te.gemm["tuned"])
    membound = te.bytes_per_token_layer_hidden * layers * hidden * 2e10 / (2039e9 * 0.70)
    assert row["hours"] == pytest.approx((matmul + membound) / 8 / 3600 * (1 + te.run_overhead))
    assert row["gpu_model"] == "A100 80GB SXM" and row["efficiency_source"]
    assert row["mem_need_per_gpu_bytes"] > 0 and row["cost_usd"] == pytest.approx(
        row["hours"] * row["price_per_hour_usd"]
    )


def test_cli_instance_and_ranked_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(train_argv("7B", "2e10", "--instance", "p4d.24xlarge", "--json")) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) == 2 and {r["price_as_of"] for r in rows} == {"2026-01-21", "2026-11-29"}
    ranked = train_argv("7e9", "2e10", "--deadline", "3d", "--budget", "5000")
    assert main([*ranked, "--provider", "aws,gcp", "--limit", "5"]) == 0
    text = capsys.readouterr().out
    assert "as of" in text and ("AWS" in text or "GCP" in text)


@pytest.mark.parametrize(
    "argv",
    [
        train_argv("abc", "1e9"),
        ["recommend", "--scenario", "dance", "--params", "7e9", "--tokens", "1e9"],
        train_argv("7e9", "1e9", "--deadline", "soon"),
        train_argv("7e9", "1e9", "--instance", "nope"),
        train_argv("7e9", "1e9", "--gpu", "Z9000", "--gpus", "2"),
    ],
)
def test_cli_bad_values_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse type errors
        code = int(exc.code or 0)
    assert code == 2
    assert capsys.readouterr().err.strip().count("\n") <= 3


def _training_rows() -> int:
    """The training rows the shipped constants were fitted to (perf/truth_train.py's count)."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "perf"))
    import truth_train as tt

    return len(tt.read_rows(root / "tests" / "data" / "published_runs.csv"))
