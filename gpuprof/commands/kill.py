"""``gpuprof kill PID``: terminate or kill a (GPU) process after showing what will be signalled."""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, Any

from gpuprof.argtypes import process_id
from gpuprof.commands.base import Command
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr

__all__ = ["COMMANDS", "cmd_kill", "gpu_use"]

#: How long to watch for the process to exit after the signal.
WAIT_S = 3.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pid", metavar="PID", type=process_id, help=tr("process id to signal"))
    p.add_argument(
        "--signal",
        choices=["TERM", "KILL"],
        default="TERM",
        help=tr("TERM asks the process to exit (default); KILL ends it at once"),
    )
    p.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help=tr("do not ask for confirmation (needed when input is not a terminal)"),
    )


def gpu_use(pid: int) -> list[tuple[int, int | None]] | None:
    """(GPU index, GPU memory bytes) for each GPU the process uses, from one poll of this
    machine's GPUs (NVML, amdsmi, or both on a mixed box: ``open_local_source``); ``None`` when
    neither library sees a GPU here."""
    try:
        from gpuprof.telemetry.model import SourceKind
        from gpuprof.telemetry.vendors import open_local_source
    except ImportError:
        return None
    try:
        source = open_local_source()
    except Exception:
        return None
    try:
        snap = source.poll()
    except Exception:
        return None
    finally:
        source.close()
    if snap.source not in (SourceKind.NVML, SourceKind.AMDSMI):
        return None
    return [(p.gpu_index, p.gpu_mem_bytes) for p in snap.processes if p.pid == pid]


def _summary(target: Any, gpus: list[tuple[int, int | None]] | None, sig: str) -> list[str]:
    from gpuprof.redact import redact_cmdline
    from gpuprof.termtext import plain
    from gpuprof.units import NA, fmt_bytes, fmt_duration

    if gpus is None:
        gpu_text = tr("unknown (no NVIDIA or AMD GPU driver here)")
    elif not gpus:
        gpu_text = tr("not seen on any GPU")
    else:
        used = [m for _, m in gpus if m is not None]
        gpu_text = tr(
            "GPU {g}, GPU memory {m}",
            g=", ".join(str(i) for i, _ in gpus),
            m=fmt_bytes(sum(used)) if used else NA,
        )
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(target.start_time_s))
    running = fmt_duration(max(0.0, time.time() - target.start_time_s))
    rows = [
        (tr("pid"), str(target.pid)),
        (tr("name"), target.name or NA),
        (tr("user"), target.user or NA),
        (tr("GPU"), gpu_text),
        (tr("started"), tr("{s} (running {d})", s=started, d=running)),
        (tr("command"), redact_cmdline(target.cmdline, keep=True, max_len=300) or NA),
        (tr("signal"), f"SIG{sig}"),
    ]
    width = max(len(k) for k, _ in rows)
    return [f"  {k.ljust(width)}  {plain(v, one_line=True)}" for k, v in rows]


def cmd_kill(
    args: argparse.Namespace, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None
) -> int:
    from gpuprof.telemetry.procctl import Sig, describe, send_signal, wait_gone

    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    sig = Sig(args.signal)
    target = describe(args.pid)
    print(tr("gpuprof kill: about to send {s} to", s=sig.label), file=stdout)
    for line in _summary(target, gpu_use(target.pid), sig.value):
        print(line, file=stdout)
    stdout.flush()
    if not args.yes:
        if not stdin.isatty():
            raise InputError(
                tr(
                    "input is not a terminal, so gpuprof cannot ask: add --yes to send {s} "
                    "to pid {p}",
                    s=sig.label,
                    p=target.pid,
                )
            )
        print(tr("Send {s} to pid {p}? [y/N] ", s=sig.label, p=target.pid), end="", file=stdout)
        stdout.flush()
        answer = stdin.readline().strip().lower()
        if answer not in ("y", "yes"):
            print(tr("nothing was signalled"), file=stdout)
            return 1
    send_signal(target, sig)
    if wait_gone(target, WAIT_S):
        print(tr("{t} exited", t=target.label), file=stdout)
    else:
        print(
            tr(
                "{t} received {s} and is still running after {w:g} s",
                t=target.label,
                s=sig.label,
                w=WAIT_S,
            ),
            file=stdout,
        )
        if sig is Sig.TERM:
            print(tr("`gpuprof kill {p} --signal KILL` ends it at once", p=target.pid), file=stdout)
    return 0


COMMANDS = (
    Command(
        "kill",
        N_("terminate or kill a process using a GPU (asks first)"),
        add_arguments,
        cmd_kill,
        description=N_(
            "Show the process (pid, name, user, GPU memory, command line with secrets hidden) "
            "and, once confirmed, send it SIGTERM (or SIGKILL with --signal KILL). The process "
            "is checked again just before the signal, so a pid that was given to another "
            "process in the meantime is not signalled. Another user's process needs root; the "
            "init process, kernel threads and gpuprof itself are never signalled."
        ),
    ),
)
