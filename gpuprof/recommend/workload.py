"""The workload a user wants to place: what it is, how big, how much work, and the constraints."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.recommend.efficiency import STACKS, normalize_stack

__all__ = [
    "BILLINGS",
    "KV_DTYPES",
    "LIMITS",
    "PERCENTILES",
    "PRECISIONS",
    "RECOMPUTE",
    "SCENARIOS",
    "Workload",
]

SCENARIOS = ("pretrain", "finetune-full", "finetune-lora", "inference", "hpc-fp64", "render")
PRECISIONS = ("fp64", "fp32", "bf16", "fp16", "fp8", "int8", "int4")
_ALIASES = {
    "train": "pretrain",
    "training": "pretrain",
    "pre-train": "pretrain",
    "finetune": "finetune-full",
    "fine-tune": "finetune-full",
    "lora": "finetune-lora",
    "qlora": "finetune-lora",
    "serve": "inference",
    "serving": "inference",
    "infer": "inference",
    "hpc": "hpc-fp64",
    "fp64": "hpc-fp64",
    "rendering": "render",
}

#: Activation recomputation choices and the compute each multiplies (issue 23): full
#: recomputation runs every layer's forward (2N of the 6N FLOPs per token) twice.
RECOMPUTE = {"none": 1.0, "selective": 1.0, "full": 4.0 / 3.0}
#: KV-cache element types (``--kv-dtype``) and their bytes per element.
KV_DTYPES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}
#: Latency targets are met at this percentile of requests (``--slo``).
PERCENTILES = ("p50", "p99")
#: The price a ranking compares (``--billing``): hourly on-demand, spot (+10 % time), reserved
#: for 1 or 3 years, or a monthly subscription (包月, whole months of the instance).
BILLINGS = ("on-demand", "spot", "reserved-1y", "reserved-3y", "monthly")

#: Bytes per parameter of the weights as stored in GPU memory, by precision.
WEIGHT_BYTES = {
    "fp64": 8.0,
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}


#: The largest value each field can mean; beyond it a number is a typo (``1e30`` parameters, a
#: deadline in the next century), and the estimate it would give is noise: the workload refuses
#: it with one line. Generous: 50-100x the largest published jobs.
LIMITS: dict[str, float] = {
    "params": 1e14,  # 100 T parameters; the largest published models have ~2 T
    "tokens": 1e15,  # the largest pretraining sets are ~40 T tokens
    "samples": 1e15,
    "epochs": 1e6,
    "flops_total": 1e29,  # the largest training runs to date are ~5e25-1e26 FLOPs
    "flops_per_sample": 1e18,
    "throughput_per_s": 1e12,
    "deadline_hours": 24 * 366 * 10,  # ten years
    "budget_usd": 1e11,
    "working_set_bytes": 1e18,  # 1 EB
    "seq_len": 1e8,
    "batch": 1e9,
    "node_limit": 4096,
    "rate_per_s": 1e9,  # requests per second: the largest public APIs serve ~1e5-1e6
    "output_len": 1e8,
    "ttft_s": 3600.0,  # a first token later than an hour is not a latency target
    "tpot_s": 60.0,
}
#: Inference without ``--batch``: at most this many sequences in flight, the largest batch in
#: TensorRT-LLM's published throughput runs (the CUDA-graph batch sizes of perf-overview.md's
#: llm_options.yml go to 8192; github NVIDIA/TensorRT-LLM commit 00f37686). Memory cuts it.
MAX_SEQS = 8192
#: How decode attention reads a grouped-query KV cache: ``grouped`` reads each KV head once for
#: its group of query heads (FlashAttention, FlashInfer, TensorRT-LLM's XQA kernel); ``per-head``
#: once per query head (Hugging Face eager attention's ``repeat_kv``; TensorRT-LLM's masked
#: multi-head attention before XQA, v0.8: its blog measured Llama-70B 2.4x faster with XQA).
ATTENTION_KERNELS = ("grouped", "per-head")
#: What the engine's scheduler holds for a sequence in flight: ``on-demand`` allocates cache
#: blocks as tokens are generated (vLLM, SGLang: ``prompt + output/2`` on average) and
#: ``reserve`` the whole ``prompt + output`` at admission, so no request is ever paused
#: (TensorRT-LLM's default capacity policy, GUARANTEED_NO_EVICT).
KV_ADMISSION = ("on-demand", "reserve")
#: What the engine does with each emitted token's logits (:mod:`gpuprof.recommend.serve_kernels`):
#: ``argmax`` casts them to float32 and reads them once for the next token (vLLM V1's sampler,
#: vllm/v1/sample/sampler.py; greedy sampling in SGLang and TensorRT-LLM's PyTorch backend);
#: ``decoder`` is TensorRT-LLM's C++ decoder of TensorRT engines: float32 logits copied by its
#: penalty kernel, a softmax, then sampling.
SAMPLERS = ("argmax", "decoder")
#: More total work than this (FLOPs) gets a warning: 10x the largest training runs to date.
PLAUSIBLE_FLOPS = 1e27


def _lowered(word: str) -> str:
    return word.strip().lower()


def _one_of(
    given: str,
    allowed: Collection[str],
    message: str,
    normalize: Callable[[str], str | None] = _lowered,
) -> str:
    """``given`` normalized, or InputError(``message``) naming it (``{v}``, at most 40
    characters) and the choices (``{all}``) when it is not one of ``allowed``."""
    value = normalize(given)
    if value is None or value not in allowed:
        raise InputError(tr(message, v=given[:40], all=", ".join(allowed)))
    return value


@dataclass(frozen=True)
class Workload:
    """Inputs of one estimate. Units: params (count), tokens/samples (count), hours, USD.

    ``tokens`` (LLM training: tokens seen; inference: tokens generated) or ``samples`` (images,
    queries, frames) times ``epochs`` is the amount of work. ``batch`` is the global batch in
    sequences/samples per optimizer step for training (default 1024), and the number of
    concurrent sequences for inference (default 16). ``flops_total`` overrides the FLOP count
    (HPC, rendering); ``flops_per_sample`` sets it per sample (CNNs). ``working_set_bytes`` is the
    data an HPC/render job keeps in GPU memory (split across GPUs). ``layers``/``hidden``
    override the shape inferred from ``params`` (see :mod:`gpuprof.recommend.memory`).
    """

    scenario: str
    params: float
    precision: str = "bf16"
    tokens: float | None = None
    samples: float | None = None
    epochs: float = 1.0
    seq_len: int = 4096
    batch: int | None = None
    deadline_hours: float | None = None
    throughput_per_s: float | None = None
    budget_usd: float | None = None
    node_limit: int = 16
    spot: bool = False
    flops_total: float | None = None
    flops_per_sample: float | None = None
    working_set_bytes: float = 0.0
    layers: int | None = None
    hidden: int | None = None
    lora_trainable_fraction: float = 0.005
    name: str = ""
    #: Mixture of experts: parameters used per token (FLOPs); ``params`` is the total (memory).
    active_params: float | None = None
    #: Mixture of experts in training (:mod:`gpuprof.recommend.parallel`): routed experts, the
    #: experts each token goes to, and the parameters of all routed experts (what expert
    #: parallelism shards); 0 = dense.
    experts: int = 0
    top_k: int = 0
    expert_params: float = 0.0
    #: K+V elements cached per token per layer (``2·kv_heads·head_dim``); None = ``2·hidden``
    #: (full multi-head attention, the default architecture of a bare ``--params``).
    kv_per_token_layer: float | None = None
    #: KV heads (grouped-query attention). Tensor parallel splits the cache by head, so past
    #: this many GPUs each keeps a copy of one head; 1 = a latent every GPU keeps whole (MLA).
    #: None: as many as the GPUs (a bare ``--params``).
    kv_heads: int | None = None
    #: Query heads × head size, the width attention scores are computed at (None: ``hidden``).
    attn_width: int | None = None
    #: Vocabulary size (0: not known): the logits each emitted token carries (serving's sampler,
    #: :mod:`gpuprof.recommend.serve_kernels`).
    vocab: int = 0
    #: Serving: how decode attention reads a grouped-query KV cache (:data:`ATTENTION_KERNELS`).
    attention_kernel: str = "grouped"
    #: Serving: the KV cache a sequence in flight holds (:data:`KV_ADMISSION`).
    kv_admission: str = "on-demand"
    #: Serving: what the engine does with each emitted token's logits (:data:`SAMPLERS`).
    sampler: str = "argmax"
    #: Serving: attention data parallel (TensorRT-LLM's ``enable_attention_dp``): each GPU of the
    #: tensor-parallel group runs attention, the LM head and the sampler for its own share of the
    #: sequences (whole attention weights, all KV heads, no attention all-reduce); the MoE layers
    #: stay expert parallel, tokens all-gathered before them and reduce-scattered after.
    attention_dp: bool = False
    #: The architecture's name in resources/models.csv when ``--model`` filled the fields.
    model: str = ""
    #: LLM inference: prompt tokens per sequence, prefilled before decoding (0 = not costed).
    #: Each sequence then generates ``seq_len - prompt_len`` tokens (see
    #: :mod:`gpuprof.recommend.decode`).
    prompt_len: int = 0
    #: One configuration: exactly this many nodes (None: the fewest of 1, 2, 4 … node_limit
    #: that fit, more while a deadline is missed).
    nodes: int | None = None
    #: Serving (:mod:`gpuprof.recommend.serve`): requests per second to sustain; the output
    #: token rate ``throughput_per_s`` is the other way to say it (÷ ``output_len``).
    rate_per_s: float | None = None
    #: Serving: mean generated tokens per request (None: ``seq_len - prompt_len``). When given,
    #: ``seq_len`` becomes ``prompt_len + output_len``.
    output_len: int | None = None
    #: Serving latency targets, seconds: time to first token, time per output token.
    ttft_s: float | None = None
    tpot_s: float | None = None
    #: The percentile of requests the targets hold for: "p50" or "p99".
    slo_percentile: str = "p99"
    #: KV-cache precision (None: the weights' for 16/32-bit and fp8, else fp16).
    kv_dtype: str | None = None
    #: Serving: tensor-parallel size of each replica (None: the best of 1, 2, 4, 8 per node).
    tp: int | None = None
    #: Training: the framework family (:data:`gpuprof.recommend.efficiency.STACKS`; aliases such
    #: as ``megatron`` or ``nemo`` accepted), whose fitted efficiency times the job.
    stack: str = "tuned"
    #: Training: activation recomputation, ``none``, ``selective`` (attention only: a few
    #: percent, not costed) or ``full`` (every layer's forward again in the backward: 4/3 of
    #: the compute). Memory is costed as with recomputation either way.
    recompute: str = "none"
    #: Training: a layout held fixed, e.g. ``"tp4 pp8 cp2"`` (sizes left out are searched; see
    #: :func:`gpuprof.recommend.parallel.pinned_layout`). Empty: the fastest that fits.
    layout: str = ""
    #: The price basis rankings compare (:data:`BILLINGS`); ``spot=True`` is ``"spot"``.
    billing: str = "on-demand"

    def __post_init__(self) -> None:
        billing = _one_of(self.billing, BILLINGS, N_("unknown billing {v!r}; use one of {all}"))
        if self.spot and billing == "on-demand":  # --spot: an alias of --billing spot
            billing = "spot"
        object.__setattr__(self, "billing", billing)
        object.__setattr__(self, "spot", billing == "spot")
        scenario = _ALIASES.get(self.scenario.strip().lower(), self.scenario.strip().lower())
        object.__setattr__(self, "scenario", scenario)
        object.__setattr__(self, "precision", self.precision.strip().lower())
        if scenario not in SCENARIOS:
            raise InputError(
                f"unknown scenario {self.scenario!r}; use one of {', '.join(SCENARIOS)}"
            )
        if self.precision not in PRECISIONS:
            raise InputError(
                f"unknown precision {self.precision!r}; use one of {', '.join(PRECISIONS)}"
            )
        stack = _one_of(
            self.stack, STACKS, N_("unknown stack {v!r}; use one of {all}"), normalize_stack
        )
        object.__setattr__(self, "stack", stack)
        recompute = _one_of(
            self.recompute, RECOMPUTE, N_("unknown recompute {v!r}; use one of {all}")
        )
        object.__setattr__(self, "recompute", recompute)
        layout = " ".join(self.layout.lower().replace(",", " ").split())
        bad = [
            word
            for word in layout.split()
            if word not in ("overlap", "deepep")
            and not re.fullmatch(r"(tp|pp|cp|vp|ep|etp|mbs)[1-9][0-9]{0,5}", word)
        ]
        if bad:
            raise InputError(
                tr(
                    "unknown layout word {w!r}; use tpN, ppN, cpN, vpN, epN, etpN, mbsN, "
                    "overlap and deepep",
                    w=bad[0][:40],
                )
            )
        object.__setattr__(self, "layout", layout)
        for name in (
            "params",
            "tokens",
            "samples",
            "epochs",
            "deadline_hours",
            "throughput_per_s",
            "budget_usd",
            "flops_total",
            "flops_per_sample",
            "working_set_bytes",
            "active_params",
            "kv_per_token_layer",
        ):
            value = getattr(self, name)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise InputError(f"{name} must be a finite number >= 0, got {value}")
        for name, limit in LIMITS.items():
            value = getattr(self, name)
            if value is not None and value > limit:
                raise InputError(
                    tr(
                        "{name} {v:.3g} is beyond any real workload (at most {lim:.3g}); "
                        "check the number",
                        name=name,
                        v=float(value),
                        lim=limit,
                    )
                )
        if self.params <= 0 and scenario not in ("hpc-fp64", "render"):
            raise InputError("params must be > 0 (e.g. 7e9)")
        if self.output_len is not None:
            if self.output_len < 1:
                raise InputError(tr("--output-len must be at least 1"))
            object.__setattr__(self, "seq_len", int(self.prompt_len) + int(self.output_len))
        if self.kv_dtype is not None:
            kv_dtype = _one_of(
                self.kv_dtype, KV_DTYPES, N_("unknown KV-cache dtype {v!r}; use one of {all}")
            )
            object.__setattr__(self, "kv_dtype", kv_dtype)
        kernel = _one_of(
            self.attention_kernel,
            ATTENTION_KERNELS,
            N_("unknown attention kernel {v!r}; use one of {all}"),
        )
        object.__setattr__(self, "attention_kernel", kernel)
        admission = _one_of(
            self.kv_admission, KV_ADMISSION, N_("unknown KV admission {v!r}; use one of {all}")
        )
        object.__setattr__(self, "kv_admission", admission)
        sampler = _one_of(self.sampler, SAMPLERS, N_("unknown sampler {v!r}; use one of {all}"))
        object.__setattr__(self, "sampler", sampler)
        percentile = _one_of(
            self.slo_percentile, PERCENTILES, N_("unknown percentile {v!r}; use one of {all}")
        )
        object.__setattr__(self, "slo_percentile", percentile)
        for name in ("ttft_s", "tpot_s", "rate_per_s"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise InputError(
                    tr("{name} must be a finite number > 0, got {v}", name=name, v=value)
                )
        serving_only = [
            flag
            for flag, value in (
                ("--rate", self.rate_per_s),
                ("--output-len", self.output_len),
                ("--ttft", self.ttft_s),
                ("--tpot", self.tpot_s),
                ("--kv-dtype", self.kv_dtype),
                ("--tp", self.tp),
            )
            if value is not None
        ]
        if serving_only and scenario != "inference":
            raise InputError(
                tr(
                    "{flags}: for --scenario serve (LLM inference), not {s}",
                    flags=", ".join(serving_only),
                    s=scenario,
                )
            )
        if self.tp is not None and self.tp not in (1, 2, 4, 8, 16, 32, 64):
            raise InputError(tr("--tp must be a power of two from 1 to 64, got {t}", t=self.tp))
        if self.rate_per_s is not None and self.throughput_per_s is not None:
            raise InputError(tr("give --rate (requests/s) or --throughput (tokens/s), not both"))
        if self.seq_len <= 0 or (self.batch is not None and self.batch <= 0):
            raise InputError("seq_len and batch must be > 0")
        if self.node_limit < 1:
            raise InputError("node_limit must be >= 1")
        if self.nodes is not None and not 1 <= self.nodes <= LIMITS["node_limit"]:
            raise InputError("nodes must be >= 1 and at most the node limit")
        if not 0 <= self.prompt_len < self.seq_len:
            raise InputError("prompt_len must be >= 0 and below seq_len")
        if self.prompt_len and scenario != "inference":
            raise InputError(tr("--prompt-len is for inference (a prompt prefilled, then decoded)"))
        for name in ("kv_heads", "attn_width"):
            value = getattr(self, name)
            if value is not None and not 1 <= value <= 1 << 20:
                raise InputError(f"{name} must be from 1 to {1 << 20}, got {value}")
        if not 0 <= self.vocab <= 1 << 24:
            raise InputError(f"vocab must be from 0 to {1 << 24}, got {self.vocab}")
        if self.active_params is not None and not 0 < self.active_params <= self.params:
            raise InputError(tr("active parameters must be > 0 and at most the total"))
        if self.experts and not (
            0 < self.top_k <= self.experts and 0 < self.expert_params < self.params
        ):
            raise InputError(
                tr("experts need 1 to experts routed per token and expert parameters < total")
            )
        if self.is_training and scenario != "finetune-lora" and self.precision in ("int8", "int4"):
            raise InputError(
                f"{self.precision} is for inference or LoRA (QLoRA), not full training"
            )
        if scenario == "hpc-fp64" and self.precision != "fp64":
            object.__setattr__(self, "precision", "fp64")
        if (
            self.tokens is None
            and self.samples is None
            and self.flops_total is None
            and self.throughput_per_s is None
            and self.rate_per_s is None
        ):
            raise InputError(
                "give the amount of work: tokens, samples, flops, a throughput or a request rate"
            )
        total = self.total_flops()
        if not math.isfinite(total) or total > LIMITS["flops_total"]:
            raise InputError(
                tr(
                    "the workload adds up to {f:.3g} FLOPs, beyond any real job (at most "
                    "{lim:.3g}); check params, tokens, samples and epochs",
                    f=total,
                    lim=LIMITS["flops_total"],
                )
            )

    def plausibility_warnings(self) -> tuple[str, ...]:
        """Numbers that are possible but far beyond any published job: say so, do not refuse."""
        total = self.total_flops()
        if total > PLAUSIBLE_FLOPS:
            return (
                tr(
                    "this workload is {f:.3g} FLOPs, over 10× the largest training runs to date "
                    "(~1e26): check its numbers",
                    f=total,
                ),
            )
        return ()

    # -- derived ----------------------------------------------------------------------------
    @property
    def is_training(self) -> bool:
        return self.scenario in ("pretrain", "finetune-full", "finetune-lora")

    @property
    def is_llm_inference(self) -> bool:
        """Token-generating inference (KV cache, memory-bound decode) vs per-sample inference."""
        return (
            self.scenario == "inference" and self.samples is None and self.flops_per_sample is None
        )

    @property
    def is_serving(self) -> bool:
        """LLM serving: traffic (a request or token rate) with no fixed amount of tokens; the
        estimate is :mod:`gpuprof.recommend.serve`'s continuous batching, not a job's time."""
        return (
            self.is_llm_inference
            and self.tokens is None
            and (self.rate_per_s is not None or self.throughput_per_s is not None)
        )

    @property
    def gen_len(self) -> int:
        """Generated tokens per sequence (request): ``output_len``, else ``seq_len − prompt``."""
        return self.output_len if self.output_len is not None else self.seq_len - self.prompt_len

    @property
    def requests_per_s(self) -> float:
        """Serving: the request rate, given or from the output-token rate (0 when neither)."""
        if self.rate_per_s is not None:
            return self.rate_per_s
        return (self.throughput_per_s or 0.0) / max(self.gen_len, 1)

    @property
    def kv_bytes(self) -> float:
        """Bytes per cached K or V element: ``kv_dtype``, else the weights' precision when it is
        a 16/32-bit float or fp8, else fp16 (int8/int4 weight-only quantization keeps a 16-bit
        cache, as TensorRT-LLM and vLLM do unless told otherwise)."""
        if self.kv_dtype is not None:
            return KV_DTYPES[self.kv_dtype]
        return {"fp8": 1.0, "fp32": 4.0, "fp64": 4.0}.get(self.precision, 2.0)

    @property
    def global_batch(self) -> int:
        """The batch a user gave; else training 1024 and inference the most that fits
        (:data:`MAX_SEQS`, cut to what memory holds by the estimate)."""
        if self.batch is not None:
            return self.batch
        return 1024 if self.is_training else MAX_SEQS

    @property
    def params_per_token(self) -> float:
        """The parameters each token uses: the active ones of a mixture of experts, else all."""
        return self.params if self.active_params is None else self.active_params

    @property
    def work_units(self) -> float:
        """Tokens or samples to process (× epochs); one hour at the throughput target if none."""
        base = self.tokens if self.tokens is not None else self.samples
        if base is None and self.rate_per_s is not None:
            base = self.rate_per_s * self.gen_len * 3600.0
        if base is None:
            base = (self.throughput_per_s or 0.0) * 3600.0
        return base * self.epochs

    @property
    def compute_dtype(self) -> str:
        """The spec-table rate that bounds the math: int4 weight-only kernels compute in fp16."""
        return {"int4": "fp16"}.get(self.precision, self.precision)

    def total_flops(self) -> float:
        """Training ≈ 6·N per token (LoRA ≈ 4·N: no weight gradients); inference ≈ 2·N per token;
        N = the active parameters of a mixture of experts; plus attention for a named model."""
        if self.flops_total is not None:
            return self.flops_total
        units = self.work_units
        if self.flops_per_sample is not None:
            return self.flops_per_sample * units
        n = self.params_per_token
        if self.scenario == "finetune-lora":
            per = 4.0 * n
        elif self.is_training:
            per = 6.0 * n
        else:
            per = 2.0 * n
        per += self._attention_per_token()
        if self.samples is not None and self.tokens is None:
            per *= self.seq_len  # one sample = one sequence of seq_len tokens
        return per * units

    def _attention_per_token(self) -> float:
        if not (self.model and self.layers and self.hidden and self.is_training):
            return 0.0
        # A named architecture adds the attention score/context matmuls, which 6·N leaves
        # out: 12·L·h·s per token for forward + backward (Narayanan et al. 2021, "Efficient
        # Large-Scale Language Model Training on GPU Clusters", the s/6h term of eq. 3);
        # LoRA has no weight gradients but still back-propagates through attention (2/3).
        # The width the scores are computed at: query heads × head size (Qwen3-235B: 8,192 on
        # a 4,096 hidden; DeepSeek-V3's MLA: 128 × 128 — its 192-wide query-key heads would
        # add a fifth more), the hidden size when not given.
        attn = 12.0 * self.layers * float(self.attn_width or self.hidden) * self.seq_len
        return attn * (2.0 / 3.0 if self.scenario == "finetune-lora" else 1.0)

    def attention_flops(self) -> float:
        """The attention score/context part of :meth:`total_flops` (0 when it adds none).

        FP8 training runs these matmuls in 16-bit (see :mod:`gpuprof.recommend.estimate`)."""
        if self.flops_total is not None or self.flops_per_sample is not None:
            return 0.0
        per = self._attention_per_token()
        if self.samples is not None and self.tokens is None:
            per *= self.seq_len
        return per * self.work_units

    def with_(self, **changes: object) -> Workload:
        return replace(self, **changes)  # type: ignore[arg-type]

    @staticmethod
    def presets() -> dict[str, Workload]:
        """The seed documents' scenarios (illustrative sizes; each says where its numbers come from)."""
        return {
            "llm-100b-train": Workload(
                name=N_("100B-parameter training (200B tokens, bf16)"),
                scenario="pretrain",
                params=100e9,
                precision="bf16",
                tokens=200e9,
                seq_len=4096,
                node_limit=16,
            ),
            "video-analytics": Workload(
                # ResNet-50-class detector: ~4.1 GMAC = 8.2 GFLOP per 224² frame forward
                # (torchvision model card); 100 streams × 30 fps, one day of service.
                name=N_("Real-time video analytics (100 streams × 30 fps, int8)"),
                scenario="inference",
                params=25.6e6,
                precision="int8",
                samples=3000 * 3600 * 24.0,
                flops_per_sample=8.2e9,
                throughput_per_s=3000,
                batch=64,
                node_limit=1,
            ),
            "nlp-inference-t4": Workload(
                # BERT-base (110M) at seq 128, 800 queries/s (seed: QPS 120 → 800+ on 2×T4).
                name=N_("NLP inference, T4 class (BERT-base, 800 QPS, fp16)"),
                scenario="inference",
                params=110e6,
                precision="fp16",
                samples=800 * 3600.0,
                seq_len=128,
                flops_per_sample=2 * 110e6 * 128,
                throughput_per_s=800,
                batch=32,
                node_limit=1,
            ),
            "fp64-risk": Workload(
                # Monte Carlo risk run: 1 EFLOP of FP64 work, 64 GiB working set (seed: 8×V100).
                name=N_("FP64 risk simulation (1 EFLOP FP64)"),
                scenario="hpc-fp64",
                params=0,
                precision="fp64",
                flops_total=1e18,
                working_set_bytes=64 * 2**30,
                node_limit=4,
            ),
            "cv-train": Workload(
                # ResNet-50 on ImageNet-1k, 90 epochs: 1.281M images; 3 × 8.2 GFLOP per image
                # (forward + backward ≈ 3× forward). Seed: 4×A100 80GB NVLink.
                name=N_("CV training (ResNet-50, ImageNet, 90 epochs, bf16)"),
                scenario="pretrain",
                params=25.6e6,
                precision="bf16",
                samples=1.281167e6,
                epochs=90,
                flops_per_sample=3 * 8.2e9,
                batch=1024,
                seq_len=1,
                node_limit=2,
            ),
        }
