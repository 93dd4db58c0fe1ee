"""The telemetry session: one home for a source, its sampler, History, recording and replay.

Every front end is a client of a :class:`TelemetrySession` (DESIGN.md, data flow): the window
(through a thin Qt adapter that turns the callbacks into queued signals), ``monitor``,
``record``, ``replay``, the Prometheus exporter, the benchmark runner's telemetry and reports.
The session owns

- the source (NVML, SIMULATED, REPLAY, later remote ones) and closes it;
- the :class:`~gpuprof.telemetry.sampler.Sampler` thread that polls it;
- the :class:`~gpuprof.telemetry.history.History` rings, sized by the client (a headless
  ``record`` never reads History, so it keeps a tiny one);
- the optional recording (a :class:`~gpuprof.telemetry.store.SessionStore`);
- replay control (play / pause / seek / speed) when the source is a replay;
- a :class:`ProcessLedger` of the GPU processes seen, and the window of time a report covers.

Callbacks: :meth:`TelemetrySession.subscribe` gets every snapshot on the sampler thread (or the
caller's, for :meth:`poll_once`); :meth:`TelemetrySession.subscribe_state` gets a
:class:`SessionState` whenever the source, the recording or the replay changes. Neither may
block: a UI hands the value over to its own thread.

:meth:`TelemetrySession.close` never hangs: it waits at most ``timeout_s`` for a poll in flight
(a driver in trouble), then leaves the daemon thread behind and closes the source, which bounds
its own wait (NVML skips ``nvmlShutdown`` when a call is stuck).
"""

from __future__ import annotations

import inspect
import logging
import math
import numbers
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import ProcessSample, Snapshot, SourceKind
from gpuprof.telemetry.sampler import Sampler
from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "CLOSE_TIMEOUT_S",
    "FULL_HISTORY",
    "MINIMAL_HISTORY",
    "ProcessLedger",
    "ProcessSeen",
    "ReplayState",
    "SessionState",
    "TelemetrySession",
]

log = logging.getLogger(__name__)

#: History capacity (samples) of the window: 24 h at 1 Hz, about 100 MB for 8 GPUs.
FULL_HISTORY = 86_400
#: History capacity for clients that only need the latest sample (``record``, the exporter).
MINIMAL_HISTORY = 16
#: The longest :meth:`TelemetrySession.close` waits for a poll in flight.
CLOSE_TIMEOUT_S = 1.0
#: Processes kept by the ledger; the least recently seen go first.
MAX_PROCESSES = 1_000

SnapshotCallback = Callable[[Snapshot], None]
StateCallback = Callable[["SessionState"], None]


SamplerFactory = Callable[[TelemetrySource, float, History], Sampler]


def _default_sampler(source: TelemetrySource, interval_s: float, history: History) -> Sampler:
    return Sampler(source, interval_s=interval_s, history=history)


@dataclass(frozen=True, slots=True)
class ReplayState:
    """Where a replay stands: seconds into the recording, its length, and whether it plays."""

    position_s: float
    duration_s: float
    playing: bool
    finished: bool
    speed: float


@dataclass(frozen=True, slots=True)
class SessionState:
    """What a client shows about the session (the status bar, the replay bar, the REC mark)."""

    source_kind: SourceKind
    source_label: str
    interval_s: float
    generation: int  # bumps whenever the source (and so History) is replaced
    recording_path: Path | None = None
    recording_error: str | None = None  # why the last recording stopped by itself
    replay: ReplayState | None = None
    closed: bool = False


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


class TelemetrySession:
    """A source sampled into History (and a recording), with subscriptions; see the module doc.

    ``history_capacity`` sizes History (samples), or ``history`` is a ready one (a perf script's
    prefilled day); ``sampler_factory(source, interval_s, history)`` is injectable for tests. Nothing polls until :meth:`start` (or
    :meth:`poll_once`).
    """

    def __init__(
        self,
        source: TelemetrySource,
        *,
        interval_s: float = 1.0,
        history_capacity: int = FULL_HISTORY,
        history: History | None = None,
        sampler_factory: SamplerFactory = _default_sampler,
    ) -> None:
        self._lock = threading.RLock()
        self._snapshot_cbs: list[SnapshotCallback] = []
        self._state_cbs: list[StateCallback] = []
        self._history_capacity = int(history_capacity)
        self._sampler_factory = sampler_factory
        self._interval_s = float(interval_s)
        self._generation = 0
        self._closed = False
        self._store: Any = None
        self._recording_path: Path | None = None
        self._prefill_live: list[Snapshot] | None = None
        self.processes = ProcessLedger()
        # What clients watch (processes' host statistics, GPM): read at every poll meanwhile.
        self._watchers = {"process_host": 0, "gpm": 0}
        #: Seconds of History a report covers, ending at the newest sample (None: all of it).
        self.report_window_s: float | None = None
        self.source: TelemetrySource = source
        self.history: History = (
            history if history is not None else History(capacity=self._history_capacity)
        )
        self.sampler: Sampler = self._make_sampler(source, self.history)

    # -- subscriptions ---------------------------------------------------------------------

    def subscribe(self, cb: SnapshotCallback) -> Callable[[], None]:
        """Call ``cb(snapshot)`` after each poll (sampler thread); returns an unsubscribe."""
        with self._lock:
            self._snapshot_cbs.append(cb)
        return lambda: self._remove(self._snapshot_cbs, cb)

    def subscribe_state(self, cb: StateCallback) -> Callable[[], None]:
        """Call ``cb(state)`` on every change of source, recording or replay; returns an
        unsubscribe."""
        with self._lock:
            self._state_cbs.append(cb)
        return lambda: self._remove(self._state_cbs, cb)

    def _remove(self, cbs: list[Any], cb: Any) -> None:
        with self._lock:
            if cb in cbs:
                cbs.remove(cb)

    def _on_snapshot(self, snap: Snapshot) -> None:
        # Sampler thread (or poll_once's caller), after History and the recording took it.
        if self._store is not None and not self.sampler.recording:
            self._recording_failed()
        self.processes.add(snap)
        with self._lock:
            if self._prefill_live is not None:
                self._prefill_live.append(snap)
            cbs = tuple(self._snapshot_cbs)
        _call_each(cbs, snap)

    def _notify_state(self) -> None:
        state = self.state()
        with self._lock:
            cbs = tuple(self._state_cbs)
        _call_each(cbs, state)

    def state(self) -> SessionState:
        return SessionState(
            source_kind=self.source.kind,
            source_label=self.source.label,
            interval_s=self.interval_s,
            generation=self._generation,
            recording_path=self._recording_path,
            recording_error=self.recording_error,
            replay=self.replay_state(),
            closed=self._closed,
        )

    def watch_processes(self) -> Callable[[], None]:
        """Ask for the GPU processes' host CPU % and RSS at every poll until the returned call
        (the Processes tab while it is shown, the exporter's per-process series); while nobody
        watches, a source reads them at its slower cadence (NVML: every 5 s,
        ``procstat.PROCESS_HOST_INTERVAL_S``). Watches nest and outlive a change of source."""
        return self._watch("process_host")

    def watch_gpm(self) -> Callable[[], None]:
        """Ask for GPM's profiling activity at every poll until the returned call (the window's
        Overview and Telemetry tabs while shown); while nobody watches, a source samples it at
        its slower cadence (NVML: every 5 s, ``nvml.gpm.GPM_INTERVAL_S``)."""
        return self._watch("gpm")

    def _watch(self, what: str) -> Callable[[], None]:
        with self._lock:
            self._watchers[what] += 1
            if self._watchers[what] == 1:
                _tell_source(self.source, what, True)
        done = threading.Event()

        def unwatch() -> None:
            with self._lock:
                if done.is_set():
                    return
                done.set()
                self._watchers[what] -= 1
                if self._watchers[what] == 0:
                    _tell_source(self.source, what, False)

        return unwatch

    # -- source and sampling ---------------------------------------------------------------

    def _make_sampler(self, source: TelemetrySource, history: History) -> Sampler:
        sampler = self._sampler_factory(source, self._interval_s, history)
        sampler.add_listener(self._on_snapshot)
        return sampler

    @property
    def generation(self) -> int:
        """Bumps whenever the source (and with it History) is replaced."""
        return self._generation

    @property
    def interval_s(self) -> float:
        return float(self.sampler.interval_s)

    def set_interval(self, interval_s: float) -> None:
        """Poll every ``interval_s`` seconds, within :mod:`gpuprof.telemetry.interval`'s bounds
        (``ValueError`` otherwise)."""
        self.sampler.set_interval(interval_s)
        self._interval_s = float(self.sampler.interval_s)
        self._notify_state()

    def start(self) -> None:
        """Start the background polls (no-op when running)."""
        if not self._closed:
            self.sampler.start()

    def poll_once(self) -> Snapshot:
        """Poll now in the caller's thread: History, recording and subscribers get it."""
        return self.sampler.poll_once()

    @property
    def last_error(self) -> str | None:
        return self.sampler.last_error

    def set_source(self, source: TelemetrySource, *, start: bool = True) -> None:
        """Replace the source (stopping a recording and closing the old source) with a fresh
        History; the replay speed and interval carry over."""
        old_source = self.source
        self._stop_sampler(close_source=False)
        if old_source is not source:
            self._close_source(old_source)
        with self._lock:
            self._generation += 1
            self._prefill_live = None
            self.source = source
            for what, watchers in self._watchers.items():
                if watchers:
                    _tell_source(source, what, True)
            self.history = History(capacity=self._history_capacity)
            self.processes.clear()
            self.sampler = self._make_sampler(source, self.history)
        self._notify_state()
        if start:
            self.start()

    def _stop_sampler(self, *, close_source: bool, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        # One deadline for everything: a poll stuck in the driver costs timeout_s once, not
        # once for the sampler and again for the source.
        deadline = time.monotonic() + timeout_s
        if self.sampler.recording:
            self.stop_recording()
        self.sampler.stop(timeout=max(0.0, deadline - time.monotonic()))
        if close_source:
            self._close_source(self.source, max(0.0, deadline - time.monotonic()))

    @staticmethod
    def _close_source(source: TelemetrySource, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        # Closing a broken source must not stop the exit. NVML's close takes a bound of its own
        # (it then skips nvmlShutdown); the protocol's close() takes none.
        try:
            close: Callable[..., None] = source.close
            if "timeout_s" in inspect.signature(close).parameters:
                close(timeout_s=timeout_s)
            else:
                close()
        except Exception:
            log.exception("closing the telemetry source %s failed", source.label)

    def prefill(self, snapshots: Sequence[Snapshot]) -> None:
        """Put earlier snapshots of this source into History, before the live ones.

        Call :meth:`begin_prefill` before making them (in a thread, say) so that the live
        snapshots polled meanwhile are kept too: History becomes the earlier snapshots, then
        every live one that is newer, in time order. The swap happens between two polls.
        """
        snaps = sorted(snapshots, key=lambda s: s.time_s)
        history = History(capacity=self._history_capacity)
        for snap in snaps:
            history.append(snap)
        last_t = snaps[-1].time_s if snaps else float("-inf")
        with self.sampler.exclusive(CLOSE_TIMEOUT_S), self._lock:
            live = list(self._prefill_live or ())
            self._prefill_live = None
            # The newest poll may be in History but not yet handed to the subscribers.
            latest = self.history.latest()
            if latest is not None and all(latest is not s for s in live):
                live.append(latest)
            for snap in sorted(live, key=lambda s: s.time_s):
                if snap.time_s > last_t:
                    history.append(snap)
                    last_t = snap.time_s
            self.history = history
            self.sampler.history = history
        self.processes.extend(snaps)
        self._generation += 1
        self._notify_state()

    def begin_prefill(self) -> None:
        """Keep the live snapshots from now on until :meth:`prefill` merges them."""
        with self._lock:
            self._prefill_live = []

    def cancel_prefill(self) -> None:
        """Forget a :meth:`begin_prefill` (making the earlier snapshots failed)."""
        with self._lock:
            self._prefill_live = None

    @property
    def prefill_pending(self) -> bool:
        return self._prefill_live is not None

    # -- recording -------------------------------------------------------------------------

    @property
    def recording_path(self) -> Path | None:
        return self._recording_path

    @property
    def recording_error(self) -> str | None:
        """Why the last recording stopped by itself (a full disk, a size limit), or None."""
        return self.sampler.recording_error

    @property
    def recording(self) -> bool:
        return self._recording_path is not None

    def start_recording(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Record every following snapshot to the session file ``path`` (SQLite, WAL).

        Errors (the folder is missing, the file exists without ``overwrite``, it is in use)
        raise before anything is recorded.
        """
        from gpuprof.telemetry.store import SessionStore

        if self._closed:
            raise RuntimeError("the telemetry session is closed")
        if self.recording:
            self.stop_recording()
        out = Path(path)
        store = SessionStore.create(out, source=self.source, overwrite=overwrite)
        self.sampler.start_recording(store)
        with self._lock:
            self._store = store
            self._recording_path = out
        self._notify_state()
        return out

    def stop_recording(self) -> Path | None:
        """Stop recording; the file is checkpointed and closed. Returns its path."""
        with self._lock:
            store, self._store = self._store, None
            path, self._recording_path = self._recording_path, None
        if store is None:
            return None
        stopped = self.sampler.stop_recording() or store
        try:
            stopped.close()
        finally:
            self._notify_state()
        return path

    def _recording_failed(self) -> None:
        """The sampler stopped recording on a write error: keep what the file holds."""
        with self._lock:
            store, self._store = self._store, None
            path, self._recording_path = self._recording_path, None
        if store is not None:
            try:
                store.close()
            except Exception as exc:  # the disk is still full: the committed rows stay
                log.warning("closing the failed recording %s: %s", path, exc)
        self._notify_state()

    # -- replay ----------------------------------------------------------------------------

    @property
    def replay(self) -> Any:
        """The replay source, or ``None`` when the source is not a replay."""
        src = self.source
        return src if src.kind is SourceKind.REPLAY else None

    def replay_state(self) -> ReplayState | None:
        src = self.replay
        if src is None:
            return None
        return ReplayState(
            position_s=float(src.position_s),
            duration_s=float(src.duration_s),
            playing=not src.paused,
            finished=bool(src.finished),
            speed=float(src.speed),
        )

    def play(self) -> None:
        """Play the replay from where it is; from the end, start again at the beginning."""
        src = self.replay
        if src is None:
            return
        if src.finished:
            self.seek(0.0)
        src.resume()
        self.sampler.resume()
        self._notify_state()

    def pause(self) -> None:
        """Pause the replay: no scheduled polls (:meth:`poll_once` still works)."""
        src = self.replay
        if src is None:
            return
        src.pause()
        self.sampler.pause()
        self._notify_state()

    def seek(self, t_s: float) -> None:
        """Jump to ``t_s`` seconds into the recording; History restarts from there. A paused
        replay is polled once so that the new position shows at once.

        ``ValueError`` for a target that is not a finite number (NaN would become the replay's
        position, and every later read of it a failure), before anything changes."""
        real = isinstance(t_s, numbers.Real) and not isinstance(t_s, bool)
        target = float(t_s) if real else math.nan
        if not math.isfinite(target):
            raise ValueError(f"a replay seek needs a finite number of seconds, got {t_s!r}")
        src = self.replay
        if src is None:
            return
        with self.sampler.exclusive(CLOSE_TIMEOUT_S):
            src.seek(target)
            self.history.clear()
            self.processes.clear()
        if src.paused:
            self.poll_once()
        self._notify_state()

    def set_speed(self, speed: float) -> None:
        """Replay at ``speed`` × the recorded pace."""
        src = self.replay
        if src is not None:
            src.speed = speed
            self._notify_state()

    # -- reports ---------------------------------------------------------------------------

    def report_span(self) -> tuple[float, float] | None:
        """Unix seconds ``(t0, t1)`` a report covers: the last :attr:`report_window_s` of
        History (all of it when that is ``None``), or ``None`` before the first sample."""
        rng = self.history.time_range()
        if rng is None:
            return None
        t0, t1 = rng
        if self.report_window_s:
            t0 = max(t0, t1 - float(self.report_window_s))
        return t0, t1

    # -- lifetime --------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S, *, close_source: bool = True) -> None:
        """Stop sampling and recording and close the source (unless ``close_source`` is
        false: the caller's), waiting at most ``timeout_s`` for a poll in flight. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._stop_sampler(close_source=close_source, timeout_s=timeout_s)
        finally:
            self._notify_state()
            with self._lock:
                self._snapshot_cbs.clear()
                self._state_cbs.clear()

    def __enter__(self) -> TelemetrySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _call_each(callbacks: Sequence[Callable[[Any], None]], value: object) -> None:
    """Call every subscriber; one that fails is logged and the others still run."""
    for cb in callbacks:
        try:
            cb(value)
        except Exception:
            log.exception("telemetry session subscriber %r failed", cb)


def _tell_source(source: TelemetrySource, what: str, watched: bool) -> None:
    """Tell ``source`` whether someone watches ``what`` (``watch_process_host``, ``watch_gpm``)
    if it reads that on a cadence (NVML); the other sources have nothing to change."""
    watch = getattr(source, f"watch_{what}", None)
    if callable(watch):
        try:
            watch(watched)
        except Exception:
            log.exception("telemetry source %s: watching %s failed", source.label, what)
