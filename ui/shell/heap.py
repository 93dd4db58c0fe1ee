"""Give freed heap back to the OS, now and every minute.

The sampler thread allocates each snapshot and the GUI thread frees it, so glibc keeps freed
pages in its per-thread arenas: at a 0.1 s interval the window's RSS crept up ~20 MB in 30
minutes although live memory stayed flat (``perf/soak.py`` with and without ``--trim``). A
``malloc_trim(0)`` a minute hands those pages back.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QObject, QTimer

__all__ = ["TRIM_PERIOD_MS", "start_periodic_trim", "trim_heap"]

#: How often the window trims the heap.
TRIM_PERIOD_MS = 60_000


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import ctypes.util

    try:
        name = ctypes.util.find_library("c")
        trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        trim = None
    return trim  # None: musl and other libcs


def trim_heap() -> bool:
    """Return freed heap to the OS (glibc's ``malloc_trim(0)``); ``False`` where libc has none."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def start_periodic_trim(parent: QObject, period_ms: int = TRIM_PERIOD_MS) -> QTimer | None:
    """A QTimer owned by ``parent`` that trims the heap every ``period_ms``; None without glibc."""
    if _malloc_trim() is None:
        return None
    from PySide6.QtCore import QTimer

    timer = QTimer(parent)
    timer.setObjectName("heap-trim")
    timer.setInterval(period_ms)
    timer.timeout.connect(trim_heap)
    timer.start()
    return timer
