"""The ``gpuprof`` entry point: the GUI by default, sub-commands for headless use.

Exit codes: 0 success; 2 usage or bad input (one line, no traceback); 1 unexpected error.
Sub-commands live in :mod:`gpuprof.commands`, one module per area, each listing its
:class:`~gpuprof.commands.base.Command` rows in ``COMMANDS``; heavy imports (Qt, torch) stay
inside the command functions.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, cast

from gpuprof.argtypes import finite_float, window_size
from gpuprof.errors import GpuprofError
from gpuprof.i18n import LANGUAGES, set_language, tr, translate_argparse
from gpuprof.netlimits import (
    EXPORTER_MAX_BYTES,
    EXPORTER_MIN_TIMEOUT_S,
    PROMETHEUS_MAX_BYTES,
    PROMETHEUS_TIMEOUT_S,
)
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S
from gpuprof.termtext import plain
from gpuprof.version import __version__

if TYPE_CHECKING:
    from gpuprof.fleet.client import PrometheusClient

__all__ = ["main", "build_parser"]

#: Modules under gpuprof.commands that add sub-commands, in --help order.
COMMAND_MODULES = (
    "telemetry",
    "recover",
    "profile",
    "kill",
    "bench",
    "check",
    "catalog",
    "recommend",
    "report",
    "exporter",
    "fleet",
    "compare",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line and exit 2, like every other bad input (argparse adds the usage block).
        self.exit(2, f"{self.prog}: error: {plain(message, one_line=True)}\n")


def build_parser() -> argparse.ArgumentParser:
    from gpuprof.commands.args import add_connect_auth, add_demo, add_interval
    from gpuprof.commands.base import add_command

    parser = _Parser(
        prog="gpuprof",
        description=tr(
            "gpuprof — watch what your NVIDIA GPUs are doing, measure what they can really do, "
            "and decide which cloud machine a workload should run on, at what cost.\n\n"
            "Without a sub-command, opens the desktop app."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"gpuprof {__version__}",
        help=tr("show program's version number and exit"),
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help=tr(
            "log everything to stderr (core and app, DEBUG level) and show tracebacks of "
            "unexpected errors"
        ),
    )
    parser.add_argument(
        "--lang",
        choices=["auto", *LANGUAGES],
        default="auto",
        help=tr("language of the app and the messages (default: GPUPROF_LANG, else the locale)"),
    )
    gui = parser.add_argument_group(tr("desktop app"))
    src = gui.add_mutually_exclusive_group()
    add_demo(src, tr("show a SIMULATED 8×H100 fleet instead of real GPUs"))
    src.add_argument("--replay", metavar="FILE", help=tr("open a recorded session for replay"))
    src.add_argument(
        "--connect",
        metavar="URL",
        help=tr(
            "watch another machine: the URL of its `gpuprof exporter` "
            "(e.g. http://127.0.0.1:9400 through an SSH tunnel); each answer must come whole "
            "within {s:g} s and be at most {n} MiB",
            s=EXPORTER_MIN_TIMEOUT_S,
            n=EXPORTER_MAX_BYTES >> 20,
        ),
    )
    gui.add_argument(
        "--prometheus",
        metavar="URL",
        help=tr(
            "open the Fleet tab on the Prometheus at URL (with --token-file: its bearer token); "
            "each query may take {s:g} s in all and answer at most {n} MiB",
            s=PROMETHEUS_TIMEOUT_S,
            n=PROMETHEUS_MAX_BYTES >> 20,
        ),
    )
    add_connect_auth(gui)
    gui.add_argument(
        "--screenshot",
        metavar="OUT.png",
        help=tr("render the window offscreen, save a PNG and exit"),
    )
    gui.add_argument(
        "--tab",
        metavar="NAME",
        help=tr(
            "tab to show first "
            "(overview, telemetry, processes, topology, benchmarks, recommend, health, check; "
            "fleet with --prometheus)"
        ),
    )
    gui.add_argument(
        "--after",
        metavar="SECONDS",
        type=finite_float(0.0, 3600.0, unit=" s"),
        default=3.0,
        help=tr("with --screenshot: seconds of data to collect first (default 3)"),
    )
    gui.add_argument(
        "--size",
        metavar="WxH",
        type=window_size,
        default=(1600, 1000),
        help=tr("with --screenshot: window size (default 1600x1000)"),
    )
    add_interval(
        gui,
        default=None,
        help=tr(
            "sampling interval in seconds ({lo:g}–{hi:g})", lo=MIN_INTERVAL_S, hi=MAX_INTERVAL_S
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"gpuprof.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"gpuprof.commands.{name}":
                raise
            continue
        for command in module.COMMANDS:
            add_command(sub, command)
    return parser


class _TerminalFormatter(logging.Formatter):
    """Log lines carry process names, labels and file names: no control or bidi characters."""

    def format(self, record: logging.LogRecord) -> str:
        return plain(super().format(record))


def _configure_logging(debug: bool) -> None:
    """Warnings and errors of every module (core and app) go to stderr; ``--debug`` (or
    ``GPUPROF_DEBUG=1``) shows everything down to DEBUG, with the module that logged it."""

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        _TerminalFormatter(
            "%(asctime)s %(levelname)s %(name)s: %(message)s" if debug else "gpuprof: %(message)s"
        )
    )
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, handlers=[handler])
    if debug:
        # Third-party chatter (PIL, matplotlib-style font scans) stays at INFO.
        for noisy in ("PIL", "asyncio"):
            logging.getLogger(noisy).setLevel(logging.INFO)


def _register_front_ends() -> None:
    """The entry point wires the Qt front end into the core: the PDF renderer and the app's
    PNG screenshots (the core itself never imports ``gpuprof.ui``)."""
    from gpuprof.report import render

    def qt_pdf() -> render.Renderer:
        from gpuprof.ui.report.pdf import pdf_renderer

        made: render.Renderer = pdf_renderer()
        return made

    def screenshot(args: argparse.Namespace) -> int:
        return _run_gui(args)

    render.register("pdf", qt_pdf)
    render.set_app_screenshot(screenshot)


def _prometheus_client(args: argparse.Namespace) -> PrometheusClient:
    """``--prometheus URL [--token-file F]``: the client, checked before the window opens."""
    from gpuprof.commands import token_from_file
    from gpuprof.fleet.client import PrometheusClient

    token_file = None if getattr(args, "connect", None) else getattr(args, "token_file", None)
    token = token_from_file(token_file)
    return PrometheusClient(args.prometheus, token=token)


def _run_gui(args: argparse.Namespace) -> int:
    client = _prometheus_client(args) if getattr(args, "prometheus", None) else None
    try:
        from gpuprof.ui.shell.app import run_app
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("gpuprof.ui"):
            raise GpuprofError(
                tr("the desktop app is not available in this build; try `gpuprof --help`")
            ) from None
        raise GpuprofError(tr("the desktop app needs {m}: {e}", m=exc.name, e=exc)) from None
    if client is not None:
        from gpuprof.ui.fleet.tab import set_launch_client

        set_launch_client(client)
    return int(run_app(args))


def _requested_lang(argv: Sequence[str]) -> str | None:
    """``--lang``'s value, read before the parser exists: its help texts are translated."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


class _StdoutGuard:
    """``sys.stdout`` while a command runs: the same stream, remembering a write to it that
    failed, so that :func:`main` can tell a full or closed standard output (``> /dev/full``,
    ``| head``) from any other OSError."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as e:
            self.failure = e
            raise

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as e:
            self.failure = e
            raise

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ... of the stream
        return getattr(self.stream, name)

    def caused(self, exc: BaseException) -> bool:
        """Whether ``exc`` is (or was raised while handling) the failed write to stdout."""
        seen: set[int] = set()
        cur: BaseException | None = exc
        while cur is not None and id(cur) not in seen:
            if cur is self.failure:
                return True
            seen.add(id(cur))
            cur = cur.__cause__ or cur.__context__
        return False


class _ClosedStdout(io.TextIOBase):
    """Standard output when its descriptor was closed before gpuprof started (``>&-``, a
    service with no stdout): Python then has no ``sys.stdout``, ``print`` drops the text, and
    ``replay --json … >&-`` exited 0 having written nothing (``export --csv -``: "unexpected
    error: TypeError"). Every write fails here as a write to a closed descriptor does; a
    command that prints nothing still runs."""

    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


def _stdout_failed(guard: _StdoutGuard, exc: OSError) -> int:
    """One line for a standard output that cannot be written (exit 2); nothing for a reader
    that left (``| head``, exit 0)."""
    # What is still buffered would fail again in Python's flush at exit (a second message):
    # it goes to /dev/null instead.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, guard.stream.fileno())
    if isinstance(exc, BrokenPipeError):
        return 0
    reason = exc.strerror or str(exc)
    _say(tr("gpuprof: error: cannot write to stdout: {e}", e=reason))
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None and sys.stderr is None:  # a windowed build without a console
        return _main(argv, None)
    closed = cast(TextIO, _ClosedStdout())  # a TextIO in all but name
    guard = _StdoutGuard(sys.stdout if sys.stdout is not None else closed)
    sys.stdout = guard  # type: ignore[assignment]  # a TextIO in all but name
    try:
        try:
            code = _main(argv, guard)
            guard.flush()  # what is buffered meets a full stdout here, not in the flush at exit
        except SystemExit:  # argparse's --help, --version and usage errors
            with contextlib.suppress(OSError):
                guard.flush()
            if guard.failure is None:
                raise
            return _stdout_failed(guard, guard.failure)
        except OSError as exc:
            if not guard.caused(exc):
                raise
            return _stdout_failed(guard, exc)
        return code
    finally:
        sys.stdout = guard.stream


def _main(argv: Sequence[str] | None, guard: _StdoutGuard | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        set_language(_requested_lang(argv))
        translate_argparse()  # its usage line, section titles and parse errors
    except GpuprofError as exc:
        _say(f"gpuprof: error: {plain(exc, one_line=True)}")
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = args.debug or bool(os.environ.get("GPUPROF_DEBUG"))
    _configure_logging(debug)
    _register_front_ends()
    logging.getLogger(__name__).debug(
        "gpuprof %s, Python %s, command %s", __version__, sys.version.split()[0], args.command
    )
    try:
        if args.command is None:
            return _run_gui(args)
        return int(args.func(args) or 0)
    except GpuprofError as exc:
        _say(f"gpuprof: error: {plain(exc, one_line=True)}")
        return 2
    except KeyboardInterrupt:
        _say(tr("gpuprof: interrupted"))
        return 130
    except OSError as exc:
        if guard is not None and guard.caused(exc):
            raise  # main says it in one line (a reader that left: nothing)
        return _unexpected(exc, debug)
    except Exception as exc:
        return _unexpected(exc, debug)


def _unexpected(exc: Exception, debug: bool) -> int:
    """The last line of defence prints, never dumps (unless --debug)."""
    if debug:
        raise exc
    _say(
        tr(
            "gpuprof: unexpected error: {t}: {e} (run with --debug for the traceback)",
            t=type(exc).__name__,
            e=plain(exc, one_line=True),
        )
    )
    return 1


def _say(line: str) -> None:
    """One line on stderr, where there is one: a full or closed stderr (``2>/dev/full``) has
    no room for the message, and the exit status still says what happened."""
    if sys.stderr is None:  # print(file=None) would write to stdout
        return
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)
