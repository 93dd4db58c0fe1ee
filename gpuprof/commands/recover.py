"""``gpuprof recover FILE``: a closed copy of a recording that was not closed (or is damaged)."""

from __future__ import annotations

import argparse
import sys

from gpuprof.commands.args import add_force
from gpuprof.commands.base import Command
from gpuprof.i18n import N_, tr

__all__ = ["COMMANDS", "cmd_recover"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help=tr("session file to recover"))
    p.add_argument(
        "--out",
        metavar="OUT",
        default=None,
        help=tr("file to write (default: FILE with .recovered before its suffix)"),
    )
    add_force(p, tr("overwrite OUT if it exists"))


def cmd_recover(args: argparse.Namespace) -> int:
    from gpuprof.profile.storage import copy_job
    from gpuprof.telemetry.recover import recover
    from gpuprof.units import fmt_duration

    # A job's markers and profile (gpuprof profile) come along with the samples.
    done = recover(args.file, args.out, force=args.force, carry=copy_job)
    print(
        tr(
            "recovered {n} samples ({d}) from {p} to {o}",
            n=done.samples,
            d=fmt_duration(done.span_s),
            p=args.file,
            o=done.out,
        ),
        file=sys.stderr,
    )
    if done.skipped:
        print(
            tr("{k} records that could not be read were left out", k=done.skipped),
            file=sys.stderr,
        )
    return 0


COMMANDS = (
    Command(
        "recover",
        N_("write a closed copy of a recording that was not closed"),
        add_arguments,
        cmd_recover,
        description=N_(
            "Read what a recording holds (one whose recorder was killed, one copied without its "
            "-wal file, or a damaged one) and write it as a clean, closed session file. "
            "Records that cannot be read are left out; the recording itself is not changed."
        ),
    ),
)
