"""File → Start/Stop recording (Ctrl+R), the ● REC mark in the status bar, and the file side
of File → Open recording (Ctrl+O).

The recording itself belongs to the window's
:class:`~gpuprof.telemetry.session.TelemetrySession`; this controller asks for a file name, starts
and stops it, and shows what the session says.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from gpuprof.errors import GpuprofError
from gpuprof.telemetry.session import TelemetrySession
from gpuprof.telemetry.source import TelemetrySource
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMessageBox

from .context import ActionSpec

__all__ = ["RecordingController"]


class RecordingController(QObject):
    """The record action and the REC label of ``window``, for the session ``session()``."""

    def __init__(
        self,
        window: QMainWindow,
        session: Callable[[], TelemetrySession | None],
        action: Callable[[str], QAction],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._session = session
        self._action = action
        self.label = QLabel(self.tr("● REC"), window)
        self.label.setObjectName("recording")
        self.label.hide()
        self._shown_error: str | None = None

    def action_spec(self) -> ActionSpec:
        """File → Start recording (Ctrl+R), in the toolbar after Open."""
        return ActionSpec(
            "file.record",
            self.tr("Start recording"),
            lambda _c, _on: self.toggle(),
            menu="file",
            order=3,
            shortcut="Ctrl+R",
            tip=self.tr("Start or stop recording to a session file (Ctrl+R)"),
            checkable=True,
            toolbar="1",
            toolbar_order=1,
        )

    @property
    def action(self) -> QAction:
        return self._action("file.record")

    @property
    def path(self) -> Path | None:
        session = self._session()
        return session.recording_path if session is not None else None

    def start(self, path: str | Path | None = None) -> Path | None:
        """Record every snapshot to a session file; asks for a file name when ``path`` is None."""
        session = self._session()
        if session is None or session.recording:
            return None
        if path is None:
            from gpuprof.paths import data_dir

            default = data_dir() / time.strftime("session-%Y%m%d-%H%M%S.gpuprof")
            chosen, _ = QFileDialog.getSaveFileName(
                self._window,
                self.tr("Record to"),
                str(default),
                self.tr("gpuprof sessions (*.gpuprof)"),
            )
            if not chosen:
                self.sync()
                return None
            path = chosen
        try:
            out = session.start_recording(path, overwrite=True)
        except (OSError, GpuprofError) as exc:
            QMessageBox.warning(self._window, self.tr("Recording failed"), str(exc))
            self.sync()
            return None
        self.sync()
        return out

    def stop(self) -> Path | None:
        session = self._session()
        if session is None or not session.recording:
            return None
        try:
            path = session.stop_recording()
        finally:
            self.sync()
        if path is not None:
            self._window.statusBar().showMessage(
                self.tr("Saved recording %1").replace("%1", str(path)), 8000
            )
        return path

    def toggle(self) -> None:
        session = self._session()
        if session is not None and session.recording:
            self.stop()
        else:
            self.start()

    def sync(self) -> None:
        """Show what the session says: the action's check and text, the REC label, and why a
        recording stopped by itself (a full disk)."""
        session = self._session()
        error = session.recording_error if session is not None else None
        if error and error != self._shown_error:
            self._window.statusBar().showMessage(
                self.tr("Recording stopped: %1. What was recorded before is kept.").replace(
                    "%1", error
                )
            )
        self._shown_error = error
        path = self.path
        recording = path is not None
        self.action.blockSignals(True)
        self.action.setChecked(recording)
        self.action.blockSignals(False)
        self.action.setText(self.tr("Stop recording") if recording else self.tr("Start recording"))
        self.label.setVisible(recording)
        if recording:
            self.label.setToolTip(str(path))

    def open_replay(
        self, path: str | Path | None, last_dir: str
    ) -> tuple[TelemetrySource, str] | None:
        """A replay source for ``path`` (asked for, starting in ``last_dir``, when None) and the
        folder to remember; None when the user cancels or the file cannot be read (said in a
        message box)."""
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(
                self._window,
                self.tr("Open recording"),
                last_dir,
                self.tr("gpuprof sessions (*.gpuprof *.sqlite);;All files (*)"),
            )
            if not chosen:
                return None
            path = chosen
        from gpuprof.telemetry.sources import ReplaySource

        try:
            source = ReplaySource(path)
        except GpuprofError as exc:
            QMessageBox.warning(self._window, self.tr("Cannot open recording"), str(exc))
            return None
        return source, str(Path(path).parent)
