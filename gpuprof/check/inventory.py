"""Inventory against an expectation: the first group of ``gpuprof check``.

The expectation comes from ``--expect``: a short spec (``8xH100-SXM``, ``4×A100-80GB``,
``H100``) or a catalog instance type (``p5.48xlarge``); without it, from each GPU's own spec row
(``nvidia-smi -L`` names matched by :mod:`gpuprof.catalog.names`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from gpuprof.catalog.names import normalize_gpu_model
from gpuprof.catalog.specs import GpuSpec, load_specs
from gpuprof.check.inventory_amd import amd_items
from gpuprof.check.model import CheckItem, Status, Thresholds, inventory_item, peer_links
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr
from gpuprof.telemetry.model import DeviceInfo, GpuSample, SystemInfo, Topology

__all__ = ["Expectation", "inventory_items", "parse_expect"]

_SPEC = re.compile(r"^\s*(?:(\d{1,3})\s*[x×*]\s*)?([A-Za-z][\w .\-]{0,60}?)\s*$")
GIB = 1024**3


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the machine should be. ``gpu_model`` is a spec-table key; None = each GPU's own."""

    gpu_model: str | None = None
    gpu_count: int | None = None
    memory_gib: float | None = None
    source: str = ""


def parse_expect(text: str | None, instances: Sequence[object] | None = None) -> Expectation:
    """``"8xH100-SXM"`` → 8 × ``H100 SXM``; an instance type → its GPUs; None → no expectation.

    ``instances`` are catalog :class:`~gpuprof.catalog.instances.Instance` s (default: the
    packaged catalog, loaded only when the text is not a short spec).
    """
    if text is None or not text.strip():
        return Expectation(source=N_("each GPU's own spec row"))
    raw = text.strip()
    m = _SPEC.match(raw)
    spec_guess: Expectation | None = None
    if m:
        count = int(m.group(1)) if m.group(1) else None
        name = m.group(2).replace("-", " ").replace("_", " ")
        key = normalize_gpu_model(name)
        if key is not None:
            if count is not None and not 1 <= count <= 64:
                raise InputError(tr("--expect {t}: a GPU count must be 1..64", t=raw))
            spec = load_specs()[key]
            spec_guess = Expectation(key, count, spec.memory_gib, source=raw)
            if count is not None:
                return spec_guess
    # A catalog instance type before a count-less spec: "gpu_8x_h100_sxm5" names a GPU model
    # too, but the instance says how many.
    if instances is None:
        from gpuprof.catalog.instances import load_catalog

        instances = load_catalog().instances
    want = raw.lower()
    for inst in instances:
        if str(getattr(inst, "instance", "")).lower() == want:
            model = str(getattr(inst, "gpu_model", ""))
            known = bool(getattr(inst, "gpu_known", False))
            count_f = float(getattr(inst, "gpu_count", 0) or 0)
            if not known or count_f < 1 or not count_f.is_integer():
                raise InputError(
                    tr("--expect {t}: the catalog row has no whole GPU of a known model", t=raw)
                )
            mem = getattr(inst, "gpu_mem_gib", None)
            return Expectation(model, int(count_f), mem, source=raw)
    if spec_guess is not None:
        return spec_guess
    raise InputError(
        tr(
            "--expect {t}: neither a GPU spec like 8xH100-SXM nor a catalog instance type "
            "(see `gpuprof catalog`)",
            t=raw,
        )
    )


def _spec_of(device: DeviceInfo) -> GpuSpec | None:
    mem = device.memory_total_bytes / GIB if device.memory_total_bytes else None
    key = normalize_gpu_model(device.name, mem)
    return load_specs()[key] if key else None


def inventory_items(
    devices: Sequence[DeviceInfo],
    system: SystemInfo,
    topology: Topology | None,
    samples: Sequence[GpuSample],
    expect: Expectation,
    thresholds: Thresholds,
) -> list[CheckItem]:
    """One item per inventory question, in the scorecard's order."""
    items: list[CheckItem] = []
    g = "inventory"
    n = len(devices)
    want = expect.gpu_count
    status, reason, hint = Status.PASS, "", ""
    if want is not None and n != want:
        status, reason = Status.FAIL, N_("GPU count differs from the expectation")
        hint = N_(
            "check `nvidia-smi -L` and the kernel log for a GPU fallen off the bus "
            "(XID 79); ask the provider for the GPUs paid for"
        )
    elif want is None and not n:
        status, reason = Status.SKIP, N_("no NVIDIA GPU visible")
    items.append(
        CheckItem(
            item_id="inventory.gpu_count",
            group=g,
            status=status,
            measured=n,
            expected=want,
            ratio=None if want is None else n / want,
            reason=reason,
            hint=hint,
            source=expect.source,
        )
    )
    for d in devices:
        spec = _spec_of(d)
        want_key = expect.gpu_model or (spec.key if spec else None)
        want_spec = load_specs().get(want_key) if want_key else None
        have = spec.key if spec else d.name
        if want_key is None:
            items.append(
                inventory_item(
                    "inventory.model",
                    d,
                    Status.SKIP,
                    have,
                    None,
                    reason=N_("GPU model not in the spec table"),
                )
            )
        else:
            ok = spec is not None and spec.key == want_key
            items.append(
                inventory_item(
                    "inventory.model",
                    d,
                    Status.PASS if ok else Status.FAIL,
                    have,
                    want_key,
                    reason="" if ok else N_("GPU model differs from the expectation"),
                    hint="" if ok else N_("the machine has other GPUs than expected"),
                    source=expect.source,
                )
            )
        want_mem = expect.memory_gib if expect.gpu_model else (spec.memory_gib if spec else None)
        if want_spec is not None and want_mem is None:
            want_mem = want_spec.memory_gib
        if d.memory_total_bytes and want_mem:
            have_gib = d.memory_total_bytes / GIB
            ratio = have_gib / want_mem
            st = thresholds.grade(ratio)
            items.append(
                inventory_item(
                    "inventory.memory",
                    d,
                    st,
                    round(have_gib, 1),
                    want_mem,
                    ratio=ratio,
                    unit="GiB",
                    source=N_("spec row"),
                    reason="" if st is Status.PASS else N_("less GPU memory than the spec"),
                    hint=""
                    if st is Status.PASS
                    else N_("MIG or a different SKU? check `nvidia-smi -q -d MEMORY`"),
                )
            )
        else:
            items.append(
                inventory_item(
                    "inventory.memory",
                    d,
                    Status.SKIP,
                    None,
                    want_mem,
                    unit="GiB",
                    reason=N_("memory size or spec unknown"),
                )
            )
        if d.vendor == "amd":
            items.extend(amd_items(d, want_spec, n, topology))
        else:
            items.extend(_links(d, want_spec, n, topology))
        items.extend(_pcie(d, want_spec, [s for s in samples if s.index == d.index]))
        if d.vendor != "amd":
            items.extend(_modes(d))
    items.append(
        CheckItem(
            item_id="inventory.driver",
            group=g,
            status=Status.PASS if system.driver_version else Status.SKIP,
            measured=f"amdgpu {system.driver_version or '?'}"
            if devices and all(d.vendor == "amd" for d in devices)
            else f"{system.driver_version or '?'} / CUDA {system.cuda_driver_version or '?'}",
            reason="" if system.driver_version else N_("driver version unknown"),
        )
    )
    return items


def _links(
    d: DeviceInfo, spec: GpuSpec | None, n: int, topology: Topology | None
) -> list[CheckItem]:
    links = peer_links(d, spec, n, topology, "nvlink")
    if isinstance(links, CheckItem):
        return [links]
    if not links or any(x is None for _, x in links):
        st = Status.PASS if d.nvlink_count > 0 else Status.FAIL
        return [
            inventory_item(
                "inventory.nvlink",
                d,
                st,
                d.nvlink_count,
                None,
                reason="" if st is Status.PASS else N_("no active NVLink"),
                hint=""
                if st is Status.PASS
                else N_("check the fabric manager (nvidia-fabricmanager) service"),
            )
        ]
    missing = [p for p, x in links if not str(x).startswith("NV")]
    shown = " ".join(f"{p}:{x}" for p, x in links)
    if missing:
        return [
            inventory_item(
                "inventory.nvlink",
                d,
                Status.FAIL,
                shown,
                "NV* to every peer",
                reason=N_("some GPU pairs talk over PCIe, not NVLink"),
                hint=N_(
                    "check the fabric manager (nvidia-fabricmanager) service and `nvidia-smi topo -m`"
                ),
            )
        ]
    return [inventory_item("inventory.nvlink", d, Status.PASS, shown, "NV* to every peer")]


def _pcie(d: DeviceInfo, spec: GpuSpec | None, samples: Sequence[GpuSample]) -> list[CheckItem]:
    busy = [s for s in samples if (s.util_gpu_pct or 0) >= 50 and s.pcie_gen]
    want_gen = spec.pcie_gen if spec and spec.pcie_gen else d.pcie_gen_max
    if busy:
        gen, width = busy[-1].pcie_gen, busy[-1].pcie_width
        what = N_("at load")
    else:
        gen, width = d.pcie_gen_max, d.pcie_width_max
        what = N_("maximum (idle GPU; the link slows down on purpose when idle)")
    if gen is None or want_gen is None:
        return [
            inventory_item(
                "inventory.pcie", d, Status.SKIP, None, want_gen, reason=N_("PCIe link unknown")
            )
        ]
    ok_w = width is None or d.pcie_width_max is None or width >= d.pcie_width_max
    ok = gen >= want_gen and ok_w
    return [
        inventory_item(
            "inventory.pcie",
            d,
            Status.PASS if ok else Status.WARN,
            f"Gen{gen} x{width or '?'}",
            f"Gen{want_gen} x{d.pcie_width_max or '?'}",
            reason=what if ok else N_("PCIe link below the GPU's own maximum"),
            hint=""
            if ok
            else N_("reseat the card or check the slot / riser and BIOS PCIe settings"),
        )
    ]


class _Mode(NamedTuple):
    """An on/off mode of a GPU: its item, the DeviceInfo field, the setting wanted, and what
    to say when the field is unknown, how to set it and why it matters."""

    item_id: str
    field: str
    want: bool
    unknown: str
    hint: str
    reason: str = ""


_MODES = (
    _Mode(
        "inventory.mig",
        "mig_mode_current",
        False,
        N_("MIG not supported"),
        N_("`nvidia-smi -mig 0` if the whole GPU was paid for"),
        N_("MIG is on: whole-GPU measurements see one slice"),
    ),
    _Mode(
        "inventory.ecc_mode",
        "ecc_mode_current",
        True,
        N_("ECC not supported"),
        N_("`nvidia-smi -e 1` and a reboot"),
    ),
    _Mode(
        "inventory.persistence",
        "persistence_mode",
        True,
        N_("persistence mode unknown"),
        N_("`nvidia-smi -pm 1` (or nvidia-persistenced)"),
    ),
)


def _modes(d: DeviceInfo) -> list[CheckItem]:
    return [_mode(m, d, getattr(d, m.field)) for m in _MODES]


def _mode(m: _Mode, d: DeviceInfo, current: bool | None) -> CheckItem:
    """An on/off mode: SKIP when unknown, PASS when as wanted, else WARN with reason and hint."""
    if current is None:
        return inventory_item(m.item_id, d, Status.SKIP, None, None, reason=m.unknown)
    ok = bool(current) == m.want
    return inventory_item(
        m.item_id,
        d,
        Status.PASS if ok else Status.WARN,
        "on" if current else "off",
        "on" if m.want else "off",
        reason="" if ok else m.reason,
        hint="" if ok else m.hint,
    )
