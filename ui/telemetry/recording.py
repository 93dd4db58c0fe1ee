"""File → Start/Stop recording (Ctrl+R) and the ● REC mark in the status bar: a feature of the
window (:mod:`..shell.features`).

The recording itself belongs to the window's
:class:`~gpuprof.telemetry.session.TelemetrySession`; this feature asks for a file name, starts
and stops it, and shows what the session says each time the session changes.
"""

from __future__ import annotations

import time
from pathlib import Path

from gpuprof.errors import GpuprofError
from gpuprof.telemetry.session import TelemetrySession
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox

from ..shell.context import ActionSpec, WindowContext
from ..shell.i18n import translate as _t

__all__ = ["RecordingFeature"]


class RecordingFeature(QObject):
    """File → Start/Stop recording (Ctrl+R) and the ● REC mark, for the window's session."""

    name = "recording"

    def __init__(self, window: WindowContext) -> None:
        super().__init__(window.widget())
        self._window = window
        self.label = QLabel(_t("● REC"), window.widget())
        self.label.setObjectName("recording")
        self.label.hide()
        window.add_status(self.label)
        self._shown_error: str | None = None
        window.session_changed.connect(self.sync)

    def actions(self) -> list[ActionSpec]:
        """File → Start recording (Ctrl+R), in the toolbar after Open."""
        return [
            ActionSpec(
                "file.record",
                _t("Start recording"),
                lambda _c, _on: self.toggle(),
                menu="file",
                order=3,
                shortcut="Ctrl+R",
                tip=_t("Start or stop recording to a session file (Ctrl+R)"),
                checkable=True,
                toolbar="1",
                toolbar_order=1,
            )
        ]

    def strip(self) -> None:
        return None

    def shutdown(self, deadline: float) -> None:
        """The session ends the recording when it closes (checkpointed: nothing is lost)."""

    @property
    def action(self) -> QAction:
        return self._window.action("file.record")

    def _session(self) -> TelemetrySession | None:
        return self._window.session

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
                self._window.widget(),
                _t("Record to"),
                str(default),
                _t("gpuprof sessions (*.gpuprof)"),
            )
            if not chosen:
                self.sync()
                return None
            path = chosen
        try:
            out = session.start_recording(path, overwrite=True)
        except (OSError, GpuprofError) as exc:
            QMessageBox.warning(self._window.widget(), _t("Recording failed"), str(exc))
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
            self._window.show_message(_t("Saved recording %1").replace("%1", str(path)), 8000)
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
            self._window.show_message(
                _t("Recording stopped: %1. What was recorded before is kept.").replace("%1", error)
            )
        self._shown_error = error
        path = self.path
        recording = path is not None
        self.action.blockSignals(True)
        self.action.setChecked(recording)
        self.action.blockSignals(False)
        self.action.setText(_t("Stop recording") if recording else _t("Start recording"))
        self.label.setVisible(recording)
        if recording:
            self.label.setToolTip(str(path))
