"""CLI sub-commands; each module lists its :class:`~gpuprof.commands.base.Command` rows in
``COMMANDS`` and keeps heavy imports lazy."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

from gpuprof.commands.args import add_interval, interval_arg
from gpuprof.i18n import tr

__all__ = ["add_interval", "interval_arg", "stop_on_signals", "token_from_file"]


def token_from_file(path: str | None) -> str | None:
    """The bearer token in ``--token-file`` (``None`` without one), read by
    :func:`gpuprof.tokenfile.read_token`; its warnings (a file every user may read) go to stderr."""
    if not path:
        return None
    from gpuprof.tokenfile import read_token

    token, warnings = read_token(path)
    for line in warnings:
        print(tr("gpuprof: warning: {w}", w=line), file=sys.stderr, flush=True)
    return token


class _Stop(Exception):
    """Raised in the main thread by SIGINT / SIGTERM / SIGHUP: leave the block cleanly."""


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Ctrl-C, SIGTERM (``timeout``, systemd, docker stop) and SIGHUP (a closed terminal) all
    end the ``with`` block normally, so what runs after it (closing a recording, stopping a
    server) runs for each. Outside the main thread signals cannot be caught: a plain block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: object) -> None:
        raise _Stop(signum)

    wanted = [signal.SIGINT, signal.SIGTERM]
    if hasattr(signal, "SIGHUP"):
        wanted.append(signal.SIGHUP)
    previous = {sig: signal.signal(sig, stop) for sig in wanted}
    try:
        yield
    except (_Stop, KeyboardInterrupt):
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
