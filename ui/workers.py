"""Threads and the GUI: the sampler's callbacks become queued Qt signals.

The sampler polls in its own thread (a slow or hanging NVML call blocks only that thread); the
bridge re-emits each :class:`Snapshot` as a Qt signal, which Qt queues to the GUI thread because
the bridge lives there. Static facts (devices, topology) are read in a short-lived thread too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

__all__ = ["SamplerBridge", "run_in_thread"]


class SamplerBridge(QObject):
    """Re-emits sampler callbacks (sampler thread) as ``snapshot`` signals (GUI thread)."""

    snapshot = Signal(object)

    def __init__(self, sampler: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._sampler = sampler
        self._closed = False
        sampler.add_listener(self._from_sampler_thread)

    def _from_sampler_thread(self, snap: object) -> None:
        if not self._closed:
            self.snapshot.emit(snap)

    def close(self) -> None:
        """Stop forwarding; later callbacks (a poll in flight) are dropped."""
        self._closed = True


class _Carrier(QObject):
    done = Signal(object)
    failed = Signal(object)


def run_in_thread(
    fn: Callable[[], object],
    on_done: Callable[[object], None],
    on_error: Callable[[BaseException], None] | None = None,
    parent: QObject | None = None,
) -> threading.Thread:
    """Run ``fn`` in a daemon thread; ``on_done(result)`` / ``on_error(exc)`` run in the GUI thread.

    A daemon thread, not a QThreadPool task: a hanging driver call must not block app exit.
    """
    carrier = _Carrier(parent)
    carrier.done.connect(on_done)
    if on_error is not None:
        carrier.failed.connect(on_error)

    def body() -> None:
        try:
            result = fn()
        except Exception as exc:
            carrier.failed.emit(exc)
        else:
            carrier.done.emit(result)
        finally:
            carrier.deleteLater()

    thread = threading.Thread(target=body, name="gpuprof-static-info", daemon=True)
    thread.start()
    return thread
