"""The background poller: source -> History -> sink (a recording, when there is one) -> listeners.

One daemon thread calls ``source.poll()`` every ``interval_s`` on a fixed schedule (a slow poll
does not shift later ones; polls missed while a poll hung are skipped, not bunched up). Errors
never kill the thread: a failing poll is kept (:attr:`Sampler.last_exception`, the exception
itself; :attr:`Sampler.last_error`, its one line) and counted, a failing listener is logged. :meth:`Sampler.stop` returns within its timeout even when a poll hangs
(the thread is a daemon and exits after that poll).

Tests drive the loop deterministically with a fake ``clock`` and :meth:`Sampler.step`, which
runs one iteration (poll if due) and returns the seconds the thread would wait next.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from gpuprof.telemetry.history import History
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S, checked_interval
from gpuprof.telemetry.model import Snapshot
from gpuprof.telemetry.source import TelemetrySource

__all__ = ["MAX_INTERVAL_S", "MIN_INTERVAL_S", "Sampler", "Sink"]

log = logging.getLogger(__name__)

Listener = Callable[[Snapshot], None]


class Sink(Protocol):
    """What the sampler hands every snapshot to after History, before the listeners (on its
    thread, one poll at a time): a session's :class:`~gpuprof.telemetry.session.Recording`.

    ``append`` reports its own failures; one that raises is logged and the poll goes on."""

    def append(self, snap: Snapshot) -> None: ...


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class Sampler:
    """Polls ``source`` on a background thread and feeds :class:`History` and listeners.

    ``clock`` (monotonic seconds) schedules polls; ``wall_clock`` (Unix seconds) stamps
    :attr:`last_poll_wall_s`. Listeners run on the sampler thread: a UI must hand the snapshot
    over to its own thread (a queued Qt signal) and never redraw per sample.
    """

    def __init__(
        self,
        source: TelemetrySource,
        *,
        interval_s: float = 1.0,
        history: History | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.source = source
        self.history = history if history is not None else History()
        self._interval_s = checked_interval(interval_s)
        self._clock = clock
        self._wall_clock = wall_clock
        self._listeners: list[Listener] = []
        self._lock = threading.RLock()  # listeners, store, schedule
        self._poll_lock = threading.Lock()  # one poll at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sink: Sink | None = None
        self._next_due: float | None = None
        self._paused = False
        #: The last failure of a poll.
        self.last_exception: Exception | None = None
        self.listener_exception: Exception | None = None
        self.last_poll_wall_s: float | None = None
        self.last_poll_duration_s: float | None = None
        self.poll_count = 0
        self.error_count = 0

    # -- configuration ---------------------------------------------------------------------

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def set_interval(self, interval_s: float) -> None:
        """Change the polling interval (within :mod:`~gpuprof.telemetry.interval`'s bounds); takes effect at once on a running sampler."""
        value = checked_interval(interval_s)
        with self._lock:
            self._interval_s = value
            if self._next_due is not None:
                # Reschedule from the last poll so that a shorter interval applies now.
                self._next_due = min(self._next_due, self._clock() + value)
        self._wake.set()

    def add_listener(self, cb: Listener) -> None:
        with self._lock:
            if cb not in self._listeners:
                self._listeners.append(cb)

    def remove_listener(self, cb: Listener) -> None:
        with self._lock:
            if cb in self._listeners:
                self._listeners.remove(cb)

    def set_source(self, source: TelemetrySource) -> None:
        """Poll ``source`` from now on (the session's new source; call it with the sampler
        stopped, in :meth:`exclusive`). A poll of the old one still in flight is dropped."""
        self.source = source

    def set_sink(self, sink: Sink | None) -> None:
        """Hand every following snapshot to ``sink`` (None: to nothing)."""
        with self._lock:
            self._sink = sink

    @contextlib.contextmanager
    def exclusive(self, timeout: float = 1.0) -> Iterator[bool]:
        """Hold off polls for the ``with`` block (swapping History, seeking a replay).

        Waits at most ``timeout`` s for a poll in flight; yields whether it got the lock (a
        poll hung in the driver: the block runs anyway and the poll may still land).
        """
        locked = self._poll_lock.acquire(timeout=timeout)
        try:
            yield locked
        finally:
            if locked:
                self._poll_lock.release()

    # -- failures, as one line each (the exceptions themselves are kept beside) ----------------

    @property
    def last_error(self) -> str | None:
        exc = self.last_exception
        return None if exc is None else _one_line(exc)

    @property
    def last_listener_error(self) -> str | None:
        exc = self.listener_exception
        return None if exc is None else _one_line(exc)

    # -- pausing ---------------------------------------------------------------------------

    def pause(self) -> None:
        """Stop the scheduled polls (a paused replay); :meth:`poll_once` still polls on demand."""
        with self._lock:
            self._paused = True

    def resume(self) -> None:
        """Poll again on schedule, starting now."""
        with self._lock:
            self._paused = False
            self._next_due = None
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self._paused

    # -- polling ---------------------------------------------------------------------------

    def poll_once(self) -> Snapshot:
        """Poll now: append to History, hand to the sink, notify. A poll error propagates (and
        is logged). A snapshot of a source replaced meanwhile (:meth:`set_source` while this
        poll hung) is returned but goes nowhere."""
        with self._poll_lock:
            source = self.source
            t_start = self._clock()
            try:
                snap = source.poll()
            except Exception as e:
                self.error_count += 1
                self.last_exception = e
                raise
            finally:
                self.last_poll_duration_s = self._clock() - t_start
            if source is not self.source:
                return snap
            self.poll_count += 1
            self.last_poll_wall_s = self._wall_clock()
            self.history.append(snap)
            with self._lock:
                sink = self._sink
                listeners = tuple(self._listeners)
            if sink is not None:
                try:
                    sink.append(snap)
                except Exception:
                    log.exception("telemetry sink %r failed", sink)
        for cb in listeners:
            try:
                cb(snap)
            except Exception as e:
                self.listener_exception = e
                log.exception("telemetry listener %r failed", cb)
        return snap

    def step(self) -> float:
        """One loop iteration: poll if due; returns the seconds until the next poll is due."""
        now = self._clock()
        with self._lock:
            if self._paused:
                return self._interval_s
            if self._next_due is None:
                self._next_due = now
            due = self._next_due
        if now >= due:
            try:
                self.poll_once()
            except Exception:
                log.warning("telemetry poll failed: %s", self.last_error)
            now = self._clock()
            with self._lock:
                nxt = (self._next_due if self._next_due is not None else now) + self._interval_s
                if nxt <= now:  # the poll overran one or more intervals: skip them
                    nxt = now + self._interval_s - ((now - nxt) % self._interval_s)
                self._next_due = nxt
        with self._lock:
            return max(0.0, (self._next_due or now) - self._clock())

    def _run(self, stop: threading.Event, wake: threading.Event) -> None:
        # The events are this thread's own: a restart after a hung poll makes new ones.
        while not stop.is_set():
            delay = self.step()
            if stop.is_set():
                break
            wake.wait(delay)
            wake.clear()

    # -- thread lifetime -------------------------------------------------------------------

    def start(self) -> None:
        """Start the background thread (no-op when running)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive() and not self._stop.is_set():
                return
            self._stop = threading.Event()
            self._wake = threading.Event()
            self._next_due = None
            self._thread = threading.Thread(
                target=self._run, args=(self._stop, self._wake), name="gpuprof-sampler", daemon=True
            )
            self._thread.start()

    def stop(self, timeout: float = 1.0) -> None:
        """Stop the thread; waits at most ``timeout`` s even if a poll hangs in the driver."""
        with self._lock:
            thread = self._thread
            self._stop.set()
            self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        with self._lock:
            if self._thread is thread and (thread is None or not thread.is_alive()):
                self._thread = None

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stop.is_set()
