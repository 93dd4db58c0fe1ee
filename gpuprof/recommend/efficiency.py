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

More effects are constants of the fit, each because the published runs show it:

* ``generation``: Hopper GPUs reach a smaller share of their (3.2x larger) matmul peak than
  Ampere's (llm-foundry's own tables: 55–64 % MFU on A100, 40–46 % on H100);
* ``attention`` and ``attention_generation`` (issue 23): the attention score/context matmuls
  (``12·L·h·s`` FLOPs per token, 16-bit in every precision) at their own share of the 16-bit
  peak, with their own Hopper factor: fused attention kernels gain less from Hopper than GEMMs
  (FlashAttention-2 reaches about 35 % of an H100's peak: Shah et al. 2024, "FlashAttention-3",
  arXiv 2407.08608). Long sequences (torchtitan's 32K–256K context-parallel runs, NeMo's and
  llm-foundry's 8K rows) fix them;
* ``fp8_other``: FP8 outside the tuned stack reaches less of the FP8 peak than Transformer
  Engine's recipe, fitted where a publication in the fit shows it: llm-foundry's ``amp_fp8``
  and torchtitan's Float8 (FP8 ÷ BF16 of one run), each predicting the other held out;
* ``recompute_full`` (the linear layers and memory-bound operators again: less than the 4/3 of
  their FLOPs, the larger micro-batches it allows run the GEMMs better; the attention's forward
  is repeated at 4/3 exactly) and ``run_overhead``: a whole pretraining run's GPU-hours
  against its steady throughput (restarts, checkpoints, evaluations: Llama 2, Llama 3.1, OPT,
  BLOOM; not LLaMA, whose hours its paper derives from a steady 380 tokens/s/GPU).

``gemm[stack]``, ``k`` and these are the free constants. They are fitted to the training rows of
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
    #: The share of the matmul peak a GPU architecture reaches relative to Ampere's (1).
    generation: dict[str, float] = field(default_factory=dict)
    #: Time × this with full activation recomputation (4/3 in FLOPs; less in practice: the
    #: larger micro-batches it allows run the GEMMs better).
    recompute_full: float = 4.0 / 3.0
    #: FP8 matmuls in a stack other than the tuned default reach this share of the tuned FP8
    #: recipe's (Transformer Engine) rate.
    fp8_other: float = 1.0
    #: A whole pretraining run takes (1 + this) × its steady-state time: restarts after
    #: failures, checkpoints, evaluations (published GPU-hours against steady throughput).
    run_overhead: float = 0.0
    #: The attention score/context matmuls (``12·L·h·s`` FLOPs per token, the full ``s × s``)
    #: reach this share of the 16-bit peak on Ampere (× :attr:`generation` elsewhere); None:
    #: the stack's GEMM share. Fused attention kernels (FlashAttention) are not GEMMs: they
    #: skip the masked half of a causal product but run their softmax between the matmuls.
    attention: float | None = None
    #: :attr:`attention` of an architecture relative to Ampere's: attention kernels gain less
    #: from a new generation than GEMMs (FlashAttention-2 on H100 reaches 35 % of the peak
    #: where a GEMM reaches 70-80 %: Shah et al. 2024, "FlashAttention-3", arXiv 2407.08608).
    attention_generation: dict[str, float] = field(default_factory=dict)
    #: A stack other than the tuned default runs its attention at this share of the tuned
    #: stack's, per architecture (missing: 1). Megatron-Core and NeMo run Transformer Engine's
    #: fused attention (cuDNN), which on Hopper reaches what FlashAttention-3 does (~75 % of
    #: an H100's peak) where FlashAttention-2, the kernel of PyTorch SDPA and flash-attn
    #: stacks (llm-foundry, torchtitan), reaches ~35 % (Shah et al. 2024, arXiv 2407.08608);
    #: on Ampere both are FlashAttention-2-class kernels: a Hopper factor only.
    attention_other: dict[str, float] = field(default_factory=dict)

    def attention_share(self, stack: str, architecture: str | None) -> float:
        """The attention matmuls' share of the 16-bit peak (:attr:`attention`)."""
        if self.attention is None:
            return self.gemm_share(stack) * self.generation_share(architecture)
        share = self.attention * _of_generation(self.attention_generation, architecture)
        if stack != DEFAULT_STACK:
            share *= _of_generation(self.attention_other, architecture)
        return share

    def generation_share(self, architecture: str | None) -> float:
        """:attr:`generation` of ``architecture``; a Blackwell GPU takes Hopper's (the newest
        generation with published runs here), any other 1 (Ampere's, the reference)."""
        return _of_generation(self.generation, architecture)

    def recompute_factor(self, recompute: str) -> float:
        return self.recompute_full if recompute == "full" else 1.0

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


def _of_generation(table: dict[str, float], architecture: str | None) -> float:
    arch = (architecture or "").split(" ")[0]
    if arch in table:
        return table[arch]
    if arch.startswith("Blackwell") and "Hopper" in table:
        return table["Hopper"]
    return 1.0


#: Fitted by ``perf/truth.py`` on the 80 training rows of 12 publications (68 on GPUs the
#: catalog has, 12 of torchtitan's H100 runs as ratios within their run; it prints the refit;
#: ``tests/test_recommend_crossval.py`` checks these are it). Only ``tuned`` (NeMo, Korthikanti
#: 2022, the Llama papers and cards, llm.c) and ``fsdp`` (llm-foundry, OPT) are seen in two or
#: more publications; ``torchtitan`` and ``deepspeed`` (one each) follow :data:`FALLBACK`.
TRAIN_EFFICIENCY = TrainEfficiency(
    gemm={"tuned": 0.667, "fsdp": 0.619},
    bytes_per_token_layer_hidden=77.2,
    generation={"Hopper": 0.762},
    recompute_full=1.156,
    fp8_other=0.746,  # llm-foundry's amp_fp8 and torchtitan's Float8 (as FP8 ÷ BF16 ratios)
    run_overhead=0.548,
    attention=0.718,
    attention_generation={"Hopper": 0.724},
    # llm-foundry's and torchtitan's H100 rows against the tuned stack's (each the other's
    # check held out); the tuned stack's long context from the Megatron-MoE ModelZoo's table.
    attention_other={"Hopper": 0.550},
    # One template (translated whatever the counts), filled with the fit's counts.
    source=N_(
        "fitted to {n} published training runs of {s} publications (perf/truth.py, leave-one-"
        "source-out cross-validated): achieved share of the matmul peak per stack, the "
        "attention's own share, plus the memory-bound operators' bytes at 70% of the memory "
        "bandwidth"
    ).format(n=80, s=12),
)
