"""``gpuprof recommend``: rank cloud instances for a workload, or estimate one configuration."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
from collections.abc import Callable
from typing import Any

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend import parse as core_parse
from gpuprof.recommend.parse import ParseError

__all__ = ["parse_count", "parse_hours", "register"]


def _argparse_type(parse: Callable[[str], float]) -> Callable[[str], float]:
    """``parse`` for an argparse ``type=``: its :class:`ParseError` becomes argparse's own."""

    def wrapped(text: str) -> float:
        try:
            return parse(text)
        except ParseError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    wrapped.__name__ = wrapped.__qualname__ = parse.__name__
    wrapped.__doc__ = parse.__doc__
    return wrapped


#: The core's parsers (gpuprof.recommend.parse) for argparse: bad text is a usage error.
parse_count = _argparse_type(core_parse.parse_count)
parse_hours = _argparse_type(core_parse.parse_hours)
_usd = _argparse_type(core_parse.parse_usd)


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
        help=tr("pretrain|train, finetune-full, finetune-lora, inference, hpc-fp64, render"),
    )
    w.add_argument("--params", type=parse_count, help=tr("parameter count, e.g. 7e9 or 7B"))
    w.add_argument("--precision", help=tr("fp32, bf16, fp16, fp8, int8, int4 (default bf16)"))
    w.add_argument("--tokens", type=parse_count, help=tr("tokens to train on / to generate"))
    w.add_argument(
        "--samples", type=parse_count, help=tr("samples (images, queries) instead of tokens")
    )
    w.add_argument("--epochs", type=float, help=tr("passes over tokens/samples (default 1)"))
    w.add_argument("--seq-len", type=int, help=tr("sequence length (default 4096)"))
    w.add_argument(
        "--batch", type=int, help=tr("global batch (training) or concurrent sequences (inference)")
    )
    w.add_argument("--flops", type=parse_count, help=tr("total FLOPs (HPC, rendering)"))
    c = p.add_argument_group(tr("constraints"))
    c.add_argument("--deadline", type=parse_hours, help=tr("finish within, e.g. 72h or 3d"))
    c.add_argument("--throughput", type=parse_count, help=tr("target tokens or samples per second"))
    c.add_argument("--budget", type=_usd, help=tr("USD for the whole job"))
    c.add_argument("--spot", action="store_true", help=tr("allow spot/preemptible prices"))
    c.add_argument("--nodes", type=int, help=tr("node limit (default 16)"))
    c.add_argument("--provider", help=tr("comma-separated providers (aws,gcp,...)"))
    c.add_argument("--objective", choices=("auto", "cheapest", "fastest"), default="auto")
    one = p.add_argument_group(tr("estimate one configuration instead of ranking"))
    one.add_argument("--gpu", help=tr("GPU model, e.g. A100-80GB, H100"))
    one.add_argument(
        "--gpus", type=int, default=None, help=tr("GPUs in the configuration (with --gpu)")
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
    here.add_argument("--util", type=float, help=tr("GPU utilization seen locally, percent"))
    p.add_argument("--limit", type=int, default=15, help=tr("rows to show (default 15)"))
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
    }
    given = {k: v for k, v in fields.items() if v is not None}
    if args.spot:
        given["spot"] = True
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
        raise InputError(tr("give --params, e.g. --params 7e9"))
    given.setdefault("params", 0.0)
    return Workload(**given)


def _measurements(items: list[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for item in items:
        m = re.fullmatch(r"(.+):(\w+)=([0-9.eE+]+)", item.strip())
        if not m:
            raise InputError(tr("--measured wants GPU:DTYPE=TFLOPS, got {t!r}", t=item))
        out.setdefault(m.group(1).strip(), {})[m.group(2).lower()] = float(m.group(3))
    return out


def _local(text: str | None, util: float | None) -> Any:
    if not text:
        return None
    from gpuprof.recommend.rank import LocalMachine

    m = re.fullmatch(r"(.+?)\s*[x×]\s*(\d+)", text.strip())
    name, count = (m.group(1), int(m.group(2))) if m else (text.strip(), 1)
    return LocalMachine(((name, count),), util_pct=util)


def _one_config_catalog(cat: Any, gpu: str, gpus: int) -> Any:
    """A one-row catalog: ``gpus`` × ``gpu`` in one node, priced at the catalog's median $/GPU-h."""
    from gpuprof.catalog.instances import Instance
    from gpuprof.catalog.names import normalize_gpu_model

    key = normalize_gpu_model(gpu)
    if key is None:
        raise InputError(tr("unknown GPU {g!r}; see `gpuprof catalog gpus`", g=gpu))
    same = [
        i
        for i in cat.instances
        if i.gpu_model == key and i.price_ondemand_usd_hr and i.gpu_count >= 1
    ]
    per_gpu = (
        statistics.median(i.price_ondemand_usd_hr / i.gpu_count for i in same) if same else None
    )
    spot = [i.price_spot_usd_hr / i.gpu_count for i in same if i.price_spot_usd_hr]
    spec = cat.specs[key]
    mem = (
        statistics.median(i.gpu_mem_gib for i in same if i.gpu_mem_gib)
        if any(i.gpu_mem_gib for i in same)
        else spec.memory_gib
    )
    inst = Instance(
        provider="custom",
        instance=f"{gpus}x {key}",
        gpu_model=key,
        gpu_name=key,
        gpu_count=float(gpus),
        gpu_mem_gib=mem,
        price_ondemand_usd_hr=per_gpu * gpus if per_gpu else None,
        price_spot_usd_hr=statistics.median(spot) * gpus if spot else None,
        source=f"median $/GPU-h of {len(same)} catalog rows with {key}",
        as_of=max((i.as_of for i in same), default=""),
    )
    return dataclasses.replace(cat, instances=(inst,))


def _run(args: argparse.Namespace) -> int:
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.rank import recommend

    wl = _workload(args)
    cat = load_catalog()
    limit: int | None = args.limit
    if args.gpu:
        if not args.gpus or args.gpus < 1:
            raise InputError(tr("--gpu needs --gpus N (N >= 1)"))
        cat = _one_config_catalog(cat, args.gpu, args.gpus)
        wl = wl.with_(node_limit=1)
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
    if args.json:
        out = {
            "workload": dataclasses.asdict(wl),
            "objective": rec.objective,
            "candidates": rec.candidates,
            "viable": rec.viable,
            "rows": [r.to_dict() for r in rec.rows],
            "local": rec.local.to_dict() if rec.local else None,
            "warnings": list(rec.warnings),
            "formulas": list(rec.formulas),
        }
        json.dump(out, sys.stdout, indent=1, default=str)
        print()
        return 0
    _print(rec)
    _print_calibration(cals, wl.compute_dtype)
    return 0


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
    from rich.console import Console

    for key, per in cals.items():
        cal = per.get(dtype)
        if cal is None:
            continue
        Console().print(
            tr(
                "{g}: {d} GEMM {t:.1f} TFLOPS, {src} — sets its efficiency "
                "(--no-measured to ignore)",
                g=key,
                d=dtype,
                t=cal.tflops,
                src=cal.label,
            ),
            highlight=False,
        )


def _split(text: str | None) -> list[str] | None:
    return [p for p in text.split(",") if p.strip()] if text else None


def _print(rec: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    from gpuprof.units import NA, fmt_bytes, fmt_duration, fmt_pct, fmt_usd

    con = Console()
    w = rec.workload
    title = tr(
        "{name} — {s}, {p:.3g} params, {prec}; objective: {o}; {v} of {c} candidates fit",
        name=w.name or tr("workload"),
        s=w.scenario,
        p=w.params,
        prec=w.precision,
        o=rec.objective,
        v=rec.viable,
        c=rec.candidates,
    )
    table = Table(title=title)
    for col in (
        "#",
        "provider / instance",
        "region",
        "GPUs",
        "mem/GPU",
        "time",
        "cost",
        "$/h",
        "as of",
        "eff.",
        "P",
        "vs here",
    ):
        table.add_column(tr(col), overflow="fold")

    def line(r: Any) -> list[str]:
        inst = r.instance
        need = f"{fmt_bytes(r.mem_need_per_gpu_bytes)}/{fmt_bytes(r.mem_per_gpu_bytes, digits=0)}"
        if not r.fits:
            need = f"[red]{need}[/red]"
        vs = NA if r.speedup_vs_local is None else f"{r.speedup_vs_local:.2g}×"
        hours = fmt_duration(r.hours * 3600) if r.hours is not None else NA
        if r.meets_deadline is False:
            hours = f"[red]{hours} ✗[/red]"
        cost = (
            (fmt_usd(r.cost_usd, digits=0) + (" spot" if r.cost_basis == "spot" else ""))
            if r.cost_usd is not None
            else NA
        )
        if r.within_budget is False:
            cost = f"[red]{cost} ✗[/red]"
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
        con.print(f"[yellow]! {text}[/yellow]")
    for r in rec.rows[:3]:
        con.print(f"[bold]{r.rank}. {r.label}[/bold]")
        for text in r.reasons:
            con.print(f"   • {text}", highlight=False)
        for text in r.warnings:
            con.print(f"   [yellow]! {text}[/yellow]", highlight=False)
