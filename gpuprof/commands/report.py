"""``gpuprof report``: write an HTML, PDF, JSON (or PNG screenshot) report, headless.

The format follows the file name: ``.html`` one self-contained file; ``.pdf`` A4 or Letter
(drawn with Qt, imported only then); ``.json`` the documented schema (docs/report-schema.md);
``.png`` a screenshot of the app window or one tab (the same code as ``gpuprof --screenshot``).
``--check FILE`` (a ``gpuprof check --json`` result, read by
:func:`gpuprof.report.check.load_check` as the app's "Add check result…" does) puts the
acceptance check first: verdict, machine identity and scorecard.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from gpuprof.argtypes import finite_float
from gpuprof.commands.args import add_demo
from gpuprof.commands.base import Command
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr

__all__ = ["COMMANDS", "FORMATS", "build_from_args"]

#: File suffix → format.
FORMATS = {".html": "html", ".htm": "html", ".pdf": "pdf", ".json": "json", ".png": "png"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    from gpuprof.commands.recommend import params_arg

    p.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help=tr("FILE.html, FILE.pdf, FILE.json or FILE.png"),
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--session", metavar="FILE", help=tr("a recorded session (gpuprof record) to report on")
    )
    add_demo(src, tr("use the SIMULATED 8×H100 machine (12 scripted minutes); labelled SIMULATED"))
    p.add_argument(
        "--duration",
        type=finite_float(0.5, 3600.0, unit=" s"),
        default=3.0,
        metavar="S",
        help=tr("without --session: seconds of live sampling (default 3)"),
    )
    p.add_argument(
        "--bench",
        metavar="ID",
        help=tr("include a benchmark run: its id, a unique prefix, or 'latest'"),
    )
    rec = p.add_argument_group(tr("recommendation (any of these adds one)"))
    rec.add_argument(
        "--recommend",
        metavar="PRESET",
        help=tr("a workload preset (see `gpuprof recommend --help`)"),
    )
    rec.add_argument(
        "--scenario", help=tr("pretrain, finetune-full, finetune-lora, inference, hpc-fp64, render")
    )
    rec.add_argument("--params", type=params_arg, help=tr("parameter count, e.g. 7B"))
    rec.add_argument("--precision", help=tr("fp32, bf16, fp16, fp8, int8, int4"))
    _serving_arguments(rec)
    p.add_argument(
        "--paper", choices=("a4", "letter"), default="a4", help=tr("PDF paper size (default a4)")
    )
    p.add_argument(
        "--include-cmdlines",
        action="store_true",
        help=tr("show process command lines (secrets still hidden)"),
    )
    p.add_argument(
        "--check",
        metavar="FILE",
        help=tr(
            "an acceptance check result (gpuprof check --json) as the report's first page: "
            "verdict, machine identity and scorecard"
        ),
    )
    p.add_argument("--title", help=tr("report title (default: 'GPU report — HOSTNAME')"))
    p.add_argument("--tab", help=tr("with .png: the tab to capture (default: the whole window)"))


def _serving_arguments(rec: Any) -> None:
    """``--tokens`` and the model and traffic flags of ``gpuprof recommend --scenario serve``
    (same types and help): a report's recommendation can be a serving one, with its serving
    columns."""
    from gpuprof.commands.recommend.args import add_shared_flags

    add_shared_flags(
        rec,
        "--tokens",
        "--model",
        "--prompt-len",
        "--output-len",
        "--rate",
        "--throughput",
        "--ttft",
        "--tpot",
    )


#: The ``gpuprof recommend`` flags a report's recommendation takes too, under the same names.
_SHARED_FLAGS = (
    "scenario",
    "params",
    "precision",
    "tokens",
    "model",
    "throughput",
    "prompt_len",
    "output_len",
    "rate",
    "ttft",
    "tpot",
)
#: The workload flags of ``gpuprof recommend`` that a report has not: never given.
_NOT_GIVEN = ("samples", "epochs", "seq_len", "batch", "flops", "deadline", "budget", "nodes")


def _workload(args: argparse.Namespace) -> Any:
    """The workload the recommend flags describe, or None; parsed by `gpuprof recommend`'s code."""
    given = [args.recommend, args.scenario, args.params, args.precision, args.tokens, args.model]
    if all(v is None for v in given):
        return None
    from gpuprof.commands.recommend import workload_of as recommend_workload

    ns = argparse.Namespace(
        preset=args.recommend,
        spot=False,
        **{name: getattr(args, name) for name in _SHARED_FLAGS},
        **dict.fromkeys(_NOT_GIVEN),
    )
    return recommend_workload(ns)


def build_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~gpuprof.report.model.Report` the arguments ask for."""
    from gpuprof.report import build

    workload = _workload(args)
    bench = build.load_bench_run(args.bench) if args.bench else None
    common: dict[str, Any] = {"include_cmdlines": args.include_cmdlines, "title": args.title}
    if args.session:
        report = build.from_session(args.session, bench=bench, **common)
    else:
        if args.demo:
            source, snaps = build.demo_snapshots()
        else:
            from gpuprof.telemetry.sources import open_source

            source, snaps = open_source(), []
        try:
            report = build.from_source(
                source, duration_s=args.duration, snapshots=snaps, bench=bench, **common
            )
        finally:
            source.close()
    if workload is not None:
        tel = report.telemetry
        util = None
        if tel is not None:
            means = [
                s.mean
                for s in tel.stats
                if s.key == "util_gpu_pct" and s.gpu_index is not None and s.mean is not None
            ]
            util = sum(means) / len(means) if means else None
        rec = build.recommend_for(workload, devices=report.gpus, util_pct=util, bench=bench)
        from dataclasses import replace

        report = replace(report, recommendation=build.summarize_recommendation(rec))
    return report


def _run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError(tr("--out must end in .html, .pdf, .json or .png, got {p}", p=out))
    if out.is_dir():
        raise InputError(tr("{p} is a folder; name a file", p=out))
    if not out.parent.exists():
        raise InputError(tr("folder {p} does not exist", p=out.parent))
    if args.session:
        from gpuprof.telemetry.store import SessionStore

        SessionStore.open(args.session).close()  # a bad file fails here, before any work
    if fmt == "png":
        return _png(args, out)
    check = None
    if args.check:
        from gpuprof.report.check import load_check

        check = load_check(args.check)  # a bad file fails here, before any work
    report = build_from_args(args)
    if check is not None:
        from gpuprof.report.check import with_check

        report = with_check(report, check)
    from gpuprof.report.render import renderer

    renderer(fmt).write(report, out, paper=args.paper)
    note = ""
    if report.simulated:
        if report.bench is not None:
            note = tr(" (SIMULATED telemetry; the benchmark run is MEASURED)")
        elif report.check is not None:
            note = tr(" (SIMULATED telemetry; the acceptance check is MEASURED)")
        else:
            note = tr(" (SIMULATED data)")
    from gpuprof.termtext import plain

    print(tr("wrote {p}{n}", p=plain(out, one_line=True), n=note), file=sys.stderr)
    return 0


def _png(args: argparse.Namespace, out: Path) -> int:
    if args.bench or args.check or _workload(args) is not None:
        raise InputError(
            tr(
                ".png is a screenshot of the app; --bench, --check and --recommend need .html, "
                ".pdf or .json"
            )
        )
    from gpuprof.report.render import app_screenshot

    take = app_screenshot()
    ns = argparse.Namespace(
        screenshot=str(out),
        demo=args.demo,
        replay=args.session,
        tab=args.tab,
        after=min(args.duration, 30.0),
        size=(1600, 1000),
        interval=None,
    )
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    code = int(take(ns))
    if code == 0:
        from gpuprof.termtext import plain

        note = tr(" (SIMULATED data)") if args.demo else ""
        print(tr("wrote {p}{n}", p=plain(out, one_line=True), n=note), file=sys.stderr)
    return code


COMMANDS = (
    Command(
        "report",
        N_("write a report: HTML, PDF, JSON (or a PNG screenshot)"),
        add_arguments,
        _run,
        description=N_(
            "Write a report on this machine: host, GPUs and topology, a telemetry summary with "
            "charts and throttle events, health findings, a benchmark run and cloud "
            "recommendations. The format follows --out: .html (one self-contained file), .pdf "
            "(A4 or Letter), .json (schema: docs/report-schema.md) or .png (a screenshot of the "
            "app window or of --tab, like `gpuprof --screenshot`). Without --session, samples "
            "the GPUs live for --duration seconds. Command lines are hidden unless "
            "--include-cmdlines; passwords and tokens are hidden always."
        ),
    ),
)
