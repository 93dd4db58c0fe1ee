"""NVML clock-event ("throttle") reasons: one :class:`ClockEventReason` flag for the whole app.

The bits are ``nvml.h``'s ``nvmlClocksEventReason*`` (``nvmlClocksThrottleReason*`` before driver
535), the C ABI, so no pynvml is needed here; ``tests/test_telemetry_reasons.py`` checks each
against the installed pynvml. The snake_case names (``sw_power_cap``, ...) are what recordings
store, the UI shows and the exporter labels (``gpuprof_clocks_event_reasons{reason=...}``): they
never change. ``nvidia-smi -q -d PERFORMANCE`` lists the same reasons as "Clocks Event Reasons".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from gpuprof.i18n import N_, tr

__all__ = ["BENIGN", "EXPORTED", "SEVERITY_ORDER", "ClockEventReason", "canonical_name"]


class ClockEventReason(enum.IntFlag):
    """Why the clocks are below their maximum: a bit mask, as NVML reports it.

    ``ClockEventReason.from_mask(0x44).names == ("sw_power_cap", "hw_thermal_slowdown")``.
    Bits NVML may add later are kept (``IntFlag`` boundary ``KEEP``) and named ``"0x..."``.
    """

    GPU_IDLE = 0x0001
    APPLICATIONS_CLOCKS_SETTING = 0x0002
    SW_POWER_CAP = 0x0004
    HW_SLOWDOWN = 0x0008
    SYNC_BOOST = 0x0010
    SW_THERMAL_SLOWDOWN = 0x0020
    HW_THERMAL_SLOWDOWN = 0x0040
    HW_POWER_BRAKE_SLOWDOWN = 0x0080
    DISPLAY_CLOCK_SETTING = 0x0100
    # pynvml's nvmlClocksThrottleReason* only (outside nvmlClocksEventReasonAll).
    BOARD_LIMIT = 0x0200
    RELIABILITY = 0x0400

    @classmethod
    def from_mask(cls, mask: int | None) -> ClockEventReason:
        """The flag of an NVML mask (``nvmlDeviceGetCurrentClocksEventReasons``); ``None`` -> 0."""
        return cls(int(mask or 0))

    @classmethod
    def from_names(cls, names: Iterable[str]) -> ClockEventReason:
        """The flag of reason names in any spelling :func:`canonical_name` knows.

        Names it cannot place (``"x"``, an empty string) are skipped; ``"0x800"`` is that bit.
        """
        flag = cls(0)
        for name in names:
            key = name if name in _BY_NAME else canonical_name(name)
            if key in _BY_NAME:
                flag |= _BY_NAME[key]
            elif re.fullmatch(r"0x[0-9a-f]+", key):
                flag |= cls(int(key, 16))
        return flag

    @property
    def key(self) -> str:
        """The canonical snake_case name of one reason (``"sw_power_cap"``), or ``"0x..."``."""
        return _NAME.get(int(self), f"0x{int(self):x}")

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical names of the set bits, lowest bit first (the order NVML numbers them)."""
        return tuple(r.key for r in self.bits())

    @property
    def throttle_names(self) -> tuple[str, ...]:
        """:attr:`names` without ``gpu_idle``: what ``GpuSample.throttle_reasons`` stores."""
        return self.without_idle.names

    @property
    def without_idle(self) -> ClockEventReason:
        """The flag less ``gpu_idle`` (unknown bits kept, unlike ``& ~GPU_IDLE``)."""
        return ClockEventReason(int(self) & ~int(ClockEventReason.GPU_IDLE))

    @property
    def label(self) -> str:
        """The reasons in words, in the language in use (``"software power cap"``)."""
        return ", ".join(tr(_LABELS[r]) if r in _LABELS else r.key for r in self.bits())

    @property
    def benign(self) -> bool:
        """True when none of the bits means the GPU slowed itself down (idle, settings)."""
        return not int(self) & ~int(BENIGN)

    @property
    def severity(self) -> int:
        """Rank in :data:`SEVERITY_ORDER` of the most severe bit (0: the worst); the length of
        :data:`SEVERITY_ORDER` when no bit is in it."""
        return next((i for i, r in enumerate(SEVERITY_ORDER) if self & r), len(SEVERITY_ORDER))

    def bits(self) -> tuple[ClockEventReason, ...]:
        """Each set bit as its own flag, lowest first, unknown bits included."""
        value = int(self)
        out = []
        while value:
            low = value & -value
            out.append(ClockEventReason(low))
            value ^= low
        return tuple(out)

    def most_severe(self) -> ClockEventReason:
        """The single reason that matters most (it colours a throttle band), else the lowest bit."""
        for r in SEVERITY_ORDER:
            if self & r:
                return r
        bits = self.bits()
        return bits[0] if bits else ClockEventReason(0)


_NAME: dict[int, str] = {int(r): str(r.name).lower() for r in ClockEventReason}
_BY_NAME: dict[str, ClockEventReason] = {str(r.name).lower(): r for r in ClockEventReason}

_LABELS: dict[ClockEventReason, str] = {
    ClockEventReason.GPU_IDLE: N_("idle"),
    ClockEventReason.APPLICATIONS_CLOCKS_SETTING: N_("application clocks setting"),
    ClockEventReason.SW_POWER_CAP: N_("software power cap"),
    ClockEventReason.HW_SLOWDOWN: N_("hardware slowdown"),
    ClockEventReason.SYNC_BOOST: N_("sync boost"),
    ClockEventReason.SW_THERMAL_SLOWDOWN: N_("software thermal slowdown"),
    ClockEventReason.HW_THERMAL_SLOWDOWN: N_("hardware thermal slowdown"),
    ClockEventReason.HW_POWER_BRAKE_SLOWDOWN: N_("hardware power brake"),
    ClockEventReason.DISPLAY_CLOCK_SETTING: N_("display clock setting"),
    ClockEventReason.BOARD_LIMIT: N_("board limit"),
    ClockEventReason.RELIABILITY: N_("reliability limit"),
}

#: Reasons that are settings or rest, not the GPU protecting itself: never a health finding,
#: never flag a benchmark result.
BENIGN = (
    ClockEventReason.GPU_IDLE
    | ClockEventReason.APPLICATIONS_CLOCKS_SETTING
    | ClockEventReason.SYNC_BOOST
    | ClockEventReason.DISPLAY_CLOCK_SETTING
)
#: Slowdowns, most severe first: hardware and thermal before power capping.
SEVERITY_ORDER: tuple[ClockEventReason, ...] = (
    ClockEventReason.HW_THERMAL_SLOWDOWN,
    ClockEventReason.HW_SLOWDOWN,
    ClockEventReason.HW_POWER_BRAKE_SLOWDOWN,
    ClockEventReason.SW_THERMAL_SLOWDOWN,
    ClockEventReason.SW_POWER_CAP,
)
#: The reasons the Prometheus endpoint labels: ``nvmlClocksEventReasonAll``, in bit order.
EXPORTED: tuple[ClockEventReason, ...] = tuple(r for r in ClockEventReason if r <= 0x100)

_PREFIXES = (
    "nvml_",
    "clocks_event_reason_",
    "clocks_throttle_reason_",
    "clock_event_reason_",
    "throttle_reason_",
    "dcgm_",
)


def canonical_name(name: str) -> str:
    """A reason's spelling -> its canonical name.

    Accepts ``"SW Power Cap"`` (nvidia-smi), ``"clocks_event_reason_sw_power_cap"``,
    ``"power_cap"`` (dcgm-exporter), ``"HW Thermal Slowdown"``, ``"hw_thermal"``, ... Unknown names
    come back lower-cased with non-alphanumerics turned into ``_``.
    """
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix) :]
    if key in _BY_NAME:
        return key
    if "idle" in key:
        return "gpu_idle"
    if "thermal" in key:
        return "hw_thermal_slowdown" if key.startswith("hw") else "sw_thermal_slowdown"
    if "brake" in key:
        return "hw_power_brake_slowdown"
    if "power" in key and "cap" in key:
        return "sw_power_cap"
    if key.startswith("hw") and "slowdown" in key:
        return "hw_slowdown"
    if "sync" in key and "boost" in key:
        return "sync_boost"
    if "display" in key:
        return "display_clock_setting"
    if "application" in key or key == "clocks_setting":
        return "applications_clocks_setting"
    if "board" in key:
        return "board_limit"
    return key
