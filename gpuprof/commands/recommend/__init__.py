"""``gpuprof recommend``: rank cloud instances for a workload, or estimate one configuration.

The parser is here; the command is :mod:`.run`, the workload flags' types :mod:`.args`, this
machine's GPUs and measurements :mod:`.local`, the tables :mod:`.output`, ``--trace``
:mod:`.trace`, ``--gpu/--gpus`` :mod:`.config`, ``--model`` :mod:`.models` and
``--from-profile`` :mod:`.profile`.
"""

from __future__ import annotations

import argparse

from gpuprof.argtypes import finite_float, int_range, positive_int
from gpuprof.commands.args import add_print_json, add_providers
from gpuprof.commands.base import Command
from gpuprof.commands.recommend.args import (
    add_shared_flags,
    count_arg,
    params_arg,
    parse_count,
    parse_hours,
    usd_arg,
    workload_of,
)
from gpuprof.commands.recommend.run import run
from gpuprof.i18n import N_, tr
from gpuprof.recommend.workload import ATTENTION_KERNELS, BILLINGS, KV_ADMISSION, LIMITS, SAMPLERS

__all__ = [
    "COMMANDS",
    "params_arg",
    "parse_count",
    "parse_hours",
    "run",
    "workload_of",
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    w = p.add_argument_group(tr("workload"))
    w.add_argument(
        "--preset",
        help=tr(
            "a seed scenario: llm-100b-train, video-analytics, "
            "nlp-inference-t4, fp64-risk, cv-train"
        ),
    )
    w.add_argument(
        "--scenario",
        help=tr("pretrain|train, finetune-full, finetune-lora, serve|inference, hpc-fp64, render"),
    )
    w.add_argument("--params", type=params_arg, help=tr("parameter count, e.g. 7e9 or 7B"))
    add_shared_flags(w, "--model")
    w.add_argument("--models-file", metavar="CSV", help=tr("read architectures from this CSV file"))
    w.add_argument(
        "--list-models", action="store_true", help=tr("list the known model architectures")
    )
    w.add_argument("--precision", help=tr("fp32, bf16, fp16, fp8, int8, int4 (default bf16)"))
    w.add_argument(
        "--stack",
        help=tr(
            "training framework: tuned (Megatron-LM/NeMo, the default), fsdp, deepspeed, "
            "torchtitan; its efficiency fitted to published runs of that stack"
        ),
    )
    w.add_argument(
        "--recompute",
        help=tr(
            "training: activation recomputation none (default), selective, full (every "
            "layer's forward again)"
        ),
    )
    w.add_argument(
        "--layout",
        metavar="TEXT",
        help=tr(
            "training: hold the parallel layout, e.g. 'tp4 pp8 cp1 vp6 mbs2 overlap' or "
            "'tp1 pp4 vp8 ep8' (sizes left out are searched; epN: expert parallel, a mixture of "
            "experts; etp1: whole experts per GPU; deepep: the MoE dispatch sends a token once "
            "per remote node; overlap: tensor-parallel communication under the GEMMs)"
        ),
    )
    add_shared_flags(w, "--tokens")
    w.add_argument(
        "--samples",
        type=count_arg("samples"),
        help=tr("samples (images, queries) instead of tokens"),
    )
    w.add_argument(
        "--epochs",
        type=finite_float(0.0, LIMITS["epochs"], lo_open=True),
        help=tr("passes over tokens/samples (default 1)"),
    )
    w.add_argument(
        "--seq-len",
        type=positive_int(int(LIMITS["seq_len"])),
        help=tr("sequence length (default 4096)"),
    )
    w.add_argument(
        "--batch",
        type=positive_int(int(LIMITS["batch"])),
        help=tr("global batch (training) or concurrent sequences (inference)"),
    )
    add_shared_flags(w, "--prompt-len")
    w.add_argument(
        "--flops", type=count_arg("flops_total"), help=tr("total FLOPs (HPC, rendering)")
    )
    sv = p.add_argument_group(tr("serving (--scenario serve)"))
    add_shared_flags(sv, "--output-len", "--rate", "--ttft", "--tpot")
    sv.add_argument(
        "--slo",
        choices=("p50", "p99"),
        help=tr("serving: the percentile of requests the targets hold for (default p99)"),
    )
    sv.add_argument(
        "--kv-dtype",
        help=tr("serving: KV-cache precision fp16, bf16, fp8, int8 (default: the weights')"),
    )
    sv.add_argument(
        "--kv-admission",
        choices=KV_ADMISSION,
        help=tr(
            "serving: the KV cache the engine holds per sequence: on-demand (vLLM, SGLang: "
            "blocks as tokens are generated) or reserve (TensorRT-LLM's default: the whole "
            "prompt + output at admission); default on-demand"
        ),
    )
    sv.add_argument(
        "--attention-kernel",
        choices=ATTENTION_KERNELS,
        help=tr(
            "serving: grouped (each KV head read once for its query heads: FlashAttention, "
            "XQA) or per-head (once per query head: Hugging Face eager attention, "
            "TensorRT-LLM before v0.8); default grouped"
        ),
    )
    sv.add_argument(
        "--sampler",
        choices=SAMPLERS,
        help=tr(
            "serving: what the engine does with each token's logits: argmax (float32, read "
            "once: vLLM, SGLang, TensorRT-LLM's PyTorch backend) or decoder (TensorRT-LLM's "
            "C++ decoder of TensorRT engines: copied, softmax, sampled); default argmax"
        ),
    )
    sv.add_argument(
        "--attention-dp",
        action="store_true",
        default=None,
        help=tr(
            "serving: attention data parallel (TensorRT-LLM's enable_attention_dp): each GPU "
            "runs attention, the LM head and the sampler for its own share of the sequences; "
            "MoE layers stay expert parallel"
        ),
    )
    sv.add_argument(
        "--tp",
        type=int_range(1, 64),
        help=tr("serving: tensor-parallel GPUs per replica (default: the cheapest of 1, 2, 4, 8)"),
    )
    sv.add_argument(
        "--trace",
        metavar="CSV",
        help=tr(
            "serving: a request trace (arrival_s, prompt_tokens, output_tokens per line) "
            "simulated on the top configurations"
        ),
    )
    c = p.add_argument_group(tr("constraints"))
    c.add_argument("--deadline", type=parse_hours, help=tr("finish within, e.g. 72h or 3d"))
    add_shared_flags(c, "--throughput")
    c.add_argument(
        "--budget",
        type=usd_arg,
        help=tr(
            "money for the whole job, in the display currency (--currency, default USD): "
            "--currency CNY --budget 50k is ¥50,000, compared with prices converted at the "
            "dated rate"
        ),
    )
    c.add_argument(
        "--billing",
        choices=BILLINGS,
        help=tr(
            "the price rankings compare: on-demand (default), spot (+10%% time), reserved-1y, "
            "reserved-3y, or monthly (a monthly subscription, paid in whole months); a row "
            "without that price is listed after the priced ones"
        ),
    )
    c.add_argument("--spot", action="store_true", help=tr("rank by spot prices (= --billing spot)"))
    c.add_argument(
        "--nodes", type=positive_int(int(LIMITS["node_limit"])), help=tr("node limit (default 16)")
    )
    add_providers(c)
    from gpuprof.commands.catalog import add_currency_args

    add_currency_args(c)
    c.add_argument("--objective", choices=("auto", "cheapest", "fastest"), default="auto")
    one = p.add_argument_group(tr("estimate one configuration instead of ranking"))
    one.add_argument("--gpu", help=tr("GPU model, e.g. A100-80GB, H100"))
    one.add_argument(
        "--gpus",
        type=positive_int(65536),
        default=None,
        help=tr("GPUs in the configuration (with --gpu)"),
    )
    one.add_argument("--instance", help=tr("an instance type from the catalog, e.g. p4d.24xlarge"))
    here = p.add_argument_group(tr("this machine"))
    here.add_argument(
        "--local-gpu",
        metavar="NAME[xN]",
        help=tr("compare with this machine's GPUs, e.g. 'NVIDIA GeForce RTX 4090x2'"),
    )
    here.add_argument(
        "--measured",
        action="append",
        default=[],
        metavar="GPU:DTYPE=TFLOPS",
        help=tr("achieved TFLOPS measured here, e.g. 'RTX 4090:bf16=150' (repeatable)"),
    )
    here.add_argument(
        "--no-measured",
        action="store_true",
        help=tr(
            "ignore the GEMM results of `gpuprof bench` on this machine's GPU "
            "model (by default they set its efficiency)"
        ),
    )
    here.add_argument(
        "--util",
        type=finite_float(0.0, 100.0, unit="%"),
        help=tr("GPU utilization seen locally, percent"),
    )
    from gpuprof.commands.recommend.profile import add_arguments as add_profile_arguments

    add_profile_arguments(p)
    p.add_argument("--limit", type=positive_int(), default=15, help=tr("rows to show (default 15)"))
    add_print_json(p)


COMMANDS = (
    Command(
        "recommend",
        N_("rank cloud instances for a workload (fit, time, cost)"),
        add_arguments,
        run,
        description=N_(
            "Rank cloud GPU instances for a workload. Time = FLOPs / (GPUs × spec peak × "
            "efficiency); cost = hours × price. Prices show their as-of date."
        ),
    ),
)
