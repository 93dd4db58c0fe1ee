"""The Processes tab's table model and filter (like ``nvidia-smi`` + ``pmon`` + ``top``)."""

from __future__ import annotations

import functools
from typing import Any

from gpuprof.i18n import N_
from gpuprof.redact import redact_text
from gpuprof.telemetry.model import ProcessSample
from gpuprof.telemetry.procstat import PROCESS_HOST_INTERVAL_S
from gpuprof.units import NA, fmt_bytes, fmt_duration, fmt_pct
from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor

from ...shell.i18n import translate as _t
from ...shell.table_model import ColumnsModel
from ...shell.theme import gpu_colour

__all__ = ["COLUMNS", "ProcessFilter", "ProcessModel", "container_text", "shown_text"]

_Index = QModelIndex | QPersistentModelIndex


@functools.lru_cache(maxsize=4096)
def shown_text(text: str) -> str:
    """A name, user or command line as the table shows it (and screenshots share it): control
    characters neutralised and secrets hidden, as in reports. Cached: rows repaint often."""
    return redact_text(text)


#: (attribute, header) per column; headers are translated when shown. ``run_time_s`` and
#: ``container`` are derived from the sample (start time; container id and pod).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("pid", N_("PID")),
    ("user", N_("User")),
    ("name", N_("Name")),
    ("gpu_index", N_("GPU")),
    ("gpu_mem_bytes", N_("GPU memory")),
    ("sm_util_pct", N_("SM %")),
    ("mem_util_pct", N_("Mem ctrl %")),
    ("host_cpu_pct", N_("CPU %")),
    ("host_rss_bytes", N_("Host memory")),
    ("run_time_s", N_("Run time")),
    ("container", N_("Container / pod")),
    ("kind", N_("Type")),
    ("cmdline", N_("Command line")),
)
COLUMN = {attr: i for i, (attr, _) in enumerate(COLUMNS)}
_TOOLTIPS = {
    "pid": N_("Process id"),
    "user": N_("Owner of the process"),
    "name": N_("Executable name"),
    "gpu_index": N_("GPU the process runs on"),
    "gpu_mem_bytes": N_("GPU memory used by the process (nvidia-smi: GPU Memory Usage)"),
    "sm_util_pct": N_("Share of SM time used by the process (nvidia-smi pmon: sm)"),
    "mem_util_pct": N_(
        "Share of memory-controller time used by the process (nvidia-smi pmon: mem)"
    ),
    "host_cpu_pct": N_("Host CPU used by the process, of one core: 400% is four cores (top: %CPU)"),
    "host_rss_bytes": N_("Host memory resident for the process (top: RES)"),
    "run_time_s": N_("Time since the process started"),
    "container": N_(
        "The container the process runs in (its id, from /proc/PID/cgroup) and, on "
        "Kubernetes, its pod as namespace/name where this machine can tell"
    ),
    "kind": N_("Compute (C), graphics (G) or both"),
    "cmdline": N_("Full command line; hover a row to read it all"),
}
#: When the host columns are read (gpuprof.telemetry.procstat): what a recording or a remote
#: exporter carries while this tab is not shown.
_HOST_CADENCE = N_("Read at every poll while this tab is shown, otherwise every %1 s")
_TEXT = frozenset({"user", "name", "kind", "cmdline", "container"})
_RIGHT = frozenset(
    {
        "pid",
        "gpu_index",
        "gpu_mem_bytes",
        "sm_util_pct",
        "mem_util_pct",
        "host_cpu_pct",
        "host_rss_bytes",
        "run_time_s",
    }
)


def container_text(p: ProcessSample) -> str | None:
    """``namespace/pod`` on Kubernetes, else the short container id (as ``docker ps``); the
    tooltip has the full id."""
    if p.pod_name:
        return shown_text(f"{p.pod_namespace}/{p.pod_name}" if p.pod_namespace else p.pod_name)
    return p.container_id[:12] if p.container_id else None


def _container_tip(p: ProcessSample) -> str | None:
    lines = []
    if p.container_id:
        lines.append(_t("container %1").replace("%1", shown_text(p.container_id)))
    if p.pod_name:
        lines.append(_t("pod %1").replace("%1", shown_text(p.pod_name)))
    if p.pod_namespace:
        lines.append(_t("namespace %1").replace("%1", shown_text(p.pod_namespace)))
    return "\n".join(lines) or None


class ProcessModel(ColumnsModel):
    """Rows of :class:`ProcessSample`; ``Qt.UserRole`` gives raw values for sorting."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[ProcessSample] = []
        self._now_s: float | None = None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._rows)

    def column_count(self) -> int:
        return len(COLUMNS)

    def header_text(self, section: int) -> str:
        return _t(COLUMNS[section][1])

    def header_tip(self, section: int) -> str:
        attr = COLUMNS[section][0]
        tip = _t(_TOOLTIPS[attr])
        if attr in ("host_cpu_pct", "host_rss_bytes"):
            tip += "\n" + _t(_HOST_CADENCE).replace("%1", f"{PROCESS_HOST_INTERVAL_S:g}")
        return tip

    def value(self, row: ProcessSample, attr: str) -> str | float | None:
        """The raw value of a column (``run_time_s``, ``container``: derived)."""
        if attr == "run_time_s":
            if row.start_time_s is None or self._now_s is None:
                return None
            return max(0.0, self._now_s - row.start_time_s)
        if attr == "container":
            return container_text(row)
        raw: str | float | None = getattr(row, attr)
        return raw

    # Qt API: the value's type depends on the role (text, number, colour, alignment, None).
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: ANN401
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        attr = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            value = self.value(row, attr)
            if value is None:
                return NA
            if isinstance(value, str):
                return shown_text(value)
            if attr in ("gpu_mem_bytes", "host_rss_bytes"):
                return fmt_bytes(value)
            if attr in ("sm_util_pct", "mem_util_pct", "host_cpu_pct"):
                return fmt_pct(value)
            if attr == "run_time_s":
                return fmt_duration(value)
            return str(value)
        if role == Qt.ItemDataRole.UserRole:
            # Sort key: numbers as numbers, missing values first, text case-insensitive.
            value = self.value(row, attr)
            if value is None:
                return "" if attr in _TEXT else -1.0
            return value.lower() if isinstance(value, str) else float(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            if attr == "cmdline":
                return shown_text(row.cmdline) if row.cmdline else NA
            if attr == "container":
                return _container_tip(row)
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and attr in _RIGHT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and attr == "gpu_index":
            return QColor(gpu_colour(row.gpu_index))
        return None

    def set_processes(
        self, rows: tuple[ProcessSample, ...] | list[ProcessSample], now_s: float | None = None
    ) -> None:
        """Show ``rows``; ``now_s`` (the snapshot's Unix time) gives the run times."""
        rows = list(rows)
        self._now_s = now_s
        same_keys = [(r.pid, r.gpu_index) for r in rows] == [
            (r.pid, r.gpu_index) for r in self._rows
        ]
        if same_keys and rows:
            # Same processes: update in place so the selection and scroll position stay.
            self._rows = rows
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(COLUMNS) - 1))
            return
        if same_keys:
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def process(self, row: int) -> ProcessSample:
        return self._rows[row]

    @property
    def processes(self) -> list[ProcessSample]:
        return list(self._rows)


class ProcessFilter(QSortFilterProxyModel):
    """Sorts on ``Qt.UserRole``; keeps the rows whose pid, name, user, command line (as shown,
    secrets hidden), container id or pod contains the filter text, case-insensitively."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._needle = ""
        self.setSortRole(Qt.ItemDataRole.UserRole)
        self.setDynamicSortFilter(True)

    def set_text(self, text: str) -> None:
        needle = text.strip().casefold()
        if needle != self._needle:
            self.beginFilterChange()
            self._needle = needle
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        if not self._needle:
            return True
        model = self.sourceModel()
        if not isinstance(model, ProcessModel) or source_row >= model.rowCount():
            return True
        p = model.process(source_row)
        fields = (
            str(p.pid),
            p.name,
            p.user,
            p.cmdline and shown_text(p.cmdline),
            p.container_id,
            p.pod_name,
            p.pod_namespace,
        )
        return any(self._needle in f.casefold() for f in fields if f)
