"""The sampling interval's bounds are defined once (gpuprof.telemetry.interval) and every place
that checks an interval agrees with them: the sampler, ``gpuprof.track``, ``--interval`` and its
help, and the app's saved setting (issue 25: the bounds were written in four places)."""

from __future__ import annotations

import argparse

import pytest

from gpuprof.commands import interval_arg
from gpuprof.profile.track import Tracker
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S, checked_interval
from gpuprof.telemetry.sampler import Sampler
from gpuprof.telemetry.sources import SimulatedSource

INSIDE = (MIN_INTERVAL_S, 1.0, MAX_INTERVAL_S)
OUTSIDE = (MIN_INTERVAL_S / 2, MAX_INTERVAL_S * 1.01, float("nan"), float("inf"))


def test_the_bounds_are_sane() -> None:
    assert 0 < MIN_INTERVAL_S < 1 < MAX_INTERVAL_S
    assert checked_interval(MIN_INTERVAL_S) == MIN_INTERVAL_S
    with pytest.raises(ValueError, match="must be between"):
        checked_interval(MAX_INTERVAL_S * 2)
    with pytest.raises(ValueError, match="must be a number of seconds"):
        checked_interval("fast")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", INSIDE)
def test_every_checker_takes_what_is_inside(value: float) -> None:
    source = SimulatedSource()
    try:
        assert Sampler(source, interval_s=value).interval_s == value
    finally:
        source.close()
    assert Tracker("t", interval=value).interval_s == value
    assert interval_arg(repr(value)) == value


@pytest.mark.parametrize("value", OUTSIDE)
def test_every_checker_refuses_what_is_outside(value: float) -> None:
    source = SimulatedSource()
    try:
        with pytest.raises(ValueError, match="sampling interval must be between"):
            Sampler(source, interval_s=value)
    finally:
        source.close()
    with pytest.raises(ValueError, match="track: interval must be between"):
        Tracker("t", interval=value)
    with pytest.raises(argparse.ArgumentTypeError):
        interval_arg(repr(value))


def test_the_help_states_the_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuprof.cli import main

    with pytest.raises(SystemExit):
        main(["record", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"{MIN_INTERVAL_S:g}–{MAX_INTERVAL_S:g}" in text


def test_the_saved_setting_is_held_to_the_bounds(tmp_path) -> None:
    from gpuprof.ui.shell.settings import UiSettings

    settings = UiSettings(tmp_path / "s.ini")
    settings.interval_s = MAX_INTERVAL_S * 2
    assert settings.interval_s == 1.0  # dropped, with a warning, for the default
    settings.interval_s = MAX_INTERVAL_S
    assert settings.interval_s == MAX_INTERVAL_S
