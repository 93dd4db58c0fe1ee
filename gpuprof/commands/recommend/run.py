"""``gpuprof recommend``'s command: rank the catalog (or one configuration) for the workload
the flags describe, and print the table or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from gpuprof.commands.recommend.args import workload_of
from gpuprof.commands.recommend.local import calibrated, local_machine, print_calibration
from gpuprof.commands.recommend.output import print_table, row_json
from gpuprof.commands.recommend.trace import print_trace, trace_defaults
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.recommend.verdict import verdict_lines
from gpuprof.termtext import plain

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    """``gpuprof recommend``: 0 on success; bad input raises :class:`InputError` (exit 2)."""
    from gpuprof.units import money_currency

    currency = getattr(args, "currency", "USD")
    if args.from_profile is not None and (currency != "USD" or getattr(args, "fx_rate", None)):
        raise InputError(tr("--currency and --fx-rate are not supported with --from-profile yet"))
    with money_currency(currency):  # every amount printed below is in the chosen currency
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.commands.catalog import in_display_currency, print_rates_used
    from gpuprof.recommend.rank import recommend

    if args.from_profile is not None:
        from gpuprof.commands.recommend.profile import run as run_profile

        return run_profile(args)
    if args.steps is not None:
        raise InputError(tr("--steps needs --from-profile RUN.gpuprof"))
    if args.list_models:
        from gpuprof.commands.recommend.models import list_models

        return list_models(args)
    trace = trace_defaults(args)
    wl = workload_of(args)
    if trace is not None and not wl.is_serving:
        raise InputError(tr("--trace is for --scenario serve (LLM serving traffic)"))
    cat = in_display_currency(load_catalog(), args)
    limit: int | None = args.limit
    if args.gpu:
        if not args.gpus or args.gpus < 1:
            raise InputError(tr("--gpu needs --gpus N (N >= 1)"))
        from gpuprof.commands.recommend.config import one_config_catalog

        cat, nodes = one_config_catalog(cat, args.gpu, args.gpus)
        wl = wl.with_(node_limit=max(wl.node_limit, nodes), nodes=nodes)
    elif args.instance:
        cat = cat.filter(instance=args.instance)
        if not cat.instances:
            raise InputError(
                tr("no instance {i!r} in the catalog; see `gpuprof catalog list`", i=args.instance)
            )
        limit = None
    measured, cals = calibrated(args)
    rec = recommend(
        wl,
        cat,
        objective=args.objective,
        providers=_split(args.provider),
        local=local_machine(args.local_gpu, args.util),
        local_measurements=measured,
        local_util_pct=args.util,
        limit=limit,
    )
    if cals:
        from gpuprof.recommend.calibrate import annotate

        rec = annotate(rec, cals)
    verdict = [*verdict_lines(rec), *wl.plausibility_warnings()]
    from gpuprof.commands.recommend.models import architecture_note
    from gpuprof.recommend.trace import simulate_top

    sims = simulate_top(rec, trace) if trace is not None else []
    if args.json:
        from gpuprof.jsonout import print_json

        out = {
            "workload": dataclasses.asdict(wl),
            "objective": rec.objective,
            "billing": wl.billing,
            "candidates": rec.candidates,
            "viable": rec.viable,
            "verdict": verdict,
            "nodes_needed": rec.nodes_needed,
            "architecture": architecture_note(wl),
            "rows": [row_json(r, wl) for r in rec.rows],
            "local": row_json(rec.local, wl) if rec.local else None,
            "warnings": list(rec.warnings),
            "formulas": list(rec.formulas),
            "budget": None
            if wl.budget_usd is None
            else {"amount": wl.budget_usd, "currency": cat.currency},
            "currency": {
                "code": cat.currency,
                "rates": [
                    {
                        "currency": r.currency,
                        "per_usd": r.per_usd,
                        "as_of": r.as_of,
                        "source": r.source,
                    }
                    for r in cat.rates.values()
                ],
            },
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

    print_rates_used(cat)
    if wl.budget_usd is not None:
        print(budget_line(wl.budget_usd, cat), file=sys.stderr)
    console().print(architecture_note(wl), markup=False, highlight=False)
    print_table(rec, verdict)
    print_calibration(cals, wl.compute_dtype)
    if trace is not None:
        print_trace(trace, sims, wl)
    return 0


def budget_line(budget: float, cat: Any) -> str:
    """What ``--budget`` was read as: an amount in the display currency (``--currency``), the
    one every price was converted to, at the rate (and its date) that converted them."""
    from gpuprof.units import fmt_usd

    rate = cat.rates.get(cat.currency) if cat.currency != "USD" else None
    if rate is None:
        return tr(
            "gpuprof: budget {b} in {c}, the display currency (--currency): every price is "
            "compared in {c}",
            b=fmt_usd(budget, digits=0),
            c=cat.currency,
        )
    return tr(
        "gpuprof: budget {b} in {c}, the display currency (--currency): prices in USD are "
        "compared at {r}",
        b=fmt_usd(budget, digits=0),
        c=cat.currency,
        r=plain(rate.describe(), one_line=True),
    )


def _split(text: str | None) -> list[str] | None:
    return [p for p in text.split(",") if p.strip()] if text else None
