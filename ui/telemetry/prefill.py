"""The demo's earlier history, made in a thread after the first frames and merged in.

:func:`prefill_async` asks the session to keep the live snapshots polled meanwhile
(:meth:`~gpuprof.telemetry.session.TelemetrySession.begin_prefill`); when the earlier snapshots
are ready, the session merges both into a new History between two polls, in time order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpuprof.telemetry.model import Snapshot
from PySide6.QtCore import QCoreApplication, QTimer

from ..shell.workers import run_in_thread

if TYPE_CHECKING:
    from ..shell.main_window import MainWindow

__all__ = ["PREFILL_DELAY_MS", "prefill_async"]

log = logging.getLogger(__name__)

#: Delay before the demo history is built (ms): the pure-Python simulator would hold the GIL
#: during start-up.
PREFILL_DELAY_MS = 300


def prefill_async(window: MainWindow, make: Callable[[], list[Snapshot]]) -> None:
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
        window.statusBar().showMessage(
            QCoreApplication.translate(
                "MainWindow", "Could not prepare the demo history: %1"
            ).replace("%1", str(exc)),
            8000,
        )

    def start() -> None:
        if session is window.session and not window.closing:
            run_in_thread(make, done, failed, window, name="gpuprof-demo-prefill")

    QTimer.singleShot(PREFILL_DELAY_MS, start)
