"""Recommend tab: a workload form with presets, the ranked cloud configurations, a time-vs-cost
scatter with the Pareto front, the reasoning and formulas of the selected row, and this machine.

The form lives in :mod:`.form`, the results' widgets in :mod:`.results`, the
reasoning HTML in :mod:`.details`; this module wires them to the ranking.

Ranking the packaged catalog takes ≈ 40 ms here (perf/recommend.py: ≤ 50 ms for 10,000 rows),
so it runs in the GUI thread, on a short debounce timer after each edit, not in a worker. A
request trace's simulation can take minutes: it runs in a :class:`~.trace_worker.TraceWorker`
(progress bar, Cancel), and its result is shown only if the ranking and the trace it simulated
are still the tab's (an edit cancels it; a stale result is dropped).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from gpuprof.catalog.instances import Catalog
from gpuprof.catalog.money import rates_note
from gpuprof.errors import GpuprofError
from gpuprof.recommend.rank import LocalMachine, Recommendation, RecommendationRow, recommend
from gpuprof.recommend.trace import Trace, TraceResult
from gpuprof.recommend.verdict import verdict_lines
from gpuprof.recommend.workload import Workload
from gpuprof.units import set_money_currency
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from ..shell.settings import SettingsReader
from ..shell.theme import Theme
from . import details as recommend_details
from .billing import BillingControl
from .form import WorkloadForm
from .model import JOB_ONLY, ROW_ROLE, SERVING_ONLY, column
from .price_update import PriceUpdate, PriceUpdateBar
from .results import ResultsPanel
from .trace_run import TraceRun
from .trace_worker import TraceWorker

__all__ = ["RecommendTab", "DEBOUNCE_MS", "ROW_LIMIT"]

#: Delay between the last edit and the new ranking, ms.
DEBOUNCE_MS = 150
#: Rows the table holds. Building a row (its reasons and warnings) is the costly part of a
#: ranking: 10,000 rows take ≈ 400 ms, 300 rows ≈ 13 ms; the scatter still shows every point.
ROW_LIMIT = 300
_GROUP = "recommend"


def _default_loader() -> Catalog:
    from gpuprof.catalog.instances import load_catalog

    return load_catalog()


class RecommendTab(QWidget):
    """The "decide" job in the window.

    ``local`` is this machine (``set_local`` replaces it, e.g. with the NVML device names),
    ``local_measurements`` maps a GPU to achieved TFLOPS per dtype from the benchmarks here,
    ``local_util_pct`` is the GPU utilization seen here. ``catalog_loader()`` returns the
    catalog (injectable for tests); ``settings`` keeps the form under ``recommend/``;
    ``price_update`` replaces ``gpuprof catalog update`` behind "Update prices…" (tests).
    """

    name = "recommend"
    #: The window's banner (no GPU here, a GPU lost, ...) is about its own source; this tab is
    #: about cloud machines: the banner is hidden here.
    shows_source_state = False
    #: Emitted after each ranking with the :class:`Recommendation` (or ``None`` on bad input).
    recommendation_changed = Signal(object)
    #: Emitted when a trace simulation's results are shown (the list of (row, TraceResult)).
    trace_simulated = Signal(object)

    def __init__(
        self,
        local: LocalMachine | None = None,
        local_measurements: Mapping[str, Mapping[str, float]] | None = None,
        local_util_pct: float | None = None,
        *,
        catalog_loader: Callable[[], Catalog] | None = None,
        settings: QSettings | None = None,
        price_update: PriceUpdate | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._loader = catalog_loader or _default_loader
        self._catalog: Catalog | None = None
        self._filtered: dict[tuple[str, str, bool], Catalog] = {}
        self._in_currency: dict[str, Catalog] = {}  # the catalog in each display currency
        self._settings = settings
        self._local = local
        self._measurements = dict(local_measurements or {})
        self._util_pct = local_util_pct
        self._sized = False
        self.recommendation: Recommendation | None = None
        self.error: str | None = None
        #: Values of the saved form that were bad, dropped with a warning (one line each).
        self.settings_problems: list[str] = []
        self.run_count = 0

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._on_timer)
        self._dirty = True

        self.form = WorkloadForm()
        self._alias_form(self.form)
        results = ResultsPanel()
        self._alias_results(results)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.form)
        splitter.addWidget(results)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 1270])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.prices = PriceUpdateBar(price_update)
        self.prices.updated.connect(self._on_prices_updated)
        layout.addWidget(self.prices)
        layout.addWidget(splitter, 1)  # the form and the results take every spare pixel

        self._restore()
        self._sync_local_controls()
        self.schedule()

    def _alias_form(self, form: WorkloadForm) -> None:
        # The form's fields as the tab's own attributes (tests, screenshots and the window use
        # ``tab.params``, ``tab.preset``, ...).
        self.preset = form.preset
        self.preset_note = form.preset_note
        self.scenario = form.scenario
        self.precision = form.precision
        self.params = form.params
        self.tokens = form.tokens
        self.samples = form.samples
        self.epochs = form.epochs
        self.seq_len = form.seq_len
        self.batch = form.batch
        self.throughput = form.throughput
        self.flops_per_sample = form.flops_per_sample
        self.flops_total = form.flops_total
        self.working_set = form.working_set
        self.deadline = form.deadline
        self.budget = form.budget
        self.node_limit = form.node_limit
        self.spot = form.spot
        self.objective = form.objective
        self.form_error = form.form_error
        form.changed.connect(self.schedule)

    def _alias_results(self, panel: ResultsPanel) -> None:
        self.provider_filter = panel.provider_filter
        self.region_filter = panel.region_filter
        self.spot_filter = panel.spot_filter
        self.currency = panel.currency
        self._currency_tip = panel.currency.toolTip()
        self.billing = panel.billing  # the price basis, one setting with the form's spot box
        self._billing = BillingControl(panel.billing, self.spot, panel.model, panel.scatter)
        self._billing.changed.connect(self._on_form_changed)
        self.fits_only = panel.fits_only
        self.compare = panel.compare
        self.local_label = panel.local_label
        self.summary = panel.summary
        self.notes = panel.notes
        self.trace_view = panel.trace_view
        self.trace_busy = panel.trace_busy
        self.trace_progress = panel.trace_progress
        self.trace_cancel = panel.trace_cancel
        self.traces = TraceRun(
            busy=panel.trace_busy,
            progress=panel.trace_progress,
            cancel=panel.trace_cancel,
            view=panel.trace_view,
            is_current=self._trace_is_current,
            parent=self,
        )
        self.traces.simulated.connect(self.trace_simulated)
        self.model = panel.model
        self.proxy = panel.proxy
        self.table = panel.table
        self.scatter = panel.scatter
        self.details = panel.details
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.scatter.point_clicked.connect(self.select_source_row)
        self.provider_filter.currentIndexChanged.connect(self._on_provider)
        self.region_filter.currentIndexChanged.connect(self._on_form_changed)
        self.spot_filter.toggled.connect(self._on_form_changed)
        self.currency.currentIndexChanged.connect(self._on_currency)
        self.fits_only.toggled.connect(self._on_fits_only)
        self.compare.toggled.connect(self._on_compare)

    # ------------------------------------------------------------------------------------------
    # form
    def fill_form(self, w: Workload) -> None:
        """Show ``w`` in the form (no ranking is triggered per field)."""
        self.form.fill_form(w)

    def workload(self) -> Workload:
        """The form as a :class:`Workload`; raises ``ValueError`` or ``GpuprofError`` if invalid."""
        return self._billing.apply(self.form.workload())

    def select_preset(self, key: str) -> None:
        """Choose a preset by key (``Workload.presets()``) or ``"custom"``."""
        self.form.select_preset(key)

    def _on_form_changed(self, *_: object) -> None:
        if self.form.filling:
            return
        self.schedule()

    # ------------------------------------------------------------------------------------------
    # catalog and filters
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = self._loader()
            self._fill_providers()
        return self._catalog

    def _on_prices_updated(self) -> None:
        """New overlays are stored: read the catalog again and rank with the new prices."""
        self._catalog = None
        self._filtered.clear()
        self._in_currency.clear()
        self.catalog()
        self.schedule()

    def _fill_providers(self) -> None:
        assert self._catalog is not None
        current = self.provider_filter.currentData() or ""
        self.provider_filter.blockSignals(True)
        self.provider_filter.clear()
        self.provider_filter.addItem(self.tr("All providers"), "")
        for p in self._catalog.providers:
            self.provider_filter.addItem(p, p)
        self.provider_filter.setCurrentIndex(max(0, self.provider_filter.findData(current)))
        self.provider_filter.blockSignals(False)
        self._fill_regions()

    def _fill_regions(self) -> None:
        if self._catalog is None:
            return
        provider = str(self.provider_filter.currentData() or "")
        current = str(self.region_filter.currentData() or "")
        regions = sorted(
            {
                i.region
                for i in self._catalog.instances
                if i.region and (not provider or i.provider == provider)
            }
        )
        self.region_filter.blockSignals(True)
        self.region_filter.clear()
        self.region_filter.addItem(self.tr("All regions"), "")
        for r in regions:
            self.region_filter.addItem(r, r)
        self.region_filter.setCurrentIndex(max(0, self.region_filter.findData(current)))
        self.region_filter.blockSignals(False)

    def _on_provider(self, *_: object) -> None:
        self._fill_regions()
        self._on_form_changed()

    def set_filters(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        spot_only: bool | None = None,
    ) -> None:
        """Set the provider/region filters ("" = all) and rank again at once."""
        self.catalog()
        if provider is not None:
            self.provider_filter.setCurrentIndex(max(0, self.provider_filter.findData(provider)))
        if region is not None:
            self.region_filter.setCurrentIndex(max(0, self.region_filter.findData(region)))
        if spot_only is not None:
            self.spot_filter.setChecked(spot_only)
        self.run_now()

    def _on_currency(self) -> None:
        code = str(self.currency.currentData() or "USD")
        set_money_currency(code)  # every amount the window shows comes from this catalog
        self._filtered.clear()
        self.model.headerDataChanged.emit(
            Qt.Orientation.Horizontal, 0, self.model.columnCount() - 1
        )
        self._on_form_changed()

    def _priced_catalog(self) -> Catalog:
        """The catalog in the chosen currency (gpuprof catalog fx's dated rates); a missing or
        unreadable rate is said under the form and leaves those rows unpriced."""
        cat = self.catalog()
        code = str(self.currency.currentData() or "USD")
        if code == cat.currency:
            self.currency.setToolTip(self._currency_tip)
            return cat
        from gpuprof.catalog import money

        problem = ""
        try:
            rates = money.load_rates()
        except GpuprofError as exc:
            rates, problem = {}, str(exc)
        priced = cat.in_currency(code, rates)
        used = [r.describe() for r in priced.rates.values()]
        missing = [i.reason for i in priced.issues if "no exchange rate" in i.reason]
        self.currency.setToolTip("\n".join([self._currency_tip, *used, *missing, problem]).strip())
        return priced

    def _filtered_catalog(self) -> Catalog:
        # Filtering the catalog (not only the view) keeps ranks, the Pareto front and the scatter
        # consistent with what the table shows.
        code = str(self.currency.currentData() or "USD")
        cat = self._in_currency.get(code)
        if cat is None:
            cat = self._in_currency[code] = self._priced_catalog()
        note = rates_note(cat)
        if (self.model.currency, self.model.rate_note) != (cat.currency, note):
            self.model.set_currency(cat.currency, note)
            self.scatter.set_currency(cat.currency, note)
            self.form.set_currency(cat.currency)
        key = (
            str(self.provider_filter.currentData() or ""),
            str(self.region_filter.currentData() or ""),
            self.spot_filter.isChecked(),
        )
        if key == ("", "", False):
            return cat
        hit = self._filtered.get(key)
        if hit is None:
            provider, region, spot_only = key
            hit = cat.filter(
                providers=[provider] if provider else None, regions=[region] if region else None
            )
            if spot_only:
                hit = dataclasses.replace(
                    hit, instances=tuple(i for i in hit.instances if i.price_spot_usd_hr)
                )
            self._filtered[key] = hit
        return hit

    def _on_fits_only(self, on: bool) -> None:
        self.proxy.set_fits_only(on)
        self._save()

    # ------------------------------------------------------------------------------------------
    # this machine
    def set_local(
        self,
        local: LocalMachine | Sequence[str] | None,
        *,
        measurements: Mapping[str, Mapping[str, float]] | None = None,
        util_pct: float | None = None,
    ) -> None:
        """This machine's GPUs: a LocalMachine or NVML device names (``DeviceInfo.name``)."""
        if local is not None and not isinstance(local, LocalMachine):
            names = [n for n in local if n]
            local = LocalMachine.from_names(names) if names else None
        self._local = local
        if measurements is not None:
            self._measurements = dict(measurements)
        if util_pct is not None:
            self._util_pct = util_pct
        self._sync_local_controls()
        self.schedule()

    @property
    def local(self) -> LocalMachine | None:
        return self._local

    def _sync_local_controls(self) -> None:
        has = self._local is not None and bool(self._local.gpus)
        self.compare.setEnabled(has)
        if has:
            assert self._local is not None
            gpus = ", ".join(f"{n}× {name}" for name, n in self._local.gpus)
            self.local_label.setText(gpus)
            self.compare.setToolTip(
                self.tr(
                    "Add this machine (%1) as a row and show how many "
                    "times faster each configuration is"
                ).replace("%1", gpus)
            )
        else:
            self.local_label.setText(self.tr("no local GPU"))
            self.compare.setToolTip(
                self.tr(
                    "No NVIDIA GPU was found on this machine, so there is nothing to compare with"
                )
            )
        self.local_label.setToolTip(self.compare.toolTip())

    def _on_compare(self, on: bool) -> None:
        self._show_results(keep_selection=True)
        self._save()

    def comparing(self) -> bool:
        return self.compare.isChecked() and self.compare.isEnabled()

    # ------------------------------------------------------------------------------------------
    # ranking
    def schedule(self) -> None:
        """Rank again after :data:`DEBOUNCE_MS` without further edits (an edit stops a trace
        simulation of the old inputs at once)."""
        self.traces.stop()
        self._timer.start()

    def _on_timer(self) -> None:
        # A hidden tab only notes that it is out of date: start-up never pays for a ranking.
        if self.isVisible():
            self.run_now()
        else:
            self._dirty = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.schedule()

    def run_now(self) -> Recommendation | None:
        """Rank now (cancels a pending run); returns the recommendation or ``None`` on bad input."""
        self._timer.stop()
        self._dirty = False
        self.run_count += 1
        self._save()
        self.traces.clear()
        trace = self.form.trace
        try:
            if trace.error is not None:  # a bad trace file: no estimate, as --trace refuses it
                raise ValueError(trace.error)
            w = self.workload()
            rec = recommend(
                w,
                self._filtered_catalog(),
                objective=str(self.objective.currentData()),
                local=self._local,
                local_measurements=self._measurements,
                local_util_pct=self._util_pct,
                limit=ROW_LIMIT,
            )
        except (ValueError, GpuprofError) as exc:
            self.error = str(exc)
            self.recommendation = None
            self.form_error.setText(self.tr("Cannot estimate: %1").replace("%1", self.error))
            self.form_error.show()
            self._show_results(keep_selection=False)
            self.recommendation_changed.emit(None)
            return None
        self.error = None
        self.form_error.hide()
        self.recommendation = rec
        self._show_results(keep_selection=True)
        self.recommendation_changed.emit(rec)
        if trace.trace is not None and rec.workload.is_serving:  # same core function as --trace
            self.traces.start(rec, trace.trace)
        return rec

    # ------------------------------------------------------------------------------------------
    # the request trace, simulated in a worker (trace_run.py)
    @property
    def trace_worker(self) -> TraceWorker | None:
        """The worker simulating the trace now (None: none running)."""
        return self.traces.worker

    @property
    def trace_results(self) -> list[tuple[RecommendationRow, TraceResult]]:
        """The request trace simulated on the top rows at the last run (issue 22), if any."""
        return self.traces.results

    @property
    def stale_traces(self) -> int:
        """Results that came back for inputs no longer shown, dropped (tests)."""
        return self.traces.stale

    def cancel_trace(self) -> None:
        self.traces.cancel()

    def _trace_is_current(self, rec: Recommendation, trace: Trace) -> bool:
        return rec is self.recommendation and trace is self.form.trace.trace

    def _show_results(self, *, keep_selection: bool) -> None:
        rec = self.recommendation
        previous = self.selected_row() if keep_selection else None
        comparing = self.comparing()
        self.table.setColumnHidden(column("speedup"), not comparing)
        if rec is None:
            self.model.set_rows([], None)
            self.scatter.set_rows([])
            self.summary.setText(self.tr("No estimate: fix the workload on the left."))
            self.notes.hide()
            self.details.setPlainText(self.error or "")
            return
        local_row = rec.local if comparing else None
        serving = rec.workload.is_serving
        for key in JOB_ONLY:
            self.table.setColumnHidden(column(key), serving)
        for key in SERVING_ONLY:
            self.table.setColumnHidden(column(key), not serving)
        if serving:
            self.table.setColumnHidden(column("speedup"), True)
        self.model.set_rows(rec.rows, local_row)
        # Reserved prices are rare in public catalogs: show their columns only when there are any.
        self.table.setColumnHidden(
            column("reserved1"),
            serving or all(r.cost_reserved_1y_usd is None for r in rec.rows),
        )
        self.table.setColumnHidden(
            column("reserved3"),
            serving or all(r.cost_reserved_3y_usd is None for r in rec.rows),
        )
        hide = all(r.cost_monthly_usd is None for r in rec.rows)  # 包月: few rows have one
        self.table.setColumnHidden(column("monthly"), hide)
        local_hours = local_row.hours if local_row is not None else None
        self.scatter.set_rows(rec.rows, local_hours, rec.scatter, axes=rec.scatter_axes)
        if not self._sized and rec.rows:
            self.table.resizeColumnsToContents()
            # Long instance and GPU names are elided (full text on hover), not given the table.
            for key, most in (("instance", 170), ("gpus", 150), ("region", 110)):
                self.table.setColumnWidth(
                    column(key), min(self.table.columnWidth(column(key)), most)
                )
            self._sized = True
        self.summary.setText(recommend_details.summary_text(rec))
        # What the table cannot say (nothing meets the deadline, the node count that would, the
        # top rows overlapping), as the CLI prints it above its table, then the warnings.
        notes = [*verdict_lines(rec), *rec.warnings]
        if notes:
            self.notes.setText("\n".join("⚠ " + w for w in notes))
            self.notes.show()
        else:
            self.notes.hide()
        target = 0
        if previous is not None:
            for i, r in enumerate(rec.rows):
                if r.instance.key == previous.instance.key and r.nodes == previous.nodes:
                    target = i
                    break
            else:
                if local_row is not None and previous is rec.local:
                    target = len(rec.rows)
        if self.model.rowCount():
            self.select_source_row(target)
        else:
            self.details.setPlainText(self.tr("No instance in the catalog matches the filters."))

    # ------------------------------------------------------------------------------------------
    # selection and details
    def selected_row(self) -> RecommendationRow | None:
        index = self.table.selectionModel().currentIndex()
        if not index.isValid():
            return None
        row = index.data(ROW_ROLE)
        return row if isinstance(row, RecommendationRow) else None

    def select_source_row(self, source_row: int) -> None:
        """Select the model row ``source_row`` (its position in ``recommendation.rows``)."""
        if not 0 <= source_row < self.model.rowCount():
            return
        proxy_index = self.proxy.mapFromSource(self.model.index(source_row, 0))
        if not proxy_index.isValid():
            if self.proxy.rowCount() == 0:
                return
            proxy_index = self.proxy.index(0, 0)
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.selectionModel().setCurrentIndex(proxy_index, flags)
        self.table.scrollTo(proxy_index)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self.scatter.select(None)
            return
        source = self.proxy.mapToSource(current)
        row = self.model.row_at(source.row())
        self.scatter.select(None if self.model.is_local(source.row()) else source.row())
        self.details.setHtml(self.details_html(row))

    def details_html(self, r: RecommendationRow) -> str:
        """The reasoning of ``r`` as HTML; every text from the catalog or the core is escaped."""
        return recommend_details.details_html(r, self.recommendation, self.comparing())

    # ------------------------------------------------------------------------------------------
    # settings
    def _save(self) -> None:
        s = self._settings
        if s is None or self.form.filling:
            return
        s.beginGroup(_GROUP)
        self.form.save(s)
        s.setValue("provider", str(self.provider_filter.currentData() or ""))
        s.setValue("region", str(self.region_filter.currentData() or ""))
        s.setValue("spot_only", self.spot_filter.isChecked())
        s.setValue("currency", str(self.currency.currentData() or "USD"))
        self._billing.save(s)
        s.setValue("fits_only", self.fits_only.isChecked())
        s.setValue("compare", self.compare.isChecked())
        s.endGroup()

    def _restore(self) -> None:
        s = self._settings
        if s is None or not s.contains(f"{_GROUP}/scenario"):
            self.select_preset("llm-100b-train")
            return

        read = SettingsReader(s, _GROUP)  # a bad value: its default, and a warning
        self.form.filling = True
        try:
            self.form.restore(read)
            self._billing.restore(read)
            self.spot_filter.setChecked(read.flag("spot_only", False))
            self.fits_only.setChecked(read.flag("fits_only", True))
            self.compare.setChecked(read.flag("compare", False))
            provider = read.text("provider", "", max_len=64)
            currency = read.text("currency", "USD", max_len=8)
            region = read.text("region", "", max_len=64)
        finally:
            self.form.filling = False
        self.settings_problems = read.problems
        self.currency.blockSignals(True)
        self.currency.setCurrentIndex(max(0, self.currency.findData(currency)))
        self.currency.blockSignals(False)
        set_money_currency(str(self.currency.currentData() or "USD"))
        if provider or region:
            self.catalog()
            self.provider_filter.blockSignals(True)
            self.provider_filter.setCurrentIndex(max(0, self.provider_filter.findData(provider)))
            self.provider_filter.blockSignals(False)
            self._fill_regions()
            self.region_filter.blockSignals(True)
            self.region_filter.setCurrentIndex(max(0, self.region_filter.findData(region)))
            self.region_filter.blockSignals(False)

    # ------------------------------------------------------------------------------------------
    # window integration
    def refresh(self, force: bool = False) -> None:
        """Nothing to redraw per telemetry frame; a pending ranking runs when the tab shows."""
        if self._dirty and not self._timer.isActive():
            self.schedule()

    def apply_theme(self, theme: Theme) -> None:
        self.scatter.apply_theme(theme)
        self.model.set_muted(QColor(theme.muted))
