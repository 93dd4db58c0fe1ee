"""A session's recording: one owner of the store, its path and why it stopped.

The :class:`~gpuprof.telemetry.sampler.Sampler` knows nothing of files: it hands every snapshot
to a :class:`~gpuprof.telemetry.sampler.Sink` (after History took it, before the listeners). A :class:`Recording` is the
sink of a :class:`~gpuprof.telemetry.session.TelemetrySession` that records: it appends to its
:class:`~gpuprof.telemetry.store.SessionStore`, and the first append that fails (a full disk,
a size limit) stops it for good (one message, not one per sample) and is reported through its
``on_failed`` listener; the rows committed before stay in the file.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.telemetry.model import Snapshot

if TYPE_CHECKING:
    from gpuprof.telemetry.store import SessionStore

__all__ = ["Recording"]

log = logging.getLogger(__name__)


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class Recording:
    """Appends snapshots to ``store`` until :meth:`finish` or the first failing append.

    ``owns_store``: :meth:`finish` closes the store (a recording the session started); else it
    only flushes it and the caller closes it (a job profile writes more to it afterwards).
    ``on_failed(recording)`` is called once, on the sampler thread, when an append failed.
    """

    def __init__(
        self,
        store: SessionStore,
        path: Path,
        *,
        owns_store: bool = True,
        on_failed: Callable[[Recording], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.path = Path(path)
        self.owns_store = owns_store
        self._on_failed = on_failed
        self._clock = clock
        self._lock = threading.Lock()
        self.started_s: float = clock()
        self.stopped_s: float | None = None
        #: Why the recording stopped by itself, or None (it runs, or was stopped by a call).
        self.exception: Exception | None = None
        self.count = 0  # snapshots appended

    @property
    def active(self) -> bool:
        return self.stopped_s is None

    @property
    def error(self) -> str | None:
        """Why the recording stopped by itself (one line), or None."""
        exc = self.exception
        return None if exc is None else one_line(exc)

    def append(self, snap: Snapshot) -> None:
        """The sink: append ``snap``; a failure stops the recording and is reported once."""
        if self.stopped_s is not None:
            return
        try:
            self.store.append(snap)
        except Exception as exc:
            with self._lock:
                if self.stopped_s is not None:
                    return
                self.exception = exc
                self.stopped_s = self._clock()
            # The session's client reports it (once); the log keeps it for --debug.
            log.info("recording to %s stopped: %s", self.path, exc)
            if self._on_failed is not None:
                try:
                    self._on_failed(self)
                except Exception:
                    log.exception("the recording's failure listener failed")
            return
        self.count += 1

    def finish(self) -> None:
        """Stop (if running) and flush the store, closing it when owned. A store that fails to
        close after a failed append (the disk is still full) keeps its committed rows: logged,
        not raised. Call it with no poll in flight (``sampler.exclusive()``); idempotent."""
        with self._lock:
            if self.stopped_s is None:
                self.stopped_s = self._clock()
        failed = self.exception is not None
        try:
            if self.owns_store:
                self.store.close()
            elif not failed:
                self.store.flush()
        except Exception as exc:
            if not failed:
                raise
            log.warning("closing the failed recording %s: %s", self.path, exc)
