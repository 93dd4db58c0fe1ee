"""The benchmark runner in a worker thread; its callbacks become queued Qt signals.

superqt's generator-worker shape: ``started → progress/result… → finished(run)`` or
``errored(message)``, never a silent dead thread. The worker is a daemon thread, not a
QThreadPool task, so a benchmark stuck in a driver call cannot block the app from exiting; the
:class:`~gpuprof.bench.base.CancelToken` stops it between steps (each ≤ 1 s).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

__all__ = ["BenchWorker", "probe_devices"]

log = logging.getLogger(__name__)


class BenchWorker(QObject):
    """Runs ``runner.run`` in a thread; lives in the GUI thread so that its signals are queued.

    A runner's ``owned_source`` (a telemetry source opened for the run) is closed after it.
    ``save(run)`` (optional) is called in the worker thread before ``finished`` (the results
    database); a failure to save is reported through ``errored`` after ``finished``.
    """

    started = Signal()
    progress = Signal(object)  # RunProgress
    result = Signal(object)  # Result, as soon as it is measured
    state = Signal(object)  # RunState
    finished = Signal(object)  # BenchRun
    errored = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self.cancel_token: Any = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(
        self, make_runner: Callable[[], Any], save: Callable[[Any], None] | None = None
    ) -> None:
        """Build the runner (imports torch) and run it, both in the worker thread."""
        if self.running:
            raise RuntimeError("a benchmark is already running")
        from gpuprof.bench.base import CancelToken

        token = CancelToken()
        self.cancel_token = token

        def body() -> None:
            runner = None
            try:
                runner = make_runner()
                run = runner.run(
                    on_progress=self.progress.emit,
                    on_result=self.result.emit,
                    cancel=token,
                    on_state=self.state.emit,
                )
            except Exception as exc:
                log.exception("the benchmark run failed")
                self.errored.emit(_message(exc))
                return
            finally:
                owned = getattr(runner, "owned_source", None)
                if owned is not None:
                    owned.close()
            problem = None
            if save is not None:
                try:
                    save(run)
                except Exception as exc:
                    log.exception("saving the benchmark run failed")
                    problem = _message(exc)
            self.finished.emit(run)
            if problem is not None:
                self.errored.emit(problem)

        self.started.emit()
        self._thread = threading.Thread(target=body, name="gpuprof-bench", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        if self.cancel_token is not None:
            self.cancel_token.cancel()

    def wait(self, timeout_s: float) -> bool:
        """Join the thread (tests, shutdown); True when it has ended."""
        if self._thread is None:
            return True
        self._thread.join(timeout_s)
        return not self._thread.is_alive()


def _message(exc: BaseException) -> str:
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
