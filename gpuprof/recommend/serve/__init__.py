"""LLM serving: continuous batching per configuration, latency at load, replicas, cost (issue 22).


Traffic: requests arrive at ``λ`` per second (``--rate``, or ``--throughput`` output tokens/s ÷
the output length ``O``), each with a prompt of ``P`` tokens and ``O`` generated tokens (means).
For every candidate configuration — a catalog instance, a node count and a tensor-parallel size
``t`` (pipeline ``p`` = the nodes; a mixture of experts spreads its experts over the ``t`` GPUs,
expert parallel ``e = t``) — the model below gives the throughput of one engine replica, the
latency at the load it gets, the replicas the rate needs and what they cost. Everything is
numpy over the candidates × a grid of batch sizes; no per-row constant.

The parts: :mod:`.step` (one engine step's memory, compute and communication seconds),
:mod:`.latency` (TTFT and TPOT at load, queueing included), :mod:`.batching` (the memory a
replica has for its KV cache, the batch, the layout, replicas, bound and cost).
"""

from __future__ import annotations

from gpuprof.recommend.serve.batching import (
    BOUNDS,
    KV_FREE_FRACTION,
    ServeArrays,
    ServeConfig,
    finite,
    serve_estimates,
    tp_options,
)
from gpuprof.recommend.serve.step import EAGER_LAYER_S, TOKEN_BUDGET

__all__ = [
    "BOUNDS",
    "EAGER_LAYER_S",
    "KV_FREE_FRACTION",
    "TOKEN_BUDGET",
    "ServeArrays",
    "ServeConfig",
    "finite",
    "serve_estimates",
    "tp_options",
]
