"""Persistent UI settings (QSettings in an INI file under gpuprof's config folder).

The file lives in :func:`gpuprof.paths.config_dir`, which ``GPUPROF_CONFIG_DIR`` overrides, so
tests never touch the user's real configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from gpuprof.i18n import LANGUAGES
from gpuprof.paths import config_dir
from PySide6.QtCore import QByteArray, QSettings

__all__ = [
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

_MIN_INTERVAL_S = 0.1
_MAX_INTERVAL_S = 60.0


def settings_path() -> Path:
    return config_dir() / "gpuprof-ui.ini"


def _to_float(value: object, default: float) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


class UiSettings:
    """Typed access to the few values the window keeps between runs."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else settings_path()
        self._s = QSettings(str(self.path), QSettings.Format.IniFormat)

    # -- plain values -------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        value = str(self._s.value("view/theme", "light"))
        return value if value in ("light", "dark") else "light"

    @theme.setter
    def theme(self, value: str) -> None:
        self._s.setValue("view/theme", value)

    @property
    def interval_s(self) -> float:
        value = _to_float(self._s.value("sampling/interval_s", 1.0), 1.0)
        return min(max(value, _MIN_INTERVAL_S), _MAX_INTERVAL_S)

    @interval_s.setter
    def interval_s(self, value: float) -> None:
        self._s.setValue("sampling/interval_s", float(value))

    @property
    def language(self) -> str:
        """View → Language: ``"auto"`` (the locale), ``"en"`` or ``"zh_CN"``; read at start-up."""
        value = str(self._s.value("view/language", "auto"))
        return value if value == "auto" or value in LANGUAGES else "auto"

    @language.setter
    def language(self, value: str) -> None:
        self._s.setValue("view/language", value)

    @property
    def replay_speed(self) -> float:
        value = _to_float(self._s.value("replay/speed", 1.0), 1.0)
        return value if value in REPLAY_SPEEDS else 1.0

    @replay_speed.setter
    def replay_speed(self, value: float) -> None:
        self._s.setValue("replay/speed", float(value))

    @property
    def time_window_s(self) -> int:
        value = int(_to_float(self._s.value("telemetry/time_window_s", 600), 600))
        return value if value in TIME_WINDOWS_S else 600

    @time_window_s.setter
    def time_window_s(self, value: int) -> None:
        self._s.setValue("telemetry/time_window_s", int(value))

    @property
    def secondary_series(self) -> str:
        """Telemetry tab's pale series: ``"auto"`` (only with ≤ 4 GPUs), ``"on"`` or ``"off"``."""
        value = str(self._s.value("telemetry/secondary_series", "auto"))
        return value if value in SECONDARY_MODES else "auto"

    @secondary_series.setter
    def secondary_series(self, value: str) -> None:
        if value not in SECONDARY_MODES:
            raise ValueError(f"secondary series mode {value!r} is not one of {SECONDARY_MODES}")
        self._s.setValue("telemetry/secondary_series", value)

    @property
    def tab(self) -> str:
        return str(self._s.value("window/tab", "overview"))

    @tab.setter
    def tab(self, value: str) -> None:
        self._s.setValue("window/tab", value)

    @property
    def selected_gpus(self) -> set[int] | None:
        """GPU indices shown in the plots; ``None`` means all (nothing saved yet)."""
        raw = self._s.value("telemetry/selected_gpus", None)
        if raw is None:
            return None
        # QSettings gives a str for one value and a list for several (INI format).
        text = raw if isinstance(raw, str) else ",".join(str(x) for x in cast(list[object], raw))
        out: set[int] = set()
        for part in text.split(","):
            part = part.strip()
            if part.lstrip("-").isdigit():
                out.add(int(part))
        return out

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
        return str(self._s.value("files/last_dir", ""))

    @last_dir.setter
    def last_dir(self, value: str) -> None:
        self._s.setValue("files/last_dir", value)

    def sync(self) -> None:
        self._s.sync()
