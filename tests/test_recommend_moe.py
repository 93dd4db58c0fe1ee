"""Expert parallelism for training a mixture of experts (issue 23, gpuprof/recommend/parallel.py):
the routed experts' memory split over EP, the all-to-all dispatch/combine per MoE layer, and the
layout search choosing EP; the shipped MoE architectures' expert columns."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpuprof.cli import main
from gpuprof.errors import InputError
from gpuprof.recommend.memory import memory_need
from gpuprof.recommend.models import find_model, load_models
from gpuprof.recommend.parallel import moe_alltoall_seconds, pinned_layout
from gpuprof.recommend.workload import Workload
from tests.helpers.workloads import model_workload

MODELS = load_models()


def _moe(name: str, **kw: object) -> Workload:
    return model_workload("pretrain", name, **{"tokens": 1e9, **kw})


@pytest.mark.parametrize(
    ("name", "experts", "top_k", "share"),
    [
        ("mixtral-8x7b", 8, 2, (0.95, 0.98)),
        ("mixtral-8x22b", 8, 2, (0.94, 0.97)),
        ("deepseek-v3", 256, 8, (0.96, 0.985)),
        ("deepseek-v2", 160, 6, (0.93, 0.96)),
        ("qwen3-235b-a22b", 128, 8, (0.95, 0.98)),
    ],
)
def test_the_shipped_moe_rows_carry_their_experts(
    name: str, experts: int, top_k: int, share: tuple[float, float]
) -> None:
    arch = find_model(name, MODELS)
    assert (arch.experts, arch.top_k) == (experts, top_k)
    # The routed experts are most of the total; the rest is attention, embeddings, dense layers.
    assert share[0] < arch.expert_params / arch.params_total < share[1]


def test_expert_parallel_halves_the_expert_weights_and_gradients_per_doubling() -> None:
    w = _moe("mixtral-8x22b")
    dense = (w.params - w.expert_params) * 2.0  # 16-bit weights, one replica per GPU (tp pp 1)

    def parts(ep: int) -> tuple[float, float, float]:
        m = memory_need(w, 64.0, tp=1.0, pp=1.0, ep=float(ep)).breakdown()
        return m["weights"] - dense, m["grads"] - dense, m["optimizer"]

    for ep in (1, 2, 4):
        w1, g1, o1 = parts(ep)
        w2, g2, o2 = parts(2 * ep)
        assert w2 == pytest.approx(w1 / 2) and g2 == pytest.approx(g1 / 2)
        assert o2 == pytest.approx(o1)  # the distributed optimizer is over all GPUs already
    assert parts(1)[0] == pytest.approx(w.expert_params * 2.0)
    # A dense model has no experts to split: EP changes nothing.
    llama = Workload("pretrain", 70e9, tokens=1e9)
    a = memory_need(llama, 64.0, ep=1.0).total
    b = memory_need(llama, 64.0, ep=8.0).total
    assert float(a) == pytest.approx(float(b))


def test_all_to_all_scales_with_tokens_times_top_k_and_crosses_the_network_past_a_node() -> None:
    nv, net = 450e9, 50e9

    def a2a(ep: int, tokens: float, k: int, inter: float = net) -> float:
        return float(
            moe_alltoall_seconds(
                ep, tokens, 4096.0, k, peers_in_node=8.0, intra_bw=nv, inter_bw=inter
            )
        )

    base = a2a(8, 4096, 2)
    # tokens × hidden × top-k × 2 bytes, 7/8 of them to the other GPUs of the node.
    assert base == pytest.approx(4096 * 4096 * 2 * 2 * 7 / 8 / nv)
    assert a2a(8, 8192, 2) == pytest.approx(2 * base)
    assert a2a(8, 4096, 4) == pytest.approx(2 * base)
    assert a2a(1, 4096, 2) == 0.0
    # Inside one node the network does not matter; past it, half the bytes leave on it.
    assert a2a(8, 4096, 2, inter=1.0) == pytest.approx(base)
    assert a2a(16, 4096, 2) == pytest.approx(4096 * 4096 * 2 * 2 * 8 / 16 / net)
    assert a2a(16, 4096, 2) > 5 * base
    assert a2a(16, 4096, 2, inter=2 * net) == pytest.approx(a2a(16, 4096, 2) / 2)


def test_the_layout_search_picks_expert_parallel_for_a_large_moe_on_64_gpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (Top-8 models such as DeepSeek-V3 send 8 copies of each token: there the search may
    # prefer tensor × pipeline parallel, whose all-reduces move less; see parallel.py.)
    for model, gpus in (("mixtral-8x22b", "64"), ("mixtral-8x22b", "256"), ("mixtral-8x7b", "64")):
        argv = ["recommend", "--scenario", "train", "--model", model, "--tokens", "1e11"]
        assert main([*argv, "--gpu", "H100", "--gpus", gpus, "--json"]) == 0
        (row,) = json.loads(capsys.readouterr().out)["rows"]
        lay = row["layout"]
        assert lay["ep"] > 1, (model, lay)
        assert lay["tp"] * lay["pp"] * lay["cp"] * lay["dp"] <= int(gpus)
        assert (lay["dp"] * lay["cp"]) % lay["ep"] == 0  # EP is carved from data × context


def test_a_layout_with_ep8_parses_and_is_the_one_costed(capsys: pytest.CaptureFixture[str]) -> None:
    assert pinned_layout("TP1 PP4 VP8 EP8") == {"tp": 1, "pp": 4, "vp": 8, "ep": 8}
    assert Workload("pretrain", 7e9, tokens=1e9, layout="ep8").layout == "ep8"
    with pytest.raises(InputError, match="epN"):
        Workload("pretrain", 7e9, tokens=1e9, layout="ep0")
    argv = ["recommend", "--scenario", "train", "--model", "mixtral-8x7b", "--tokens", "1e11"]
    argv += ["--gpu", "H100", "--gpus", "64", "--layout", "tp1 pp4 vp8 ep8", "--json"]
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert {k: row["layout"][k] for k in ("tp", "pp", "vp", "ep", "dp")} == {
        "tp": 1,
        "pp": 4,
        "vp": 8,
        "ep": 8,
        "dp": 16,
    }
    # A dense model has no experts to split: ep in its layout text changes nothing.
    argv = ["recommend", "--scenario", "train", "--model", "llama-3-8b", "--tokens", "1e10"]
    argv += ["--gpu", "H100", "--gpus", "8", "--json"]
    assert main([*argv, "--layout", "tp1 pp1 ep8"]) == 0
    (pinned,) = json.loads(capsys.readouterr().out)["rows"]
    assert main([*argv, "--layout", "tp1 pp1"]) == 0
    (free,) = json.loads(capsys.readouterr().out)["rows"]
    assert pinned["layout"] == free["layout"] and pinned["layout"]["ep"] == 1
    assert pinned["hours"] == pytest.approx(free["hours"])


def test_expert_parallel_costs_time_when_it_leaves_the_node() -> None:

    w = _moe("mixtral-8x7b", seq_len=4096, batch=256)

    def secs(layout: str) -> float:
        return _layout_seconds(w.with_(layout=layout), nodes=8, work=1e5, layers=32)

    # Two experts per GPU in the node (EP 4 under TP 2: 8 GPUs) against EP 8 spanning 2 nodes.
    assert secs("tp2 pp1 cp1 ep8") > secs("tp2 pp1 cp1 ep4")


def test_expert_parallel_beyond_data_parallel_folds_over_tensor_parallel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Megatron-Core's MoE parallel folding: Qwen3-235B on 256 H100 at TP2 PP8 EP32 (data
    # parallel 16 < EP 32: the EP group spans the tensor-parallel pairs, whole experts per GPU).
    argv = ["recommend", "--scenario", "train", "--model", "qwen3-235b-a22b", "--tokens", "1e10"]
    argv += ["--gpu", "H100", "--gpus", "256", "--batch", "2048", "--json"]
    assert main([*argv, "--layout", "tp2 pp8 vp4 ep32"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["fits"] and (row["layout"]["dp"], row["layout"]["ep"]) == (16, 32)
    # A layout no candidate has the GPUs for is a row that does not fit, not a crash.
    assert main([*argv, "--layout", "tp8 pp64 ep128"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert not row["fits"]


def test_a_deduplicating_dispatcher_sends_a_token_once_per_remote_node() -> None:
    from gpuprof.recommend.parallel import remote_nodes_per_token

    # 128 experts on 4 nodes, top-8: a remote node misses all 8 picks with probability
    # C(96, 8) / C(128, 8) ~ 0.094, so ~2.72 of the 3 other nodes get the token.
    got = float(remote_nodes_per_token(4.0, 128, 8))
    miss = np.prod([(96 - i) / (128 - i) for i in range(8)])
    assert got == pytest.approx(3 * (1 - miss)) and 2.6 < got < 2.8
    assert float(remote_nodes_per_token(1.0, 128, 8)) == 0.0  # one node: nothing leaves it
    # Top-1 can reach at most one node: the chance it is a remote one.
    assert float(remote_nodes_per_token(4.0, 128, 1)) == pytest.approx(0.75)
    nv, net = 450e9, 50e9

    def a2a(ep: int, experts: int) -> float:
        return float(
            moe_alltoall_seconds(
                ep, 2048, 4096.0, 8, peers_in_node=8.0, intra_bw=nv, inter_bw=net, experts=experts
            )
        )

    # EP32 over 4 nodes: the plain all-to-all sends 8 x 24/32 = 6 copies across the network,
    # DeepEP ~2.72: 2.2x less time; inside one node (EP8) both send the same.
    assert a2a(32, 0) == pytest.approx(2048 * 4096 * 2 * 6 / net)
    assert a2a(32, 0) / a2a(32, 128) == pytest.approx(6 / got)
    assert a2a(8, 128) == pytest.approx(a2a(8, 0))


def test_layout_words_deepep_and_etp1_change_the_cost_where_they_apply() -> None:

    assert pinned_layout("tp4 pp8 ep8 etp1 deepep") == {
        "tp": 4,
        "pp": 8,
        "ep": 8,
        "etp": 1,
        "deepep": 1,
    }
    assert Workload("pretrain", 7e9, tokens=1e9, layout="ETP1 DeepEP").layout == "etp1 deepep"
    with pytest.raises(InputError, match="deepep"):
        Workload("pretrain", 7e9, tokens=1e9, layout="deepep2x")
    w = _moe("qwen3-235b-a22b", seq_len=4096, batch=2048)

    def secs(layout: str) -> float:
        return _layout_seconds(w.with_(layout=layout), nodes=32, work=1e6, layers=94)

    # EP32 spans 4 nodes: deduplicating the dispatch saves time.
    assert secs("tp2 pp8 vp4 ep32 deepep") < secs("tp2 pp8 vp4 ep32")
    # TP4 EP8: with the experts split over TP (ETP = TP) EP8 takes every 4th GPU, spanning
    # 4 nodes; expert tensor parallel 1 puts EP8 in one node (Megatron-Core's folding).
    assert secs("tp4 pp8 vp4 ep8 etp1") < secs("tp4 pp8 vp4 ep8")
    assert secs("tp4 pp8 vp4 ep8 etp1 deepep") == pytest.approx(secs("tp4 pp8 vp4 ep8 etp1"))
    # Folded, the expert grid takes consecutive ranks whatever the attention's context
    # parallelism: EP8 under TP4 CP8 stays in its node (nothing for DeepEP to deduplicate).
    long = w.with_(seq_len=131072, batch=256)

    def long_secs(layout: str) -> float:
        return _layout_seconds(long.with_(layout=layout), nodes=32, work=1e7, layers=94)

    inside = long_secs("tp4 pp8 vp4 ep8 etp1 cp8")
    assert long_secs("tp4 pp8 vp4 ep8 etp1 cp8 deepep") == pytest.approx(inside)
    assert long_secs("tp4 pp8 vp4 ep8 cp8") > inside  # unfolded: EP8 strides over 8 nodes


def test_expert_weight_traffic_is_a_roofline_per_gemm_pass() -> None:
    from gpuprof.recommend.decode import MEM_BW_EFFICIENCY
    from gpuprof.recommend.moe_dispatch import expert_weight_seconds

    bw = 3.35e12
    rate = bw * MEM_BW_EFFICIENCY
    weights = 300e6
    # Plenty of math per weight (a dense GEMM's thousands of tokens): nothing waits.
    assert expert_weight_seconds(weights, 1.0, bw, recompute=False) == 0.0
    # No math at all: two 16-bit reads and the FP32 gradient's read and write, all exposed.
    assert expert_weight_seconds(weights, 0.0, bw, recompute=False) == pytest.approx(
        weights * (2 + 2 + 8) / rate
    )
    # Between: only the weight-gradient pass (8 bytes a weight) outlasts its third of the math.
    third = weights * 4.0 / rate
    assert expert_weight_seconds(weights, 3 * third, bw, recompute=False) == pytest.approx(
        weights * 8.0 / rate - third
    )
    # Full recomputation reads the weights once more; no bandwidth known: not costed.
    assert expert_weight_seconds(weights, 0.0, bw, recompute=True) == pytest.approx(
        weights * 14.0 / rate
    )
    assert expert_weight_seconds(weights, 0.0, float("nan"), recompute=False) == 0.0


def test_few_tokens_per_expert_wait_on_the_expert_weights() -> None:
    # Qwen3-235B at TP4 EP8 ETP1: 16 experts a GPU, ~512 tokens each per micro-batch; at TP2
    # EP32 4 experts of ~4,096 tokens; Mixtral at EP8: one expert of ~8,192 tokens.
    qwen = _moe("qwen3-235b-a22b", seq_len=4096, batch=2048)
    mixtral = _moe("mixtral-8x7b", seq_len=4096, batch=256)

    def secs(w: Workload, layout: str, nodes: int, layers: int, bw: float) -> float:
        work = w.total_flops() / (989e12 * 0.5)  # an H100 at half its 16-bit peak
        return _layout_seconds(
            w.with_(layout=layout), nodes=nodes, work=work, layers=layers, mem_bw=bw
        )

    small = ("tp4 pp8 vp4 ep8 etp1 deepep", 32, 94)
    assert secs(qwen, *small, 3.35e12) > 1.05 * secs(qwen, *small, float("nan"))
    for w, args in (
        (qwen, ("tp2 pp8 vp4 ep32 deepep", 32, 94)),
        (mixtral, ("tp1 pp4 vp8 ep8", 8, 32)),
    ):
        assert secs(w, *args, 3.35e12) == pytest.approx(secs(w, *args, float("nan")))


def _layout_seconds(
    w: Workload, *, nodes: int, work: float, layers: int, mem_bw: float | None = None
) -> float:
    """Seconds of ``w``'s held layout on ``nodes`` 8-GPU nodes (NVLink 450 GB/s inside, 400 GB/s
    of network per node, 1 PB usable per GPU), ``work`` the job's GPU-seconds at base efficiency,
    a model of ``layers`` × 4096; ``mem_bw`` bytes/s of each GPU's memory (None: not given)."""
    from gpuprof.recommend.parallel import train_layout

    one = np.ones(1)
    lay = train_layout(
        w,
        per_sample=False,
        per_node=one * 8,
        nodes=nodes,
        work=one * work,
        intra_bw=one * 450e9,
        net_bw_node=one * 400e9,
        usable=one * 1e15,
        layers=layers,
        hidden=4096,
        mem_bw=None if mem_bw is None else one * mem_bw,
    )
    return float(lay.seconds[0])
