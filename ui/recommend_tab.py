"""Recommend tab: a workload form with presets, the ranked cloud configurations, a time-vs-cost
scatter with the Pareto front, the reasoning and formulas of the selected row, and this machine.

Ranking the packaged catalog takes ≈ 40 ms here (perf/recommend.py: ≤ 50 ms for 10,000 rows),
so it runs in the GUI thread, on a short debounce timer after each edit, not in a worker.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpuprof.catalog.instances import Catalog
from gpuprof.errors import GpuprofError
from gpuprof.recommend.rank import LocalMachine, Recommendation, RecommendationRow, recommend
from gpuprof.recommend.workload import Workload
from gpuprof.units import fmt_count
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from . import recommend_details
from .recommend_model import ROW_ROLE, RecommendModel, RecommendProxy, column
from .recommend_plot import CostTimeScatter
from .theme import Theme

__all__ = ["RecommendTab", "DEBOUNCE_MS", "ROW_LIMIT"]

#: Delay between the last edit and the new ranking, ms.
DEBOUNCE_MS = 150
#: Rows the table holds. Building a row (its reasons and warnings) is the costly part of a
#: ranking: 10,000 rows take ≈ 400 ms, 300 rows ≈ 13 ms; the scatter still shows every point.
ROW_LIMIT = 300
_GROUP = "recommend"
_CUSTOM = "custom"
_ERROR_STYLE = "QLineEdit { border: 1px solid #c92a2a; }"


def _default_loader() -> Catalog:
    from gpuprof.catalog.instances import load_catalog

    return load_catalog()


def _parse_count(text: str) -> float | None:
    from gpuprof.commands.recommend import parse_count

    t = text.strip()
    if not t:
        return None
    try:
        return parse_count(t.replace("$", ""))
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _parse_hours(text: str) -> float | None:
    from gpuprof.commands.recommend import parse_hours

    t = text.strip()
    if not t:
        return None
    try:
        return parse_hours(t)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _fmt_count(value: float | None) -> str:
    return "" if value is None else fmt_count(value, digits=7)


def _fmt_deadline(hours: float | None) -> str:
    return "" if hours is None else f"{hours:g}h"


class RecommendTab(QWidget):
    """The "decide" job in the window.

    ``local`` is this machine (``set_local`` replaces it, e.g. with the NVML device names),
    ``local_measurements`` maps a GPU to achieved TFLOPS per dtype from the benchmarks here,
    ``local_util_pct`` is the GPU utilization seen here. ``catalog_loader()`` returns the
    catalog (injectable for tests); ``settings`` keeps the form under ``recommend/``.
    """

    name = "recommend"
    #: Emitted after each ranking with the :class:`Recommendation` (or ``None`` on bad input).
    recommendation_changed = Signal(object)

    def __init__(
        self,
        local: LocalMachine | None = None,
        local_measurements: Mapping[str, Mapping[str, float]] | None = None,
        local_util_pct: float | None = None,
        *,
        catalog_loader: Callable[[], Catalog] | None = None,
        settings: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._loader = catalog_loader or _default_loader
        self._catalog: Catalog | None = None
        self._filtered: dict[tuple[str, str, bool], Catalog] = {}
        self._settings = settings
        self._local = local
        self._measurements = dict(local_measurements or {})
        self._util_pct = local_util_pct
        self._presets = Workload.presets()
        self._base: Workload | None = None
        self._filling = False
        self._sized = False
        self.recommendation: Recommendation | None = None
        self.error: str | None = None
        self.run_count = 0

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._on_timer)
        self._dirty = True

        form_box = self._make_form()
        results = self._make_results()
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(form_box)
        splitter.addWidget(results)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 1270])
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(splitter)

        self._restore()
        self._sync_local_controls()
        self.schedule()

    # ------------------------------------------------------------------------------------------
    # form
    def _make_form(self) -> QWidget:
        self.preset = QComboBox()
        self.preset.addItem(self.tr("Custom workload"), _CUSTOM)
        preset_names = {
            "llm-100b-train": self.tr("100B-parameter LLM training"),
            "video-analytics": self.tr("Real-time video analytics"),
            "nlp-inference-t4": self.tr("NLP inference, T4 class"),
            "fp64-risk": self.tr("FP64 risk simulation"),
            "cv-train": self.tr("CV training (ResNet-50)"),
        }
        for key, w in self._presets.items():
            self.preset.addItem(preset_names.get(key, w.name), key)
            self.preset.setItemData(
                self.preset.count() - 1, self.tr(w.name), Qt.ItemDataRole.ToolTipRole
            )
        self.preset.setToolTip(
            self.tr(
                "Fill the form with one of the seed documents' scenarios; edit any field afterwards"
            )
        )
        self.preset_note = QLabel()
        self.preset_note.setObjectName("muted")
        self.preset_note.setWordWrap(True)
        self.preset_note.setTextFormat(Qt.TextFormat.PlainText)

        self.scenario = QComboBox()
        for key, label in (
            ("pretrain", self.tr("Pre-training")),
            ("finetune-full", self.tr("Fine-tuning (full)")),
            ("finetune-lora", self.tr("Fine-tuning (LoRA)")),
            ("inference", self.tr("Inference / serving")),
            ("hpc-fp64", self.tr("HPC (FP64)")),
            ("render", self.tr("Rendering")),
        ):
            self.scenario.addItem(label, key)
        self.scenario.setToolTip(
            self.tr(
                "What the job does: it decides the memory model "
                "(training keeps gradients and optimizer state) and "
                "the FLOPs per token"
            )
        )
        self.precision = QComboBox()
        for key in ("fp64", "fp32", "bf16", "fp16", "fp8", "int8", "int4"):
            self.precision.addItem(key.upper(), key)
        self.precision.setToolTip(
            self.tr(
                "Numeric precision of weights and math; sets bytes per "
                "parameter and which spec peak applies"
            )
        )

        def line(tip: str, placeholder: str = "") -> QLineEdit:
            edit = QLineEdit()
            edit.setToolTip(tip)
            edit.setPlaceholderText(placeholder)
            edit.setClearButtonEnabled(True)
            return edit

        self.params = line(self.tr("Model parameters, e.g. 7B, 70e9, 25.6M"), self.tr("e.g. 7B"))
        self.tokens = line(
            self.tr(
                "Tokens to train on, or to generate for inference "
                "(e.g. 2e10, 200B); leave empty when counting samples"
            ),
            self.tr("e.g. 200B"),
        )
        self.samples = line(
            self.tr("Samples (images, queries, frames) instead of tokens"), self.tr("optional")
        )
        self.epochs = QDoubleSpinBox()
        self.epochs.setRange(0.01, 100000.0)
        self.epochs.setDecimals(2)
        self.epochs.setValue(1.0)
        self.epochs.setToolTip(self.tr("Passes over the tokens or samples"))
        self.seq_len = QSpinBox()
        self.seq_len.setRange(1, 1 << 20)
        self.seq_len.setValue(4096)
        self.seq_len.setToolTip(self.tr("Sequence length in tokens (activations, KV cache)"))
        self.batch = QSpinBox()
        self.batch.setRange(0, 1 << 20)
        self.batch.setSpecialValueText(self.tr("auto"))
        self.batch.setToolTip(
            self.tr(
                "Global batch in sequences per step (training) or "
                "concurrent sequences (inference); auto: 1024 / 16"
            )
        )
        self.throughput = line(
            self.tr(
                "Target tokens or samples per second (serving); it "
                "becomes a deadline for the amount of work"
            ),
            self.tr("optional, per second"),
        )
        self.flops_per_sample = line(
            self.tr("FLOPs per sample (CNNs, per-query inference); overrides 2·N / 6·N per token"),
            self.tr("optional"),
        )
        self.flops_total = line(
            self.tr("Total FLOPs of the job (HPC, rendering); overrides the count from parameters"),
            self.tr("optional"),
        )
        self.working_set = QDoubleSpinBox()
        self.working_set.setRange(0.0, 1e6)
        self.working_set.setDecimals(1)
        self.working_set.setSuffix(" GiB")
        self.working_set.setToolTip(
            self.tr("Data an HPC or rendering job keeps in GPU memory, split across the GPUs")
        )
        self.deadline = line(
            self.tr("Finish within, e.g. 72h, 3d, 90m; empty: no deadline"), self.tr("e.g. 72h")
        )
        self.budget = line(
            self.tr("Money for the whole job in USD, e.g. 5000 or 5k; empty: no budget"),
            self.tr("e.g. 5000"),
        )
        self.node_limit = QSpinBox()
        self.node_limit.setRange(1, 4096)
        self.node_limit.setValue(16)
        self.node_limit.setToolTip(self.tr("Most nodes (instances) one job may span"))
        self.spot = QCheckBox(self.tr("Spot / preemptible allowed"))
        self.spot.setToolTip(
            self.tr(
                "Rank by the spot price where offered (+10% time for checkpoints and interruptions)"
            )
        )
        self.objective = QComboBox()
        self.objective.addItem(self.tr("Auto"), "auto")
        self.objective.addItem(self.tr("Cheapest that meets the deadline"), "cheapest")
        self.objective.addItem(self.tr("Fastest within the budget"), "fastest")
        self.objective.setToolTip(
            self.tr(
                "How to order the configurations that fit; auto: "
                "cheapest with a deadline, fastest with only a budget"
            )
        )
        self.form_error = QLabel()
        self.form_error.setWordWrap(True)
        self.form_error.setTextFormat(Qt.TextFormat.PlainText)
        self.form_error.setStyleSheet("color: #c92a2a;")
        self.form_error.hide()

        self._line_fields: dict[str, tuple[QLineEdit, Callable[[str], float | None]]] = {
            "params": (self.params, _parse_count),
            "tokens": (self.tokens, _parse_count),
            "samples": (self.samples, _parse_count),
            "throughput_per_s": (self.throughput, _parse_count),
            "flops_per_sample": (self.flops_per_sample, _parse_count),
            "flops_total": (self.flops_total, _parse_count),
            "deadline_hours": (self.deadline, _parse_hours),
            "budget_usd": (self.budget, _parse_count),
        }

        box = QWidget()
        outer = QVBoxLayout(box)
        outer.setContentsMargins(0, 0, 0, 0)
        group = QGroupBox(self.tr("Workload"))
        form = QFormLayout(group)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Preset"), self.preset)
        form.addRow(self.preset_note)
        form.addRow(self.tr("Scenario"), self.scenario)
        form.addRow(self.tr("Parameters"), self.params)
        form.addRow(self.tr("Precision"), self.precision)
        form.addRow(self.tr("Tokens"), self.tokens)
        form.addRow(self.tr("Samples"), self.samples)
        form.addRow(self.tr("Epochs"), self.epochs)
        form.addRow(self.tr("Sequence length"), self.seq_len)
        form.addRow(self.tr("Batch"), self.batch)
        form.addRow(self.tr("FLOPs / sample"), self.flops_per_sample)
        form.addRow(self.tr("FLOPs total"), self.flops_total)
        form.addRow(self.tr("Working set"), self.working_set)
        goals = QGroupBox(self.tr("Goals and limits"))
        gform = QFormLayout(goals)
        gform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        gform.addRow(self.tr("Deadline"), self.deadline)
        gform.addRow(self.tr("Throughput"), self.throughput)
        gform.addRow(self.tr("Budget (USD)"), self.budget)
        gform.addRow(self.tr("Node limit"), self.node_limit)
        gform.addRow(self.spot)
        gform.addRow(self.tr("Objective"), self.objective)
        outer.addWidget(group)
        outer.addWidget(goals)
        outer.addWidget(self.form_error)
        outer.addStretch(1)

        self.preset.currentIndexChanged.connect(self._on_preset)
        for combo in (self.scenario, self.precision, self.objective):
            combo.currentIndexChanged.connect(self._on_form_changed)
        for edit, _ in self._line_fields.values():
            edit.textChanged.connect(self._on_form_changed)
        for spin in (self.epochs, self.seq_len, self.batch, self.working_set, self.node_limit):
            spin.valueChanged.connect(self._on_form_changed)
        self.spot.toggled.connect(self._on_form_changed)

        scroll = QScrollArea()
        scroll.setWidget(box)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumWidth(300)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for combo in (self.preset, self.scenario, self.precision, self.objective):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(10)
        return scroll

    def fill_form(self, w: Workload) -> None:
        """Show ``w`` in the form (no ranking is triggered per field)."""
        was_filling, self._filling = self._filling, True
        try:
            self.scenario.setCurrentIndex(max(0, self.scenario.findData(w.scenario)))
            self.precision.setCurrentIndex(max(0, self.precision.findData(w.precision)))
            self.params.setText(_fmt_count(w.params) if w.params else "")
            self.tokens.setText(_fmt_count(w.tokens))
            self.samples.setText(_fmt_count(w.samples))
            self.epochs.setValue(w.epochs)
            self.seq_len.setValue(w.seq_len)
            self.batch.setValue(w.batch or 0)
            self.throughput.setText(_fmt_count(w.throughput_per_s))
            self.flops_per_sample.setText(_fmt_count(w.flops_per_sample))
            self.flops_total.setText(_fmt_count(w.flops_total))
            self.working_set.setValue(w.working_set_bytes / 2**30)
            self.deadline.setText(_fmt_deadline(w.deadline_hours))
            self.budget.setText(_fmt_count(w.budget_usd))
            self.node_limit.setValue(w.node_limit)
            self.spot.setChecked(w.spot)
        finally:
            self._filling = was_filling

    def workload(self) -> Workload:
        """The form as a :class:`Workload`; raises ``ValueError`` or ``GpuprofError`` if invalid."""
        values: dict[str, Any] = {}
        bad: list[str] = []
        for name, (edit, parse) in self._line_fields.items():
            try:
                values[name] = parse(edit.text())
                edit.setStyleSheet("")
            except ValueError as exc:
                edit.setStyleSheet(_ERROR_STYLE)
                bad.append(str(exc))
        if bad:
            raise ValueError("; ".join(bad))
        scenario = str(self.scenario.currentData())
        values.update(
            scenario=scenario,
            precision=str(self.precision.currentData()),
            epochs=self.epochs.value(),
            seq_len=self.seq_len.value(),
            batch=self.batch.value() or None,
            working_set_bytes=self.working_set.value() * 2**30,
            node_limit=self.node_limit.value(),
            spot=self.spot.isChecked(),
        )
        if values["params"] is None:
            if scenario not in ("hpc-fp64", "render"):
                raise ValueError(self.tr("give the parameter count, e.g. 7B"))
            values["params"] = 0.0
        base = self._base
        if base is not None:
            return base.with_(**values)
        return Workload(**values)

    def select_preset(self, key: str) -> None:
        """Choose a preset by key (``Workload.presets()``) or ``"custom"``."""
        index = self.preset.findData(key)
        if index < 0:
            raise KeyError(key)
        if index == self.preset.currentIndex():
            self._on_preset(index)
        else:
            self.preset.setCurrentIndex(index)

    def _on_preset(self, index: int) -> None:
        key = str(self.preset.itemData(index))
        w = self._presets.get(key)
        self._base = w
        if w is not None:
            self.fill_form(w)
            self.preset_note.setText(self.tr(w.name))
            self.preset_note.show()
        else:
            self.preset_note.hide()
        self._on_form_changed()

    def _on_form_changed(self, *_: object) -> None:
        if self._filling:
            return
        self.schedule()

    # ------------------------------------------------------------------------------------------
    # results
    def _make_results(self) -> QWidget:
        self.provider_filter = QComboBox()
        self.provider_filter.setToolTip(self.tr("Rank only this provider's instances"))
        self.region_filter = QComboBox()
        self.region_filter.setToolTip(self.tr("Rank only instances priced in this region"))
        self.region_filter.setMinimumContentsLength(14)
        self.spot_filter = QCheckBox(self.tr("Only with a spot price"))
        self.spot_filter.setToolTip(
            self.tr("Rank only instances that offer spot / preemptible capacity")
        )
        self.fits_only = QCheckBox(self.tr("Only configurations that fit"))
        self.fits_only.setToolTip(
            self.tr(
                "Hide configurations whose memory need exceeds the "
                "GPU memory (with 15% headroom) or whose precision "
                "the GPU lacks"
            )
        )
        self.fits_only.setChecked(True)
        self.compare = QCheckBox(self.tr("Compare with this machine"))
        self.local_label = QLabel()
        self.local_label.setObjectName("muted")
        self.local_label.setTextFormat(Qt.TextFormat.PlainText)
        for combo in (self.provider_filter, self.region_filter):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(10)
        filters = QHBoxLayout()
        filters.addWidget(QLabel(self.tr("Provider")))
        filters.addWidget(self.provider_filter)
        filters.addWidget(QLabel(self.tr("Region")))
        filters.addWidget(self.region_filter)
        filters.addWidget(self.spot_filter)
        filters.addStretch(1)
        # A second row, so that the tab (and so the window) stays usable at ~1000 px wide.
        compare_row = QHBoxLayout()
        compare_row.addWidget(self.fits_only)
        compare_row.addWidget(self.compare)
        compare_row.addWidget(self.local_label, 1)
        self.local_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.notes = QLabel()
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.setObjectName("muted")
        self.notes.setStyleSheet("color: #a35c00;")
        self.notes.hide()

        self.model = RecommendModel(self)
        self.proxy = RecommendProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.set_fits_only(True)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(column("rank"), Qt.SortOrder.AscendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setToolTip(
            self.tr(
                "Configurations ranked for the workload; click a header to "
                "sort, a row for its reasoning"
            )
        )
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setHighlightSections(False)
        self.table.setColumnHidden(column("speedup"), True)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row)

        self.scatter = CostTimeScatter()
        self.scatter.setMinimumSize(260, 220)
        self.scatter.point_clicked.connect(self.select_source_row)
        self.details = QTextBrowser()
        self.details.setOpenExternalLinks(False)
        self.details.setToolTip(
            self.tr(
                "Why this configuration: memory fit, time, cost, the "
                "efficiency used and its source, warnings, formulas"
            )
        )

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(filters)
        top_layout.addLayout(compare_row)
        top_layout.addWidget(self.summary)
        top_layout.addWidget(self.notes)
        top_layout.addWidget(self.table, 1)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.scatter)
        bottom.addWidget(self.details)
        bottom.setSizes([560, 680])
        bottom.setChildrenCollapsible(False)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(top)
        right.addWidget(bottom)
        right.setSizes([520, 460])
        right.setChildrenCollapsible(False)

        self.provider_filter.currentIndexChanged.connect(self._on_provider)
        self.region_filter.currentIndexChanged.connect(self._on_form_changed)
        self.spot_filter.toggled.connect(self._on_form_changed)
        self.fits_only.toggled.connect(self._on_fits_only)
        self.compare.toggled.connect(self._on_compare)
        return right

    # ------------------------------------------------------------------------------------------
    # catalog and filters
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = self._loader()
            self._fill_providers()
        return self._catalog

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

    def _filtered_catalog(self) -> Catalog:
        # Filtering the catalog (not only the view) keeps ranks, the Pareto front and the scatter
        # consistent with what the table shows.
        cat = self.catalog()
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
        """Rank again after :data:`DEBOUNCE_MS` without further edits."""
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
        try:
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
        return rec

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
        self.model.set_rows(rec.rows, local_row)
        # Reserved prices are rare in public catalogs: show their columns only when there are any.
        self.table.setColumnHidden(
            column("reserved1"), all(r.cost_reserved_1y_usd is None for r in rec.rows)
        )
        self.table.setColumnHidden(
            column("reserved3"), all(r.cost_reserved_3y_usd is None for r in rec.rows)
        )
        local_hours = local_row.hours if local_row is not None else None
        self.scatter.set_rows(rec.rows, local_hours, rec.scatter)
        if not self._sized and rec.rows:
            self.table.resizeColumnsToContents()
            # Long instance and GPU names are elided (full text on hover), not given the table.
            for key, most in (("instance", 170), ("gpus", 150), ("region", 110)):
                self.table.setColumnWidth(
                    column(key), min(self.table.columnWidth(column(key)), most)
                )
            self._sized = True
        self.summary.setText(recommend_details.summary_text(rec))
        if rec.warnings:
            self.notes.setText("\n".join("⚠ " + w for w in rec.warnings))
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
        if s is None or self._filling:
            return
        s.beginGroup(_GROUP)
        s.setValue("preset", str(self.preset.currentData()))
        s.setValue("scenario", str(self.scenario.currentData()))
        s.setValue("precision", str(self.precision.currentData()))
        s.setValue("objective", str(self.objective.currentData()))
        for name, (edit, _) in self._line_fields.items():
            s.setValue(name, edit.text())
        s.setValue("epochs", self.epochs.value())
        s.setValue("seq_len", self.seq_len.value())
        s.setValue("batch", self.batch.value())
        s.setValue("working_set_gib", self.working_set.value())
        s.setValue("node_limit", self.node_limit.value())
        s.setValue("spot", self.spot.isChecked())
        s.setValue("provider", str(self.provider_filter.currentData() or ""))
        s.setValue("region", str(self.region_filter.currentData() or ""))
        s.setValue("spot_only", self.spot_filter.isChecked())
        s.setValue("fits_only", self.fits_only.isChecked())
        s.setValue("compare", self.compare.isChecked())
        s.endGroup()

    def _restore(self) -> None:
        s = self._settings
        if s is None or not s.contains(f"{_GROUP}/scenario"):
            self.select_preset("llm-100b-train")
            return

        def get(key: str, default: Any) -> Any:
            return s.value(f"{_GROUP}/{key}", default)

        def as_bool(value: Any) -> bool:
            return value is True or str(value).lower() in ("true", "1")

        def as_num(value: Any, default: float) -> float:
            try:
                v = float(value)
            except (TypeError, ValueError):
                return default
            return v if math.isfinite(v) else default

        self._filling = True
        try:
            key = str(get("preset", _CUSTOM))
            index = self.preset.findData(key)
            self.preset.blockSignals(True)
            self.preset.setCurrentIndex(max(0, index))
            self.preset.blockSignals(False)
            self._base = self._presets.get(key)
            if self._base is not None:
                self.preset_note.setText(self.tr(self._base.name))
            else:
                self.preset_note.hide()
            for combo, name in (
                (self.scenario, "scenario"),
                (self.precision, "precision"),
                (self.objective, "objective"),
            ):
                combo.setCurrentIndex(max(0, combo.findData(str(get(name, "")))))
            for name, (edit, _) in self._line_fields.items():
                edit.setText(str(get(name, "")))
            self.epochs.setValue(as_num(get("epochs", 1.0), 1.0))
            self.seq_len.setValue(int(as_num(get("seq_len", 4096), 4096)))
            self.batch.setValue(int(as_num(get("batch", 0), 0)))
            self.working_set.setValue(as_num(get("working_set_gib", 0.0), 0.0))
            self.node_limit.setValue(int(as_num(get("node_limit", 16), 16)))
            self.spot.setChecked(as_bool(get("spot", False)))
            self.spot_filter.setChecked(as_bool(get("spot_only", False)))
            self.fits_only.setChecked(as_bool(get("fits_only", True)))
            self.compare.setChecked(as_bool(get("compare", False)))
            provider, region = str(get("provider", "")), str(get("region", ""))
        finally:
            self._filling = False
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
        self.model.muted = QColor(theme.muted)
        self.model.layoutChanged.emit()
