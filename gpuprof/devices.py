"""NVML GPUs and torch devices: which ``cuda:N`` is which NVML GPU.

gpuprof names GPUs two ways. NVML indices (telemetry, the check's inventory and its
``--device cuda:N``, the burn-in's grading) follow the PCI bus order of every GPU on the machine.
Torch ordinals (``cuda:N`` for benchmarks, the memory test, the burn-in's load) count only the
GPUs CUDA_VISIBLE_DEVICES lets the process see, in CUDA_DEVICE_ORDER (FASTEST_FIRST by
default). With CUDA_VISIBLE_DEVICES=2,3, torch's ``cuda:0`` is NVML GPU 2.

:func:`cuda_map` matches them by each device's UUID (torch's device properties; NVML writes it
with a ``GPU-`` prefix, torch without), else by PCI bus id, else by parsing
CUDA_VISIBLE_DEVICES (indices or UUIDs) on the assumption that CUDA enumerates GPUs in NVML's
(PCI bus) order. A GPU NVML sees and torch does not is never swapped for another: its
:class:`CudaMatch` has no ordinal and says why.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuprof.i18n import N_

__all__ = [
    "CudaMatch",
    "TorchDevice",
    "cuda_map",
    "normalise_bus_id",
    "normalise_uuid",
    "nvml_index_of",
    "torch_devices",
]

#: How a match was made (``CudaMatch.how``).
BY_UUID = "uuid"
BY_PCI = "pci"
BY_ENV = "CUDA_VISIBLE_DEVICES"


@dataclass(frozen=True, slots=True)
class TorchDevice:
    """What torch says of its ``cuda:<ordinal>``: UUID and PCI bus id where it tells them."""

    ordinal: int
    uuid: str | None = None
    pci_bus_id: str | None = None


@dataclass(frozen=True, slots=True)
class CudaMatch:
    """NVML GPU ``nvml_index`` is torch's ``cuda:<ordinal>``, found ``how``; ``ordinal`` None:
    CUDA does not see it, for ``reason``."""

    nvml_index: int
    ordinal: int | None
    how: str = ""
    reason: str = ""

    @property
    def device(self) -> str | None:
        """``cuda:<ordinal>``; None when CUDA does not see this GPU."""
        return None if self.ordinal is None else f"cuda:{self.ordinal}"


def normalise_uuid(text: object) -> str | None:
    """``GPU-58BF…``, ``58bf…`` or a torch UUID object → ``58bf…`` (lower case, no prefix)."""
    if text is None:
        return None
    value = str(text).strip().lower()
    if value.startswith("gpu-"):
        value = value[4:]
    return value or None


def normalise_bus_id(text: object) -> str | None:
    """``00000000:1B:00.0`` (NVML) or ``0000:1b:00.0`` → ``0000:1b:00.0``; None if unreadable."""
    if text is None:
        return None
    parts = str(text).strip().lower().replace(".", ":").split(":")
    if len(parts) == 3:
        parts = ["0", *parts]
    if len(parts) != 4:
        return None
    try:
        dom, bus, dev, fn = (int(p, 16) for p in parts)
    except ValueError:
        return None
    return f"{dom:04x}:{bus:02x}:{dev:02x}.{fn:x}"


def _props_bus_id(props: Any) -> str | None:
    bus = getattr(props, "pci_bus_id", None)
    dom = getattr(props, "pci_domain_id", None)
    dev = getattr(props, "pci_device_id", None)
    if not all(isinstance(v, int) for v in (bus, dom, dev)):
        return None
    return f"{dom:04x}:{bus:02x}:{dev:02x}.0"


def torch_devices(torch: Any = None) -> list[TorchDevice] | None:
    """Torch's CUDA devices with their UUIDs and PCI bus ids (where this torch tells them);
    None without torch or without CUDA (nothing to ask)."""
    if torch is None:
        try:
            import torch as torch_module
        except ImportError:
            return None
        torch = torch_module
    try:
        if not torch.cuda.is_available():
            return None
        out = []
        for i in range(int(torch.cuda.device_count())):
            props = torch.cuda.get_device_properties(i)
            uuid = getattr(props, "uuid", None)
            out.append(TorchDevice(i, normalise_uuid(uuid), _props_bus_id(props)))
        return out
    except Exception:  # a broken CUDA install: fall back to the environment
        return None


def _visible_list(env: Mapping[str, str]) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES as entries, up to the first invalid one (as CUDA reads it); None
    when unset."""
    raw = env.get("CUDA_VISIBLE_DEVICES")
    if raw is None:
        return None
    out: list[str] = []
    for entry in raw.split(","):
        e = entry.strip()
        if not e or e.startswith("-"):
            break  # CUDA ignores this entry and every one after it
        out.append(e)
    return out


def _env_ordinal(index: int, uuid: str | None, visible: list[str] | None) -> int | None:
    if visible is None:
        return index  # everything visible, in NVML's order (assumed)
    for ordinal, entry in enumerate(visible):
        if entry.isdigit():
            if int(entry) == index:
                return ordinal
        else:
            want = normalise_uuid(entry)
            if uuid and want and uuid.startswith(want):
                return ordinal
    return None


def _hidden_reason(env: Mapping[str, str]) -> str:
    raw = env.get("CUDA_VISIBLE_DEVICES")
    if raw is not None:
        return N_("not visible to CUDA: CUDA_VISIBLE_DEVICES={v}").format(v=raw)
    return N_("not visible to CUDA (torch does not list this GPU)")


def cuda_map(
    gpus: Sequence[Any],
    torch_devs: Sequence[TorchDevice] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    ask_torch: bool = True,
) -> dict[int, CudaMatch]:
    """Each NVML GPU of ``gpus`` (anything with ``index``, ``uuid``, ``pci_bus_id``: a
    DeviceInfo) → its :class:`CudaMatch`, by NVML index.

    ``torch_devs`` defaults to :func:`torch_devices` (``ask_torch``); ``env`` to the process
    environment. When torch tells UUIDs (or PCI bus ids), a GPU matches by them or is hidden;
    (a UUID that matches none, as a MIG instance's, tries the PCI bus id); otherwise
    CUDA_VISIBLE_DEVICES decides, assuming CUDA's order is NVML's. An ordinal is given
    to one GPU at most.
    """
    env = os.environ if env is None else env
    if torch_devs is None and ask_torch:
        torch_devs = torch_devices()
    devs = list(torch_devs or ())
    by_uuid = {d.uuid: d.ordinal for d in devs if d.uuid}
    by_bus = {d.pci_bus_id: d.ordinal for d in devs if d.pci_bus_id}
    visible = _visible_list(env)
    out: dict[int, CudaMatch] = {}
    taken: set[int] = set()
    for gpu in gpus:
        index = int(gpu.index)
        uuid = normalise_uuid(getattr(gpu, "uuid", None))
        bus = normalise_bus_id(getattr(gpu, "pci_bus_id", None))
        ordinal: int | None = None
        how = BY_UUID
        if by_uuid and uuid:
            ordinal = by_uuid.get(uuid)
        if ordinal is None and by_bus and bus:
            # Also where the UUIDs differ: torch gives a MIG instance's own UUID, NVML the GPU's.
            ordinal, how = by_bus.get(bus), BY_PCI
        if not (by_uuid and uuid) and not (by_bus and bus):
            ordinal, how = _env_ordinal(index, uuid, visible), BY_ENV
            if ordinal is not None and torch_devs is not None and ordinal >= len(devs):
                ordinal = None
        if ordinal is not None and ordinal in taken:
            ordinal = None
        if ordinal is None:
            out[index] = CudaMatch(index, None, how, _hidden_reason(env))
        else:
            taken.add(ordinal)
            out[index] = CudaMatch(index, ordinal, how)
    return out


def nvml_index_of(
    ordinal: int,
    gpus: Sequence[Any],
    torch_devs: Sequence[TorchDevice] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    ask_torch: bool = True,
) -> int | None:
    """The NVML index of torch's ``cuda:<ordinal>`` (the reverse of :func:`cuda_map`); the
    ordinal itself when ``gpus`` is empty (nothing to match against), None when no GPU of
    ``gpus`` is it."""
    if not gpus:
        return ordinal
    for match in cuda_map(gpus, torch_devs, env, ask_torch=ask_torch).values():
        if match.ordinal == ordinal:
            return match.nvml_index
    return None
