"""Benchmarks tab: choose a suite and cases, run them in a worker thread with live charts, see
the results table, and compare with an earlier run from the results database.

torch is not imported when the tab is built: the device list is probed (in a thread) the first
time the user opens it, and the runner imports torch in its worker thread. Without torch (the
light build) the tab says how to get benchmarks instead of showing the controls. The panels
(controls, run picker and table, the no-PyTorch page) are in :mod:`.panels`. The telemetry
sampler runs in its own thread, so the other tabs keep plotting while a benchmark runs.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.bench.base import BENCH_NAMES, Result, RunState
from gpuprof.bench.results import Comparison, ResultsDB, RunSummary, compare_runs
from gpuprof.bench.runner import BenchRun, Runner, RunProgress
from gpuprof.i18n import tr_text
from gpuprof.telemetry.source import TelemetrySource
from gpuprof.units import NA, fmt_duration
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QLabel, QProgressBar, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from ..shell.theme import Theme
from ..shell.workers import run_in_thread
from .panels import BenchControls, DeviceCombo, LitePage, RunsPanel, run_title
from .table import TableRow, rows_for_results, rows_for_run
from .worker import BenchWorker, error_text, probe_devices

if TYPE_CHECKING:
    from .charts import BenchCharts

__all__ = ["BenchTab", "DeviceCombo", "torch_available", "REDRAW_DELAY_MS"]

#: Live results are drawn at most this often (ms): a chart redraw per result would be wasted.
REDRAW_DELAY_MS = 150

#: ``(device, suite, only, source)`` -> the Runner, called in the worker thread.
RunnerFactory = Callable[[str | None, str, tuple[str, ...], TelemetrySource | None], Runner]


def torch_available() -> bool:
    """Whether torch can be imported, without importing it."""
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def _default_runner(
    device: str | None, suite: str, only: tuple[str, ...], source: TelemetrySource | None
) -> Runner:
    """Runs in the worker thread. Without a given ``source`` a GPU run opens its own NVML
    source, which the runner owns (it closes it when the run ends)."""
    from gpuprof.bench.runner import Runner, open_run_telemetry

    if source is not None:
        return Runner(device=device, suite=suite, only=only, source=source)
    owned = open_run_telemetry(device)
    try:
        return Runner(device=device, suite=suite, only=only, source=owned, owns_source=True)
    except Exception:
        if owned is not None:
            owned.close()
        raise


class BenchTab(QWidget):
    """The "measure" job in the window.

    ``db`` is the results database (a :class:`ResultsDB`, a path, or None for the default one,
    which is not created until a run is saved); ``runner_factory(device, suite, only, source)``
    builds the :class:`~gpuprof.bench.runner.Runner` in the worker thread (tests inject small
    cases); ``source`` is the telemetry source sampled during a run (``set_source``).
    """

    name = "benchmarks"
    #: Emitted with the :class:`BenchRun` when a run ends (success, interrupted or failure).
    run_finished = Signal(object)

    def __init__(
        self,
        *,
        db: ResultsDB | str | Path | None = None,
        runner_factory: RunnerFactory | None = None,
        source: TelemetrySource | None = None,
        has_torch: Callable[[], bool] | None = None,
        save_runs: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._db: ResultsDB | None = db if isinstance(db, ResultsDB) else None
        self._db_path: Path | None = Path(db) if isinstance(db, (str, Path)) else None
        self._runner_factory = runner_factory or _default_runner
        self._source = source
        self._has_torch = has_torch or torch_available
        self._save_runs = save_runs
        self.worker = BenchWorker(self)
        self.worker.progress.connect(self._on_progress)
        self.worker.result.connect(self._on_result)
        self.worker.finished.connect(self._on_finished)
        self.worker.errored.connect(self._on_error)
        self.running = False
        self.cancelling = False
        self.live_results: list[Result] = []
        self.shown_run: BenchRun | None = None
        self.compared_run: BenchRun | None = None
        self.comparisons: dict[str, Comparison] = {}
        self.devices_probed = False
        self._probing = False
        self._runs_loaded = False
        self._dirty = True
        self._planned: frozenset[str] = frozenset()
        self._run_started_s = 0.0
        self._theme: Theme | None = None
        self.table_rows: list[TableRow] = []

        self.stack = QStackedWidget(self)
        self.main_page = self._build_main_page()
        self.lite_page = LitePage(self)
        self.lite_label = self.lite_page.lite_label
        self.recheck_button = self.lite_page.recheck_button
        self.recheck_button.clicked.connect(self.check_torch)
        self.stack.addWidget(self.main_page)
        self.stack.addWidget(self.lite_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.stack)

        self.redraw_timer = QTimer(self)
        self.redraw_timer.setSingleShot(True)
        self.redraw_timer.setInterval(REDRAW_DELAY_MS)
        self.redraw_timer.timeout.connect(self._on_redraw_timer)

        self.run_shortcut = QShortcut(QKeySequence("Ctrl+B"), self)
        self.run_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.run_shortcut.activated.connect(self.start_run)
        self.cancel_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.cancel_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.cancel_shortcut.activated.connect(self.cancel_run)
        self.check_torch()
        self._sync_controls()

    # -- construction ---------------------------------------------------------------------------
    def _build_main_page(self) -> QWidget:
        page = QWidget(self)
        controls = BenchControls(page)
        self.suite_combo = controls.suite_combo
        self.case_checks = controls.case_checks
        self.device_combo = controls.device_combo
        self.run_button = controls.run_button
        self.cancel_button = controls.cancel_button
        for box in self.case_checks.values():
            box.toggled.connect(self._sync_controls)
        self.device_combo.popup_requested.connect(self.probe_devices)
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel_run)

        self.progress = QProgressBar(page)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.progress.setFormat(self.tr("idle"))
        self.progress.setToolTip(self.tr("The whole run's progress and the current step"))
        self.message = QLabel(page)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()

        # The four plots cost ~0.3 s to build here: made on first show (see ``charts``).
        self._charts: BenchCharts | None = None
        self._charts_slot = QWidget(page)

        side = RunsPanel(page)
        self.runs_panel = side
        self.run_label = side.run_label
        self.shown_combo = side.shown_combo
        self.compare_combo = side.compare_combo
        self.table = side.table
        self.shown_combo.activated.connect(self._on_shown_selected)
        self.compare_combo.activated.connect(self._on_compare_selected)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, page)
        self.splitter.addWidget(self._charts_slot)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([820, 780])

        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(controls)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addWidget(self.splitter, 1)
        return page

    # -- state ----------------------------------------------------------------------------------
    @property
    def lite(self) -> bool:
        return self.stack.currentWidget() is self.lite_page

    def check_torch(self) -> bool:
        """Show the controls when torch can be imported, else the how-to-get-it page."""
        ok = bool(self._has_torch())
        self.stack.setCurrentWidget(self.main_page if ok else self.lite_page)
        return ok

    def set_source(self, source: TelemetrySource | None) -> None:
        """A telemetry source to sample during runs instead of the tab's own NVML source (tests,
        fakes). Not the window's live source: it must not be polled from two threads."""
        self._source = source

    def selected_only(self) -> tuple[str, ...]:
        return tuple(b for b in BENCH_NAMES if self.case_checks[b].isChecked())

    def selected_device(self) -> str | None:
        data = self.device_combo.currentData()
        return None if data is None else str(data)

    def _sync_controls(self) -> None:
        idle = not self.running
        self.run_button.setEnabled(idle and bool(self.selected_only()))
        self.cancel_button.setEnabled(self.running and not self.cancelling)
        for w in (
            self.suite_combo,
            self.device_combo,
            self.shown_combo,
            *self.case_checks.values(),
        ):
            w.setEnabled(idle)
        self.compare_combo.setEnabled(
            idle and self.shown_run is not None and self.compare_combo.count() > 1
        )

    def _show_message(self, text: str, kind: str = "info") -> None:
        if not text:
            self.message.hide()
            return
        th = self._theme
        if kind == "error":
            bg, fg = (th.error_bg, th.error_fg) if th else ("#ffe3e3", "#7a0b0b")
        else:
            bg, fg = (th.warn_bg, th.warn_fg) if th else ("#fff3bf", "#5c3c00")
        self.message.setStyleSheet(
            f"QLabel {{ background: {bg}; color: {fg}; padding: 4px; border-radius: 4px; }}"
        )
        self.message.setText(text)
        self.message.setProperty("kind", kind)
        self.message.show()

    # -- devices --------------------------------------------------------------------------------
    def probe_devices(self) -> None:
        """List the CUDA devices torch sees (in a thread: importing torch takes a second or two)."""
        if self.devices_probed or self._probing:
            return
        self._probing = True
        self.device_combo.add_probing_item()
        run_in_thread(
            probe_devices,
            self._on_devices,
            self._on_devices_error,
            self,
            name="gpuprof-probe-devices",
        )

    def _on_devices(self, found: object) -> None:
        self._probing = False
        self.devices_probed = True
        self.device_combo.set_devices(list(found) if isinstance(found, (list, tuple)) else [])

    def _on_devices_error(self, exc: BaseException) -> None:
        self._probing = False
        self.devices_probed = True
        self.device_combo.set_probe_error(exc)

    # -- running --------------------------------------------------------------------------------
    def start_run(self) -> bool:
        """Start the chosen suite in the worker thread; False when one is running or none chosen."""
        if self.running or self.lite:
            return False
        only = self.selected_only()
        if not only:
            self._show_message(self.tr("Choose at least one benchmark."), "error")
            return False
        suite = str(self.suite_combo.currentData())
        device = self.selected_device()
        source = self._source
        factory = self._runner_factory
        self.running = True
        self.cancelling = False
        self.live_results = []
        self._planned = frozenset(only)
        self.shown_run = None
        self.comparisons = {}
        self._run_started_s = time.monotonic()
        self._show_message("")
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("starting (loading PyTorch)…"))
        self.run_label.setText(
            self.tr("Running %1 on %2…")
            .replace("%1", self.tr(suite))
            .replace("%2", device or self.tr("auto"))
        )
        self._sync_controls()
        self._redraw()
        self.worker.start(
            lambda: factory(device, suite, only, source),
            save=self._save if self._save_runs else None,
        )
        return True

    def cancel_run(self) -> None:
        if not self.running or self.cancelling:
            return
        self.cancelling = True
        self.worker.cancel()
        self.progress.setFormat(self.tr("cancelling…"))
        self._sync_controls()

    def _on_progress(self, p: object) -> None:
        if not isinstance(p, RunProgress) or not self.running:
            return
        self.progress.setValue(round(p.fraction * 1000))
        if not self.cancelling:
            stage = p.stage.replace("%", "%%")
            self.progress.setFormat(f"[{p.case_index + 1}/{p.case_count}] {stage} — %p%")

    def _on_result(self, result: object) -> None:
        if isinstance(result, Result) and self.running:
            self.live_results.append(result)
            self._schedule_redraw()

    def _on_finished(self, run: object) -> None:
        assert isinstance(run, BenchRun)
        self.running = False
        self.cancelling = False
        self.progress.setValue(
            1000 if run.state is not RunState.INTERRUPTED else self.progress.value()
        )
        elapsed = fmt_duration(time.monotonic() - self._run_started_s)
        texts = {
            RunState.SUCCESS: self.tr("done in %1"),
            RunState.PARTIAL: self.tr("some cases failed (%1)"),
            RunState.INTERRUPTED: self.tr("cancelled after %1"),
            RunState.FAILURE: self.tr("no case succeeded (%1)"),
        }
        self.progress.setFormat(texts.get(run.state, "%1").replace("%1", elapsed))
        if run.state in (RunState.FAILURE, RunState.PARTIAL):
            errors = [
                f"{c.name}: {c.error or '; '.join(map(tr_text, c.notes))}"
                for c in run.cases
                if c.state is RunState.FAILURE
            ]
            self._show_message(
                self.tr("The run failed: %1").replace("%1", "; ".join(errors[:3])), "error"
            )
        self._runs_loaded = False
        self._show_run(run)
        if not self.devices_probed and "torch" in sys.modules:
            self.probe_devices()  # torch is loaded now: listing devices is cheap
        self._sync_controls()
        self.run_finished.emit(run)

    def _on_error(self, exc: BaseException) -> None:
        text = error_text(exc)
        if self.running:  # the runner itself failed (no CUDA device, torch missing...)
            self.running = False
            self.cancelling = False
            self.progress.setFormat(self.tr("failed"))
            self._show_message(
                self.tr("Could not run the benchmarks: %1").replace("%1", text), "error"
            )
            self._sync_controls()
            self._redraw()
        else:
            self._show_message(self.tr("Could not save the run: %1").replace("%1", text), "error")

    def wait(self, timeout_s: float = 30.0) -> bool:
        """Wait for the worker thread (tests, shutdown)."""
        return self.worker.wait(timeout_s)

    def shutdown(self, timeout_s: float = 3.0) -> bool:
        """Cancel a run and wait for it to stop (the window's close); True when it stopped."""
        if self.running:
            self.worker.cancel()
        return self.worker.wait(timeout_s)

    # -- results database ------------------------------------------------------------------------
    def _database(self, create: bool) -> ResultsDB | None:
        if self._db is not None:
            return self._db
        path = self._db_path
        if path is None:
            from gpuprof.paths import results_db_path

            path = results_db_path()
        if not create and not path.exists():
            return None
        self._db = ResultsDB(path)
        return self._db

    def _save(self, run: BenchRun) -> None:  # worker thread
        db = self._database(create=True)
        assert db is not None
        db.save(run)

    def load_runs(self) -> list[RunSummary]:
        """Fill the run pickers from the results database (newest first)."""
        db = self._database(create=False)
        runs = db.list_runs(limit=100) if db is not None else []
        self._runs_loaded = True
        shown_id = self.shown_run.run_id if self.shown_run is not None else None
        compared_id = self.compared_run.run_id if self.compared_run is not None else None
        self.shown_combo.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem(self.tr("(none)"), None)
        for r in runs:
            label = run_title(r)
            self.shown_combo.addItem(label, r.run_id)
            if r.run_id != shown_id:
                self.compare_combo.addItem(label, r.run_id)
        if shown_id is not None and self.shown_combo.findData(shown_id) < 0:
            self.shown_combo.insertItem(0, shown_id + " " + self.tr("(not saved)"), shown_id)
        if shown_id is not None:
            self.shown_combo.setCurrentIndex(self.shown_combo.findData(shown_id))
        elif runs and not self.running:
            self._load_shown(runs[0].run_id)
        i = self.compare_combo.findData(compared_id) if compared_id else 0
        self.compare_combo.setCurrentIndex(max(i, 0))
        self._sync_controls()
        return runs

    def _load_shown(self, run_id: str) -> None:
        db = self._database(create=False)
        if db is None:
            return
        try:
            run = db.load(run_id)
        except Exception as exc:
            self._show_message(
                self.tr("Could not load run %1: %2").replace("%1", run_id).replace("%2", str(exc)),
                "error",
            )
            return
        self._show_run(run)
        i = self.shown_combo.findData(run.run_id)
        if i >= 0:
            self.shown_combo.setCurrentIndex(i)

    def _on_shown_selected(self, index: int) -> None:
        run_id = self.shown_combo.itemData(index)
        if run_id and (self.shown_run is None or run_id != self.shown_run.run_id):
            self._load_shown(str(run_id))

    def _on_compare_selected(self, index: int) -> None:
        run_id = self.compare_combo.itemData(index)
        self.compare_with(str(run_id) if run_id else None)

    def compare_with(self, run_id: str | None) -> None:
        """Show the ratio of the run shown to ``run_id`` per measurement (None: no comparison)."""
        self.compared_run = None
        self.comparisons = {}
        db = self._database(create=False)
        if run_id and db is not None and self.shown_run is not None:
            try:
                earlier = db.load(run_id)
            except Exception as exc:
                self._show_message(
                    self.tr("Could not load run %1: %2")
                    .replace("%1", run_id)
                    .replace("%2", str(exc)),
                    "error",
                )
            else:
                self.compared_run = earlier
                self.comparisons = {c.key: c for c in compare_runs(earlier, self.shown_run)}
                i = self.compare_combo.findData(run_id)
                if i >= 0 and self.compare_combo.currentIndex() != i:
                    self.compare_combo.setCurrentIndex(i)
        header = self.table.horizontalHeaderItem(4)
        if header is not None:
            header.setToolTip(
                self.tr("This run ÷ run %1 (%2)")
                .replace("%1", self.compared_run.run_id)
                .replace("%2", self.compared_run.suite)
                if self.compared_run
                else self.tr("This run ÷ the run chosen under Compare with")
            )
        self._fill_table()

    # -- drawing --------------------------------------------------------------------------------
    def _show_run(self, run: BenchRun) -> None:
        self.shown_run = run
        self.compared_run = None
        self.comparisons = {}
        env = run.environment
        what = env.gpu_name or env.cpu_model or run.device
        parts = [
            run.run_id,
            self.tr(run.suite),
            f"{run.device} ({what})",
            self.tr(run.state.value),
            fmt_duration(run.ended_s - run.started_s),
        ]
        if env.torch_version:
            parts.append(f"torch {env.torch_version}")
        if env.cuda_runtime_version:
            parts.append(f"CUDA {env.cuda_runtime_version}")
        if env.driver_version:
            parts.append(self.tr("driver %1").replace("%1", env.driver_version))
        self.run_label.setText(
            " · ".join(parts) + ("\n" + "; ".join(run.notes) if run.notes else "")
        )
        if not self._runs_loaded:
            self.load_runs()
        self.compare_with(None)
        self._redraw()

    @property
    def charts(self) -> BenchCharts:
        """The live charts, built the first time they are needed (not at start-up)."""
        if self._charts is None:
            from .charts import BenchCharts

            charts = BenchCharts()
            if self._theme is not None:
                charts.apply_theme(self._theme)
            sizes = self.splitter.sizes()
            if len(sizes) < 2 or min(sizes) <= 0:
                # Never laid out (a hidden tab) or collapsed: share the width as at start.
                sizes = [820, 780]
            self.splitter.replaceWidget(0, charts)
            self._charts_slot.deleteLater()
            self.splitter.setSizes(sizes)
            self._charts = charts
        return self._charts

    def _schedule_redraw(self) -> None:
        self._dirty = True
        if not self.redraw_timer.isActive():
            self.redraw_timer.start()

    def _on_redraw_timer(self) -> None:
        if self.isVisible():
            self._redraw()

    def refresh(self, force: bool = False) -> None:
        """Called by the main window while the tab is visible."""
        if not self._runs_loaded and not self.running and not self.lite:
            self.load_runs()
        if force or self._dirty:
            self._redraw()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self.lite:
            _ = self.charts  # empty charts with their axes until the first run
        self.refresh()

    def _redraw(self) -> None:
        self._dirty = False
        if self.running or self.shown_run is None:
            results: Sequence[Result] = self.live_results
            waiting = self._planned if self.running else frozenset()
        else:
            results = self.shown_run.results
            waiting = frozenset()
        self.charts.set_results(results, None, waiting)
        self._fill_table()

    def _fill_table(self) -> None:
        if self.running or self.shown_run is None:
            rows = rows_for_results(self.live_results)
        else:
            rows = rows_for_run(self.shown_run)
        self.table_rows = rows
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            self._set_row(i, row)

    def ratio_text(self, key: str | None) -> str:
        comp = self.comparisons.get(key) if key else None
        if comp is None:
            return ""
        ratio = comp.ratio
        return NA if ratio is None else f"{ratio:.2f}×"

    def _set_row(self, i: int, row: TableRow) -> None:
        comp = self.comparisons.get(row.key) if row.key else None
        self.runs_panel.set_row(i, row, self.ratio_text(row.key), comp.ratio if comp else None)

    def apply_theme(self, theme: Theme) -> None:
        self._theme = theme
        if self._charts is not None:
            self._charts.apply_theme(theme)
        if self.message.isVisible():
            self._show_message(self.message.text(), str(self.message.property("kind") or "info"))
