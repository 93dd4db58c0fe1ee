"""``gpuprof profile``: run a command (or attach to a process) and profile it (issue 13)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpuprof.argtypes import finite_float, int_range, output_file
from gpuprof.commands.args import add_demo, add_force, add_interval, add_json_out
from gpuprof.commands.base import Command
from gpuprof.errors import InputError, OutputError
from gpuprof.i18n import N_, tr

__all__ = ["COMMANDS"]

_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        type=output_file(),
        default=None,
        metavar="FILE",
        help=tr("recording to write (default: a timestamped file in the data folder)"),
    )
    add_json_out(
        p, tr("also write the job profile as JSON ('-' for standard output)"), metavar="SUMMARY"
    )
    p.add_argument("--name", default="", metavar="NAME", help=tr("a name for the job"))
    add_interval(p)
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
    add_demo(p)
    add_force(p)
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
        help=tr(
            "seconds the job may take to exit after a SIGINT, SIGTERM or SIGHUP sent to gpuprof "
            "(forwarded to the job) before it is killed (default 10); Ctrl-C typed while the job "
            "holds the terminal goes to the job alone"
        ),
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS")


def cmd_profile(args: argparse.Namespace) -> int:
    from gpuprof.commands.profile_status import StatusBar
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
    # The job's process group is its pid (process_group=0); an attached one is not ours.
    status = StatusBar(sys.stderr, job_pgid=lambda: runner.pid if args.attach is None else None)
    runner = JobRunner(options, on_status=status)
    with status:  # the bottom row reserved before the job starts, given back on every way out
        result = runner.run()
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


COMMANDS = (
    Command(
        "profile",
        N_("run a command under the profiler and summarize the job"),
        add_arguments,
        cmd_profile,
        description=N_(
            "Start CMD (no shell) with its own process group, record GPU and host telemetry "
            "scoped to its process tree and the GPUs it uses, and when it ends store the job "
            "profile inside the recording and print its summary. Inside the job, "
            "`gpuprof.track` sends step markers (step time, tokens/s, MFU). CMD's exit code is "
            "passed through; Ctrl-C and SIGTERM go to CMD first, then the profile is saved.\n\n"
            "Example: gpuprof profile --json run.json -- python train.py --epochs 1"
        ),
        raw_description=True,
    ),
)
