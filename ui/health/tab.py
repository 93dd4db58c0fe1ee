"""Health tab: plain-language findings (:func:`gpuprof.health.diagnose.diagnose`) over recent telemetry.

The tab keeps the last :data:`WINDOW_SNAPSHOTS` snapshots it is fed (``add_snapshot``) and the
static facts (``set_static``), and re-runs the checks at most every :data:`MIN_PERIOD_S` seconds,
only while it is visible (and at once when it is shown). A run over 120 snapshots of 8 GPUs costs
≈ 11 ms here, so it runs in the GUI thread.

The window shows :attr:`HealthTab.summary` in the tab title through ``summary_changed``. The
colours, icons, check codes and the all-clear page are in :mod:`gpuprof.ui.health.widgets`.
"""

from __future__ import annotations

import html
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from gpuprof.health.diagnose import (
    LOW_UTIL_PCT,
    Finding,
    Severity,
    checks_not_run,
    diagnose,
    installed_torch_cuda_version,
)
from gpuprof.i18n import tr
from gpuprof.telemetry.model import DeviceInfo, Snapshot, SourceKind, SystemInfo
from gpuprof.units import fmt_duration, fmt_pct
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QHideEvent,
    QIcon,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..shell.theme import Theme
from ..shell.widgets import arg, button
from .widgets import (
    CHECK_CODES,
    AllClearPage,
    gpus_from_snapshots,
    hint_html,
    index_ranges,
    not_run_html,
    severity_colours,
    severity_icon,
)

__all__ = ["HealthTab", "MIN_PERIOD_S", "WINDOW_SNAPSHOTS", "severity_colours"]

#: Snapshots the checks look at (the most recent ones).
WINDOW_SNAPSHOTS = 120
#: Shortest time between two runs of the checks, seconds.
MIN_PERIOD_S = 2.0

_AUTO = object()
_KEY_ROLE = Qt.ItemDataRole.UserRole + 1


class HealthTab(QWidget):
    """Health findings of this machine, most urgent first, with the detail and the hint.

    Feed it with :meth:`add_snapshot` (each live snapshot), :meth:`add_snapshots` (a batch, e.g.
    prefilled history) and :meth:`set_static`. ``torch_cuda_version`` defaults to the installed
    torch's (read from package metadata, never importing torch); ``clock`` is monotonic seconds.
    """

    name = "health"
    #: The summary line after each run: "1 critical, 2 warnings", "All clear", ...
    summary_changed = Signal(str)
    #: The findings (a list of :class:`Finding`) after each run.
    findings_changed = Signal(object)

    def __init__(
        self,
        *,
        window_snapshots: int = WINDOW_SNAPSHOTS,
        min_period_s: float = MIN_PERIOD_S,
        torch_cuda_version: str | object | None = _AUTO,
        clock: Callable[[], float] = time.monotonic,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._snaps: deque[Snapshot] = deque(maxlen=max(1, int(window_snapshots)))
        self._devices: tuple[DeviceInfo, ...] = ()
        self._system: SystemInfo | None = None
        self._torch_cuda = torch_cuda_version
        self._clock = clock
        self.min_period_s = float(min_period_s)
        self._dirty = False
        self._last_run: float | None = None
        self._checked_at = ""
        self._dark = self.palette().window().color().lightness() < 128
        self._icons = {s: severity_icon(s) for s in Severity}
        self.findings: list[Finding] = []
        #: ``{finding code: why}`` of the checks with nothing to judge in the last run.
        self.not_run: dict[str, str] = {}
        self.run_count = 0
        self.summary = ""

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._maybe_run)

        # header: summary, scope, SIMULATED badge, copy button
        self.summary_label = QLabel(self)
        self.summary_label.setObjectName("healthSummary")
        font = self.summary_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.summary_label.setFont(font)
        self.scope_label = QLabel(self)
        self.scope_label.setObjectName("muted")
        self.scope_label.setToolTip(
            self.tr(
                "The snapshots the checks looked at; they re-run every "
                "2 s while this tab is visible"
            )
        )
        self.sim_badge = QLabel(self.tr("SIMULATED"), self)
        self.sim_badge.setObjectName("simulated")
        self.sim_badge.setToolTip(
            self.tr("These findings come from the simulated demo machine, not from a measurement")
        )
        self.sim_badge.hide()
        self.copy_button = button(
            self.tr("Copy findings"),
            self.tr(
                "Copy the findings with their details and hints to the clipboard as plain text"
            ),
            self.copy_findings,
            self,
        )
        self.copy_button.setEnabled(False)
        header = QHBoxLayout()
        header.addWidget(self.summary_label)
        header.addSpacing(12)
        header.addWidget(self.sim_badge)
        header.addSpacing(12)
        header.addWidget(self.scope_label, 1)
        header.addWidget(self.copy_button)

        # page 0: waiting for data
        self.waiting_label = QLabel(
            self.tr("Waiting for telemetry: the checks run once the first snapshot arrives."), self
        )
        self.waiting_label.setObjectName("muted")
        self.waiting_label.setAlignment(Qt.AlignmentFlag.AlignCenter)

        # page 1: findings list + details
        self.table = QTreeWidget(self)
        self.table.setColumnCount(3)
        self.table.setHeaderLabels([self.tr("Severity"), self.tr("GPU"), self.tr("Finding")])
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionMode(QTreeWidget.SelectionMode.SingleSelection)
        self.table.setToolTip(
            self.tr("Findings, most urgent first; select one to see what it means and what to do")
        )
        hdr = self.table.header()
        hdr.setStretchLastSection(True)
        hdr.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        hdr.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.currentItemChanged.connect(self._on_current)
        self.details = QTextBrowser(self)
        self.details.setOpenLinks(False)
        self.details.setToolTip(self.tr("What the selected finding means and what to do about it"))
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        self.splitter = split

        # page 2: all clear
        clear_page = AllClearPage(self)
        self.clear_page = clear_page
        self.clear_title, self.clear_scope = clear_page.title, clear_page.scope
        self.checks_label, self.clear_note = clear_page.checks_label, clear_page.note

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.waiting_label)
        self.stack.addWidget(split)
        self.stack.addWidget(clear_page)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addWidget(self.stack, 1)
        self._show_state()

    # -- input ------------------------------------------------------------------------------------
    def set_static(self, devices: Sequence[DeviceInfo], system: SystemInfo | None = None) -> None:
        """The static facts of the source's GPUs and driver (read once per source)."""
        self._devices = tuple(devices)
        self._system = system
        self._mark_dirty()

    def add_snapshot(self, snap: Snapshot) -> None:
        """One new snapshot. Time going backwards (a new source, a replay seek) starts afresh."""
        if self._snaps and (
            snap.time_s < self._snaps[-1].time_s or snap.source is not self._snaps[-1].source
        ):
            self._snaps.clear()
        self._snaps.append(snap)
        self._mark_dirty()

    def add_snapshots(self, snaps: Iterable[Snapshot]) -> None:
        """A batch (e.g. the demo's prefilled history), merged with what is here in time order."""
        merged = sorted([*self._snaps, *snaps], key=lambda s: s.time_s)
        self._snaps.clear()
        self._snaps.extend(merged[-(self._snaps.maxlen or len(merged)) :])
        self._mark_dirty()

    def clear(self, *, static: bool = True) -> None:
        """Forget the snapshots, and the static facts unless ``static=False`` (a replay seek)."""
        self._snaps.clear()
        if static:
            self._devices = ()
            self._system = None
        self.findings, self.not_run = [], {}
        self._dirty = False
        self._last_run = None
        self._set_summary("")
        self._show_state()

    @property
    def snapshot_count(self) -> int:
        return len(self._snaps)

    # -- when to run --------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True
        self._maybe_run()

    def _maybe_run(self) -> None:
        if not self._dirty or not self.isVisible():
            return
        now = self._clock()
        wait_s = 0.0 if self._last_run is None else self._last_run + self.min_period_s - now
        if wait_s <= 0:
            self.run_now()
        elif not self._timer.isActive():
            self._timer.start(max(1, int(wait_s * 1000)))

    def refresh(self, force: bool = False) -> None:
        """Called by the window's redraw timer while the tab is visible."""
        if force and self._dirty and self.isVisible():
            self.run_now()
        else:
            self._maybe_run()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.run_now()

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()
        super().hideEvent(event)

    def torch_cuda_version(self) -> str | None:
        """CUDA version of the installed torch (``None``: CPU build or none), read once."""
        if self._torch_cuda is _AUTO:
            self._torch_cuda = installed_torch_cuda_version()
        value = self._torch_cuda
        return value if isinstance(value, str) else None

    def run_now(self) -> list[Finding]:
        """Run the checks on the current window now and show the result."""
        self._timer.stop()
        self._dirty = False
        self._last_run = self._clock()
        snaps = tuple(self._snaps)
        devices = self._devices or gpus_from_snapshots(snaps)
        if snaps or devices:
            cuda, system = self.torch_cuda_version(), self._system
            self.findings = diagnose(devices, snaps, torch_cuda_version=cuda, system=system)
            self.not_run = checks_not_run(devices, snaps, torch_cuda_version=cuda, system=system)
            self.run_count += 1
            self._checked_at = datetime.now().strftime("%H:%M:%S")
            self._set_summary(self._summary_text())
        self._show_state()
        self.findings_changed.emit(list(self.findings))
        return self.findings

    # -- summary ----------------------------------------------------------------------------------
    def counts(self) -> dict[Severity, int]:
        out = dict.fromkeys(Severity, 0)
        for f in self.findings:
            out[f.severity] += 1
        return out

    @property
    def worst_severity(self) -> Severity | None:
        """The most urgent severity found, ``None`` when all clear (or not run yet)."""
        return min((f.severity for f in self.findings), key=lambda s: s.rank, default=None)

    def summary_icon(self) -> QIcon:
        """The icon of the worst severity (for the tab), a null icon when all clear."""
        worst = self.worst_severity
        return self._icons[worst] if worst is not None and worst is not Severity.INFO else QIcon()

    def _summary_text(self) -> str:
        c = self.counts()
        parts = []
        if c[Severity.CRITICAL]:
            parts.append(arg(self.tr("%1 critical"), c[Severity.CRITICAL]))
        if c[Severity.WARNING]:
            parts.append(
                self.tr("1 warning")
                if c[Severity.WARNING] == 1
                else arg(self.tr("%1 warnings"), c[Severity.WARNING])
            )
        if parts:
            return ", ".join(parts)
        if not self._gpu_count():  # nothing was checked: not "All clear"
            return self.tr("No GPU to check")
        if c[Severity.INFO]:
            return (
                self.tr("All clear (1 note)")
                if c[Severity.INFO] == 1
                else arg(self.tr("All clear (%1 notes)"), c[Severity.INFO])
            )
        return self.tr("All clear")

    def _set_summary(self, text: str) -> None:
        if text != self.summary:
            self.summary = text
            self.summary_changed.emit(text)

    @property
    def simulated(self) -> bool:
        return any(s.source is SourceKind.SIMULATED for s in self._snaps)

    def _gpu_count(self) -> int:
        return len(self._devices or gpus_from_snapshots(list(self._snaps)))

    def scope_text(self) -> str:
        """ "120 snapshots over 2m 0s of 8 GPUs · checked 14:03:05"."""
        snaps = list(self._snaps)
        n_gpus = len(self._devices or gpus_from_snapshots(snaps))
        if not snaps:
            text = arg(self.tr("static facts of %1 GPUs, no snapshots yet"), n_gpus)
        else:
            span = snaps[-1].time_s - snaps[0].time_s
            text = arg(
                self.tr("%1 snapshots over %2 of %3 GPUs"), len(snaps), fmt_duration(span), n_gpus
            )
        if self._checked_at:
            text += " · " + arg(self.tr("checked %1"), self._checked_at)
        return text

    def checks(self) -> list[str]:
        """What the checks look at, one line each (shown when all is clear)."""
        cuda = self.torch_cuda_version()
        return [
            self.tr("No GPU fell off the bus"),
            self.tr("PCIe link at its maximum generation and width under load"),
            self.tr("Power limit at its default"),
            self.tr("No thermal or power throttling under load"),
            self.tr("No ECC errors, no retired or remapped memory, no memory repair pending"),
            arg(
                self.tr(
                    "GPU utilization at least %1 while a job runs (else the input pipeline is "
                    "the bottleneck)"
                ),
                fmt_pct(LOW_UTIL_PCT),
            ),
            self.tr("Persistence mode on"),
            self.tr("MIG disabled (or knowingly enabled)"),
            arg(
                self.tr("The driver supports CUDA %1, which the installed torch was built for"),
                cuda,
            )
            if cuda
            else self.tr("The driver supports the CUDA version the installed torch was built for"),
        ]

    def _ran(self, codes: frozenset[str]) -> bool:
        """Whether the check of ``codes`` had something to judge (with no GPU at all, every
        check is listed as one, "not checked")."""
        if not self._gpu_count() or any(f.code in codes for f in self.findings):
            return True
        return not codes <= self.not_run.keys()

    def check_results(self) -> list[tuple[str, list[Finding]]]:
        """Each check that ran with the findings it produced (empty: passed); the ones with
        nothing to judge are :meth:`not_run_checks`. Unknown codes go last."""
        out: list[tuple[str, list[Finding]]] = [
            (text, [f for f in self.findings if f.code in codes])
            for text, codes in zip(self.checks(), CHECK_CODES, strict=True)
            if self._ran(codes)
        ]
        known = frozenset().union(*CHECK_CODES)
        other = [f for f in self.findings if f.code not in known]
        if other:
            out.append((self.tr("Other checks"), other))
        return out

    def not_run_checks(self) -> list[tuple[str, str]]:
        """The checks that had nothing to judge in this window (not passed), each with why."""
        return [
            (text, self.not_run[min(codes)])
            for text, codes in zip(self.checks(), CHECK_CODES, strict=True)
            if not self._ran(codes)
        ]

    def _gpus_text(self, found: Sequence[Finding]) -> str:
        """ "GPU 3", "GPUs 0–7", "GPUs 0, 2, 5" or "all" for the GPUs of ``found``."""
        indices = sorted({f.gpu_index for f in found if f.gpu_index is not None})
        if not indices or any(f.gpu_index is None for f in found):
            return self.tr("all")
        if len(indices) == 1:
            return arg(self.tr("GPU %1"), indices[0])
        return arg(self.tr("GPUs %1"), index_ranges(indices))

    def _checklist_html(self) -> str:
        colours = self._colours()
        rows = []
        for text, found in self.check_results():
            if found:
                worst = min((f.severity for f in found), key=lambda s: s.rank)
                mark = f"<span style='color:{colours[worst]}'>✗</span>"
                note = f" <span style='color:{colours[worst]}'>({html.escape(self._gpus_text(found))})</span>"
            else:  # no GPU: the check did not run, it did not pass
                ok = f"<span style='color:{colours['ok']}'>✓</span>"
                mark, note = (ok if self._gpu_count() else "–"), ""
            rows.append(
                f"<tr><td style='padding-right:8px'><b>{mark}</b></td>"
                f"<td>{html.escape(text)}{note}</td></tr>"
            )
        title = self.tr("Checks in this window")
        return (
            f"<p style='margin-top:24px'><b>{html.escape(title)}</b>"
            f"</p><table cellspacing='2'>{''.join(rows)}</table>"
        ) + not_run_html(self.tr("Not run (nothing to judge):"), self.not_run_checks())

    # -- display ----------------------------------------------------------------------------------
    def _colours(self) -> dict[Severity | str, str]:
        return severity_colours(self._dark)

    def _severity_name(self, severity: Severity) -> str:
        return {
            Severity.CRITICAL: self.tr("Critical"),
            Severity.WARNING: self.tr("Warning"),
            Severity.INFO: self.tr("Info"),
        }[severity]

    def _gpu_text(self, f: Finding) -> str:
        return self.tr("all") if f.gpu_index is None else arg(self.tr("GPU %1"), f.gpu_index)

    def _short_title(self, f: Finding) -> str:
        """The title without its "GPU n: " prefix (the GPU has its own column)."""
        if f.gpu_index is None:
            return f.title
        prefix = tr("GPU {i}", i=f.gpu_index) + ": "
        return f.title[len(prefix) :] if f.title.startswith(prefix) else f.title

    def _show_state(self) -> None:
        ran = self.run_count > 0 and (bool(self._snaps) or bool(self._devices))
        self.sim_badge.setVisible(self.simulated)
        self.copy_button.setEnabled(ran)
        colours = self._colours()
        worst = self.worst_severity
        colour = colours["ok"] if worst is None or worst is Severity.INFO else colours[worst]
        self.summary_label.setText(self.summary)
        self.summary_label.setStyleSheet(f"color: {colour};")
        self.scope_label.setText(self.scope_text() if ran else "")
        if not ran:
            self.stack.setCurrentIndex(0)
        elif self.findings:
            self._fill_table()
            self.stack.setCurrentIndex(1)
        else:
            self._fill_all_clear()
            self.stack.setCurrentIndex(2)

    def _fill_all_clear(self) -> None:
        self.clear_page.show_result(
            self._colours(),
            self.scope_text(),
            [text for text, _ in self.check_results()],
            self.not_run_checks(),
            gpus=self._gpu_count(),
        )

    @staticmethod
    def _key(f: Finding) -> str:
        return f"{f.code}:{f.gpu_index}"

    def _fill_table(self) -> None:
        current = self.table.currentItem()
        keep = current.data(0, _KEY_ROLE) if current is not None else None
        scroll = self.table.verticalScrollBar().value()
        colours = self._colours()
        self.table.blockSignals(True)
        self.table.clear()
        select: QTreeWidgetItem | None = None
        for f in self.findings:
            item = QTreeWidgetItem(
                [self._severity_name(f.severity), self._gpu_text(f), self._short_title(f)]
            )
            item.setIcon(0, self._icons[f.severity])
            item.setForeground(0, QBrush(QColor(colours[f.severity])))
            item.setData(0, _KEY_ROLE, self._key(f))
            for col in range(3):
                item.setToolTip(col, f.detail)
            self.table.addTopLevelItem(item)
            if self._key(f) == keep:
                select = item
        if select is None:
            select = self.table.topLevelItem(0)
        if select is not None:
            self.table.setCurrentItem(select)
        self.table.blockSignals(False)
        self.table.verticalScrollBar().setValue(scroll)
        self._show_details(self.selected_finding())

    def selected_finding(self) -> Finding | None:
        item = self.table.currentItem()
        if item is None:
            return None
        key = item.data(0, _KEY_ROLE)
        return next((f for f in self.findings if self._key(f) == key), None)

    def select_finding(self, row: int) -> None:
        """Select row ``row`` of the findings list (as a click would)."""
        item = self.table.topLevelItem(row)
        if item is not None:
            self.table.setCurrentItem(item)

    def _on_current(self, *_: object) -> None:
        self._show_details(self.selected_finding())

    def details_html(self, f: Finding) -> str:
        colours = self._colours()
        dev = next((d for d in self._devices if d.index == f.gpu_index), None)
        where = self._gpu_text(f) if f.gpu_index is not None else self.tr("The whole machine")
        if dev is not None:
            where += " · " + dev.name + (f" · {dev.pci_bus_id}" if dev.pci_bus_id else "")
        sev = self._severity_name(f.severity)
        todo, check = self.tr("What to do:"), self.tr("Check: %1")
        return (
            f"<h3 style='margin-bottom:4px'><span style='color:{colours[f.severity]}'>"
            f"{html.escape(sev)}</span> — {html.escape(f.title)}</h3>"
            f"<p style='color:gray; margin-top:0'>{html.escape(where)}</p>"
            f"<p>{html.escape(f.detail)}</p>"
            f"<p><b>{html.escape(todo)}</b> {hint_html(f.hint)}</p>"
            f"<p style='color:gray'>{html.escape(arg(check, f.code))}</p>" + self._checklist_html()
        )

    def _show_details(self, f: Finding | None) -> None:
        self.details.setHtml(self.details_html(f) if f is not None else self._checklist_html())

    # -- copy ---------------------------------------------------------------------------------------
    def findings_text(self) -> str:
        """The findings as plain text (what "Copy findings" puts on the clipboard)."""
        head = self.tr("gpuprof health") + ": " + (self.summary or self.tr("not checked yet"))
        host = self._system.hostname if self._system is not None else ""
        if host:
            head += f" — {host}"
        lines = [head]
        if self.simulated:
            lines.append(self.tr("SIMULATED data (--demo), not a measurement."))
        lines.append(self.scope_text())
        lines.append("")
        if not self.findings:
            none = not self._gpu_count()
            lines.append(self.tr("Not checked (no GPU):") if none else self.tr("What was checked:"))
            lines.extend(f"- {c}" for c, _ in self.check_results())
        if self.not_run_checks():
            lines.append(self.tr("Not run (nothing to judge):"))
            lines.extend(f"- {c} ({why})" for c, why in self.not_run_checks())
        todo = self.tr("What to do:")
        for f in self.findings:
            lines.append(f"[{self._severity_name(f.severity).upper()}] {f.title}")
            lines.append(f"    {f.detail}")
            lines.append(f"    {todo} {f.hint}")
        return "\n".join(lines).rstrip() + "\n"

    def copy_findings(self) -> None:
        QApplication.clipboard().setText(self.findings_text())

    # -- theme --------------------------------------------------------------------------------------
    def apply_theme(self, theme: Theme) -> None:
        self._dark = theme.name == "dark"
        self._show_state()
