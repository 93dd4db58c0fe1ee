"""File → Profile a command…: what to run under ``gpuprof profile``, checked before it starts.

The dialog asks for the command line (split as a POSIX shell would, and shown as the argv the
job will get: no shell runs it), the working folder, environment additions (``KEY=VALUE`` lines)
and the profiler's options (``--torch``, ``--interval``, ``--name``, the recording to write).
Every input is checked here, with one line saying what is wrong, so a typo is not found out by
a profiler that exits at once. The choices are remembered (``[profile]`` in the app's settings
file, read back through :class:`~gpuprof.ui.shell.settings.SettingsReader`). :func:`profiler_argv`
turns a :class:`ProfileRequest` into the profiler's command line.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpuprof.paths import data_dir
from gpuprof.profile.job_files import untaken
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..shell.i18n import translate as _t
from ..shell.settings import INTERVALS_S, SettingsReader
from ..shell.widgets import button, plain_label

__all__ = [
    "ProfileDialog",
    "ProfileRequest",
    "ProfileSettings",
    "RESERVED_ENV",
    "default_out",
    "parse_command",
    "parse_env",
    "profiler_argv",
]

#: Set by the profiler for the job: an addition of the user's would be overwritten.
RESERVED_ENV = ("GPUPROF_MARKERS", "GPUPROF_TORCH_DIR")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Recently used recordings kept for File → Job profiles….
MAX_RECENT = 20
_MAX_NAME = 200


@dataclass(frozen=True)
class ProfileRequest:
    """A command to run under ``gpuprof profile`` and the profiler's options."""

    argv: tuple[str, ...]
    cwd: Path
    out: Path  # the recording (RUN.gpuprof)
    env: Mapping[str, str] = field(default_factory=dict)  # added to the app's environment
    torch: bool = False
    interval_s: float = 1.0
    name: str = ""

    @property
    def command_text(self) -> str:
        return shlex.join(self.argv)


def parse_command(text: str) -> list[str]:
    """The argv of a command line; ``ValueError`` with the reason when it cannot be split."""
    if not text.strip():
        raise ValueError(_t("Enter the command to profile."))
    try:
        argv = shlex.split(text, posix=True)
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise ValueError(
            _t("The command line cannot be split: %1.").replace("%1", str(exc))
        ) from None
    if not argv:
        raise ValueError(_t("Enter the command to profile."))
    if any("\0" in a for a in argv):
        raise ValueError(_t("The command line holds a NUL character."))
    return argv


def parse_env(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (blank lines and ``#`` comments skipped); ``ValueError`` naming the
    first bad line."""
    out: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not _ENV_KEY.match(key):
            raise ValueError(
                _t("Environment line %1 is not KEY=VALUE: %2")
                .replace("%1", str(n))
                .replace("%2", line[:80])
            )
        if key in RESERVED_ENV:
            raise ValueError(
                _t("Environment line %1: %2 is set by the profiler itself.")
                .replace("%1", str(n))
                .replace("%2", key)
            )
        if "\0" in value:
            raise ValueError(_t("Environment line %1 holds a NUL character.").replace("%1", str(n)))
        out[key] = value
    return out


def _find_program(program: str, cwd: Path, env: Mapping[str, str]) -> bool:
    """Whether ``program`` can be started from ``cwd`` (a path) or is on ``PATH``."""
    if os.sep in program or (os.altsep and os.altsep in program):
        p = cwd / program
        return p.is_file() and os.access(p, os.X_OK)
    path = env.get("PATH", os.environ.get("PATH", os.defpath))
    return shutil.which(program, path=path) is not None


def default_out(
    argv: list[str] | tuple[str, ...], name: str = "", folder: Path | None = None
) -> Path:
    """A new recording under ``folder`` (default: the data folder's ``profiles``), named after
    the job and the time."""
    stem = name or (Path(argv[0]).name if argv else "job")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "job"
    base = folder if folder is not None else data_dir() / "profiles"
    return untaken(base, f"{stem[:60]}-{time.strftime('%Y%m%d-%H%M%S')}")


def profiler_argv(
    request: ProfileRequest, summary: Path, *, demo: bool = False, python: str | None = None
) -> list[str]:
    """The profiler's command line (program first): ``python -m gpuprof profile --out RUN
    --json SUMMARY [--torch] [--name N] [--interval S] -- CMD...``."""
    args = [python or sys.executable, "-m", "gpuprof", "profile"]
    args += ["--out", str(request.out), "--json", str(summary)]
    if request.torch:
        args.append("--torch")
    if request.name:
        args += ["--name", request.name]
    args += ["--interval", f"{request.interval_s:g}"]
    if demo:
        args.append("--demo")
    return [*args, "--", *request.argv]


class ProfileSettings:
    """The dialog's choices and the recently used recordings (``[profile]`` in the settings)."""

    def __init__(self, path: Path | str) -> None:
        self._s = QSettings(str(path), QSettings.Format.IniFormat)
        self._read = SettingsReader(self._s, "profile")

    @property
    def problems(self) -> list[str]:
        return self._read.problems

    def load(self) -> dict[str, object]:
        r = self._read
        return {
            "command": r.text("command", ""),
            "cwd": r.text("cwd", ""),
            "env": r.text("env", ""),
            "torch": r.flag("torch", False),
            "interval_s": r.choice("interval_s", 1.0, INTERVALS_S),
            "name": r.text("name", "", max_len=_MAX_NAME),
            "out_dir": r.text("out_dir", ""),
        }

    def save(self, request: ProfileRequest, *, command: str, env: str) -> None:
        for key, value in (
            ("command", command),
            ("cwd", str(request.cwd)),
            ("env", env),
            ("torch", request.torch),
            ("interval_s", request.interval_s),
            ("name", request.name),
            ("out_dir", str(request.out.parent)),
        ):
            self._s.setValue(f"profile/{key}", value)
        self._s.sync()

    @property
    def recent(self) -> list[Path]:
        """Recordings of jobs profiled (or opened) lately, newest first."""
        text = self._read.text("recent", "", max_len=MAX_RECENT * 4096)
        # JSON: a list of paths survives the INI format's commas and quotes.
        try:
            items = json.loads(text) if text else []
        except ValueError:
            items = None
        if not isinstance(items, list) or not all(isinstance(p, str) for p in items):
            self._read.drop("recent", text, "a JSON list of file names", [])
            return []
        return [Path(p) for p in items[:MAX_RECENT]]

    def add_recent(self, path: Path) -> None:
        path = Path(path).absolute()
        items = [str(path)] + [str(p) for p in self.recent if p != path]
        self._s.setValue("profile/recent", json.dumps(items[:MAX_RECENT]))
        self._s.sync()


class ProfileDialog(QDialog):
    """Asks what to profile; :meth:`request` is the checked answer once accepted."""

    def __init__(self, settings: ProfileSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_t("Profile a command"))
        self.setObjectName("profileDialog")
        self._settings = settings
        self._request: ProfileRequest | None = None
        saved = settings.load()

        self.command = QLineEdit(str(saved["command"]), self)
        self.command.setPlaceholderText(_t("python train.py --epochs 1"))
        self.command.setToolTip(
            _t("The command and its arguments, split as a shell would; no shell runs it")
        )
        self.argv_label = plain_label(parent=self)
        self.argv_label.setToolTip(_t("The arguments the job will get (argv)"))
        self.cwd = QLineEdit(str(saved["cwd"]) or str(Path.cwd()), self)
        self.cwd.setToolTip(_t("The folder the command runs in"))
        cwd_row = self._browse_row(self.cwd, _t("Choose the working folder"), self._browse_cwd)
        self.env = QPlainTextEdit(str(saved["env"]), self)
        self.env.setPlaceholderText(_t("One KEY=VALUE a line, e.g. CUDA_VISIBLE_DEVICES=0"))
        self.env.setToolTip(_t("Added to the environment of the command"))
        self.env.setMaximumHeight(90)
        self.torch = QCheckBox(_t("Where the time goes (PyTorch profiler, --torch)"), self)
        self.torch.setChecked(bool(saved["torch"]))
        self.torch.setToolTip(
            _t(
                "Profile a window of steps with torch.profiler: shares of matmul, attention, "
                "collectives, copies and idle time, and a trace file next to the recording"
            )
        )
        self.interval = QComboBox(self)
        for s in INTERVALS_S:
            self.interval.addItem(_t("%1 s").replace("%1", f"{s:g}"), s)
        self.interval.setCurrentIndex(max(0, self.interval.findData(saved["interval_s"])))
        self.interval.setToolTip(_t("How often the GPUs and the job's processes are sampled"))
        self.name = QLineEdit(str(saved["name"]), self)
        self.name.setMaxLength(_MAX_NAME)
        self.name.setPlaceholderText(_t("(the program's name)"))
        self.name.setToolTip(_t("A name for the job, shown in the list of job profiles"))
        self.out = QLineEdit(self)
        self._out_dir = str(saved["out_dir"])
        self.out.setPlaceholderText(_t("(a new file in %1)").replace("%1", self._default_dir()))
        self.out.setToolTip(_t("The recording to write; the job profile is stored inside it"))
        out_row = self._browse_row(self.out, _t("Choose the recording to write"), self._browse_out)

        form = QFormLayout()
        form.addRow(_t("Command:"), self.command)
        form.addRow("", self.argv_label)
        form.addRow(_t("Working folder:"), cwd_row)
        form.addRow(_t("Environment:"), self.env)
        form.addRow(_t("Interval:"), self.interval)
        form.addRow(_t("Name:"), self.name)
        form.addRow(_t("Recording:"), out_row)
        form.addRow("", self.torch)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("profileError")
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c92a2a;")
        self.error_label.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.run_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.run_button.setText(_t("&Profile"))
        self.run_button.setToolTip(_t("Start the command under the profiler"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.command.textChanged.connect(self._show_argv)
        self._show_argv()
        self.resize(640, self.sizeHint().height())

    def _default_dir(self) -> str:
        if self._out_dir and Path(self._out_dir).is_dir():
            return self._out_dir
        return str(data_dir() / "profiles")

    def _show_argv(self) -> None:
        try:
            argv = parse_command(self.command.text())
        except ValueError as exc:
            self.argv_label.setText(str(exc))
            return
        self.argv_label.setText("argv: " + json.dumps(argv, ensure_ascii=False))

    def _browse_row(self, field: QLineEdit, tip: str, browse: Callable[[], None]) -> QHBoxLayout:
        """``field`` with a Browse… button (tooltip ``tip``) that calls ``browse``."""
        row = QHBoxLayout()
        row.addWidget(field, 1)
        row.addWidget(button(_t("Browse…"), tip, browse, self))
        return row

    def _browse_cwd(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, _t("Working folder"), self.cwd.text())
        if chosen:
            self.cwd.setText(chosen)

    def _browse_out(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(
            self,
            _t("Recording to write"),
            self.out.text() or self._default_dir(),
            _t("gpuprof sessions (*.gpuprof)"),
        )
        if chosen:
            self.out.setText(chosen if chosen.endswith(".gpuprof") else chosen + ".gpuprof")

    def check(self) -> ProfileRequest:
        """The request the inputs describe; ``ValueError`` with one line saying what is wrong."""
        argv = parse_command(self.command.text())
        cwd_text = self.cwd.text().strip()
        if not cwd_text:
            raise ValueError(_t("Choose the working folder."))
        cwd = Path(cwd_text).expanduser()
        if not cwd.is_dir():
            raise ValueError(_t("The working folder %1 does not exist.").replace("%1", str(cwd)))
        cwd = cwd.resolve()
        env = parse_env(self.env.toPlainText())
        if not _find_program(argv[0], cwd, env):
            raise ValueError(
                _t("%1: no such program (not a file in the working folder, not on PATH).").replace(
                    "%1", argv[0]
                )
            )
        name = self.name.text().strip()
        if any(c in name for c in "\r\n\0"):
            raise ValueError(_t("The name must be one line."))
        out_text = self.out.text().strip()
        if out_text:
            out = Path(out_text).expanduser()
            out = out if out.is_absolute() else cwd / out
            if out.is_dir():
                raise ValueError(_t("%1 is a folder; name a file.").replace("%1", str(out)))
            if out.exists():
                raise ValueError(_t("%1 exists; choose another name.").replace("%1", str(out)))
            if not out.parent.is_dir():
                raise ValueError(_t("The folder of %1 does not exist.").replace("%1", str(out)))
        else:
            out = default_out(argv, name, Path(self._default_dir()))
        return ProfileRequest(
            argv=tuple(argv),
            cwd=cwd,
            out=out,
            env=env,
            torch=self.torch.isChecked(),
            interval_s=float(self.interval.currentData()),
            name=name,
        )

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))

    def accept(self) -> None:
        try:
            request = self.check()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.show_error("")
        self._request = request
        self._settings.save(request, command=self.command.text(), env=self.env.toPlainText())
        super().accept()

    def request(self) -> ProfileRequest | None:
        """The checked request once the dialog was accepted."""
        return self._request
