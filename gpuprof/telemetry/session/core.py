"""The telemetry session: one home for a source, its sampler, History, recording and replay.

Every front end is a client of a :class:`TelemetrySession` (DESIGN.md, data flow): the window
(through a thin Qt adapter that turns the callbacks into queued signals), ``monitor``,
``record``, ``replay``, the Prometheus exporter, the benchmark runner's telemetry and reports.
The session owns

- the source (NVML, SIMULATED, REPLAY, later remote ones) and closes it;
- one :class:`~gpuprof.telemetry.sampler.Sampler` thread that polls it and one
  :class:`~gpuprof.telemetry.history.History`, sized by the client (a headless ``record`` never
  reads History, so it keeps a tiny one), both for the session's whole life: a new source or a
  prefill resets or reloads History in place (under ``sampler.exclusive()``) and bumps
  :attr:`TelemetrySession.generation`, the one counter clients compare to know their views of
  History are stale;
- the optional :class:`~gpuprof.telemetry.session.recording.Recording`, the sampler's sink;
- the source's static facts, read once per source (:meth:`TelemetrySession.static`);
- replay control (play / pause / seek / speed) when the source is a replay;
- a :class:`ProcessLedger` of the GPU processes seen, and the window of time a report covers;
  :meth:`TelemetrySession.extract` hands a span of it all out as one frozen value.

Callbacks: :meth:`TelemetrySession.subscribe` gets every snapshot on the sampler thread (or the
caller's, for :meth:`poll_once`); :meth:`TelemetrySession.subscribe_state` gets a
:class:`SessionState` whenever the source, the recording or the replay changes. Neither may
block: a UI hands the value over to its own thread.

:meth:`TelemetrySession.close` never hangs: it waits at most ``timeout_s`` for a poll in flight
(a driver in trouble), then leaves the daemon thread behind and closes the source, which bounds
its own wait (NVML skips ``nvmlShutdown`` when a call is stuck).
"""

from __future__ import annotations

import logging
import math
import numbers
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import Snapshot, SourceKind
from gpuprof.telemetry.sampler import Sampler
from gpuprof.telemetry.session.extract import SessionExtract, SourceFacts, extract_of
from gpuprof.telemetry.session.ledger import ProcessLedger
from gpuprof.telemetry.session.recording import Recording
from gpuprof.telemetry.source import CLOSE_TIMEOUT_S, ReplayControl, TelemetrySource

if TYPE_CHECKING:
    from gpuprof.telemetry.store import SessionStore

__all__ = [
    "CLOSE_TIMEOUT_S",
    "FULL_HISTORY",
    "MINIMAL_HISTORY",
    "ReplayState",
    "SessionState",
    "TelemetrySession",
]

log = logging.getLogger(__name__)

#: History capacity (samples) of the window: 24 h at 1 Hz, about 100 MB for 8 GPUs.
FULL_HISTORY = 86_400
#: History capacity for clients that only need the latest sample (``record``, the exporter).
MINIMAL_HISTORY = 16

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
    generation: int  # bumps whenever History is reset or reloaded (source, prefill, seek)
    recording_path: Path | None = None
    recording_error: str | None = None  # why the last recording stopped by itself
    replay: ReplayState | None = None
    closed: bool = False


class TelemetrySession:
    """A source sampled into History (and a recording), with subscriptions; see the module doc.

    ``history_capacity`` sizes History (samples), or ``history`` is a ready one (a perf script's
    prefilled day); ``sampler_factory(source, interval_s, history)`` is injectable for tests.
    Nothing polls until :meth:`start` (or :meth:`poll_once`). :attr:`history` and
    :attr:`sampler` are the same objects for the session's whole life.
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
        self._generation = 0
        self._closed = False
        self._recording: Recording | None = None
        self._recording_error: str | None = None
        self._recording_failed_at: int | None = None  # the sampler's error count then
        self._prefill_pending = False
        self._static_lock = threading.Lock()
        self._static: tuple[TelemetrySource, SourceFacts] | None = None
        self.processes = ProcessLedger()
        # What clients watch (processes' host statistics, GPM): read at every poll meanwhile.
        self._watchers = {"process_host": 0, "gpm": 0}
        #: Seconds of History a report covers, ending at the newest sample (None: all of it).
        self.report_window_s: float | None = None
        self._source: TelemetrySource = source
        self._history = history if history is not None else History(capacity=history_capacity)
        self._sampler = sampler_factory(source, interval_s, self._history)
        self._sampler.add_listener(self._on_snapshot)

    @property
    def source(self) -> TelemetrySource:
        return self._source

    @property
    def history(self) -> History:
        """The session's History (never replaced: :attr:`generation` says when it restarted)."""
        return self._history

    @property
    def sampler(self) -> Sampler:
        return self._sampler

    # -- subscriptions ---------------------------------------------------------------------

    def subscribe(self, cb: SnapshotCallback) -> Callable[[], None]:
        """Call ``cb(snapshot)`` after each poll (sampler thread); returns an unsubscribe."""
        with self._lock:
            self._snapshot_cbs.append(cb)
        return lambda: self._remove(self._snapshot_cbs, cb)

    def subscribe_state(self, cb: StateCallback) -> Callable[[], None]:
        """Call ``cb(state)`` on every change of source, History, recording or replay; returns
        an unsubscribe."""
        with self._lock:
            self._state_cbs.append(cb)
        return lambda: self._remove(self._state_cbs, cb)

    def _remove(self, cbs: list[Any], cb: Any) -> None:
        with self._lock:
            if cb in cbs:
                cbs.remove(cb)

    def _on_snapshot(self, snap: Snapshot) -> None:
        # Sampler thread (or poll_once's caller), after History and the recording took it.
        self.processes.add(snap)
        with self._lock:
            cbs = tuple(self._snapshot_cbs)
        _call_each(cbs, snap)

    def _notify_state(self) -> None:
        state = self.state()
        with self._lock:
            cbs = tuple(self._state_cbs)
        _call_each(cbs, state)

    def _invalidate(self) -> None:
        """History was reset or reloaded: one bump of :attr:`generation`, then the clients."""
        with self._lock:
            self._generation += 1
        self._notify_state()

    def state(self) -> SessionState:
        return SessionState(
            source_kind=self.source.kind,
            source_label=self.source.label,
            interval_s=self.interval_s,
            generation=self._generation,
            recording_path=self.recording_path,
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

    @property
    def generation(self) -> int:
        """Bumps once whenever History is reset or reloaded: a new source, a prefill, a replay
        seek. The one counter a client compares to know what it drew from History is stale."""
        return self._generation

    @property
    def interval_s(self) -> float:
        return float(self.sampler.interval_s)

    def set_interval(self, interval_s: float) -> None:
        """Poll every ``interval_s`` seconds, within :mod:`gpuprof.telemetry.interval`'s bounds
        (``ValueError`` otherwise)."""
        self.sampler.set_interval(interval_s)
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
        """The last failure of a poll, or of the recording when that came after it."""
        failed_at = self._recording_failed_at
        if failed_at is not None and failed_at == self.sampler.error_count:
            return f"recording failed: {self._recording_error}"
        return self.sampler.last_error

    def set_source(self, source: TelemetrySource, *, start: bool = True) -> None:
        """Sample ``source`` instead (stopping a recording and closing the old source); History
        restarts empty and :attr:`generation` bumps once. The replay speed and interval carry
        over."""
        old_source = self.source
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        self._stop_sampler(close_source=False)
        if old_source is not source:
            self._close_source(old_source, max(0.0, deadline - time.monotonic()))
        # A poll of the old source still hung in the driver lands nowhere: the sampler drops
        # a snapshot whose source is no longer its own.
        with self.sampler.exclusive(max(0.0, deadline - time.monotonic())), self._lock:
            self._prefill_pending = False
            self._source = source
            self.sampler.set_source(source)
            for what, watchers in self._watchers.items():
                if watchers:
                    _tell_source(source, what, True)
            self.history.reset()
            self.processes.clear()
        self._invalidate()
        if start:
            self.start()

    def _stop_sampler(self, *, close_source: bool, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        # One deadline for everything: a poll stuck in the driver costs timeout_s once, not
        # once for the sampler and again for the source.
        deadline = time.monotonic() + timeout_s
        if self._recording is not None:
            self.stop_recording(timeout_s)
        self.sampler.stop(timeout=max(0.0, deadline - time.monotonic()))
        if close_source:
            self._close_source(self.source, max(0.0, deadline - time.monotonic()))

    @staticmethod
    def _close_source(source: TelemetrySource, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        # Closing a broken source must not stop the exit; its close bounds its own wait (NVML
        # then skips nvmlShutdown).
        try:
            source.close(timeout_s=timeout_s)
        except Exception:
            log.exception("closing the telemetry source %s failed", source.label)

    def prefill(self, snapshots: Sequence[Snapshot]) -> None:
        """Put earlier snapshots of this source into History, before the live ones
        (:meth:`History.load_before`: those not older than its oldest sample are left out),
        between two polls; :attr:`generation` bumps once."""
        snaps = sorted(snapshots, key=lambda s: s.time_s)
        with self.sampler.exclusive(CLOSE_TIMEOUT_S):
            self.history.load_before(snaps)
            self._prefill_pending = False
        self.processes.extend(snaps)
        self._invalidate()

    def begin_prefill(self) -> None:
        """Say that earlier snapshots are being made (in a thread, say) for :meth:`prefill`;
        the live snapshots polled meanwhile stay in History and the earlier ones go before."""
        self._prefill_pending = True

    def cancel_prefill(self) -> None:
        """Forget a :meth:`begin_prefill` (making the earlier snapshots failed)."""
        self._prefill_pending = False

    @property
    def prefill_pending(self) -> bool:
        return self._prefill_pending

    # -- static facts and extracts ---------------------------------------------------------

    def static(self) -> SourceFacts:
        """The source's static facts (system, devices, topology, status), read once per source
        between two polls and cached until the source changes. Slow the first time (NVML's
        static queries): ask from a worker, never from a subscriber."""
        with self._static_lock:
            source = self.source
            cached = self._static
            if cached is not None and cached[0] is source:
                return cached[1]
            with self.sampler.exclusive(CLOSE_TIMEOUT_S):
                facts = SourceFacts.read(source)
            if source is self.source:
                self._static = (source, facts)
            return facts

    def extract(
        self, t0: float | None = None, t1: float | None = None, *, samples: bool = True
    ) -> SessionExtract:
        """A frozen :class:`SessionExtract` of ``[t0, t1]`` (Unix s; ``None`` for both: the
        :meth:`report_span`): the samples in range (copies; none without ``samples``), the
        static facts, the throttle episodes, the processes seen, the source's label and
        whether it is SIMULATED. Reads :meth:`static` (slow the first time)."""
        static = self.static()
        if t0 is None and t1 is None:
            span = self.report_span()
        else:
            rng = self.history.time_range()
            lo, hi = rng if rng is not None else (math.inf, -math.inf)
            span = (lo if t0 is None else float(t0), hi if t1 is None else float(t1))
            span = span if rng is not None else None
        with self.history.consistent():
            return extract_of(
                self.history, self.processes.rows(), self.source, static, span, samples=samples
            )

    # -- recording -------------------------------------------------------------------------

    @property
    def recording(self) -> Recording | None:
        """The recording in progress, or None."""
        return self._recording

    @property
    def recording_path(self) -> Path | None:
        rec = self._recording
        return rec.path if rec is not None else None

    @property
    def recording_error(self) -> str | None:
        """Why the last recording stopped by itself (a full disk, a size limit), or None."""
        return self._recording_error

    def start_recording(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Record every following snapshot to the session file ``path`` (SQLite, WAL).

        Errors (the folder is missing, the file exists without ``overwrite``, it is in use)
        raise before anything is recorded.
        """
        from gpuprof.telemetry.store import SessionStore

        if self._closed:
            raise RuntimeError("the telemetry session is closed")
        if self._recording is not None:
            self.stop_recording()
        out = Path(path)
        store = SessionStore.create(out, source=self.source, overwrite=overwrite)
        self.record_to(store, out, owns_store=True)
        return out

    def record_to(
        self, store: SessionStore, path: Path | None = None, *, owns_store: bool = False
    ) -> Recording:
        """Record every following snapshot to an open ``store`` (a job profile's, which the
        caller keeps and closes unless ``owns_store``); returns the :class:`Recording`."""
        if self._closed:
            raise RuntimeError("the telemetry session is closed")
        if self._recording is not None:
            self.stop_recording()
        rec = Recording(
            store,
            Path(path if path is not None else store.path),
            owns_store=owns_store,
            on_failed=self._recording_failed,
        )
        with self._lock:
            self._recording = rec
            self._recording_error = None
            self._recording_failed_at = None
        self.sampler.set_sink(rec)
        self._notify_state()
        return rec

    def stop_recording(self, timeout_s: float = CLOSE_TIMEOUT_S) -> Path | None:
        """Stop recording; the file is checkpointed and closed (a poll in flight finishes its
        append first, unless it hangs in the driver for over ``timeout_s``). Returns its
        path, or None when nothing was recording."""
        with self._lock:
            rec, self._recording = self._recording, None
        if rec is None:
            return None
        self.sampler.set_sink(None)
        try:
            with self.sampler.exclusive(timeout_s):
                rec.finish()
        finally:
            self._notify_state()
        return rec.path

    def _recording_failed(self, rec: Recording) -> None:
        """The recording's listener (sampler thread): an append failed and the recording
        stopped; the file keeps what it committed."""
        with self._lock:
            if self._recording is not rec:
                return
            self._recording = None
            self._recording_error = rec.error
            self._recording_failed_at = self.sampler.error_count
        self.sampler.set_sink(None)
        rec.finish()
        self._notify_state()

    # -- replay ----------------------------------------------------------------------------

    @property
    def replay(self) -> ReplayControl | None:
        """The replay source's controls, or ``None`` when the source is not a replay."""
        src = self.source
        if src.kind is SourceKind.REPLAY and isinstance(src, ReplayControl):
            return src
        return None

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
        """Jump to ``t_s`` seconds into the recording; History restarts from there (one bump of
        :attr:`generation`). A paused replay is polled once so that the new position shows at
        once.

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
            with self._lock:
                self._generation += 1
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
