"""The window's Telemetry and Processes tabs on AMD GPUs (the fake amdsmi, through the real
window): an MI300X (no edge sensor) plots its junction temperature, labelled junction in the
title, the legend's tooltip, the read-out and the slowdown line, and its XGMI read/write in the
interconnect plot; a mixed box says which GPUs draw what; Terminate / Kill are offered for AMD
processes, with their VRAM in the confirmation."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import psutil
import pytest

pytest.importorskip("PySide6")

from gpuprof.telemetry.amd import AmdSmiSource
from gpuprof.telemetry.vendors import MultiVendorSource
from tests.fakes.devices import BOXES as NVIDIA_BOXES
from tests.fakes.fake_amdsmi import BOXES, FakeAmdProcess, FakeAmdSmi


def _amd_window(make_window: Callable[..., Any], fake: FakeAmdSmi, source: Any = None) -> Any:
    src = source if source is not None else AmdSmiSource(smi=fake, clock=fake.clock)
    w = make_window(src, tab="telemetry")
    for _ in range(3):  # XGMI rates need two samples
        w.poll_now()
        fake.advance(1.0)
    w.select_tab("telemetry")
    w.telemetry.refresh(force=True)
    return w


def _finite(plot: Any, key: tuple[int, str]) -> bool:
    _x, y = plot.data[key]
    return bool(np.isfinite(y).any())


def test_mi300x_plots_its_junction_temperature_labelled_junction(make_window: Any) -> None:
    fake = FakeAmdSmi(BOXES["mi300x8"]())
    w = _amd_window(make_window, fake)
    tab = w.telemetry
    temp = tab.plots["temp"]
    for gpu in range(8):
        assert _finite(temp, (gpu, "temp_hotspot_c"))
        assert (gpu, "temp_gpu_c") not in temp.data  # nothing is drawn as edge
    assert "junction" in temp.item.titleLabel.text and "edge" not in temp.item.titleLabel.text
    text = tab.show_values_at(-0.01, "temp")
    assert "GPU junction temperature" in text
    assert "<b>GPU 3</b> junction</span> 68 °C" in text  # fixture: 38 °C idle + 30
    assert "junction (hotspot)" in tab.gpu_checks[3].toolTip()
    assert [line.label.format for line in temp.lines] == ["junction slowdown 100 °C"]


def test_mi300x_plots_xgmi_where_nvlink_is_absent(make_window: Any) -> None:
    fake = FakeAmdSmi(BOXES["mi300x8"]())
    w = _amd_window(make_window, fake)
    tab = w.telemetry
    tab.set_secondary_mode("on")
    link = tab.plots["nvlink"]
    assert _finite(link, (0, "xgmi_read_bytes_s")) and _finite(link, (0, "xgmi_write_bytes_s"))
    assert link.item.titleLabel.text.startswith("XGMI — read")
    text = tab.show_values_at(-0.01, "nvlink")
    assert text.startswith("<b>XGMI</b>") and "XGMI read" in text and "XGMI write" in text
    tab.set_secondary_mode("off")
    assert link.item.titleLabel.text == "XGMI — read (write: not drawn)"


def test_a_mixed_box_says_which_gpus_draw_the_junction(
    make_window: Any, make_fake_nvml: Callable[..., Any]
) -> None:
    from gpuprof.telemetry.nvml.source import NvmlSource

    make_fake_nvml(NVIDIA_BOXES["rtx4090x2"]())
    fake = FakeAmdSmi(BOXES["mi300x8"]())
    source = MultiVendorSource(NvmlSource(), AmdSmiSource(smi=fake, clock=fake.clock))
    w = _amd_window(make_window, fake, source)
    tab = w.telemetry
    temp = tab.plots["temp"]
    assert _finite(temp, (0, "temp_gpu_c")) and _finite(temp, (2, "temp_hotspot_c"))
    assert "junction where a GPU has no edge sensor" in temp.item.titleLabel.text
    assert "junction" not in tab.gpu_checks[0].toolTip()
    assert "junction" in tab.gpu_checks[2].toolTip()
    text = tab.show_values_at(-0.01, "temp")
    assert "<b>GPU 0</b></span>" in text and "<b>GPU 2</b> junction</span>" in text
    labels = {line.label.format for line in temp.lines}
    assert "junction slowdown 100 °C" in labels and any(lb.startswith("slowdown ") for lb in labels)
    # Unticking the NVIDIA GPUs leaves only junction curves: the title says so.
    w.set_selected_gpus(set(range(2, 10)))
    tab.refresh(force=True)
    assert temp.item.titleLabel.text.startswith("GPU junction temperature")


def test_mi250x_keeps_its_edge_temperature(make_window: Any) -> None:
    fake = FakeAmdSmi(BOXES["mi250x2"]())
    w = _amd_window(make_window, fake)
    temp = w.telemetry.plots["temp"]
    assert _finite(temp, (0, "temp_gpu_c")) and (0, "temp_hotspot_c") not in temp.data
    assert temp.item.titleLabel.text.startswith("GPU temperature (slowdown")
    # amdsmi's slowdown threshold is the junction sensor's: the line says so.
    assert [line.label.format for line in temp.lines] == ["junction slowdown 100 °C"]


def test_terminate_and_kill_are_offered_for_an_amd_process(
    make_window: Any, sleep_child: subprocess.Popen[bytes]
) -> None:
    psutil.Process(sleep_child.pid)  # started
    fake = FakeAmdSmi(BOXES["mi300x8"]())
    fake.box.gpus[4].processes.append(FakeAmdProcess(sleep_child.pid, "sleep", 3 * 2**30))
    w = _amd_window(make_window, fake)
    w.select_tab("processes")
    tab = w.processes
    tab.refresh(force=True)
    assert tab.select_pid(sleep_child.pid)
    assert tab.terminate_button.isEnabled() and tab.kill_button.isEnabled()
    asked: list[tuple[str, str]] = []
    tab.confirm = lambda q, d: asked.append((q, d)) or False  # type: ignore[assignment]
    assert tab.terminate_selected() is False  # declined: nothing sent
    assert "GPU: 4, GPU memory 3.0 GiB" in asked[0][1] and sleep_child.poll() is None
