"""``gpuprof devices | monitor | record | replay | export``: telemetry without the GUI."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from gpuprof.commands import interval_arg, stop_on_signals
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.units import NA, fmt_bytes, fmt_duration, fmt_num, fmt_pct, fmt_rate

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from gpuprof.telemetry.model import DeviceInfo, GpuSample, Snapshot, SystemInfo, Topology
    from gpuprof.telemetry.session import TelemetrySession
    from gpuprof.telemetry.source import TelemetrySource

__all__ = ["register", "gpu_table"]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(tr("expected a number, got {t!r}", t=text)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(tr("expected a positive number, got {t}", t=text))
    return value


def _add_interval(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--interval",
        type=interval_arg,
        default=1.0,
        metavar="S",
        help=tr("seconds between samples, 0.1–60 (default 1)"),
    )


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "devices",
        help=tr("list GPUs, versions and topology"),
        description=tr(
            "Inventory of the NVIDIA GPUs on this machine (like `nvidia-smi -q` and `nvidia-smi topo -m`) "
            "and the host. Without a GPU or driver, says why and still shows the host (exit 0)."
        ),
    )
    p.add_argument("--json", action="store_true", help=tr("print JSON instead of tables"))
    p.add_argument("--demo", action="store_true", help=tr("use the SIMULATED 8×H100 box"))
    p.set_defaults(func=cmd_devices)

    p = sub.add_parser(
        "monitor",
        help=tr("live terminal view of GPU and host telemetry"),
        description=tr(
            "A live table of every GPU (what `nvidia-smi dmon` shows, laid out to read) and the host, "
            "refreshed every --interval seconds until Ctrl-C; or one snapshot with --once."
        ),
    )
    _add_interval(p)
    p.add_argument("--once", action="store_true", help=tr("print one snapshot and exit"))
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help=tr("JSON: one object per snapshot (one line each when streaming)"),
    )
    fmt.add_argument("--csv", action="store_true", help=tr("CSV: one row per GPU per sample"))
    p.add_argument("--demo", action="store_true", help=tr("use the SIMULATED 8×H100 box"))
    p.add_argument("--count", type=int, default=None, metavar="N", help=tr("stop after N samples"))
    p.set_defaults(func=cmd_monitor)

    p = sub.add_parser(
        "record",
        help=tr("record a telemetry session to a file"),
        description=tr(
            "Sample telemetry into a SQLite session file (WAL: a killed recording loses at most the last "
            "second). Stops after --duration seconds or on Ctrl-C."
        ),
    )
    p.add_argument(
        "--out", required=True, metavar="FILE", help=tr("session file to write (e.g. run.gpuprof)")
    )
    p.add_argument(
        "--duration",
        type=_positive,
        default=None,
        metavar="S",
        help=tr("seconds to record (default: until Ctrl-C)"),
    )
    _add_interval(p)
    p.add_argument("--demo", action="store_true", help=tr("record the SIMULATED 8×H100 box"))
    p.add_argument("--force", action="store_true", help=tr("overwrite FILE if it exists"))
    p.set_defaults(func=cmd_record)

    p = sub.add_parser(
        "replay",
        help=tr("play a recorded session in the terminal"),
        description=tr("Play a recorded session back at its own pace (or --speed times faster)."),
    )
    p.add_argument(
        "file", metavar="FILE", help=tr("session file written by `gpuprof record` or the app")
    )
    p.add_argument(
        "--speed",
        type=_positive,
        default=1.0,
        metavar="N",
        help=tr("playback speed factor (default 1)"),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help=tr("print each snapshot as one JSON line, as fast as possible"),
    )
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "export",
        help=tr("export a recorded session"),
        description=tr(
            "Write a recorded session as CSV: one row per GPU per sample, units in the header."
        ),
    )
    p.add_argument("file", metavar="FILE", help=tr("session file"))
    p.add_argument(
        "--csv",
        required=True,
        metavar="OUT",
        help=tr("CSV file to write ('-' for standard output)"),
    )
    p.set_defaults(func=cmd_export)


# --------------------------------------------------------------------------- helpers


def _open(demo: bool) -> TelemetrySource:
    from gpuprof.telemetry.sources import open_source

    return open_source(demo=demo)


def _console(file: TextIO | None = None) -> Console:
    from rich.console import Console

    return Console(file=file or sys.stdout, highlight=False)


def _jsonable(obj: object) -> Any:
    from gpuprof.telemetry.codec import to_jsonable

    return to_jsonable(obj, keep_defaults=True)


def _dumps(obj: object, *, indent: int | None = None) -> str:
    text = json.dumps(
        _jsonable(obj), indent=indent, ensure_ascii=False, allow_nan=False, default=str
    )
    # Lone surrogates (system text that was not UTF-8) cannot be printed; as \udcXX escapes
    # they stay valid JSON that reads back to the same string.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _throttle_text(g: GpuSample) -> str:
    return ", ".join(g.clock_events.throttle_names) or "—"


def _source_banner(source: TelemetrySource) -> str:
    from gpuprof.telemetry.model import SourceKind

    if source.kind is SourceKind.SIMULATED:
        what = source.label.split("—", 1)[-1].strip()
        return tr(
            "[bold yellow]SIMULATED[/] {what} — demo data, not measured on this machine", what=what
        )
    if source.kind is SourceKind.REPLAY:
        return f"[bold cyan]{source.label}[/]"
    return source.label


# --------------------------------------------------------------------------- devices


def cmd_devices(args: argparse.Namespace) -> int:
    source = _open(args.demo)
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
    console.print(_source_banner(source))
    if not devices:
        reason = status.message or tr("no GPU was reported")
        console.print(tr("[bold]no NVIDIA GPU/driver found[/]: {r}", r=reason))
        if status.hint:
            console.print(tr("hint: {h}", h=status.hint))
    console.print(_system_table(system))
    if devices:
        console.print(_devices_table(devices, snap))
        if len(devices) > 1:
            console.print(_topology_table(topology))
    console.print(_host_table(snap))
    return 0


def _system_table(system: SystemInfo) -> RenderableType:
    from rich.table import Table

    t = Table(title=tr("System"), show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    t.add_row(tr("Host"), system.hostname or NA)
    t.add_row(tr("OS"), system.os or NA)
    t.add_row(tr("CPU"), f"{system.cpu_model or NA} ({fmt_num(system.cpu_count_logical)} logical)")
    t.add_row(tr("RAM"), fmt_bytes(system.memory_total_bytes))
    t.add_row(tr("Driver"), system.driver_version or NA)
    t.add_row(tr("CUDA (driver)"), system.cuda_driver_version or NA)
    t.add_row(tr("NVML"), system.nvml_version or NA)
    return t


def _devices_table(devices: Sequence[DeviceInfo], snap: Snapshot) -> RenderableType:
    from rich.table import Table

    samples = {g.index: g for g in snap.gpus}
    t = Table(title=tr("GPUs"), title_justify="left")
    for col in (
        "#",
        "Name",
        "Memory",
        "PCIe (now / max)",
        "Power limit",
        "Max SM clock",
        "ECC",
        "MIG",
        "Persist.",
        "Bus id",
        "UUID",
    ):
        t.add_column(tr(col))
    for d in devices:
        g = samples.get(d.index)
        pcie_now = f"Gen{g.pcie_gen} x{g.pcie_width}" if g and g.pcie_gen else NA
        pcie_max = f"Gen{d.pcie_gen_max} x{d.pcie_width_max}" if d.pcie_gen_max else NA
        t.add_row(
            str(d.index),
            d.name + (tr(" [red](lost)[/]") if g and g.lost else ""),
            fmt_bytes(d.memory_total_bytes),
            f"{pcie_now} / {pcie_max}",
            fmt_num(g.power_limit_w if g else d.power_default_limit_w, "W"),
            fmt_num(d.sm_clock_max_mhz, "MHz"),
            _onoff(d.ecc_mode_current),
            _onoff(d.mig_mode_current) + (f" ({len(d.mig_devices)})" if d.mig_devices else ""),
            _onoff(d.persistence_mode),
            d.pci_bus_id or NA,
            d.uuid or NA,
        )
    return t


def _onoff(value: bool | None) -> str:
    if value is None:
        return NA
    return tr("on") if value else tr("off")


def _topology_table(topology: Topology) -> RenderableType:
    from rich.table import Table

    t = Table(title=tr("Topology (like nvidia-smi topo -m)"), title_justify="left")
    t.add_column("")
    for i in topology.gpu_indices:
        t.add_column(f"GPU{i}", justify="center")
    for i, row in zip(topology.gpu_indices, topology.matrix, strict=False):
        t.add_row(f"GPU{i}", *[cell or NA for cell in row])
    t.caption = tr(
        "NV# = # NVLinks; PIX/PXB = PCIe switch(es); PHB = host bridge; NODE = same NUMA node; SYS = across sockets"
    )
    return t


def _host_table(snap: Snapshot) -> RenderableType:
    from rich.table import Table

    h = snap.host
    t = Table(title=tr("Host"), title_justify="left")
    for col in ("CPU", "Load avg", "RAM used", "Swap used", "Disk r/w", "Net rx/tx"):
        t.add_column(tr(col))
    load = " ".join(f"{v:.2f}" for v in h.load_avg) if h.load_avg else NA
    t.add_row(
        fmt_pct(h.cpu_pct) + (f" @ {fmt_num(h.cpu_freq_mhz, 'MHz')}" if h.cpu_freq_mhz else ""),
        load,
        f"{fmt_bytes(h.mem_used_bytes)} / {fmt_bytes(h.mem_total_bytes)}",
        f"{fmt_bytes(h.swap_used_bytes)} / {fmt_bytes(h.swap_total_bytes)}",
        f"{fmt_rate(h.disk_read_bytes_s)} / {fmt_rate(h.disk_write_bytes_s)}",
        f"{fmt_rate(h.net_rx_bytes_s)} / {fmt_rate(h.net_tx_bytes_s)}",
    )
    return t


# --------------------------------------------------------------------------- monitor


#: Monitor columns: (header, min terminal width to show it). Narrow terminals keep the essentials.
_MONITOR_COLUMNS: tuple[tuple[str, int], ...] = (
    ("GPU", 0),
    ("Name", 165),
    ("Util", 0),
    ("Mem util", 110),
    ("Memory used", 0),
    ("Power", 0),
    ("Temp", 0),
    ("SM clk", 0),
    ("Mem clk", 140),
    ("PCIe rx/tx", 100),
    ("NVLink rx/tx", 128),
    ("Throttle", 0),
)


def _short_name(name: str) -> str:
    return name.removeprefix("NVIDIA ").removeprefix("GeForce ")


def gpu_table(
    snap: Snapshot, devices: Sequence[DeviceInfo] = (), title: str | None = None, width: int = 200
) -> RenderableType:
    """The monitor's table: one row per GPU, what `nvidia-smi dmon` shows, with units.

    ``width`` is the terminal width: columns that would not fit are dropped, not squeezed.
    """
    from rich.table import Table

    names = {d.index: _short_name(d.name) for d in devices}
    shown = [col for col, min_width in _MONITOR_COLUMNS if width >= min_width]
    t = Table(title=title, title_justify="left", expand=False, pad_edge=False)
    for col in shown:
        t.add_column(tr(col), no_wrap=True)
    for g in snap.gpus:
        if g.lost:
            cells = {
                "GPU": str(g.index),
                "Name": names.get(g.index, ""),
                "Throttle": tr("[red]GPU LOST[/]"),
            }
            t.add_row(*[cells.get(col, "") for col in shown])
            continue
        throttle = _throttle_text(g)
        cells = {
            "GPU": str(g.index),
            "Name": names.get(g.index, ""),
            "Util": fmt_pct(g.util_gpu_pct),
            "Mem util": fmt_pct(g.util_mem_pct),
            "Memory used": f"{fmt_bytes(g.mem_used_bytes)} / {fmt_bytes(g.mem_total_bytes, digits=0)}",
            "Power": f"{fmt_num(g.power_w, digits=0)} / {fmt_num(g.power_limit_w, 'W')}",
            "Temp": fmt_num(g.temp_gpu_c, "°C"),
            "SM clk": fmt_num(g.clock_sm_mhz, "MHz"),
            "Mem clk": fmt_num(g.clock_mem_mhz, "MHz"),
            "PCIe rx/tx": f"{fmt_rate(g.pcie_rx_bytes_s)} / {fmt_rate(g.pcie_tx_bytes_s)}",
            "NVLink rx/tx": f"{fmt_rate(g.nvlink_rx_bytes_s)} / {fmt_rate(g.nvlink_tx_bytes_s)}",
            "Throttle": f"[yellow]{throttle}[/]" if g.throttle_reasons else throttle,
        }
        t.add_row(*[cells[col] for col in shown])
    return t


def _monitor_view(
    source: TelemetrySource,
    snap: Snapshot,
    devices: Sequence[DeviceInfo],
    interval: float,
    width: int = 200,
) -> RenderableType:
    from rich.console import Group
    from rich.text import Text

    stamp = time.strftime("%H:%M:%S", time.localtime(snap.time_s))
    parts: list[RenderableType] = [
        Text.from_markup(
            f"{_source_banner(source)}  ·  {stamp}  ·  every {interval:g} s  ·  Ctrl-C to stop"
        )
    ]
    if not snap.status.ok:
        parts.append(Text.from_markup(f"[bold red]{snap.status.message}[/] {snap.status.hint}"))
    if snap.gpus:
        models = sorted({_short_name(d.name) for d in devices})
        parts.append(
            gpu_table(snap, devices, title=" · ".join(models) if width < 165 else None, width=width)
        )
    parts.append(_host_table(snap))
    return Group(*parts)


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
    session = _session(_open(args.demo), args.interval)
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
            from gpuprof.telemetry.store import CSV_HEADER, csv_rows

            writer = csv.writer(sys.stdout)
            writer.writerow(CSV_HEADER)
            for snap in _samples(session, count):
                writer.writerows(csv_rows(snap))
                sys.stdout.flush()
            return 0
        console = _console()
        if args.once:
            console.print(
                _monitor_view(source, session.poll_once(), devices, args.interval, console.width)
            )
            return 0
        from rich.live import Live

        with Live(console=console, auto_refresh=False, screen=False) as live:
            for snap in _samples(session, count):
                live.update(
                    _monitor_view(source, snap, devices, args.interval, console.width), refresh=True
                )
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        session.close()


# --------------------------------------------------------------------------- record / replay / export


def cmd_record(args: argparse.Namespace) -> int:
    from gpuprof.telemetry.store import SessionStore

    out = Path(args.out)
    if out.exists() and not args.force:
        raise InputError(tr("{p} exists; pass --force to overwrite it", p=out))
    if out.parent and not out.parent.exists():
        raise InputError(tr("folder {p} does not exist", p=out.parent))
    session = _session(_open(args.demo), args.interval)
    console = _console(sys.stderr)
    try:
        # From before the file exists: a signal at any point still closes the recording.
        with stop_on_signals():
            session.start_recording(out, overwrite=True)
            console.print(
                tr(
                    "recording {src} every {i:g} s to {p} — Ctrl-C to stop",
                    src=_source_banner(session.source),
                    i=args.interval,
                    p=out,
                )
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
                p=out,
                e=session.recording_error,
                n=n,
                d=length,
            ),
            soft_wrap=True,  # one line, whatever the terminal width: scripts grep for it
        )
        return 1
    console.print(tr("saved {n} samples ({d}) to {p}", n=n, d=length, p=out))
    if last_error:
        console.print(tr("[yellow]warning[/]: sampling reported: {e}", e=last_error))
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
                view = _monitor_view(source, snap, devices, interval, console.width)
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
        rows = export_csv(store, out)
        n = store.count()
    print(
        tr("wrote {n} samples ({r} rows, one per GPU) to {p}", n=n, r=rows, p=out), file=sys.stderr
    )
    return 0
