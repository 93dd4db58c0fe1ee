"""The Health tab driven with qtbot: throttling demo, all clear, details, summary, hidden, copy."""

from __future__ import annotations

import importlib.metadata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")

from gpuprof.health.diagnose import Severity, installed_torch_cuda_version, torch_cuda_from_version
from gpuprof.telemetry.model import (
    DeviceInfo,
    EccCounts,
    HostSample,
    Snapshot,
    SourceKind,
    SystemInfo,
)
from gpuprof.telemetry.sources import THROTTLE_S, SimulatedSource
from tests.fakes.devices import h100_info, h100_sample

# The offscreen platform plugin warns whenever a top-level window gets size constraints.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

GiB = 2**30


class Clock:
    """Manual monotonic clock for the tab's run throttle."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def make_tab(qtbot):
    from gpuprof.ui.health.tab import HealthTab
    from gpuprof.ui.shell.app import make_app

    make_app()

    def make(**kwargs):
        kwargs.setdefault("torch_cuda_version", None)
        tab = HealthTab(**kwargs)
        qtbot.addWidget(tab)
        tab.resize(1200, 800)
        return tab

    return make


def throttling_demo(n: int = 120) -> tuple[SimulatedSource, list[Snapshot]]:
    """The demo source polled once a second up to the end of its power-cap episode."""
    t = [0.0]
    src = SimulatedSource("h100x8", clock=lambda: t[0], start_s=0.0)
    snaps = []
    for k in range(n):
        t[0] = THROTTLE_S[1] - n + k
        snaps.append(src.poll())
    return src, snaps


def healthy(n: int = 30) -> tuple[list[DeviceInfo], SystemInfo, list[Snapshot]]:
    devices = [h100_info(i) for i in range(2)]
    system = SystemInfo(hostname="box", driver_version="565.57.01", cuda_driver_version="12.7")
    snaps = [
        Snapshot(
            time_s=1.7e9 + k,
            source=SourceKind.NVML,
            host=HostSample(cpu_pct=20.0),
            gpus=tuple(
                h100_sample(
                    i,
                    util_gpu_pct=96.0,
                    mem_used_bytes=60 * GiB,
                    power_w=500.0,
                    temp_gpu_c=65.0,
                    ecc=EccCounts.clean(),
                )
                for i in range(2)
            ),
        )
        for k in range(n)
    ]
    return devices, system, snaps


def _diagnose(tab: Any, devices: Any, system: Any, snaps: list[Snapshot]) -> None:
    """Give the tab the machine and its snapshots, and diagnose them now."""
    tab.set_static(devices, system)
    tab.add_snapshots(snaps)
    tab.run_now()


def _diagnosed_demo(make_tab: Any, *, static: bool = True) -> tuple[Any, SimulatedSource]:
    """A shown tab that has diagnosed the throttling demo, given its static facts first
    unless ``static`` is false; and the demo's source."""
    tab = make_tab()
    src, snaps = throttling_demo()
    tab.show()
    if static:
        tab.set_static(src.devices(), src.system_info())
    tab.add_snapshots(snaps)
    tab.run_now()
    return tab, src


def test_throttling_demo_shows_power_throttling(make_tab, qtbot):
    tab, _ = _diagnosed_demo(make_tab)
    codes = {(f.code, f.gpu_index) for f in tab.findings}
    assert {("power_throttling", i) for i in range(8)} <= codes
    assert ("thermal_throttling", 7) in codes  # the last demo GPU also overheats
    assert tab.stack.currentWidget() is tab.splitter
    assert tab.table.topLevelItemCount() == len(tab.findings)
    titles = [tab.table.topLevelItem(r).text(2) for r in range(tab.table.topLevelItemCount())]
    assert "clocks limited by power under load" in titles
    assert tab.table.topLevelItem(0).text(1) == "GPU 0"
    assert tab.sim_badge.isVisible()  # demo data is labelled SIMULATED
    assert tab.worst_severity is Severity.WARNING
    assert len(tab.findings) == 9
    assert tab.summary == "9 warnings"


def test_healthy_set_shows_all_clear_with_the_checks(make_tab):
    tab = make_tab(torch_cuda_version="12.6")
    devices, system, snaps = healthy()
    tab.show()
    _diagnose(tab, devices, system, snaps)
    assert tab.findings == []
    assert tab.worst_severity is None
    assert tab.summary == "All clear"
    assert tab.stack.currentIndex() == 2
    assert "All clear" in tab.clear_title.text()
    text = tab.checks_label.text()
    assert "PCIe link" in text and "throttling" in text and "ECC" in text and "Persistence" in text
    assert "CUDA 12.6" in text
    assert tab.checks_label.text().count("✓") == len(tab.checks()) >= 8
    assert "30 snapshots" in tab.clear_scope.text()
    assert tab.clear_note.text() == ""  # the GPUs were busy: load checks had something to judge


def test_idle_window_says_the_load_checks_had_nothing_to_judge(make_tab):
    tab = make_tab()
    devices, system, snaps = healthy(5)
    idle = [
        replace(s, gpus=tuple(replace(g, util_gpu_pct=0.0, mem_used_bytes=0) for g in s.gpus))
        for s in snaps
    ]
    tab.show()
    _diagnose(tab, devices, system, idle)
    assert tab.summary == "All clear"
    assert "nothing to judge" in tab.clear_note.text()
    not_run = dict(tab.not_run_checks())
    pcie = "PCIe link at its maximum generation and width under load"
    assert not_run[pcie] == "no GPU was under load (utilization ≥ 50%)"
    assert pcie in tab.clear_note.text() and pcie not in tab.checks_label.text()


def test_a_check_that_did_not_run_is_listed_as_not_run_not_as_passed(make_tab):
    """No CUDA build of torch: the driver check has nothing to compare, so it did not pass."""
    from PySide6.QtWidgets import QApplication

    tab = make_tab(torch_cuda_version=None)
    devices, system, snaps = healthy()
    tab.show()
    _diagnose(tab, devices, system, snaps)
    assert tab.summary == "All clear"
    driver = "The driver supports the CUDA version the installed torch was built for"
    why = "no CUDA build of torch is installed: nothing to compare"
    assert tab.not_run_checks() == [(driver, why)]
    assert driver not in dict(tab.check_results())
    assert driver not in tab.checks_label.text() and "torch" not in tab.checks_label.text()
    assert tab.checks_label.text().count("✓") == len(tab.checks()) - 1
    assert "Not run" in tab.clear_note.text() and why in tab.clear_note.text()
    tab.copy_findings()
    text = QApplication.clipboard().text()
    assert text.index("What was checked:") < text.index("Not run") < text.index(driver)
    # With a finding on show, the checklist beside it keeps the check apart too.
    _, throttled = throttling_demo()
    tab.clear(static=False)
    tab.add_snapshots(throttled)
    tab.run_now()
    shown = tab.details.toPlainText()
    assert shown.index("Not run") < shown.index(driver) and f"✓\n{driver}" not in shown


def test_selecting_a_row_shows_detail_and_hint(make_tab):
    tab, src = _diagnosed_demo(make_tab)
    row = next(r for r, f in enumerate(tab.findings) if f.code == "thermal_throttling")
    tab.select_finding(row)
    f = tab.selected_finding()
    assert f is not None and f.code == "thermal_throttling" and f.gpu_index == 7
    shown = tab.details.toPlainText()
    assert "Improve cooling" in shown  # the hint
    assert "software thermal slowdown" in shown  # the detail
    assert "NVIDIA H100 80GB HBM3" in shown
    # The checklist under it: throttling failed on GPUs 0-7, the PCIe check passed.
    checks = dict(tab.check_results())
    assert {f.gpu_index for f in checks["No thermal or power throttling under load"]} == set(
        range(8)
    )
    assert checks["PCIe link at its maximum generation and width under load"] == []
    assert "✗\nNo thermal or power throttling under load (GPUs 0–7)" in shown
    assert "✓\nPCIe link at its maximum generation and width under load" in shown
    # The selection survives a re-run with new data.
    tab.add_snapshot(src.poll())
    tab.run_now()
    assert (
        tab.selected_finding() is not None and tab.selected_finding().code == "thermal_throttling"
    )


def test_details_escape_system_text_and_show_commands_as_code(make_tab):
    tab = make_tab()
    devices, system, snaps = healthy(3)
    devices = [
        replace(d, name="<script>alert(1)</script>", persistence_mode=False) for d in devices
    ]
    tab.show()
    _diagnose(tab, devices, system, snaps)
    f = tab.findings[0]
    assert f.code == "persistence_off"
    body = tab.details_html(f)
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert "<code>sudo nvidia-smi -pm 1</code>" in body


def test_summary_signal_and_worst_severity(make_tab, qtbot):
    tab = make_tab()
    devices, system, snaps = healthy(3)
    tab.show()
    seen: list[str] = []
    tab.summary_changed.connect(seen.append)
    _diagnose(tab, devices, system, snaps)
    assert seen[-1] == "All clear"
    assert tab.summary_icon().isNull()
    # GPU 1 reports an uncorrectable ECC error and GPU 0 a power limit below default.
    from gpuprof.telemetry.model import EccCounts

    bad = replace(
        snaps[-1],
        time_s=snaps[-1].time_s + 1,
        gpus=(
            replace(snaps[-1].gpus[0], power_limit_w=500.0),
            replace(snaps[-1].gpus[1], ecc=EccCounts(volatile_uncorrected=2)),
        ),
    )
    with qtbot.waitSignal(tab.summary_changed, timeout=1000) as blocker:
        tab.add_snapshot(bad)
        tab.run_now()
    assert blocker.args == ["1 critical, 1 warning"]
    assert tab.worst_severity is Severity.CRITICAL
    assert tab.summary_label.text() == "1 critical, 1 warning"
    assert tab.findings[0].code == "ecc_uncorrectable"  # most urgent first
    assert not tab.summary_icon().isNull()


def test_diagnose_not_run_while_hidden_and_throttled_while_visible(make_tab, qtbot):
    clock = Clock()
    tab = make_tab(clock=clock)
    devices, system, snaps = healthy(10)
    tab.set_static(devices, system)
    for s in snaps:
        tab.add_snapshot(s)
        tab.refresh()
    assert tab.run_count == 0  # hidden: nothing ran
    assert tab.stack.currentIndex() == 0
    tab.show()
    qtbot.waitExposed(tab)
    assert tab.run_count == 1  # shown: ran at once
    assert tab.snapshot_count == 10
    more = [replace(s, time_s=s.time_s + 100) for s in snaps]
    tab.add_snapshot(more[0])
    tab.refresh()
    assert tab.run_count == 1  # within the 2 s period
    assert tab._timer.isActive()  # ... but a run is scheduled for later
    clock.t += 2.5
    tab.add_snapshot(more[1])
    assert tab.run_count == 2
    tab.hide()
    clock.t += 10
    tab.add_snapshot(more[2])
    tab.refresh()
    assert tab.run_count == 2 and not tab._timer.isActive()


def test_scheduled_run_fires_after_the_period(make_tab, qtbot):
    tab = make_tab(min_period_s=0.05)  # real monotonic clock, short period
    devices, system, snaps = healthy(3)
    tab.show()
    tab.set_static(devices, system)
    first = tab.run_count
    tab.add_snapshot(snaps[0])
    qtbot.waitUntil(lambda: tab.run_count > first and tab.snapshot_count == 1, timeout=2000)


def test_window_keeps_the_last_snapshots_and_restarts_on_time_going_back(make_tab):
    tab = make_tab(window_snapshots=20)
    devices, system, snaps = healthy(50)
    for s in snaps:
        tab.add_snapshot(s)
    assert tab.snapshot_count == 20
    tab.add_snapshot(snaps[0])  # a replay seek back (or a new source)
    assert tab.snapshot_count == 1
    tab.add_snapshots(reversed(snaps[1:30]))  # a prefill batch: merged in time order
    assert tab.snapshot_count == 20
    assert [s.time_s for s in tab._snaps] == sorted(s.time_s for s in snaps[10:30])
    tab.set_static(devices, system)
    tab.clear(static=False)  # a replay seek: same machine
    assert tab.snapshot_count == 0 and tab.summary == ""
    tab.show()
    tab.add_snapshot(snaps[0])
    assert tab.run_count == 1 and [d.name for d in tab._devices] == [d.name for d in devices]


def test_copy_findings_puts_plain_text_on_the_clipboard(make_tab, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    tab = make_tab()
    src, snaps = throttling_demo()
    tab.show()
    assert not tab.copy_button.isEnabled()
    _diagnose(tab, src.devices(), src.system_info(), snaps)
    QApplication.clipboard().clear()
    qtbot.mouseClick(tab.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert text.startswith("gpuprof health: ")
    assert "sim-hgx-h100" in text and "SIMULATED" in text
    assert "[WARNING] GPU 0: clocks limited by power under load" in text
    assert text.count("What to do:") == len(tab.findings)
    assert "<" not in text  # plain text, no markup


def test_copy_when_all_clear_lists_the_checks(make_tab):
    from PySide6.QtWidgets import QApplication

    tab = make_tab()
    devices, system, snaps = healthy(3)
    tab.show()
    _diagnose(tab, devices, system, snaps)
    tab.copy_findings()
    text = QApplication.clipboard().text()
    assert "All clear" in text and "What was checked:" in text
    assert text.count("\n- ") == len(tab.checks())


def test_load_checks_run_before_static_facts_arrive(make_tab):
    tab, _ = _diagnosed_demo(make_tab, static=False)
    assert any(f.code == "power_throttling" for f in tab.findings)


def test_theme_changes_severity_colours(make_tab):
    from gpuprof.ui.health.tab import severity_colours
    from gpuprof.ui.shell.theme import THEMES

    tab, _ = _diagnosed_demo(make_tab, static=False)
    tab.apply_theme(THEMES["dark"])
    dark = tab.table.topLevelItem(0).foreground(0).color().name()
    tab.apply_theme(THEMES["light"])
    light = tab.table.topLevelItem(0).foreground(0).color().name()
    assert dark == severity_colours(True)[Severity.WARNING]
    assert light == severity_colours(False)[Severity.WARNING]
    assert dark != light


def test_in_the_main_window(make_window, qtbot):
    from gpuprof.ui.health.tab import HealthTab

    w = make_window()
    # The window builds the tab and feeds it snapshots and the static facts.
    tab = w.health
    assert isinstance(tab, HealthTab)
    index = w.tab_names.index("health")
    assert tab.snapshot_count == 0
    for _ in range(5):
        w.poll_now()
    assert tab.run_count == 0 and tab.snapshot_count == 5  # hidden tab: fed, not run
    w.select_tab("health")
    qtbot.waitUntil(lambda: tab.run_count >= 1, timeout=5000)
    assert w.tabs.tabText(index).startswith("Health (")
    w.close()


@pytest.mark.parametrize(
    ("version", "cuda"),
    [
        ("2.13.0+cu126", "12.6"),
        ("2.4.1+cu118", "11.8"),
        ("2.2.0+cu121.with.pypi", "12.1"),
        ("2.13.0+cpu", None),
        ("2.5.1+rocm6.2", None),
        ("2.5.1", None),
    ],
)
def test_torch_cuda_from_version(version, cuda):
    assert torch_cuda_from_version(version) == cuda


def test_installed_torch_cuda_version_reads_metadata_without_importing_torch(monkeypatch):
    import sys

    class Dist:
        version = "2.13.0+cu126"

        def locate_file(self, name):  # pragma: no cover - the tag answers first
            raise AssertionError("not needed")

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Dist())
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert installed_torch_cuda_version() == "12.6"
    assert "torch" not in sys.modules

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    assert installed_torch_cuda_version() is None


def test_installed_torch_cuda_version_untagged_reads_version_py(monkeypatch, tmp_path: Path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text("cuda: Optional[str] = '12.4'\n")

    class Dist:
        version = "2.5.1"

        def locate_file(self, name):
            return tmp_path / name

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Dist())
    assert installed_torch_cuda_version() == "12.4"


def test_gpu_lists_are_compact(make_tab):
    from gpuprof.health.diagnose import Finding

    tab = make_tab()

    def fs(*idx):
        return [Finding("x", Severity.INFO, "t", "d", "h", i) for i in idx]

    assert tab._gpus_text(fs(3)) == "GPU 3"
    assert tab._gpus_text(fs(7, 0, 1, 2, 3, 4, 5, 6)) == "GPUs 0–7"
    assert tab._gpus_text(fs(0, 2, 3, 4, 9, 10)) == "GPUs 0, 2–4, 9, 10"
    assert tab._gpus_text(fs(None)) == "all"
