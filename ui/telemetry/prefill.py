"""The demo's earlier history, made in a thread after the first frames and merged in.

:func:`prefill_async` asks the session to keep the live snapshots polled meanwhile
(:meth:`~gpuprof.telemetry.session.TelemetrySession.begin_prefill`); when the earlier snapshots
are ready, the session merges both into a new History between two polls, in time order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from gpuprof.telemetry.model import Snapshot
from PySide6.QtCore import QCoreApplication, QTimer

from ..shell.context import WindowContext
from ..shell.workers import run_in_thread

__all__ = ["PREFILL_DELAY_MS", "PrefillHost", "prefill_async"]


class PrefillHost(WindowContext, Protocol):
    """The window as the prefill sees it: a :class:`WindowContext` that shows the merged
    history (the main window)."""

    def after_prefill(self, snapshots: list[Snapshot]) -> None: ...


log = logging.getLogger(__name__)

#: Delay before the demo history is built (ms): the pure-Python simulator would hold the GIL
#: during start-up.
PREFILL_DELAY_MS = 300


def prefill_async(window: PrefillHost, make: Callable[[], list[Snapshot]]) -> None:
    """Run ``make()`` in a thread after :data:`PREFILL_DELAY_MS` and merge its snapshots into
    ``window``'s session; a failure is logged and shown in the status bar."""
    session = window.session
    if session is None:
        return
    session.begin_prefill()

    def done(snaps: object) -> None:
        if session is not window.session or window.closing or session.closed:
            return
        snapshots = list(snaps)  # type: ignore[call-overload]
        session.prefill(snapshots)
        window.after_prefill(snapshots)

    def failed(exc: BaseException) -> None:
        session.cancel_prefill()
        log.error("could not prepare the demo history", exc_info=exc)
        window.show_message(
            QCoreApplication.translate(
                "MainWindow", "Could not prepare the demo history: %1"
            ).replace("%1", str(exc)),
            8000,
        )

    def start() -> None:
        if session is window.session and not window.closing:
            run_in_thread(make, done, failed, window.widget(), name="gpuprof-demo-prefill")

    QTimer.singleShot(PREFILL_DELAY_MS, start)
