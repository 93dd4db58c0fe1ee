"""``gpuprof profile``: run a command (or attach to a process) and profile it (issue 13)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from gpuprof.argtypes import finite_float, int_range, output_file
from gpuprof.commands import interval_arg
from gpuprof.errors import InputError, OutputError
from gpuprof.i18n import tr

__all__ = ["register"]

_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "profile",
        help=tr("run a command under the profiler and summarize the job"),
        description=tr(
            "Start CMD (no shell) with its own process group, record GPU and host telemetry "
            "scoped to its process tree and the GPUs it uses, and when it ends store the job "
            "profile inside the recording and print its summary. Inside the job, "
            "`gpuprof.track` sends step markers (step time, tokens/s, MFU). CMD's exit code is "
            "passed through; Ctrl-C and SIGTERM go to CMD first, then the profile is saved.\n\n"
            "Example: gpuprof profile --json run.json -- python train.py --epochs 1"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--out",
        type=output_file(),
        default=None,
        metavar="FILE",
        help=tr("recording to write (default: a timestamped file in the data folder)"),
    )
    p.add_argument(
        "--json",
        type=output_file(stdout=True),
        default=None,
        metavar="SUMMARY",
        help=tr("also write the job profile as JSON ('-' for standard output)"),
    )
    p.add_argument("--name", default="", metavar="NAME", help=tr("a name for the job"))
    p.add_argument(
        "--interval",
        type=interval_arg,
        default=1.0,
        metavar="S",
        help=tr("seconds between samples, 0.1–60 (default 1)"),
    )
    p.add_argument(
        "--torch",
        action="store_true",
        help=tr(
            "profile a window of steps with torch.profiler inside the job (needs gpuprof.track)"
        ),
    )
    p.add_argument(
        "--attach",
        type=int_range(1, 2**22),
        default=None,
        metavar="PID",
        help=tr("profile a running process until it exits or Ctrl-C"),
    )
    p.add_argument("--demo", action="store_true", help=tr("use the SIMULATED 8×H100 box"))
    p.add_argument("--force", action="store_true", help=tr("overwrite FILE if it exists"))
    p.add_argument(
        "--dtype",
        choices=_DTYPES,
        default="bf16",
        help=tr("the math precision of the job, for MFU against the spec peak (default bf16)"),
    )
    p.add_argument(
        "--grace",
        type=finite_float(0.0, 3600.0, unit=" s"),
        default=10.0,
        metavar="S",
        help=tr("seconds the job may take to exit after Ctrl-C before it is killed (default 10)"),
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS")
    p.set_defaults(func=cmd_profile)


class _StatusLine:
    """The one-line live status on a terminal (nothing when stderr is not one)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.shown = False
        try:
            self.enabled = out.isatty()
        except (AttributeError, ValueError):
            self.enabled = False

    def __call__(self, status: Any) -> None:
        if not self.enabled:
            return
        from gpuprof.termtext import plain
        from gpuprof.units import fmt_bytes, fmt_duration, fmt_num, fmt_pct

        gpus = ",".join(str(i) for i in status.gpu_indices) or "-"
        step = "—" if status.step_s is None else f"{status.step_s * 1000:.0f} ms"
        text = tr(
            "{sim}{t} · GPUs {g} · util {u} · SM {s} · mem {m} · {p} · steps {n} ({st})",
            sim="SIMULATED · " if status.simulated else "",
            t=fmt_duration(status.elapsed_s),
            g=gpus,
            u=fmt_pct(status.util_pct),
            s=fmt_pct(status.sm_active_pct),
            m=fmt_bytes(status.mem_used_bytes),
            p=fmt_num(status.power_w, "W"),
            n=status.steps,
            st=step,
        )
        if status.stopping:
            text += tr(" · stopping…")
        width = _width()
        line = plain(text, one_line=True)[: width - 1]
        try:
            self.out.write("\r" + line + "\x1b[K")
            self.out.flush()
            self.shown = True
        except (OSError, ValueError):
            self.enabled = False

    def clear(self) -> None:
        if self.shown:
            try:
                self.out.write("\r\x1b[K")
                self.out.flush()
            except (OSError, ValueError):
                pass


def _width() -> int:
    try:
        return max(20, os.get_terminal_size(sys.stderr.fileno()).columns)
    except (OSError, ValueError, AttributeError):
        return 120


def cmd_profile(args: argparse.Namespace) -> int:
    from gpuprof.jsonout import dumps, write_json
    from gpuprof.profile.runner import JobOptions, JobRunner
    from gpuprof.profile.summary import profile_json, summary_lines
    from gpuprof.termtext import console, plain, safe

    command = list(args.command or ())
    if command and command[0] == "--":
        command = command[1:]
    if args.attach is not None and command:
        raise InputError(tr("give either a command or --attach PID, not both"))
    if args.attach is None and not command:
        raise InputError(tr("no command to profile; usage: gpuprof profile [options] -- CMD ARGS"))
    options = JobOptions(
        command=tuple(command),
        attach_pid=args.attach,
        out=Path(args.out) if args.out else None,
        name=args.name,
        interval_s=args.interval,
        torch=args.torch,
        demo=args.demo,
        dtype=args.dtype,
        overwrite=args.force,
        grace_s=args.grace,
        terminal=True,
    )
    status = _StatusLine(sys.stderr)
    runner = JobRunner(options, on_status=status)
    try:
        result = runner.run()
    finally:
        status.clear()
    err = console(sys.stderr)
    for line in summary_lines(result.profile):
        err.print(safe(line), markup=True, soft_wrap=True)
    if result.save_error is None:
        err.print(
            tr("saved the recording and its job profile to {p}", p=safe(result.out)), markup=True
        )
    if result.trace is not None:
        err.print(tr("torch trace: {p}", p=safe(result.trace)), markup=True)
    errors = [f"{result.out}: {result.save_error}"] if result.save_error else []
    if args.json:
        doc = profile_json(result.profile, recording=result.out, trace=result.trace)
        if args.json == "-":
            sys.stdout.write(dumps(doc, indent=1) + "\n")
            sys.stdout.flush()
        else:
            try:
                write_json(args.json, doc)
            except OutputError as e:
                errors.append(str(e))
    for error in errors:
        print("gpuprof: error: " + plain(error, one_line=True), file=sys.stderr)
    if errors:
        return result.exit_status or 2  # the job's own failure comes first
    return result.exit_status
