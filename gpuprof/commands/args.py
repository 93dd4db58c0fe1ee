"""The flags several commands share, declared once: the same name, type and metavar wherever
they appear; each command gives its own help where the flag's object differs."""

from __future__ import annotations

import argparse

from gpuprof.argtypes import finite_float, output_file, positive_float, positive_int
from gpuprof.i18n import tr
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S

__all__ = [
    "add_connect_auth",
    "add_demo",
    "add_force",
    "add_html_out",
    "add_interval",
    "add_json_out",
    "add_print_json",
    "add_providers",
    "add_read_limits",
    "interval_arg",
]

#: argparse type for ``--interval``: seconds within the sampler's range (one line, exit 2,
#: like every numeric flag: ``61 is outside 0.1–60 s``).
interval_arg = finite_float(MIN_INTERVAL_S, MAX_INTERVAL_S, unit=" s")


def add_interval(
    p: argparse._ActionsContainer, *, default: float | None = 1.0, help: str | None = None
) -> None:
    """``--interval S``: seconds between samples (default 1 s) of the commands that sample
    (``monitor``, ``record``, ``profile``, ``exporter``) and of the app."""
    p.add_argument(
        "--interval",
        type=interval_arg,
        default=default,
        metavar="S",
        help=tr(
            "seconds between samples, {lo:g}–{hi:g} (default 1)",
            lo=MIN_INTERVAL_S,
            hi=MAX_INTERVAL_S,
        )
        if help is None
        else help,
    )


def add_connect_auth(p: argparse._ActionsContainer) -> None:
    """``--token-file`` and ``--ca-file``: how ``--connect URL`` (the app, ``devices``,
    ``monitor``, ``record``) reaches an exporter that wants a bearer token or serves HTTPS."""
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help=tr("with --connect: the file holding the exporter's bearer token"),
    )
    p.add_argument(
        "--ca-file",
        metavar="FILE",
        help=tr("with --connect https://…: the CA certificate (PEM) that signed the exporter's"),
    )


def add_json_out(
    p: argparse._ActionsContainer, help: str, *, metavar: str = "OUT", stdout: bool = True
) -> None:
    """``--json OUT``: write the command's result as JSON to the file OUT (``-``: standard
    output, unless ``stdout`` is false); checked like every output path before work starts."""
    p.add_argument("--json", metavar=metavar, type=output_file(stdout=stdout), help=help)


def add_print_json(p: argparse._ActionsContainer, help: str | None = None) -> None:
    """``--json`` (a switch): print the result as JSON on standard output instead of tables."""
    p.add_argument("--json", action="store_true", help=tr("print JSON") if help is None else help)


def add_providers(p: argparse._ActionsContainer) -> None:
    """``--provider LIST``: only the instances of these cloud providers (``catalog list``,
    ``recommend``)."""
    p.add_argument("--provider", help=tr("comma-separated providers (aws,gcp,...)"))


def add_demo(p: argparse._ActionsContainer, help: str | None = None) -> None:
    """``--demo``: read the SIMULATED 8×H100 machine (:mod:`gpuprof.telemetry.scenarios`)
    instead of this machine's GPUs."""
    p.add_argument(
        "--demo",
        action="store_true",
        help=tr("use the SIMULATED 8×H100 box") if help is None else help,
    )


def add_force(p: argparse._ActionsContainer, help: str | None = None) -> None:
    """``--force``: the file the command writes may replace one that is there."""
    p.add_argument(
        "--force",
        action="store_true",
        help=tr("overwrite FILE if it exists") if help is None else help,
    )


def add_html_out(p: argparse._ActionsContainer, help: str) -> None:
    """``--html OUT``: write the command's result as an HTML page to the file OUT."""
    p.add_argument("--html", metavar="OUT", type=output_file(), help=help)


def add_read_limits(
    p: argparse._ActionsContainer,
    *,
    timeout_s: float,
    most_s: float,
    max_bytes: int,
    timeout_help: str,
    size_help: str,
) -> None:
    """``--timeout S`` (default ``timeout_s``, at most ``most_s``) and ``--max-mib N`` (default
    ``max_bytes`` in MiB, at most 4096): how long one download may take in all and how large
    it may be. The help texts (marked with ``N_``) say of what; their ``{s:g}`` and ``{n}`` are
    these defaults."""
    p.add_argument(
        "--timeout",
        type=positive_float(most_s, unit=" s"),
        default=timeout_s,
        metavar="S",
        help=tr(timeout_help, s=timeout_s),
    )
    p.add_argument(
        "--max-mib",
        type=positive_int(4096),
        default=max_bytes >> 20,
        metavar="N",
        help=tr(size_help, n=max_bytes >> 20),
    )
