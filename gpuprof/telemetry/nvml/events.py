"""NVML events: critical XID errors while a check or a burn-in runs.

Apart from :mod:`gpuprof.telemetry.nvml.source` (the poll): an event set is its own NVML session with
its own thread, opened only while something waits for XIDs (``gpuprof check``).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from gpuprof.telemetry.nvml.source import load_pynvml

__all__ = ["XidWatch"]


class XidWatch:
    """Critical XID errors while open (NVML event set, ``nvmlEventTypeXidCriticalError``; the
    kernel log shows them too). ``start()`` False: cannot watch here, and ``events()`` is None;
    else ``events()`` is the (GPU index, XID) pairs seen so far."""

    def __init__(self, nvml: Any = None, wait_ms: int = 200) -> None:
        self._nv_override, self._wait_ms = nvml, wait_ms
        self._nv: Any = None
        self._set: Any = None
        self._seen: list[tuple[int, int]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        try:
            nv = self._nv = self._nv_override or load_pynvml()
            nv.nvmlInit()
        except Exception:
            self._nv = None
            return False
        try:
            self._set = nv.nvmlEventSetCreate()
            kind = getattr(nv, "nvmlEventTypeXidCriticalError", 8)
            for i in range(nv.nvmlDeviceGetCount()):
                nv.nvmlDeviceRegisterEvents(nv.nvmlDeviceGetHandleByIndex(i), kind, self._set)
        except Exception:
            self.close()
            self._nv = None
            return False
        self._thread = threading.Thread(target=self._loop, name="gpuprof-xid", daemon=True)
        self._thread.start()
        return True

    def _loop(self) -> None:
        nv = self._nv
        while not self._stop.is_set():
            try:
                data = nv.nvmlEventSetWait_v2(self._set, self._wait_ms)
            except nv.NVMLError as exc:
                if getattr(exc, "value", None) == getattr(nv, "NVML_ERROR_TIMEOUT", 10):
                    continue
                return  # the set is gone or the driver failed: what was seen stays
            try:
                index = int(nv.nvmlDeviceGetIndex(data.device))
            except Exception:
                index = -1
            self._seen.append((index, int(data.eventData)))

    def events(self) -> list[tuple[int, int]] | None:
        return list(self._seen) if self._nv is not None else None

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * self._wait_ms / 1000 + 1)
        nv, self._thread = self._nv, None
        if nv is not None and self._set is not None:
            with contextlib.suppress(Exception):
                nv.nvmlEventSetFree(self._set)
            self._set = None
        if nv is not None:
            with contextlib.suppress(Exception):
                nv.nvmlShutdown()
