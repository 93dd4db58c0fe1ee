"""The benchmark runner in a worker thread; its callbacks become queued Qt signals.

superqt's generator-worker shape: ``started → progress/result… → finished(run)`` or
``errored(exception)``, never a silent dead thread. The worker is a daemon thread, not a
QThreadPool task, so a benchmark stuck in a driver call cannot block the app from exiting; the
:class:`~gpuprof.bench.base.CancelToken` stops it between steps (each ≤ 1 s).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from ..shell.workers import CancellableWorker

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.bench.runner import BenchRun, Runner

__all__ = ["BenchWorker", "probe_devices"]

log = logging.getLogger(__name__)


class BenchWorker(CancellableWorker):
    """Runs ``runner.run`` in a thread; lives in the GUI thread so that its signals are queued.

    ``progress`` carries a RunProgress, ``finished`` the BenchRun. A telemetry source opened
    for the run is the runner's to close (``Runner(owns_source=True)``). ``save(run)`` (optional) is
    called in the worker thread before ``finished`` (the results database); a failure to save
    is reported through ``errored`` after ``finished``.
    """

    result = Signal(object)  # Result, as soon as it is measured
    state = Signal(object)  # RunState
    job_name = "a benchmark"
    thread_name = "gpuprof-bench"

    def start(
        self, make_runner: Callable[[], Runner], save: Callable[[BenchRun], None] | None = None
    ) -> None:
        """Build the runner (imports torch) and run it, both in the worker thread."""
        send = self._send

        def body(token: CancelToken) -> None:
            try:
                runner = make_runner()
                run = runner.run(
                    on_progress=lambda p: send("progress", p),
                    on_result=lambda r: send("result", r),
                    cancel=token,
                    on_state=lambda s: send("state", s),
                )
            except Exception as exc:
                log.exception("the benchmark run failed")
                send("errored", exc)
                return
            problem: Exception | None = None
            if save is not None:
                try:
                    save(run)
                except Exception as exc:
                    log.exception("saving the benchmark run failed")
                    problem = exc
            send("finished", run)
            if problem is not None:
                send("errored", problem)

        self._launch(body)


def error_text(exc: BaseException) -> str:
    """What the Benchmarks tab says of a failed run: the exception's type and text."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def probe_devices() -> tuple[tuple[str, str], ...]:
    """``(("cuda:0", "NVIDIA H100 80GB HBM3"), ...)`` as torch sees them. Imports torch."""
    import torch

    if not torch.cuda.is_available():
        return ()
    return tuple(
        (f"cuda:{i}", str(torch.cuda.get_device_name(i))) for i in range(torch.cuda.device_count())
    )
