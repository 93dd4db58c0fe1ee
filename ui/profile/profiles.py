"""File → Job profiles…: the recordings that hold a job profile (issue 13).

Two places are looked in: the data folder (:func:`gpuprof.paths.data_dir`, where the app's
profiles go by default, a few levels down) and the recordings used lately (profiled from the
app, or opened from this list). Each file is opened read-only in a thread and kept only when it
holds a job profile; a plain recording is left out, and a file that cannot be read is counted
(and logged), not shown. A row opens in replay, or shows its summary.
"""

from __future__ import annotations

import datetime as _dt
import logging
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gpuprof.errors import GpuprofError
from gpuprof.i18n import N_
from gpuprof.paths import data_dir
from gpuprof.profile.model import JobProfile
from gpuprof.units import NA
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..shell.i18n import translate as _t
from ..shell.widgets import button, close_buttons, plain_label, read_only_table
from ..shell.workers import run_in_thread
from .summary import fmt_duration

if TYPE_CHECKING:
    from ..shell.context import WindowContext
    from .dialog import ProfileSettings

__all__ = ["JobEntry", "JobsHost", "ProfilesListDialog", "find_job_profiles"]


class JobsHost(Protocol):
    """What the list needs of the window's job profiles (:class:`~.status.JobProfiles`): the
    recent recordings, the window to open one in, and the summary of one."""

    @property
    def settings(self) -> ProfileSettings: ...

    @property
    def window(self) -> WindowContext: ...

    def show_summary(self, profile: JobProfile, recording: Path | None) -> object: ...


log = logging.getLogger(__name__)

#: Folders below the data folder looked into (``profiles/NAME/x.gpuprof`` is 2 down).
MAX_DEPTH = 3
#: Recordings opened at most per scan (a data folder full of sessions stays quick).
MAX_FILES = 1000

_COLUMNS = (N_("Name"), N_("Started"), N_("Command"), N_("Wall time"), N_("Exit"), N_("File"))


@dataclass(frozen=True)
class JobEntry:
    """A recording that holds a job profile."""

    path: Path
    profile: JobProfile


def _candidates(folders: Iterable[Path], recent: Iterable[Path]) -> list[Path]:
    seen: set[Path] = set()
    out: list[Path] = []

    def add(p: Path) -> None:
        key = p.absolute()
        if key not in seen and len(out) < MAX_FILES:
            seen.add(key)
            out.append(key)

    for p in recent:
        if p.is_file():
            add(p)
    for folder in folders:
        for depth in range(MAX_DEPTH):
            pattern = "/".join(["*"] * depth + ["*.gpuprof"])
            try:
                for p in sorted(folder.glob(pattern)):
                    if p.is_file():
                        add(p)
            except OSError as exc:
                log.debug("cannot list %s: %s", folder, exc)
    return out


def find_job_profiles(
    folders: Sequence[Path], recent: Sequence[Path] = ()
) -> tuple[list[JobEntry], int]:
    """Recordings under ``folders`` (a few levels down) and in ``recent`` that hold a job
    profile, newest first, and how many could not be read."""
    from gpuprof.profile.storage import read_job_profile

    entries: list[JobEntry] = []
    unreadable = 0
    for path in _candidates(folders, recent):
        try:
            profile = read_job_profile(path)
        except GpuprofError as exc:
            unreadable += 1
            log.info("%s", exc)
            continue
        if profile is not None:
            entries.append(JobEntry(path, profile))
    entries.sort(key=lambda e: e.profile.started_s, reverse=True)
    return entries, unreadable


def _when(t_s: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(t_s).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return NA


class ProfilesListDialog(QDialog):
    """The job profiles found; ``jobs`` is the window's job profiles (:class:`JobsHost`)."""

    def __init__(
        self,
        jobs: JobsHost | None,
        parent: QWidget | None = None,
        *,
        folders: Sequence[Path] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("jobProfiles")
        self.setWindowTitle(_t("Job profiles"))
        self._jobs = jobs
        self._folders = list(folders) if folders is not None else [data_dir()]
        self.entries: list[JobEntry] = []
        self.scans = 0  # finished scans (tests wait on it)
        self.status = plain_label(parent=self)
        self.table = read_only_table([_t(c) for c in _COLUMNS], self)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _i: self.open_selected())
        self.open_button = button(
            _t("Open in &replay"),
            _t("Replay the selected job's recording (double-click)"),
            self.open_selected,
            self,
        )
        self.summary_button = button(
            _t("&Summary…"), _t("Show the selected job's profile"), self.show_selected, self
        )
        self.refresh_button = button(
            _t("Re&fresh"), _t("Look for job profiles again"), self.refresh, self
        )
        buttons = close_buttons(self, self.open_button, self.summary_button, self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(1000, 480)
        self.refresh()

    def refresh(self) -> None:
        """Scan again (in a thread): the data folder and the recent recordings."""
        self.status.setText(_t("Looking for job profiles…"))
        self.refresh_button.setEnabled(False)
        folders = list(self._folders)
        recent = list(self._jobs.settings.recent) if self._jobs is not None else []
        run_in_thread(
            lambda: find_job_profiles(folders, recent),
            self._show,
            self._failed,
            self,
            name="gpuprof-find-profiles",
        )

    def _show(self, result: object) -> None:
        assert isinstance(result, tuple)
        entries, unreadable = result
        self.entries = list(entries)
        self.table.setRowCount(len(self.entries))
        for r, e in enumerate(self.entries):
            p = e.profile
            exit_ = NA if p.exit_code is None else str(p.exit_code)
            if p.exit_code is None and p.exit_signal:
                exit_ = p.exit_signal
            for c, text in enumerate(
                (p.name or NA, _when(p.started_s), shlex.join(p.command),
                 fmt_duration(p.wall_s), exit_, str(e.path))
            ):  # fmt: skip
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        if self.entries:
            self.table.selectRow(0)
        where = ", ".join(str(f) for f in self._folders)
        text = (
            _t("%1 job profile(s) in %2 and the recent recordings.")
            .replace("%1", str(len(self.entries)))
            .replace("%2", where)
        )
        if unreadable:
            text += " " + _t("%1 file(s) could not be read.").replace("%1", str(unreadable))
        self.status.setText(text)
        has = bool(self.entries)
        self.open_button.setEnabled(has)
        self.summary_button.setEnabled(has)
        self.refresh_button.setEnabled(True)
        self.scans += 1

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(_t("Cannot look for job profiles: %1").replace("%1", str(exc)))
        self.refresh_button.setEnabled(True)
        self.scans += 1

    def selected(self) -> JobEntry | None:
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else -1
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def open_selected(self) -> None:
        entry = self.selected()
        if entry is None or self._jobs is None:
            return
        self._jobs.settings.add_recent(entry.path)
        self._jobs.window.open_recording(entry.path)
        self.accept()

    def show_selected(self) -> None:
        entry = self.selected()
        if entry is not None and self._jobs is not None:
            self._jobs.show_summary(entry.profile, entry.path)
