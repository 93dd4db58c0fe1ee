"""The flags of ``gpuprof recommend`` that describe a workload: their argparse types and the
:class:`~gpuprof.recommend.workload.Workload` they make (``gpuprof report`` shares both)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from gpuprof.argtypes import bounded, int_range, positive_int
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend import parse as core_parse
from gpuprof.recommend.workload import LIMITS

__all__ = [
    "add_shared_flags",
    "count_arg",
    "params_arg",
    "parse_count",
    "parse_hours",
    "tokens_arg",
    "usd_arg",
    "workload_of",
]


def count_arg(field: str, *, zero: bool = False) -> Callable[[str], float]:
    """``7B``-style counts for argparse, > 0 (>= 0 with ``zero``) and within the workload's
    :data:`~gpuprof.recommend.workload.LIMITS`."""
    return bounded(core_parse.parse_count, 0.0, LIMITS[field], lo_open=not zero)


#: The core's parsers (gpuprof.recommend.parse) for argparse: bad text is a usage error.
parse_count = bounded(core_parse.parse_count, 0.0)
parse_hours = bounded(core_parse.parse_hours, 0.0, LIMITS["deadline_hours"], lo_open=True)
params_arg = count_arg("params", zero=True)
tokens_arg = count_arg("tokens")
usd_arg = bounded(core_parse.parse_usd, 0.0, LIMITS["budget_usd"], lo_open=True)


def add_shared_flags(group: argparse._ActionsContainer, *names: str) -> None:
    """Adds the ``gpuprof recommend`` flags ``names`` to ``group`` (a parser or an argument
    group), with their types and help: ``gpuprof report``'s recommendation takes them too."""
    flags: dict[str, dict[str, Any]] = {
        "--tokens": {"type": tokens_arg, "help": tr("tokens to train on / to generate")},
        "--model": {
            "help": tr(
                "a model architecture, e.g. llama-3.1-70b (layers, KV heads, total and active "
                "parameters; see --list-models)"
            )
        },
        "--prompt-len": {
            "type": int_range(0, int(LIMITS["seq_len"])),
            "help": tr(
                "inference: prompt tokens per sequence, prefilled before decoding; each sequence "
                "then generates seq-len minus this many (default 0: no prefill)"
            ),
        },
        "--output-len": {
            "type": positive_int(int(LIMITS["output_len"])),
            "help": tr(
                "serving: mean generated tokens per request (default seq-len minus prompt-len)"
            ),
        },
        "--rate": {
            "type": bounded(core_parse.parse_count, 0.0, LIMITS["rate_per_s"], lo_open=True),
            "help": tr(
                "serving: requests per second to sustain (or --throughput in output tokens/s)"
            ),
        },
        "--ttft": {
            "type": bounded(core_parse.parse_seconds, 0.0, LIMITS["ttft_s"], lo_open=True),
            "help": tr("serving: time-to-first-token target, e.g. 2s or 500ms"),
        },
        "--tpot": {
            "type": bounded(core_parse.parse_seconds, 0.0, LIMITS["tpot_s"], lo_open=True),
            "help": tr("serving: time-per-output-token target, e.g. 50ms"),
        },
        "--throughput": {
            "type": count_arg("throughput_per_s"),
            "help": tr("target tokens or samples per second (serving: output tokens per second)"),
        },
    }
    for name in names:
        group.add_argument(name, **flags[name])


def workload_of(args: argparse.Namespace) -> Any:
    """The :class:`~gpuprof.recommend.workload.Workload` the flags describe (a preset with the
    flags given on top, or ``--scenario`` and its numbers); bad combinations are InputError."""
    from gpuprof.recommend.workload import Workload

    fields = {
        "scenario": args.scenario,
        "params": args.params,
        "precision": args.precision,
        "tokens": args.tokens,
        "samples": args.samples,
        "epochs": args.epochs,
        "seq_len": args.seq_len,
        "batch": args.batch,
        "flops_total": args.flops,
        "deadline_hours": args.deadline,
        "throughput_per_s": args.throughput,
        "budget_usd": args.budget,
        "node_limit": args.nodes,
        "prompt_len": getattr(args, "prompt_len", None),
        "output_len": getattr(args, "output_len", None),
        "rate_per_s": getattr(args, "rate", None),
        "ttft_s": getattr(args, "ttft", None),
        "tpot_s": getattr(args, "tpot", None),
        "slo_percentile": getattr(args, "slo", None),
        "kv_dtype": getattr(args, "kv_dtype", None),
        "tp": getattr(args, "tp", None),
        "kv_admission": getattr(args, "kv_admission", None),
        "attention_kernel": getattr(args, "attention_kernel", None),
        "sampler": getattr(args, "sampler", None),
        "attention_dp": getattr(args, "attention_dp", None),
        "stack": getattr(args, "stack", None),
        "recompute": getattr(args, "recompute", None),
        "layout": getattr(args, "layout", None),
    }
    given = {k: v for k, v in fields.items() if v is not None}
    billing = getattr(args, "billing", None)
    if args.spot and billing not in (None, "spot"):
        raise InputError(tr("--spot is --billing spot: give one of them"))
    if args.spot or billing:
        given["billing"] = "spot" if args.spot else billing
    model = getattr(args, "model", None)  # other commands (report) share this parser's fields
    if model:
        from gpuprof.recommend.models import find_model, load_models

        if "params" in given:
            raise InputError(tr("give --model or --params, not both"))
        arch = find_model(model, load_models(getattr(args, "models_file", None)))
        given.update(arch.workload_fields())
    if args.preset:
        presets = Workload.presets()
        if args.preset not in presets:
            raise InputError(
                tr("unknown preset {p!r}; use one of {all}", p=args.preset, all=", ".join(presets))
            )
        return presets[args.preset].with_(**given)
    if "scenario" not in given:
        raise InputError(tr("give --scenario (or --preset)"))
    if "params" not in given and given["scenario"] not in ("hpc-fp64", "hpc", "render"):
        raise InputError(tr("give --params, e.g. --params 7e9, or --model NAME"))
    given.setdefault("params", 0.0)
    return Workload(**given)
