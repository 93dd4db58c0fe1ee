"""The acceptance check in a worker thread; its callbacks become queued Qt signals.

``started → progress/item… → finished(CheckResult)`` or ``errored(exception)``. A daemon thread
(a check stuck in a driver call must not block the app from exiting); the
:class:`~gpuprof.bench.base.CancelToken` stops it between steps, and a cancelled check still
finishes with the items done so far (the rest SKIP). :meth:`CheckWorker.detach` (the window
closing) drops whatever a thread that outlives the wait still reports: its signals would reach
a deleted object.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Signal

from ..shell.workers import CancellableWorker

if TYPE_CHECKING:
    from gpuprof.bench.base import CancelToken
    from gpuprof.check.inventory import Expectation
    from gpuprof.check.run import CheckRun

__all__ = ["CheckMaker", "CheckWorker", "make_check"]

log = logging.getLogger(__name__)


class CheckWorker(CancellableWorker):
    """Runs ``make_check().run(...)`` in a thread; lives in the GUI thread (queued signals).

    ``progress`` carries a CheckProgress, ``finished`` the CheckResult."""

    item = Signal(object)  # CheckItem, as soon as it is graded
    job_name = "a check"
    thread_name = "gpuprof-check"

    def start(self, make: Callable[[], tuple[CheckRun, Callable[[], None]]]) -> None:
        """``make()`` (in the worker thread) gives the :class:`CheckRun` and a close function."""
        send = self._send

        def body(token: CancelToken) -> None:
            close: Callable[[], None] = _nothing
            try:
                check, close = make()
                result = check.run(
                    on_progress=lambda p: send("progress", p),
                    on_item=lambda i: send("item", i),
                    cancel=token,
                )
            except Exception as exc:
                log.debug("the check failed", exc_info=exc)
                send("errored", exc)
                return
            finally:
                close()
            send("finished", result)

        self._launch(body)


def _nothing() -> None:
    return None


def error_text(exc: BaseException) -> str:
    """What the Check tab says of a failed check: our own errors' text, others' type too."""
    from gpuprof.errors import GpuprofError

    text = str(exc).strip()
    if isinstance(exc, GpuprofError) and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class CheckMaker(Protocol):
    """Builds a check and the function that closes what it opened (:func:`make_check`)."""

    def __call__(
        self, *, level: str, device: str, expect: Expectation | None, minutes: float
    ) -> tuple[CheckRun, Callable[[], None]]: ...


def make_check(
    *, level: str, device: str, expect: Expectation | None, minutes: float
) -> tuple[CheckRun, Callable[[], None]]:
    """As ``gpuprof check`` builds it (:func:`gpuprof.check.run.open_check`). Run in the worker."""
    from gpuprof.check.run import open_check

    return open_check(level=level, device=device, expect=expect, minutes=minutes)
