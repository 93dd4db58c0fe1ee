"""Continuous batching per configuration: memory, the batch, replicas, bound and cost (issue 22).

For every candidate configuration — a catalog instance, a node count and a tensor-parallel size
``t`` (pipeline ``p`` = the nodes; a mixture of experts spreads its experts over the ``t`` GPUs,
expert parallel ``e = t``) — the layout search below picks the batch, the replicas the rate
needs and what they cost, from :mod:`.step` (one engine step) and :mod:`.latency` (TTFT and
TPOT at load). Everything is numpy over the candidates × a grid of batch sizes.

* **Memory**: per GPU the weights ``N·bytes/(t·p)``, the activations of one step's tokens
  (:data:`TOKEN_BUDGET` tokens × ``34·h`` bytes ÷ ``t``, one layer's working set: Korthikanti
  et al. 2022, as in :mod:`~gpuprof.recommend.memory`) and the KV cache in
  :data:`KV_FREE_FRACTION` of what is left. Tensor parallel splits the cache by KV head: past
  ``kv_heads`` GPUs each GPU keeps a copy of one head (a latent cache, MLA, is one head every
  GPU keeps). A sequence in flight holds on average ``P + O/2`` tokens of cache (paged
  attention allocates blocks as tokens are generated; vLLM, Kwon et al. 2023), so the cache
  holds ``b_max = KV bytes ÷ ((P + O/2) × KV bytes per token)`` sequences, at most ``--batch``
  (else :data:`~gpuprof.recommend.workload.MAX_SEQS`).
* **The batch**: the throughput-best ``b ≤ b_max`` whose TTFT and TPOT (at ``--slo`` p50 or
  p99) meet the targets; with no targets the best is the largest that runs. **Replicas**
  ``R = ceil(λ / (b*/(O·τ(b*))))``; instances ``ceil(R / replicas per instance)``; the load
  then spreads over all of them, and the row's batch, TTFT and TPOT are at that load.
* **Bound** of a row: ``latency target`` (a larger batch would miss it), ``communication``
  (the all-reduces take most of the step), ``compute``, ``memory capacity`` (the KV cache is
  full and the step is bandwidth bound: more memory would batch more), ``memory bandwidth``.
* **Cost**: instances × nodes × price per hour; per million output tokens (the ranking) and
  split by the share of step time the prompts take: per million input and per million output
  tokens (as API prices are quoted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.serve.latency import latency, meets_targets
from gpuprof.recommend.serve.step import (
    TOKEN_BUDGET,
    Hardware,
    Shape,
    allreduce_link,
    cycle_seconds,
    shape_of,
    step_seconds,
)
from gpuprof.recommend.workload import MAX_SEQS, Workload

__all__ = [
    "BOUNDS",
    "KV_FREE_FRACTION",
    "ServeArrays",
    "ServeConfig",
    "finite",
    "serve_estimates",
    "tp_options",
]

Arr = npt.NDArray[np.float64]

#: Share of the memory left after the weights and one step's activations that the engine gives
#: its KV cache: TensorRT-LLM's default ``free_gpu_memory_fraction`` (KvCacheConfig; its
#: published benchmarks use 0.95). Serving engines own their GPUs: no training-style headroom.
KV_FREE_FRACTION = 0.9
#: Activation bytes per token of a step per unit of hidden size: one layer's working set,
#: ``34·s·h`` (Korthikanti et al. 2022, as :mod:`~gpuprof.recommend.memory` uses for training).
ACT_BYTES_PER_TOKEN_HIDDEN = 34.0
#: The batch sizes tried per configuration (geometric, 1 … MAX_SEQS) plus its own b_max.
BATCH_GRID = np.unique(np.round(np.geomspace(1.0, float(MAX_SEQS), 72)))
#: With no TTFT target, replicas are sized for at most this share of their capacity: near
#: capacity the queue's wait grows as 1 / (1 − load) (M/D/1), so some headroom is the norm.
MAX_LOAD = 0.9
#: Tensor-parallel sizes tried inside a node.
TP_SIZES = (1, 2, 4, 8)
#: What limits a row, in the order the model names them.
BOUNDS = ("latency target", "communication", "compute", "memory capacity", "memory bandwidth")


@dataclass(frozen=True)
class ServeConfig:
    """One layout of a candidate: ``tp`` GPUs × ``pp`` nodes per replica, ``dp`` replicas on
    each group of ``nodes`` instances (arrays broadcast over candidates)."""

    nodes: int
    tp: Arr
    pp: Arr
    dp: Arr
    valid: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ServeArrays:
    """The serving estimate of every candidate (NaN where unknown); one chosen layout each."""

    nodes: Arr
    tp: Arr
    pp: Arr
    ep: Arr
    dp: Arr  # replicas per instance group
    fits: npt.NDArray[np.bool_]
    need_bytes: Arr  # per GPU at b_max (weights + activations + KV)
    batch_max: Arr  # sequences the KV cache holds (and the engine allows)
    batch_best: Arr  # the throughput-best batch meeting the targets
    batch: Arr  # sequences in flight at the row's load
    kv_tokens: Arr  # KV-cache capacity of one replica, tokens
    replicas: Arr
    instances: Arr
    req_s_replica: Arr  # capacity of one replica at batch_best, requests/s
    tokens_s_instance: Arr  # output tokens/s one instance group sustains at batch_best
    load: Arr  # λ ÷ the capacity of all the instances
    ttft_p50_s: Arr
    ttft_p99_s: Arr
    tpot_p50_s: Arr
    tpot_p99_s: Arr
    prefill_share: Arr  # of the step time at load, for the input/output cost split
    meets: npt.NDArray[np.bool_]  # the latency targets (True when none)
    bound_idx: npt.NDArray[np.int64]  # into BOUNDS
    step_s: Arr  # τ at load
    t_memory_s: Arr
    t_compute_s: Arr
    t_comm_s: Arr
    #: The chosen layout's hardware per GPU (for :mod:`gpuprof.recommend.trace`).
    mem_bw: Arr
    flops: Arr
    link: Arr
    net: Arr
    pf_flops: Arr  # the prompt tokens' GEMMs
    attn_flops: Arr  # the prompt tokens' attention
    sms: Arr  # SMs per GPU (NaN: unknown)

    def hardware(self, i: int) -> Hardware:
        """Candidate ``i``'s chosen layout as one step's :class:`Hardware` (columns of one row)."""
        fields: tuple[Arr, ...] = (self.tp, self.pp, self.mem_bw, self.flops, self.link, self.net)
        fields += (self.pf_flops, self.attn_flops, self.sms)
        return Hardware(*(np.asarray([float(a[i])]) for a in fields))


def tp_options(count: Arr, nodes: int) -> list[ServeConfig]:
    """Layouts per candidate: one node runs ``count / t`` replicas of ``t`` GPUs each (``t`` in
    :data:`TP_SIZES`, ≤ the GPUs; a GPU partition runs one replica); several nodes run
    pipeline-parallel replicas over all of them with ``t`` = the node's GPUs (at most 8, the
    rest as more replicas)."""
    count = np.asarray(count, dtype=np.float64)
    whole = np.maximum(np.floor(count), 1.0)
    out = []
    if nodes == 1:
        for t in TP_SIZES:
            valid = (count >= t) | ((t == 1) & (count > 0))
            valid &= (whole % t == 0) | (count < 1)
            dp = np.where(count < 1, 1.0, np.floor(whole / t))
            out.append(ServeConfig(1, np.full_like(count, t), np.ones_like(count), dp, valid))
        return out
    tp = np.minimum(whole, 8.0)
    valid = (count >= 1) & (whole % tp == 0)
    out.append(ServeConfig(nodes, tp, np.full_like(count, float(nodes)), whole / tp, valid))
    return out


def _layout_eval(
    w: Workload,
    s: Shape,
    cfg: ServeConfig,
    usable: Arr,
    hw: Hardware,
    lam: float,
) -> dict[str, Arr]:
    """The serving numbers of one layout for every candidate (1-D arrays)."""
    devices = cfg.tp * cfg.pp
    weights = s.params * s.wbytes / devices
    if s.attention_dp:  # the non-expert weights whole on every GPU, the experts split
        weights = (s.params - s.expert_total + s.expert_total / cfg.tp) * s.wbytes / cfg.pp
    acts = TOKEN_BUDGET * ACT_BYTES_PER_TOKEN_HIDDEN * s.hidden / cfg.tp
    free = np.maximum(usable - weights - acts, 0.0) * KV_FREE_FRACTION
    kv_room = free * devices / s.kv_copies(cfg.tp)
    kv_tokens = kv_room / s.kv_token if s.kv_token > 0 else np.full_like(usable, np.inf)
    cap = float(w.batch) if w.batch is not None else float(MAX_SEQS)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_max = np.minimum(np.floor(kv_tokens / s.held), cap)
    fits = cfg.valid & (b_max >= 1.0) & np.isfinite(hw.mem_bw) & np.isfinite(hw.flops)
    b_max = np.where(fits, b_max, 1.0)
    grid = np.minimum(BATCH_GRID[None, :], b_max[:, None])
    grid = np.concatenate([grid, b_max[:, None]], axis=1)
    col = Hardware(
        hw.tp[:, None],
        hw.pp[:, None],
        hw.mem_bw[:, None],
        hw.flops[:, None],
        hw.link[:, None],
        hw.net[:, None],
        None if hw.pf_flops is None else hw.pf_flops[:, None],
        None if hw.attn_flops is None else hw.attn_flops[:, None],
        None if hw.sms is None else hw.sms[:, None],
    )
    demand = grid * s.prompt / s.output
    m, c, x = cycle_seconds(s, col, grid, demand)
    tau = m + c + x
    runs = latency(s, col, grid, tau, np.zeros_like(grid))[4]
    with np.errstate(divide="ignore", invalid="ignore"):
        req_s = np.where(runs, grid / (s.output * tau), 0.0)
        cap = req_s.max(axis=1, initial=0.0)
        rho_c = req_s / cap[:, None]
    ttft50, ttft99, tpot50, tpot99, runs = latency(s, col, grid, tau, rho_c)
    meets = meets_targets(w, ttft50, ttft99, tpot50, tpot99) & runs
    # The throughput-best batch that meets the targets (ties: the larger); none meets → the
    # throughput-best that runs, flagged.
    any_meets: npt.NDArray[np.bool_] = np.asarray(meets.any(axis=1), dtype=bool)
    pick_from = np.where(any_meets[:, None], meets, runs)
    score = np.where(pick_from, req_s, -1.0)
    best_j = score.shape[1] - 1 - np.argmax(score[:, ::-1], axis=1)
    rows = np.arange(len(usable))
    b_best = grid[rows, best_j]
    cap_req = req_s[rows, best_j]
    runs_any = runs.any(axis=1)
    fits &= runs_any
    # A larger batch that runs but misses a target: the target bounds this row.
    larger_runs = (runs & (grid > b_best[:, None])).any(axis=1)
    target_bound = any_meets & larger_runs & (req_s.max(axis=1, initial=0.0) > cap_req * 1.001)
    dp = np.maximum(cfg.dp, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # No TTFT target: leave the queue MAX_LOAD of the capacity (its wait ~ 1/(1 - load)).
        usable_req = cap_req * (MAX_LOAD if w.ttft_s is None else 1.0)
        replicas = np.maximum(np.ceil(lam / usable_req * (1.0 - 1e-9)), 1.0)
        instances = np.ceil(replicas / dp)
        lam_r = lam / (instances * dp)
    b_load = _batch_at(grid, req_s, runs & (grid <= b_best[:, None]), lam_r, b_best)
    dem_l = b_load * s.prompt / s.output
    m_l, c_l, x_l = cycle_seconds(s, hw, b_load, dem_l)
    tau_l = m_l + c_l + x_l
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_load = np.minimum(lam_r / cap, 1.0)
    t50, t99, p50, p99, _ = latency(s, hw, b_load, tau_l, rho_load)
    m_d, c_d, x_d = step_seconds(s, hw, b_load, np.zeros_like(b_load))
    tau_decode = m_d + c_d + x_d
    with np.errstate(divide="ignore", invalid="ignore"):
        prefill_share = np.where(tau_l > 0, np.clip(1.0 - tau_decode / tau_l, 0.0, 1.0), 0.0)
    meets_row = meets_targets(w, t50, t99, p50, p99) & any_meets
    # The bound at the chosen batch.
    m_b, c_b, x_b = cycle_seconds(s, hw, b_best, b_best * s.prompt / s.output)
    bound = np.where(
        target_bound,
        0,
        np.where(
            x_b > m_b + c_b,
            1,
            np.where(c_b >= m_b, 2, np.where(b_best >= b_max, 3, 4)),
        ),
    ).astype(np.int64)
    need = weights + acts + b_max * s.held * s.kv_token * s.kv_copies(cfg.tp) / devices
    cap_tokens = cap_req * s.output * cfg.dp
    with np.errstate(divide="ignore", invalid="ignore"):
        load = lam / (cap_req * instances * cfg.dp)
    return {
        "fits": fits.astype(np.float64),
        "need": need,
        "b_max": b_max,
        "b_best": b_best,
        "b_load": b_load,
        "kv_tokens": kv_tokens,
        "replicas": replicas,
        "instances": instances,
        "req_s": cap_req,
        "tokens_s": cap_tokens,
        "load": load,
        "ttft50": t50,
        "ttft99": t99,
        "tpot50": p50,
        "tpot99": p99,
        "prefill_share": prefill_share,
        "meets": meets_row.astype(np.float64),
        "bound": bound.astype(np.float64),
        "step": tau_l,
        "t_mem": m_l,
        "t_comp": c_l,
        "t_comm": x_l,
    }


def _batch_at(grid: Arr, req_s: Arr, ok: npt.NDArray[np.bool_], lam_r: Arr, b_best: Arr) -> Arr:
    """The mean batch in flight when a replica gets ``lam_r`` requests/s: where the capacity
    curve ``req_s(b)`` (nondecreasing in ``b``) reaches it, linear between grid points; below
    the first point the load is a fraction of a sequence (Little's law at ``τ(1)``)."""
    rows = np.arange(grid.shape[0])
    reach = np.where(ok, req_s, -np.inf) >= lam_r[:, None]
    j = np.argmax(reach, axis=1)
    found = reach[rows, j]
    j0 = np.maximum(j - 1, 0)
    r0, r1 = req_s[rows, j0], req_s[rows, j]
    g0, g1 = grid[rows, j0], grid[rows, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = g0 + np.clip((lam_r - r0) / (r1 - r0), 0.0, 1.0) * (g1 - g0)
        light = g1 * lam_r / r1
    out = np.where(j > 0, np.where(r1 > r0, between, g1), light)
    return np.where(found & np.isfinite(out), out, b_best)


def serve_estimates(
    w: Workload,
    *,
    count: Arr,
    mem_bytes: Arr,
    mem_bw: Arr,
    flops_per_gpu: Arr,
    intra_bw: Arr,
    net_bw_node: Arr,
    node_options: list[int],
    pcie_gen: Arr | None = None,
    prefill_flops_per_gpu: Arr | None = None,
    attention_flops_per_gpu: Arr | None = None,
    sm_count: Arr | None = None,
) -> ServeArrays:
    """The serving estimate of every candidate (``count`` GPUs per node, per-GPU arrays).

    ``flops_per_gpu`` is the peak for the weights' dtype × the base efficiency. Per candidate
    the layout (node count, tensor parallel) with the most output tokens/s per node that fits
    and meets the targets wins; more nodes only where fewer do not fit.
    """
    s = shape_of(w)
    sms = None if sm_count is None else np.asarray(sm_count, dtype=np.float64)
    lam = w.requests_per_s
    usable = mem_bytes  # the KV cache takes KV_FREE_FRACTION of what is left
    per_node = np.maximum(np.ceil(count), 1.0)
    best: dict[str, Arr] | None = None
    # Tensor parallel stays inside a node; pipeline hops cross the network.
    link = allreduce_link(intra_bw, pcie_gen)
    for n in node_options:
        for cfg in tp_options(count, n):
            valid = cfg.valid & (np.isfinite(net_bw_node) if n > 1 else True)
            if w.tp is not None:  # asked for: that tensor-parallel size only
                valid = valid & (cfg.tp == w.tp)
            cfg = ServeConfig(cfg.nodes, cfg.tp, cfg.pp, cfg.dp, valid)
            hw = Hardware(
                cfg.tp,
                cfg.pp,
                mem_bw,
                flops_per_gpu,
                link,
                net_bw_node / per_node,
                prefill_flops_per_gpu,
                attention_flops_per_gpu,
                sms,
            )
            cand = _layout_eval(w, s, cfg, usable, hw, lam)
            cand.update(tp=cfg.tp, pp=cfg.pp, dp=cfg.dp, nodes=np.full_like(count, float(n)))
            cand.update(hw_link=link + 0.0 * count, hw_net=net_bw_node / per_node)
            if best is None:
                best = cand
                continue
            fits_new, fits_old = cand["fits"] > 0, best["fits"] > 0
            meets_new = cand["meets"] > 0
            meets_old = best["meets"] > 0
            per_node_new = cand["tokens_s"] / n
            per_node_old = best["tokens_s"] / best["nodes"]
            same_nodes = best["nodes"] == n
            better = fits_new & (
                ~fits_old
                | (same_nodes & meets_new & ~meets_old)
                | (same_nodes & (meets_new == meets_old) & (per_node_new > per_node_old))
            )
            for k in best:
                best[k] = np.where(better, cand[k], best[k])
    assert best is not None
    moe = w.active_params is not None and w.active_params < w.params
    return ServeArrays(
        nodes=best["nodes"],
        tp=best["tp"],
        pp=best["pp"],
        ep=best["tp"] if moe else np.ones_like(best["tp"]),
        dp=best["dp"],
        fits=best["fits"] > 0,
        need_bytes=best["need"],
        batch_max=best["b_max"],
        batch_best=best["b_best"],
        batch=best["b_load"],
        kv_tokens=best["kv_tokens"],
        replicas=best["replicas"],
        instances=best["instances"],
        req_s_replica=best["req_s"],
        tokens_s_instance=best["tokens_s"],
        load=best["load"],
        ttft_p50_s=best["ttft50"],
        ttft_p99_s=best["ttft99"],
        tpot_p50_s=best["tpot50"],
        tpot_p99_s=best["tpot99"],
        prefill_share=best["prefill_share"],
        meets=best["meets"] > 0,
        bound_idx=best["bound"].astype(np.int64),
        step_s=best["step"],
        t_memory_s=best["t_mem"],
        t_compute_s=best["t_comp"],
        t_comm_s=best["t_comm"],
        mem_bw=mem_bw,
        flops=flops_per_gpu,
        link=best["hw_link"],
        net=best["hw_net"],
        pf_flops=flops_per_gpu if prefill_flops_per_gpu is None else prefill_flops_per_gpu,
        attn_flops=flops_per_gpu if attention_flops_per_gpu is None else attention_flops_per_gpu,
        sms=np.full_like(mem_bw, np.nan) if sms is None else sms,
    )


def finite(x: float) -> float | None:
    """``x`` or None when it is not a finite number."""
    return float(x) if math.isfinite(x) else None
