"""Small things a new user hit (issue 11): the SIMULATED demo went idle after about a minute, the
missing-font warning was Chinese only, and the README promised a CPU build of torch."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import tomllib

from gpuprof import i18n
from gpuprof.telemetry.sources import (
    CYCLE_S,
    DEMO_START_OFFSET_S,
    SCENARIOS,
    SimulatedSource,
    demo_start_s,
    open_source,
    phase_at,
)

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_800_000_000.0
BUSY = ("ramp", "training", "starved", "cooldown")
#: When the user looks: a minute in (where the old demo went idle), ten minutes, two hours.
LATER_S = (60.0, 600.0, 7200.0)


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _window(src: SimulatedSource, clock: Clock, start: float, seconds: float, step: float):
    """Snapshots from ``start`` for ``seconds``, one every ``step``."""
    out = []
    for k in range(int(seconds / step)):
        clock.t = start + k * step
        out.append(src.poll())
    return out


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("later_s", LATER_S)
@pytest.mark.slow
def test_the_demo_keeps_playing_its_scenario(scenario, later_s):
    clock = Clock(T0)
    src = SimulatedSource.demo(scenario, clock=clock, history_s=600.0)
    snaps = _window(src, clock, T0 + later_s, CYCLE_S, step=5.0)
    phases = [phase_at(s.time_s - src.start_s) for s in snaps]
    # A whole pass of the script from any moment: every busy phase comes back.
    assert set(BUSY) <= set(phases)
    util = np.array([s.gpus[0].util_gpu_pct for s in snaps])
    by_phase = np.array(phases)
    assert util[by_phase == "training"].mean() > 85
    assert 10 < util[by_phase == "starved"].mean() < 70
    assert any(g.throttle_reasons for s in snaps for g in s.gpus)  # the power-cap episode
    assert any(p.kind == "compute" for s in snaps for p in s.processes)
    assert all(s.simulated for s in snaps)


@pytest.mark.parametrize("later_s", LATER_S)
def test_a_minute_into_the_demo_the_gpus_are_busy(later_s):
    clock = Clock(T0)
    src = SimulatedSource.demo(clock=clock, history_s=600.0)
    assert phase_at(T0 - src.start_s) == "training"  # at launch
    clock.t = T0 + 60.0
    snap = src.poll()
    assert phase_at(snap.time_s - src.start_s) == "training"
    assert np.mean([g.util_gpu_pct for g in snap.gpus]) > 50
    # The past the window is filled with is whole script, not the start of it.
    assert T0 - src.start_s >= 600.0


def test_the_demo_is_deterministic_given_a_seed():
    def run(seed: int):
        clock = Clock(T0)
        src = SimulatedSource.demo(seed=seed, clock=clock)
        return [s for t in LATER_S for s in _window(src, clock, T0 + t, 30.0, step=3.0)]

    assert run(3) == run(3)
    assert run(3) != run(4)


@pytest.mark.parametrize("history_s", [0.0, 60.0, 600.0, 900.0, 3600.0])
def test_demo_start_puts_now_in_training_with_the_history_asked_for(history_s):
    start = demo_start_s(T0, history_s)
    assert T0 - start >= history_s
    assert (T0 - start) % CYCLE_S == pytest.approx(DEMO_START_OFFSET_S)


def test_open_source_and_the_app_start_the_demo_in_training():
    src = open_source(demo=True)
    try:
        assert phase_at(time.time() - src.start_s) == "training"
        assert phase_at(time.time() + 60.0 - src.start_s) == "training"
    finally:
        src.close()
    pytest.importorskip("PySide6")
    from gpuprof.ui.shell.app import demo_source

    live, make_past = demo_source(prefill_s=60.0)
    now = time.time()
    assert phase_at(now - live.start_s) == "training"
    assert phase_at(now + 60.0 - live.start_s) == "training"  # the old demo was idle here
    past = make_past()
    # The past ends where the live source goes on, in the same script.
    assert now - 61.0 <= past[0].time_s and past[-1].time_s <= now
    assert {phase_at(s.time_s - live.start_s) for s in past} == {"training"}


def test_an_unknown_demo_scenario_says_so_in_the_language_in_use():
    from gpuprof.errors import InputError

    with pytest.raises(InputError, match="unknown demo scenario 'a100x3'"):
        SimulatedSource("a100x3")
    i18n.set_language("zh_CN")
    try:
        with pytest.raises(InputError) as err:
            SimulatedSource("a100x3")
        assert "a100x3" in str(err.value) and "unknown" not in str(err.value)
    finally:
        i18n.set_language("en")


def test_the_missing_font_warning_is_in_both_languages(make_window, monkeypatch):
    from gpuprof.ui.shell.app import missing_font_warning
    from PySide6.QtGui import QFontDatabase

    make_window()  # the QApplication
    english = (
        "no Chinese font is installed, so Chinese text shows as boxes; install one "
        "(e.g. `sudo apt install fonts-noto-cjk`) or start with `--lang en`"
    )
    monkeypatch.setattr(QFontDatabase, "families", staticmethod(lambda *a: []))
    i18n.set_language("zh_CN")
    try:
        warning = missing_font_warning()
        chinese = i18n.lookup(english)
    finally:
        i18n.set_language("en")
    assert chinese and chinese in warning and english in warning


def test_the_readme_says_what_each_install_pulls():
    readme = (ROOT / "README.md").read_text("utf-8")
    # No promise of a CPU build that a public-index install does not keep.
    assert "installs the CPU build of torch" not in readme
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]
    (dev_torch,) = [d for d in extras["dev"] if d.startswith("torch")]
    assert dev_torch in readme  # the pin the README explains
    assert "CUDA build" in readme
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in readme
    # The quick start's test command is the one CI runs.
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    command = (
        'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/python -m pytest'
    )
    assert command in readme and command in ci
