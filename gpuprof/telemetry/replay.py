"""Replay of a recorded session (a :class:`~gpuprof.telemetry.store.SessionStore` file). Always REPLAY."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.telemetry.model import Snapshot, SourceKind, SourceState, SourceStatus
from gpuprof.telemetry.source import CLOSE_TIMEOUT_S, KeptFacts

if TYPE_CHECKING:
    from gpuprof.telemetry.store import SessionStore

__all__ = ["GAP_SKIP_S", "ReplaySource"]

#: A stretch longer than this without a sample (the longest sampling interval) is dead air that
#: replay jumps over: a suspended laptop, or a damaged time years away from the rest.
GAP_SKIP_S = 60.0


class ReplaySource(KeptFacts):
    """Plays a recorded session at ``speed``× real time; seekable. Always REPLAY.

    The snapshots keep their original recorded times (Unix s), so a plot shows when things
    happened; only ``source`` is changed to REPLAY, except that a recording of the simulator
    plays as SIMULATED (simulated data never passes for real). A backwards :meth:`seek` makes time
    go back, which :class:`~gpuprof.telemetry.history.History` treats as a new start.
    ``clock`` is a monotonic clock in seconds.
    """

    kind = SourceKind.REPLAY

    def __init__(
        self,
        path: str | os.PathLike[str],
        speed: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpuprof.telemetry.store import SessionStore

        self.path = Path(path)
        self.store: SessionStore = SessionStore.open(self.path)
        rng = self.store.time_range()
        if rng is None:
            self.store.close()
            raise InputError(f"{self.path}: the recording holds no snapshots")
        self.start_s, self.end_s = rng
        self._system = self.store.system_info()
        self._devices = self.store.devices()
        self._topology = self.store.topology()
        self._last: Snapshot | None = None
        #: A recording of the simulator stays SIMULATED when played back: in its label (the
        #: terminal banner, the window title) and in every snapshot it plays.
        self.simulated = self.store.source_kind is SourceKind.SIMULATED
        self.label = (
            tr("REPLAY of SIMULATED data — {name}", name=self.path.name)
            if self.simulated
            else tr("REPLAY — {name}", name=self.path.name)
        )
        self._clock = clock
        self._lock = threading.Lock()
        self._speed = 1.0
        self.speed = speed
        self._anchor_clock = clock()
        self._anchor_pos = 0.0
        self._paused = False
        # What the reader was warned of (not closed, records left out) shows with the source.
        notes = "".join(f"; {w.removeprefix(f'{self.path}: ')}" for w in self.store.warnings)
        self._status = SourceStatus(
            SourceState.OK,
            message=f"replay of {self.path.name} (recorded from "
            f"{self.store.source_kind.value}){notes}",
        )

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise InputError(f"replay speed must be a positive number, got {value!r}")
        with self._lock:
            if hasattr(self, "_anchor_clock"):
                self._anchor_pos = self._position_locked()
                self._anchor_clock = self._clock()
            self._speed = float(value)

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    def _position_locked(self) -> float:
        if self._paused:
            return self._anchor_pos
        pos = self._anchor_pos + (self._clock() - self._anchor_clock) * self._speed
        return min(max(pos, 0.0), self.duration_s)

    @property
    def position_s(self) -> float:
        """Seconds from the start of the recording being played now."""
        with self._lock:
            return self._position_locked()

    @property
    def finished(self) -> bool:
        return self.position_s >= self.duration_s

    @property
    def paused(self) -> bool:
        return self._paused

    def seek(self, t_s: float) -> None:
        """Jump to ``t_s`` seconds from the start (clamped to the recording); ``ValueError``
        for NaN or infinity, which no clamp turns into a position."""
        target = float(t_s)
        if not math.isfinite(target):
            raise ValueError(f"a replay seek needs a finite number of seconds, got {t_s!r}")
        with self._lock:
            self._anchor_pos = min(max(target, 0.0), self.duration_s)
            self._anchor_clock = self._clock()

    def pause(self) -> None:
        with self._lock:
            self._anchor_pos = self._position_locked()
            self._paused = True

    def resume(self) -> None:
        with self._lock:
            self._anchor_clock = self._clock()
            self._paused = False

    def poll(self) -> Snapshot:
        """The recorded snapshot at the current replay position (its original time).

        Dead air longer than :data:`GAP_SKIP_S` is jumped over to the next sample, so a replay
        always reaches its end; where the records at the position cannot be read, the last
        snapshot shown stays (the store skips and counts them)."""
        t = self.start_s + self.position_s
        snap = self.store.snapshot_at(t)
        if snap is not None and t - snap.time_s > GAP_SKIP_S:
            nxt = self.store.next_time_after(snap.time_s)
            if nxt is not None and nxt > t:
                with self._lock:
                    self._anchor_pos = min(nxt - self.start_s, self.duration_s)
                    self._anchor_clock = self._clock()
                snap = self.store.snapshot_at(nxt) or snap
        if snap is None:  # before the first readable record, or many unreadable ones
            snap = self._last or next(self.store.snapshots(), None)
        if snap is None:
            raise InputError(f"{self.path}: no readable snapshots")
        self._last = snap
        if self.simulated or snap.source is SourceKind.SIMULATED:
            return replace(snap, source=SourceKind.SIMULATED)
        return replace(snap, source=SourceKind.REPLAY)

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        self.store.close()
