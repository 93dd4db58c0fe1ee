"""``gpuprof compare A.json B.json …``: check or benchmark results of many machines side by side.

Exit codes: 0 when at least two files were compared and no outlier was flagged; 1 when an
outlier was flagged; 2 when fewer than two files could be read (one line naming each file left
out and why). A file left out while two or more others were read is named on stderr, one line
each, and the others are still compared.

The terminal shows at most :data:`_TERMINAL_ROWS` rows and :data:`_TERMINAL_COLUMNS` machines:
past either, only those with something to see (an outlier, a WARN or FAIL, a gap between two
machines); a table of thousands of rows is unreadable, and rich took ~0.3 ms to lay out each.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from gpuprof.commands.args import add_html_out, add_json_out
from gpuprof.commands.base import Command
from gpuprof.i18n import N_, tr
from gpuprof.resultlimits import MAX_FILE_BYTES, MAX_ITEMS

if TYPE_CHECKING:
    from gpuprof.check.compare import Comparison, Machine

__all__ = ["COMMANDS", "cmd_compare"]

#: Machines shown side by side in the terminal; --html and --json hold every one.
_TERMINAL_COLUMNS = 12
#: Rows shown in the terminal; --html and --json hold every one.
_TERMINAL_ROWS = 200


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", metavar="FILE", nargs="+", help=tr("result files (JSON)"))
    add_html_out(p, tr("also write an HTML page to OUT"))
    add_json_out(p, tr("also write the comparison as JSON to OUT (- for standard output)"))


def cmd_compare(args: argparse.Namespace) -> int:
    from gpuprof.check.compare import compare, dumps_json, load_results, render_html
    from gpuprof.errors import InputError
    from gpuprof.fileio import write_atomic
    from gpuprof.termtext import plain

    machines, skipped = load_results(args.files)
    if len(machines) < 2:
        why = "; ".join(s.reason for s in skipped) or tr("only one file given")
        raise InputError(
            tr("fewer than two result files could be read ({w})", w=plain(why, one_line=True))
        )
    for s in skipped:
        print(tr("gpuprof: left out {r}", r=plain(s.reason, one_line=True)), file=sys.stderr)
    comp = compare(machines, skipped)
    if args.json == "-":
        sys.stdout.write(dumps_json(comp))
        sys.stdout.flush()
    else:
        _render(comp)
        if args.json:
            write_atomic(args.json, dumps_json(comp))
    if args.html:
        write_atomic(args.html, render_html(comp))
    return 1 if comp.outliers else 0


def _render(comp: Comparison) -> None:
    from rich.table import Table

    from gpuprof.check.compare import fmt_ratio
    from gpuprof.termtext import console

    con = console()
    flagged = {(o.machine, o.key) for o in comp.outliers}
    ratios = dict(zip(comp.keys, comp.ratios, strict=True)) if comp.pair else {}
    keys, shown = list(comp.keys), list(comp.machines)

    def bad(m: Machine, key: str) -> bool:
        x = m.metrics.get(key)
        return (m.label, key) in flagged or (x is not None and x.status in ("WARN", "FAIL"))

    if len(shown) > _TERMINAL_COLUMNS or len(keys) > _TERMINAL_ROWS:
        # Too many to read: only the rows and machines with something to see.
        keys = [k for k in keys if comp.is_gap(ratios.get(k)) or any(bad(m, k) for m in shown)]
        keys = keys[:_TERMINAL_ROWS]
        if len(shown) > _TERMINAL_COLUMNS:
            shown = [m for m in shown if any(bad(m, k) for k in keys)][:_TERMINAL_COLUMNS]
    table = Table(title=tr("{n} machines compared", n=len(comp.machines)))
    table.add_column(tr("measurement"))
    for m in shown:
        table.add_column(m.label, justify="right")
    if comp.pair:
        table.add_column(comp.ratio_header, justify="right")
    for key in keys:
        row = [key]
        for m in shown:
            x = m.metrics.get(key)
            if x is None:
                row.append("")
                continue
            text = x.cell
            if (m.label, key) in flagged:
                text = "▼ " + text
            row.append(text)
        if comp.pair:
            r = ratios[key]
            row.append(("◆ " if comp.is_gap(r) else "") + fmt_ratio(r))
        table.add_row(*row)
    con.print(table)
    if len(comp.machines) > len(shown) or len(keys) < len(comp.keys):
        con.print(
            tr(
                "showing {r} of {k} rows and {c} of {n} machines (those with an outlier, a WARN, "
                "a FAIL or a gap); --html and --json hold every one",
                r=len(keys),
                k=len(comp.keys),
                c=len(shown),
                n=len(comp.machines),
            )
        )
    for m in comp.machines:
        con.print(comp.summary(m))
    if comp.pair:
        con.print(comp.pair_line())


COMMANDS = (
    Command(
        "compare",
        N_("compare check or benchmark results of several machines side by side"),
        add_arguments,
        cmd_compare,
        description=(
            N_(
                "Put the results of `gpuprof check --json` or `gpuprof bench --json` from several "
                "machines side by side, one column per machine, and flag outliers: a value worse "
                "than the median of its peers (the other machines, or the other GPUs of the same "
                "machine) by more than 20% or than three robust deviations of the peers. A file "
                "that cannot be read is named with the reason and left out. Exit 0: compared, no "
                "outlier; 1: outliers flagged; 2: fewer than two files could be read."
            ),
            N_(
                "Outliers between machines need three or more; with two, each row shows the ratio "
                "second / first, and gaps over 20% are listed. A result file may hold at most "
                "{items} items and {mib} MiB; only regular files are read. The terminal shows at "
                "most {rows} rows and {cols} machines (those with something to see when there are "
                "more); --html and --json hold every one."
            ),
        ),
        values={
            "items": f"{MAX_ITEMS:,}",
            "mib": MAX_FILE_BYTES >> 20,
            "rows": _TERMINAL_ROWS,
            "cols": _TERMINAL_COLUMNS,
        },
    ),
)
