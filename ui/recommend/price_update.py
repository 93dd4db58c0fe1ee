"""The Recommend tab's "Update prices…" control: ``gpuprof catalog update`` off the GUI thread.

A button, a status line and the worker. The download runs in a daemon thread (a stalled server
cannot block the app from exiting); its progress and end come back as queued signals. While
it runs the button reads "Cancel": the fetch stops between chunks and nothing is replaced.
``update`` is injectable (tests point it at a local server).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from ..shell.widgets import arg

if TYPE_CHECKING:
    from gpuprof.catalog.update import Fetched, Progress


__all__ = ["PriceUpdate", "PriceUpdateBar", "PriceUpdater"]


class PriceUpdate(Protocol):
    """What fetches the catalogs: :func:`gpuprof.catalog.update.update_catalogs`."""

    def __call__(
        self, *, progress: Progress | None, cancel: threading.Event | None
    ) -> list[Fetched]: ...


class PriceUpdater(QObject):
    """Runs ``update(progress=..., cancel=...)`` in a thread; signals are queued to the GUI."""

    progress = Signal(str, int, object)  # provider, bytes so far, total or None
    finished = Signal(object)  # the list of Fetched
    failed = Signal(str)  # one line, naming the URL
    cancelled = Signal()

    def __init__(self, update: PriceUpdate | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._update = update
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        from gpuprof.catalog.update import UpdateCancelled, update_catalogs
        from gpuprof.errors import GpuprofError

        update = self._update or update_catalogs
        self._cancel = threading.Event()
        cancel = self._cancel

        def body() -> None:
            try:
                done = update(progress=self.progress.emit, cancel=cancel)
            except UpdateCancelled:
                self.cancelled.emit()
            except GpuprofError as exc:
                self.failed.emit(str(exc))
            except Exception as exc:  # never a silent dead thread
                self.failed.emit(f"{type(exc).__name__}: {exc}")
            else:
                self.finished.emit(done)

        self._thread = threading.Thread(target=body, name="gpuprof-prices", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout_s: float) -> bool:
        if self._thread is None:
            return True
        self._thread.join(timeout_s)
        return not self._thread.is_alive()


class PriceUpdateBar(QWidget):
    """[Update prices…] and what happened; ``updated`` after new prices are stored."""

    updated = Signal()

    def __init__(self, update: PriceUpdate | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.worker = PriceUpdater(update, self)
        self.button = QPushButton(self.tr("Update prices…"))
        self.button.setToolTip(
            self.tr("Download SkyPilot's current cloud catalogs (only when you press this)")
        )
        self.status = QLabel("")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.status, 1)
        # One line high, whatever the tab's height: grown, it was a blank band above the form.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.button.clicked.connect(self._on_click)
        self.worker.progress.connect(self._on_progress)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self.worker.cancelled.connect(self._on_cancelled)

    def _on_click(self) -> None:
        if self.worker.running:
            self.worker.cancel()
            self.status.setText(self.tr("Cancelling…"))
            return
        self.button.setText(self.tr("Cancel"))
        self.status.setText(self.tr("Connecting…"))
        self.worker.start()

    def _idle(self, text: str) -> None:
        self.button.setText(self.tr("Update prices…"))
        self.status.setText(text)

    def _on_progress(self, provider: str, got: int, total: object) -> None:
        kib = got // 1024
        if isinstance(total, int) and total > 0:
            self.status.setText(arg(self.tr("%1: %2 of %3 KiB"), provider, kib, total // 1024))
        else:
            self.status.setText(arg(self.tr("%1: %2 KiB"), provider, kib))

    def _on_finished(self, done: object) -> None:
        fetched = list(done) if isinstance(done, list) else []
        rows = sum(int(getattr(f, "rows", 0)) for f in fetched)
        self._idle(
            arg(self.tr("Prices updated: %1 instances from %2 catalogs"), rows, len(fetched))
        )
        self.updated.emit()

    def _on_failed(self, message: str) -> None:
        self._idle(arg(self.tr("Update failed, previous prices kept: %1"), message))

    def _on_cancelled(self) -> None:
        self._idle(self.tr("Cancelled; previous prices kept"))
