"""amdsmi's numbers, made plain: each raw value becomes a number or ``None`` with a reason.

amdsmi answers in mixed shapes (``reference/amd/api.md``):

- a number (``int``; ``float`` for the energy resolution);
- the string ``"N/A"`` where the Python layer met a sentinel (0xFFFF, UINT32/UINT64 max) or the
  firmware does not report the field: never a zero here;
- ``{"value": N, "unit": "W"}`` in newer releases (and in ``amd-smi --json``), ``N`` itself
  possibly ``"N/A"``;
- power limits and caps in **microwatts** (ROCm/amdsmi PR #174: MI325X ``power1_cap`` =
  1000000000), socket power in watts.

Free of amdsmi: :mod:`gpuprof.telemetry.amd.lib` is the only module that imports it.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "NA_REASON",
    "Reading",
    "pcie_gen",
    "reading",
    "watts",
]

#: Why a field is None when amdsmi answered "N/A".
NA_REASON = "amdsmi reports N/A for this GPU"

# Sentinels the C library uses for "no value"; the Python layer usually turns them into "N/A",
# but not on every path (the raw gpu_metrics lists keep some).
_SENTINELS = frozenset({0xFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF})

# A power value above this many watts is microwatts: no GPU socket or cap is 10 kW, and no
# cap is below 10 mW. Units, where amdsmi gives them, take precedence.
_MICROWATT_THRESHOLD = 10_000.0

_POWER_UNITS = {"w": 1.0, "mw": 1e-3, "uw": 1e-6, "µw": 1e-6}


class Reading:
    """A number, or ``None`` with the reason (``value``, ``unit``, ``reason``)."""

    __slots__ = ("reason", "unit", "value")

    def __init__(
        self, value: float | None, unit: str | None = None, reason: str | None = None
    ) -> None:
        self.value = value
        self.unit = unit
        self.reason = reason if value is None else None

    def __repr__(self) -> str:
        return f"Reading({self.value!r}, {self.unit!r}, {self.reason!r})"


def reading(raw: Any) -> Reading:
    """One raw amdsmi value as a :class:`Reading`: ``{value, unit}`` unwrapped, "N/A" and the
    C sentinels as ``None`` with the reason, booleans and other text refused."""
    unit: str | None = None
    if isinstance(raw, dict):
        unit = raw.get("unit") if isinstance(raw.get("unit"), str) else None
        raw = raw.get("value")
    if raw is None:
        return Reading(None, unit, "amdsmi returned no value")
    if isinstance(raw, str):
        text = raw.strip()
        if text.upper() == "N/A" or not text:
            return Reading(None, unit, NA_REASON)
        try:  # amdsmi formats a few numbers as text ("1.5")
            raw = float(text)
        except ValueError:
            return Reading(None, unit, f"amdsmi returned text, not a number: {text[:40]!r}")
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return Reading(None, unit, f"amdsmi returned a {type(raw).__name__}, not a number")
    if isinstance(raw, int) and raw in _SENTINELS:
        return Reading(None, unit, NA_REASON)
    value = float(raw)
    if not math.isfinite(value):
        return Reading(None, unit, NA_REASON)
    return Reading(value, unit)


def watts(raw: Any, *, microwatts: bool) -> Reading:
    """A power value in W. ``microwatts``: the field is µW when amdsmi gives no unit (power
    limits and caps); a unit given with the value wins, and a unit-less value over 10 kW is
    taken as µW whatever the field (a release that changes a field's unit stays right)."""
    r = reading(raw)
    if r.value is None:
        return r
    unit = (r.unit or "").strip().lower()
    if unit in _POWER_UNITS:
        return Reading(r.value * _POWER_UNITS[unit], "W")
    if microwatts or r.value > _MICROWATT_THRESHOLD:
        return Reading(r.value * 1e-6, "W")
    return Reading(r.value, "W")


def pcie_gen(speed_mts: float | None) -> int | None:
    """The PCIe generation of a link running at ``speed_mts`` (MT/s; amdsmi's pcie_speed)."""
    if speed_mts is None:
        return None
    for gen, mts in ((6, 64_000), (5, 32_000), (4, 16_000), (3, 8_000), (2, 5_000), (1, 2_500)):
        if speed_mts >= mts * 0.99:
            return gen
    return None
