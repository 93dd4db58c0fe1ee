"""Persistent UI settings (QSettings in an INI file under gpuprof's config folder).

The file lives in :func:`gpuprof.paths.config_dir`, which ``GPUPROF_CONFIG_DIR`` overrides, so
tests never touch the user's real configuration.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar, cast, overload

from gpuprof.i18n import LANGUAGES
from gpuprof.paths import config_dir
from gpuprof.telemetry.interval import MAX_INTERVAL_S, MIN_INTERVAL_S
from PySide6.QtCore import QByteArray, QSettings

__all__ = [
    "SettingsReader",
    "UiSettings",
    "TIME_WINDOWS_S",
    "INTERVALS_S",
    "REPLAY_SPEEDS",
    "SECONDARY_MODES",
    "settings_path",
]

#: Time windows offered by the Telemetry tab, in seconds; ``0`` means "all".
TIME_WINDOWS_S: tuple[int, ...] = (60, 600, 3600, 0)
#: Sampling intervals offered in View → Sampling interval, in seconds.
INTERVALS_S: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
#: Replay speeds offered by the replay bar, × real time.
REPLAY_SPEEDS: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
#: The Telemetry tab's secondary-series choice: by GPU count, always, never.
SECONDARY_MODES: tuple[str, ...] = ("auto", "on", "off")


log = logging.getLogger(__name__)

_T = TypeVar("_T")


def _as_float(raw: object) -> float:
    """A stored value as a number; NaN when it is not one."""
    try:
        return float(cast(str, raw))
    except (TypeError, ValueError):
        return math.nan


def settings_path() -> Path:
    return config_dir() / "gpuprof-ui.ini"


class SettingsReader:
    """Typed, range-checked reads of a QSettings file: every value the app reads back goes
    through one of these getters.

    A missing key gives the default quietly. A value that is there but unusable (not a number,
    NaN, out of range, not one of the choices) gives the default too, and is dropped from the
    file with one warning naming the file and the key (kept in :attr:`problems`), so a hand-edited
    or damaged file can neither stop the app nor keep a tab empty, and does not warn again at
    the next start. ``group`` prefixes every key (``"recommend"``).
    """

    def __init__(self, settings: QSettings, group: str = "") -> None:
        self._s = settings
        self._prefix = f"{group}/" if group else ""
        #: One line per value dropped: ``"FILE: key=value is not valid (...); using default"``.
        self.problems: list[str] = []

    @property
    def qsettings(self) -> QSettings:
        return self._s

    def raw(self, key: str) -> object:
        """The stored value as QSettings gives it (``None`` when missing)."""
        return self._s.value(self._prefix + key, None)

    def drop(self, key: str, raw: object, why: str, default: object) -> None:
        """Forget ``key``'s bad value ``raw`` (``why``: what was expected), with a warning."""
        full = self._prefix + key
        line = f"{self._s.fileName()}: {full}={raw!r} is not valid ({why}); using {default!r}"
        log.warning("%s", line)
        self.problems.append(line)
        self._s.remove(full)

    def number(self, key: str, default: float, lo: float, hi: float) -> float:
        """A finite float in ``[lo, hi]``."""
        raw = self.raw(key)
        if raw is None:
            return default
        value = _as_float(raw)
        if not math.isfinite(value) or not lo <= value <= hi:
            self.drop(key, raw, f"a number from {lo:g} to {hi:g}", default)
            return default
        return value

    def integer(self, key: str, default: int, lo: int, hi: int) -> int:
        """A whole number in ``[lo, hi]`` (``"16"`` and ``"16.0"`` both read as 16)."""
        raw = self.raw(key)
        if raw is None:
            return default
        value = _as_float(raw)
        if not math.isfinite(value) or value != int(value) or not lo <= value <= hi:
            self.drop(key, raw, f"a whole number from {lo} to {hi}", default)
            return default
        return int(value)

    def flag(self, key: str, default: bool) -> bool:
        """A bool (INI files give back ``"true"``/``"false"``)."""
        raw = self.raw(key)
        if raw is None:
            return default
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        self.drop(key, raw, "true or false", default)
        return default

    def choice(self, key: str, default: _T, choices: Sequence[_T]) -> _T:
        """One of ``choices`` (compared as text for strings, as numbers otherwise)."""
        raw = self.raw(key)
        if raw is None:
            return default
        for c in choices:
            if isinstance(c, str):
                if str(raw) == c:
                    return c
            else:
                try:
                    if float(cast(str, raw)) == float(cast(float, c)):
                        return c
                except (TypeError, ValueError):
                    break
        self.drop(key, raw, "one of " + ", ".join(str(c) for c in choices), default)
        return default

    def text(self, key: str, default: str = "", max_len: int = 4096) -> str:
        """A string of at most ``max_len`` characters."""
        raw = self.raw(key)
        if raw is None:
            return default
        if isinstance(raw, list):  # an unquoted comma in the INI file splits the text
            raw = ",".join(str(x) for x in raw)
        if not isinstance(raw, str) or len(raw) > max_len:
            self.drop(key, raw, f"text of at most {max_len} characters", default)
            return default
        return raw

    def indices(self, key: str, hi: int = 4095) -> set[int] | None:
        """A set of whole numbers in ``[0, hi]`` written as ``"0,2,3"`` (``None``: missing)."""
        raw = self.raw(key)
        if raw is None:
            return None
        # QSettings gives a str for one value and a list for several (INI format).
        text = raw if isinstance(raw, str) else ",".join(str(x) for x in cast(list[object], raw))
        out: set[int] = set()
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            if not (part.isascii() and part.isdigit() and len(part) <= 6 and int(part) <= hi):
                self.drop(key, raw, f"whole numbers from 0 to {hi}, comma-separated", None)
                return None
            out.add(int(part))
        return out


class _Choice(Generic[_T]):
    """A :class:`UiSettings` value that is one of ``choices``: read through
    :meth:`SettingsReader.choice` (``default`` when missing or not one of them), written as the
    default's type (a speed as a float, a window as an int)."""

    def __init__(self, key: str, default: _T, choices: Sequence[_T]) -> None:
        self.key = key
        self.default = default
        self.choices = tuple(choices)

    @overload
    def __get__(self, obj: None, owner: type) -> _Choice[_T]: ...

    @overload
    def __get__(self, obj: UiSettings, owner: type) -> _T: ...

    def __get__(self, obj: UiSettings | None, owner: type) -> _Choice[_T] | _T:
        if obj is None:
            return self
        return obj.reader.choice(self.key, self.default, self.choices)

    def __set__(self, obj: UiSettings, value: _T) -> None:
        as_default: Callable[[_T], object] = type(self.default)
        obj.reader.qsettings.setValue(self.key, as_default(value))


class UiSettings:
    """Typed access to the few values the window keeps between runs (read through a
    :class:`SettingsReader`: a bad value falls back to its default with a warning)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else settings_path()
        self._s = QSettings(str(self.path), QSettings.Format.IniFormat)
        self._read = SettingsReader(self._s)

    @property
    def problems(self) -> list[str]:
        """The values dropped so far (one line each, naming the file and the key)."""
        return self._read.problems

    @property
    def reader(self) -> SettingsReader:
        return self._read

    # -- plain values -------------------------------------------------------------------------
    #: View → Theme.
    theme = _Choice("view/theme", "light", ("light", "dark"))
    #: View → Language: ``"auto"`` (the locale), ``"en"`` or ``"zh_CN"``; read at start-up.
    language = _Choice("view/language", "auto", ("auto", *LANGUAGES))
    #: The replay bar's speed, × real time.
    replay_speed = _Choice("replay/speed", 1.0, REPLAY_SPEEDS)
    #: The Telemetry tab's time window in seconds (``0``: all).
    time_window_s = _Choice("telemetry/time_window_s", 600, TIME_WINDOWS_S)

    @property
    def interval_s(self) -> float:
        return self._read.number("sampling/interval_s", 1.0, MIN_INTERVAL_S, MAX_INTERVAL_S)

    @interval_s.setter
    def interval_s(self, value: float) -> None:
        self._s.setValue("sampling/interval_s", float(value))

    @property
    def secondary_series(self) -> str:
        """Telemetry tab's pale series: ``"auto"`` (only with ≤ 4 GPUs), ``"on"`` or ``"off"``."""
        return self._read.choice("telemetry/secondary_series", "auto", SECONDARY_MODES)

    @secondary_series.setter
    def secondary_series(self, value: str) -> None:
        if value not in SECONDARY_MODES:
            raise ValueError(f"secondary series mode {value!r} is not one of {SECONDARY_MODES}")
        self._s.setValue("telemetry/secondary_series", value)

    @property
    def tab(self) -> str:
        return self._read.text("window/tab", "overview", max_len=64)

    @tab.setter
    def tab(self, value: str) -> None:
        self._s.setValue("window/tab", value)

    @property
    def selected_gpus(self) -> set[int] | None:
        """GPU indices shown in the plots; ``None`` means all (nothing saved yet)."""
        return self._read.indices("telemetry/selected_gpus")

    @selected_gpus.setter
    def selected_gpus(self, value: set[int] | None) -> None:
        if value is None:
            self._s.remove("telemetry/selected_gpus")
        else:
            # A string, not a list: QSettings stores an empty list as "@Invalid()".
            self._s.setValue("telemetry/selected_gpus", ",".join(str(i) for i in sorted(value)))

    @property
    def geometry(self) -> QByteArray | None:
        value = self._s.value("window/geometry", None)
        return value if isinstance(value, QByteArray) else None

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._s.setValue("window/geometry", value)

    @property
    def last_dir(self) -> str:
        return self._read.text("files/last_dir", "")

    @last_dir.setter
    def last_dir(self, value: str) -> None:
        self._s.setValue("files/last_dir", value)

    def sync(self) -> None:
        self._s.sync()
