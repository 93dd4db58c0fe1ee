"""The Recommend tab's request trace (issue 22): a CSV of arrivals, prompt and output tokens per
request, chosen with a file picker and read by the core's :func:`~gpuprof.recommend.trace.read_trace`
(the reader and limits of ``gpuprof recommend --trace``; a bad file is one message naming the file
and line, shown under the field). Loading one fills the form's traffic with what the trace shows
(:func:`~gpuprof.recommend.trace.trace_traffic`, as the CLI does where no flag gave it), and the
tab simulates it on the top configurations (:func:`~gpuprof.recommend.trace.simulate_top`),
labelled SIMULATED."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from gpuprof.recommend.explain import fmt_duration_ms
from gpuprof.recommend.trace import Trace, TraceResult, read_trace, trace_traffic
from gpuprof.units import NA
from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..shell.widgets import field_row, plain_label
from ..shell.workers import CancellableWorker

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.recommend.rank import RecommendationRow

__all__ = ["TraceInput", "TraceReader", "trace_results_text"]

_ERROR_COLOR = "color: #c92a2a;"


class TraceReader(CancellableWorker):
    """Reads one trace file in a worker thread: a trace at the 200,000-request limit takes about
    a second to parse, and a file past the size limit as long to be refused; the window never
    waits for it. ``finished(Trace)`` or ``errored(exception)``."""

    job_name = "reading a trace"
    thread_name = "gpuprof-trace-read"

    def __init__(self, path: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path

    def start(self) -> None:
        path, send = self.path, self._send

        def body(_token: CancelToken) -> None:
            try:
                trace = read_trace(path)
            except (GpuprofError, OSError) as exc:
                send("errored", exc)
                return
            send("finished", trace)

        self._launch(body)


class TraceInput(QWidget):
    """A trace file field: path, Choose…, Clear and what the file holds (or why it is unusable).

    ``loaded`` carries the traffic of a trace just read (``trace_traffic``), ``cleared`` says the
    trace was taken away; :attr:`trace` is the trace in use (``None``: none, or a bad file)."""

    loaded = Signal(dict)
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: Trace | None = None
        self.error: str | None = None
        #: The file being read in the background (None: none).
        self.reader: TraceReader | None = None
        #: The last file chosen (kept in the settings): where the file picker opens. Not read
        #: again at start-up: a large trace takes about a second to read.
        self.last_path = ""
        self.path = QLineEdit()
        self.path.setReadOnly(True)
        self.path.setPlaceholderText(self.tr("none"))
        self.path.setToolTip(
            self.tr(
                "A request trace (CSV: arrival_s, prompt_tokens, output_tokens per line) "
                "simulated on the top configurations"
            )
        )
        self.choose = QPushButton(self.tr("Choose…"))
        self.clear = QPushButton(self.tr("Clear"))
        self.clear.setEnabled(False)
        self.status = plain_label()
        self.status.setObjectName("muted")
        self.status.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(field_row(self.path, self.choose, self.clear))
        layout.addWidget(self.status)
        self.choose.clicked.connect(self._on_choose)
        self.clear.clicked.connect(self.clear_trace)

    def _on_choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Request trace"),
            self.path.text() or self.last_path,
            self.tr("CSV files (*.csv *.txt);;All files (*)"),
        )
        if path:
            self.load_in_background(path)

    def load_in_background(self, path: str) -> TraceReader:
        """Read ``path`` in a worker; the field says so meanwhile, and the trace is applied (or
        its error shown) when the read ends, unless another file was chosen since."""
        self._forget_reader()
        self.path.setText(path)
        self.last_path = path
        self.trace, self.error = None, None
        self.status.setStyleSheet("")
        self.status.setText(self.tr("Reading the trace…"))
        self.status.show()
        self.clear.setEnabled(True)  # Clear also drops a read still going on
        self.cleared.emit()  # no trace until this one is read
        reader = TraceReader(path, self)
        reader.finished.connect(self._on_read)
        reader.errored.connect(self._on_read_error)
        self.reader = reader
        reader.start()
        return reader

    def _forget_reader(self) -> None:
        reader, self.reader = self.reader, None
        if reader is not None:
            reader.detach()  # what it still reads is dropped

    def _on_read(self, trace: object) -> None:
        if self.sender() is self.reader and isinstance(trace, Trace):
            self.reader = None
            self._apply(trace)

    def _on_read_error(self, exc: object) -> None:
        if self.sender() is self.reader and isinstance(exc, Exception):
            self.reader = None
            self._fail(exc)

    def load(self, path: str) -> Trace | None:
        """Read ``path`` as a trace now (scripts and tests; the file picker reads in the
        background); on success emit ``loaded``, else show why (and keep none)."""
        self._forget_reader()
        self.path.setText(path)
        self.last_path = path
        try:
            trace = read_trace(path)
        except (GpuprofError, OSError) as exc:
            self._fail(exc)
            return None
        self._apply(trace)
        return trace

    def _fail(self, exc: Exception) -> None:
        self.trace, self.error = None, str(exc)
        self.status.setText(self.tr("Cannot use this trace: %1").replace("%1", self.error))
        self.status.setStyleSheet(_ERROR_COLOR)
        self.status.show()
        self.clear.setEnabled(True)
        self.cleared.emit()

    def _apply(self, trace: Trace) -> None:
        self.trace, self.error = trace, None
        traffic = trace_traffic(trace)
        self.status.setStyleSheet("")
        self.status.setText(
            self.tr("%1 requests over %2 s: mean prompt %3, output %4 tokens, %5 requests/s")
            .replace("%1", f"{len(trace):,}")
            .replace("%2", f"{trace.duration_s:,.4g}")
            .replace("%3", f"{traffic['prompt_len']:,.0f}")
            .replace("%4", f"{traffic['output_len']:,.0f}")
            .replace("%5", f"{traffic['rate_per_s']:,.4g}")
        )
        self.status.show()
        self.clear.setEnabled(True)
        self.loaded.emit(traffic)

    def clear_trace(self) -> None:
        """No trace (the traffic fields keep what they show)."""
        self._forget_reader()
        self.trace, self.error = None, None
        self.path.clear()
        self.status.hide()
        self.clear.setEnabled(False)
        self.cleared.emit()


def trace_results_text(trace: Trace, sims: Sequence[tuple[RecommendationRow, TraceResult]]) -> str:
    """The simulated trace on the top rows, one line each (plain text, labelled SIMULATED)."""

    def ms(x: float) -> str:
        return fmt_duration_ms(x) if math.isfinite(x) else NA

    lines = [
        QCoreApplication.translate(
            "RecommendTab", "SIMULATED: the trace (%1 requests over %2 s) on the top configurations"
        )
        .replace("%1", f"{len(trace):,}")
        .replace("%2", f"{trace.duration_s:,.4g}")
    ]
    for row, res in sims:
        lines.append(
            QCoreApplication.translate(
                "RecommendTab",
                "%1. %2 × %3 replicas: TTFT p50 %4, p99 %5; TPOT p50 %6, p99 %7; "
                "%8 tokens/s; goodput %9",
            )
            .replace("%1", str(row.rank))
            .replace("%2", row.label)
            .replace("%3", str(res.replicas))
            .replace("%4", ms(res.ttft_s["p50"]))
            .replace("%5", ms(res.ttft_s["p99"]))
            .replace("%6", ms(res.tpot_s["p50"]))
            .replace("%7", ms(res.tpot_s["p99"]))
            .replace("%8", f"{res.output_tokens_per_s:,.0f}")
            .replace("%9", f"{res.goodput_share:.1%}" + (" !" if res.truncated else ""))
        )
    return "\n".join(lines)
