"""``gpuprof fleet``: the fleet's summary and findings, from a Prometheus that scrapes it.

Exit codes: 0 nothing critical; 1 at least one critical finding (an exporter down, a GPU lost,
XID, double-bit ECC); 2 a usage error or Prometheus could not be asked (one line naming the
URL and what failed).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from gpuprof.argtypes import positive_float
from gpuprof.commands.args import add_print_json, add_read_limits
from gpuprof.commands.base import Command
from gpuprof.i18n import N_, tr
from gpuprof.netlimits import PROMETHEUS_MAX_BYTES, PROMETHEUS_TIMEOUT_S

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from gpuprof.fleet.model import Fleet, FleetGpu

__all__ = ["COMMANDS", "cmd_fleet", "fleet_table"]

_METRICS = ("util", "sm", "mem", "temp", "power")
#: The grid's GPU columns at most (MIG instances included); --json has them all.
MAX_COLUMNS = 32


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prometheus",
        required=True,
        metavar="URL",
        help=tr("Prometheus's address, e.g. http://127.0.0.1:9090"),
    )
    p.add_argument(
        "--selector",
        metavar="MATCHERS",
        default=None,
        help=tr("only the series matching these PromQL label matchers, e.g. '{cluster=\"a\"}'"),
    )
    p.add_argument(
        "--metric",
        choices=_METRICS,
        default="util",
        help=tr("what the grid shows (default util)"),
    )
    add_print_json(p, tr("print strict JSON instead of tables"))
    p.add_argument(
        "--token-file",
        metavar="FILE",
        default=None,
        help=tr("send the token in FILE as a bearer token"),
    )
    add_read_limits(
        p,
        timeout_s=PROMETHEUS_TIMEOUT_S,
        most_s=600.0,
        max_bytes=PROMETHEUS_MAX_BYTES,
        timeout_help=N_(
            "seconds each query may take in all, from connecting to the answer's last byte "
            "(default {s:g})"
        ),
        size_help=N_(
            "the largest answer read, in MiB; a larger one is an error (default {n}: about 500 "
            "nodes of 8 GPUs)"
        ),
    )
    p.add_argument(
        "--idle-minutes",
        type=positive_float(7 * 24 * 60.0, unit=" min"),
        default=30.0,
        metavar="M",
        help=tr("a GPU held at ~0 %% utilization for M minutes is reported (default 30)"),
    )


def cmd_fleet(args: argparse.Namespace, *, out: Console | None = None) -> int:
    from gpuprof.commands import token_from_file
    from gpuprof.findings import Severity
    from gpuprof.fleet.client import PrometheusClient
    from gpuprof.fleet.read import FleetQuery, read_fleet
    from gpuprof.fleet.selector import parse_selector

    selector = parse_selector(args.selector)
    token = token_from_file(args.token_file)
    client = PrometheusClient(
        args.prometheus, timeout_s=args.timeout, token=token, max_bytes=args.max_mib * 2**20
    )
    fleet = read_fleet(
        client, FleetQuery(selector=selector, idle_window_s=args.idle_minutes * 60.0)
    )
    if args.json:
        from gpuprof.jsonout import print_json

        print_json(fleet.to_json())
    else:
        render_fleet(fleet, args.metric, out)
    return 1 if fleet.worst is Severity.CRITICAL else 0


def _cell(g: FleetGpu, metric: str, unit: str, marks: dict[tuple[str, str], str]) -> Any:
    from gpuprof.termtext import styled

    if g.down:
        return styled(tr("down"), "red")
    if g.stale or g.lost:
        return styled(tr("lost") if g.lost else tr("stale"), "red")
    value = g.metric(metric)
    text = "–" if value is None else f"{value:.0f}{unit if unit != '%' else ''}"
    style = marks.get((g.node, g.gpu), "")
    return styled(text, style) if style else text


def fleet_table(fleet: Fleet, metric: str = "util") -> Table:
    """The node × GPU grid of ``metric``: a row per node, a column per GPU (or MIG instance);
    GPUs with a critical finding in red, a warning in yellow."""
    from rich.table import Table

    from gpuprof.findings import Severity
    from gpuprof.fleet.model import GRID_METRICS
    from gpuprof.termtext import styled

    _, unit = GRID_METRICS[metric]
    marks: dict[tuple[str, str], str] = {}
    for f in reversed(fleet.findings):  # critical last, so it wins
        if f.gpu:
            marks[(f.node, f.gpu)] = "red" if f.severity is Severity.CRITICAL else "yellow"
    columns: list[str] = []
    for g in sorted(fleet.gpus, key=lambda g: (_index(g.gpu), g.mig_instance)):
        if g.column not in columns:
            columns.append(g.column)
    hidden = max(0, len(columns) - MAX_COLUMNS)
    columns = columns[:MAX_COLUMNS]
    title = tr("GPU {m} ({u}) by node", m=metric, u=unit)
    if hidden:
        title += " " + tr("({n} more GPU columns not shown: see --json)", n=hidden)
    table = Table(title=title, title_justify="left")
    table.add_column(tr("node"))
    table.add_column(tr("cluster"))
    table.add_column(tr("exporter"))
    for name in columns:
        table.add_column(name, justify="right")
    for node in fleet.nodes:
        cells: dict[str, Any] = {}
        for g in node.gpus:
            cells[g.column] = _cell(g, metric, unit, marks)
        state: Any = node.exporter or "?"
        if node.down:
            state = styled(tr("down"), "red")
        elif node.simulated:
            state = styled(f"{state} SIMULATED", "bold yellow")
        table.add_row(node.name, node.cluster, state, *(cells.get(c, "") for c in columns))
    return table


def _index(gpu: str) -> int:
    return int(gpu) if gpu.isdigit() else 1 << 30


def render_fleet(fleet: Fleet, metric: str, out: Console | None = None) -> None:
    from gpuprof.findings import Severity
    from gpuprof.termtext import console, styled

    con = out or console()
    gpus = fleet.gpus
    con.print(
        tr(
            "Prometheus {u}: {n} nodes ({d} down), {g} GPUs ({s} not reporting)",
            u=fleet.url,
            n=len(fleet.nodes),
            d=sum(1 for n in fleet.nodes if n.down),
            g=len(gpus),
            s=sum(1 for g in gpus if g.stale),
        )
    )
    simulated = sum(1 for n in fleet.nodes if n.simulated)
    if simulated:
        con.print(
            styled(
                tr(
                    "SIMULATED: {n} nodes serve demo data (gpuprof exporter --demo), "
                    "not measurements",
                    n=simulated,
                ),
                "bold yellow",
            )
        )
    if fleet.selector:
        con.print(tr("selector: {s}", s=fleet.selector))
    if not fleet.nodes:
        con.print(tr("No GPU series found: is Prometheus scraping a GPU exporter?"))
        return
    con.print(fleet_table(fleet, metric))
    if not fleet.findings:
        con.print(tr("No findings."))
        return
    con.print(tr("Findings:"))
    style = {Severity.CRITICAL: "bold red", Severity.WARNING: "yellow", Severity.INFO: ""}
    for f in fleet.findings:
        sim = "SIMULATED · " if f.simulated else ""
        con.print(styled(f"[{f.severity.label}] {sim}{f.title}", style[f.severity] or "none"))
        con.print(f"    {f.detail}")
        con.print(f"    {f.hint}")
    if fleet.skipped_series:
        con.print(tr("{n} series with an unexpected shape were skipped.", n=fleet.skipped_series))


COMMANDS = (
    Command(
        "fleet",
        N_("summarize a cluster's GPUs and findings from Prometheus"),
        add_arguments,
        cmd_fleet,
        description=N_(
            "Ask a Prometheus that scrapes gpuprof exporters or dcgm-exporter for every node and "
            "GPU it sees, print a node × GPU grid of one metric and the fleet-wide findings "
            "(exporters down, lost GPUs, XID, ECC, throttling outliers, PCIe links below their "
            "peers, idle GPUs held by a job). Talks only to the URL given. Exit status: 0, 1 "
            "when a finding is critical, 2 when Prometheus could not be asked."
        ),
    ),
)
