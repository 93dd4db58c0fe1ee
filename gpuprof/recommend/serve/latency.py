"""A serving replica's latency at load: TTFT and TPOT, p50 and p99 (issue 22).

* **Latency at load** (the batch in flight follows the load by Little's law, ``b = λ_r·O·τ``):
  TPOT p50 = ``τ``; TPOT p99 = ``τ`` with the prefill of ``b + 2.33·√b`` arrivals over a
  request's life instead of ``b`` (Poisson arrivals; a request's TPOT is the mean over its
  tokens, so its tail is that of the load it meets). TTFT = the rounds its prompt needs
  (``ceil(P / (budget − b))``, each a step with that chunk) + the wait for the prefill slot,
  an M/D/1 queue (Poisson arrivals, deterministic service ``s = P·τ/(budget − b)``, load
  ``ρ = (b·P/O)/(budget − b)``): mean wait ``ρ·s/(2(1 − ρ))`` (Pollaczek–Khinchine; the mean
  stands for the median), p99 wait ``s·ln(ρ/0.01)/(1 − ρ) ÷ 2`` (the M/M/1 waiting-time tail
  ``P(W > t) = ρ·e^{−(1−ρ)t/s}``, halved for deterministic service: Kingman's heavy-traffic
  approximation scales the wait by ``(c_a² + c_s²)/2``). ``ρ ≥ 1``: the prompts outrun the
  budget; that batch cannot be sustained.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpuprof.recommend.serve.step import (
    TOKEN_BUDGET,
    Hardware,
    Shape,
    cycle_seconds,
    step_seconds,
)
from gpuprof.recommend.workload import Workload

__all__ = ["Z99", "latency", "meets_targets", "queue_wait"]

Arr = npt.NDArray[np.float64]

#: Standard normal quantile of 0.99.
Z99 = 2.326


def queue_wait(rho: Arr, service: Arr) -> tuple[Arr, Arr]:
    """(mean, p99) wait of an M/D/1 queue at load ``rho`` with service time ``service``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(rho > 0, rho * service / (2.0 * (1.0 - rho)), 0.0)
        p99 = np.where(
            rho > 0.01, service * np.log(np.maximum(rho, 0.01) / 0.01) / (1.0 - rho) / 2.0, 0.0
        )
    busy = rho >= 1.0
    return np.where(busy, np.inf, mean), np.where(busy, np.inf, p99)


def latency(
    s: Shape, hw: Hardware, b: Arr, tau: Arr, rho_c: Arr
) -> tuple[Arr, Arr, Arr, Arr, npt.NDArray[np.bool_]]:
    """(TTFT p50, TTFT p99, TPOT p50, TPOT p99, sustainable) at batch ``b`` in steady state,
    the replica's compute at ``rho_c`` of its capacity."""
    room = TOKEN_BUDGET - b
    demand = b * s.prompt / s.output
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(s.prompt > 0, demand / room, 0.0)
        ok = (room > 0) & (rho < 1.0)
        chunk = np.minimum(s.prompt, np.maximum(room, 1.0))
        rounds = np.maximum(np.ceil(s.prompt / np.maximum(room, 1.0)), 1.0)
        m, c, x = step_seconds(s, hw, b, np.maximum(demand, chunk))
        tau_pf = m + c + x
        # Two queues a prompt can wait in: for room in the step's token budget, and for the
        # replica's compute when it runs near capacity; the longer wait counts.
        budget_mean, budget_99 = queue_wait(rho, s.prompt * tau / np.maximum(room, 1.0))
        alone = step_seconds(s, hw, np.zeros_like(b), np.full_like(b, s.prompt))[1]
        comp_mean, comp_99 = queue_wait(rho_c, alone)
        first = rounds * tau_pf
        m, c, x = cycle_seconds(s, hw, b, demand * (1.0 + Z99 / np.sqrt(np.maximum(b, 1.0))))
        tpot99 = m + c + x
    ttft50 = np.where(ok, first + np.maximum(budget_mean, comp_mean), np.inf)
    ttft99 = np.where(ok, first + np.maximum(budget_99, comp_99), np.inf)
    return ttft50, ttft99, tau, np.where(ok, tpot99, np.inf), ok


def meets_targets(
    w: Workload, ttft50: Arr, ttft99: Arr, tpot50: Arr, tpot99: Arr
) -> npt.NDArray[np.bool_]:
    ttft = ttft99 if w.slo_percentile == "p99" else ttft50
    tpot = tpot99 if w.slo_percentile == "p99" else tpot50
    ok = np.ones(np.shape(ttft), dtype=bool)
    if w.ttft_s is not None:
        ok &= ttft <= w.ttft_s
    if w.tpot_s is not None:
        ok &= tpot <= w.tpot_s
    return ok
