"""The Benchmarks tab's panels: the controls (suite, device, benchmarks, Run and Cancel), the
run picker with the results table, and the page shown when PyTorch is missing. Widgets only:
``BenchTab`` connects them and fills them."""

from __future__ import annotations

import time

from gpuprof.bench.base import BENCH_NAMES
from gpuprof.bench.results import RunSummary
from gpuprof.bench.runner import SUITES
from gpuprof.units import NA
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .table import TableRow

__all__ = ["BenchControls", "DeviceCombo", "LitePage", "RunsPanel", "run_title"]

_PROBING = "__probing__"

_COLUMNS = ("case", "metric", "value", "pct", "ratio", "notes")
_KIND_COLOURS = {
    "failed": "#c92a2a",
    "throttled": "#d9480f",
    "skipped": "#868e96",
    "interrupted": "#868e96",
}


class DeviceCombo(QComboBox):
    """A combo that says when its list is about to open (the tab probes CUDA devices then)."""

    popup_requested = Signal()

    def showPopup(self) -> None:
        self.popup_requested.emit()
        super().showPopup()

    def add_probing_item(self) -> None:
        """A greyed "looking for CUDA devices…" item while the devices are probed."""
        self.addItem(self.tr("looking for CUDA devices…"), _PROBING)
        self._set_item_enabled(self.count() - 1, False)

    def set_devices(self, devices: list[tuple[str, str]]) -> None:
        """The probe found ``[(device, name), ...]`` (none: a greyed "no CUDA device found")."""
        self._drop_probe_item()
        for dev, name in devices:
            self.addItem(f"{dev} — {name}", dev)
        if not devices:
            self.addItem(self.tr("no CUDA device found"), "__none__")
            self._set_item_enabled(self.count() - 1, False)

    def set_probe_error(self, exc: BaseException) -> None:
        """The probe failed: a greyed item says why."""
        self._drop_probe_item()
        self.addItem(
            self.tr("CUDA devices unknown: %1").replace("%1", f"{type(exc).__name__}: {exc}"),
            "__none__",
        )
        self._set_item_enabled(self.count() - 1, False)

    def _set_item_enabled(self, index: int, enabled: bool) -> None:
        model = self.model()
        item = model.item(index) if hasattr(model, "item") else None
        if item is not None:
            item.setEnabled(enabled)

    def _drop_probe_item(self) -> None:
        i = self.findData(_PROBING)
        if i >= 0:
            self.removeItem(i)


def run_title(r: RunSummary) -> str:
    """One line naming a saved run in the run pickers."""
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_s))
    what = r.device_name or r.device
    return f"{started} · {r.suite} · {r.device} ({what}) · {r.n_ok}/{r.n_results} · {r.run_id}"


class BenchControls(QWidget):
    """What to run and where: the suite, the device, Run and Cancel; the benchmarks below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suite_combo = QComboBox(self)
        tips = {
            "quick": self.tr("About 30 s on one GPU: a few sizes per benchmark"),
            "standard": self.tr("About 3× the quick suite: more sizes and LLM-shaped products"),
            "full": self.tr("The whole sweep (GEMM 1024…16384, copies up to 1 GiB): minutes"),
        }
        for suite in SUITES:
            self.suite_combo.addItem(self.tr(suite), suite)
            self.suite_combo.setItemData(
                self.suite_combo.count() - 1, tips[suite], Qt.ItemDataRole.ToolTipRole
            )
        self.suite_combo.setToolTip(self.tr("How much to measure: quick, standard or full"))
        labels = {
            "gemm": (
                self.tr("GEMM"),
                self.tr(
                    "Matrix products by dtype (FP32, TF32, FP16, BF16, "
                    "FP8) against the spec sheet's peak"
                ),
            ),
            "memory": (
                self.tr("Memory"),
                self.tr(
                    "Copy bandwidth: host↔device pageable and "
                    "pinned, on-device; host copies on a CPU"
                ),
            ),
            "p2p": (
                self.tr("P2P"),
                self.tr("GPU-to-GPU bandwidth and latency matrices (needs 2 CUDA devices)"),
            ),
            "collective": (
                self.tr("Collectives"),
                self.tr("All-reduce and all-gather bus bandwidth and latency over sizes"),
            ),
            "workload": (
                self.tr("Training step"),
                self.tr(
                    "A transformer block and a small "
                    "conv net on synthetic data: "
                    "tokens/s and images/s"
                ),
            ),
        }
        self.case_checks: dict[str, QCheckBox] = {}
        for bench in BENCH_NAMES:
            text, tip = labels[bench]
            box = QCheckBox(text, self)
            box.setChecked(True)
            box.setToolTip(tip)
            self.case_checks[bench] = box
        self.device_combo = DeviceCombo(self)
        self.device_combo.addItem(self.tr("auto (first CUDA GPU, else CPU)"), None)
        self.device_combo.addItem(self.tr("cpu"), "cpu")
        self.device_combo.setToolTip(
            self.tr(
                "Where to run. The CUDA devices are listed the "
                "first time this list opens (it loads PyTorch)"
            )
        )
        self.run_button = QPushButton(self.tr("Run"), self)
        self.run_button.setToolTip(self.tr("Run the chosen benchmarks (Ctrl+B)"))
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(
            self.tr("Stop after the current step, within a second (Esc); what was measured is kept")
        )

        # Two rows, so that the tab (and so the window) stays usable at ~1000 px wide.
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Suite:"), self))
        top.addWidget(self.suite_combo)
        top.addSpacing(12)
        top.addWidget(QLabel(self.tr("Device:"), self))
        self.device_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.device_combo.setMinimumContentsLength(16)
        top.addWidget(self.device_combo, 1)
        top.addSpacing(12)
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        cases_row = QHBoxLayout()
        cases_row.addWidget(QLabel(self.tr("Benchmarks:"), self))
        for box in self.case_checks.values():
            cases_row.addWidget(box)
        cases_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(cases_row)


class RunsPanel(QWidget):
    """The run shown and the one compared with, and every measurement of the run shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_label = QLabel(self.tr("No run yet"), self)
        self.run_label.setWordWrap(True)
        self.run_label.setToolTip(self.tr("The run shown: id, suite, device, state and versions"))
        self.shown_combo = QComboBox(self)
        self.shown_combo.setToolTip(self.tr("Show an earlier run from the results database"))
        self.compare_combo = QComboBox(self)
        self.compare_combo.setToolTip(
            self.tr(
                "Compare the run shown with an earlier one: the "
                "ratio column is shown ÷ earlier (> 1: faster now)"
            )
        )
        pick = QGridLayout()
        pick.addWidget(QLabel(self.tr("Run:"), self), 0, 0)
        pick.addWidget(self.shown_combo, 0, 1)
        pick.addWidget(QLabel(self.tr("Compare with:"), self), 1, 0)
        pick.addWidget(self.compare_combo, 1, 1)
        pick.setColumnStretch(1, 1)
        self.table = QTableWidget(0, len(_COLUMNS), self)
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Case"),
                self.tr("Metric"),
                self.tr("Value"),
                self.tr("% of peak"),
                self.tr("vs earlier"),
                self.tr("Notes"),
            ]
        )
        header_tips = [
            self.tr("Benchmark and case (shape, direction, size)"),
            self.tr("What the value is"),
            self.tr("The measured number with its unit"),
            self.tr("Of the spec sheet's dense peak for this dtype (GEMM only)"),
            self.tr("This run ÷ the run chosen under Compare with"),
            self.tr("Why a case was skipped or failed, throttling seen, details"),
        ]
        for i, tip in enumerate(header_tips):
            item = self.table.horizontalHeaderItem(i)
            if item is not None:
                item.setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setWordWrap(False)
        hh = self.table.horizontalHeader()
        for i, width in enumerate((230, 105, 100, 70, 72)):
            hh.setSectionResizeMode(i, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(i, width)
        hh.setSectionResizeMode(len(_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip(
            self.tr("Every measurement of the run shown; failed and skipped cases say why")
        )
        side_layout = QVBoxLayout(self)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.run_label)
        side_layout.addLayout(pick)
        side_layout.addWidget(self.table, 1)

    def set_row(self, i: int, row: TableRow, ratio: str, ratio_value: float | None) -> None:
        """Fill table row ``i``; ``ratio`` is the "vs earlier" text, ``ratio_value`` its number."""
        cells = (row.case, row.metric, row.value, row.pct_of_peak, ratio, row.notes)
        colour = _KIND_COLOURS.get(row.kind)
        for j, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if j in (2, 3, 4):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if j in (0, 5) and text:
                item.setToolTip(text)
            if colour is not None and j in (0, 5):
                item.setForeground(QColor(colour))
            if (
                j == 4
                and ratio
                and ratio != NA
                and ratio_value is not None
                and abs(ratio_value - 1.0) >= 0.05
            ):
                item.setForeground(QColor("#2b8a3e" if ratio_value > 1 else "#c92a2a"))
            self.table.setItem(i, j, item)


class LitePage(QWidget):
    """Shown instead of the controls when PyTorch cannot be imported: how to get benchmarks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lite_label = QLabel(self)
        self.lite_label.setWordWrap(True)
        self.lite_label.setTextFormat(Qt.TextFormat.RichText)
        self.lite_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.lite_label.setText(
            "<h3>"
            + self.tr("Benchmarks need PyTorch")
            + "</h3><p>"
            + self.tr(
                "This installation of gpuprof does not include PyTorch, which runs the "
                "GEMM, memory, P2P, collective and training-step benchmarks."
            )
            + "</p><p>"
            + self.tr("To get them, install the extra:")
            + '</p><pre>    pip install "gpuprof[bench]"</pre><p>'
            + self.tr(
                "(for a GPU, first the PyTorch wheel for your CUDA version from "
                "pytorch.org), or use the full build of the packaged app. Telemetry, "
                "Health and Recommend work without it."
            )
            + "</p>"
        )
        self.lite_label.setMaximumWidth(760)
        self.recheck_button = QPushButton(self.tr("Check again"), self)
        self.recheck_button.setToolTip(self.tr("Look for PyTorch again after installing it"))
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.lite_label, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.recheck_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)
