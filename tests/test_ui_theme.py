"""Throttle colours keyed by ClockEventReason, and the GPU card's throttle badge."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from gpuprof.telemetry.model import GpuSample
from gpuprof.telemetry.reasons import ClockEventReason as R

GREY = "#868e96"


def test_throttle_colour_by_flag_name_or_alias():
    from gpuprof.ui.shell.theme import THROTTLE_COLOURS, throttle_colour

    for reason, colour in THROTTLE_COLOURS.items():
        assert throttle_colour(reason) == colour
        assert throttle_colour(reason.key) == colour
    assert throttle_colour("SW Power Cap") == THROTTLE_COLOURS[R.SW_POWER_CAP]
    assert throttle_colour("hw_power_brake_slowdown") == THROTTLE_COLOURS[R.HW_POWER_BRAKE_SLOWDOWN]
    assert len(set(THROTTLE_COLOURS.values())) == len(THROTTLE_COLOURS)  # tell them apart


def test_several_reasons_take_the_most_severe_colour_and_the_rest_are_grey():
    from gpuprof.ui.shell.theme import THROTTLE_COLOURS, throttle_colour

    both = R.SW_POWER_CAP | R.HW_THERMAL_SLOWDOWN
    assert throttle_colour(both) == THROTTLE_COLOURS[R.HW_THERMAL_SLOWDOWN]
    assert throttle_colour(R.GPU_IDLE) == GREY
    assert throttle_colour("unknown") == GREY
    assert throttle_colour(R.from_mask(0x800)) == GREY


def test_gpu_card_badge_names_the_reasons_in_the_most_severe_colour(qtbot):
    from gpuprof.ui.shell.theme import THROTTLE_COLOURS
    from gpuprof.ui.telemetry.overview import GpuCard

    card = GpuCard(0)
    qtbot.addWidget(card)
    # mask only (as an older recording may hold): decoded through the flag, idle left out
    card.update_card(GpuSample(index=0, throttle_mask=0x25), None, None)
    assert card.badge.text() == "sw_power_cap, sw_thermal_slowdown"
    assert THROTTLE_COLOURS[R.SW_THERMAL_SLOWDOWN] in card.badge.styleSheet()
    assert card.badge.toolTip() == "software power cap, software thermal slowdown"
    card.update_card(GpuSample(index=0, throttle_mask=0x1), None, None)
    assert card.badge.text() == card.tr("none") and card.badge.styleSheet() == ""
