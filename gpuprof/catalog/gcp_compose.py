"""GCP's layout in SkyPilot catalogs: GPUs listed apart from the VM that carries them.

In ``catalogs/v8/gcp/vms.csv`` a GPU is a row with an empty ``InstanceType`` (its price is the
GPU's alone, per region and zone), and every machine type — N1 hosts, and the A2/A3/A4/G2 types
the GPUs come built into — is a row without an accelerator whose price is the VM's alone. What a
user rents is the sum. SkyPilot's GCP catalog (``sky/catalog/gcp_catalog.py``) picks the host
like this, and so do we (our own code, same rules):

* A100, A100-80GB, H100, H100-MEGA, H200, B200 and L4 only come in their own machine types
  (``a2-highgpu-Ng``, ``a2-ultragpu-Ng``, ``a3-highgpu-Ng``, ``a3-megagpu-8g``,
  ``a3-ultragpu-8g``, ``a4-highgpu-8g``, ``g2-standard-*``): the cheapest of those for the
  count in the same zone;
* every other GPU (T4, V100, P100, P4, K80, ...) attaches to an N1 VM (``n1-standard``,
  ``n1-highmem``, ``n1-highcpu``) with at least a per-GPU-model number of vCPUs for the count
  and 4 GiB of memory per vCPU: the cheapest such VM in the same zone.

Rows with a machine type *and* an accelerator (older catalogs) are complete and not touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["Attachable", "Host", "compose", "host_for"]

# GPU → count → machine types that carry that many (the only hosts these GPUs come in).
_BUILT_IN: dict[str, dict[int, tuple[str, ...]]] = {
    "A100": {
        **{n: (f"a2-highgpu-{n}g",) for n in (1, 2, 4, 8)},
        16: ("a2-megagpu-16g",),
    },
    "A100-80GB": {n: (f"a2-ultragpu-{n}g",) for n in (1, 2, 4, 8)},
    "H100": {n: (f"a3-highgpu-{n}g",) for n in (1, 2, 4, 8)},
    "H100-MEGA": {8: ("a3-megagpu-8g",)},
    "H200": {8: ("a3-ultragpu-8g",)},
    "B200": {8: ("a4-highgpu-8g",)},
    "L4": {
        1: tuple(f"g2-standard-{c}" for c in (4, 8, 12, 16, 32)),
        2: ("g2-standard-24",),
        4: ("g2-standard-48",),
        8: ("g2-standard-96",),
    },
}
# GPU → count → the fewest vCPUs of its N1 host ("DEFAULT" for GPUs not named).
_N1_VCPUS: dict[str, dict[int, int]] = {
    "K80": {1: 4, 2: 8, 4: 16, 8: 32, 16: 64},
    "V100": {1: 8, 2: 16, 4: 32, 8: 64},
    "T4": {1: 4, 2: 8, 4: 48},
    "P100": {1: 8, 2: 16, 4: 32, 8: 64},
    "DEFAULT": {1: 8, 2: 16, 4: 32, 8: 64, 16: 128},
}
_N1_FAMILIES = ("n1-standard-", "n1-highmem-", "n1-highcpu-")
_GIB_PER_VCPU = 4.0
#: Machine-type prefixes worth keeping as host candidates (every other CPU row is skipped).
HOST_PREFIXES = ("n1-", "a2-", "a3-", "a4-", "g2-")


@dataclass(frozen=True, slots=True)
class Host:
    """A VM row without an accelerator: its price is the VM's alone."""

    instance: str
    region: str
    zone: str
    vcpus: float | None
    ram_gib: float | None
    price: float
    spot: float | None


@dataclass(frozen=True, slots=True)
class Attachable:
    """A GPU row without a machine type: its price is the GPUs' alone."""

    line: int
    name: str
    count: float
    region: str
    zone: str
    price: float
    spot: float | None
    gpu_info: str


def _zone_key(region: str, zone: str) -> tuple[str, str]:
    return region.strip().lower(), zone.strip().lower()


def _index(hosts: Iterable[Host]) -> dict[tuple[str, str], list[Host]]:
    by_zone: dict[tuple[str, str], list[Host]] = {}
    for h in hosts:
        by_zone.setdefault(_zone_key(h.region, h.zone), []).append(h)
    return by_zone


def host_for(gpu: Attachable, candidates: Iterable[Host]) -> Host | None:
    """The host SkyPilot would pick for ``gpu`` among ``candidates`` (its zone's VMs)."""
    count = int(gpu.count) if float(gpu.count).is_integer() else -1
    built_in = _BUILT_IN.get(gpu.name.upper()) or _BUILT_IN.get(gpu.name)
    fits: list[Host]
    if built_in is not None:
        names = set(built_in.get(count, ()))
        fits = [h for h in candidates if h.instance in names]
    else:
        table = _N1_VCPUS.get(gpu.name.upper(), _N1_VCPUS["DEFAULT"])
        need = table.get(count)
        if need is None:
            return None
        fits = [
            h
            for h in candidates
            if h.instance.startswith(_N1_FAMILIES)
            and h.vcpus is not None
            and h.ram_gib is not None
            and h.vcpus >= need
            and h.ram_gib >= need * _GIB_PER_VCPU
        ]
    # Cheapest first; the name breaks ties so the choice never depends on the file's order.
    return min(fits, key=lambda h: (h.price, h.instance), default=None)


def compose(
    gpus: Iterable[Attachable], hosts: Iterable[Host]
) -> tuple[list[tuple[Attachable, Host]], list[Attachable]]:
    """Each GPU row with its host (same region and zone), and the GPU rows left without one."""
    by_zone: Mapping[tuple[str, str], list[Host]] = _index(hosts)
    paired: list[tuple[Attachable, Host]] = []
    alone: list[Attachable] = []
    for gpu in gpus:
        host = host_for(gpu, by_zone.get(_zone_key(gpu.region, gpu.zone), ()))
        if host is None:
            alone.append(gpu)
        else:
            paired.append((gpu, host))
    return paired, alone
