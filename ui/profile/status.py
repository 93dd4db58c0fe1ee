"""Profiling a job from the app: the profiler as a child process, a status strip while it runs,
and the summary once it ended (issue 13).

:class:`ProfileRun` starts ``gpuprof profile --out RUN --json SUMMARY ... -- CMD`` as a
QProcess (the same profiler the command line has, so the app and the CLI make the same job
profiles), keeps the last lines it and the job print, and stops it the way a terminal would:
SIGINT first (the profiler forwards it to the job, then saves the profile), SIGTERM on a second
press, SIGKILL on a third. :class:`ProfileStatus` is the strip above the tabs: the command,
the elapsed time, the state, the job's last output and Stop. :class:`JobProfiles` wires it
into the window (File → Profile a command…, File → Job profiles…, the step ticks, the summary
dialog), and stops a running job when the window closes rather than orphan it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError, InputError
from gpuprof.profile.model import JobProfile
from gpuprof.telemetry.model import SourceKind
from PySide6.QtCore import (
    QObject,
    QProcess,
    QProcessEnvironment,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ..shell.context import ActionSpec, WindowContext, remaining_s
from ..shell.i18n import translate as _t
from ..shell.widgets import button
from ..telemetry.plot.ticks import RecordingTicks
from .dialog import ProfileRequest, ProfileSettings, profiler_argv

if TYPE_CHECKING:
    from .dialog import ProfileDialog
    from .profiles import ProfilesListDialog
    from .summary import ProfileSummaryDialog

__all__ = ["JobProfiles", "ProfileOutcome", "ProfileRun", "ProfileStatus", "read_summary"]

log = logging.getLogger(__name__)

#: Lines of the job's output kept (and shown in the strip's log).
LOG_LINES = 500
#: The most a summary file may be: a job profile is a few kB; more is not one.
MAX_SUMMARY_BYTES = 16 * 2**20
#: How long closing the window waits for the profiler to save after SIGINT, then SIGTERM.
CLOSE_WAIT_MS = 10_000
#: What SIGTERM and SIGKILL each get to end the job.
KILL_WAIT_MS = 2_000


def read_summary(path: Path) -> JobProfile:
    """The job profile the profiler wrote with ``--json``; :class:`InputError` naming the file
    when it is not one."""
    from gpuprof.telemetry.codec import from_jsonable
    from gpuprof.telemetry.store.read import valid_time

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SUMMARY_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the job summary ({exc.strerror or exc})") from exc
    if len(data) > MAX_SUMMARY_BYTES:
        raise InputError(f"{path}: more than {MAX_SUMMARY_BYTES >> 20} MiB, not a job summary")
    try:
        profile = from_jsonable(JobProfile, json.loads(data))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        why = str(exc).splitlines()[0][:120] if str(exc) else ""
        raise InputError(f"{path}: not a job profile ({type(exc).__name__}: {why})") from None
    start, end = valid_time(profile.started_s), valid_time(profile.ended_s)
    if start is None or end is None or end < start:
        raise InputError(f"{path}: not a job profile (impossible start and end times)")
    return profile


@dataclass(frozen=True)
class ProfileOutcome:
    """How a profiled job ended."""

    request: ProfileRequest
    exit_code: int | None  # the profiler's, which is the job's; None: killed
    profile: JobProfile | None  # None: the profiler wrote none (it failed, or was killed)
    error: str = ""  # why there is no profile, in one line
    log: tuple[str, ...] = ()
    stopped: bool = False  # the user pressed Stop

    @property
    def recording(self) -> Path | None:
        out = self.request.out
        return out if out.is_file() else None


class ProfileRun(QObject):
    """One ``gpuprof profile`` child process and what it printed."""

    #: New output (text, possibly several lines).
    output = Signal(str)
    #: The run ended: a :class:`ProfileOutcome`.
    finished = Signal(object)

    def __init__(
        self, request: ProfileRequest, *, demo: bool = False, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.state = "starting"  # → running → stopping → ended
        self.started_s = time.monotonic()
        self.ended_s: float | None = None
        self.stop_presses = 0
        self.outcome: ProfileOutcome | None = None
        self.lines: deque[str] = deque(maxlen=LOG_LINES)
        self._partial = ""
        self._tmp = Path(tempfile.mkdtemp(prefix="gpuprof-job-"))
        self.summary_path = self._tmp / "summary.json"
        self._start_error = ""
        argv = profiler_argv(request, self.summary_path, demo=demo)
        self.argv = argv
        proc = QProcess(self)
        proc.setProgram(argv[0])
        proc.setArguments(argv[1:])
        proc.setWorkingDirectory(str(request.cwd))
        env = QProcessEnvironment.systemEnvironment()
        for key, value in request.env.items():
            env.insert(key, value)
        env.insert("PYTHONUNBUFFERED", "1")  # a Python job's prints show as they come
        proc.setProcessEnvironment(env)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        proc.readyReadStandardOutput.connect(self._on_output)
        proc.started.connect(self._on_started)
        proc.errorOccurred.connect(self._on_error)
        proc.finished.connect(self._on_finished)
        self.process = proc

    def start(self) -> None:
        with contextlib.suppress(OSError):  # the profiler says it, naming the file
            self.request.out.parent.mkdir(parents=True, exist_ok=True)
        self.process.start()

    @property
    def running(self) -> bool:
        return self.state in ("starting", "running", "stopping")

    def elapsed_s(self) -> float:
        return (self.ended_s or time.monotonic()) - self.started_s

    def stop(self) -> None:
        """SIGINT (the profiler forwards it to the job, then saves); again: SIGTERM; a third
        time: SIGKILL (nothing is saved)."""
        if not self.running:
            return
        self.stop_presses += 1
        self.state = "stopping"
        pid = int(self.process.processId())
        if self.stop_presses == 1 and pid > 0 and sys.platform != "win32":
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)
        elif self.stop_presses <= 2:
            self.process.terminate()
        else:
            self.process.kill()

    def wait(self, timeout_ms: int) -> bool:
        """Wait for the end (GUI blocked): True when it ended."""
        if self.running:
            self.process.waitForFinished(timeout_ms)
        return not self.running

    def _on_started(self) -> None:
        if self.state == "starting":
            self.state = "running"

    def _on_output(self) -> None:
        data = bytes(self.process.readAllStandardOutput().data())
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        if not text:
            return
        # A live status line redrawn with \r: keep its last state only.
        parts = (self._partial + text).split("\n")
        self._partial = parts.pop()
        for line in parts:
            self.lines.append(line.rsplit("\r", 1)[-1])
        self.output.emit(text)

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._start_error = _t("The profiler could not start: %1").replace(
                "%1", self.process.errorString()
            )
            self._finish(None)

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        self._on_output()
        self._finish(code if status == QProcess.ExitStatus.NormalExit else None)

    def _finish(self, code: int | None) -> None:
        if self.state == "ended":
            return
        self.state = "ended"
        self.ended_s = time.monotonic()
        if self._partial:
            self.lines.append(self._partial.rsplit("\r", 1)[-1])
            self._partial = ""
        profile, error = None, self._start_error
        if not error:
            profile, error = self._read_profile(code)
        shutil.rmtree(self._tmp, ignore_errors=True)
        self.outcome = ProfileOutcome(
            request=self.request,
            exit_code=code,
            profile=profile,
            error=error,
            log=tuple(self.lines),
            stopped=self.stop_presses > 0,
        )
        self.finished.emit(self.outcome)

    def _read_profile(self, code: int | None) -> tuple[JobProfile | None, str]:
        """The summary the profiler wrote, else the profile inside the recording."""
        problem = ""
        if self.summary_path.is_file():
            try:
                return read_summary(self.summary_path), ""
            except GpuprofError as exc:
                problem = str(exc)
        if self.request.out.is_file():
            from gpuprof.profile.storage import read_job_profile

            try:
                profile = read_job_profile(self.request.out)
            except GpuprofError as exc:
                problem = problem or str(exc)
            else:
                if profile is not None:
                    return profile, ""
        if problem:
            return None, problem
        last = next((line.strip() for line in reversed(self.lines) if line.strip()), "")
        if code is None:
            why = _t("the profiler was killed before it saved the job profile")
        else:
            why = _t("the profiler exited with code %1 and wrote no job profile").replace(
                "%1", str(code)
            )
        return None, f"{why}: {last}" if last else why


def _fmt_elapsed(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600:d}:{s // 60 % 60:02d}:{s % 60:02d}"


class ProfileStatus(QFrame):
    """The strip above the tabs while a job is profiled (and after, until closed)."""

    stop_requested = Signal()
    summary_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("profileStatus")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.run: ProfileRun | None = None
        self.steps = 0
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.command = QLabel(self)
        self.command.setTextFormat(Qt.TextFormat.PlainText)
        self.command.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.elapsed = QLabel(self)
        self.elapsed.setToolTip(_t("Time since the job started"))
        self.stop_button = button(
            _t("&Stop"),
            _t(
                "Interrupt the job (SIGINT, as Ctrl+C would); the profile is saved. "
                "Press again to terminate, a third time to kill."
            ),
            self.stop_requested,
            self,
        )
        self.summary_button = button(
            _t("S&ummary"), _t("Show the job profile again"), self.summary_requested, self
        )
        self.close_button = button(_t("Close"), _t("Hide this strip"), self.hide, self)
        self.log_view = QPlainTextEdit(self)
        self.log_view.setReadOnly(True)
        self.log_view.setMaximumBlockCount(LOG_LINES)
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_view.setFixedHeight(76)
        self.log_view.setToolTip(_t("The job's last output (stdout and stderr)"))
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.log_view.setFont(mono)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addWidget(self.command, 1)
        top.addWidget(self.elapsed)
        top.addWidget(self.stop_button)
        top.addWidget(self.summary_button)
        top.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.log_view)
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.update_state)
        self.hide()

    def set_steps(self, steps: int) -> None:
        """The job's steps so far (its markers in the recording)."""
        self.steps = steps
        self.update_state()

    def follow(self, run: ProfileRun) -> None:
        self.run = run
        self.steps = 0
        self.log_view.clear()
        # One line: an argument with a newline (python -c '...') would make the strip grow.
        self.command.setText(" ".join(run.request.command_text.split()))
        self.command.setToolTip(
            _t("%1\nin %2\nrecording to %3")
            .replace("%1", run.request.command_text)
            .replace("%2", str(run.request.cwd))
            .replace("%3", str(run.request.out))
        )
        run.output.connect(self._append)
        run.finished.connect(lambda _o: self.update_state())
        self._timer.start()
        self.update_state()
        self.show()

    def _append(self, text: str) -> None:
        self.log_view.moveCursor(self.log_view.textCursor().MoveOperation.End)
        self.log_view.insertPlainText(text.replace("\r\n", "\n").replace("\r", "\n"))
        self.log_view.ensureCursorVisible()

    def state_text(self) -> str:
        run = self.run
        if run is None:
            return ""
        if run.state == "starting":
            return _t("Starting")
        if run.state == "running":
            return _t("Profiling")
        if run.state == "stopping":
            return _t("Stopping")
        outcome = run.outcome
        if outcome is None or outcome.exit_code is None:
            return _t("Ended (killed)")
        return _t("Ended (exit code %1)").replace("%1", str(outcome.exit_code))

    def update_state(self) -> None:
        run = self.run
        if run is None:
            return
        self.title.setText(self.state_text() + ":")
        elapsed = _fmt_elapsed(run.elapsed_s())
        if self.steps:  # the job's step markers, read from its recording
            elapsed = _t("%1 · %2 steps").replace("%1", elapsed).replace("%2", str(self.steps))
        self.elapsed.setText(elapsed)
        self.stop_button.setVisible(run.running)
        self.stop_button.setText(_t("&Stop") if run.stop_presses == 0 else _t("&Terminate"))
        if run.stop_presses >= 2:
            self.stop_button.setText(_t("&Kill"))
        ended = not run.running
        self.close_button.setVisible(ended)
        self.summary_button.setVisible(ended and run.outcome is not None and
                                       run.outcome.profile is not None)  # fmt: skip
        if ended:
            self._timer.stop()


class JobProfiles(QObject):
    """The window's job profiling (a feature, :mod:`..shell.features`): File → Profile a command… and
    File → Job profiles…, the run, its strip above the tabs, the step ticks and the summary."""

    name = "jobs"

    def __init__(self, window: WindowContext) -> None:
        super().__init__(window.widget())
        self.window = window
        self.settings = ProfileSettings(window.settings.path)
        self.ticks = RecordingTicks(window)
        self.run: ProfileRun | None = None
        self.dialog: ProfileDialog | None = None
        self.summary: ProfileSummaryDialog | None = None
        self.profiles_list: ProfilesListDialog | None = None
        self._closing = False
        self.error_box: QMessageBox | None = None
        self.status = ProfileStatus(window.widget())
        self.status.stop_requested.connect(self.stop)
        self.ticks.job_steps.connect(self.status.set_steps)
        self.status.summary_requested.connect(self._show_last_summary)

    def actions(self) -> list[ActionSpec]:
        return [
            ActionSpec(
                "file.profile",
                _t("&Profile a command…"),
                lambda _c, _on: self.open_dialog(),
                menu="file",
                group="2",
                order=0,
                tip=_t(
                    "Run a command under the profiler: its GPUs, steps and time, then a summary"
                ),
            ),
            ActionSpec(
                "file.job_profiles",
                _t("&Job profiles…"),
                lambda _c, _on: self.open_list(),
                menu="file",
                group="2",
                order=1,
                tip=_t("Recordings of profiled jobs: open one in replay or see its summary"),
            ),
        ]

    def strip(self) -> QWidget:
        return self.status

    @property
    def busy(self) -> bool:
        return self.run is not None and self.run.running

    # -- starting and stopping -----------------------------------------------------------------
    def open_dialog(self) -> ProfileDialog | None:
        """File → Profile a command…: the dialog (not modal-blocking), or None while a job runs."""
        if self.busy:
            self.window.show_message(
                _t("A job is being profiled; stop it before starting another"), 8000
            )
            return None
        from .dialog import ProfileDialog

        if self.dialog is not None:
            self.dialog.close()
        dialog = ProfileDialog(self.settings, self.window.widget())
        dialog.accepted.connect(lambda: self._dialog_accepted(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _dialog_accepted(self, dialog: ProfileDialog) -> None:
        request = dialog.request()
        if request is not None:
            self.start(request)

    def start(self, request: ProfileRequest, *, demo: bool | None = None) -> ProfileRun:
        """Run ``request`` under the profiler. ``demo`` (default: the window shows the
        SIMULATED source) profiles against the simulator, as ``gpuprof profile --demo``."""
        if self.busy:
            raise RuntimeError("a job is already being profiled")
        if demo is None:
            source = self.window.source
            demo = getattr(source, "kind", None) is SourceKind.SIMULATED
        run = ProfileRun(request, demo=demo, parent=self)
        run.finished.connect(self._on_finished)
        self.run = run
        self.status.follow(run)
        self.ticks.follow(request.out)
        self.settings.add_recent(request.out)
        run.start()
        return run

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()
            self.status.update_state()

    def _on_finished(self, outcome: object) -> None:
        assert isinstance(outcome, ProfileOutcome)
        self.ticks.stop_following()
        if self._closing or self.window.closing:
            return
        if outcome.profile is not None:
            self.show_summary(outcome.profile, outcome.recording)
            return
        # As menus.show_error does (not imported: menus imports this module).
        self.window.show_message(outcome.error, 10000)
        box = QMessageBox(self.window.widget())
        box.setWindowTitle(_t("Profile a command"))
        box.setIcon(QMessageBox.Icon.Warning)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(outcome.error)
        box.open()  # not exec(): never blocks the redraw timer or a test
        self.error_box = box

    # -- summaries and the list -----------------------------------------------------------------
    def show_summary(self, profile: JobProfile, recording: Path | None) -> ProfileSummaryDialog:
        """The summary dialog of ``profile`` (one at a time; not modal-blocking)."""
        from .summary import ProfileSummaryDialog

        if self.summary is not None:
            self.summary.close()
            self.summary.setParent(None)
        self.summary = ProfileSummaryDialog(
            profile, recording, self.window.widget(), open_recording=self.window.open_recording
        )
        self.summary.open()
        return self.summary

    def _show_last_summary(self) -> None:
        outcome = self.run.outcome if self.run is not None else None
        if outcome is not None and outcome.profile is not None:
            self.show_summary(outcome.profile, outcome.recording)

    def open_list(self) -> ProfilesListDialog:
        """File → Job profiles…: the recordings that hold a job profile."""
        from .profiles import ProfilesListDialog

        if self.profiles_list is not None:
            self.profiles_list.close()
            self.profiles_list.setParent(None)
        self.profiles_list = ProfilesListDialog(self, self.window.widget())
        self.profiles_list.open()
        return self.profiles_list

    # -- the window closing ---------------------------------------------------------------------
    def shutdown(self, deadline: float) -> None:
        """Stop a running job rather than orphan it: SIGINT (its profile is saved), then harder
        (SIGTERM, SIGKILL), each press waiting its share of the time left until ``deadline``
        (:data:`CLOSE_WAIT_MS` at most), the last (SIGKILL) always :data:`KILL_WAIT_MS`."""
        run = self.run
        if run is None or not run.running:
            return
        self._closing = True
        while run.running and run.stop_presses < 3:
            run.stop()
            # The first press gets most of the time (the profile is being saved); the harder
            # ones keep KILL_WAIT_MS each for themselves.
            if run.stop_presses >= 3:
                run.wait(KILL_WAIT_MS)
                break
            left_ms = int(remaining_s(deadline) * 1000) - (3 - run.stop_presses) * KILL_WAIT_MS
            run.wait(max(min(CLOSE_WAIT_MS, left_ms), 100))
