"""A damaged or hand-edited settings file (issue 11): every value the app reads back goes through
one typed, range-checked reader; a bad value is dropped with one warning naming the file and the
key, and the app starts with the default (it used to exit 1 on ``interval_s=nan``, and a
Recommend batch of 1e10 left that tab blank all session)."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from PySide6.QtCore import QSettings

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

#: What a damaged file can hold where a number, a choice or a flag belongs.
HOSTILE = [
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e10",
    "1e400",
    "banana",
    "",
    "\x00",
    "x" * 5000,
    "1,2,3",
    "²",
    "9" * 5000,
]

#: The window's keys and what each must come back as.
UI_KEYS = {
    "sampling/interval_s": lambda v: isinstance(v, float) and 0.1 <= v <= 60,
    "view/theme": lambda v: v in ("light", "dark"),
    "view/language": lambda v: v in ("auto", "en", "zh_CN"),
    "replay/speed": lambda v: v in (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0),
    "telemetry/time_window_s": lambda v: v in (60, 600, 3600, 0),
    "telemetry/secondary_series": lambda v: v in ("auto", "on", "off"),
    "window/tab": lambda v: isinstance(v, str) and len(v) <= 64,
    "telemetry/selected_gpus": lambda v: v is None or all(0 <= i <= 4095 for i in v),
    "files/last_dir": lambda v: isinstance(v, str) and len(v) <= 4096,
}
_PROPERTY = {
    "sampling/interval_s": "interval_s",
    "view/theme": "theme",
    "view/language": "language",
    "replay/speed": "replay_speed",
    "telemetry/time_window_s": "time_window_s",
    "telemetry/secondary_series": "secondary_series",
    "window/tab": "tab",
    "telemetry/selected_gpus": "selected_gpus",
    "files/last_dir": "last_dir",
}

RECOMMEND_KEYS = [
    "preset",
    "scenario",
    "precision",
    "objective",
    "params",
    "tokens",
    "samples",
    "throughput_per_s",
    "flops_per_sample",
    "flops_total",
    "deadline_hours",
    "budget_usd",
    "epochs",
    "seq_len",
    "batch",
    "working_set_gib",
    "node_limit",
    "spot",
    "spot_only",
    "fits_only",
    "compare",
    "provider",
    "region",
]


def _write(path: Path, values: dict[str, str]) -> None:
    s = QSettings(str(path), QSettings.Format.IniFormat)
    for key, value in values.items():
        s.setValue(key, value)
    s.sync()


@pytest.mark.parametrize("bad", HOSTILE, ids=lambda v: repr(v)[:12])
def test_every_window_setting_falls_back_on_a_bad_value(tmp_path, bad, caplog) -> None:
    from gpuprof.ui.shell.settings import UiSettings

    ini = tmp_path / "ui.ini"
    _write(ini, dict.fromkeys(UI_KEYS, bad))
    settings = UiSettings(ini)
    with caplog.at_level(logging.WARNING, logger="gpuprof.ui.shell.settings"):
        got = {key: getattr(settings, _PROPERTY[key]) for key in UI_KEYS}
    for key, ok in UI_KEYS.items():
        assert ok(got[key]), (key, bad, got[key])
    # A dropped value is said once, naming the file and the key, and is gone from the file.
    for line in settings.problems:
        assert str(ini) in line
    assert len(caplog.records) == len(settings.problems)
    again = UiSettings(ini)
    assert {key: getattr(again, _PROPERTY[key]) for key in UI_KEYS} == got
    assert again.problems == []


def test_good_window_settings_still_read_back(tmp_path) -> None:
    from gpuprof.ui.shell.settings import UiSettings

    ini = tmp_path / "ui.ini"
    s = UiSettings(ini)
    s.interval_s, s.theme, s.replay_speed, s.time_window_s = 0.25, "dark", 2.0, 3600
    s.secondary_series, s.tab, s.selected_gpus, s.last_dir = "off", "health", {0, 3}, "/a,b"
    s.sync()
    r = UiSettings(ini)
    assert (r.interval_s, r.theme, r.replay_speed, r.time_window_s) == (0.25, "dark", 2.0, 3600)
    assert (r.secondary_series, r.tab, r.selected_gpus) == ("off", "health", {0, 3})
    assert r.last_dir == "/a,b" and r.problems == []


def test_a_nan_interval_no_longer_stops_the_window(make_window, tmp_path, caplog) -> None:
    from gpuprof.ui.shell.settings import UiSettings

    ini = tmp_path / "bad.ini"
    _write(ini, {"sampling/interval_s": "nan", "view/theme": "purple"})
    with caplog.at_level(logging.WARNING, logger="gpuprof.ui.shell.settings"):
        w = make_window(ui_settings=UiSettings(ini))
    assert w.interval_s == 1.0 and w.session.interval_s == 1.0
    assert w.chrome.interval_combo.currentData() == 1.0
    assert w.theme.name == "light"
    assert "interval_s" in caplog.text and str(ini) in caplog.text
    assert str(ini) in w.statusBar().currentMessage()
    w.poll_now()
    assert w.snapshot_count == 1


@pytest.mark.parametrize("bad", HOSTILE, ids=lambda v: repr(v)[:12])
@pytest.mark.slow
def test_a_bad_saved_recommend_form_still_ranks(make_recommend_tab, tmp_path, bad, caplog) -> None:
    """Every saved Recommend field at once holds ``bad``: the tab opens, each field keeps a
    value it can hold, and a ranking comes out (or a form error names a field: never blank)."""
    ini = tmp_path / "ui.ini"
    _write(ini, {f"recommend/{key}": bad for key in RECOMMEND_KEYS})
    with caplog.at_level(logging.WARNING, logger="gpuprof.ui.shell.settings"):
        tab = make_recommend_tab(ini, size=None)
    for spin in (tab.epochs, tab.seq_len, tab.batch, tab.working_set, tab.node_limit):
        assert spin.minimum() <= spin.value() <= spin.maximum()
        assert math.isfinite(spin.value())
    assert all(str(ini) in line for line in tab.settings_problems)
    rec = tab.run_now()
    assert rec is not None or tab.error, "the tab shows neither a ranking nor an error"
    if rec is None:
        assert tab.form_error.isVisible() or tab.form_error.text()


def test_a_batch_of_1e10_falls_back_and_the_tab_ranks(make_recommend_tab, tmp_path, caplog) -> None:
    """The issue's case: the saved preset with batch=1e10 (over the spin box's range)."""
    ini = tmp_path / "ui.ini"
    good = make_recommend_tab(ini, size=None)
    good.select_preset("llm-100b-train")
    assert good.run_now() is not None
    good.close()
    QSettings(str(ini), QSettings.Format.IniFormat).setValue("recommend/batch", "1e10")
    with caplog.at_level(logging.WARNING, logger="gpuprof.ui.shell.settings"):
        tab = make_recommend_tab(ini, size=None)
    assert tab.batch.value() == 0  # auto
    assert "recommend/batch" in caplog.text and "1e10" in caplog.text
    assert tab.run_now() is not None and tab.recommendation.rows
    stored = QSettings(str(ini), QSettings.Format.IniFormat).value("recommend/batch", None)
    assert stored in (None, 0, "0")  # dropped (the tab saves its own 0 = auto)
