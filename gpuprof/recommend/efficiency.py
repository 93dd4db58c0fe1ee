"""Training efficiency from the machine and the framework (issue 23).

One LLM training step is costed per GPU as a roofline of two parts, so that GPU generations
differ for a reason rather than by one constant:

* **Matmuls** (the linear layers' GEMMs and the attention score/context products): their FLOPs
  at the spec peak of the dtype times the stack's achieved share of it, ``gemm[stack]``.
* **Memory-bound operators** (norms, activation functions, residual adds, dropout, rotary, the
  optimizer's element-wise update): they move bytes, not FLOPs; per token and per layer about
  ``k × hidden`` bytes (forward + backward + recompute, 16-bit), read at
  :data:`~gpuprof.recommend.decode.MEM_BW_EFFICIENCY` of the spec bandwidth. H100 has 3.2x
  A100's BF16 peak but 1.6x its bandwidth, so this share grows on H100 — the reason published
  MFU is 55–64 % on A100 and 40–46 % on H100 for the same stacks (llm-foundry's benchmark
  tables, torchtitan's performance.md).
* Communication (tensor, pipeline, data parallel) is :mod:`gpuprof.recommend.parallel`'s.

``gemm[stack]`` and ``k`` are the free constants. They are fitted to the training rows of
``tests/data/published_runs.csv`` by ``perf/truth.py`` (median |log error|), and the error
quoted for them is **leave-one-source-out**: every constant refitted without a publication,
that publication then predicted (see :mod:`gpuprof.recommend.crossval`). A stack without rows
of its own in a fit borrows its :data:`FALLBACK` — the held-out figure of a stack with a single
publication is therefore the error a user of that stack would see from a neighbour's constant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuprof.i18n import N_

__all__ = [
    "DEFAULT_STACK",
    "FALLBACK",
    "STACKS",
    "STACK_ALIASES",
    "TRAIN_EFFICIENCY",
    "TrainEfficiency",
    "normalize_stack",
]

#: Framework families with their own efficiency. ``tuned``: Megatron-LM, NeMo, Megatron-Core and
#: hand-tuned in-house stacks (Meta's Llama runs, llm.c) — the default: a well-tuned stack.
STACKS = ("tuned", "fsdp", "deepspeed", "torchtitan")
DEFAULT_STACK = "tuned"
STACK_ALIASES = {
    "megatron": "tuned",
    "megatron-lm": "tuned",
    "megatron-core": "tuned",
    "nemo": "tuned",
    "well-tuned": "tuned",
    "pytorch-fsdp": "fsdp",
    "composer": "fsdp",
    "llm-foundry": "fsdp",
    "zero": "deepspeed",
    "megatron-deepspeed": "deepspeed",
    "gpt-neox": "deepspeed",
}
#: A stack whose constant was not fitted (no rows in the fit) uses this one's: torchtitan is
#: built on FSDP2, DeepSpeed's ZeRO shards like FSDP, FSDP falls back on the tuned default.
FALLBACK = {"torchtitan": "fsdp", "deepspeed": "fsdp", "fsdp": "tuned", "tuned": "tuned"}


def normalize_stack(name: str) -> str | None:
    """The stack a user's word names (``megatron`` → ``tuned``), or None when unknown."""
    key = name.strip().lower().replace("_", "-")
    key = STACK_ALIASES.get(key, key)
    return key if key in STACKS else None


@dataclass(frozen=True)
class TrainEfficiency:
    """The fitted constants: achieved share of the matmul peak per stack, and the bytes per
    token, per layer, per unit of hidden size that the memory-bound operators move."""

    gemm: dict[str, float] = field(default_factory=dict)
    bytes_per_token_layer_hidden: float = 0.0
    source: str = ""

    def gemm_share(self, stack: str) -> float:
        """``gemm[stack]``, following :data:`FALLBACK` for a stack that was not fitted."""
        seen = set()
        while stack not in self.gemm and stack not in seen:
            seen.add(stack)
            stack = FALLBACK.get(stack, DEFAULT_STACK)
        return self.gemm.get(stack, self.gemm.get(DEFAULT_STACK, 0.45))

    def with_(self, **changes: object) -> TrainEfficiency:
        from dataclasses import replace

        return replace(self, **changes)  # type: ignore[arg-type]


#: Fitted by ``perf/truth.py`` on all 66 training rows of 10 publications (it prints the refit;
#: ``tests/test_recommend_crossval.py`` checks these are it). Only ``tuned`` (NeMo, Korthikanti
#: 2022, the Llama papers and cards, llm.c) and ``fsdp`` (llm-foundry, OPT) are seen in two or
#: more publications; ``torchtitan`` and ``deepspeed`` (one each) follow :data:`FALLBACK`.
TRAIN_EFFICIENCY = TrainEfficiency(
    gemm={"tuned": 0.584, "fsdp": 0.525},
    bytes_per_token_layer_hidden=212.8,
    source=N_(
        "fitted to 66 published training runs of 10 publications (perf/truth.py, leave-one-"
        "source-out cross-validated): achieved share of the matmul peak per stack, plus the "
        "memory-bound operators' bytes at 70% of the memory bandwidth"
    ),
)
