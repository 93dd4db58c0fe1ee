"""The Fleet tab (``gpuprof --prometheus URL``, File → Connect to Prometheus…): the fleet a
Prometheus scrapes, as a node × GPU grid coloured by one metric, its findings, and a node's
plots over 15 min, 1 h or 6 h.

Every query runs in a worker thread (:func:`~gpuprof.ui.shell.workers.run_in_thread`) and is bounded
by the client's timeout: a Prometheus that is down or never answers is a banner, never a
frozen window. The overview is asked again every N seconds (one query at a time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import ActionSpec, WindowContext
from ..shell.i18n import translate as _t
from ..shell.widgets import FoldingPane
from ..shell.workers import run_in_thread
from .drill import DRILL_WINDOWS, FleetDrill
from .grid import GPU_ROLE, GRID_CHOICES, NODE_ROLE, FleetGrid, legend_html

if TYPE_CHECKING:
    from gpuprof.fleet.client import PrometheusClient
    from gpuprof.fleet.model import Fleet


__all__ = ["FleetTab", "FleetFeature", "open_fleet", "set_launch_client"]

#: The client ``gpuprof --prometheus URL`` made (checked before the window opens); the first
#: window built opens its Fleet tab on it.
_LAUNCH: list[PrometheusClient] = []
#: Qt's QWIDGETSIZE_MAX (PySide6 does not export it): no maximum height.


def _error_text(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, GpuprofError) else f"{type(exc).__name__}: {exc}"


class FleetTab(QWidget):
    """The Fleet tab on ``client``; ``refresh_s``: seconds between overview queries."""

    #: The window's banner (no GPU here, a GPU lost, ...) is about its own source, not the
    #: fleet: it is hidden on this tab, which has a banner of its own.
    shows_source_state = False

    def __init__(
        self,
        client: PrometheusClient,
        *,
        refresh_s: int = 15,
        autorefresh: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.client = client
        self.fleet: Fleet | None = None
        self.pending = False
        self.drill_pending = False
        # A new client: answers to the old one's queries (overview and drill-down) are
        # dropped when they arrive; ``late_answers`` counts them.
        self._generation = 0
        self.late_answers = 0
        self.errors = 0
        self._closed = False
        self._drill_target: tuple[tuple[str, str], str] | None = None

        self.banner = QLabel(self)
        self.banner.setObjectName("fleetBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setStyleSheet("background:#ffebee; color:#b71c1c; padding:6px;")
        self.banner.hide()
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)

        self.metric_combo = QComboBox(self)
        for key, (title, unit, _, _) in GRID_CHOICES.items():
            self.metric_combo.addItem(_t(title) + (f" ({unit})" if unit else ""), key)
        self.metric_combo.currentIndexChanged.connect(self._redraw)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText(_t("filter: cluster=a job=dcgm node=…"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._on_filter)
        self.refresh_spin = QSpinBox(self)
        self.refresh_spin.setRange(5, 3600)
        self.refresh_spin.setValue(max(5, min(3600, refresh_s)))
        self.refresh_spin.setSuffix(" s")
        self.refresh_spin.setToolTip(_t("Seconds between two looks at Prometheus"))
        self.refresh_spin.valueChanged.connect(self._on_refresh_s)
        self.window_combo = QComboBox(self)
        for seconds, label in DRILL_WINDOWS:
            self.window_combo.addItem(label, seconds)
        self.window_combo.setCurrentIndex(1)
        self.window_combo.currentIndexChanged.connect(lambda _i: self._drill_again())

        bar = QHBoxLayout()
        bar.addWidget(QLabel(_t("Colour by:"), self))
        bar.addWidget(self.metric_combo)
        bar.addWidget(self.filter, 1)
        bar.addWidget(QLabel(_t("Refresh every"), self))
        bar.addWidget(self.refresh_spin)
        bar.addWidget(QLabel(_t("Window:"), self))
        bar.addWidget(self.window_combo)

        self.legend = QLabel(self)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.grid = FleetGrid(self)
        self.grid.cellClicked.connect(self._on_cell_clicked)
        self.findings = QListWidget(self)
        self.findings.setObjectName("fleetFindings")
        self.drill_title = QLabel(_t("Click a node or a GPU for its plots."), self)
        self.drill_title.setTextFormat(Qt.TextFormat.PlainText)
        self.drill = FleetDrill(self)

        top = QSplitter(Qt.Orientation.Horizontal, self)
        top.addWidget(self.grid)
        top.addWidget(self.findings)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 1)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.drill_title)
        lower_layout.addWidget(self.drill, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(lower)
        split.setChildrenCollapsible(False)
        self._split = split
        self._drill_pane = FoldingPane(
            self, split, lower, lambda: self.drill_title.sizeHint().height()
        )

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(bar)
        layout.addWidget(self.legend)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)

        self._open_drill(False)

        self.timer = QTimer(self)
        self.timer.setInterval(self.refresh_spin.value() * 1000)
        self.timer.timeout.connect(self.refresh_now)
        self._redraw()
        if autorefresh:
            self.timer.start()
            self.refresh_now()

    def _on_filter(self, text: str) -> None:
        self.grid.set_filter(text)

    def _on_refresh_s(self, seconds: int) -> None:
        self.timer.setInterval(int(seconds) * 1000)

    # -- the overview -------------------------------------------------------------------------
    def current_metric(self) -> str:
        return str(self.metric_combo.currentData())

    def set_metric(self, key: str) -> None:
        self.metric_combo.setCurrentIndex(self.metric_combo.findData(key))

    def refresh_now(self) -> None:
        """Ask Prometheus for the overview in a worker thread (not while one is pending)."""
        if self.pending or self._closed:
            return
        from gpuprof.fleet.read import read_fleet

        self.pending = True
        self.status.setText(_t("Asking %1…").replace("%1", self.client.url))
        client, generation = self.client, self._generation

        def done(fleet: object) -> None:
            if self._current(generation):
                self._on_fleet(fleet)

        def failed(exc: BaseException) -> None:
            if self._current(generation):
                self._on_error(exc)

        run_in_thread(lambda: read_fleet(client), done, failed, self, name="gpuprof-fleet-query")

    def _current(self, generation: int) -> bool:
        """Whether an answer to a query sent at ``generation`` is still wanted (not one to an
        earlier Prometheus, arriving after the switch)."""
        if generation == self._generation:
            return True
        self.late_answers += 1
        return False

    def set_client(self, client: PrometheusClient) -> None:
        """Watch another Prometheus: the grid and the drill-down are emptied and the overview
        asked again at once."""
        self._generation += 1
        self.client = client
        self.fleet = None
        self.pending = False
        self.drill_pending = False
        self._drill_target = None
        self.banner.hide()
        self.grid.clear_fleet()
        self.findings.clear()
        self.drill.clear()
        self.drill_title.setText(_t("Click a node or a GPU for its plots."))
        self._open_drill(False)
        self.refresh_now()

    def _on_fleet(self, fleet: object) -> None:
        self.pending = False
        if self._closed:
            return
        self.fleet = fleet  # type: ignore[assignment]
        self.banner.hide()
        self._redraw()

    def show_fleet(self, fleet: Fleet) -> None:
        """Show ``fleet`` (what a finished query does; perf/fleet.py's Qt render)."""
        self.fleet = fleet
        self._redraw()

    def _on_error(self, exc: BaseException) -> None:
        self.pending = False
        self.errors += 1
        if self._closed:
            return
        self.show_banner(_error_text(exc))
        self.status.setText(
            _t("Prometheus did not answer; asking again in %1 s.").replace(
                "%1", str(self.refresh_spin.value())
            )
        )

    def show_banner(self, text: str) -> None:
        self.banner.setText(text)
        self.banner.show()

    def _redraw(self) -> None:
        metric = self.current_metric()
        self.legend.setText(legend_html(metric))
        fleet = self.fleet
        if fleet is None:
            return
        self.grid.show_fleet(fleet, metric)
        self.findings.clear()
        for f in fleet.findings:
            sim = "SIMULATED · " if f.simulated else ""
            item = QListWidgetItem(f"[{f.severity.value}] {sim}{f.title}")
            item.setToolTip(f"{f.detail}\n{f.hint}")
            self.findings.addItem(item)
        if not fleet.findings:
            self.findings.addItem(_t("No findings."))
        down = sum(1 for n in fleet.nodes if n.down)
        status = (
            _t("%1: %2 nodes (%3 down), %4 GPUs")
            .replace("%1", fleet.url)
            .replace("%2", str(len(fleet.nodes)))
            .replace("%3", str(down))
            .replace("%4", str(len(fleet.gpus)))
        )
        simulated = sum(1 for n in fleet.nodes if n.simulated)
        if simulated:
            status += " · " + _t("SIMULATED: %1 nodes serve demo data, not measurements").replace(
                "%1", str(simulated)
            )
        self.status.setText(status)

    # -- the drill-down -----------------------------------------------------------------------
    def _on_cell_clicked(self, row: int, col: int) -> None:
        item = self.grid.item(row, col)
        if item is None:
            return
        key = item.data(NODE_ROLE)
        gpu = item.data(GPU_ROLE) or ""
        if isinstance(key, tuple) and len(key) == 2:
            self.drill_node((str(key[0]), str(key[1])), str(gpu))

    def drill_node(self, key: tuple[str, str], gpu: str = "") -> None:
        """Ask for ``key``'s plots over the chosen window (in a worker thread)."""
        self._drill_target = (key, gpu)
        if self.drill_pending or self._closed:
            return
        from gpuprof.fleet.drill import node_history

        self.drill_pending = True
        window = float(self.window_combo.currentData())
        client, generation = self.client, self._generation
        name = key[1] + (f" · GPU {gpu}" if gpu else "")
        self.drill_title.setText(_t("Loading %1…").replace("%1", name))

        def done(history: object) -> None:
            if not self._current(generation):
                return  # the drill-down of the new Prometheus may be pending: leave it be
            self.drill_pending = False
            if self._closed:
                return
            self._open_drill(True)
            self.drill.show_history(history, gpu)  # type: ignore[arg-type]
            self.drill_title.setText(name)
            if self._drill_target != (key, gpu):
                self._drill_again()

        def failed(exc: BaseException) -> None:
            if not self._current(generation):
                return
            self.drill_pending = False
            if not self._closed:
                self.show_banner(_error_text(exc))
                self.drill_title.setText(name)

        run_in_thread(
            lambda: node_history(client, key, window_s=window),
            done,
            failed,
            self,
            name="gpuprof-fleet-node",
        )

    def _open_drill(self, shown: bool) -> None:
        """Before a node is chosen the drill-down is its one-line hint and the grid takes the
        height (the empty plots' pane was a blank band above the status line); with plots it
        gets two fifths of the split, or what it had when last shown."""
        if shown != self._drill_pane.is_open:
            self.drill.setVisible(shown)
        self._drill_pane.set_open(shown)

    def _drill_again(self) -> None:
        if self._drill_target is not None:
            self.drill_node(*self._drill_target)

    def close_tab(self) -> None:
        """Stop refreshing; answers still in flight are dropped."""
        self._closed = True
        self.timer.stop()


def open_fleet(window: WindowContext, client: PrometheusClient) -> FleetTab:
    """Show the Fleet tab of ``window`` on ``client`` (replacing an earlier Prometheus)."""
    tabs = window.tabs
    old = _fleet_tab(window)
    if old is not None:
        old.set_client(client)
        tabs.setCurrentWidget(old)
        return old
    tab = _add_tab(window, client)
    tabs.setCurrentWidget(tab)
    return tab


def _fleet_tab(window: WindowContext) -> FleetTab | None:
    tabs = window.tabs
    if "fleet" not in tabs.names:
        return None
    tab = tabs.widget(tabs.names.index("fleet"))
    return tab if isinstance(tab, FleetTab) else None


def _add_tab(window: WindowContext, client: PrometheusClient) -> FleetTab:
    tab = FleetTab(client, parent=window.widget())
    window.tabs.add(tab, "fleet", _t("Fleet"), _t("A cluster's GPUs as a Prometheus sees them"))
    return tab


def set_launch_client(client: PrometheusClient) -> None:
    """``gpuprof --prometheus URL``: the window about to open shows the Fleet tab on it."""
    _LAUNCH[:] = [client]


class FleetFeature:
    """File → Connect to Prometheus…, the Fleet tab it opens (or the one ``--prometheus`` asked
    for), and its end with the window."""

    name = "fleet"

    def __init__(self, context: WindowContext) -> None:
        self._context = context
        if _LAUNCH:
            # Built with the window, not after it: ``--tab fleet`` must find it. The window then
            # opens on it the way it opens on the tab it was last closed on (an explicit --tab,
            # applied after, still wins).
            _add_tab(context, _LAUNCH.pop())
            context.settings.tab = "fleet"

    def actions(self) -> list[ActionSpec]:
        return [
            ActionSpec(
                "file.prometheus",
                _t("Connect to &Prometheus…"),
                lambda _c, _on: self.ask(),
                menu="file",
                order=2,
                tip=_t("Watch a cluster's GPUs through the Prometheus that scrapes them"),
                object_name="prometheusAction",
            )
        ]

    def strip(self) -> None:
        return None

    def ask(self) -> None:
        window = self._context
        url, ok = QInputDialog.getText(
            window.widget(),
            _t("Connect to Prometheus"),
            _t("Prometheus URL:"),
            text="http://127.0.0.1:9090",
        )
        if not ok or not url.strip():
            return
        from gpuprof.fleet.client import PrometheusClient

        try:
            client = PrometheusClient(url.strip())
        except GpuprofError as exc:
            window.show_message(_error_text(exc), 15000)
            return
        open_fleet(window, client)

    def shutdown(self, deadline: float) -> None:
        """Stop refreshing; a query in flight (bounded by the client's timeout) is dropped."""
        tab = _fleet_tab(self._context)
        if tab is not None:
            tab.close_tab()
