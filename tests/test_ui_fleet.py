"""The Fleet tab (issue 15) against a real Prometheus scraping demo exporters and a
dcgm-exporter page: the grid, the metric switch, the filter, a down exporter, the drill-down
plots; an unreachable or silent Prometheus is a banner and the window keeps working."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.prometheus_fixture import (
    DCGM_HOST,
    Fleet,
    StaticMetrics,
    free_port,
    start_fleet,
)

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture(scope="module")
def own_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """A Prometheus of this module's own (its last test stops an exporter)."""
    with start_fleet(tmp_path_factory.mktemp("fleet-ui")) as fleet:
        yield fleet


def _tab(make_window: Any, url: str, qtbot: Any, *, timeout_s: float = 10.0) -> Any:
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    w = make_window()
    tab = open_fleet(w, PrometheusClient(url, timeout_s=timeout_s))
    assert w.current_tab_name() == "fleet"
    return tab


def _loaded(tab: Any, qtbot: Any) -> None:
    qtbot.waitUntil(lambda: tab.fleet is not None and not tab.pending, timeout=20000)


@pytest.mark.slow
def test_grid_shows_every_gpu_and_the_metric_switch_recolours(make_window, qtbot, own_fleet):
    tab = _tab(make_window, own_fleet.url, qtbot)
    _loaded(tab, qtbot)
    grid = tab.grid
    assert grid.rowCount() == 3  # two demo exporters and the dcgm-exporter node
    assert len(tab.fleet.gpus) == 8 * 2 + 4
    assert [f"{i}" for i in range(8)] == list(grid.columns)
    assert DCGM_HOST in grid.visible_nodes()
    # The dcgm node's GPU 0 runs at 95 %, GPU 2 at 0 %: darker blue for the busier one.
    assert grid.cell_text(DCGM_HOST, "0") == "95"
    assert grid.cell_text(DCGM_HOST, "2") == "0"
    busy, idle = grid.cell_background(DCGM_HOST, "0"), grid.cell_background(DCGM_HOST, "2")
    assert busy != idle
    assert "GPU utilization (%)" in tab.legend.text()
    assert tab.findings.count() >= 1
    assert any("XID" in tab.findings.item(i).text() for i in range(tab.findings.count()))

    tab.set_metric("temp")
    assert grid.cell_text(DCGM_HOST, "0") == "52°C"
    assert grid.cell_background(DCGM_HOST, "0") == grid.cell_background(DCGM_HOST, "2")
    assert "Temperature (°C)" in tab.legend.text()
    tab.set_metric("errors")
    assert grid.cell_text(DCGM_HOST, "1") == "48"  # XID 48
    assert grid.cell_background(DCGM_HOST, "1") == "#c62828"
    assert grid.cell_background(DCGM_HOST, "0") == "#66bb6a"

    grid.sortItems(grid.FIXED + 1)  # by GPU 1's errors: the dcgm node (48) last
    assert grid.visible_nodes()[-1] == DCGM_HOST


def test_demo_exporters_are_labelled_simulated(make_window, qtbot, own_fleet):
    from gpuprof.ui.fleet.grid import NODE_ROLE

    tab = _tab(make_window, own_fleet.url, qtbot)
    _loaded(tab, qtbot)
    grid = tab.grid
    exporters = {grid.item(r, 0).text(): grid.item(r, 3).text() for r in range(grid.rowCount())}
    assert exporters.pop(DCGM_HOST) == "dcgm-exporter"
    assert list(exporters.values()) == ["gpuprof · SIMULATED"] * 2
    demo = own_fleet.exporters[0].address
    row = next(r for r in range(grid.rowCount()) if grid.item(r, 0).data(NODE_ROLE)[1] == demo)
    assert grid.item(row, grid.FIXED).toolTip().startswith("SIMULATED · ")
    assert "SIMULATED" not in grid._find(DCGM_HOST, "0").toolTip()
    assert "SIMULATED: 2 nodes serve demo data" in tab.status.text()


def test_filter_by_label(make_window, qtbot, own_fleet):
    tab = _tab(make_window, own_fleet.url, qtbot)
    _loaded(tab, qtbot)
    tab.filter.setText("cluster=b")
    shown = tab.grid.visible_nodes()
    assert len(shown) == 2 and DCGM_HOST in shown  # exporter 1 and the dcgm node
    tab.filter.setText("job=dcgm")
    assert tab.grid.visible_nodes() == [DCGM_HOST]
    tab.filter.setText("cluster=a job=dcgm")
    assert tab.grid.visible_nodes() == []
    tab.filter.setText("")
    assert len(tab.grid.visible_nodes()) == 3


def test_click_a_gpu_draws_its_node_plots(make_window, qtbot, own_fleet):
    from gpuprof.ui.fleet.grid import NODE_ROLE

    tab = _tab(make_window, own_fleet.url, qtbot)
    _loaded(tab, qtbot)
    grid = tab.grid
    exporter = own_fleet.exporters[0].address
    row = next(r for r in range(grid.rowCount()) if grid.item(r, 0).data(NODE_ROLE)[1] == exporter)
    tab.window_combo.setCurrentIndex(0)  # 15 min
    grid.cellClicked.emit(row, grid.FIXED + 3)
    qtbot.waitUntil(lambda: tab.drill.history is not None and not tab.drill_pending, timeout=20000)
    history = tab.drill.history
    assert history.node == ("gpuprof", exporter)
    assert history.end_s - history.start_s == pytest.approx(900)
    points = tab.drill.points()
    assert set(points) == {"util", "sm", "mem", "temp", "power", "clock"}
    assert all(n >= 8 for n in points.values()), points  # 8 GPUs, a point each at least
    assert tab.drill_title.text().endswith("GPU 3")
    assert "(%)" in tab.drill.plots["util"].getPlotItem().titleLabel.text
    assert tab.drill.plots["power"].getPlotItem().getAxis("left").labelText == "W"


class HeldProxy(StaticMetrics):
    """A loopback proxy in front of a real Prometheus that holds the drill-down's range
    queries (``/api/v1/query_range``) until :attr:`gate` is set; everything else passes."""

    def __init__(self, upstream: str) -> None:
        self.gate = threading.Event()
        self.gate.set()

        def forward(method: str, path: str, body: bytes) -> tuple[int, str, bytes]:
            if path.startswith("/api/v1/query_range"):
                self.gate.wait(30.0)
            headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
            request = urllib.request.Request(
                upstream + path, data=body or None, method=method, headers=headers
            )
            with urllib.request.urlopen(request, timeout=10) as resp:
                return resp.status, resp.headers.get("Content-Type", ""), resp.read()

        super().__init__(forward)

    def range_queries(self) -> int:
        return sum(1 for p in list(self.requests) if p.startswith("/api/v1/query_range"))


def _click_gpu(tab: Any, instance: str, gpu: int) -> None:
    from gpuprof.ui.fleet.grid import NODE_ROLE

    grid = tab.grid
    row = next(r for r in range(grid.rowCount()) if grid.item(r, 0).data(NODE_ROLE)[1] == instance)
    grid.cellClicked.emit(row, grid.FIXED + gpu)


DRILL_HINT = "Click a node or a GPU for its plots."


def test_switching_servers_clears_the_drill_down(make_window, qtbot, own_fleet):
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    exporter = own_fleet.exporters[0].address
    with StaticMetrics("{}", delay_s=30.0) as silent:
        tab = _tab(make_window, own_fleet.url, qtbot)
        _loaded(tab, qtbot)
        _click_gpu(tab, exporter, 2)
        qtbot.waitUntil(
            lambda: tab.drill.history is not None and not tab.drill_pending, timeout=20000
        )
        assert tab.drill.points() and tab.drill_title.text().endswith("GPU 2")

        open_fleet(tab.window(), PrometheusClient(silent.url, timeout_s=30.0))
        assert tab.drill.history is None and tab.drill.points() == {}
        assert tab.drill_title.text() == DRILL_HINT
        assert not tab.drill_pending
        tab.close_tab()


@pytest.mark.slow
def test_a_late_drill_down_answer_from_the_old_server_is_dropped(make_window, qtbot, own_fleet):
    """The old server's drill-down answer is held until after the switch; when it comes it
    neither draws the old node nor ends the new server's pending drill-down."""
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    exporter = own_fleet.exporters[0].address
    with HeldProxy(own_fleet.url) as proxy, StaticMetrics("{}", delay_s=30.0) as silent:
        tab = _tab(make_window, proxy.url, qtbot, timeout_s=30.0)
        _loaded(tab, qtbot)
        proxy.gate.clear()
        _click_gpu(tab, exporter, 1)
        qtbot.waitUntil(lambda: proxy.range_queries() == 6, timeout=20000)  # all six held
        assert tab.drill_pending

        open_fleet(tab.window(), PrometheusClient(silent.url, timeout_s=30.0))
        tab.drill_node(("gpuprof", "silent:9400"), "0")  # the new server's, never answered
        assert tab.drill_pending and tab.drill_title.text().startswith("Loading silent:9400")
        proxy.gate.set()
        qtbot.waitUntil(lambda: tab.late_answers >= 1, timeout=20000)
        assert tab.drill.history is None and tab.drill.points() == {}
        assert tab.drill_pending and tab.drill_title.text().startswith("Loading silent:9400")
        assert not tab.banner.isVisible()
        tab.close_tab()


def test_a_down_exporter_is_marked(make_window, qtbot, own_fleet):
    from gpuprof.fleet.client import PrometheusClient
    from gpuprof.fleet.read import read_fleet

    stopped = own_fleet.exporters[1]
    stopped.stop()
    client = PrometheusClient(own_fleet.url)
    own_fleet.wait_until(
        "the stopped exporter down", lambda: any(n.down for n in read_fleet(client).nodes)
    )
    tab = _tab(make_window, own_fleet.url, qtbot)
    _loaded(tab, qtbot)
    down = [n for n in tab.fleet.nodes if n.down]
    assert len(down) == 1 and down[0].instance == stopped.address
    grid = tab.grid
    row = next(r for r in range(grid.rowCount()) if grid.item(r, 0).text() == down[0].name)
    assert grid.item(row, 3).text() == "down"
    cells = [grid.item(row, c) for c in range(grid.FIXED, grid.columnCount())]
    assert any(c is not None and c.text() == "down" for c in cells)
    assert "1 down" in tab.status.text()


def test_unreachable_prometheus_is_a_banner(make_window, qtbot):
    port = free_port()  # nothing listens there
    tab = _tab(make_window, f"http://127.0.0.1:{port}", qtbot)
    qtbot.waitUntil(lambda: tab.banner.isVisible(), timeout=10000)
    assert f"127.0.0.1:{port}" in tab.banner.text()
    assert tab.fleet is None and tab.errors == 1


@pytest.mark.slow
def test_a_silent_prometheus_never_freezes_the_window(make_window, qtbot, tmp_path: Path):
    from PySide6.QtCore import QTimer

    with StaticMetrics("{}", delay_s=30.0) as silent:
        tab = _tab(make_window, silent.url, qtbot, timeout_s=2.0)
        assert tab.pending
        ticks: list[float] = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start(50)
        qtbot.waitUntil(lambda: len(ticks) >= 10, timeout=5000)
        assert tab.pending  # the query still waits, the event loop kept running
        qtbot.waitUntil(lambda: tab.banner.isVisible(), timeout=15000)
        timer.stop()
        assert silent.url in tab.banner.text() or "127.0.0.1" in tab.banner.text()
        assert not tab.pending and tab.fleet is None
        tab.close_tab()


def test_the_no_gpu_banner_is_not_on_the_fleet_or_recommend_tab(make_window, qtbot):
    """The window's banner is about its own source ("No NVIDIA GPU" here): not shown on the
    Fleet tab (a cluster's GPUs) nor on Recommend (cloud machines); back on the other tabs."""
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient
    from tests.ui_fakes import FakeSource
    from tests.ui_fixtures import polls

    w = make_window(FakeSource(0))
    polls(w, 2)
    assert w.banner.isVisible() and "No NVIDIA GPU" in w.banner.text()
    tab = open_fleet(w, PrometheusClient(f"http://127.0.0.1:{free_port()}", timeout_s=2.0))
    assert w.current_tab_name() == "fleet"
    assert not w.banner.isVisible() and w.banner.text() == ""
    polls(w, 1)  # the state is shown again, still not here
    assert not w.banner.isVisible()
    w.select_tab("telemetry")
    assert w.banner.isVisible() and "No NVIDIA GPU" in w.banner.text()
    w.select_tab("recommend")
    assert not w.banner.isVisible()
    w.select_tab("overview")
    assert w.banner.isVisible()
    w.banner.close_button.click()  # dismissed stays dismissed, whatever the tab
    w.select_tab("fleet")
    w.select_tab("overview")
    assert not w.banner.isVisible()
    tab.close_tab()


def test_cli_bad_prometheus_url_is_one_line(tmp_path: Path):
    from tests.faults.hostile import assert_one_clear_error, run_gpuprof

    ran = run_gpuprof(["--prometheus", "ftp://example.invalid"], tmp_path)
    assert_one_clear_error(ran, "ftp://example.invalid")
    missing = tmp_path / "no-token"
    ran = run_gpuprof(
        ["--prometheus", "http://127.0.0.1:9", "--token-file", str(missing)], tmp_path
    )
    assert_one_clear_error(ran, str(missing))


def _fleet_by_hand() -> Any:
    from gpuprof.findings import Severity
    from gpuprof.fleet.model import Fleet as FleetModel
    from gpuprof.fleet.model import FleetFinding, FleetGpu, FleetNode

    def gpu(node: str, i: str, **kw: Any) -> FleetGpu:
        return FleetGpu(job="j", instance=f"{node}:9400", node=node, gpu=i, **kw)

    a = FleetNode(
        "j",
        "a:9400",
        "a",
        labels={"cluster": "x"},
        up=True,
        exporter="gpuprof",
        gpus=(
            gpu("a", "0", util_pct=10.0, temp_c=40.0),
            gpu("a", "1", util_pct=None, stale=True),
            gpu("a", "10", util_pct=99.0),
            gpu("a", "0", mig_instance="1", util_pct=50.0),
        ),
    )
    b = FleetNode(
        "j",
        "b:9400",
        "b",
        labels={"cluster": "y"},
        up=False,
        last_error="connection refused",
        gpus=(gpu("b", "0", down=True, lost=False),),
    )
    finding = FleetFinding("exporter_down", Severity.CRITICAL, "b is down", "d", "h", node="b")
    return FleetModel("http://p:9090", 0.0, "", (a, b), (finding,))


def test_stale_lost_and_mig_cells_without_a_server(qtbot):
    from gpuprof.ui.fleet.grid import DOWN_COLOUR
    from gpuprof.ui.fleet.tab import FleetTab
    from PySide6.QtCore import Qt

    from gpuprof.fleet.client import PrometheusClient

    tab = FleetTab(PrometheusClient("http://127.0.0.1:9"), autorefresh=False)
    qtbot.addWidget(tab)
    assert not tab.timer.isActive() and not tab.pending
    tab.show_fleet(_fleet_by_hand())
    grid = tab.grid
    assert list(grid.columns) == ["0", "0/1", "1", "10"]  # by index, not as text
    assert grid.cell_text("a", "1") == "stale"
    assert grid.cell_background("a", "1") == DOWN_COLOUR
    assert grid.cell_text("a", "0/1") == "50"
    assert grid.cell_text("b", "0") == "down"
    row_b = grid.visible_nodes().index("b")
    assert grid.item(row_b, 3).toolTip() == "connection refused"
    assert tab.findings.item(0).text() == "[critical] b is down"
    assert "2 nodes (1 down), 5 GPUs" in tab.status.text()
    grid.sortItems(grid.FIXED + 3, Qt.SortOrder.DescendingOrder)  # GPU 10: 99 first
    assert grid.visible_nodes()[0] == "a"
    tab.filter.setText("cluster=y")
    assert grid.visible_nodes() == ["b"]
    tab.filter.setText("nosuchnode")
    assert grid.visible_nodes() == []


def test_a_simulated_finding_says_so_without_a_server(qtbot):
    from dataclasses import replace

    from gpuprof.ui.fleet.tab import FleetTab

    from gpuprof.fleet.client import PrometheusClient

    tab = FleetTab(PrometheusClient("http://127.0.0.1:9"), autorefresh=False)
    qtbot.addWidget(tab)
    fleet = _fleet_by_hand()
    a, b = fleet.nodes
    a = replace(a, source="simulated", gpus=tuple(replace(g, simulated=True) for g in a.gpus))
    finding = replace(fleet.findings[0], simulated=True)
    tab.show_fleet(replace(fleet, nodes=(a, b), findings=(finding,)))
    assert tab.findings.item(0).text() == "[critical] SIMULATED · b is down"
    assert tab.grid.item(0, 3).text() == "gpuprof · SIMULATED"
    assert tab.grid.item(1, 3).text() == "down"  # a down node says down, simulated or not
    assert "SIMULATED: 1 nodes serve demo data" in tab.status.text()


@pytest.mark.slow
def test_prometheus_flag_opens_the_fleet_tab(make_window, qtbot):
    from gpuprof.ui.fleet import tab as fleet_tab

    from gpuprof.fleet.client import PrometheusClient

    silent = StaticMetrics("{}", delay_s=30.0)
    try:
        fleet_tab.set_launch_client(PrometheusClient(silent.url, timeout_s=1.0))
        w = make_window()
        qtbot.waitUntil(lambda: "fleet" in w.tab_names, timeout=5000)
        assert w.current_tab_name() == "fleet"
        tab = w.tabs.currentWidget()
        assert tab.client.url == silent.url
        qtbot.waitUntil(lambda: tab.banner.isVisible(), timeout=10000)
        assert not fleet_tab._LAUNCH  # used once: the next window has no Fleet tab
        assert "fleet" not in make_window().tab_names
        tab.close_tab()
    finally:
        silent.close()


@pytest.mark.parametrize(("tab", "shown"), [("fleet", "fleet"), ("telemetry", "telemetry")])
@pytest.mark.slow
def test_prometheus_with_tab_opens_that_tab(qtbot, tmp_path: Path, tab: str, shown: str):
    """``gpuprof --prometheus URL --tab fleet`` opens on the Fleet tab on URL (it was refused:
    the tab was made after ``--tab`` was applied); another ``--tab`` wins over the Fleet tab."""
    from gpuprof.ui.fleet import tab as fleet_tab
    from gpuprof.ui.shell.app import build_window
    from gpuprof.ui.shell.settings import UiSettings

    from gpuprof.cli import _prometheus_client, build_parser

    with StaticMetrics("{}", delay_s=30.0) as silent:
        args = build_parser().parse_args(
            ["--demo", "--prometheus", silent.url, "--tab", tab, "--interval", "1"]
        )
        fleet_tab.set_launch_client(_prometheus_client(args))
        w = build_window(args, settings=UiSettings(tmp_path / "ui.ini"))
        qtbot.addWidget(w)
        try:
            w.show()
            qtbot.wait(50)  # nothing queued moves the window off the chosen tab
            assert w.current_tab_name() == shown
            assert "fleet" in w.tab_names
            fleet = w.tabs.widget(w.tab_names.index("fleet"))
            assert isinstance(fleet, fleet_tab.FleetTab) and fleet.client.url == silent.url
            fleet.close_tab()
        finally:
            w.close()


@pytest.mark.slow
def test_cli_prometheus_tab_fleet_is_accepted(tmp_path: Path):
    from PySide6.QtGui import QImage

    from tests.faults.hostile import run_gpuprof

    out = tmp_path / "fleet.png"
    with StaticMetrics("{}", delay_s=30.0) as silent:
        ran = run_gpuprof(
            [
                *("--demo", "--prometheus", silent.url, "--tab", "fleet"),
                *("--screenshot", str(out), "--after", "0", "--size", "800x600"),
            ],
            tmp_path,
        )
    assert ran.returncode == 0, ran.stderr
    assert "unknown tab" not in ran.stderr
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (800, 600)


@pytest.mark.slow
def test_connecting_again_replaces_the_prometheus(make_window, qtbot, own_fleet):
    from gpuprof.ui.fleet.tab import open_fleet

    from gpuprof.fleet.client import PrometheusClient

    with StaticMetrics("{}", delay_s=30.0) as silent:
        tab = _tab(make_window, silent.url, qtbot, timeout_s=3.0)
        assert tab.pending
        w = tab.window()
        again = open_fleet(w, PrometheusClient(own_fleet.url))
        assert again is tab and w.tab_names.count("fleet") == 1
        _loaded(tab, qtbot)
        assert tab.fleet.url == own_fleet.url
        qtbot.wait(3500)  # the silent server's query times out: its answer is dropped
        assert not tab.banner.isVisible() and tab.errors == 0
        tab.close_tab()


def test_grid_sort_click_and_refresh_on_the_model(qtbot):
    """The grid is a view on one model, filled in one reset per refresh: nodes stay in the
    fleet's order until a column is picked; a picked column (header click) holds across
    refreshes and keeps the filter; a mouse click on a GPU cell asks for that node's plots;
    another Prometheus empties it."""
    from gpuprof.ui.fleet.grid import GPU_ROLE, NODE_ROLE
    from gpuprof.ui.fleet.tab import FleetTab
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from gpuprof.fleet.client import PrometheusClient

    tab = FleetTab(PrometheusClient("http://127.0.0.1:9"), autorefresh=False)
    qtbot.addWidget(tab)
    tab.resize(1200, 800)
    tab.show()
    fleet = _fleet_by_hand()
    tab.show_fleet(fleet)
    grid = tab.grid
    assert grid.visible_nodes() == ["a", "b"]  # the fleet's own order: no sort yet
    assert grid.model().rowCount() == 2 and grid.model().columnCount() == grid.FIXED + 4
    assert grid.model().headerData(grid.FIXED + 3, Qt.Orientation.Horizontal) == "GPU 10"
    # Clicks on the header of node names: ascending, then descending.
    header = grid.horizontalHeader()

    def click_header(section: int) -> None:
        x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))

    click_header(0)
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert grid.visible_nodes() == ["a", "b"]
    click_header(0)
    assert grid.visible_nodes() == ["b", "a"]
    tab.show_fleet(fleet)  # a refresh keeps the user's sort
    assert grid.visible_nodes() == ["b", "a"]
    tab.filter.setText("cluster=x")
    header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
    assert grid.visible_nodes() == ["a"]  # sorted, still filtered
    tab.filter.setText("")
    assert grid.visible_nodes() == ["a", "b"]
    # A real mouse click on node a's GPU 10 cell.
    asked: list[tuple[tuple[str, str], str]] = []
    tab.drill_node = lambda key, gpu="": asked.append((key, gpu))  # type: ignore[method-assign]
    index = grid.model().index(0, grid.FIXED + 3)
    assert index.data(NODE_ROLE) == ("j", "a:9400") and index.data(GPU_ROLE) == "10"
    assert index.data(Qt.ItemDataRole.DisplayRole) == "99"
    rect = grid.visualRect(index)
    QTest.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert asked == [(("j", "a:9400"), "10")]
    # An empty cell (b has no GPU 10) asks nothing.
    empty = grid.model().index(1, grid.FIXED + 3)
    assert empty.data(Qt.ItemDataRole.DisplayRole) is None and grid.item(1, grid.FIXED + 3) is None
    QTest.mouseClick(
        grid.viewport(), Qt.MouseButton.LeftButton, pos=grid.visualRect(empty).center()
    )
    assert len(asked) == 1
    tab.close_tab()
    tab.set_client(PrometheusClient("http://127.0.0.1:9"))
    assert grid.rowCount() == 0 and grid.visible_nodes() == []


def test_grid_sort_keys_order_as_the_values_do():
    """The grid sorts in Qt by string keys: they must order as (numbers by value, then text
    by code point, None as "~") does in Python, for any numbers and any text."""
    import random

    from gpuprof.ui.fleet.grid import _order_key

    def python_key(v: float | str | None) -> tuple[int, float, str]:
        return (0, v, "") if isinstance(v, float) else (1, 0.0, str(v or "~"))

    rng = random.Random(7)
    values: list[float | str | None] = [None, "", "~", "a", "B", "é", "\U0001f600", "\ud800"]
    values += ["\uffff", "gpu-node-10", "gpu-node-9", 0.0, -0.0, 1e-300, -1e-300, 5e-324]
    values += [-1.5, 1.5, 99.0, 100.0, 1e300, -1e300, float("inf"), float("-inf")]
    values += [rng.uniform(-1e6, 1e6) for _ in range(200)]
    values += ["".join(chr(rng.randrange(1, 0x10FFFF)) for _ in range(3)) for _ in range(100)]
    keys = [_order_key(v) for v in values]
    assert all(k.isascii() for k in keys)
    by_python = sorted(range(len(values)), key=lambda i: python_key(values[i]))
    by_string = sorted(range(len(values)), key=lambda i: keys[i])
    assert [python_key(values[i]) for i in by_string] == [python_key(values[i]) for i in by_python]
