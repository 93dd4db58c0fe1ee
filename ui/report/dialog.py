"""File → Export report…: a preview of the report and Save as HTML, PDF or JSON.

:class:`ReportFeature` is the window's feature (:mod:`..shell.features`); the report covers the
window's telemetry session: its History over the plots' time window and the processes it saw. The preview is the PDF layout (QTextDocument on the
report's ``qt`` HTML), so no web engine is needed. An acceptance check (the Check tab's last
result, or a file from ``gpuprof check --json`` added here) becomes the report's first page.

The dialog opens at once: the report and its chart images (seconds with 8 GPUs) are made in a
worker thread (:class:`PreviewWorker`) while the preview says "Building preview…"; only the
text document is made in the GUI thread. A change (command lines, paper, a check file) starts a
new build and drops the one in flight; closing the dialog cancels it, and the window's close
waits for it until the shutdown's deadline (2 s at most).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gpuprof.errors import GpuprofError
from gpuprof.i18n import N_
from gpuprof.report.model import CheckSection, Report
from PySide6.QtCore import QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import ActionSpec, WindowContext, remaining_s
from ..shell.heap import trim_heap
from ..shell.i18n import translate as _t
from ..shell.widgets import button
from ..shell.workers import CancellableWorker

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.check.model import CheckResult

    from .pdf import DocumentParts

__all__ = [
    "PreviewWorker",
    "ReportDialog",
    "paper_palette",
    "ReportFeature",
    "last_check",
    "report_from_window",
    "report_maker",
    "save_report",
]

log = logging.getLogger(__name__)

_FORMATS = (
    ("html", N_("HTML (one self-contained file)"), "*.html"),
    ("pdf", N_("PDF"), "*.pdf"),
    ("json", N_("JSON (docs/report-schema.md)"), "*.json"),
)


def save_report(report: Report, path: str | Path, fmt: str, paper: str = "a4") -> Path:
    """Write ``report`` as ``fmt`` (html, pdf, json) through the renderer registry."""
    from gpuprof.report.render import renderer

    from . import pdf  # noqa: F401  (registers the Qt PDF renderer)

    return renderer(fmt).write(report, path, paper=paper)


def report_maker(window: WindowContext) -> Callable[[bool], Report]:
    """``make(include_cmdlines)``: a report on what ``window`` shows: its session's extract of
    the plots' time window (the processes it saw, its source's static facts, read once by the
    session) and its History over that span.

    ``make`` reads only the session (History and ledger are locked), so it may run in a
    worker."""
    from gpuprof.report.build import from_telemetry_session

    session = window.session
    if session is None:  # the window makes its session before any feature can ask
        raise RuntimeError("the window has no telemetry session")

    def make(include_cmdlines: bool) -> Report:
        return from_telemetry_session(session, include_cmdlines=include_cmdlines)

    return make


def report_from_window(window: WindowContext, *, include_cmdlines: bool = False) -> Report:
    """The report of :func:`report_maker`, made now."""
    return report_maker(window)(include_cmdlines)


def last_check(result: CheckResult | None) -> CheckSection | None:
    """The report's first page for the check last run in the window (None: none ran)."""
    from gpuprof.report.check import check_section_of

    return check_section_of(result) if result is not None else None


#: Paper and ink of the report preview (the report's HTML text colour, on white).
PAPER = "#ffffff"
INK = "#1b1f24"


_TRIM_DELAY_MS = 500


def paper_palette(palette: QPalette) -> QPalette:
    """``palette`` with white paper and dark ink in every colour group."""
    out = QPalette(palette)
    for group in (
        QPalette.ColorGroup.Active,
        QPalette.ColorGroup.Inactive,
        QPalette.ColorGroup.Disabled,
    ):
        for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Window):
            out.setColor(group, role, QColor(PAPER))
        for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
            out.setColor(group, role, QColor(INK))
    return out


class PreviewWorker(CancellableWorker):
    """One build of the report preview in a daemon thread: ``make()`` gives the report before
    and after its check page, then :func:`~gpuprof.ui.report.pdf.document_parts` (the chart
    images, the HTML). ``built((generation, base, report, parts))`` or
    ``failed((generation, message))``; a cancelled build reports nothing."""

    built = Signal(object)
    failed = Signal(object)
    job_name = "a report preview"
    thread_name = "gpuprof-report-preview"

    def start(self, generation: int, make: Callable[[], tuple[Report, Report]], paper: str) -> None:
        from .pdf import document_parts

        def body(token: CancelToken) -> None:
            try:
                base, report = make()
                parts = None
                if not token.cancelled:
                    parts = document_parts(report, paper, cancelled=lambda: token.cancelled)
            except Exception as exc:  # shown in the dialog; the log keeps the traceback
                log.debug("the report preview failed", exc_info=exc)
                self._send("failed", (generation, str(exc) or type(exc).__name__))
                return
            if parts is not None and not token.cancelled:
                self._send("built", (generation, base, report, parts))

        self._launch(body)


class ReportDialog(QDialog):
    """Preview + format, paper and command-line choices + Save. ``make_report(include_cmdlines)``
    builds the report (in a worker: see the module's docstring); it runs again when the
    command-line choice changes. ``check``, when given (or added with :meth:`load_check_file`),
    is the report's first page. :attr:`report` is what the preview shows and Save writes:
    None until the first preview is built."""

    #: The preview was filled in (after each build).
    preview_ready = Signal()

    def __init__(
        self,
        make_report: Callable[[bool], Report],
        parent: QWidget | None = None,
        *,
        check: CheckSection | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(_t("Export report"))
        self._make_report = make_report
        self.check = check
        self.report: Report | None = None
        # The report of the last build before its check page, and its command-line choice: a
        # new paper or check file needs no second pass over the session.
        self._base: tuple[bool, Report] | None = None
        self._generation = 0
        self._worker: PreviewWorker | None = None
        self._builds: list[PreviewWorker] = []  # started and maybe not ended (shutdown joins)
        self._error = ""
        self._closed = False
        self.preview = QTextBrowser(self)
        self.preview.setOpenLinks(False)
        self.preview.setToolTip(_t("How the report will look (the PDF layout)"))
        self.preview.setPlaceholderText(_t("Building preview…"))
        # The preview is paper: the report's own dark text on white, whatever the app's theme
        # (the dark theme's base colour would put that text on a dark background).
        self.preview.setPalette(paper_palette(self.preview.palette()))
        self.format_box = QComboBox(self)
        for key, label, _ in _FORMATS:
            self.format_box.addItem(_t(label), key)
        self.format_box.setToolTip(_t("File format"))
        self.paper_box = QComboBox(self)
        self.paper_box.addItem("A4", "a4")
        self.paper_box.addItem("Letter", "letter")
        self.paper_box.setToolTip(_t("PDF paper size"))
        self.cmdline_box = QCheckBox(_t("Include command lines"), self)
        self.cmdline_box.setToolTip(
            _t("Show process command lines; passwords and tokens stay hidden")
        )
        self.check_button = button(
            _t("Add check result…"),
            _t("Put an acceptance check (gpuprof check --json) on the report's first page"),
            self._ask_check,
            self,
        )
        self.check_label = QLabel(self)
        self.check_label.setWordWrap(True)
        self.sim_label = QLabel(self)
        self.sim_label.setStyleSheet("color: #8a5a00; font-weight: bold;")
        self.status_label = QLabel(self)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        controls = QHBoxLayout()
        controls.addWidget(QLabel(_t("Format:"), self))
        controls.addWidget(self.format_box)
        controls.addWidget(QLabel(_t("Paper:"), self))
        controls.addWidget(self.paper_box)
        controls.addWidget(self.cmdline_box)
        controls.addWidget(self.check_button)
        controls.addStretch(1)
        controls.addWidget(self.status_label)
        controls.addWidget(self.sim_label)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.check_label)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.buttons)
        self.format_box.currentIndexChanged.connect(self._sync)
        self.paper_box.currentIndexChanged.connect(self._refresh_preview)
        self.cmdline_box.toggled.connect(self._refresh_preview)
        self.resize(900, 760)
        self._doc: QTextDocument | None = None
        self.finished.connect(self._release_preview)
        self._refresh_preview()

    @property
    def fmt(self) -> str:
        return str(self.format_box.currentData())

    @property
    def paper(self) -> str:
        return str(self.paper_box.currentData())

    @property
    def preview_pending(self) -> bool:
        """A preview is being built (the one shown, if any, is of the previous choices)."""
        return self._worker is not None

    def _sync(self) -> None:
        self.paper_box.setEnabled(self.fmt == "pdf")
        simulated = self.report is not None and self.report.simulated
        self.sim_label.setText(_t("SIMULATED data") if simulated else "")
        if self.preview_pending:
            self.status_label.setStyleSheet("")
            self.status_label.setText(_t("Building preview…"))
        else:
            self.status_label.setStyleSheet("color: #b3261e;" if self._error else "")
            self.status_label.setText(self._error)
        # Save writes what the preview shows: not while it is being made again.
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        save.setEnabled(self.report is not None and not self.preview_pending)
        if self.check is not None:
            self.check_label.setStyleSheet("")
            self.check_label.setText(
                _t("First page: the acceptance check, verdict %1").replace("%1", self.check.verdict)
            )

    def load_check_file(self, path: str | Path) -> bool:
        """Make the check result in ``path`` the first page (the preview is built again); False
        (and a message) if it is not one."""
        from gpuprof.report.check import load_check

        try:
            self.check = load_check(path)
        except GpuprofError as exc:
            self.check_label.setStyleSheet("color: #b3261e;")
            self.check_label.setText(str(exc))
            return False
        self._refresh_preview()
        return True

    def _ask_check(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, _t("Add check result"), "", _t("JSON files (*.json)")
        )
        if path:
            self.load_check_file(path)

    def _refresh_preview(self, *_: object) -> None:
        """Build the report (again when the command-line choice changed) and its preview in a
        worker, dropping the build in flight."""
        if self._closed:
            return
        from gpuprof.report.check import with_check

        if self._worker is not None:
            self._worker.detach()
        include, check, make_report = self.cmdline_box.isChecked(), self.check, self._make_report
        base = self._base[1] if self._base is not None and self._base[0] == include else None

        def make() -> tuple[Report, Report]:
            made = base if base is not None else make_report(include)
            return made, (with_check(made, check) if check is not None else made)

        self._generation += 1
        self._error = ""
        self._builds = [w for w in self._builds if w.running]  # ended builds go with the dialog
        worker = PreviewWorker(self)
        worker.built.connect(self._on_built)
        worker.failed.connect(self._on_failed)
        self._worker = worker
        self._builds.append(worker)
        worker.start(self._generation, make, self.paper)
        self._sync()

    def _on_built(self, result: object) -> None:
        from .pdf import document_from_parts

        built = cast("tuple[int, Report, Report, DocumentParts]", result)
        generation, base, report, parts = built
        if self._closed or generation != self._generation:
            return  # a build the user has moved on from
        self._worker = None
        self._base = (report.cmdlines_included, base)
        self.report = report
        doc = document_from_parts(parts)
        # Owned by the preview (Qt frees it, charts included, with the dialog): a document
        # only Python holds outlives the dialog, as PySide keeps a reference for setDocument.
        doc.setParent(self.preview)
        old, self._doc = self._doc, doc
        self.preview.setDocument(doc)
        if old is not None:
            old.deleteLater()
        self._sync()
        self.preview_ready.emit()

    def _on_failed(self, result: object) -> None:
        generation, message = cast("tuple[int, str]", result)
        if self._closed or generation != self._generation:
            return
        self._worker = None
        self._error = _t("Cannot build the report: %1").replace("%1", str(message))
        self._sync()

    def shutdown(self, timeout_s: float = 2.0) -> bool:
        """Cancel the preview builds and wait for them, at most ``timeout_s`` in all (the
        window closing, tests); True when none is left running."""
        deadline = time.monotonic() + timeout_s
        for worker in self._builds:
            worker.detach()
        self._worker = None
        return all(w.wait(max(0.0, deadline - time.monotonic())) for w in self._builds)

    def _release_preview(self) -> None:
        """Closed: a build in flight is cancelled (it ends at its next chart) and the rendered
        preview (tens of MB of chart images) goes at once; a dialog is never shown again once
        closed (File → Export report… makes a new one)."""
        self._closed = True
        for worker in self._builds:
            worker.detach()
        self._worker = None
        if self._doc is not None:
            blank = QTextDocument(self.preview)
            self.preview.setDocument(blank)
            self._doc.deleteLater()
            self._doc = None
            # Once the deferred delete has run: hand the freed pages back (see trim_heap).
            QTimer.singleShot(_TRIM_DELAY_MS, trim_heap)

    def save_to(self, path: str | Path) -> Path:
        """Write the report in the chosen format and paper (no file dialog)."""
        if self.report is None:
            raise RuntimeError("the report is still being built")
        return save_report(self.report, path, self.fmt, self.paper)

    def _on_save(self) -> None:
        if self.report is None or self.preview_pending:
            return
        key, _, pattern = next(f for f in _FORMATS if f[0] == self.fmt)
        start = (
            Path(
                QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
                or Path.home()
            )
            / f"gpuprof-report.{key}"
        )
        path, _ = QFileDialog.getSaveFileName(self, _t("Save report"), str(start), pattern)
        if not path:
            return
        if not path.lower().endswith(f".{key}"):
            path += f".{key}"
        try:
            self.save_to(path)
        except (GpuprofError, OSError) as exc:
            QMessageBox.warning(self, _t("Save report"), str(exc))
            return
        self.accept()


class ReportFeature:
    """File → Export report… (Ctrl+E): one :class:`ReportDialog` at a time, on what the window
    shows; the report reads the window's session (History and its process ledger), so no
    second buffer of snapshots is kept."""

    name = "report"

    def __init__(self, context: WindowContext) -> None:
        self._context = context
        self.dialog: ReportDialog | None = None
        #: The last acceptance check run in this window (the Check feature announces it).
        self.check_result: CheckResult | None = None
        context.checked_here.connect(self._on_checked)

    def _on_checked(self, result: CheckResult) -> None:
        self.check_result = result

    def actions(self) -> list[ActionSpec]:
        return [
            ActionSpec(
                "file.export_report",
                _t("Export &report…"),
                lambda _c, _on: self.open_dialog(),
                menu="file",
                group="3",
                order=0,
                shortcut="Ctrl+E",
                tip=_t(
                    "Save a report (HTML, PDF or JSON) of this machine and the recent telemetry"
                ),
            )
        ]

    def strip(self) -> None:
        return None

    def open_dialog(self) -> ReportDialog:
        # One dialog at a time: the last one (its report and rendered preview) goes, rather
        # than every dialog ever opened staying alive as a child of the window.
        old = self.dialog
        if old is not None:
            old.close()
            # Not deleteLater(): PySide would keep the Python side (and its document with the
            # rendered charts, ~40 MB) as the window's child. Without a parent it is freed with
            # its last reference, here.
            old.setParent(None)
            self.dialog = None
        window = self._context.widget()
        dialog = ReportDialog(
            report_maker(self._context), window, check=last_check(self.check_result)
        )
        self.dialog = dialog
        dialog.open()
        return dialog

    def shutdown(self, deadline: float) -> None:
        """The preview builds end with the window (2 s at most; a build past that is detached)."""
        if self.dialog is not None:
            self.dialog.shutdown(remaining_s(deadline, 2.0))
