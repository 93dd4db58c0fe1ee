"""``gpuprof recommend``: rank cloud instances for a workload, or estimate one configuration."""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

from gpuprof.argtypes import bounded, finite_float, int_range, positive_int
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.recommend import parse as core_parse
from gpuprof.recommend.workload import LIMITS

__all__ = ["parse_count", "parse_hours", "register"]

#: Achieved TFLOPS above this for one GPU is a typo (B200 FP4 dense is ~9000).
MAX_MEASURED_TFLOPS = 1e5
#: A best time longer than this (hours) is not a plan: said above the table.
IMPLAUSIBLE_HOURS = 24 * 366 * 10


def _count(field: str, *, zero: bool = False) -> Callable[[str], float]:
    """``7B``-style counts for argparse, > 0 (>= 0 with ``zero``) and within the workload's
    :data:`~gpuprof.recommend.workload.LIMITS`."""
    return bounded(core_parse.parse_count, 0.0, LIMITS[field], lo_open=not zero)


#: The core's parsers (gpuprof.recommend.parse) for argparse: bad text is a usage error.
parse_count = bounded(core_parse.parse_count, 0.0)
parse_hours = bounded(core_parse.parse_hours, 0.0, LIMITS["deadline_hours"], lo_open=True)
params_arg = _count("params", zero=True)
tokens_arg = _count("tokens")
_usd = bounded(core_parse.parse_usd, 0.0, LIMITS["budget_usd"], lo_open=True)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "recommend",
        help=tr("rank cloud instances for a workload (fit, time, cost)"),
        description=tr(
            "Rank cloud GPU instances for a workload. Time = FLOPs / (GPUs × spec peak × "
            "efficiency); cost = hours × price. Prices show their as-of date."
        ),
    )
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
    w.add_argument(
        "--model",
        help=tr(
            "a model architecture, e.g. llama-3.1-70b (layers, KV heads, total and active "
            "parameters; see --list-models)"
        ),
    )
    w.add_argument("--models-file", metavar="CSV", help=tr("read architectures from this CSV file"))
    w.add_argument(
        "--list-models", action="store_true", help=tr("list the known model architectures")
    )
    w.add_argument("--precision", help=tr("fp32, bf16, fp16, fp8, int8, int4 (default bf16)"))
    w.add_argument("--tokens", type=tokens_arg, help=tr("tokens to train on / to generate"))
    w.add_argument(
        "--samples", type=_count("samples"), help=tr("samples (images, queries) instead of tokens")
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
    w.add_argument(
        "--prompt-len",
        type=int_range(0, int(LIMITS["seq_len"])),
        help=tr(
            "inference: prompt tokens per sequence, prefilled before decoding; each sequence "
            "then generates seq-len minus this many (default 0: no prefill)"
        ),
    )
    w.add_argument("--flops", type=_count("flops_total"), help=tr("total FLOPs (HPC, rendering)"))
    sv = p.add_argument_group(tr("serving (--scenario serve)"))
    sv.add_argument(
        "--output-len",
        type=positive_int(int(LIMITS["output_len"])),
        help=tr("serving: mean generated tokens per request (default seq-len minus prompt-len)"),
    )
    sv.add_argument(
        "--rate",
        type=bounded(core_parse.parse_count, 0.0, LIMITS["rate_per_s"], lo_open=True),
        help=tr("serving: requests per second to sustain (or --throughput in output tokens/s)"),
    )
    sv.add_argument(
        "--ttft",
        type=bounded(core_parse.parse_seconds, 0.0, LIMITS["ttft_s"], lo_open=True),
        help=tr("serving: time-to-first-token target, e.g. 2s or 500ms"),
    )
    sv.add_argument(
        "--tpot",
        type=bounded(core_parse.parse_seconds, 0.0, LIMITS["tpot_s"], lo_open=True),
        help=tr("serving: time-per-output-token target, e.g. 50ms"),
    )
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
    c.add_argument(
        "--throughput",
        type=_count("throughput_per_s"),
        help=tr("target tokens or samples per second (serving: output tokens per second)"),
    )
    c.add_argument("--budget", type=_usd, help=tr("USD for the whole job"))
    c.add_argument("--spot", action="store_true", help=tr("allow spot/preemptible prices"))
    c.add_argument(
        "--nodes", type=positive_int(int(LIMITS["node_limit"])), help=tr("node limit (default 16)")
    )
    c.add_argument("--provider", help=tr("comma-separated providers (aws,gcp,...)"))
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
    from gpuprof.commands.recommend_profile import add_arguments

    add_arguments(p)
    p.add_argument("--limit", type=positive_int(), default=15, help=tr("rows to show (default 15)"))
    p.add_argument("--json", action="store_true", help=tr("print JSON"))
    p.set_defaults(func=_run)


def _workload(args: argparse.Namespace) -> Any:
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
    }
    given = {k: v for k, v in fields.items() if v is not None}
    if args.spot:
        given["spot"] = True
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


def _measurements(items: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for item in items:
        m = re.fullmatch(r"(.+):(\w+)=([0-9.eE+]+)", item.strip())
        if not m:
            raise InputError(tr("--measured wants GPU:DTYPE=TFLOPS, got {t!r}", t=item))
        try:
            tflops = float(m.group(3))
        except ValueError:
            raise InputError(tr("--measured wants GPU:DTYPE=TFLOPS, got {t!r}", t=item)) from None
        if not (math.isfinite(tflops) and 0 < tflops <= MAX_MEASURED_TFLOPS):
            raise InputError(
                tr(
                    "--measured {t!r}: TFLOPS must be a finite number > 0 and at most {hi:g}",
                    t=item,
                    hi=MAX_MEASURED_TFLOPS,
                )
            )
        out.setdefault(m.group(1).strip(), {})[m.group(2).lower()] = tflops
    return out


def _local(text: str | None, util: float | None) -> Any:
    if not text:
        return None
    from gpuprof.recommend.rank import LocalMachine

    m = re.fullmatch(r"(.+?)\s*[x×]\s*(\d+)", text.strip())
    name, count = (m.group(1), int(m.group(2))) if m else (text.strip(), 1)
    return LocalMachine(((name, count),), util_pct=util)


def _run(args: argparse.Namespace) -> int:
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.rank import recommend

    if args.from_profile is not None:
        from gpuprof.commands.recommend_profile import run

        return run(args)
    if args.steps is not None:
        raise InputError(tr("--steps needs --from-profile RUN.gpuprof"))
    if args.list_models:
        from gpuprof.commands.recommend_models import list_models

        return list_models(args)
    trace = _trace_defaults(args)
    wl = _workload(args)
    if trace is not None and not wl.is_serving:
        raise InputError(tr("--trace is for --scenario serve (LLM serving traffic)"))
    cat = load_catalog()
    limit: int | None = args.limit
    if args.gpu:
        if not args.gpus or args.gpus < 1:
            raise InputError(tr("--gpu needs --gpus N (N >= 1)"))
        from gpuprof.commands.recommend_config import one_config_catalog

        cat, nodes = one_config_catalog(cat, args.gpu, args.gpus)
        wl = wl.with_(node_limit=max(wl.node_limit, nodes), nodes=nodes)
    elif args.instance:
        cat = cat.filter(instance=args.instance)
        if not cat.instances:
            raise InputError(
                tr("no instance {i!r} in the catalog; see `gpuprof catalog list`", i=args.instance)
            )
        limit = None
    measured, cals = _calibrated(args)
    rec = recommend(
        wl,
        cat,
        objective=args.objective,
        providers=_split(args.provider),
        local=_local(args.local_gpu, args.util),
        local_measurements=measured,
        local_util_pct=args.util,
        limit=limit,
    )
    if cals:
        from gpuprof.recommend.calibrate import annotate

        rec = annotate(rec, cals)
    verdict = [*verdict_lines(rec), *wl.plausibility_warnings()]
    from gpuprof.commands.recommend_models import architecture_note

    sims = _simulate(rec, trace) if trace is not None else []
    if args.json:
        from gpuprof.jsonout import print_json

        out = {
            "workload": dataclasses.asdict(wl),
            "objective": rec.objective,
            "candidates": rec.candidates,
            "viable": rec.viable,
            "verdict": verdict,
            "architecture": architecture_note(wl),
            "rows": [_row_json(r, wl) for r in rec.rows],
            "local": _row_json(rec.local, wl) if rec.local else None,
            "warnings": list(rec.warnings),
            "formulas": list(rec.formulas),
        }
        if trace is not None:
            out["trace"] = {
                "file": trace.path,
                "requests": len(trace),
                "duration_s": trace.duration_s,
                "simulated": True,
                "results": [{"rank": r.rank, "label": r.label, **res.to_dict()} for r, res in sims],
            }
        print_json(out)
        return 0
    from gpuprof.termtext import console

    console().print(architecture_note(wl), markup=False, highlight=False)
    _print(rec, verdict)
    _print_calibration(cals, wl.compute_dtype)
    if trace is not None:
        _print_trace(trace, sims, wl)
    return 0


#: Configurations the trace is simulated on: the best rows that fit.
TRACE_TOP = 3


def _trace_defaults(args: argparse.Namespace) -> Any:
    """Read ``--trace`` (or None) and take the traffic it shows where the flags gave none:
    mean prompt and output lengths, and its request rate."""
    path = getattr(args, "trace", None)
    if not path:
        return None
    from gpuprof.recommend.trace import read_trace

    if (args.scenario or "").strip().lower() not in ("serve", "serving", "inference", "infer"):
        raise InputError(tr("--trace is for --scenario serve (LLM serving traffic)"))
    trace = read_trace(path)
    if args.prompt_len is None:
        args.prompt_len = round(float(trace.prompt.mean()))
    if args.output_len is None:
        args.output_len = max(1, round(float(trace.output.mean())))
    if args.rate is None and args.throughput is None:
        args.rate = trace.rate_per_s
    return trace


def _simulate(rec: Any, trace: Any) -> list[tuple[Any, Any]]:
    """(row, result) of the trace simulated on the top rows that fit."""
    from gpuprof.recommend.rank import serving_arrays_of
    from gpuprof.recommend.trace import simulate

    out = []
    for row in [r for r in rec.rows if r.fits and r.serving is not None][:TRACE_TOP]:
        sv, i = serving_arrays_of(rec, row)
        replicas = row.serving.instances * row.serving.replicas_per_instance
        out.append((row, simulate(rec.workload, sv, i, trace, replicas)))
    return out


def _print_trace(trace: Any, sims: list[tuple[Any, Any]], w: Any) -> None:
    from rich.table import Table

    from gpuprof.recommend.explain import fmt_duration_ms
    from gpuprof.termtext import console
    from gpuprof.units import NA

    def ms(x: float) -> str:
        return fmt_duration_ms(x) if math.isfinite(x) else NA

    table = Table(
        title=tr(
            "SIMULATED: trace {f} ({n} requests over {d:.4g} s) on the top configurations",
            f=trace.path,
            n=len(trace),
            d=trace.duration_s,
        )
    )
    for col in (
        "#",
        N_("provider / instance"),
        N_("replicas"),
        N_("TTFT p50"),
        N_("TTFT p99"),
        N_("TPOT p50"),
        N_("TPOT p99"),
        N_("tok/s"),
        N_("goodput"),
    ):
        table.add_column(tr(col), overflow="fold")
    for row, res in sims:
        table.add_row(
            str(row.rank),
            row.label,
            str(res.replicas),
            ms(res.ttft_s["p50"]),
            ms(res.ttft_s["p99"]),
            ms(res.tpot_s["p50"]),
            ms(res.tpot_s["p99"]),
            f"{res.output_tokens_per_s:,.0f}",
            f"{res.goodput_share:.1%}" + (" !" if res.truncated else ""),
        )
    con = console()
    con.print(table)
    con.print(
        tr(
            "goodput = requests that meet the TTFT and TPOT targets ({t}, {p}); a discrete-event "
            "model of the continuous-batching scheduler, not a measurement",
            t=fmt_duration_ms(w.ttft_s) if w.ttft_s else NA,
            p=fmt_duration_ms(w.tpot_s) if w.tpot_s else NA,
        )
    )


def _local_gpu_names(local_gpu: str | None) -> list[str]:
    """This machine's GPU names: ``--local-gpu`` when given, else what NVML lists (or none)."""
    if local_gpu:
        m = re.fullmatch(r"(.+?)\s*[x×]\s*(\d+)", local_gpu.strip())
        return [m.group(1) if m else local_gpu.strip()]
    from gpuprof.telemetry.nvml import NvmlSource

    source = NvmlSource()
    try:
        return [d.name for d in source.devices() if d.name]
    except Exception:
        return []
    finally:
        source.close()


def _calibrated(args: argparse.Namespace) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """(measurements for ``recommend``, the calibrations taken from the results database).

    GEMM results of `gpuprof bench` on a GPU model that is in this machine set its efficiency,
    unless ``--no-measured``; a ``--measured`` value for the same GPU and dtype wins.
    """
    from gpuprof.catalog.names import normalize_gpu_model
    from gpuprof.paths import results_db_path

    manual = _measurements(args.measured)
    if args.no_measured or not results_db_path().exists():  # no benchmarks: skip the NVML probe
        return manual, {}
    from gpuprof.recommend.calibrate import local_calibrations

    names = _local_gpu_names(args.local_gpu)
    cals = local_calibrations(gpu_names=names) if names else {}
    for name, rates in manual.items():
        key = normalize_gpu_model(name) or name
        for dtype in rates:
            cals.get(key, {}).pop(dtype, None)
    cals = {k: v for k, v in cals.items() if v}
    merged: dict[str, dict[str, float]] = {
        k: {d: c.tflops for d, c in v.items()} for k, v in cals.items()
    }
    for name, rates in manual.items():
        merged.setdefault(normalize_gpu_model(name) or name, {}).update(rates)
    return merged, cals


def _print_calibration(cals: dict[str, Any], dtype: str) -> None:
    from gpuprof.termtext import console

    for key, per in cals.items():
        cal = per.get(dtype)
        if cal is None:
            continue
        console().print(
            tr(
                "{g}: {d} GEMM {t:.1f} TFLOPS, {src} — sets its efficiency "
                "(--no-measured to ignore)",
                g=key,
                d=dtype,
                t=cal.tflops,
                src=tr_text(cal.label),
            ),
            highlight=False,
        )


def _split(text: str | None) -> list[str] | None:
    return [p for p in text.split(",") if p.strip()] if text else None


def verdict_lines(rec: Any) -> list[str]:
    """What the table cannot say by itself, for above it: nothing fits, nothing meets the
    deadline or the budget, or even the best time is beyond any plan. Rows are ranked with
    the ones that fit and meet both first, so looking at the rows shown is enough."""
    w = rec.workload
    rows = [r for r in rec.rows if r.viable]
    out: list[str] = []
    if not rows:
        out.append(
            tr(
                "no candidate fits this workload ({c} considered): none has enough GPU memory or "
                "supports {p}",
                c=rec.candidates,
                p=w.precision,
            )
        )
        return out
    if w.is_serving:
        if not any(r.serving is not None and r.serving.meets_targets for r in rows):
            out.append(
                tr(
                    "NOTHING MEETS THE LATENCY TARGETS ({p}): the rows show how close each comes",
                    p=w.slo_percentile,
                )
            )
        return out
    timed = [r for r in rows if r.hours is not None]
    if not timed:
        out.append(tr("no candidate has a time estimate: no peak rate for {d}", d=w.compute_dtype))
        return out
    deadline = any(r.meets_deadline is not None for r in timed)
    budget = w.budget_usd is not None
    meets = [r for r in timed if r.meets_deadline is not False]
    within = [r for r in timed if r.within_budget is not False]
    both = [r for r in meets if r.within_budget is not False]
    from gpuprof.units import fmt_duration, fmt_usd

    if deadline and not meets:
        best = min(r.hours for r in timed)
        out.append(
            tr(
                "NOTHING MEETS THE DEADLINE: the fastest fitting candidate needs {t}",
                t=fmt_duration(best * 3600),
            )
        )
    if budget and not within:
        costs = [r.cost_usd for r in timed if r.cost_usd is not None]
        out.append(
            tr(
                "NOTHING STAYS WITHIN THE BUDGET of {b}: the cheapest candidate costs {c}",
                b=fmt_usd(w.budget_usd),
                c=fmt_usd(min(costs), digits=0) if costs else "?",
            )
        )
    if deadline and budget and meets and within and not both:
        out.append(tr("NO CANDIDATE MEETS BOTH the deadline and the budget: the rows show each"))
    fastest = min(r.hours for r in timed)
    if fastest > IMPLAUSIBLE_HOURS:
        out.append(
            tr(
                "even the fastest candidate needs {t}, beyond any plan: check the workload's numbers",
                t=fmt_duration(fastest * 3600),
            )
        )
    return out


def _row_json(r: Any, w: Any) -> dict[str, object]:
    """A row for ``--json``: what is unknown is ``null`` with a ``<field>_reason``."""
    d: dict[str, object] = r.to_dict()
    if r.serving is not None or (w.is_serving and r.hours is None):
        why = tr("serving: a rate to sustain, not a job; see serving and cost_unit")
        for key in ("hours", "hours_spot", "efficiency", "achieved_tflops"):
            d[key + "_reason"] = why
        for key in ("cost_usd", "cost_ondemand_usd", "cost_spot_usd"):
            if d.get(key) is None:
                d[key + "_reason"] = (
                    tr("does not fit") if not r.fits else tr("no such price in the catalog")
                )
        return d
    if r.hours is None:
        inst = r.instance
        why = (
            tr("GPU {name!r} is not in the spec table: time unknown", name=inst.gpu_name)
            if not inst.gpu_known
            else tr(
                "no {dtype} rate for {gpu} in the sources: time unknown",
                dtype=w.compute_dtype,
                gpu=inst.gpu_model,
            )
        )
        for key in ("hours", "hours_spot", "efficiency", "scaling_efficiency", "achieved_tflops"):
            value = d.get(key)
            if value is None or (isinstance(value, float) and not math.isfinite(value)):
                d[key] = None
                d[key + "_reason"] = why
    for key in ("cost_usd", "cost_ondemand_usd", "cost_spot_usd"):
        if d.get(key) is None and key + "_reason" not in d:
            d[key + "_reason"] = (
                tr("time unknown") if r.hours is None else tr("no such price in the catalog")
            )
    return d


def _print(rec: Any, verdict: list[str] | None = None) -> None:
    from rich.table import Table
    from rich.text import Text

    from gpuprof.termtext import console, styled
    from gpuprof.units import NA, fmt_bytes, fmt_duration, fmt_pct, fmt_usd

    # Markup is off: catalog rows, labels and reasons are shown as they are; styles are explicit.
    con = console()
    w = rec.workload
    for text in verdict or ():
        con.print(styled(f"! {text}", "bold red"))
    title = tr(
        "{name} — {s}, {p:.3g} params, {prec}; objective: {o}; {v} of {c} candidates fit",
        name=tr(w.name) if w.name else tr("workload"),
        s=w.scenario,
        p=w.params,
        prec=w.precision,
        o=rec.objective,
        v=rec.viable,
        c=rec.candidates,
    )
    if w.is_serving:
        _print_serving(rec, title)
        return
    table = Table(title=title)
    for col in (
        "#",
        N_("provider / instance"),
        N_("region"),
        "GPUs",
        N_("mem/GPU"),
        N_("time"),
        N_("cost"),
        "$/h",
        N_("as of"),
        N_("eff."),
        "P",
        N_("vs here"),
    ):
        table.add_column(tr(col), overflow="fold")

    def line(r: Any) -> list[str | Text]:
        inst = r.instance
        need: str | Text
        need = f"{fmt_bytes(r.mem_need_per_gpu_bytes)}/{fmt_bytes(r.mem_per_gpu_bytes, digits=0)}"
        if not r.fits:
            need = styled(need, "red")
        vs = NA if r.speedup_vs_local is None else f"{r.speedup_vs_local:.2g}×"
        hours: str | Text = fmt_duration(r.hours * 3600) if r.hours is not None else NA
        if r.meets_deadline is False:
            hours = styled(f"{hours} ✗", "red")
        cost: str | Text = (
            (
                tr("{cost} spot", cost=fmt_usd(r.cost_usd, digits=0))
                if r.cost_basis == "spot"
                else fmt_usd(r.cost_usd, digits=0)
            )
            if r.cost_usd is not None
            else NA
        )
        if r.within_budget is False:
            cost = styled(f"{cost} ✗", "red")
        return [
            str(r.rank) if r.rank else "—",
            r.label,
            inst.region or NA,
            f"{r.gpus_total:g}× {inst.gpu_model}",
            need,
            hours,
            cost,
            fmt_usd(r.price_per_hour_usd),
            inst.as_of or NA,
            fmt_pct(r.efficiency * 100) if r.efficiency is not None else NA,
            "★" if r.pareto else "",
            vs,
        ]

    for r in rec.rows:
        table.add_row(*line(r))
    if rec.local is not None:
        table.add_row(*line(rec.local), style="italic")
    con.print(table)
    con.print(
        tr(
            "P ★ = on the Pareto front of time vs cost. 'vs here' = times faster than this machine. "
            "✗ = misses the deadline or the budget."
        )
    )
    for text in rec.warnings:
        con.print(styled(f"! {text}", "yellow"))
    for r in rec.rows[:3]:
        con.print(styled(f"{r.rank}. {r.label}", "bold"))
        for text in r.reasons:
            con.print(f"   • {text}")
        for text in r.warnings:
            con.print(styled(f"   ! {text}", "yellow"))


def _print_serving(rec: Any, title: str) -> None:
    """The serving table: cost per million tokens, instances, throughput, latency, bound."""
    from rich.table import Table
    from rich.text import Text

    from gpuprof.recommend.explain import fmt_duration_ms
    from gpuprof.termtext import console, styled
    from gpuprof.units import NA, fmt_bytes, fmt_usd

    con = console()
    w = rec.workload
    table = Table(title=title)
    for col in (
        "#",
        N_("provider / instance"),
        N_("region"),
        "GPUs",
        N_("mem/GPU"),
        N_("layout"),
        N_("batch"),
        N_("instances"),
        "$/h",
        N_("$/M out"),
        N_("tok/s/inst"),
        N_("TTFT"),
        N_("TPOT"),
        N_("bound"),
        N_("as of"),
        "P",
    ):
        table.add_column(tr(col), overflow="fold")

    def ms(x: float | None) -> str:
        return NA if x is None else fmt_duration_ms(x)

    def line(r: Any) -> list[str | Text]:
        inst = r.instance
        s = r.serving
        need: str | Text
        need = f"{fmt_bytes(r.mem_need_per_gpu_bytes)}/{fmt_bytes(r.mem_per_gpu_bytes, digits=0)}"
        if not r.fits:
            need = styled(need, "red")
        if s is None or not r.fits:
            blank: list[str | Text] = [NA] * 9
            return [
                str(r.rank) if r.rank else "—",
                r.label,
                inst.region or NA,
                f"{r.gpus_total:g}× {inst.gpu_model}",
                need,
                *blank,
                inst.as_of or NA,
                "",
            ]
        layout = (
            f"TP{s.tp}" + (f" PP{s.pp}" if s.pp > 1 else "") + (f" EP{s.ep}" if s.ep > 1 else "")
        )
        if s.replicas_per_instance > 1:
            layout += f" ×{s.replicas_per_instance}"
        ttft: str | Text = ms(s.ttft_s)
        tpot: str | Text = ms(s.tpot_s)
        if not s.meets_targets:
            if w.ttft_s is not None and (s.ttft_s is None or s.ttft_s > w.ttft_s):
                ttft = styled(f"{ttft} ✗", "red")
            if w.tpot_s is not None and (s.tpot_s is None or s.tpot_s > w.tpot_s):
                tpot = styled(f"{tpot} ✗", "red")
        return [
            str(r.rank) if r.rank else "—",
            r.label,
            inst.region or NA,
            f"{r.gpus_total:g}× {inst.gpu_model}",
            need,
            layout,
            f"{s.batch:.0f}/{s.batch_max}",
            str(s.instances),
            fmt_usd(r.price_per_hour_usd),
            fmt_usd(r.usd_per_million),
            f"{s.capacity_tokens_per_s_per_instance:,.0f}",
            ttft,
            tpot,
            tr(s.bound),
            inst.as_of or NA,
            "★" if r.pareto else "",
        ]

    for r in rec.rows:
        table.add_row(*line(r))
    if rec.local is not None:
        table.add_row(*line(rec.local), style="italic")
    con.print(table)
    con.print(
        tr(
            "Serving {rate:.4g} requests/s, prompt {p} and output {o} tokens: instances = how "
            "many sustain the rate; $/h for all of them; $/M out = per million output tokens; "
            "batch = sequences in flight per replica at this load / that fit; TTFT and TPOT {pct} "
            "at this load; tok/s/inst = output tokens/s one instance sustains. P ★ = Pareto "
            "front of cost per million vs throughput per instance. ✗ = misses a target.",
            rate=w.requests_per_s,
            p=w.prompt_len,
            o=w.gen_len,
            pct=w.slo_percentile,
        )
    )
    for text in rec.warnings:
        con.print(styled(f"! {text}", "yellow"))
    for r in rec.rows[:3]:
        con.print(styled(f"{r.rank}. {r.label}", "bold"))
        for text in r.reasons:
            con.print(f"   • {text}")
        for text in r.warnings:
            con.print(styled(f"   ! {text}", "yellow"))
