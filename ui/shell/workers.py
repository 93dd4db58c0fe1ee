"""Threads and the GUI: the telemetry session's callbacks become queued Qt signals.

The session's sampler polls in its own thread (a slow or hanging NVML call blocks only that
thread); the bridge re-emits each :class:`Snapshot` and each session state as a Qt signal, which
Qt queues to the GUI thread because the bridge lives there. Static facts (devices, topology) are read in a short-lived thread too.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, Slot

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.telemetry.model import Snapshot
    from gpuprof.telemetry.session import SessionState, TelemetrySession

__all__ = ["CancellableWorker", "SessionBridge", "run_in_thread", "shutdown_workers"]

log = logging.getLogger(__name__)


class SessionBridge(QObject):
    """The Qt adapter of a :class:`~gpuprof.telemetry.session.TelemetrySession`.

    Its callbacks (sampler thread) become the queued signals ``snapshot(Snapshot)`` and
    ``state_changed(SessionState)`` (GUI thread, because the bridge lives there).
    """

    snapshot = Signal(object)
    state_changed = Signal(object)

    def __init__(self, session: TelemetrySession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._closed = False
        self._unsubscribe = (
            session.subscribe(self._from_sampler_thread),
            session.subscribe_state(self._state_from_any_thread),
        )

    def _from_sampler_thread(self, snap: Snapshot) -> None:
        if not self._closed:
            self.snapshot.emit(snap)

    def _state_from_any_thread(self, state: SessionState) -> None:
        if not self._closed:
            self.state_changed.emit(state)

    def close(self) -> None:
        """Stop forwarding; later callbacks (a poll in flight) are dropped."""
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()


#: Carriers whose result is not delivered yet: the worker thread drops its reference when it
#: ends, and a carrier nobody holds would be deleted with its queued result.
_IN_FLIGHT: set[_Carrier] = set()


class _Carrier(QObject):
    """Carries one worker's result to the GUI thread, where it was made: its signals reach its
    own slots there (queued), whatever ``on_done`` is (a plain function would run in the
    emitting thread). Nobody's child, so the GUI thread never deletes it under the worker's
    emit; it lets itself go once delivered."""

    done = Signal(object)
    failed = Signal(object)

    def __init__(
        self,
        on_done: Callable[[object], None],
        on_error: Callable[[BaseException], None] | None,
        receiver: QObject | None,
    ) -> None:
        super().__init__()
        self._on_done = on_done
        self._on_error = on_error
        self._alive = True
        if receiver is not None:  # deleted (its tab or window closed) while fn ran: drop it
            receiver.destroyed.connect(self._receiver_gone)
        self.done.connect(self._deliver_done)
        self.failed.connect(self._deliver_error)
        _IN_FLIGHT.add(self)

    @Slot()
    def _receiver_gone(self) -> None:
        self._alive = False

    @Slot(object)
    def _deliver_done(self, value: object) -> None:
        if self._alive:
            self._on_done(value)
        else:
            log.debug("a worker's result arrived after its receiver was deleted")
        self._let_go()

    @Slot(object)
    def _deliver_error(self, exc: BaseException) -> None:
        if self._alive and self._on_error is not None:
            self._on_error(exc)
        self._let_go()

    def _let_go(self) -> None:
        _IN_FLIGHT.discard(self)
        self.deleteLater()


def run_in_thread(
    fn: Callable[[], object],
    on_done: Callable[[object], None],
    on_error: Callable[[BaseException], None] | None = None,
    parent: QObject | None = None,
    *,
    name: str,
) -> threading.Thread:
    """Run ``fn`` in a daemon thread named ``name`` (what it does: ``gpuprof-static-info``, as a
    thread dump or py-spy shows it); ``on_done(result)`` / ``on_error(exc)`` run in the GUI thread.

    A daemon thread, not a QThreadPool task: a hanging driver call must not block app exit.
    ``parent`` is the receiver: once it is deleted (its tab or window closed while ``fn`` ran)
    the result is dropped.
    """
    carrier = _Carrier(on_done, on_error, parent)

    def body() -> None:
        try:
            result = fn()
        except Exception as exc:
            # The caller shows it; the log keeps the traceback (--debug, or no handler given).
            log.log(
                logging.DEBUG if on_error is not None else logging.ERROR,
                "%s failed",
                getattr(fn, "__qualname__", fn),
                exc_info=exc,
            )
            carrier.failed.emit(exc)
        else:
            carrier.done.emit(result)

    thread = threading.Thread(target=body, name=name, daemon=True)
    thread.start()
    return thread


class CancellableWorker(QObject):
    """A long job (a benchmark run, a check) in a daemon thread, its callbacks queued Qt signals.

    ``started → progress… → finished(result)`` or ``errored(exception)`` (the exception itself,
    as superqt's workers do: the receiver words it, the log keeps its traceback); subclasses add their own
    signals and report through :meth:`_send`. A daemon thread, not a QThreadPool task: a job
    stuck in a driver call must not block the app from exiting. The job polls
    :attr:`cancel_token` between steps; :meth:`detach` (the window closing) drops whatever a
    thread that outlives the wait still reports: its signals would reach a deleted object.
    Lives in the GUI thread, so that its signals are queued.
    """

    started = Signal()
    progress = Signal(object)
    finished = Signal(object)
    errored = Signal(object)  # BaseException

    #: The job in "… is already running", and its thread's name.
    job_name = "a job"
    thread_name = "gpuprof-worker"

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self.cancel_token: CancelToken | None = None
        self._detached = False

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _launch(self, body: Callable[[CancelToken], None]) -> None:
        """Run ``body(cancel_token)`` in a new thread, after ``started``."""
        if self.running:
            raise RuntimeError(f"{self.job_name} is already running")
        from gpuprof.bench.base import CancelToken

        token = CancelToken()
        self.cancel_token = token
        self._detached = False
        self.started.emit()
        self._thread = threading.Thread(
            target=body, args=(token,), name=self.thread_name, daemon=True
        )
        self._thread.start()
        _STARTED.add(self)

    def _send(self, name: str, value: object) -> None:
        """Emit the signal ``name`` (from the worker thread) unless detached or already deleted."""
        if self._detached:
            return
        try:
            getattr(self, name).emit(value)
        except RuntimeError:  # the C++ object is gone: the window closed under the thread
            self._detached = True

    def cancel(self) -> None:
        if self.cancel_token is not None:
            self.cancel_token.cancel()

    def detach(self) -> None:
        """Cancel and report nothing more (the window is closing)."""
        self.cancel()
        self._detached = True

    def wait(self, timeout_s: float) -> bool:
        """Join the thread (tests, shutdown); True when it has ended."""
        if self._thread is None:
            return True
        self._thread.join(timeout_s)
        return not self._thread.is_alive()


#: Every worker that was started and still exists (superqt's set of live workers).
_STARTED: weakref.WeakSet[CancellableWorker] = weakref.WeakSet()


def _held_by(obj: QObject, owner: QObject) -> bool:
    try:
        parent = obj.parent()
        while parent is not None:
            if parent is owner:
                return True
            parent = parent.parent()
    except RuntimeError:  # a parent already deleted on the C++ side
        return False
    return False


def shutdown_workers(owner: QObject, deadline: float) -> bool:
    """superqt's ``await_workers`` for one window: cancel every running worker that ``owner``
    holds (a child at any depth: a tab's, a dialog's), wait for them until ``deadline``
    (``time.monotonic()``), and detach those still running (stuck in a driver call: they report
    nothing more). True when none is left running. Workers of other windows are left alone."""
    held = [w for w in list(_STARTED) if w.running and _held_by(w, owner)]
    for worker in held:
        worker.cancel()
    for worker in held:
        if not worker.wait(max(0.0, deadline - time.monotonic())):
            worker.detach()
    return not any(w.running for w in held)
