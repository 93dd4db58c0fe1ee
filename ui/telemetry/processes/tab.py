"""Processes tab: GPU processes in a sortable, filterable table (like ``nvidia-smi`` + ``pmon`` +
``top``), the selected process's own history, and Terminate / Kill for live processes.

The model and filter live in :mod:`.model`, the history chart in :mod:`.chart`,
when the actions are offered and what their confirmation says in :mod:`.actions`; the
signalling itself is :mod:`gpuprof.telemetry.procctl`'s.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuprof.telemetry.model import ProcessSample, Snapshot
from gpuprof.telemetry.procctl import Sig, SignalRefused, describe, send_signal
from PySide6.QtCore import QItemSelection, QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...shell.state import UiState
from ...shell.theme import Theme
from ...shell.widgets import FoldingPane
from .actions import confirmation_text, unavailable_reason
from .chart import ProcessChart, ProcessHistory, ProcessKey
from .model import COLUMN, COLUMNS, ProcessFilter, ProcessModel, shown_text

#: Qt's QWIDGETSIZE_MAX (PySide6 does not export it): no maximum height.

__all__ = ["COLUMNS", "ProcessModel", "ProcessesTab", "shown_text"]

_WIDTHS = {
    "pid": 70,
    "user": 100,
    "name": 140,
    "gpu_index": 45,
    "gpu_mem_bytes": 95,
    "sm_util_pct": 60,
    "mem_util_pct": 80,
    "host_cpu_pct": 60,
    "host_rss_bytes": 95,
    "run_time_s": 80,
    "container": 230,
    "kind": 80,
}


def _ask(parent: QWidget, question: str, details: str) -> bool:
    box = QMessageBox(
        QMessageBox.Icon.Warning, parent.tr("Signal a process"), question, parent=parent
    )
    box.setInformativeText(details)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box.exec() == QMessageBox.StandardButton.Yes


def _warn(parent: QWidget, message: str) -> None:
    QMessageBox.warning(parent, parent.tr("Nothing was signalled"), message)


class ProcessesTab(QWidget):
    """The table behind a :class:`ProcessFilter`, a history chart, Terminate and Kill.

    ``confirm(question, details) -> bool`` and ``warn(message)`` are the dialogs; tests
    replace them.
    """

    name = "processes"

    def __init__(self, state: UiState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.model = ProcessModel(self)
        self.proxy = ProcessFilter(self)
        self._resetting = False  # a reset or a filter, not the user, is changing the selection
        self.proxy.setSourceModel(self.model)
        self.history = ProcessHistory()
        self.confirm: Callable[[str, str], bool] = lambda q, d: _ask(self, q, d)
        self.warn: Callable[[str], None] = lambda m: _warn(self, m)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(
            self.tr("Filter by pid, user, name, command line or container")
        )
        self.filter.setToolTip(self.tr("Show only rows containing this text (Ctrl+F)"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._set_filter)
        self.note = QLabel(self)
        self.note.setObjectName("muted")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMN["gpu_mem_bytes"], Qt.SortOrder.DescendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for attr, width in _WIDTHS.items():
            self.table.setColumnWidth(COLUMN[attr], width)
        self.table.setToolTip("")
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)

        self.terminate_action = QAction(self.tr("Terminate (SIGTERM)"), self)
        self.terminate_action.triggered.connect(self.terminate_selected)
        self.kill_action = QAction(self.tr("Kill (SIGKILL)"), self)
        self.kill_action.triggered.connect(self.kill_selected)
        self.terminate_button = QPushButton(self.tr("Terminate"), self)
        self.terminate_button.clicked.connect(self.terminate_selected)
        self.kill_button = QPushButton(self.tr("Kill"), self)
        self.kill_button.clicked.connect(self.kill_selected)
        self.chart = ProcessChart(self)

        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.note)
        top.addWidget(self.terminate_button)
        top.addWidget(self.kill_button)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.chart)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([520, 400])
        split.setChildrenCollapsible(False)
        self._split = split
        self._chart_pane = FoldingPane(self, split, self.chart, self.chart.hint_height_px)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self._generation: tuple[int, int] | None = None
        self._selected: ProcessKey | None = None  # the user's choice, kept across resets
        self._open_chart(False)
        self._update_actions()

    # -- data ----------------------------------------------------------------------------------
    def add_snapshot(self, snap: Snapshot) -> None:
        """Every snapshot (also while the tab is hidden): the per-process history."""
        self.history.add(snap)

    def refresh(self, force: bool = False) -> None:
        if not force and self._generation == self.state.generation:
            return
        self._generation = self.state.generation
        snap = self.state.latest
        if snap is None:
            self.model.set_processes(())
            self._update_actions()
            return
        self.add_snapshot(snap)
        self._resetting = True  # the reset drops the selection: not the user's choice
        try:
            self.model.set_processes(snap.processes, snap.time_s)
        finally:
            self._resetting = False
        self._reselect()
        if not self.state.status.process_info_permitted:
            self.note.setText(
                self.tr(
                    "Process details need more permissions: some rows are missing names or users."
                )
            )
        else:
            self.note.setText(self.tr("%1 processes").replace("%1", str(len(snap.processes))))
        self._update_actions()
        self._draw_chart()

    def selected_process(self) -> ProcessSample | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        source = self.proxy.mapToSource(rows[0])
        if not source.isValid() or source.row() >= self.model.rowCount():
            return None
        return self.model.process(source.row())

    def select_pid(self, pid: int, gpu_index: int | None = None) -> bool:
        """Select the row of ``pid`` (on ``gpu_index``); whether there is one."""
        for row, p in enumerate(self.model.processes):
            if p.pid == pid and (gpu_index is None or p.gpu_index == gpu_index):
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    self.table.selectRow(index.row())
                    return True
        return False

    def _set_filter(self, text: str) -> None:
        self._resetting = True  # a row hidden by the filter is still the user's choice
        try:
            self.proxy.set_text(text)
        finally:
            self._resetting = False
        self._reselect()

    def _reselect(self) -> None:
        # A new set of processes resets the model: keep the chosen process selected.
        if self._selected is not None and self.selected_process() is None:
            self.select_pid(*self._selected)

    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        p = self.selected_process()
        if p is not None:
            self._selected = (p.pid, p.gpu_index)
        elif not self._resetting and not self.table.selectionModel().hasSelection():
            self._selected = None  # the user cleared it (Ctrl+click): no reselect at the next reset
        self._update_actions()
        self._draw_chart()

    def _draw_chart(self) -> None:
        p = self.selected_process()
        if p is None:
            self.chart.show_process(None, "", None)
            self._open_chart(False)
            return
        key = (p.pid, p.gpu_index)
        label = self.tr("pid %1 (%2) on GPU %3").replace("%1", str(p.pid))
        label = label.replace("%2", shown_text(p.name or "?")).replace("%3", str(p.gpu_index))
        self._open_chart(True)
        self.chart.show_process(key, label, self.history.trace(key))

    def _open_chart(self, shown: bool) -> None:
        """Without a selected process the chart is its one-line hint and the table takes the
        height (the empty chart's pane was a blank band over half the tab); with one, the split
        is as it was when a chart was last shown (the user's, or 3:2)."""
        self._chart_pane.set_open(shown)

    # -- actions -------------------------------------------------------------------------------
    def signal_unavailable(self) -> str | None:
        """Why Terminate / Kill are disabled (their tooltip), or ``None``."""
        snap = self.state.latest
        return unavailable_reason(
            snap.source if snap is not None else None, self.selected_process()
        )

    def _update_actions(self) -> None:
        reason = self.signal_unavailable()
        tips = {
            self.terminate_button: self.tr("Ask the selected process to exit (SIGTERM)"),
            self.kill_button: self.tr("End the selected process at once (SIGKILL)"),
        }
        for button, tip in tips.items():
            button.setEnabled(reason is None)
            button.setToolTip(reason or tip)
        for action in (self.terminate_action, self.kill_action):
            action.setEnabled(reason is None)
            action.setToolTip(reason or "")

    def _context_menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if index.isValid():
            self.table.selectRow(index.row())
        menu = self.context_menu()
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def context_menu(self) -> QMenu:
        """The table's context menu for the selected row (built afresh each time)."""
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        self._update_actions()
        menu.addAction(self.terminate_action)
        menu.addAction(self.kill_action)
        return menu

    def terminate_selected(self) -> bool:
        return self._signal(Sig.TERM)

    def kill_selected(self) -> bool:
        return self._signal(Sig.KILL)

    def _signal(self, sig: Sig) -> bool:
        """Confirm, then signal the selected process; whether a signal was sent."""
        row = self.selected_process()
        reason = self.signal_unavailable()
        if reason is not None or row is None:
            return False
        try:
            target = describe(row.pid, expected_start_s=row.start_time_s)
            question, details = confirmation_text(target, row, sig)
            if not self.confirm(question, details):
                return False
            send_signal(target, sig)
        except SignalRefused as exc:
            self.note.setText(str(exc))
            self.warn(str(exc))
            return False
        self.note.setText(
            self.tr("%1 sent to %2").replace("%1", sig.label).replace("%2", target.label)
        )
        return True

    def apply_theme(self, theme: Theme) -> None:
        self.chart.apply_theme(theme)
