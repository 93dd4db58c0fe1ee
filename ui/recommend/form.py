"""The Recommend tab's workload form: presets from the seed documents, the workload's fields, the
goals and limits, and their validation (counts like ``7B`` and durations like ``72h`` are read by
:mod:`gpuprof.recommend.parse`, the same functions as the CLI's flags)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuprof.errors import GpuprofError
from gpuprof.recommend.parse import parse_hours, parse_seconds, parse_usd
from gpuprof.recommend.workload import Workload
from gpuprof.units import fmt_count
from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..shell.settings import SettingsReader
from .trace_input import TraceInput

__all__ = ["CUSTOM", "WorkloadForm"]

#: The preset key of a workload typed in by hand.
CUSTOM = "custom"
_ERROR_STYLE = "QLineEdit { border: 1px solid #c92a2a; }"


def _count(text: str) -> float | None:
    """A count from a form field (``$`` allowed); ``None`` when empty; ``ValueError`` if bad."""
    t = text.strip()
    return parse_usd(t) if t else None


def _hours(text: str) -> float | None:
    t = text.strip()
    return parse_hours(t) if t else None


def _seconds(text: str) -> float | None:
    t = text.strip()
    return parse_seconds(t) if t else None


def _fmt_seconds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value * 1000:g}ms" if value < 1 else f"{value:g}s"


#: Workload fields of serving traffic (issue 22): kept only when the scenario is inference.
SERVING_FIELDS = (
    "rate_per_s",
    "ttft_s",
    "tpot_s",
    "prompt_len",
    "output_len",
    "slo_percentile",
    "kv_dtype",
    "tp",
)


def _fmt_count(value: float | None) -> str:
    return "" if value is None else fmt_count(value, digits=7)


def _fmt_deadline(hours: float | None) -> str:
    return "" if hours is None else f"{hours:g}h"


class WorkloadForm(QScrollArea):
    """The workload as a form. :meth:`workload` reads it (raising ``ValueError`` with every bad
    field named, and marking those fields), :meth:`fill_form` shows one, a preset fills it.

    ``changed`` is emitted after each edit by the user or a preset, not while ``filling``.
    """

    #: A field changed (not emitted while :attr:`filling`).
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.presets = Workload.presets()
        #: The preset the form started from (its hidden fields carry over), or ``None``.
        self.base: Workload | None = None
        #: True while the form is being filled by code: no ``changed`` per field.
        self.filling = False

        self.preset = QComboBox()
        self.preset.addItem(self.tr("Custom workload"), CUSTOM)
        preset_names = {
            "llm-100b-train": self.tr("100B-parameter LLM training"),
            "video-analytics": self.tr("Real-time video analytics"),
            "nlp-inference-t4": self.tr("NLP inference, T4 class"),
            "fp64-risk": self.tr("FP64 risk simulation"),
            "cv-train": self.tr("CV training (ResNet-50)"),
        }
        for key, w in self.presets.items():
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
        self.model = QComboBox()
        self.model.addItem(self.tr("(from the parameter count)"), "")
        try:
            from gpuprof.recommend.models import load_models

            self.models = load_models()
        except GpuprofError:  # a damaged install: the parameter count still works
            self.models = {}
        for name in self.models:
            self.model.addItem(name, name)
        self.model.setToolTip(
            self.tr(
                "A published architecture: its layers, KV heads and total and active "
                "parameters set the memory and FLOPs (resources/models.csv)"
            )
        )
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
        # Serving traffic and latency targets (issue 22): shown for the inference scenario.
        self.prompt_len = QSpinBox()
        self.prompt_len.setRange(0, 10_000_000)
        self.prompt_len.setToolTip(self.tr("Mean prompt (input) tokens per request"))
        self.output_len = QSpinBox()
        self.output_len.setRange(0, 10_000_000)
        self.output_len.setSpecialValueText(self.tr("auto"))
        self.output_len.setToolTip(
            self.tr("Mean generated (output) tokens per request; auto: sequence length − prompt")
        )
        self.rate = line(
            self.tr(
                "Requests per second to serve; or give the Throughput as output tokens per second"
            ),
            self.tr("e.g. 20"),
        )
        self.ttft = line(
            self.tr("Time-to-first-token target, e.g. 2s or 500ms; empty: none"),
            self.tr("e.g. 2s"),
        )
        self.tpot = line(
            self.tr("Time-per-output-token target, e.g. 50ms; empty: none"),
            self.tr("e.g. 50ms"),
        )
        self.slo = QComboBox()
        self.slo.addItem(self.tr("p99 of requests"), "p99")
        self.slo.addItem(self.tr("p50 of requests"), "p50")
        self.slo.setToolTip(self.tr("The share of requests the latency targets must hold for"))
        self.kv_dtype = QComboBox()
        self.kv_dtype.addItem(self.tr("as the weights"), "")
        for key in ("fp16", "bf16", "fp8", "int8"):
            self.kv_dtype.addItem(key.upper(), key)
        self.kv_dtype.setToolTip(self.tr("Precision of the KV cache"))
        self.tp = QComboBox()
        self.tp.addItem(self.tr("auto"), "")
        for t in (1, 2, 4, 8):
            self.tp.addItem(str(t), str(t))
        self.tp.setToolTip(
            self.tr("Tensor-parallel GPUs per replica; auto: the cheapest of 1, 2, 4, 8")
        )

        self.trace = TraceInput()  # a request trace: fills the traffic, simulated by the tab
        self.trace.loaded.connect(self._on_trace)
        self.trace.cleared.connect(self._on_changed)
        self.form_error = QLabel()
        self.form_error.setWordWrap(True)
        self.form_error.setTextFormat(Qt.TextFormat.PlainText)
        self.form_error.setStyleSheet("color: #c92a2a;")
        self.form_error.hide()

        self.line_fields: dict[str, tuple[QLineEdit, Callable[[str], float | None]]] = {
            "params": (self.params, _count),
            "tokens": (self.tokens, _count),
            "samples": (self.samples, _count),
            "throughput_per_s": (self.throughput, _count),
            "flops_per_sample": (self.flops_per_sample, _count),
            "flops_total": (self.flops_total, _count),
            "deadline_hours": (self.deadline, _hours),
            "budget_usd": (self.budget, _count),
            "rate_per_s": (self.rate, _count),
            "ttft_s": (self.ttft, _seconds),
            "tpot_s": (self.tpot, _seconds),
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
        form.addRow(self.tr("Model"), self.model)
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
        self.budget_label = QLabel(self.tr("Budget (USD)"))
        gform.addRow(self.budget_label, self.budget)
        gform.addRow(self.tr("Node limit"), self.node_limit)
        gform.addRow(self.spot)
        gform.addRow(self.tr("Objective"), self.objective)
        self.serving = QGroupBox(self.tr("Serving traffic and latency"))
        sform = QFormLayout(self.serving)
        sform.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        sform.addRow(self.tr("Prompt tokens"), self.prompt_len)
        sform.addRow(self.tr("Output tokens"), self.output_len)
        sform.addRow(self.tr("Requests / s"), self.rate)
        sform.addRow(self.tr("TTFT target"), self.ttft)
        sform.addRow(self.tr("TPOT target"), self.tpot)
        sform.addRow(self.tr("Targets hold for"), self.slo)
        sform.addRow(self.tr("KV cache"), self.kv_dtype)
        sform.addRow(self.tr("Tensor parallel"), self.tp)
        sform.addRow(self.tr("Request trace"), self.trace)
        self._job_rows = (
            (form, self.epochs),
            (form, self.flops_total),
            (form, self.working_set),
            (gform, self.deadline),
        )
        outer.addWidget(group)
        outer.addWidget(self.serving)
        outer.addWidget(goals)
        outer.addWidget(self.form_error)
        outer.addStretch(1)

        self.preset.currentIndexChanged.connect(self._on_preset)
        self.model.currentIndexChanged.connect(self._on_model)
        for combo in (self.scenario, self.precision, self.objective, self.slo, self.kv_dtype):
            combo.currentIndexChanged.connect(self._on_changed)
        self.tp.currentIndexChanged.connect(self._on_changed)
        self.scenario.currentIndexChanged.connect(self._show_scenario_fields)
        self.prompt_len.valueChanged.connect(self._on_changed)
        self.output_len.valueChanged.connect(self._on_changed)
        for edit, _ in self.line_fields.values():
            edit.textChanged.connect(self._on_changed)
        for spin in (self.epochs, self.seq_len, self.batch, self.working_set, self.node_limit):
            spin.valueChanged.connect(self._on_changed)
        self.spot.toggled.connect(self._on_changed)

        self._show_scenario_fields()
        self.setWidget(box)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMinimumWidth(300)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for combo in (self.preset, self.scenario, self.precision, self.objective):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(10)

    def set_currency(self, code: str) -> None:
        """The budget is an amount in the tab's display currency (its Currency setting): the
        one every price is compared in."""
        self.budget_label.setText(self.tr("Budget (%1)").replace("%1", code))
        self.budget.setToolTip(
            self.tr(
                "Money for the whole job in %1, the display currency, e.g. 5000 or 5k; "
                "empty: no budget"
            ).replace("%1", code)
        )

    def fill_form(self, w: Workload) -> None:
        """Show ``w`` in the form (no ranking is triggered per field)."""
        was_filling, self.filling = self.filling, True
        try:
            self.scenario.setCurrentIndex(max(0, self.scenario.findData(w.scenario)))
            self.precision.setCurrentIndex(max(0, self.precision.findData(w.precision)))
            self.model.setCurrentIndex(max(0, self.model.findData(w.model)))
            self.params.setEnabled(not w.model)
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
            self.prompt_len.setValue(w.prompt_len)
            self.output_len.setValue(w.output_len or 0)
            self.rate.setText(_fmt_count(w.rate_per_s))
            self.ttft.setText(_fmt_seconds(w.ttft_s))
            self.tpot.setText(_fmt_seconds(w.tpot_s))
            self.slo.setCurrentIndex(max(0, self.slo.findData(w.slo_percentile)))
            self.kv_dtype.setCurrentIndex(max(0, self.kv_dtype.findData(w.kv_dtype or "")))
            self.tp.setCurrentIndex(max(0, self.tp.findData(str(w.tp) if w.tp else "")))
        finally:
            self.filling = was_filling
        self._show_scenario_fields()

    def workload(self) -> Workload:
        """The form as a :class:`Workload`; raises ``ValueError`` or ``GpuprofError`` if invalid."""
        values: dict[str, Any] = {}
        bad: list[str] = []
        for name, (edit, parse) in self.line_fields.items():
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
        values.update(
            prompt_len=self.prompt_len.value(),
            output_len=self.output_len.value() or None,
            slo_percentile=str(self.slo.currentData()),
            kv_dtype=str(self.kv_dtype.currentData()) or None,
            tp=int(str(self.tp.currentData()) or 0) or None,
        )
        if scenario != "inference":  # serving fields are for serving; a job ignores them
            values.update(dict.fromkeys(SERVING_FIELDS))
            values.update(prompt_len=0, slo_percentile="p99")
        arch = self.models.get(str(self.model.currentData() or ""))
        if arch is not None:
            values.update(arch.workload_fields())
        else:
            values.update(model="", active_params=None, kv_per_token_layer=None, kv_heads=None)
            values.update(attn_width=None, vocab=0)
        if values["params"] is None:
            if scenario not in ("hpc-fp64", "render"):
                raise ValueError(self.tr("give the parameter count, e.g. 7B"))
            values["params"] = 0.0
        base = self.base
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
        w = self.presets.get(key)
        self.base = w
        if w is not None:
            self.fill_form(w)
            self.preset_note.setText(self.tr(w.name))
            self.preset_note.show()
        else:
            self.preset_note.hide()
        self._on_changed()

    def _on_model(self, *_: object) -> None:
        """A chosen architecture sets the parameter count (shown, not editable)."""
        arch = self.models.get(str(self.model.currentData() or ""))
        was_filling, self.filling = self.filling, True
        try:
            self.params.setEnabled(arch is None)
            if arch is not None:
                self.params.setText(_fmt_count(arch.params_total))
        finally:
            self.filling = was_filling
        self._on_changed()

    def _show_scenario_fields(self, *_: object) -> None:
        """Serving shows its traffic and latency fields; a job's time-only fields hide."""
        serving = self.scenario.currentData() == "inference"
        self.serving.setVisible(serving)
        for layout, widget in self._job_rows:
            layout.setRowVisible(widget, not serving)

    def _on_trace(self, traffic: dict[str, float]) -> None:
        """A trace was read: its mean prompt and output tokens fill those fields, and its rate
        the requests/s unless a rate or throughput is given (as ``--trace`` does)."""
        self.prompt_len.setValue(int(traffic["prompt_len"]))
        self.output_len.setValue(int(traffic["output_len"]))
        if not self.rate.text().strip() and not self.throughput.text().strip():
            self.rate.setText(f"{traffic['rate_per_s']:.12g}")
        self._on_changed()

    def _on_changed(self, *_: object) -> None:
        if not self.filling:
            self.changed.emit()

    # ------------------------------------------------------------------------------------------
    # settings
    def save(self, s: QSettings) -> None:
        """Write the form into ``s`` (its group already begun)."""
        s.setValue("preset", str(self.preset.currentData()))
        s.setValue("scenario", str(self.scenario.currentData()))
        s.setValue("precision", str(self.precision.currentData()))
        s.setValue("objective", str(self.objective.currentData()))
        for name, (edit, _) in self.line_fields.items():
            s.setValue(name, edit.text())
        s.setValue("epochs", self.epochs.value())
        s.setValue("seq_len", self.seq_len.value())
        s.setValue("batch", self.batch.value())
        s.setValue("working_set_gib", self.working_set.value())
        s.setValue("node_limit", self.node_limit.value())
        s.setValue("spot", self.spot.isChecked())
        s.setValue("prompt_len", self.prompt_len.value())
        s.setValue("output_len", self.output_len.value())
        s.setValue("slo", str(self.slo.currentData()))
        s.setValue("kv_dtype", str(self.kv_dtype.currentData()))
        s.setValue("tp", str(self.tp.currentData()))
        s.setValue("trace_path", self.trace.last_path)

    def restore(self, read: SettingsReader) -> None:
        """Fill the form from saved values (``read``: the tab's group); call with
        :attr:`filling` set. Each value is checked against its field (a choice the combo has,
        a number in the spin box's range, a count the field parses); a bad one keeps the
        field's default and is dropped with a warning."""
        key = read.choice("preset", CUSTOM, _combo_keys(self.preset))
        index = self.preset.findData(key)
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(max(0, index))
        self.preset.blockSignals(False)
        self.base = self.presets.get(key)
        if self.base is not None:
            self.preset_note.setText(self.tr(self.base.name))
        else:
            self.preset_note.hide()
        for combo, name in (
            (self.scenario, "scenario"),
            (self.precision, "precision"),
            (self.objective, "objective"),
            (self.slo, "slo"),
            (self.kv_dtype, "kv_dtype"),
            (self.tp, "tp"),
        ):
            keys = _combo_keys(combo)
            combo.setCurrentIndex(max(0, combo.findData(read.choice(name, keys[0], keys))))
        for name, (edit, parse) in self.line_fields.items():
            text = read.text(name, "", max_len=64)
            try:
                parse(text)
            except ValueError as exc:
                read.drop(name, text, str(exc), "")
                text = ""
            edit.setText(text)
        for spin, name in ((self.epochs, "epochs"), (self.working_set, "working_set_gib")):
            spin.setValue(read.number(name, spin.value(), spin.minimum(), spin.maximum()))
        for ispin, name in (
            (self.seq_len, "seq_len"),
            (self.batch, "batch"),
            (self.node_limit, "node_limit"),
            (self.prompt_len, "prompt_len"),
            (self.output_len, "output_len"),
        ):
            ispin.setValue(read.integer(name, ispin.value(), ispin.minimum(), ispin.maximum()))
        self.spot.setChecked(read.flag("spot", False))
        self.trace.last_path = read.text("trace_path", "", max_len=4096)
        self._show_scenario_fields()


def _combo_keys(combo: QComboBox) -> tuple[str, ...]:
    return tuple(str(combo.itemData(i)) for i in range(combo.count()))
