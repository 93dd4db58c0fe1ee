"""``gpuprof check``: is this GPU server what was paid for? A PASS/WARN/FAIL scorecard.

Exit codes: 0 every item passed (or was skipped), 1 an item FAILed, 3 only WARNs, 2 usage or
bad input. Ctrl-C cancels: the items done so far are reported, the rest SKIP.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuprof.argtypes import output_file, positive_float
from gpuprof.commands.args import add_html_out, add_json_out
from gpuprof.commands.base import Command
from gpuprof.commands.progress import run_with_progress
from gpuprof.i18n import N_, tr, tr_text

if TYPE_CHECKING:
    from rich.console import Console

    from gpuprof.bench.base import CancelToken
    from gpuprof.check.model import CheckResult

__all__ = ["COMMANDS", "render_scorecard"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--level",
        choices=("quick", "standard", "burn-in"),
        default="quick",
        help=tr("how much to run (default quick)"),
    )
    p.add_argument(
        "--expect",
        metavar="X",
        help=tr("what the machine should be: a catalog instance type or a spec like 8xH100-SXM"),
    )
    p.add_argument(
        "--minutes",
        metavar="N",
        type=positive_float(1440.0, unit=" min"),
        default=10.0,
        help=tr("burn-in length in minutes (default 10)"),
    )
    p.add_argument(
        "--device",
        metavar="DEV",
        default="all",
        help=tr(
            "cuda:N (N: the GPU's number as nvidia-smi shows it, whatever CUDA_VISIBLE_DEVICES "
            "says), all or cpu (default all)"
        ),
    )
    add_json_out(p, tr("write the result as JSON ('-' for stdout; docs/check-schema.md)"))
    add_html_out(p, tr("write an HTML report"))
    p.add_argument(
        "--thresholds",
        metavar="FILE",
        help=tr('a JSON file {"pass": 0.9, "warn": 0.75} replacing the default ratios'),
    )
    p.add_argument(
        "--reference",
        metavar="FILE",
        help=tr("grade against a golden machine's values (written by --save-reference)"),
    )
    p.add_argument(
        "--save-reference",
        metavar="FILE",
        type=output_file(),
        help=tr("keep this run's measurements as the reference for other machines"),
    )


def _cmd_check(args: argparse.Namespace) -> int:
    from gpuprof.check.inventory import parse_expect
    from gpuprof.check.model import Thresholds, load_thresholds
    from gpuprof.check.reference import read_reference_file
    from gpuprof.check.run import CheckProgress, open_check, parse_device
    from gpuprof.termtext import console as make_console

    device = parse_device(args.device)
    thresholds = load_thresholds(args.thresholds) if args.thresholds else Thresholds()
    golden = read_reference_file(args.reference) if args.reference else None
    expect = parse_expect(args.expect)
    check, close = open_check(
        level=args.level,
        device=device,
        expect=expect,
        thresholds=thresholds,
        golden=golden,
        minutes=args.minutes,
    )
    console = make_console()
    if check.device == "cpu":
        # A note, not the result: stderr, so that `--json -` stays pure JSON.
        make_console(stderr=True).print(
            tr("no GPU checked: CPU only (inventory and GPU health are skipped)")
        )
    quiet = args.json == "-"

    def job(on_progress: Callable[[CheckProgress], None], cancel: CancelToken) -> CheckResult:
        return check.run(on_progress=on_progress, cancel=cancel)

    def describe(p: CheckProgress) -> tuple[float, str]:
        return p.fraction, tr_text(p.stage)

    try:
        # The estimate from the time budgets (gpuprof.check.plan): stderr, as the notes above.
        plan = check.plan()
        make_console(stderr=True).print(plan.summary())
        result = run_with_progress(
            job,
            describe=describe,
            console=make_console(stderr=True),
            starting=tr("starting…"),
            thread_name="gpuprof-check",
            quiet=quiet,
        )
    finally:
        close()
    _write_outputs(result, args, plan.to_dict())
    if not quiet:
        render_scorecard(result, console)
    return result.exit_code


def _write_outputs(
    result: CheckResult, args: argparse.Namespace, plan: dict[str, Any] | None = None
) -> None:
    from gpuprof.check.model import result_to_dict
    from gpuprof.jsonout import print_json, write_json
    from gpuprof.redact import redact_tree

    whole = result_to_dict(result)
    if plan is not None:
        whole["plan"] = plan
    data = redact_tree(whole)
    if args.json == "-":
        print_json(data)
    elif args.json:
        write_json(args.json, data)
    if args.html:
        from gpuprof.fileio import write_atomic
        from gpuprof.report.html import check_page_html

        write_atomic(args.html, check_page_html(result, data))
    if args.save_reference:
        from gpuprof.check.perf import perf_runs
        from gpuprof.check.reference import golden_rows, reference_file_dict, too_noisy
        from gpuprof.termtext import console as make_console

        planned = perf_runs(result.device)
        rows = golden_rows(result, planned)
        machine = str(data["identity"].get("hostname") or "")
        write_json(args.save_reference, reference_file_dict(rows, machine=machine, date=_today()))
        for item in result.items:
            numeric = isinstance(item.measured, (int, float)) and item.item_id.startswith("perf.")
            if numeric and too_noisy(item, result.thresholds, planned):
                make_console(stderr=True).print(
                    tr(
                        "{i}: not saved as a reference: too few of its runs, or too noisy",
                        i=item.item_id,
                    )
                )


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()


_STYLE = {
    "PASS": "green",
    "WARN": "yellow",
    "FAIL": "bold red",
    "SKIP": "dim",
    "INFO": "cyan",  # measured, not graded
    "INCOMPLETE": "bold magenta",  # cancelled: not a pass, not a failure
}


def render_scorecard(result: CheckResult, console: Console) -> None:
    """The scorecard as a table, then the verdict line."""
    from rich.table import Table

    from gpuprof.check.model import SCORECARD_COLUMNS, fmt_value
    from gpuprof.termtext import styled

    table = Table(title=tr("acceptance check ({level})", level=result.level))
    for col in SCORECARD_COLUMNS:
        table.add_column(tr(col))
    for item in result.items:
        why = " — ".join(tr_text(t) for t in (item.reason, item.hint) if t)
        table.add_row(
            item.item_id,
            "" if item.gpu_index is None else str(item.gpu_index),
            styled(item.status.value, _STYLE[item.status.value]),
            fmt_value(item.measured, item.unit),
            fmt_value(item.expected, item.unit),
            f"{100 * item.ratio:.0f}%" if item.ratio is not None else "",
            why,
        )
    console.print(table)
    sources = sorted({i.source for i in result.items if i.source and i.group == "performance"})
    for s in sources:
        console.print(tr("reference: {s}", s=tr_text(s)))
    if result.cancelled:
        console.print(tr("cancelled: the items not run are SKIP"))
    console.print(
        styled(
            tr("verdict: {v} (exit code {c})", v=result.verdict.value, c=result.exit_code),
            _STYLE[result.verdict.value],
        )
    )


COMMANDS = (
    Command(
        "check",
        N_("acceptance check of this machine: a PASS/WARN/FAIL scorecard"),
        add_arguments,
        _cmd_check,
        description=N_(
            "Check a GPU server against what it should be: inventory against the expectation, "
            "health (findings, ECC, XID), performance against published references, a memory "
            "test and, with --level burn-in, a sustained load. Each item is PASS, WARN, FAIL, "
            "SKIP or INFO (measured, not graded: no reference, or repeated runs too far apart). "
            "Exit code: 0 all pass, 1 any FAIL, 3 only WARNs, 2 usage errors, 130 cancelled "
            "(verdict INCOMPLETE)."
        ),
    ),
)
