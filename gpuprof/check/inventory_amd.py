"""The inventory items of an AMD GPU: XGMI links instead of NVLink, the partition modes
(SPX/CPX, NPS) instead of MIG, ECC; persistence mode is NVIDIA's and has no item here."""

from __future__ import annotations

import re

from gpuprof.catalog.specs import GpuSpec
from gpuprof.check.model import CheckItem, Status, inventory_item, peer_links
from gpuprof.i18n import N_
from gpuprof.telemetry.model import DeviceInfo, Topology

__all__ = ["amd_items", "expected_xgmi_links"]


def expected_xgmi_links(spec: GpuSpec | None) -> int | None:
    """The XGMI links per GPU the spec row names ("Infinity Fabric (XGMI), 7 links"), or None."""
    m = re.search(r"(\d+)\s+links?", (spec.interconnect or "") if spec else "")
    return int(m.group(1)) if m else None


def _xgmi(d: DeviceInfo, spec: GpuSpec | None, n: int, topology: Topology | None) -> CheckItem:
    links = peer_links(d, spec, n, topology, "xgmi")
    if isinstance(links, CheckItem):
        return links
    shown = " ".join(f"{p}:{x}" for p, x in links)
    missing = [p for p, x in links if x != "XGMI"]
    want = expected_xgmi_links(spec)
    if missing:
        return inventory_item(
            "inventory.xgmi",
            d,
            Status.FAIL,
            shown,
            "XGMI to every peer",
            reason=N_("some GPU pairs talk over PCIe, not XGMI"),
            hint=N_("check `amd-smi topology` and `amd-smi xgmi`; a link down needs a reset"),
        )
    if want is not None and d.xgmi_link_count < want and d.xgmi_link_count:
        return inventory_item(
            "inventory.xgmi",
            d,
            Status.FAIL,
            d.xgmi_link_count,
            want,
            reason=N_("fewer XGMI links than the spec"),
            hint=N_("check `amd-smi xgmi` for links down"),
        )
    return inventory_item(
        "inventory.xgmi", d, Status.PASS, shown or d.xgmi_link_count, "XGMI to every peer"
    )


def _partition(d: DeviceInfo) -> CheckItem:
    if d.compute_partition is None and d.memory_partition is None:
        return inventory_item(
            "inventory.partition",
            d,
            Status.SKIP,
            None,
            None,
            reason=N_("no partition modes (not an MI300-series GPU)"),
        )
    shown = "/".join(m for m in (d.compute_partition, d.memory_partition) if m)
    whole = (d.compute_partition or "SPX").upper() == "SPX"
    return inventory_item(
        "inventory.partition",
        d,
        Status.PASS if whole else Status.WARN,
        shown,
        "SPX",
        reason=""
        if whole
        else N_("the GPU is split into compute partitions: whole-GPU measurements see one"),
        hint=""
        if whole
        else N_("`amd-smi set --compute-partition SPX` if the whole GPU was paid for"),
    )


def _ecc(d: DeviceInfo) -> CheckItem:
    if d.ecc_mode_current is None:
        return inventory_item(
            "inventory.ecc_mode", d, Status.SKIP, None, None, reason=N_("ECC not supported")
        )
    ok = bool(d.ecc_mode_current)
    return inventory_item(
        "inventory.ecc_mode",
        d,
        Status.PASS if ok else Status.WARN,
        "on" if ok else "off",
        "on",
        hint="" if ok else N_("see `amd-smi static --ras`: RAS/ECC is set in the firmware"),
    )


def amd_items(
    d: DeviceInfo, spec: GpuSpec | None, n: int, topology: Topology | None
) -> list[CheckItem]:
    """XGMI, partition and ECC items of AMD GPU ``d`` (``n`` GPUs in the machine)."""
    return [_xgmi(d, spec, n, topology), _partition(d), _ecc(d)]
