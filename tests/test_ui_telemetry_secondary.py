"""The Telemetry tab's pale secondary series: drawn by GPU count, overridable, remembered."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.ui_fixtures import polls

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

PALE = ("util_mem_pct", "clock_mem_mhz", "pcie_tx_bytes_s", "nvlink_tx_bytes_s")


@pytest.fixture
def telemetry_window(make_window):
    """A window on ``n_gpus`` fake GPUs, polled 5 times, showing the Telemetry tab."""

    def make(n_gpus: int, ui_settings=None):
        w = make_window(n_gpus=n_gpus, ui_settings=ui_settings)
        polls(w, 5)
        w.select_tab("telemetry")
        w.telemetry.refresh(force=True)
        return w

    return make


def drawn_pale(w) -> set[tuple[int, str]]:
    """(gpu, field) of every pale series that has data and a visible curve."""
    out = set()
    for plot in w.telemetry.plots.values():
        for key, curve in plot.curves.items():
            if key[1] in PALE and curve.isVisible():
                assert key in plot.data
                out.add(key)
            elif key[1] in PALE:
                assert key not in plot.data
    return out


def titles(w) -> str:
    return " | ".join(p.item.titleLabel.text for p in w.telemetry.plots.values())


@pytest.mark.slow
def test_eight_gpus_hide_the_pale_series(telemetry_window, settings):
    w = telemetry_window(8)
    tab = w.telemetry
    assert not tab.secondary_shown()
    assert not tab.secondary_check.isChecked()
    assert drawn_pale(w) == set()
    # The bright series are all there, and the titles say what is left out.
    assert all((g, "util_gpu_pct") in tab.plots["util"].data for g in range(8))
    assert "memory: not drawn" in titles(w) and "transmit: not drawn" in titles(w)
    assert "(pale)" not in titles(w)
    assert settings.secondary_series == "auto"


@pytest.mark.slow
def test_two_gpus_show_the_pale_series(telemetry_window):
    w = telemetry_window(2)
    tab = w.telemetry
    assert tab.secondary_shown() and tab.secondary_check.isChecked()
    assert drawn_pale(w) == {(g, f) for g in range(2) for f in PALE}
    assert "memory (pale)" in titles(w) and "not drawn" not in titles(w)


@pytest.mark.slow
def test_selection_of_four_or_fewer_gpus_brings_them_back(telemetry_window, settings):
    w = telemetry_window(8)
    tab = w.telemetry
    for i in (4, 5, 6, 7):
        tab.gpu_checks[i].setChecked(False)
    assert w.state.selected_gpus == {0, 1, 2, 3}
    assert tab.secondary_check.isChecked()
    assert drawn_pale(w) == {(g, f) for g in range(4) for f in PALE}
    tab.gpu_checks[4].setChecked(True)
    assert not tab.secondary_check.isChecked() and drawn_pale(w) == set()
    assert settings.secondary_series == "auto"


@pytest.mark.slow
def test_checkbox_overrides_both_ways_and_is_saved(telemetry_window, settings):
    w = telemetry_window(8)
    tab = w.telemetry
    tab.secondary_check.setChecked(True)  # on, against the 8-GPU rule
    assert settings.secondary_series == "on"
    assert drawn_pale(w) == {(g, f) for g in range(8) for f in PALE}
    assert "(pale)" in titles(w)
    tab.secondary_check.setChecked(False)  # what the rule says anyway: back to the rule
    assert settings.secondary_series == "auto" and drawn_pale(w) == set()

    w2 = telemetry_window(2)
    w2.telemetry.secondary_check.setChecked(False)  # off, against the 2-GPU rule
    assert settings.secondary_series == "off"
    assert drawn_pale(w2) == set()
    assert "not drawn" in titles(w2)


@pytest.mark.slow
def test_the_choice_survives_a_restart(telemetry_window, settings, tmp_path):
    from gpuprof.ui.shell.settings import UiSettings

    w = telemetry_window(8)
    w.telemetry.secondary_check.setChecked(True)
    w.close()
    again = telemetry_window(8, ui_settings=UiSettings(tmp_path / "ui.ini"))
    assert again.telemetry.secondary_mode == "on"
    assert again.telemetry.secondary_check.isChecked()
    assert drawn_pale(again) == {(g, f) for g in range(8) for f in PALE}


def test_settings_reject_unknown_modes(settings):
    settings.secondary_series = "off"
    assert settings.secondary_series == "off"
    with pytest.raises(ValueError):
        settings.secondary_series = "sometimes"
    settings._s.setValue("telemetry/secondary_series", "garbage")
    assert settings.secondary_series == "auto"
