"""``gpuprof devices | monitor | record | replay | export``: telemetry without the GUI."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from gpuprof.argtypes import positive_float, positive_int
from gpuprof.commands import stop_on_signals
from gpuprof.commands.args import (
    add_connect_auth,
    add_demo,
    add_force,
    add_interval,
    add_print_json,
)
from gpuprof.commands.base import Command
from gpuprof.commands.telemetry_views import (
    devices_table,
    gpu_table,
    host_table,
    monitor_view,
    source_banner,
    system_table,
    topology_table,
)
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.netlimits import EXPORTER_MAX_BYTES, EXPORTER_MIN_TIMEOUT_S
from gpuprof.termtext import markup, safe
from gpuprof.units import fmt_duration

if TYPE_CHECKING:
    from rich.console import Console

    from gpuprof.telemetry.model import Snapshot
    from gpuprof.telemetry.session import TelemetrySession
    from gpuprof.telemetry.source import TelemetrySource

__all__ = ["COMMANDS", "gpu_table"]


def _add_connect(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--connect",
        metavar="URL",
        help=tr(
            "read another machine's `gpuprof exporter` at URL instead of the local GPUs; each "
            "answer must come whole within {s:g} s, or the sampling interval when longer, and "
            "be at most {n} MiB",
            s=EXPORTER_MIN_TIMEOUT_S,
            n=EXPORTER_MAX_BYTES >> 20,
        ),
    )
    add_connect_auth(p)


def _devices_arguments(p: argparse.ArgumentParser) -> None:
    add_print_json(p, tr("print JSON instead of tables"))
    add_demo(p)
    _add_connect(p)


def _monitor_arguments(p: argparse.ArgumentParser) -> None:
    add_interval(p)
    p.add_argument("--once", action="store_true", help=tr("print one snapshot and exit"))
    fmt = p.add_mutually_exclusive_group()
    add_print_json(fmt, tr("JSON: one object per snapshot (one line each when streaming)"))
    fmt.add_argument("--csv", action="store_true", help=tr("CSV: one row per GPU per sample"))
    add_demo(p)
    p.add_argument(
        "--count", type=positive_int(), default=None, metavar="N", help=tr("stop after N samples")
    )
    _add_connect(p)


def _record_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out", required=True, metavar="FILE", help=tr("session file to write (e.g. run.gpuprof)")
    )
    p.add_argument(
        "--duration",
        type=positive_float(366 * 86400.0, unit=" s"),
        default=None,
        metavar="S",
        help=tr("seconds to record (default: until Ctrl-C)"),
    )
    add_interval(p)
    add_demo(p, tr("record the SIMULATED 8×H100 box"))
    add_force(p)
    _add_connect(p)


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file", metavar="FILE", help=tr("session file written by `gpuprof record` or the app")
    )
    p.add_argument(
        "--speed",
        type=positive_float(1e6),
        default=1.0,
        metavar="N",
        help=tr("playback speed factor (default 1)"),
    )
    add_print_json(p, tr("print each snapshot as one JSON line, as fast as possible"))


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help=tr("session file"))
    p.add_argument(
        "--csv",
        required=True,
        metavar="OUT",
        help=tr("CSV file to write ('-' for standard output)"),
    )


# --------------------------------------------------------------------------- helpers


def _open(demo: bool, args: argparse.Namespace | None = None) -> TelemetrySource:
    from gpuprof.telemetry.sources import open_source

    connect = getattr(args, "connect", None)
    if connect and demo:
        raise InputError(tr("--connect and --demo exclude each other"))
    return open_source(
        demo=demo,
        connect=connect,
        token_file=getattr(args, "token_file", None),
        ca_file=getattr(args, "ca_file", None),
        interval_s=getattr(args, "interval", None),
    )


def _console(file: TextIO | None = None) -> Console:
    from gpuprof.termtext import console

    return console(file or sys.stdout)


def _jsonable(obj: object) -> Any:
    from gpuprof.redact import redact_tree
    from gpuprof.telemetry.codec import to_jsonable

    # Process names, command lines, the hostname and labels: secrets hidden, as in reports.
    return redact_tree(to_jsonable(obj, keep_defaults=True))


def _dumps(obj: object, *, indent: int | None = None) -> str:
    # The shared strict writer: NaN/inf -> null with a reason; lone surrogates, C1 and bidi
    # controls as \uXXXX escapes (valid JSON that reads back to the same strings).
    from gpuprof.jsonout import dumps

    return dumps(_jsonable(obj), indent=indent)


# --------------------------------------------------------------------------- devices


def cmd_devices(args: argparse.Namespace) -> int:
    source = _open(args.demo, args)
    try:
        system = source.system_info()
        devices = source.devices()
        topology = source.topology()
        status = source.status()
        snap = source.poll()
    finally:
        source.close()
    if args.json:
        payload = {
            "source": source.kind.value,
            "simulated": snap.simulated,
            "status": status,
            "system": system,
            "devices": devices,
            "topology": topology,
            "host": snap.host,
        }
        print(_dumps(payload, indent=2))
        return 0
    console = _console()
    console.print(markup(source_banner(source)))
    if not devices:
        reason = status.message or tr("no GPU was reported")
        console.print(markup(tr("[bold]no NVIDIA GPU/driver found[/]: {r}", r=safe(reason))))
        if status.hint:
            console.print(tr("hint: {h}", h=status.hint))
    console.print(system_table(system))
    if devices:
        console.print(devices_table(devices, snap))
        if len(devices) > 1:
            console.print(topology_table(topology))
    console.print(host_table(snap))
    return 0


def _session(source: TelemetrySource, interval_s: float) -> TelemetrySession:
    """A session for a terminal client: it reads only the latest sample, so History is tiny."""
    from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession

    return TelemetrySession(source, interval_s=interval_s, history_capacity=MINIMAL_HISTORY)


def _samples(session: TelemetrySession, count: int | None) -> Iterator[Snapshot]:
    """Snapshots from the session's sampler thread, as they come (``count`` of them)."""
    import queue

    inbox: queue.Queue[Snapshot] = queue.Queue()
    unsubscribe = session.subscribe(inbox.put)
    session.start()
    try:
        n = 0
        while count is None or n < count:
            try:
                # A short timeout keeps Ctrl-C responsive while the driver is slow.
                snap = inbox.get(timeout=0.25)
            except queue.Empty:
                continue
            yield snap
            n += 1
    finally:
        unsubscribe()


def cmd_monitor(args: argparse.Namespace) -> int:
    session = _session(_open(args.demo, args), args.interval)
    session.watch_gpm()  # its SM active column (and --json/--csv) at every poll: a live view
    if args.json:
        session.watch_processes()  # the processes' host CPU % and RSS too
    source = session.source
    try:
        devices = source.devices()
        count = 1 if args.once else args.count
        if args.json:
            indent = 2 if args.once else None
            for snap in _samples(session, count):
                print(_dumps(snap, indent=indent), flush=True)
            return 0
        if args.csv:
            from gpuprof import csvsafe
            from gpuprof.telemetry.store import CSV_HEADER, csv_rows

            writer = csvsafe.writer(sys.stdout)
            writer.writerow(CSV_HEADER)
            for snap in _samples(session, count):
                writer.writerows(csv_rows(snap))
                sys.stdout.flush()
            return 0
        console = _console()
        if args.once:
            console.print(
                monitor_view(
                    source, session.poll_once(), devices, args.interval, console.width, live=False
                )
            )
            return 0
        from rich.live import Live

        with Live(console=console, auto_refresh=False, screen=False) as live:
            for snap in _samples(session, count):
                live.update(
                    monitor_view(source, snap, devices, args.interval, console.width), refresh=True
                )
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        session.close()


# --------------------------------------------------------------------------- record / replay / export


def cmd_record(args: argparse.Namespace) -> int:
    from gpuprof.fileio import regular_target
    from gpuprof.telemetry.store import SessionStore

    out = Path(args.out)
    regular_target(out)  # a device, a FIFO or a folder is refused before "pass --force"
    if out.exists() and not args.force:
        raise InputError(tr("{p} exists; pass --force to overwrite it", p=out))
    if out.parent and not out.parent.exists():
        raise InputError(tr("folder {p} does not exist", p=out.parent))
    session = _session(_open(args.demo, args), args.interval)
    console = _console(sys.stderr)
    try:
        # From before the file exists: a signal at any point still closes the recording.
        with stop_on_signals():
            session.start_recording(out, overwrite=True)
            console.print(
                tr(
                    "recording {src} every {i:g} s to {p} — Ctrl-C to stop",
                    src=source_banner(session.source),
                    i=args.interval,
                    p=safe(out),
                ),
                markup=True,
            )
            started = time.monotonic()
            session.start()
            while session.recording and (
                args.duration is None or time.monotonic() - started < args.duration
            ):
                time.sleep(min(0.2, args.interval))
    finally:
        last_error = session.last_error
        session.close()  # stops the recording: checkpointed into the file, no -wal left
    with SessionStore.open(out) as check:
        n, span = check.count(), check.time_range()
    length = fmt_duration(span[1] - span[0]) if span else fmt_duration(0)
    if session.recording_error:
        # Stopped by a write error (a full disk, a size limit): what was saved stays readable.
        console.print(
            tr(
                "[red]error[/]: recording to {p} stopped: {e}; {n} samples ({d}) were saved",
                p=safe(out),
                e=safe(session.recording_error),
                n=n,
                d=length,
            ),
            markup=True,
            soft_wrap=True,  # one line, whatever the terminal width: scripts grep for it
        )
        return 1
    console.print(tr("saved {n} samples ({d}) to {p}", n=n, d=length, p=out))
    if last_error:
        console.print(
            tr("[yellow]warning[/]: sampling reported: {e}", e=safe(last_error)), markup=True
        )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from gpuprof.telemetry.sources import ReplaySource
    from gpuprof.telemetry.store import SessionStore

    if args.json:
        # As fast as possible: read the store directly rather than pacing a ReplaySource.
        with SessionStore.open(args.file) as store:
            for snap in store.snapshots():
                print(_dumps(snap), flush=True)
        return 0
    interval = 0.1
    session = _session(ReplaySource(args.file, speed=args.speed), interval)
    source = session.source
    console = _console()
    devices = source.devices()
    try:
        from rich.console import Group
        from rich.live import Live
        from rich.text import Text

        with Live(console=console, auto_refresh=False) as live:
            while True:
                snap = session.poll_once()
                state = session.replay_state()
                assert state is not None
                pos = tr(
                    "{p} / {d}",
                    p=fmt_duration(state.position_s),
                    d=fmt_duration(state.duration_s),
                )
                view = monitor_view(source, snap, devices, interval, console.width)
                live.update(Group(Text(pos), view), refresh=True)
                if state.finished:
                    break
                time.sleep(interval)
    except KeyboardInterrupt:
        return 0
    finally:
        session.close()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from gpuprof.telemetry.store import SessionStore, export_csv, write_csv

    with SessionStore.open(args.file) as store:
        if args.csv == "-":
            write_csv(store.snapshots(), sys.stdout)
            return 0
        out = Path(args.csv)
        if not out.parent.exists():
            raise InputError(tr("folder {p} does not exist", p=out.parent))
        # What was written, not what the store holds: unreadable records are skipped (the
        # store says so in its own line when it closes).
        written, sim = export_csv(store, out), store.source_kind.value == "simulated"
    done = tr(
        "wrote {n} samples ({r} rows, one per GPU) to {p}",
        n=written.samples,
        r=written.rows,
        p=out,
    )
    print(done + (tr(" (SIMULATED data)") if sim else ""), file=sys.stderr)
    return 0


COMMANDS = (
    Command(
        "devices",
        N_("list GPUs, versions and topology"),
        _devices_arguments,
        cmd_devices,
        description=N_(
            "Inventory of the NVIDIA GPUs on this machine (like `nvidia-smi -q` and `nvidia-smi topo -m`) "
            "and the host. Without a GPU or driver, says why and still shows the host (exit 0)."
        ),
    ),
    Command(
        "monitor",
        N_("live terminal view of GPU and host telemetry"),
        _monitor_arguments,
        cmd_monitor,
        description=N_(
            "A live table of every GPU (what `nvidia-smi dmon` shows, laid out to read) and the host, "
            "refreshed every --interval seconds until Ctrl-C; or one snapshot with --once."
        ),
    ),
    Command(
        "record",
        N_("record a telemetry session to a file"),
        _record_arguments,
        cmd_record,
        description=N_(
            "Sample telemetry into a SQLite session file (WAL: a killed recording loses at most the last "
            "second). Stops after --duration seconds or on Ctrl-C."
        ),
    ),
    Command(
        "replay",
        N_("play a recorded session in the terminal"),
        _replay_arguments,
        cmd_replay,
        description=N_("Play a recorded session back at its own pace (or --speed times faster)."),
    ),
    Command(
        "export",
        N_("export a recorded session"),
        _export_arguments,
        cmd_export,
        description=N_(
            "Write a recorded session as CSV: one row per GPU per sample, units in the header."
        ),
    ),
)
