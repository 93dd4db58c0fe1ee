"""The Recommend tab's trace simulation in a worker thread (issue 22): a large trace takes
seconds to minutes of pure Python (~1 s per 10⁵ engine steps), so the tab never runs it in the
GUI thread. ``started → progress(fraction)… → finished(list of (row, TraceResult))``, or
``errored(exception)``; :meth:`TraceWorker.cancel` stops it at the next tick
(:data:`~gpuprof.recommend.trace.TICK_STEPS` engine steps) and it reports ``cancelled``.

The worker keeps the recommendation and the trace it was given: the tab applies a result only
when both are still the ones it shows (a stale result, of inputs since edited, is dropped)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gpuprof.recommend.trace import Trace, TraceCancelled, simulate_top
from PySide6.QtCore import QObject, Signal

from ..shell.workers import CancellableWorker

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.recommend.rank import Recommendation

__all__ = ["TraceWorker"]

log = logging.getLogger(__name__)


class TraceWorker(CancellableWorker):
    """Simulates one trace on one recommendation's top rows (a new worker per run)."""

    cancelled = Signal(object)  # None: the run stopped at the user's request
    job_name = "a trace simulation"
    thread_name = "gpuprof-trace"

    def __init__(self, rec: Recommendation, trace: Trace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rec = rec
        self.trace = trace

    def start(self) -> None:
        rec, trace, send = self.rec, self.trace, self._send
        last = [-1]

        def body(token: CancelToken) -> None:
            def tick(fraction: float) -> bool:
                pct = int(100 * min(max(fraction, 0.0), 1.0))
                if pct != last[0]:  # one signal per percent, not per tick
                    last[0] = pct
                    send("progress", pct)
                return token.cancelled

            try:
                result = simulate_top(rec, trace, tick=tick)
            except TraceCancelled:
                send("cancelled", None)
                return
            except Exception as exc:
                log.debug("the trace simulation failed", exc_info=exc)
                send("errored", exc)
                return
            send("finished", result)

        self._launch(body)
