"""ClockEventReason: NVML's bits, the stored names, aliases, severity, benign reasons, labels."""

from __future__ import annotations

import re

import pynvml as real_pynvml
import pytest

from gpuprof import i18n
from gpuprof.telemetry.model import GpuSample
from gpuprof.telemetry.reasons import (
    BENIGN,
    EXPORTED,
    SEVERITY_ORDER,
    ClockEventReason,
    canonical_name,
)

R = ClockEventReason

#: The names recordings, the UI, the exporter and the tests already use: they must never change.
STORED_NAMES = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.set_language("en")


def _pynvml_reasons() -> dict[str, int]:
    """Every single-reason constant of the installed pynvml (not None/All/aliases of a setting)."""
    pattern = re.compile(r"^nvmlClocks(Event|Throttle)Reason(?!All$|None$)\w+$")
    return {n: int(getattr(real_pynvml, n)) for n in dir(real_pynvml) if pattern.match(n)}


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def test_every_pynvml_reason_constant_is_a_member_with_the_same_value():
    constants = _pynvml_reasons()
    assert len(constants) >= 9  # the test really looked at the installed pynvml
    for const, value in constants.items():
        member = R(value)
        assert member in list(R), f"{const}={value:#x} is not a ClockEventReason member"
        suffix = const.split("Reason", 1)[1]
        if suffix != "UserDefinedClocks":  # pynvml's alias of ApplicationsClocksSetting
            assert member.key == _snake(suffix), const
    # and no member that pynvml does not know
    assert {int(r) for r in R} <= set(constants.values())


def test_the_stored_names_are_unchanged():
    assert {int(r): r.key for r in R if int(r) <= 0x100} == STORED_NAMES
    assert [r.key for r in EXPORTED] == list(STORED_NAMES.values())
    assert int(R.from_names(STORED_NAMES.values())) == real_pynvml.nvmlClocksEventReasonAll


@pytest.mark.parametrize("mask", [0, 0x1, 0x4, 0x44, 0x1FF, 0x7FF, 0x805, 0x10000])
def test_mask_names_flag_round_trip(mask):
    flag = R.from_mask(mask)
    assert int(flag) == mask
    assert int(R.from_names(flag.names)) == mask
    assert flag.names == tuple(
        STORED_NAMES.get(1 << b, R(1 << b).key) for b in range(32) if mask >> b & 1
    )
    assert flag.throttle_names == tuple(n for n in flag.names if n != "gpu_idle")
    assert sum(int(b) for b in flag.bits()) == mask


def test_names_are_in_bit_order_and_unknown_bits_are_named_in_hex():
    flag = R.from_mask(0x844)
    assert flag.names == ("sw_power_cap", "hw_thermal_slowdown", "0x800")
    assert int(R.from_mask(0x805).without_idle) == 0x804  # the unknown bit stays
    assert R.from_mask(None) == R(0) and R(0).names == ()


@pytest.mark.parametrize(
    ("spelling", "member"),
    [
        ("SW Power Cap", R.SW_POWER_CAP),
        ("clocks_event_reason_sw_power_cap", R.SW_POWER_CAP),
        ("clocks_throttle_reason_sw_power_cap", R.SW_POWER_CAP),
        ("power_cap", R.SW_POWER_CAP),
        ("HW Thermal Slowdown", R.HW_THERMAL_SLOWDOWN),
        ("hw_thermal", R.HW_THERMAL_SLOWDOWN),
        ("sw_thermal", R.SW_THERMAL_SLOWDOWN),
        ("HW Power Brake Slowdown", R.HW_POWER_BRAKE_SLOWDOWN),
        ("HW Slowdown", R.HW_SLOWDOWN),
        ("Idle", R.GPU_IDLE),
        ("Applications Clocks Setting", R.APPLICATIONS_CLOCKS_SETTING),
        ("Display Clock Setting", R.DISPLAY_CLOCK_SETTING),
        ("Sync Boost", R.SYNC_BOOST),
        ("nvml_clocks_event_reason_hw_slowdown", R.HW_SLOWDOWN),
    ],
)
def test_aliases(spelling, member):
    assert R.from_names([spelling]) == member
    assert canonical_name(spelling) == member.key


def test_unknown_names_are_skipped():
    assert R.from_names(["", "x", "gpu_idle"]) == R.GPU_IDLE
    assert canonical_name("Something Else") == "something_else"


def test_severity_order_hardware_and_thermal_first():
    assert [r.key for r in SEVERITY_ORDER] == [
        "hw_thermal_slowdown",
        "hw_slowdown",
        "hw_power_brake_slowdown",
        "sw_thermal_slowdown",
        "sw_power_cap",
    ]
    assert (R.SW_POWER_CAP | R.HW_SLOWDOWN).most_severe() is R.HW_SLOWDOWN
    assert (R.SW_POWER_CAP | R.SW_THERMAL_SLOWDOWN).most_severe() is R.SW_THERMAL_SLOWDOWN
    assert (R.SYNC_BOOST | R.DISPLAY_CLOCK_SETTING).most_severe() is R.SYNC_BOOST
    ranks = [r.severity for r in SEVERITY_ORDER]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert R.GPU_IDLE.severity > R.SW_POWER_CAP.severity


def test_benign_reasons():
    assert {r.key for r in R if r & BENIGN} == {
        "gpu_idle",
        "applications_clocks_setting",
        "sync_boost",
        "display_clock_setting",
    }
    assert (R.GPU_IDLE | R.SYNC_BOOST).benign
    assert R(0).benign
    assert not (R.GPU_IDLE | R.SW_POWER_CAP).benign
    assert not R.from_mask(0x800).benign  # an unknown bit is not assumed harmless
    assert not any(r.benign for r in SEVERITY_ORDER)


def test_labels_are_translated():
    assert R.HW_THERMAL_SLOWDOWN.label == "hardware thermal slowdown"
    assert (R.SW_POWER_CAP | R.from_mask(0x800)).label == "software power cap, 0x800"
    english = {r: r.label for r in R}
    i18n.set_language("zh_CN")
    for r in R:
        assert r.label and r.label != english[r], f"{r.key} has no zh_CN label"
    assert R.SW_POWER_CAP.label == i18n.lookup("software power cap")


def test_sample_reads_mask_and_names_through_one_flag():
    assert GpuSample(index=0, throttle_mask=0x41).clock_events == R.HW_THERMAL_SLOWDOWN | R.GPU_IDLE
    assert GpuSample(index=0, throttle_reasons=("sw_power_cap",)).clock_events == R.SW_POWER_CAP
    both = GpuSample(index=0, throttle_mask=0x1, throttle_reasons=("hw_slowdown",))
    assert both.clock_events == R.GPU_IDLE | R.HW_SLOWDOWN
    assert GpuSample(index=0).clock_events == R(0)
