"""The Processes tab: host columns, sorting and filtering on them, a process's own history
chart, and Terminate / Kill (real child processes; never for SIMULATED or REPLAY rows)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt

from gpuprof.telemetry.model import HostSample, ProcessSample, Snapshot, SourceKind
from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls

GiB = 2**30
CONTAINER = "7702807882dd05ee9adab821a66796e558d4939cb2bb83bdc970659b78294d18"


def _rows(now_s: float = 1.7e9) -> tuple[ProcessSample, ...]:
    return (
        ProcessSample(
            pid=4242,
            gpu_index=0,
            gpu_mem_bytes=30 * GiB,
            sm_util_pct=91.0,
            mem_util_pct=35.0,
            name="python",
            user="alice",
            cmdline="python train.py",
            host_cpu_pct=250.0,
            host_rss_bytes=12 * GiB,
            start_time_s=now_s - 7200.0,
            container_id=CONTAINER,
            pod_name="llama-7b",
            pod_namespace="ml-team",
        ),
        ProcessSample(
            pid=777,
            gpu_index=1,
            gpu_mem_bytes=12 * GiB,
            sm_util_pct=40.0,
            mem_util_pct=8.0,
            name="vllm",
            user="bob",
            cmdline="vllm serve mistral",
            host_cpu_pct=95.5,
            host_rss_bytes=30 * GiB,
            start_time_s=now_s - 60.0,
        ),
        ProcessSample(pid=1001, gpu_index=1, gpu_mem_bytes=2 * GiB, name="Xorg", user="root"),
    )


def _col(tab: Any, attr: str) -> int:
    from gpuprof.ui.telemetry.processes.model import COLUMN

    return COLUMN[attr]


def _pids(tab: Any) -> list[str]:
    return [tab.proxy.index(r, 0).data() for r in range(tab.proxy.rowCount())]


def _open(make_window: Any, source: FakeSource, n: int = 1) -> Any:
    w = make_window(source)
    polls(w, n)
    w.select_tab("processes")
    w.processes.refresh(force=True)
    return w


@pytest.mark.slow
def test_host_columns_sorting_and_filtering(make_window: Any) -> None:
    src = FakeSource(2, kind=SourceKind.NVML)
    src.processes = _rows(src.t + 1.0)
    tab = _open(make_window, src).processes
    headers = [tab.model.headerData(c, Qt.Orientation.Horizontal) for c in range(13)]
    for h in ("CPU %", "Host memory", "Run time", "SM %", "Mem ctrl %", "Container / pod"):
        assert h in headers
    row = {tab.proxy.index(0, c).data(): c for c in range(13)}  # GPU memory, descending
    assert _pids(tab)[0] == "4242"
    assert "250%" in row and "12.0 GiB" in row and "2h 0m" in row and "35%" in row
    assert "ml-team/llama-7b" in row
    tip = tab.proxy.index(0, _col(tab, "container")).data(Qt.ItemDataRole.ToolTipRole)
    assert CONTAINER in tip and "llama-7b" in tip
    tab.table.sortByColumn(_col(tab, "host_cpu_pct"), Qt.SortOrder.DescendingOrder)
    assert _pids(tab) == ["4242", "777", "1001"]  # 250 > 95.5 > N/A (numerically, not as text)
    tab.table.sortByColumn(_col(tab, "run_time_s"), Qt.SortOrder.AscendingOrder)
    assert _pids(tab) == ["1001", "777", "4242"]
    tab.table.sortByColumn(_col(tab, "host_rss_bytes"), Qt.SortOrder.DescendingOrder)
    assert _pids(tab) == ["777", "4242", "1001"]
    for text, pids in (
        ("ML-TEAM", ["4242"]),
        ("7702807882dd05", ["4242"]),
        ("llama", ["4242"]),
        ("bob", ["777"]),
        ("serve", ["777"]),
        ("xorg", ["1001"]),
        ("1001", ["1001"]),
        ("nothing-matches", []),
    ):
        tab.filter.setText(text)
        assert _pids(tab) == pids, text
    tab.filter.clear()
    assert len(_pids(tab)) == 3


def test_selected_process_gets_its_history_chart_even_while_hidden(make_window: Any) -> None:
    src = FakeSource(2, kind=SourceKind.NVML)
    src.processes = _rows(src.t)
    w = _open(make_window, src, n=3)
    tab = w.processes
    assert tab.chart.key is None and tab.chart.points == 0
    assert tab.select_pid(4242)
    assert tab.chart.key == (4242, 0) and tab.chart.points == 3
    assert "pid 4242 (python) on GPU 0" in tab.chart.title.text()
    w.select_tab("overview")
    polls(w, 2)  # the tab is hidden: its history still grows
    w.select_tab("processes")
    w.processes.refresh(force=True)
    assert tab.chart.points == 5
    trace = tab.history.trace((4242, 0))
    assert trace is not None and list(trace.cpu_pct) == [250.0] * 5
    # Another set of processes resets the model: the chosen process stays selected.
    src.processes = (*src.processes, ProcessSample(pid=9, gpu_index=0, gpu_mem_bytes=1))
    polls(w, 1)
    tab.refresh(force=True)
    assert tab.selected_process() is not None and tab.selected_process().pid == 4242
    assert tab.chart.points == 6


def _me() -> ProcessSample:
    return ProcessSample(
        pid=os.getpid(),
        gpu_index=0,
        gpu_mem_bytes=GiB,
        start_time_s=psutil.Process().create_time(),
    )


def _snap(
    t: float, procs: tuple[ProcessSample, ...], kind: SourceKind = SourceKind.NVML
) -> Snapshot:
    return Snapshot(time_s=t, source=kind, host=HostSample(), processes=procs)


def test_history_is_bounded_and_starts_afresh() -> None:
    from gpuprof.ui.telemetry.processes.chart import ProcessHistory

    h = ProcessHistory(max_points=4, max_processes=2)
    a = ProcessSample(pid=1, gpu_index=0, gpu_mem_bytes=1, start_time_s=10.0)
    for t in range(10):
        h.add(_snap(100.0 + t, (a,)))
    trace = h.trace((1, 0))
    assert trace is not None and list(trace.t_s) == [106.0, 107.0, 108.0, 109.0]
    h.add(_snap(109.0, (a,)))  # the same snapshot again: taken once
    assert len(h.trace((1, 0)).t_s) == 4
    # A reused pid (another start time) is another process.
    h.add(_snap(110.0, (replace(a, start_time_s=50.0),)))
    assert len(h.trace((1, 0)).t_s) == 1
    # At most two processes: the least recently seen goes.
    for pid in (2, 3):
        h.add(_snap(111.0 + pid, (ProcessSample(pid=pid, gpu_index=0),)))
    assert len(h) == 2 and h.trace((1, 0)) is None
    # A replay that jumps back, or another source, starts afresh.
    h.add(_snap(50.0, (a,)))
    assert len(h) == 1
    h.add(_snap(60.0, (a,), SourceKind.REPLAY))
    assert len(h) == 1 and len(h.trace((1, 0)).t_s) == 1


@pytest.mark.parametrize(
    ("kind", "words"),
    [(SourceKind.SIMULATED, "SIMULATED"), (SourceKind.REPLAY, "REPLAY")],
)
def test_no_signals_for_simulated_or_replayed_rows(
    qtbot: Any, kind: SourceKind, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.telemetry import procctl

    sent: list[Any] = []
    monkeypatch.setattr(procctl, "send_signal", lambda *a, **k: sent.append(a))
    from gpuprof.ui.shell.state import UiState
    from gpuprof.ui.telemetry.processes.tab import ProcessesTab

    # The tab alone, on what a replay or the simulator delivers (pids that may even be real).
    state = UiState(latest=_snap(1.7e9, (*_rows(), _me()), kind))
    state.updates = 1
    tab = ProcessesTab(state)
    qtbot.addWidget(tab)
    tab.refresh()
    assert tab.select_pid(os.getpid())
    for widget in (tab.terminate_button, tab.kill_button):
        assert not widget.isEnabled() and words in widget.toolTip()
    menu = tab.context_menu()
    assert [a.isEnabled() for a in menu.actions()] == [False, False]
    assert words in menu.actions()[0].toolTip()
    tab.confirm = lambda *_: pytest.fail("no confirmation may be asked")  # type: ignore[assignment]
    assert tab.terminate_selected() is False and tab.kill_selected() is False
    assert sent == []


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print(1, flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"1"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    proc.stdout.close()


def _live_tab(make_window: Any, proc: subprocess.Popen[bytes], **changes: Any) -> Any:
    src = FakeSource(2, kind=SourceKind.NVML)
    start = psutil.Process(proc.pid).create_time()
    row = ProcessSample(
        pid=proc.pid,
        gpu_index=1,
        gpu_mem_bytes=3 * GiB,
        name="python",
        user="me",
        cmdline=f"{sys.executable} -c ... --api-key sk-abcdefghijklmnopqrstuvwxyz012345",
        start_time_s=start,
    )
    src.processes = (replace(row, **changes),)
    tab = _open(make_window, src).processes
    assert tab.select_pid(proc.pid)
    return tab


@pytest.mark.slow
def test_terminate_and_kill_a_live_process_after_confirmation(
    make_window: Any, child: subprocess.Popen[bytes]
) -> None:
    tab = _live_tab(make_window, child)
    assert tab.terminate_button.isEnabled() and tab.kill_button.isEnabled()
    asked: list[tuple[str, str]] = []
    tab.confirm = lambda q, d: asked.append((q, d)) or False  # type: ignore[assignment]
    assert tab.kill_selected() is False  # declined: nothing sent
    assert child.poll() is None
    question, details = asked[0]
    assert "SIGKILL" in question and str(child.pid) in question
    assert "GPU memory 3.0 GiB" in details and "sk-abcdefghijklmnopqrstuvwxyz012345" not in details
    tab.confirm = lambda q, d: True  # type: ignore[assignment]
    assert tab.terminate_selected() is True  # sent; this child ignores it
    assert "SIGTERM sent to" in tab.note.text() and child.poll() is None
    menu = tab.context_menu()
    kill = next(a for a in menu.actions() if "SIGKILL" in a.text())
    assert kill.isEnabled()
    kill.trigger()
    assert child.wait(timeout=10) == -signal.SIGKILL


@pytest.mark.slow
def test_a_row_whose_pid_now_belongs_to_another_process_is_refused(
    make_window: Any, child: subprocess.Popen[bytes]
) -> None:
    start = psutil.Process(child.pid).create_time()
    tab = _live_tab(make_window, child, start_time_s=start - 3600.0)
    warned: list[str] = []
    tab.warn = warned.append  # type: ignore[assignment]
    tab.confirm = lambda *_: pytest.fail("no confirmation for another process")  # type: ignore[assignment]
    assert tab.kill_selected() is False
    assert warned and "different process" in warned[0]
    assert child.poll() is None


def test_a_vanished_process_is_reported(make_window: Any, child: subprocess.Popen[bytes]) -> None:
    tab = _live_tab(make_window, child)
    child.kill()
    child.wait()
    warned: list[str] = []
    tab.warn = warned.append  # type: ignore[assignment]
    assert tab.terminate_selected() is False
    assert warned and f"no process with pid {child.pid}" in warned[0]
    assert warned[0] in tab.note.text()


def test_a_kernel_thread_row_is_refused_before_any_confirmation(make_window: Any) -> None:
    """The tab shares gpuprof kill's rule (procctl.describe): pid 2, kthreadd, is never signalled."""
    from gpuprof.telemetry.procctl import is_kernel_thread

    if not is_kernel_thread(2):
        pytest.skip("pid 2 is not a kernel thread here (not Linux, or a container's pid namespace)")
    src = FakeSource(2, kind=SourceKind.NVML)
    start = psutil.Process(2).create_time()
    src.processes = (ProcessSample(pid=2, gpu_index=0, name="kthreadd", start_time_s=start),)
    tab = _open(make_window, src).processes
    assert tab.select_pid(2)
    warned: list[str] = []
    tab.warn = warned.append  # type: ignore[assignment]
    tab.confirm = lambda *_: pytest.fail("no confirmation for a kernel thread")  # type: ignore[assignment]
    assert tab.kill_selected() is False and tab.terminate_selected() is False
    assert len(warned) == 2 and "kernel thread" in warned[0] and "pid 2" in warned[0]
    assert warned[0] in tab.note.text()
