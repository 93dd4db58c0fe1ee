"""File → Compare results…: ``gpuprof compare`` in the app.

Pick several result files (``gpuprof check --json`` / ``gpuprof bench --json``); the dialog
shows one column per machine with the outliers highlighted (their tooltip says against what),
a summary line per machine, and every file left out with its reason. With two machines, as in
``gpuprof compare``, a last column holds the ratio second / first (gaps over the outlier
threshold highlighted) and the status line says that outliers need three or more machines.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QLabel,
    QListWidget,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import ActionSpec, WindowContext
from ..shell.i18n import translate as _t
from ..shell.widgets import close_buttons

if TYPE_CHECKING:
    from gpuprof.check.compare import Comparison

__all__ = ["OUTLIER_BACKGROUND", "CompareDialog", "CompareFeature"]

OUTLIER_BACKGROUND = "#f4b4b4"


def _highlight(cell: QTableWidgetItem, why: str) -> None:
    """An outlier or gap: bold on :data:`OUTLIER_BACKGROUND`, ``why`` as its tooltip."""
    cell.setBackground(QBrush(QColor(OUTLIER_BACKGROUND)))
    cell.setToolTip(why)
    font = cell.font()
    font.setBold(True)
    cell.setFont(font)


class CompareDialog(QDialog):
    """Results of several machines side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareDialog")
        self.setWindowTitle(_t("Compare results"))
        self.resize(1100, 700)
        self.comparison: Comparison | None = None
        self.add_button = QPushButton(_t("&Add files…"))
        self.add_button.clicked.connect(self._ask_files)
        self.status = QLabel(_t("Choose two or more result files (gpuprof check or bench --json)."))
        self.status.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summaries = QListWidget()
        self.summaries.setObjectName("compareSummaries")
        self.left_out_label = QLabel(_t("Left out:"))
        self.left_out = QListWidget()
        self.left_out.setObjectName("compareLeftOut")
        buttons = close_buttons(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.add_button)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 3)
        layout.addWidget(QLabel(_t("Per machine:")))
        layout.addWidget(self.summaries, 1)
        layout.addWidget(self.left_out_label)
        layout.addWidget(self.left_out, 1)
        layout.addWidget(buttons)
        self._paths: list[str] = []
        self._show_left_out(False)

    def _show_left_out(self, visible: bool) -> None:
        self.left_out_label.setVisible(visible)
        self.left_out.setVisible(visible)

    def _ask_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, _t("Result files to compare"), "", _t("JSON results (*.json);;All files (*)")
        )
        if paths:
            self.load([*self._paths, *paths])

    def load(self, paths: Sequence[str | Path]) -> None:
        """Read ``paths`` (each once) and show them; files that cannot be read are listed."""
        from gpuprof.check.compare import compare, load_results

        self._paths = list(dict.fromkeys(str(p) for p in paths))
        machines, skipped = load_results(self._paths)
        self.left_out.clear()
        for s in skipped:
            self.left_out.addItem(s.reason)
        self._show_left_out(bool(skipped))
        self.comparison = compare(machines, skipped)
        self._fill(self.comparison)
        if len(machines) < 2:
            self.status.setText(_t("Fewer than two result files could be read: add more."))
        elif self.comparison.pair:
            self.status.setText(self.comparison.pair_line())
        else:
            self.status.setText(
                _t("%1 machines compared, %2 outliers")
                .replace("%1", str(len(machines)))
                .replace("%2", str(len(self.comparison.outliers)))
            )

    def _fill(self, comp: Comparison) -> None:
        why: dict[tuple[str, str], str] = {}
        for o in comp.outliers:  # one cell can be both a fleet and a sibling outlier
            at = (o.machine, o.key)
            why[at] = f"{why[at]}; {o.describe()}" if at in why else o.describe()
        self.table.clear()
        self.table.setRowCount(len(comp.keys))
        self.table.setColumnCount(len(comp.machines) + (1 if comp.pair else 0))
        headers = [m.label for m in comp.machines]
        self.table.setHorizontalHeaderLabels(
            [*headers, comp.ratio_header] if comp.pair else headers
        )
        self.table.setVerticalHeaderLabels(list(comp.keys))
        for col, m in enumerate(comp.machines):
            head = self.table.horizontalHeaderItem(col)
            if head is not None:
                head.setToolTip(m.path)
            for row, key in enumerate(comp.keys):
                x = m.metrics.get(key)
                if x is None:
                    continue
                text = x.cell
                cell = QTableWidgetItem(text)
                flag = why.get((m.label, key))
                if flag is not None:
                    cell.setText("▼ " + text)
                    _highlight(cell, flag)
                self.table.setItem(row, col, cell)
        if comp.pair:
            self._fill_ratios(comp)
        self.table.resizeColumnsToContents()
        self.summaries.clear()
        for m in comp.machines:
            self.summaries.addItem(comp.summary(m))

    def _fill_ratios(self, comp: Comparison) -> None:
        """The last column of a pair: second / first per row, gaps highlighted like outliers."""
        from gpuprof.check.compare import fmt_ratio

        col = len(comp.machines)
        tip = _t("Differs by more than %1% between the two machines").replace(
            "%1", f"{100.0 * comp.rel_threshold:.0f}"
        )
        for row, ratio in enumerate(comp.ratios):
            cell = QTableWidgetItem(fmt_ratio(ratio))
            if comp.is_gap(ratio):
                _highlight(cell, tip)
            self.table.setItem(row, col, cell)

    def flagged_cells(self) -> list[tuple[str, str]]:
        """(machine, measurement) of every highlighted cell (tests)."""
        comp = self.comparison
        if comp is None:
            return []
        out = []
        for col, m in enumerate(comp.machines):
            for row, key in enumerate(comp.keys):
                cell = self.table.item(row, col)
                if cell is not None and cell.background().color() == QColor(OUTLIER_BACKGROUND):
                    out.append((m.label, key))
        return out


class CompareFeature:
    """File → Compare results…: a :class:`CompareDialog` that asks for files at once."""

    name = "compare"

    def __init__(self, context: WindowContext) -> None:
        self._context = context
        self.dialog: CompareDialog | None = None

    def actions(self) -> list[ActionSpec]:
        return [
            ActionSpec(
                "file.compare",
                _t("Co&mpare results…"),
                lambda _c, _on: self.open_dialog(),
                menu="file",
                order=4,
                tip=_t(
                    "Check or benchmark results of several machines side by side, outliers flagged"
                ),
                object_name="compareAction",
            )
        ]

    def strip(self) -> None:
        return None

    def open_dialog(self) -> CompareDialog:
        dialog = CompareDialog(self._context.widget())
        self.dialog = dialog
        dialog.show()
        dialog._ask_files()
        return dialog

    def shutdown(self, deadline: float) -> None:
        """Nothing runs in the background: the files are read in the GUI thread."""
