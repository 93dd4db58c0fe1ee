"""``gpuprof exporter``: serve Prometheus metrics under dcgm-exporter's names."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import threading
from typing import Any

from gpuprof.argtypes import positive_float
from gpuprof.commands import stop_on_signals, token_from_file
from gpuprof.commands.args import add_demo, add_interval
from gpuprof.commands.base import Command
from gpuprof.errors import GpuprofError, InputError
from gpuprof.i18n import N_, tr

__all__ = ["COMMANDS"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(tr("port must be an integer, got {t!r}", t=text)) from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(tr("port {t} is out of range 0–65535", t=text))
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port", type=_port, default=9400, help=tr("TCP port (default 9400; 0 picks a free one)")
    )
    p.add_argument(
        "--bind",
        default="127.0.0.1",
        metavar="ADDR",
        help=tr("address to listen on (default 127.0.0.1)"),
    )
    add_interval(p, help=tr("sampling interval in seconds (default 1)"))
    p.add_argument(
        "--stale-after",
        type=positive_float(unit=" s"),
        default=None,
        metavar="S",
        help=tr(
            "drop the GPU series when no poll succeeded for S seconds "
            "(gpuprof_source_up is 0 then; default: 3 intervals, at least 5 s)"
        ),
    )
    p.add_argument(
        "--per-process",
        action="store_true",
        help=tr(
            "also serve a series per GPU process: GPU memory, SM %%, host CPU %% and memory, "
            "labelled by pid, name, user and container (redacted as in reports); the host "
            "figures are then read at every poll instead of every 5 s"
        ),
    )
    add_demo(p, tr('serve a SIMULATED 8×H100 fleet (labelled source="simulated")'))
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help=tr(
            "answer only requests carrying this file's token (Authorization: Bearer TOKEN), "
            "/metrics included; keep the file private (chmod 600)"
        ),
    )
    p.add_argument(
        "--tls-cert", metavar="FILE", help=tr("serve HTTPS with this PEM certificate (chain)")
    )
    p.add_argument(
        "--tls-key",
        metavar="FILE",
        help=tr("the PEM private key of --tls-cert (default: in the --tls-cert file)"),
    )


def _security(args: argparse.Namespace) -> tuple[str | None, Any]:
    """The token and the TLS context the flags ask for; warnings printed; InputError if bad."""
    from gpuprof.exporter.api import server_tls_context

    token = token_from_file(args.token_file)
    if args.tls_key and not args.tls_cert:
        raise InputError(tr("--tls-key needs --tls-cert"))
    context = server_tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    return token, context


def _run(args: argparse.Namespace) -> int:
    try:
        from gpuprof.telemetry.sources import open_source
    except ImportError as exc:
        raise GpuprofError(
            tr("telemetry sources are not available in this build: {e}", e=exc)
        ) from None
    from gpuprof.exporter import Exporter

    try:
        ipaddress.ip_address(args.bind)
    except ValueError:
        if args.bind != "localhost":
            raise InputError(tr("--bind needs an IP address, got {b!r}", b=args.bind)) from None
    token, ssl_context = _security(args)
    source = open_source(demo=args.demo)
    exporter = Exporter(
        source,
        port=args.port,
        bind=args.bind,
        interval_s=args.interval,
        stale_after_s=args.stale_after,
        per_process=args.per_process,
        token=token,
        ssl_context=ssl_context,
    )
    try:
        # From before the first line a supervisor may react to: Ctrl-C, systemd/docker stop
        # and a closed terminal all end here, cleanly (exit 0).
        with stop_on_signals():
            try:
                exporter.start()
            except OSError as exc:
                raise InputError(
                    tr(
                        "cannot listen on {b}:{p}: {e}",
                        b=args.bind,
                        p=args.port,
                        e=exc.strerror or exc,
                    )
                ) from None
            from gpuprof.termtext import plain

            print(
                tr(
                    "gpuprof exporter: serving {u} ({s}); Ctrl+C stops",
                    u=exporter.url,
                    s=plain(source.label, one_line=True),
                ),
                flush=True,
            )
            if args.bind not in ("127.0.0.1", "::1", "localhost"):
                if token is None:
                    note = tr(
                        "note: listening on {b}; anyone who can reach it can read the GPU telemetry",
                        b=args.bind,
                    )
                elif ssl_context is None:
                    note = tr(
                        "note: listening on {b} without --tls-cert: the token and the telemetry "
                        "cross the network unencrypted",
                        b=args.bind,
                    )
                else:
                    note = ""
                if note:
                    print(note, file=sys.stderr, flush=True)
            threading.Event().wait()
        print(tr("gpuprof exporter: stopped"), file=sys.stderr)
    finally:
        exporter.stop()
        source.close()
    return 0


COMMANDS = (
    Command(
        "exporter",
        N_("serve Prometheus metrics (dcgm-exporter names) for Grafana"),
        add_arguments,
        _run,
        description=N_(
            "Serve GPU telemetry at http://BIND:PORT/metrics with NVIDIA dcgm-exporter's metric "
            "names and labels, plus gpuprof_* metrics (throttle reasons, benchmark results). "
            "Listens on loopback only unless --bind says otherwise. A remote gpuprof reads "
            "/api/v1/snapshot (gpuprof --connect URL)."
        ),
    ),
)
