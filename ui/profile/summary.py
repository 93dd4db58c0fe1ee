"""The summary of a job profile (issue 13): what the job achieved, where its time went, and what
it would cost elsewhere.

:class:`ProfileSummaryDialog` shows one :class:`~gpuprof.profile.model.JobProfile`: the job's
facts (command, wall time, exit, GPU-seconds, energy), a table per GPU, then the host, phases,
steps, time breakdown, findings and notes as text (everything from the job or the system is
HTML-escaped). Its buttons open the recording in replay, project the job onto the cloud catalog
(:class:`ProjectionDialog`, computed in a thread: the catalog takes a moment to load) and export
a report of the recording through ``gpuprof report``.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from gpuprof.i18n import N_
from gpuprof.profile.model import GpuJobStats, JobProfile, Projection
from gpuprof.units import (
    NA,
    fmt_bytes,
    fmt_hours,
    fmt_latency,
    fmt_num,
    fmt_pct,
    fmt_usd,
)
from PySide6.QtCore import QProcess, Qt
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..shell.i18n import translate as _t
from ..shell.widgets import button, close_buttons, plain_label, read_only_table
from ..shell.workers import run_in_thread

if TYPE_CHECKING:
    from gpuprof.catalog.instances import Catalog

    #: :func:`gpuprof.profile.project.project`: the job on every catalog instance.
    ProjectFn = Callable[[JobProfile, Catalog], list[Projection]]

__all__ = ["ProfileSummaryDialog", "ProjectionDialog", "details_html", "exit_text"]

#: Rows shown in the projection table (the catalog has thousands; the best come first).
MAX_PROJECTION_ROWS = 200


def exit_text(profile: JobProfile) -> str:
    if profile.exit_code is not None:
        return _t("exit code %1").replace("%1", str(profile.exit_code))
    if profile.exit_signal:
        return _t("ended by %1").replace("%1", profile.exit_signal)
    return _t("unknown (attached)") if profile.attached else NA


def fmt_duration(seconds: float | None) -> str:
    """:func:`gpuprof.units.fmt_duration`, with ``N/A`` for what a damaged profile may hold
    (infinite, or too large to round)."""
    from gpuprof.units import fmt_duration as fmt

    if seconds is None or not math.isfinite(seconds) or abs(seconds) > 1e12:
        return NA
    return fmt(seconds)


def _when(t_s: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(t_s).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return NA


def _energy(profile: JobProfile) -> str:
    joules = [g.energy_j for g in profile.gpus if g.energy_j is not None]
    if not joules:
        return NA
    total = sum(joules)
    return f"{fmt_num(total, 'J')} ({fmt_num(total / 3.6e6, 'kWh', digits=3)})"


def _tflops(value: float | None) -> str:
    return fmt_num(value, "TFLOPS", digits=3 if value is not None and value < 10 else 1)


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """An HTML table; every cell is escaped here."""
    head = "".join(f"<th align='left'>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{body}</table>"


def _section(title: str, content: str) -> str:
    return f"<h3>{html.escape(title)}</h3>{content}"


def _para(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def details_html(profile: JobProfile) -> str:
    """Host, phases, steps, time breakdown, findings and notes, as escaped HTML."""
    parts: list[str] = []
    h = profile.host
    parts.append(
        _section(
            _t("Host (the job's process tree)"),
            _table(
                [_t("CPU mean"), _t("CPU peak"), _t("RSS peak"), _t("Disk read"),
                 _t("Disk written"), _t("Network in"), _t("Network out"), _t("Processes")],
                [[fmt_pct(h.cpu_mean_pct), fmt_pct(h.cpu_peak_pct), fmt_bytes(h.rss_peak_bytes),
                  fmt_bytes(h.read_bytes), fmt_bytes(h.write_bytes), fmt_bytes(h.net_rx_bytes),
                  fmt_bytes(h.net_tx_bytes), fmt_num(h.processes_peak)]],
            ),
        )
    )  # fmt: skip
    if profile.phases:
        parts.append(
            _section(
                _t("Phases"),
                _table(
                    [_t("Phase"), _t("From"), _t("Duration")],
                    [
                        [p.name, fmt_duration(p.start_s - profile.started_s),
                         fmt_duration(p.duration_s)]
                        for p in profile.phases
                    ],
                ),
            )
        )  # fmt: skip
    s = profile.steps
    if s is None:
        parts.append(_section(_t("Steps"), _para(_t("No step markers (see gpuprof.track)."))))
    else:
        rows = [
            [_t("Steps"), fmt_num(s.count)],
            [_t("Step time P50 / P90 / P99"),
             " / ".join(fmt_latency(v) for v in (s.p50_s, s.p90_s, s.p99_s))],
            [_t("Trend (first to last quarter)"),
             NA if s.trend_pct is None else f"{s.trend_pct:+.1f}%"],
            [_t("Tokens/s"), fmt_num(s.tokens_per_s)],
            [_t("Samples/s"), fmt_num(s.samples_per_s, digits=1)],
            [_t("Achieved"), _tflops(s.achieved_tflops)],
            [_t("MFU"), fmt_pct(s.mfu_pct, digits=1) +
             (f" ({s.mfu_dtype}, {_tflops(s.peak_tflops)})" if s.mfu_dtype else "")],
        ]  # fmt: skip
        note = _para(s.note) if s.note else ""
        parts.append(_section(_t("Steps"), _table([_t("What"), _t("Value")], rows) + note))
    b = profile.breakdown
    if b is not None:
        shares = _table(
            [_t("Where the time went"), _t("Time"), _t("Share")],
            [[c.category, fmt_latency(c.time_s), fmt_pct(c.share_pct, digits=1)] for c in b.shares],
        )
        top = _table(
            [_t("Kernel or operator"), _t("Kind"), _t("Time"), _t("Calls"), _t("Share")],
            [
                [o.name[:120], o.category, fmt_latency(o.time_s), fmt_num(o.count),
                 fmt_pct(o.share_pct, digits=1)]
                for o in b.top
            ],
        )  # fmt: skip
        head = (
            _t("%1 steps on %2 in %3")
            .replace("%1", str(b.steps))
            .replace("%2", b.device)
            .replace("%3", fmt_latency(b.total_s))
        )
        extra = ""
        if b.dataloader_wait_s_per_step is not None:
            extra += _para(
                _t("Data-loader wait: %1 a step").replace(
                    "%1", fmt_latency(b.dataloader_wait_s_per_step)
                )
            )
        if b.trace_file:
            extra += _para(_t("Trace: %1").replace("%1", b.trace_file))
        if b.note:
            extra += _para(b.note)
        parts.append(_section(_t("Time breakdown"), _para(head) + shares + top + extra))
    if profile.findings:
        items = "".join(
            f"<li><b>{html.escape(f.severity.value)}</b> {html.escape(f.title)}: "
            f"{html.escape(f.detail)} <i>{html.escape(f.hint)}</i></li>"
            for f in profile.findings
        )
        parts.append(_section(_t("Findings"), f"<ul>{items}</ul>"))
    notes = list(profile.notes)
    if profile.markers_skipped:
        notes.append(
            _t("%1 marker line(s) were not markers and were skipped").replace(
                "%1", str(profile.markers_skipped)
            )
        )
    if notes:
        items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
        parts.append(_section(_t("Notes"), f"<ul>{items}</ul>"))
    return "".join(parts)


_GPU_COLUMNS = (
    N_("GPU"), N_("Name"), N_("Util"), N_("SM active"), N_("Tensor"), N_("DRAM"),
    N_("Memory peak"), N_("Job memory peak"), N_("Power"), N_("Energy"), N_("SM clock"),
    N_("Throttled"),
)  # fmt: skip


def _gpu_row(g: GpuJobStats) -> list[str]:
    throttled = ", ".join(f"{name} {fmt_duration(s)}" for name, s in g.throttle_s if s > 0)
    return [
        str(g.index), g.name or NA, fmt_pct(g.util_gpu_mean_pct), fmt_pct(g.sm_active_mean_pct),
        fmt_pct(g.tensor_active_mean_pct), fmt_pct(g.dram_active_mean_pct),
        fmt_bytes(g.mem_peak_bytes), fmt_bytes(g.job_mem_peak_bytes),
        fmt_num(g.power_mean_w, "W"), fmt_num(g.energy_j, "J"), fmt_num(g.clock_sm_mean_mhz, "MHz"),
        throttled or "—",
    ]  # fmt: skip


class ProfileSummaryDialog(QDialog):
    """One job profile; ``recording`` (None: unknown) is what Open in replay and Export use;
    ``open_recording`` (the window's) replays it."""

    def __init__(
        self,
        profile: JobProfile,
        recording: Path | None,
        parent: QWidget | None = None,
        *,
        open_recording: Callable[[Path], object] | None = None,
    ) -> None:
        super().__init__(parent)
        self.profile = profile
        self.recording = recording
        self._open_recording = open_recording
        self.setObjectName("profileSummary")
        self.setWindowTitle(_t("Job profile — %1").replace("%1", profile.name or NA))
        form = QFormLayout()
        self.facts: dict[str, QLabel] = {}
        simulated = profile.source == "simulated"
        gpus = ", ".join(str(i) for i in profile.gpu_indices) or _t("none")
        for key, title, value in (
            ("command", _t("Command:"), shlex.join(profile.command)),
            ("started", _t("Started:"), _when(profile.started_s)),
            ("wall", _t("Wall time:"), fmt_duration(profile.wall_s)),
            ("exit", _t("Exit:"), exit_text(profile)),
            ("gpus", _t("GPUs:"), gpus),
            ("gpu_seconds", _t("GPU-seconds:"), fmt_num(profile.gpu_seconds, digits=1)),
            ("energy", _t("Energy:"), _energy(profile)),
            ("source", _t("Telemetry:"),
             _t("SIMULATED (the demo's GPUs)") if simulated else profile.source),
            ("recording", _t("Recording:"), str(recording) if recording else NA),
        ):  # fmt: skip
            label = QLabel(value, self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(True)
            form.addRow(title, label)
            self.facts[key] = label
        self.gpu_table = read_only_table([_t(c) for c in _GPU_COLUMNS], self, len(profile.gpus))
        for r, g in enumerate(profile.gpus):
            for c, text in enumerate(_gpu_row(g)):
                self.gpu_table.setItem(r, c, QTableWidgetItem(text))
        self.gpu_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.gpu_table.setMaximumHeight(40 + 30 * max(1, min(len(profile.gpus), 8)))
        self.gpu_table.setVisible(bool(profile.gpus))
        self.details = QTextBrowser(self)
        self.details.setOpenLinks(False)
        self.details.setHtml(details_html(profile))

        self.replay_button = button(
            _t("Open in &replay"),
            _t("Replay the job's recording in the window"),
            self.open_in_replay,
            self,
        )
        self.project_button = button(
            _t("&Project this job…"),
            _t("Its step time, job time and cost on each cloud instance of the catalog"),
            self.project,
            self,
        )
        self.export_button = button(
            _t("&Export report…"),
            _t("An HTML, PDF or JSON report of the job's recording"),
            self.export_report,
            self,
        )
        buttons = close_buttons(self, self.replay_button, self.project_button, self.export_button)
        if recording is None:
            for b in (self.replay_button, self.export_button):
                b.setEnabled(False)
                b.setToolTip(_t("The job's recording is not at hand"))
        self.message = plain_label(parent=self)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.gpu_table)
        layout.addWidget(self.details, 1)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.projection: ProjectionDialog | None = None
        self.report_process: QProcess | None = None
        self.resize(900, 700)

    def open_in_replay(self) -> None:
        if self.recording is not None and self._open_recording is not None:
            self._open_recording(self.recording)

    def project(self) -> ProjectionDialog | None:
        """Project this job onto the catalog in a dialog of its own (computed in a thread)."""
        try:
            from gpuprof.profile.project import project
        except ImportError:  # an install without the projection
            self.message.setText(_t("Projection is not available in this gpuprof."))
            return None
        if self.projection is not None:
            self.projection.close()
        self.projection = ProjectionDialog(self.profile, project, self)
        self.projection.open()
        return self.projection

    def export_report(self, path: str | Path | None = None) -> QProcess | None:
        """``gpuprof report --session RECORDING --out FILE`` in the background."""
        if self.recording is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self,
                _t("Export report"),
                str(self.recording.with_suffix(".html")),
                _t("Reports (*.html *.pdf *.json)"),
            )
            if not chosen:
                return None
            path = chosen
        out = Path(path)
        proc = QProcess(self)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        proc.setProgram(sys.executable)
        args = ["-m", "gpuprof", "report", "--session", str(self.recording), "--out", str(out)]
        proc.setArguments(args if not getattr(sys, "frozen", False) else args[2:])
        proc.finished.connect(lambda code, _s: self._report_done(proc, out, code))
        self.export_button.setEnabled(False)
        self.message.setText(_t("Writing %1…").replace("%1", str(out)))
        self.report_process = proc
        proc.start()
        return proc

    def _report_done(self, proc: QProcess, out: Path, code: int) -> None:
        self.export_button.setEnabled(True)
        if code == 0:
            self.message.setText(_t("Saved %1").replace("%1", str(out)))
            return
        text = bytes(proc.readAll().data()).decode("utf-8", "replace").strip().splitlines()
        self.message.setText(text[-1] if text else _t("The report failed (exit code %1)")
                             .replace("%1", str(code)))  # fmt: skip


_PROJECTION_COLUMNS = (
    N_("Provider"), N_("Instance"), N_("Region"), N_("GPUs"), N_("Fits"), N_("Step"),
    N_("Speed-up"), N_("Job time"), N_("On-demand"), N_("Spot"), N_("How"),
)  # fmt: skip


def _projection_row(p: Projection, how: str | None = None) -> list[str]:
    gpus = f"{p.gpu_count}× {p.gpu_model}"
    return [
        p.provider, p.instance_type, p.region, gpus, _t("yes") if p.fits else _t("no"),
        fmt_latency(p.step_s), NA if p.speedup_vs_here is None else f"{p.speedup_vs_here:.2f}×",
        fmt_hours(p.job_hours), fmt_usd(p.cost_ondemand_usd), fmt_usd(p.cost_spot_usd),
        p.derivation if how is None else how,
    ]  # fmt: skip


class ProjectionDialog(QDialog):
    """The job on each catalog instance (the best :data:`MAX_PROJECTION_ROWS`)."""

    def __init__(
        self, profile: JobProfile, project: ProjectFn, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("profileProjection")
        self.setWindowTitle(_t("Project this job — %1").replace("%1", profile.name or NA))
        self.rows: list[Projection] = []
        self.status = plain_label(_t("Loading the catalog…"), self)
        self.table = read_only_table([_t(c) for c in _PROJECTION_COLUMNS], self)
        self.table.setSortingEnabled(False)
        buttons = close_buttons(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(1100, 600)
        self.done_ = False

        self._hows: list[str] = []  # the derivations shown, translated in the thread

        def compute() -> list[Projection]:
            from gpuprof.catalog.instances import load_catalog
            from gpuprof.profile.project import shown_derivation

            rows: list[Projection] = project(profile, load_catalog())
            self._hows[:] = [shown_derivation(p.derivation) for p in rows[:MAX_PROJECTION_ROWS]]
            return rows

        run_in_thread(compute, self._show, self._failed, self, name="gpuprof-job-summary")

    def _show(self, rows: object) -> None:
        assert isinstance(rows, list)
        self.rows = rows
        shown = rows[:MAX_PROJECTION_ROWS]
        self.table.setRowCount(len(shown))
        for r, p in enumerate(shown):
            how = self._hows[r] if r < len(self._hows) else None
            for c, text in enumerate(_projection_row(p, how)):
                item = QTableWidgetItem(text)
                if c == len(_PROJECTION_COLUMNS) - 1:
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        fits = sum(1 for p in rows if p.fits)
        self.status.setText(
            _t("%1 instances, %2 fit the job's memory; the best %3 are shown.")
            .replace("%1", str(len(rows)))
            .replace("%2", str(fits))
            .replace("%3", str(len(shown)))
        )
        self.done_ = True

    def _failed(self, exc: BaseException) -> None:
        message = str(exc) if isinstance(exc, GpuprofError) else f"{type(exc).__name__}: {exc}"
        self.status.setText(_t("Cannot project this job: %1").replace("%1", message))
        self.done_ = True
