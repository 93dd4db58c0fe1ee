"""What went wrong with the GPU backend: a registry of field failures and the user's hints.

The registry counts each failure once per (device, field, error kind), like nvitop's
libnvml: a field unsupported on a consumer card fails on every poll but is one entry.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from gpuprof.telemetry.model import SourceState, SourceStatus

__all__ = ["Diagnostics", "Failure", "failed_status"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One field that failed on one device, the first time it failed."""

    device: int | None
    field: str
    kind: str  # "NotSupported", "NoPermission", "GpuIsLost", "FunctionNotFound", ...
    message: str


class Diagnostics:
    """Failures, each counted once per (device, field, error kind), like nvitop's libnvml.

    A field unsupported on a consumer card fails on every poll; the registry keeps one entry.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[int | None, str, str], Failure] = {}

    def record(self, device: int | None, field: str, kind: str, message: str = "") -> bool:
        """Note a failure; ``True`` the first time this (device, field, kind) is seen."""
        key = (device, field, kind)
        if key in self._seen:  # the common case, without the lock: a repeat
            return False
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = Failure(device, field, kind, message)
            return True

    def failures(self) -> tuple[Failure, ...]:
        """Every distinct failure, in the order first seen."""
        with self._lock:
            return tuple(self._seen.values())

    def counts(self) -> dict[str, int]:
        """Number of distinct (device, field) failures per error kind."""
        out: dict[str, int] = {}
        for failure in self.failures():
            out[failure.kind] = out.get(failure.kind, 0) + 1
        return out

    def has(self, device: int | None, field: str, kind: str | None = None) -> bool:
        """Whether ``field`` failed on ``device`` (with ``kind``, when given)."""
        with self._lock:
            return any(
                d == device and f == field and (kind is None or k == kind) for d, f, k in self._seen
            )

    def summary(self) -> str:
        """One line per error kind: ``NotSupported: 12 (gpu0.ecc_volatile_corrected, ...)``."""
        by_kind: dict[str, list[str]] = {}
        for f in self.failures():
            device = "system" if f.device is None else f"gpu{f.device}"
            by_kind.setdefault(f.kind, []).append(f"{device}.{f.field}")
        lines = []
        for kind, places in sorted(by_kind.items()):
            shown = ", ".join(places[:6]) + (", ..." if len(places) > 6 else "")
            lines.append(f"{kind}: {len(places)} ({shown})")
        return "\n".join(lines)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()

    def __len__(self) -> int:
        return len(self._seen)


_STATE_HINTS: dict[SourceState, tuple[str, str]] = {
    SourceState.LIBRARY_NOT_FOUND: (
        "NVIDIA driver library (libnvidia-ml.so.1 / nvml.dll) not found",
        "Install the NVIDIA driver. In a container, start it with the NVIDIA Container Toolkit "
        "(docker run --gpus all). Host metrics are still shown.",
    ),
    SourceState.DRIVER_NOT_LOADED: (
        "The NVIDIA kernel driver is not loaded",
        "Load it (sudo modprobe nvidia) or reboot after installing the driver; `nvidia-smi` "
        "should then list the GPUs. Host metrics are still shown.",
    ),
    SourceState.VERSION_MISMATCH: (
        "Driver/library version mismatch (NVML and the kernel module differ)",
        "Usually after a driver upgrade: reboot, or unload and reload the nvidia kernel modules.",
    ),
    SourceState.NO_PERMISSION: (
        "No permission to open the NVIDIA devices",
        "Check access to /dev/nvidia* (group membership, container device rules).",
    ),
    SourceState.NO_GPUS: (
        "The NVIDIA driver is loaded but reports no GPU",
        "Check `nvidia-smi -L`, CUDA_VISIBLE_DEVICES-style device masks and the container's "
        "device list. Host metrics are still shown.",
    ),
}


def failed_status(state: SourceState, detail: str = "") -> SourceStatus:
    """The status the UI shows for a backend ``state``, with its message and hint."""
    message, hint = _STATE_HINTS.get(state, ("NVML error", "See the diagnostics."))
    if detail:
        message = f"{message} ({detail})"
    return SourceStatus(state=state, message=message, hint=hint)
