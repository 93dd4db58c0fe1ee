"""File → Export report…: a preview of the report and Save as HTML, PDF or JSON.

:func:`add_report_action` puts the action into the main window's File menu; the report covers
the window's telemetry session: its History over the plots' time window and the processes it saw. The preview is the PDF layout (QTextDocument on the
report's ``qt`` HTML), so no web engine is needed. An acceptance check (the Check tab's last
result, or a file from ``gpuprof check --json`` added here) becomes the report's first page.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuprof.errors import GpuprofError
from gpuprof.i18n import N_
from gpuprof.report.model import CheckSection, Report
from PySide6.QtCore import QCoreApplication, QStandardPaths, QTimer
from PySide6.QtGui import QAction, QColor, QKeySequence, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from .heap import trim_heap

__all__ = [
    "ReportDialog",
    "paper_palette",
    "add_report_action",
    "last_check",
    "report_from_window",
    "save_report",
]

_FORMATS = (
    ("html", N_("HTML (one self-contained file)"), "*.html"),
    ("pdf", N_("PDF"), "*.pdf"),
    ("json", N_("JSON (docs/report-schema.md)"), "*.json"),
)


def _t(text: str) -> str:
    return QCoreApplication.translate("ReportDialog", text)


def save_report(report: Report, path: str | Path, fmt: str, paper: str = "a4") -> Path:
    """Write ``report`` as ``fmt`` (html, pdf, json) through the renderer registry."""
    from gpuprof.report.render import renderer

    from . import report_pdf  # noqa: F401  (registers the Qt PDF renderer)

    return renderer(fmt).write(report, path, paper=paper)


def report_from_window(window: Any, *, include_cmdlines: bool = False) -> Report:
    """A report on what ``window`` shows: its session's History over the time window of the
    plots, the processes its session saw, and the static facts it read."""
    from gpuprof.report.build import from_telemetry_session

    state = window.state
    return from_telemetry_session(
        window.session,
        system=state.system,
        devices=tuple(state.devices[i] for i in sorted(state.devices)),
        topology=state.topology,
        include_cmdlines=include_cmdlines,
    )


def last_check(window: Any) -> CheckSection | None:
    """The page of the check last run in ``window``'s Check tab (None: none ran)."""
    from gpuprof.report.check import check_section_of

    from .check_tab import CheckTab

    tab = window.findChild(CheckTab)
    result = getattr(tab, "result", None) if tab is not None else None
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


class ReportDialog(QDialog):
    """Preview + format, paper and command-line choices + Save. ``make_report(include_cmdlines)``
    builds the report; it runs again when the command-line choice changes. ``check``, when
    given (or added with :meth:`load_check_file`), is the report's first page."""

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
        self.report = self._with_check(make_report(False))
        self.preview = QTextBrowser(self)
        self.preview.setOpenLinks(False)
        self.preview.setToolTip(_t("How the report will look (the PDF layout)"))
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
        self.check_button = QPushButton(_t("Add check result…"), self)
        self.check_button.setToolTip(
            _t("Put an acceptance check (gpuprof check --json) on the report's first page")
        )
        self.check_button.clicked.connect(self._ask_check)
        self.check_label = QLabel(self)
        self.check_label.setWordWrap(True)
        self.sim_label = QLabel(self)
        self.sim_label.setStyleSheet("color: #8a5a00; font-weight: bold;")
        controls = QHBoxLayout()
        controls.addWidget(QLabel(_t("Format:"), self))
        controls.addWidget(self.format_box)
        controls.addWidget(QLabel(_t("Paper:"), self))
        controls.addWidget(self.paper_box)
        controls.addWidget(self.cmdline_box)
        controls.addWidget(self.check_button)
        controls.addStretch(1)
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
        self.cmdline_box.toggled.connect(self._on_cmdlines)
        self.resize(900, 760)
        self._doc: Any = None
        self._sync()
        self._refresh_preview()
        self.finished.connect(self._release_preview)

    @property
    def fmt(self) -> str:
        return str(self.format_box.currentData())

    @property
    def paper(self) -> str:
        return str(self.paper_box.currentData())

    def _sync(self) -> None:
        self.paper_box.setEnabled(self.fmt == "pdf")
        self.sim_label.setText(_t("SIMULATED data") if self.report.simulated else "")
        if self.check is not None:
            self.check_label.setStyleSheet("")
            self.check_label.setText(
                _t("First page: the acceptance check, verdict %1").replace("%1", self.check.verdict)
            )

    def _with_check(self, report: Report) -> Report:
        from gpuprof.report.check import with_check

        return with_check(report, self.check) if self.check is not None else report

    def _on_cmdlines(self, on: bool) -> None:
        self.report = self._with_check(self._make_report(on))
        self._sync()
        self._refresh_preview()

    def load_check_file(self, path: str | Path) -> bool:
        """Make the check result in ``path`` the first page; False (and a message) if it is
        not one."""
        from gpuprof.report.check import load_check

        try:
            self.check = load_check(path)
        except GpuprofError as exc:
            self.check_label.setStyleSheet("color: #b3261e;")
            self.check_label.setText(str(exc))
            return False
        self.report = self._with_check(self.report)
        self._sync()
        self._refresh_preview()
        return True

    def _ask_check(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, _t("Add check result"), "", _t("JSON files (*.json)")
        )
        if path:
            self.load_check_file(path)

    def _refresh_preview(self) -> None:
        from .report_pdf import build_document

        doc = build_document(self.report, self.paper)
        # Owned by the preview (Qt frees it, charts included, with the dialog): a document
        # only Python holds outlives the dialog, as PySide keeps a reference for setDocument.
        doc.setParent(self.preview)
        old, self._doc = self._doc, doc
        self.preview.setDocument(doc)
        if old is not None:
            old.deleteLater()

    def _release_preview(self) -> None:
        """Closed: the rendered preview (tens of MB of chart images) goes at once; a dialog is
        never shown again once closed (File → Export report… makes a new one)."""
        if self._doc is not None:
            blank = QTextDocument(self.preview)
            self.preview.setDocument(blank)
            self._doc.deleteLater()
            self._doc = None
            # Once the deferred delete has run: hand the freed pages back (see trim_heap).
            QTimer.singleShot(_TRIM_DELAY_MS, trim_heap)

    def save_to(self, path: str | Path) -> Path:
        """Write the report in the chosen format and paper (no file dialog)."""
        return save_report(self.report, path, self.fmt, self.paper)

    def _on_save(self) -> None:
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


def add_report_action(main_window: Any) -> QAction:
    """Add File → Export report… (Ctrl+E) to ``main_window``; returns the action.

    The report reads the window's telemetry session (History and its process ledger), so no
    second buffer of snapshots is kept.
    """
    action = QAction(_t("Export &report…"), main_window)
    action.setShortcut(QKeySequence("Ctrl+E"))
    action.setToolTip(
        _t("Save a report (HTML, PDF or JSON) of this machine and the recent telemetry")
    )
    action.setStatusTip(action.toolTip())

    def open_dialog() -> None:
        # One dialog at a time: the last one (its report and rendered preview) goes, rather
        # than every dialog ever opened staying alive as a child of the window.
        old = getattr(main_window, "report_dialog", None)
        if old is not None:
            old.close()
            # Not deleteLater(): PySide would keep the Python side (and its document with the
            # rendered charts, ~40 MB) as the window's child. Without a parent it is freed with
            # its last reference, here.
            old.setParent(None)
            main_window.report_dialog = None
        dialog = ReportDialog(
            lambda include: report_from_window(main_window, include_cmdlines=include),
            main_window,
            check=last_check(main_window),
        )
        main_window.report_dialog = dialog
        dialog.open()

    action.triggered.connect(open_dialog)
    main_window.export_report_action = action
    menus = [a.menu() for a in main_window.menuBar().actions() if a.menu() is not None]
    if menus:
        file_menu = menus[0]
        before = getattr(main_window, "save_window_action", None)
        if before is not None and before in file_menu.actions():
            file_menu.insertAction(before, action)
        else:
            file_menu.addAction(action)
    main_window.addAction(action)
    return action
