"""The replay bar: play/pause (Space), a position slider, the time and the speed (0.5×–60×).

A client of the window's :class:`~gpuprof.telemetry.session.TelemetrySession`: it asks the
session to play, pause, seek and change speed, and shows :meth:`ReplayBar.update_position` on
the window's redraw timer. Hidden unless the source is a replay. :func:`open_replay` is the
file side of File → Open recording (Ctrl+O).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from gpuprof.errors import GpuprofError
from gpuprof.telemetry.session import TelemetrySession
from gpuprof.telemetry.source import TelemetrySource
from gpuprof.units import fmt_duration
from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSlider,
    QStyle,
    QToolButton,
    QWidget,
)

from ..shell.settings import REPLAY_SPEEDS

__all__ = ["SLIDER_STEPS", "ReplayBar", "open_replay"]

#: Slider positions over the whole recording.
SLIDER_STEPS = 1000


class ReplayBar(QWidget):
    """Play/pause, seek and speed for the session's replay. ``seeked`` fires after a seek."""

    seeked = Signal(float)
    speed_changed = Signal(float)

    def __init__(
        self,
        session: Callable[[], TelemetrySession | None],
        speed: float,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        badge = QLabel(self.tr("REPLAY"), self)
        badge.setObjectName("replay")
        self.play_action = QAction(self.tr("Pause replay"), self)
        self.play_action.setShortcut(QKeySequence(Qt.Key.Key_Space))
        self.play_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.play_action.setEnabled(False)
        self.play_action.triggered.connect(self.toggle_playing)
        self.play_button = QToolButton(self)
        self.play_button.setDefaultAction(self.play_action)
        self.play_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.speed_combo = QComboBox(self)
        for value in REPLAY_SPEEDS:
            self.speed_combo.addItem(f"{value:g}×", value)
        self.speed_combo.setToolTip(self.tr("Replay speed, × the recorded pace"))
        self.speed_combo.setCurrentIndex(
            REPLAY_SPEEDS.index(speed) if speed in REPLAY_SPEEDS else 0
        )
        self.speed_combo.currentIndexChanged.connect(lambda i: self.set_speed(REPLAY_SPEEDS[i]))
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setToolTip(self.tr("Position in the recording; drag to seek"))
        self.slider.sliderReleased.connect(self._seek_to_slider)
        self.slider.actionTriggered.connect(self._on_slider_action)
        self.position = QLabel("", self)
        self.position.setMinimumWidth(140)
        self.position.setToolTip(self.tr("Position / length of the recording"))
        row.addWidget(badge)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.position)
        row.addWidget(self.speed_combo)
        self.hide()
        self.show_playing(True)

    @property
    def speed(self) -> float:
        return float(REPLAY_SPEEDS[self.speed_combo.currentIndex()])

    def attach(self, session: TelemetrySession) -> None:
        """Show the bar for a replay source (its speed set to the bar's), hide it otherwise."""
        replay = session.replay_state() is not None
        self.setVisible(replay)
        self.play_action.setEnabled(replay)
        if replay:
            session.set_speed(self.speed)
            state = session.replay_state()
            self.show_playing(state is not None and state.playing)

    @property
    def playing(self) -> bool:
        session = self._session()
        state = session.replay_state() if session is not None else None
        return state is not None and state.playing

    def set_playing(self, playing: bool) -> None:
        """Play or pause; playing from the end starts again from the beginning."""
        session = self._session()
        if session is None or session.replay_state() is None:
            return
        if playing:
            session.play()
        else:
            session.pause()
        self.show_playing(playing)
        self.update_position()

    def toggle_playing(self) -> None:
        self.set_playing(not self.playing)

    def set_speed(self, speed: float) -> None:
        """Replay at ``speed`` × the recorded pace."""
        index = REPLAY_SPEEDS.index(speed) if speed in REPLAY_SPEEDS else -1
        if index >= 0 and self.speed_combo.currentIndex() != index:
            self.speed_combo.setCurrentIndex(index)  # comes back here through the signal
            return
        session = self._session()
        if session is not None:
            session.set_speed(speed)
        self.speed_changed.emit(float(speed))

    def seek(self, t_s: float) -> None:
        """Jump to ``t_s`` seconds into the recording; the plots restart from there.

        ``ValueError`` (from the session, before anything changes) for NaN or infinity."""
        session = self._session()
        if session is None or session.replay_state() is None:
            return
        session.seek(t_s)
        self.seeked.emit(float(t_s))
        self.update_position()

    def _on_slider_action(self, action: int) -> None:
        # Clicks and keys on the slider seek once the value has moved; a drag (SliderMove)
        # seeks on release. Qt passes the action as a plain int: compare with the enum's value.
        if action != QSlider.SliderAction.SliderMove.value:
            QTimer.singleShot(0, self._seek_to_slider)

    def _seek_to_slider(self) -> None:
        session = self._session()
        state = session.replay_state() if session is not None else None
        if state is None:
            return
        self.seek(state.duration_s * self.slider.value() / SLIDER_STEPS)

    def update_position(self) -> None:
        """Move the slider and the time to where the replay is (the redraw timer calls it)."""
        session = self._session()
        state = session.replay_state() if session is not None else None
        if state is None or self.slider.isSliderDown():
            return
        if not (math.isfinite(state.position_s) and math.isfinite(state.duration_s)):
            return  # nothing sensible to show; never an exception on every tick of the timer
        if state.finished and state.playing:
            self.set_playing(False)  # stop at the end instead of repeating the last sample
            return
        duration = max(state.duration_s, 1e-9)
        self.slider.blockSignals(True)
        self.slider.setValue(round(SLIDER_STEPS * min(state.position_s / duration, 1.0)))
        self.slider.blockSignals(False)
        text = f"{fmt_duration(state.position_s)} / {fmt_duration(state.duration_s)}"
        if state.finished:
            text += "  " + self.tr("(end)")
        self.position.setText(text)

    def show_playing(self, playing: bool) -> None:
        icon = (
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.play_action.setIcon(self.style().standardIcon(icon))
        self.play_action.setText(self.tr("Pause replay") if playing else self.tr("Play replay"))
        tip = (
            self.tr("Pause the replay (Space)")
            if playing
            else self.tr("Play the replay from here (Space)")
        )
        self.play_action.setToolTip(tip)
        self.play_action.setStatusTip(tip)


def open_replay(
    parent: QWidget, path: str | Path | None, last_dir: str
) -> tuple[TelemetrySource, str] | None:
    """File → Open recording (Ctrl+O): a replay source for ``path`` (asked for, starting in
    ``last_dir``, when None) and the folder to remember; None when the user cancels or the file
    cannot be read (said in a message box)."""
    if path is None:
        chosen, _ = QFileDialog.getOpenFileName(
            parent,
            _recording_t("Open recording"),
            last_dir,
            _recording_t("gpuprof sessions (*.gpuprof *.sqlite);;All files (*)"),
        )
        if not chosen:
            return None
        path = chosen
    from gpuprof.telemetry.sources import ReplaySource

    try:
        source = ReplaySource(path)
    except GpuprofError as exc:
        QMessageBox.warning(parent, _recording_t("Cannot open recording"), str(exc))
        return None
    return source, str(Path(path).parent)


def _recording_t(text: str) -> str:
    # The catalog's context for these texts (File → Open lived beside recording).
    return QCoreApplication.translate("RecordingController", text)
