"""The Recommend tab's results: the provider/region/spot filters, "only what fits" and "compare
with this machine", the summary and notes, the ranked table, the time-vs-cost scatter and the
reasoning of the selected row. Widgets only: the tab connects them and fills them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..shell.widgets import plain_label
from .model import SERVING_ONLY, RecommendModel, RecommendProxy, column
from .plot import CostTimeScatter

__all__ = ["ResultsPanel"]


class ResultsPanel(QSplitter):
    """Filters, summary and table above; the scatter and the selected row's reasoning below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.provider_filter = QComboBox()
        self.provider_filter.setToolTip(self.tr("Rank only this provider's instances"))
        self.region_filter = QComboBox()
        self.region_filter.setToolTip(self.tr("Rank only instances priced in this region"))
        self.region_filter.setMinimumContentsLength(14)
        self.spot_filter = QCheckBox(self.tr("Only with a spot price"))
        self.spot_filter.setToolTip(
            self.tr("Rank only instances that offer spot / preemptible capacity")
        )
        self.currency = QComboBox()
        for code in ("USD", "CNY", "EUR"):
            self.currency.addItem(code, code)
        self.currency.setToolTip(
            self.tr(
                "Compare and show prices in this currency, at the dated exchange rates set with "
                "gpuprof catalog fx --set CNY=RATE@YYYY-MM-DD"
            )
        )
        # The price basis the ranking compares (issue 24: monthly subscriptions, 包月).
        self.billing = QComboBox()
        for key, label in (
            ("on-demand", self.tr("On-demand")),
            ("spot", self.tr("Spot")),
            ("reserved-1y", self.tr("Reserved 1y")),
            ("reserved-3y", self.tr("Reserved 3y")),
            ("monthly", self.tr("Monthly")),
        ):
            self.billing.addItem(label, key)
        self.billing.setToolTip(
            self.tr(
                "Rank by this price: on-demand, spot (+10% time), reserved for 1 or 3 years, or "
                "a monthly subscription paid in whole months. Rows without it come last."
            )
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
        filters.addWidget(QLabel(self.tr("Currency")))
        filters.addWidget(self.currency)
        filters.addWidget(QLabel(self.tr("Billing")))
        filters.addWidget(self.billing)
        filters.addStretch(1)
        # A second row, so that the tab (and so the window) stays usable at ~1000 px wide.
        compare_row = QHBoxLayout()
        compare_row.addWidget(self.fits_only)
        compare_row.addWidget(self.compare)
        compare_row.addWidget(self.local_label, 1)
        self.local_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.summary = plain_label()
        self.notes = plain_label()
        self.notes.setObjectName("muted")
        self.notes.setStyleSheet("color: #a35c00;")
        self.notes.hide()
        self.trace_view = plain_label()  # a request trace simulated on the top rows (SIMULATED)
        self.trace_view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.trace_view.hide()
        # While a trace simulates (in a worker): its progress and a Cancel button.
        self.trace_progress = QProgressBar()
        self.trace_progress.setRange(0, 100)
        self.trace_progress.setFormat(self.tr("Simulating the trace… %p%"))
        self.trace_cancel = QPushButton(self.tr("Cancel"))
        self.trace_cancel.setToolTip(self.tr("Stop simulating the request trace"))
        self.trace_busy = QWidget()
        busy = QHBoxLayout(self.trace_busy)
        busy.setContentsMargins(0, 0, 0, 0)
        busy.addWidget(self.trace_progress, 1)
        busy.addWidget(self.trace_cancel)
        self.trace_busy.hide()

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
        for key in SERVING_ONLY:  # shown when the workload is serving traffic
            self.table.setColumnHidden(column(key), True)

        self.scatter = CostTimeScatter()
        self.scatter.setMinimumSize(260, 220)
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
        top_layout.addWidget(self.trace_busy)
        top_layout.addWidget(self.trace_view)
        top_layout.addWidget(self.table, 1)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.scatter)
        bottom.addWidget(self.details)
        bottom.setSizes([560, 680])
        bottom.setChildrenCollapsible(False)
        self.addWidget(top)
        self.addWidget(bottom)
        self.setSizes([520, 460])
        self.setChildrenCollapsible(False)
