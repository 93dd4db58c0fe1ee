"""``gpuprof recommend --trace FILE``: the traffic a request trace shows, and the trace
simulated on the top serving rows (SIMULATED, labelled so)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from gpuprof.commands.tables import folded_table
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr


def trace_defaults(args: argparse.Namespace) -> Any:
    """Read ``--trace`` (or None) and take the traffic it shows where the flags gave none:
    mean prompt and output lengths, and its request rate (:func:`trace_traffic`)."""
    path = getattr(args, "trace", None)
    if not path:
        return None
    from gpuprof.recommend.trace import read_trace, trace_traffic

    if (args.scenario or "").strip().lower() not in ("serve", "serving", "inference", "infer"):
        raise InputError(tr("--trace is for --scenario serve (LLM serving traffic)"))
    trace = read_trace(path)
    traffic = trace_traffic(trace)
    if args.prompt_len is None:
        args.prompt_len = int(traffic["prompt_len"])
    if args.output_len is None:
        args.output_len = int(traffic["output_len"])
    if args.rate is None and args.throughput is None:
        args.rate = traffic["rate_per_s"]
    return trace


def print_trace(trace: Any, sims: list[tuple[Any, Any]], w: Any) -> None:
    from gpuprof.recommend.explain import fmt_duration_ms
    from gpuprof.termtext import console
    from gpuprof.units import NA

    def ms(x: float) -> str:
        return fmt_duration_ms(x) if math.isfinite(x) else NA

    table = folded_table(
        tr(
            "SIMULATED: trace {f} ({n} requests over {d:.4g} s) on the top configurations",
            f=trace.path,
            n=len(trace),
            d=trace.duration_s,
        ),
        (
            "#",
            N_("provider / instance"),
            N_("replicas"),
            N_("TTFT p50"),
            N_("TTFT p99"),
            N_("TPOT p50"),
            N_("TPOT p99"),
            N_("tok/s"),
            N_("goodput"),
        ),
    )
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
