"""Health items: the existing findings, ECC before/after, pending retirement/remapping, XID.

Pure functions over what the telemetry layer produced (no NVML here), so the fake NVML and
recorded snapshots test them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gpuprof.check.model import CheckItem, Status
from gpuprof.findings import Severity
from gpuprof.health.diagnose import diagnose
from gpuprof.i18n import N_
from gpuprof.telemetry.model import DeviceInfo, EccCounts, Snapshot, SystemInfo

__all__ = ["ecc_by_gpu", "health_items", "skip_item"]


def skip_item(item_id: str, group: str, reason: str) -> CheckItem:
    return CheckItem(item_id=item_id, group=group, status=Status.SKIP, reason=reason)


def ecc_by_gpu(snapshot: Snapshot | None) -> dict[int, EccCounts | None]:
    if snapshot is None:
        return {}
    return {g.index: g.ecc for g in snapshot.gpus}


def _delta(before: int | None, after: int | None) -> int | None:
    if before is None or after is None:
        return None
    return after - before


def health_items(
    devices: Sequence[DeviceInfo],
    system: SystemInfo,
    snapshots: Sequence[Snapshot],
    ecc_before: Mapping[int, EccCounts | None],
    ecc_after: Mapping[int, EccCounts | None],
    xid_events: Sequence[tuple[int, int]] | None,
) -> list[CheckItem]:
    """``xid_events``: (gpu index, XID) seen during the check; None = could not watch."""
    items: list[CheckItem] = []
    g = "health"
    if not devices:
        return [skip_item("health.findings", g, N_("no NVIDIA GPU visible"))]
    findings = diagnose(devices, snapshots, system=system) if snapshots else []
    serious = [f for f in findings if f.severity is not Severity.INFO]
    for f in serious:
        items.append(
            CheckItem(
                item_id=f"health.{f.code}",
                group=g,
                status=Status.FAIL if f.severity is Severity.CRITICAL else Status.WARN,
                measured=f.title,
                reason=f.detail,
                hint=f.hint,
                gpu_index=f.gpu_index,
            )
        )
    if not serious:
        items.append(
            CheckItem(
                item_id="health.findings",
                group=g,
                status=Status.PASS,
                measured=len(findings),
                reason=N_("no warning or critical finding"),
            )
        )
    for d in devices:
        before, after = ecc_before.get(d.index), ecc_after.get(d.index)
        unc = cor = None
        if before is not None and after is not None:
            unc = _delta(before.volatile_uncorrected, after.volatile_uncorrected)
            cor = _delta(before.volatile_corrected, after.volatile_corrected)
        if unc is None and cor is None:
            items.append(
                CheckItem(
                    item_id="health.ecc",
                    group=g,
                    status=Status.SKIP,
                    gpu_index=d.index,
                    reason=N_("ECC counters not available"),
                )
            )
            status = Status.SKIP
        elif unc:
            status = Status.FAIL
        elif cor:
            status = Status.WARN
        else:
            status = Status.PASS
        if status is not Status.SKIP:
            items.append(
                CheckItem(
                    item_id="health.ecc",
                    group=g,
                    status=status,
                    measured=f"+{unc or 0} uncorrected, +{cor or 0} corrected",
                    expected="+0",
                    reason=N_("new ECC errors during the check")
                    if status in (Status.FAIL, Status.WARN)
                    else "",
                    hint=N_("uncorrected ECC errors: drain the GPU and ask for a replacement")
                    if status is Status.FAIL
                    else "",
                    gpu_index=d.index,
                )
            )
        if before is None or after is None:
            continue  # no retirement item without both snapshots of the counters
        pending = bool(after.retired_pages_pending) or bool(after.remapped_rows_pending)
        failed = bool(after.remapped_rows_failure)
        known = after.retired_pages_pending is not None or after.remapped_rows_pending is not None
        items.append(
            CheckItem(
                item_id="health.retirement",
                group=g,
                status=Status.FAIL
                if (pending or failed)
                else (Status.PASS if known else Status.SKIP),
                measured=N_("remap failed")
                if failed
                else (N_("pending") if pending else ("none" if known else None)),
                expected="none",
                reason=N_("retired pages / remapped rows not reported") if not known else "",
                hint=N_(
                    "a pending remap needs a GPU reset (`nvidia-smi -r`); a failed one, a replacement"
                )
                if (pending or failed)
                else "",
                gpu_index=d.index,
            )
        )
    if all(d.vendor == "amd" for d in devices):
        items.append(
            skip_item(
                "health.xid",
                g,
                N_("XID events are NVIDIA's; AMD RAS errors are counted in the ECC items"),
            )
        )
    elif xid_events is None:
        items.append(
            skip_item(
                "health.xid",
                g,
                N_("XID events cannot be watched here (NVML event sets unsupported)"),
            )
        )
    else:
        shown = ", ".join(f"GPU {i}: XID {x}" for i, x in xid_events)
        items.append(
            CheckItem(
                item_id="health.xid",
                group=g,
                status=Status.FAIL if xid_events else Status.PASS,
                measured=shown or "none",
                expected="none",
                reason=N_("critical XID errors during the check") if xid_events else "",
                hint=N_("look the XID up in NVIDIA's XID catalog; most need a reset or an RMA")
                if xid_events
                else "",
            )
        )
    return items
