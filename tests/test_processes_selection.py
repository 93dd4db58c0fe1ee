"""The Processes tab's selection is the user's: a process the user deselected stays deselected
when the next poll brings another set of processes (the model's reset reselected it, and its
chart came back, one poll after Ctrl+click had closed it), while a reset keeps a process the
user did choose."""

from __future__ import annotations

from typing import Any

from gpuprof.telemetry.model import ProcessSample, SourceKind
from tests.ui_fakes import FakeSource
from tests.ui_fixtures import polls

GiB = 2**30


def _rows(*pids: int) -> tuple[ProcessSample, ...]:
    return tuple(
        ProcessSample(pid=p, gpu_index=0, gpu_mem_bytes=GiB * (k + 1), name=f"job{p}")
        for k, p in enumerate(pids)
    )


def _tab(make_window: Any) -> tuple[Any, FakeSource]:
    src = FakeSource(1, kind=SourceKind.NVML)
    src.processes = _rows(4242, 777)
    w = make_window(src)
    polls(w, 1)
    w.select_tab("processes")
    w.processes.refresh(force=True)
    return w, src


def _poll_with_a_new_set(w: Any, src: FakeSource, *pids: int) -> None:
    src.processes = _rows(*pids)
    polls(w, 1)
    w.processes.refresh(force=True)


def test_a_deselected_process_stays_deselected_across_a_model_reset(make_window: Any) -> None:
    w, src = _tab(make_window)
    tab = w.processes
    assert tab.select_pid(4242)
    assert tab.chart.key == (4242, 0)
    tab.table.clearSelection()  # the user's Ctrl+click
    assert tab.selected_process() is None and tab.chart.key is None
    _poll_with_a_new_set(w, src, 4242, 777, 9)
    assert tab.selected_process() is None
    assert tab.chart.key is None and not tab.chart.memory.isVisible()


def test_a_chosen_process_stays_chosen_across_a_reset(make_window: Any) -> None:
    w, src = _tab(make_window)
    tab = w.processes
    assert tab.select_pid(4242)
    _poll_with_a_new_set(w, src, 4242, 777, 9)
    _poll_with_a_new_set(w, src, 4242, 9)
    assert tab.selected_process() is not None and tab.selected_process().pid == 4242
    assert tab.chart.key == (4242, 0) and tab.chart.memory.isVisible()


def test_a_filter_that_hides_every_row_keeps_the_choice(make_window: Any) -> None:
    w, _src = _tab(make_window)
    tab = w.processes
    assert tab.select_pid(4242)
    tab.filter.setText("nothing-matches")
    assert tab.selected_process() is None
    tab.filter.clear()
    assert tab.selected_process() is not None and tab.selected_process().pid == 4242
