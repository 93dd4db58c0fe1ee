"""The GPU processes a session saw: :class:`ProcessLedger`, bounded and thread-safe.

Reports list these instead of keeping a second buffer of snapshots.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from gpuprof.telemetry.model import ProcessSample, Snapshot

__all__ = ["MAX_PROCESSES", "ProcessLedger", "ProcessSeen"]

#: Processes kept by the ledger; the least recently seen go first.
MAX_PROCESSES = 1_000


@dataclass(frozen=True, slots=True)
class ProcessSeen:
    """One GPU process over a session: the most memory it held and when it was seen (Unix s)."""

    sample: ProcessSample  # the first sample seen (name, user, command line)
    gpu_mem_max_bytes: int | None
    first_s: float
    last_s: float


class ProcessLedger:
    """Every (pid, GPU) seen in a session, with the most memory it held; bounded, thread-safe.

    Reports list these instead of keeping a second buffer of snapshots.
    """

    def __init__(self, max_processes: int = MAX_PROCESSES) -> None:
        self._max = max(1, int(max_processes))
        self._rows: OrderedDict[tuple[int, int], ProcessSeen] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, snap: Snapshot) -> None:
        with self._lock:
            for p in snap.processes:
                key = (p.pid, p.gpu_index)
                old = self._rows.get(key)
                if old is None:
                    self._rows[key] = ProcessSeen(p, p.gpu_mem_bytes, snap.time_s, snap.time_s)
                    if len(self._rows) > self._max:
                        self._rows.popitem(last=False)
                    continue
                mem = old.gpu_mem_max_bytes
                if p.gpu_mem_bytes is not None and (mem is None or p.gpu_mem_bytes > mem):
                    mem = p.gpu_mem_bytes
                self._rows[key] = replace(old, gpu_mem_max_bytes=mem, last_s=snap.time_s)
                self._rows.move_to_end(key)

    def extend(self, snaps: Iterable[Snapshot]) -> None:
        for snap in snaps:
            self.add(snap)

    def rows(self, t0: float | None = None, t1: float | None = None) -> tuple[ProcessSeen, ...]:
        """The processes seen in ``[t0, t1]`` (Unix s; ``None``: unbounded), oldest first."""
        with self._lock:
            return tuple(
                r
                for r in self._rows.values()
                if (t0 is None or r.last_s >= t0) and (t1 is None or r.first_s <= t1)
            )

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)
