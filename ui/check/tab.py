"""The Check tab: the acceptance check (``gpuprof check``) from the app.

Level, expectation (a catalog instance type or a short spec like ``8xH100-SXM``, checked with the
core's parser before anything runs), device, Run/Cancel, a progress bar, the scorecard filling in
item by item, the verdict banner, and Export (the HTML of ``gpuprof check --html``, or JSON, or
the window's Export report… whose HTML/PDF opens with the check). Closing the window cancels a
running check (:class:`CheckFeature`, the tab's feature of the window).
The check runs in a :class:`~ui.check.worker.CheckWorker` thread; Cancel stops it between steps
and what was done is still graded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from gpuprof.i18n import tr_text
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import LazyTabFeature, WindowContext, remaining_s
from ..shell.i18n import translate as _t
from ..shell.widgets import button
from .scorecard import STATUS_COLOURS, Scorecard
from .worker import CheckMaker, CheckWorker, error_text, make_check

if TYPE_CHECKING:
    from gpuprof.check.model import CheckItem, CheckResult
    from gpuprof.check.run import CheckProgress


__all__ = ["CheckTab", "CheckFeature", "expectation_choices"]


def expectation_choices() -> list[str]:
    """Catalog instance types with whole GPUs of a known model (sorted, no duplicates)."""
    try:
        from gpuprof.catalog.instances import load_catalog

        instances = load_catalog().instances
    except (GpuprofError, OSError):
        return []
    names = {
        i.instance
        for i in instances
        if i.gpu_known and i.gpu_count >= 1 and float(i.gpu_count).is_integer()
    }
    return sorted(names)


class CheckTab(QWidget):
    """Run an acceptance check and show its scorecard."""

    check_finished = Signal(object)  # CheckResult

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        make: CheckMaker = make_check,
        open_report: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("checkTab")
        self._make = make
        self._open_report = open_report
        self.result: CheckResult | None = None
        self.worker = CheckWorker(self)
        self.worker.progress.connect(self._on_progress)
        self.worker.item.connect(self._on_item)
        self.worker.finished.connect(self._on_finished)
        self.worker.errored.connect(self._on_error)

        self.level = QComboBox()
        for level, label in (
            ("quick", _t("Quick")),
            ("standard", _t("Standard")),
            ("burn-in", _t("Burn-in")),
        ):
            self.level.addItem(label, level)
        self.level.setToolTip(_t("How much to run: quick, standard, or with a sustained load"))
        self.minutes = QDoubleSpinBox()
        self.minutes.setRange(0.1, 1440.0)
        self.minutes.setValue(10.0)
        self.minutes.setSuffix(_t(" min"))
        self.minutes.setToolTip(_t("Burn-in length in minutes"))
        self.level.currentIndexChanged.connect(self._sync_minutes)
        self.expect = QComboBox()
        self.expect.setEditable(True)
        self.expect.setMinimumContentsLength(18)
        self.expect.addItem("")
        self.expect.addItems(expectation_choices())
        self.expect.setToolTip(
            _t(
                "What the machine should be: a catalog instance type or a spec like 8xH100-SXM "
                "(empty: each GPU's own spec row)"
            )
        )
        line = self.expect.lineEdit()
        if line is not None:
            line.setPlaceholderText(_t("e.g. 8xH100-SXM"))
        self.device = QComboBox()
        self.device.setEditable(True)
        self.device.addItems(["all", "cpu"])
        self.device.setToolTip(_t("cuda:N, all or cpu"))
        self.run_button = QPushButton(_t("&Run check"))
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton(_t("&Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.export_html_button = QPushButton(_t("Export &HTML…"))
        self.export_html_button.clicked.connect(lambda: self._ask_export("html"))
        self.export_json_button = QPushButton(_t("Export &JSON…"))
        self.export_json_button.clicked.connect(lambda: self._ask_export("json"))
        self.export_report_button = button(
            _t("Export re&port…"),
            _t("The machine report (HTML or PDF) with this check as its first page (Ctrl+E)"),
            self.open_report,
            None,
        )
        for b in (self.export_html_button, self.export_json_button, self.export_report_button):
            b.setEnabled(False)

        controls = QHBoxLayout()
        pairs: tuple[tuple[str | None, QWidget], ...] = (
            (_t("Level:"), self.level),
            (None, self.minutes),
            (_t("Expect:"), self.expect),
            (_t("Device:"), self.device),
        )
        for caption, widget in pairs:
            if caption:
                controls.addWidget(QLabel(caption))
            controls.addWidget(widget)
        controls.addStretch(1)
        for b in (
            self.run_button,
            self.cancel_button,
            self.export_html_button,
            self.export_json_button,
            self.export_report_button,
        ):
            controls.addWidget(b)

        self.message = QLabel()
        self.message.setObjectName("checkMessage")
        self.message.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.stage = QLabel()
        self.verdict = QLabel()
        self.verdict.setObjectName("checkVerdict")
        self.verdict.setVisible(False)
        self.scorecard = Scorecard()
        self._show_message(
            _t(
                "Run check measures this machine's own GPUs (never the SIMULATED source) against "
                "their model's cited reference values: inventory, health, performance and a "
                "memory test, item by item. Quick takes up to 3 minutes on an 8-GPU node, "
                "Standard up to 10; Burn-in adds the minutes set."
            )
        )

        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.message)
        bar = QHBoxLayout()
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.stage, 2)
        layout.addLayout(bar)
        layout.addWidget(self.verdict)
        layout.addWidget(self.scorecard, 1)
        self._sync_minutes()

    # -- running -----------------------------------------------------------------------------

    def _sync_minutes(self) -> None:
        self.minutes.setEnabled(self.level.currentData() == "burn-in")

    def _show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(f"color: {STATUS_COLOURS['FAIL']};" if error else "")
        self.message.setText(text)

    def start(self) -> bool:
        """Check the inputs and start; False (and a message) when they are refused."""
        from gpuprof.check.inventory import parse_expect
        from gpuprof.check.run import parse_device

        if self.worker.running:
            return False
        text = self.expect.currentText().strip()
        try:
            expect = parse_expect(text or None)
            device = parse_device(self.device.currentText())
        except GpuprofError as exc:
            self._show_message(str(exc), error=True)
            return False
        level = str(self.level.currentData())
        minutes = float(self.minutes.value())
        make = self._make
        self.result = None
        self.scorecard.clear_items()
        self.verdict.setVisible(False)
        self.progress.setValue(0)
        self.stage.setText(_t("starting…"))
        self._show_message("")
        self._set_running(True)
        self.worker.start(lambda: make(level=level, device=device, expect=expect, minutes=minutes))
        return True

    def cancel(self) -> None:
        if self.worker.running:
            self.worker.cancel()
            self.stage.setText(_t("cancelling…"))
            self.cancel_button.setEnabled(False)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        for w in (self.level, self.expect, self.device):
            w.setEnabled(not running)
        self.minutes.setEnabled(not running and self.level.currentData() == "burn-in")
        done = not running and self.result is not None
        self.export_html_button.setEnabled(done)
        self.export_json_button.setEnabled(done)
        self.export_report_button.setEnabled(done)

    def _on_progress(self, progress: CheckProgress) -> None:
        self.progress.setValue(round(1000 * max(0.0, min(1.0, progress.fraction))))
        if not (self.worker.cancel_token and self.worker.cancel_token.cancelled):
            self.stage.setText(tr_text(progress.stage))

    def _on_item(self, item: CheckItem) -> None:
        self.scorecard.add_item(item)

    def _on_finished(self, result: CheckResult) -> None:
        self.result = result
        # The result is the record: its items in the scorecard's order (the health window
        # after the measurements is graded last but reported second), as exported.
        self.scorecard.clear_items()
        for item in result.items:
            self.scorecard.add_item(item)
        self.progress.setValue(1000)
        self.stage.setText(_t("cancelled: the items not run are SKIP") if result.cancelled else "")
        v = result.verdict.value
        text = (
            _t("Verdict: %1 (exit code %2)").replace("%1", v).replace("%2", str(result.exit_code))
        )
        if result.cancelled:
            text += " — " + _t("cancelled")
        self.verdict.setText(text)
        self.verdict.setStyleSheet(
            f"font-size: 18pt; font-weight: bold; color: {STATUS_COLOURS[v]}; padding: 4px;"
        )
        self.verdict.setVisible(True)
        self._set_running(False)
        self.check_finished.emit(result)

    def _on_error(self, exc: BaseException) -> None:
        message = error_text(exc)
        self._show_message(_t("The check failed: %1").replace("%1", message), error=True)
        self.stage.setText("")
        self._set_running(False)

    # -- export ------------------------------------------------------------------------------

    def _ask_export(self, kind: str) -> None:
        if self.result is None:
            return
        filt = _t("HTML pages (*.html)") if kind == "html" else _t("JSON files (*.json)")
        path, _ = QFileDialog.getSaveFileName(
            self, _t("Export the check"), f"gpuprof-check.{kind}", filt
        )
        if path:
            self.export(path, kind)

    def export(self, path: str | Path, kind: str) -> bool:
        """Write the result as ``gpuprof check --html`` / ``--json`` would; False (and a
        message) when it cannot be written."""
        if self.result is None:
            return False
        from gpuprof.check.model import result_to_dict
        from gpuprof.fileio import write_atomic
        from gpuprof.jsonout import write_json
        from gpuprof.redact import redact_tree
        from gpuprof.report.html import check_page_html

        data = redact_tree(result_to_dict(self.result))
        try:
            if kind == "html":
                write_atomic(path, check_page_html(self.result, data))
            else:
                write_json(path, data)
        except GpuprofError as exc:
            self._show_message(str(exc), error=True)
            return False
        self._show_message(_t("Saved %1").replace("%1", str(path)))
        return True

    def open_report(self) -> bool:
        """File → Export report… of the window, which opens with this check; False outside one."""
        if self._open_report is None:
            return False
        self._open_report()
        return True

    def shutdown(self, timeout_s: float = 2.0) -> bool:
        """Cancel a running check and wait a bounded time for it (closing the window, tests);
        True when it stopped. A check still stuck (in a driver call) reports nothing more."""
        if not self.worker.running:
            return True
        self.worker.cancel()
        stopped = self.worker.wait(timeout_s)
        if not stopped:
            self.worker.detach()
        return stopped


class CheckFeature(LazyTabFeature["CheckTab"]):
    """The lazy Check tab (built when first shown, ``--tab check``); a check still running when
    the window closes is cancelled and waited for (2 s at most, then detached)."""

    name = "check"

    def __init__(self, context: WindowContext) -> None:
        super().__init__(
            context,
            _t("Check"),
            _t(
                "Acceptance check: is this machine what was paid for? A PASS/WARN/FAIL scorecard "
                "(Alt+8)"
            ),
        )

    def _make(self) -> CheckTab:
        tab = CheckTab(open_report=self._open_report)
        tab.check_finished.connect(self._context.checked_here.emit)
        return tab

    def _open_report(self) -> None:
        # The report feature's action: it opens with the last check (the window's checked_here).
        self._context.action("file.export_report").trigger()

    def shutdown(self, deadline: float) -> None:
        if self.tab is not None:
            self.tab.shutdown(remaining_s(deadline, 2.0))
