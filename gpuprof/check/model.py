"""The acceptance check's records: one :class:`CheckItem` per line of the scorecard.

Grading: ``ratio = measured / reference``; PASS at or above ``pass_ratio`` (0.90), WARN from
``warn_ratio`` (0.75), FAIL below. A measurement repeated over runs that disagree by more than
the :attr:`Thresholds.margin`, or with nothing to compare it with, is INFO: measured, not
graded. The exit code of ``gpuprof check`` comes from the items:
0 when nothing failed or warned (SKIP and INFO count as nothing), 1 when any item FAILs, 3 when the
worst is a WARN; a cancelled check that failed nothing is INCOMPLETE, exit code 130 (like Ctrl-C
elsewhere): what it did not run did not pass.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr, tr_text
from gpuprof.jsonin import read_json
from gpuprof.units import fmt_sig

if TYPE_CHECKING:
    from gpuprof.catalog.specs import GpuSpec
    from gpuprof.telemetry.model import DeviceInfo, Topology

__all__ = [
    "SCHEMA_VERSION",
    "SCORECARD_COLUMNS",
    "CheckItem",
    "CheckResult",
    "Status",
    "Thresholds",
    "exit_code",
    "exit_code_of",
    "fmt_value",
    "inventory_item",
    "peer_links",
    "load_thresholds",
    "result_to_dict",
    "verdict",
    "verdict_of",
]

SCHEMA_VERSION = 1

#: The scorecard's columns (to translate), as the terminal, the check page and the report show
#: them; the page adds the reference's source.
SCORECARD_COLUMNS = (
    N_("item"),
    N_("GPU"),
    N_("status"),
    N_("measured"),
    N_("expected"),
    N_("ratio"),
    N_("why / hint"),
)


def fmt_value(value: object, unit: str) -> str:
    """A measured or expected value with its unit, as the terminal, the Check tab and the check
    page show it: a number to four significant digits, never rounded to "0" (a CPU's 0.000134
    TFLOPS), with thousands separators from 1,000; a text translated."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt_sig(value, unit)
    return tr_text(str(value))


class Status(str, enum.Enum):
    """One item's grade."""

    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"
    #: Measured, not graded: no reference to compare with, or runs too noisy to grade.
    INFO = "INFO"
    #: A whole check's verdict, never an item's: cancelled before anything failed.
    INCOMPLETE = "INCOMPLETE"


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Ratios of the reference: PASS at or above ``pass_ratio``, WARN at or above ``warn_ratio``."""

    pass_ratio: float = 0.90
    warn_ratio: float = 0.75

    @property
    def margin(self) -> float:
        """The widest spread ((max − min) / median) of repeated runs that is still graded: how
        far below the reference a PASS may fall, 1 − ``pass_ratio`` (0.10 by default; none when
        ``pass_ratio`` ≥ 1). Runs that disagree by more than that grade the noise, not the
        machine (WARN, FAIL, FAIL in three identical runs of a busy CPU, issue 21), so such an
        item is INFO, not graded."""
        return max(0.0, round(1.0 - self.pass_ratio, 9))  # 1 − 0.9 is 0.0999…98 in floats

    def grade(self, ratio: float | None) -> Status:
        if ratio is None or not math.isfinite(ratio):
            return Status.SKIP
        if ratio >= self.pass_ratio:
            return Status.PASS
        if ratio >= self.warn_ratio:
            return Status.WARN
        return Status.FAIL


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckItem:
    """One line of the scorecard. ``measured``/``expected`` are numbers in ``unit`` or text.

    A measurement repeated over several runs keeps each run's value in ``runs`` (in ``unit``;
    ``measured`` is their median) and how much they disagree in ``spread``, (max − min) /
    median; a single run has ``runs`` of one value (or none) and no spread.
    """

    item_id: str
    group: str  # inventory, health, performance, diagnostics
    status: Status
    measured: float | str | None = None
    expected: float | str | None = None
    ratio: float | None = None
    unit: str = ""
    reason: str = ""
    hint: str = ""
    source: str = ""  # where the expected value comes from (a citation, a spec row, "derived: …")
    gpu_index: int | None = None
    runs: tuple[float, ...] = ()
    spread: float | None = None


def inventory_item(
    item_id: str,
    d: DeviceInfo,
    status: Status,
    measured: float | str | None,
    expected: float | str | None,
    *,
    ratio: float | None = None,
    unit: str = "",
    reason: str = "",
    hint: str = "",
    source: str = "",
) -> CheckItem:
    """An inventory line of GPU ``d`` (NVIDIA's and AMD's alike)."""
    return CheckItem(
        item_id=item_id,
        group="inventory",
        status=status,
        measured=measured,
        expected=expected,
        ratio=ratio,
        unit=unit,
        reason=reason,
        hint=hint,
        source=source,
        gpu_index=d.index,
    )


#: Why a GPU has no item for its GPU-to-GPU fabric, by fabric.
_NOT_A_PART = {
    "nvlink": N_("not an NVLink part, or a single GPU"),
    "xgmi": N_("not an XGMI part, or a single GPU"),
}


def peer_links(
    d: DeviceInfo, spec: GpuSpec | None, n: int, topology: Topology | None, fabric: str
) -> CheckItem | list[tuple[int, str | None]]:
    """GPU ``d``'s link to each other GPU of ``topology`` (None where it does not say), or the
    SKIP item ``inventory.<fabric>`` where ``d``'s spec row is not a ``fabric`` part
    (``nvlink``, ``xgmi``) or the machine has a single GPU (``n``)."""
    part = spec is not None and fabric in (spec.interconnect or "").lower()
    if not part or n < 2:
        count = d.nvlink_count if fabric == "nvlink" else d.xgmi_link_count
        return inventory_item(
            f"inventory.{fabric}", d, Status.SKIP, count, None, reason=_NOT_A_PART[fabric]
        )
    peers = [i for i in (topology.gpu_indices if topology else ()) if i != d.index]
    return [(p, topology.link(d.index, p) if topology else None) for p in peers]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """A whole check: the items in run order and the machine they describe."""

    level: str
    device: str
    started_s: float
    ended_s: float
    items: tuple[CheckItem, ...] = ()
    identity: dict[str, Any] = field(default_factory=dict)
    expectation: str = ""
    cancelled: bool = False
    thresholds: Thresholds = Thresholds()
    schema_version: int = SCHEMA_VERSION

    @property
    def verdict(self) -> Status:
        return verdict(self.items, cancelled=self.cancelled)

    @property
    def exit_code(self) -> int:
        """As :func:`exit_code_of`, 130 when cancelled without a FAIL."""
        return exit_code_of(self.verdict)


def verdict(items: tuple[CheckItem, ...] | list[CheckItem], *, cancelled: bool = False) -> Status:
    """FAIL if any item failed, else INCOMPLETE if ``cancelled``, else WARN if any warned, else
    PASS (SKIPs and INFOs do not count)."""
    return verdict_of((i.status for i in items), cancelled=cancelled)


def verdict_of(statuses: Iterable[str], *, cancelled: bool = False) -> Status:
    """As :func:`verdict`, from the statuses alone (a result read back from its JSON)."""
    seen = set(statuses)
    if Status.FAIL in seen:
        return Status.FAIL
    if cancelled:  # the items it never reached are SKIPs, not passes
        return Status.INCOMPLETE
    if Status.WARN in seen:
        return Status.WARN
    return Status.PASS


def exit_code(items: tuple[CheckItem, ...] | list[CheckItem]) -> int:
    """0 all pass, 1 any FAIL, 3 only WARNs (2, usage errors, is the CLI's)."""
    return exit_code_of(verdict(items))


def exit_code_of(worst: Status) -> int:
    """The exit code of the verdict ``worst`` (see :func:`exit_code`): 130 for INCOMPLETE."""
    return {Status.PASS: 0, Status.FAIL: 1, Status.WARN: 3, Status.INCOMPLETE: 130}[worst]


def load_thresholds(path: str | Path) -> Thresholds:
    """A JSON file ``{"pass": 0.9, "warn": 0.75}`` (ratios of the reference, 0 < warn ≤ pass ≤ 2).

    Anything else is an :class:`InputError` naming the file.
    """
    p = Path(path)
    data = read_json(p, 64 << 10, what=tr("thresholds file"))
    if not isinstance(data, dict) or not set(data) <= {"pass", "warn"} or not data:
        raise InputError(
            tr('{p}: a thresholds file is a JSON object with "pass" and/or "warn"', p=p)
        )
    values: dict[str, float] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(tr("{p}: {k} must be a number", p=p, k=key))
        if not (math.isfinite(value) and 0.0 < value <= 2.0):
            raise InputError(tr("{p}: {k} must be a ratio above 0 and at most 2", p=p, k=key))
        values[key] = float(value)
    base = Thresholds()
    made = Thresholds(values.get("pass", base.pass_ratio), values.get("warn", base.warn_ratio))
    if made.warn_ratio > made.pass_ratio:
        raise InputError(tr("{p}: warn must not be above pass", p=p))
    return made


def result_to_dict(result: CheckResult) -> dict[str, Any]:
    """The JSON shape of docs/check-schema.md."""
    return {
        "schema": "gpuprof.check",
        "schema_version": result.schema_version,
        "verdict": result.verdict.value,
        "exit_code": result.exit_code,
        "level": result.level,
        "device": result.device,
        "expectation": result.expectation,
        "started_s": result.started_s,
        "ended_s": result.ended_s,
        "cancelled": result.cancelled,
        "thresholds": {"pass": result.thresholds.pass_ratio, "warn": result.thresholds.warn_ratio},
        "identity": result.identity,
        "items": [{**asdict(i), "status": i.status.value} for i in result.items],
    }
