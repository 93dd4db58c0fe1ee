"""The Recommend tab's request-trace simulation as one object (issue 22): one
:class:`~.trace_worker.TraceWorker` at a time, its progress bar and Cancel button, and what the
results pane then says. A result is applied only while the tab still shows the recommendation
and the trace the worker was given (``is_current``); anything a replaced worker still reports
is dropped and counted."""

from __future__ import annotations

from collections.abc import Callable

from gpuprof.recommend.rank import Recommendation, RecommendationRow
from gpuprof.recommend.trace import Trace, TraceResult
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

from ..shell.i18n import translate as _t
from .trace_input import trace_results_text
from .trace_worker import TraceWorker

__all__ = ["TraceRun"]


class TraceRun(QObject):
    """Starts, cancels and ends trace simulations for a tab; ``simulated`` carries the list of
    (row, TraceResult) once shown."""

    simulated = Signal(object)

    def __init__(
        self,
        *,
        busy: QWidget,
        progress: QProgressBar,
        cancel: QPushButton,
        view: QLabel,
        is_current: Callable[[Recommendation, Trace], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._busy, self._progress, self._cancel, self._view = busy, progress, cancel, view
        self._is_current = is_current
        #: The worker simulating now (None: none running).
        self.worker: TraceWorker | None = None
        #: The last results shown.
        self.results: list[tuple[RecommendationRow, TraceResult]] = []
        #: Results that came back for inputs no longer shown, dropped (tests).
        self.stale = 0
        cancel.clicked.connect(self.cancel)

    def start(self, rec: Recommendation, trace: Trace) -> None:
        for old in self.findChildren(TraceWorker):  # runs that ended: their objects can go
            if not old.running:
                old.deleteLater()
        worker = TraceWorker(rec, trace, self)
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_finished)
        worker.cancelled.connect(self._on_cancelled)
        worker.errored.connect(self._on_error)
        self.worker = worker
        self._progress.setValue(0)
        self._cancel.setEnabled(True)  # a Cancel clicked for a run since replaced stays usable
        self._busy.show()
        worker.start()

    def stop(self) -> None:
        """Cancel the running simulation and forget it: whatever it still reports is dropped."""
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.detach()  # it reports nothing more
        self._busy.hide()

    def clear(self) -> None:
        """Before a new ranking: no simulation, no results shown."""
        self.stop()
        self.results = []
        self._view.hide()

    def cancel(self) -> None:
        """The Cancel button: stop the simulation (it says so where its results would be)."""
        if self.worker is not None:
            self.worker.cancel()
            self._cancel.setEnabled(False)

    def _current(self, worker: object) -> TraceWorker | None:
        """The sender if it is the running worker and its inputs are still the tab's."""
        w = self.worker
        if w is None or worker is not w or not self._is_current(w.rec, w.trace):
            return None
        return w

    def _end(self, text: str) -> None:
        self.worker = None
        self._busy.hide()
        self._cancel.setEnabled(True)
        self._view.setText(text)
        self._view.show()

    def _on_progress(self, pct: object) -> None:
        if self._current(self.sender()) is not None and isinstance(pct, int):
            self._progress.setValue(pct)

    def _on_finished(self, result: object) -> None:
        w = self._current(self.sender())
        if w is None or not isinstance(result, list):
            self.stale += 1
            return
        self.results = result
        self._end(trace_results_text(w.trace, result))
        self.simulated.emit(result)

    def _on_cancelled(self, _: object) -> None:
        if self._current(self.sender()) is not None:
            self._end(_t("The trace simulation was cancelled."))

    def _on_error(self, exc: object) -> None:
        if self._current(self.sender()) is not None:
            self._end(_t("The trace simulation failed: %1").replace("%1", str(exc)))
