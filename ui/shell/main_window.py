"""The main window: layout and wiring of the tabs, banner, replay bar, menus and status bar.

The window is a client of a :class:`~gpuprof.telemetry.session.TelemetrySession`, which owns the
source, the sampler thread, History, the recording and replay control (DESIGN.md, data flow).
:class:`~gpuprof.ui.shell.workers.SessionBridge` turns the session's callbacks into queued signals, so
each snapshot only updates :class:`~gpuprof.ui.shell.state.UiState` in the GUI thread; a QTimer at
≤ 20 Hz asks the *visible* tab to redraw from History. The menus and actions live in
:mod:`.menus`, the features in :mod:`.features`, the replay bar in :mod:`..telemetry.replay_bar` and the
banner texts in :mod:`.banners`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import Snapshot, SourceStatus
from gpuprof.telemetry.session import SamplerFactory, SessionState, TelemetrySession
from gpuprof.telemetry.source import TelemetrySource
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from ..health.tab import WINDOW_SNAPSHOTS, HealthTab
from ..telemetry.overview import OverviewTab
from ..telemetry.prefill import prefill_async
from ..telemetry.processes.tab import ProcessesTab
from ..telemetry.replay_bar import ReplayBar, open_replay
from ..telemetry.tab import TelemetryTab
from ..telemetry.topology import TopologyTab
from .banners import banner_message, status_message
from .context import CLOSE_BUDGET_S, Feature
from .features import FEATURES
from .i18n import translate as _t
from .menus import about_text, build_chrome, save_screenshot, show_about, sync_interval_controls
from .settings import TIME_WINDOWS_S, UiSettings
from .state import StaticFacts, UiState
from .status_line import StatusLine
from .tab_host import TabHost
from .tab_watches import TabWatches
from .theme import THEMES, apply_theme
from .widgets import Banner
from .workers import SessionBridge, run_in_thread, shutdown_workers

if TYPE_CHECKING:
    from gpuprof.telemetry.sampler import Sampler

    from ..telemetry.plot.ticks import StepTicks

__all__ = ["MainWindow", "REDRAW_PERIOD_MS", "status_message"]

log = logging.getLogger(__name__)

#: The redraw timer period: at most 20 frames a second (DESIGN.md, data flow).
REDRAW_PERIOD_MS = 50
#: A plot tab spends at most 1/DUTY_FACTOR of the GUI thread on redraws: a frame that took
#: 40 ms waits DUTY_FACTOR × 40 ms before the next (paint costs about as much again as refresh).
DUTY_FACTOR = 8.0


class MainWindow(QMainWindow):
    """The gpuprof window. ``source`` is any TelemetrySource; the window's session owns and
    closes it.

    ``sampler_factory(source, interval_s, history)`` and a ready ``history`` (perf scripts) are
    injectable; ``autostart=False`` leaves sampling to the caller (``poll_now()``).
    """

    #: Emitted in the GUI thread after each snapshot was taken into the state.
    snapshot_received = Signal(object)
    #: ``(StaticFacts)`` of the source being watched, in the GUI thread, once read.
    static_received = Signal(object)
    #: ``(Measurements)`` a benchmark run on this machine measured (a feature emits it).
    measured_here = Signal(object)
    #: ``(CheckResult)`` of an acceptance check run in this window (a feature emits it).
    checked_here = Signal(object)

    #: Emitted once when the window starts closing, before its features shut down.
    about_to_close = Signal()
    #: A new source, or the session's state changed (a recording stopped on its own).
    session_changed = Signal()

    def __init__(
        self,
        source: TelemetrySource,
        *,
        settings: UiSettings | None = None,
        interval_s: float | None = None,
        sampler_factory: SamplerFactory | None = None,
        history: History | None = None,
        autostart: bool = True,
    ) -> None:
        super().__init__()
        self.settings = settings or UiSettings()
        self._sampler_factory = sampler_factory
        self.interval_s = float(interval_s if interval_s is not None else self.settings.interval_s)
        self.session: TelemetrySession | None = None
        self.bridge: SessionBridge | None = None
        self.watches = TabWatches()  # what the shown tab reads at every poll
        self.snapshot_count = 0
        self.state = UiState(
            time_window_s=self.settings.time_window_s,
            selected_gpus=self.settings.selected_gpus,
        )
        self._last_frame: dict[str, float] = {}
        self._frame_cost_s = 0.0
        self._closing = False
        self._drawn_generation = -1  # the session generation the tabs were last forced at
        self.theme = THEMES[self.settings.theme]

        self.banner = Banner(self)
        # Tabs added while the window is built get the theme once, from apply_theme below.
        self.tabs = TabHost(lambda: self.theme if hasattr(self, "redraw_timer") else None, self)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.banner.follow_tabs(self.tabs)  # after _on_tab_changed: a lazy tab is built by then
        self.overview = OverviewTab(self.state)
        self.telemetry = TelemetryTab(self.state)
        self.processes = ProcessesTab(self.state)
        self.topology = TopologyTab(self.state)
        self.health = HealthTab()
        for widget, name, title, tip in (
            (self.overview, "overview", self.tr("Overview"),
             self.tr("A card per GPU and one for the host (Alt+1)")),
            (self.telemetry, "telemetry", self.tr("Telemetry"),
             self.tr("Plots of every metric over time (Alt+2)")),
            (self.processes, "processes", self.tr("Processes"),
             self.tr("Processes using the GPUs (Alt+3)")),
            (self.topology, "topology", self.tr("Topology && details"),
             self.tr("GPU interconnect matrix and static details (Alt+4)")),
            (self.health, self.health.name, self.tr("Health"),
             self.tr("Health findings: PCIe link, power, throttling, ECC, utilization, "
                     "driver (Alt+5)")),
        ):  # fmt: skip
            index = self.add_tab(widget, name, title, tip)
        self._health_index = index
        self.health.summary_changed.connect(self._on_health_summary)
        self.snapshot_received.connect(self.health.add_snapshot)
        self.snapshot_received.connect(self.processes.add_snapshot)  # its per-process history
        self.telemetry.selection_changed.connect(self.set_selected_gpus)
        self.telemetry.time_window_changed.connect(self.set_time_window)
        self.telemetry.pause_toggled.connect(self.set_paused)
        self.telemetry.secondary_mode = self.settings.secondary_series
        self.telemetry.secondary_mode_changed.connect(
            lambda mode: setattr(self.settings, "secondary_series", mode)
        )

        self.replay_bar = ReplayBar(lambda: self.session, self.settings.replay_speed, self)
        self.replay_bar.seeked.connect(self._on_replay_seeked)
        self.replay_bar.speed_changed.connect(
            lambda speed: setattr(self.settings, "replay_speed", speed)
        )
        self.addAction(self.replay_bar.play_action)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.replay_bar)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.status_line = StatusLine(self)
        self.source_badge = self.status_line.badge
        self.interval_label = self.status_line.interval
        self._strips = layout
        self.features: tuple[Feature, ...] = tuple(make(self) for make in FEATURES)
        self.chrome = build_chrome(self, self.features)
        sync_interval_controls(self)

        self.redraw_timer = QTimer(self)
        self.redraw_timer.setInterval(REDRAW_PERIOD_MS)
        self.redraw_timer.timeout.connect(self._on_redraw_timer)
        self.tick_count = 0

        geometry = self.settings.geometry
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1600, 1000)
        self.apply_theme(self.theme.name)
        self.select_tab(self.settings.tab, strict=False)
        self.telemetry.sync_controls()
        self.set_source(source, autostart=autostart, history=history)
        self.redraw_timer.start()
        for line in self.settings.problems[-1:]:  # a bad saved value was dropped (and logged)
            self.statusBar().showMessage(line, 15000)

    # -- tabs ---------------------------------------------------------------------------------
    def add_tab(self, widget: QWidget, name: str, title: str, tooltip: str = "") -> int:
        """Add a tab; ``widget.refresh(force=False)`` (if any) is called while it is visible,
        ``widget.apply_theme(theme)`` on theme changes. ``name`` is what ``--tab`` uses."""
        return self.tabs.add(widget, name, title, tooltip)

    # -- features and their actions (ui/shell/context.py) -------------------------------------------
    def action(self, action_id: str) -> QAction:
        """The action of the spec ``action_id`` ("file.open", "view.pause", ...)."""
        return self.chrome.actions[action_id]

    def feature(self, name: str) -> Feature:
        return next(f for f in self.features if f.name == name)

    def widget(self) -> QWidget:
        return self

    def show_message(self, text: str, timeout_ms: int = 0) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def add_status(self, widget: QWidget) -> None:
        self.status_line.add(widget)

    def add_strip(self, strip: QWidget) -> None:
        """Put ``strip`` just above the tabs."""
        self._strips.insertWidget(self._strips.indexOf(self.tabs), strip)

    @property
    def step_ticks(self) -> StepTicks:
        return self.telemetry.step_ticks

    @property
    def tab_names(self) -> tuple[str, ...]:
        return self.tabs.names

    def current_tab_name(self) -> str:
        return self.tabs.current_name()

    def select_tab(self, name: str, *, strict: bool = True) -> None:
        self.tabs.select(name, strict=strict)

    def _on_tab_changed(self, index: int) -> None:
        name = self.tabs.name_at(index)
        if name:
            if self.tabs.is_lazy(name):
                self.tabs.realize(name)
            self.settings.tab = name
            self.refresh_visible(force=True)
        self._sync_watches()

    def _sync_watches(self) -> None:
        if self.session is not None:
            self.watches.sync(self.session, self.tabs.current_name())

    # -- the session ----------------------------------------------------------------------------
    @property
    def source(self) -> TelemetrySource | None:
        return self.session.source if self.session is not None else None

    @property
    def sampler(self) -> Sampler | None:
        """The session's sampler (tests and perf scripts poll it by hand)."""
        return self.session.sampler if self.session is not None else None

    def set_source(
        self, source: TelemetrySource, *, autostart: bool = True, history: History | None = None
    ) -> None:
        """Replace the source (closing the old one and any recording) and start sampling it."""
        if self.session is None:
            kwargs: dict[str, Any] = {"interval_s": self.interval_s, "history": history}
            if self._sampler_factory is not None:
                kwargs["sampler_factory"] = self._sampler_factory
            self.session = TelemetrySession(source, **kwargs)
            self.state.session = self.session
            self.session.report_window_s = float(self.state.time_window_s) or None
            self.bridge = SessionBridge(self.session, self)
            self.bridge.snapshot.connect(self.on_snapshot)
            self.bridge.state_changed.connect(self._on_session_state)
            self._sync_watches()
        else:
            self.session.set_source(source, start=False)
        self._reset_for_new_source()
        session = self.session
        self.replay_bar.attach(session)
        self.session_changed.emit()
        run_in_thread(
            lambda: StaticFacts.read(session),
            self._on_static,
            self._on_static_error,
            self,
            name="gpuprof-static-info",
        )
        if autostart:
            self.session.start()

    def _reset_for_new_source(self) -> None:
        assert self.session is not None
        self.health.clear()
        self.state.latest = None
        self.state.status = SourceStatus()
        self.snapshot_count = 0
        self.set_paused(False)  # a new source plays: Pause (menu, button) unchecked with it
        self._update_title_and_source()

    def _on_session_state(self, state: SessionState) -> None:
        # Queued from whichever thread changed the session: History may have been reset or
        # reloaded (a prefill; the generation moved) and the recording may have stopped.
        if self.session is None or self._closing:
            return
        if state.generation != self._drawn_generation:
            self._drawn_generation = state.generation
            self.refresh_visible(force=True)
        self.session_changed.emit()

    def _on_static(self, result: object) -> None:
        assert isinstance(result, StaticFacts)
        src, system, devices = result.source, result.system, result.devices
        topology, status = result.topology, result.status
        if src is not self.source or self._closing:
            return
        self.state.system = system
        self.state.devices = {d.index: d for d in devices}
        self.health.set_static(devices, system)
        self.static_received.emit(result)  # for features: this machine's GPUs, what was measured
        self.state.topology = topology
        if self.state.latest is None:
            self.state.status = status
            self._update_banner()
        self.state.updates += 1
        self._update_title_and_source()
        self.telemetry.sync_controls()
        self.refresh_visible(force=True)

    def _on_health_summary(self, summary: str) -> None:
        title = self.tr("Health")
        self.tabs.setTabText(self._health_index, f"{title} ({summary})" if summary else title)
        self.tabs.setTabIcon(self._health_index, self.health.summary_icon())

    def _on_static_error(self, exc: BaseException) -> None:
        self.banner.show_state(
            "static",
            _t("Could not read the GPU details: %1").replace("%1", f"{type(exc).__name__}: {exc}"),
            "error",
        )

    @property
    def closing(self) -> bool:
        """True once the window started closing: late callbacks do nothing."""
        return self._closing

    def start_sampling(self) -> None:
        if self.session is not None:
            self.session.start()

    @property
    def prefill_pending(self) -> bool:
        return self.session is not None and self.session.prefill_pending

    def prefill(self, snapshots: list[Snapshot]) -> None:
        """Put earlier snapshots (same source) into History before the live ones."""
        if self.session is not None:
            self.session.prefill(snapshots)
            self.after_prefill(snapshots)

    def prefill_async(self, make: Callable[[], list[Snapshot]]) -> None:
        """Build earlier snapshots in a thread (the demo's history); see :mod:`..telemetry.prefill`."""
        prefill_async(self, make)

    def after_prefill(self, snapshots: list[Snapshot]) -> None:
        """The session put earlier snapshots into its History: show them."""
        if self.session is None:
            return
        self.health.add_snapshots(snapshots[-WINDOW_SNAPSHOTS:])
        self.refresh_visible(force=True)

    def poll_now(self) -> Snapshot:
        """Poll once in the caller's thread and deliver the snapshot (tests, screenshots)."""
        assert self.session is not None
        return self.session.poll_once()

    def on_snapshot(self, snap: Snapshot) -> None:
        """GUI thread: take the snapshot into the state; drawing happens on the timer."""
        if self._closing:
            return
        self.snapshot_count += 1
        self.state.latest = snap
        self.state.status = snap.status
        self.state.updates += 1
        self._update_banner()
        self._update_status_bar()
        self.snapshot_received.emit(snap)

    def _update_banner(self) -> None:
        source = self.source
        kind = source.kind if source is not None else None
        message = banner_message(self.state.status, self.state.latest, kind)
        if message is None:
            self.banner.clear_state()
        else:
            self.banner.show_state(*message)

    # -- drawing --------------------------------------------------------------------------------
    def _on_redraw_timer(self) -> None:
        self.tick_count += 1
        self.replay_bar.update_position()
        if self.state.paused:
            return
        self.refresh_visible()

    def refresh_visible(self, force: bool = False) -> None:
        """Redraw the visible tab from History (never the hidden ones)."""
        widget = self.tabs.currentWidget()
        refresh = getattr(widget, "refresh", None)
        if refresh is None:
            return
        name = self.current_tab_name()
        now = time.monotonic()
        if not force and widget is self.telemetry:
            period = max(self.telemetry.min_redraw_period_s(), DUTY_FACTOR * self._frame_cost_s)
            if now - self._last_frame.get(name, 0.0) < period:
                return
            self._last_frame[name] = now
        try:
            refresh(force=force)
            if widget is self.telemetry:
                # This frame's data work plus the previous paint (this one paints later).
                self._frame_cost_s = time.monotonic() - now + self.telemetry.last_paint_s()
        except Exception as exc:
            # A failing redraw must not stop the window; keep the traceback in the log.
            log.exception("redrawing the %s tab failed", name)
            self.statusBar().showMessage(_t("Display error: %1").replace("%1", str(exc)), 5000)

    # -- view state -----------------------------------------------------------------------------
    def set_selected_gpus(self, gpus: object) -> None:
        chosen = set(gpus) if gpus is not None else None  # type: ignore[call-overload]
        if chosen is not None and chosen >= set(self.state.gpu_indices()):
            chosen = None  # all: new GPUs appear too
        self.state.selected_gpus = chosen
        self.settings.selected_gpus = chosen
        self.telemetry.sync_controls()
        self.refresh_visible(force=True)

    def set_time_window(self, seconds: int) -> None:
        if seconds not in TIME_WINDOWS_S:
            raise ValueError(f"time window {seconds} s is not one of {TIME_WINDOWS_S}")
        self.state.time_window_s = seconds
        self.settings.time_window_s = seconds
        if self.session is not None:  # a report covers what the plots show
            self.session.report_window_s = float(seconds) or None
        for action in self.chrome.choices("time_window"):
            action.setChecked(action.data() == seconds)
        self.telemetry.sync_controls()
        self.refresh_visible(force=True)

    def set_paused(self, paused: bool) -> None:
        self.state.paused = bool(paused)
        self.state.view_end_s = self.state.end_time() if paused else None
        self.action("view.pause").setChecked(self.state.paused)
        self.telemetry.sync_controls()
        if not paused:
            self.refresh_visible(force=True)

    def set_interval(self, seconds: float) -> None:
        if self.session is not None:
            self.session.set_interval(seconds)
        self.interval_s = float(seconds)
        self.settings.interval_s = self.interval_s
        sync_interval_controls(self)  # the menu's and the toolbar's choice agree
        self._update_status_bar()

    def apply_theme(self, name: str) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.theme = apply_theme(app, name)
        self.settings.theme = self.theme.name
        for i in range(self.tabs.count()):
            apply = getattr(self.tabs.widget(i), "apply_theme", None)
            if apply is not None:
                apply(self.theme)
        if hasattr(self, "chrome"):
            for action in self.chrome.choices("theme"):
                action.setChecked(action.data() == self.theme.name)

    # -- recording and replay ---------------------------------------------------------------------
    def open_recording(self, path: str | Path | None = None) -> None:
        """Replay a session file: the sampler now polls a ReplaySource."""
        opened = open_replay(self, path, self.settings.last_dir)
        if opened is not None:
            source, self.settings.last_dir = opened
            self.set_source(source)

    # -- screenshots ----------------------------------------------------------------------------
    def grab_image(self, what: str = "window") -> QPixmap:
        """``what`` = "window" or "tab" (the current tab only)."""
        self.refresh_visible(force=True)
        widget: QWidget = self if what == "window" else self.tabs.currentWidget()
        return widget.grab()

    def save_screenshot(self, path: str | Path | None = None, what: str = "window") -> Path | None:
        """Save the window (or the current tab) as PNG; asks for a file when ``path`` is None."""
        return save_screenshot(self, path, what)

    def copy_screenshot(self) -> None:
        QGuiApplication.clipboard().setPixmap(self.grab_image("window"))
        self.statusBar().showMessage(self.tr("Screenshot copied to the clipboard"), 3000)

    def _on_replay_seeked(self, _t_s: float) -> None:
        self.health.clear(static=False)
        self.state.view_end_s = None  # History restarted: the session's generation moved

    # -- chrome ---------------------------------------------------------------------------------
    def _update_title_and_source(self) -> None:
        if self.session is not None:
            src = self.session.source
            self.status_line.show_source(src.kind, src.label, self.state.system)
            self._update_status_bar()

    def _update_status_bar(self) -> None:
        last_error = self.session.last_error if self.session is not None else None
        self.status_line.show_interval(self.interval_s, last_error)

    def about_text(self) -> str:
        return about_text(self)

    def show_about(self) -> QMessageBox:
        return show_about(self)

    # -- shutdown -------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        # One shutdown: features, benchmark and session stop before one shared deadline.
        first, self._closing = not self._closing, True
        deadline = time.monotonic() + CLOSE_BUDGET_S
        if first:
            self.about_to_close.emit()
        self.redraw_timer.stop()
        self.settings.geometry = self.saveGeometry()
        self.settings.tab = self.current_tab_name() or self.settings.tab
        self.settings.sync()
        for feature in self.features:
            feature.shutdown(deadline)
        # Any worker left (a benchmark run): cancelled, waited for 3 s at most, then detached.
        shutdown_workers(self, min(deadline, time.monotonic() + 3.0))
        if self.bridge is not None:
            self.bridge.close()
        if self.session is not None:
            # Bounded: a poll stuck in the driver does not hold the window open (≤ 1 s).
            self.session.close()
        super().closeEvent(event)
