"""The main window: tabs, state banner, menus, toolbar, status bar, replay bar, recording.

Data flow (DESIGN.md): the sampler thread polls the source and appends to History; each snapshot
reaches the window through :class:`SamplerBridge` (a queued Qt signal) and only updates the
state. A QTimer at ≤ 20 Hz asks the *visible* tab to redraw from History.
"""

from __future__ import annotations

import contextlib
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuprof import __version__
from gpuprof.errors import GpuprofError
from gpuprof.i18n import LANGUAGES, N_
from gpuprof.recommend.calibrate import local_measurements, measurements_from_run
from gpuprof.telemetry.model import Snapshot, SourceKind, SourceState, SourceStatus
from gpuprof.units import NA, fmt_duration
from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QGuiApplication, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSlider,
    QStyle,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .health_tab import WINDOW_SNAPSHOTS, HealthTab
from .overview import OverviewTab
from .processes import ProcessesTab
from .report_dialog import add_report_action
from .settings import INTERVALS_S, REPLAY_SPEEDS, TIME_WINDOWS_S, UiSettings
from .state import UiState
from .telemetry_tab import TelemetryTab, time_window_label
from .theme import THEMES, apply_theme
from .topology import TopologyTab
from .widgets import Banner
from .workers import SamplerBridge, run_in_thread

__all__ = ["MainWindow", "REDRAW_PERIOD_MS", "status_message"]

#: The redraw timer period: at most 20 frames a second (DESIGN.md, data flow).
REDRAW_PERIOD_MS = 50
#: A plot tab spends at most 1/DUTY_FACTOR of the GUI thread on redraws: a frame that took
#: 40 ms waits DUTY_FACTOR × 40 ms before the next (paint costs about as much again as refresh).
DUTY_FACTOR = 8.0
#: Delay before the demo history is built (ms).
PREFILL_DELAY_MS = 300


def _t(text: str) -> str:
    return QCoreApplication.translate("MainWindow", text)


_DEFAULT_HINTS = {
    SourceState.LIBRARY_NOT_FOUND: N_(
        "Install the NVIDIA driver (it ships libnvidia-ml); "
        "on a machine without an NVIDIA GPU, try --demo."
    ),
    SourceState.DRIVER_NOT_LOADED: N_(
        "Load the driver (sudo modprobe nvidia) or reboot after installing it; check `nvidia-smi`."
    ),
    SourceState.VERSION_MISMATCH: N_(
        "The kernel driver and the user-space library differ: reboot after a driver update."
    ),
    SourceState.NO_PERMISSION: N_("Run as a user in the video group, or ask the administrator."),
    SourceState.NO_GPUS: N_(
        "No NVIDIA GPU is visible. Check CUDA_VISIBLE_DEVICES and `nvidia-smi`."
    ),
    SourceState.GPU_LOST: N_(
        "Check `dmesg` for Xid errors; a GPU that fell off the bus needs a "
        "reset (nvidia-smi -r) or a reboot. The other GPUs keep updating."
    ),
    SourceState.ERROR: N_("See the message; sampling goes on for what still answers."),
}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?:" else text + "."


def _with_hint(text: str, hint: str) -> str:
    return text + "  " + _t("Hint:") + " " + hint


def status_message(status: SourceStatus, lost: tuple[int, ...]) -> tuple[str, str, str] | None:
    """(key, text, severity) for the banner, or ``None`` when all is well."""
    state = status.state
    if lost or state is SourceState.GPU_LOST:
        gpus = ", ".join(str(i) for i in lost) or "?"
        text = _t("GPU %1 lost: it stopped answering.").replace("%1", gpus)
        if status.message:
            text += " " + _sentence(status.message)
        hint = status.hint or _t(_DEFAULT_HINTS[SourceState.GPU_LOST])
        return f"lost:{gpus}", _with_hint(text, hint), "error"
    if state in (SourceState.LIBRARY_NOT_FOUND, SourceState.DRIVER_NOT_LOADED, SourceState.NO_GPUS):
        text = _t("No NVIDIA GPU: showing host telemetry only.")
        if status.message:
            text += " " + _sentence(status.message)
        hint = status.hint or _t(_DEFAULT_HINTS[state])
        return f"nogpu:{state.value}", _with_hint(text, hint), "warning"
    if state is not SourceState.OK:
        text = _sentence(status.message or state.value)
        hint = status.hint or _t(_DEFAULT_HINTS.get(state, ""))
        return f"state:{state.value}", _with_hint(text, hint), "error"
    if not status.process_info_permitted:
        text = _t(
            "No permission to read other users' GPU processes: the process table is incomplete."
        )
        hint = status.hint or _t("Run gpuprof as root or as the processes' owner to see them all.")
        return "noproc", _with_hint(text, hint), "warning"
    return None


def _default_sampler_factory(source: Any, interval_s: float, history: Any) -> Any:
    from gpuprof.telemetry.sampler import Sampler

    return Sampler(source, interval_s=interval_s, history=history)


def _default_history() -> Any:
    from gpuprof.telemetry.history import History

    return History()


class MainWindow(QMainWindow):
    """The gpuprof window. ``source`` is any TelemetrySource; the window owns and closes it.

    ``sampler_factory(source, interval_s, history)`` and ``history_factory()`` are injectable for
    tests; ``autostart=False`` leaves sampling to the caller (``poll_now()``).
    """

    #: Emitted in the GUI thread after each snapshot was taken into the state.
    snapshot_received = Signal(object)

    def __init__(
        self,
        source: Any,
        *,
        settings: UiSettings | None = None,
        interval_s: float | None = None,
        sampler_factory: Callable[[Any, float, Any], Any] = _default_sampler_factory,
        history_factory: Callable[[], Any] = _default_history,
        autostart: bool = True,
    ) -> None:
        super().__init__()
        self.settings = settings or UiSettings()
        self._sampler_factory = sampler_factory
        self._history_factory = history_factory
        self.interval_s = float(interval_s if interval_s is not None else self.settings.interval_s)
        self.source: Any = None
        self.sampler: Any = None
        self.bridge: SamplerBridge | None = None
        self._recording_store: Any = None
        self.recording_path: Path | None = None
        self.snapshot_count = 0
        self.state = UiState(
            history=None,
            time_window_s=self.settings.time_window_s,
            selected_gpus=self.settings.selected_gpus,
        )
        self._tab_names: list[str] = []
        self._lazy_tabs: dict[str, Callable[[], QWidget]] = {}
        self._bench: Any = None
        self._recommend: Any = None
        self._recommend_local: tuple[list[str], Any] | None = None
        self._last_frame: dict[str, float] = {}
        self._frame_cost_s = 0.0
        self._closing = False
        self.prefill_pending = False
        self._live_during_prefill: list[Snapshot] = []
        self._merge_guard = 0
        self.theme = THEMES[self.settings.theme]

        self.banner = Banner(self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.overview = OverviewTab(self.state)
        self.telemetry = TelemetryTab(self.state)
        self.processes = ProcessesTab(self.state)
        self.topology = TopologyTab(self.state)
        self.add_tab(
            self.overview,
            "overview",
            self.tr("Overview"),
            self.tr("A card per GPU and one for the host (Alt+1)"),
        )
        self.add_tab(
            self.telemetry,
            "telemetry",
            self.tr("Telemetry"),
            self.tr("Plots of every metric over time (Alt+2)"),
        )
        self.add_tab(
            self.processes,
            "processes",
            self.tr("Processes"),
            self.tr("Processes using the GPUs (Alt+3)"),
        )
        self.add_tab(
            self.topology,
            "topology",
            self.tr("Topology && details"),
            self.tr("GPU interconnect matrix and static details (Alt+4)"),
        )
        self.health = HealthTab()
        self._health_index = self.add_tab(
            self.health,
            self.health.name,
            self.tr("Health"),
            self.tr(
                "Health findings: PCIe link, power, throttling, ECC, utilization, driver (Alt+5)"
            ),
        )
        self.health.summary_changed.connect(self._on_health_summary)
        self.snapshot_received.connect(self.health.add_snapshot)
        # Built when first shown (or used): their modules and widgets cost ~0.1 s of start-up.
        self._add_lazy_tab(
            "benchmarks",
            self._make_bench,
            self.tr("Benchmarks"),
            self.tr("GEMM, memory, P2P, collective and training-step benchmarks (Alt+6)"),
        )
        self._add_lazy_tab(
            "recommend",
            self._make_recommend,
            self.tr("Recommend"),
            self.tr("Cloud configurations for a workload: fit, time and cost (Alt+7)"),
        )
        self.telemetry.selection_changed.connect(self.set_selected_gpus)
        self.telemetry.time_window_changed.connect(self.set_time_window)
        self.telemetry.pause_toggled.connect(self.set_paused)
        self.telemetry.secondary_mode = self.settings.secondary_series
        self.telemetry.secondary_mode_changed.connect(self._save_secondary_mode)

        self.replay_bar = self._make_replay_bar()
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.replay_bar)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self._make_status_bar()
        self._make_actions()
        self._make_menus_and_toolbar()
        self.report_action = add_report_action(self)

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
        self.set_source(source, autostart=autostart)
        self.redraw_timer.start()

    # -- tabs ---------------------------------------------------------------------------------
    def add_tab(self, widget: QWidget, name: str, title: str, tooltip: str = "") -> int:
        """Add a tab; ``widget.refresh(force=False)`` (if any) is called while it is visible.

        ``widget.apply_theme(theme)`` (if any) is called on theme changes. ``name`` is what
        ``--tab`` and the settings use.
        """
        if name in self._tab_names:
            raise ValueError(f"a tab named {name!r} exists")
        index = self.tabs.addTab(widget, title)
        if tooltip:
            self.tabs.setTabToolTip(index, tooltip)
        self._tab_names.append(name)
        if hasattr(widget, "apply_theme") and hasattr(self, "redraw_timer"):
            widget.apply_theme(self.theme)
        return index

    def _add_lazy_tab(
        self, name: str, make: Callable[[], QWidget], title: str, tooltip: str
    ) -> None:
        self._lazy_tabs[name] = make
        self.add_tab(QWidget(), name, title, tooltip)

    def _realize_tab(self, name: str) -> QWidget:
        """Build a lazy tab now and put it in its place (the current tab stays current)."""
        make = self._lazy_tabs.pop(name)
        widget = make()
        index = self._tab_names.index(name)
        placeholder = self.tabs.widget(index)
        title, tip = self.tabs.tabText(index), self.tabs.tabToolTip(index)
        current = self.tabs.currentIndex()
        self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, widget, title)
            self.tabs.setTabToolTip(index, tip)
            self.tabs.setCurrentIndex(current)
        finally:
            self.tabs.blockSignals(False)
        placeholder.deleteLater()
        if hasattr(widget, "apply_theme"):
            widget.apply_theme(self.theme)
        return widget

    def _make_bench(self) -> QWidget:
        from .bench_tab import BenchTab

        self._bench = BenchTab()
        self._bench.run_finished.connect(self._on_bench_finished)
        return self._bench

    def _make_recommend(self) -> QWidget:
        from .recommend_tab import RecommendTab

        self._recommend = RecommendTab(
            settings=QSettings(str(self.settings.path), QSettings.Format.IniFormat)
        )
        if self._recommend_local is not None:
            names, measured = self._recommend_local
            self._recommend.set_local(names, measurements=measured)
        return self._recommend

    @property
    def bench(self) -> Any:
        """The Benchmarks tab (built on first use)."""
        if self._bench is None:
            self._realize_tab("benchmarks")
        return self._bench

    @property
    def recommend(self) -> Any:
        """The Recommend tab (built on first use)."""
        if self._recommend is None:
            self._realize_tab("recommend")
        return self._recommend

    @property
    def tab_names(self) -> tuple[str, ...]:
        return tuple(self._tab_names)

    def current_tab_name(self) -> str:
        i = self.tabs.currentIndex()
        return self._tab_names[i] if 0 <= i < len(self._tab_names) else ""

    def select_tab(self, name: str, *, strict: bool = True) -> None:
        key = name.strip().lower()
        matches = [n for n in self._tab_names if n == key] or [
            n for n in self._tab_names if n.startswith(key)
        ]
        if not matches:
            if strict:
                raise GpuprofError(
                    _t("unknown tab %1; choose one of: %2")
                    .replace("%1", repr(name))
                    .replace("%2", ", ".join(self._tab_names))
                )
            return
        self.tabs.setCurrentIndex(self._tab_names.index(matches[0]))

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(self._tab_names):
            if self._tab_names[index] in self._lazy_tabs:
                self._realize_tab(self._tab_names[index])
            self.settings.tab = self._tab_names[index]
            self.refresh_visible(force=True)

    # -- source, sampler ------------------------------------------------------------------------
    def set_source(self, source: Any, *, autostart: bool = True) -> None:
        """Replace the source (closing the old one) and start sampling it."""
        self._stop_sampling(close_source=True)
        self.source = source
        history = self._history_factory()
        self.state.history = history
        self.health.clear()
        self.state.latest = None
        self.state.status = SourceStatus()
        self.state.view_end_s = None
        self.state.paused = False
        self.state.generation += 1
        self.snapshot_count = 0
        self.sampler = self._sampler_factory(source, self.interval_s, history)
        self.bridge = SamplerBridge(self.sampler, self)
        self.bridge.snapshot.connect(self.on_snapshot)
        self._update_title_and_source()
        replay = source.kind is SourceKind.REPLAY
        self.replay_bar.setVisible(replay)
        self.replay_play_action.setEnabled(replay)
        if replay:
            source.speed = self.settings.replay_speed
            self._show_replay_playing(not source.paused)
        run_in_thread(self._read_static, self._on_static, self._on_static_error, self)
        if autostart:
            self.sampler.start()

    def _read_static(self) -> tuple[Any, ...]:
        src = self.source
        devices = src.devices()
        # Benchmarks measured here earlier calibrate the recommender for these GPU models.
        measured = local_measurements(gpu_names=[d.name for d in devices]) if devices else {}
        return src, src.system_info(), devices, src.topology(), src.status(), measured

    def _on_static(self, result: object) -> None:
        src, system, devices, topology, status, measured = result  # type: ignore[misc]
        if src is not self.source or self._closing:
            return
        self.state.system = system
        self.state.devices = {d.index: d for d in devices}
        self.health.set_static(devices, system)
        names = [d.name for d in devices]
        self._recommend_local = (names, measured or None)
        if self._recommend is not None:
            self._recommend.set_local(names, measurements=measured or None)
        self.state.topology = topology
        if self.state.latest is None:
            self.state.status = status
            self._update_banner()
        self.state.generation += 1
        self._update_title_and_source()
        self.telemetry.sync_controls()
        self.refresh_visible(force=True)

    def _on_bench_finished(self, run: object) -> None:
        measured = measurements_from_run(run)  # {} for CPU runs and unknown GPUs
        if measured:
            self.recommend.set_local(self.recommend.local, measurements=measured)

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

    def start_sampling(self) -> None:
        if self.sampler is not None:
            self.sampler.start()

    def prefill(self, snapshots: list[Snapshot]) -> None:
        """Put earlier snapshots (same source) into History before live data arrives."""
        for snap in snapshots:
            self.state.history.append(snap)
        if snapshots:
            self.on_snapshot(snapshots[-1])

    def prefill_async(self, make: Callable[[], list[Snapshot]]) -> None:
        """Build earlier snapshots in a thread (the demo's history) and merge them in when ready.

        Live snapshots keep arriving meanwhile; the merged History gets the prefill first and
        then the live ones that are newer, so times stay in order.
        """
        self.prefill_pending = True
        self._live_during_prefill = []
        source = self.source

        def start() -> None:
            if source is self.source and not self._closing:
                run_in_thread(
                    make,
                    lambda snaps: self._on_prefill_done(source, snaps),
                    self._on_prefill_error,
                    self,
                )

        # After the first frames: the pure-Python simulator would hold the GIL during start-up.
        QTimer.singleShot(PREFILL_DELAY_MS, start)

    def _on_prefill_done(self, source: Any, snaps: object) -> None:
        self.prefill_pending = False
        if source is not self.source or self._closing or self.sampler is None:
            return
        history = self._history_factory()
        last_t = float("-inf")
        for snap in snaps:  # type: ignore[attr-defined]
            history.append(snap)
            last_t = snap.time_s
        for snap in self._live_during_prefill:
            if snap.time_s > last_t:
                history.append(snap)
        self._live_during_prefill = []
        self.health.add_snapshots(list(snaps)[-WINDOW_SNAPSHOTS:])  # type: ignore[call-overload]
        self.sampler.history = history
        self.state.history = history
        self._merge_guard = 5
        self.state.generation += 1
        self.refresh_visible(force=True)

    def _on_prefill_error(self, exc: BaseException) -> None:
        self.prefill_pending = False
        self.statusBar().showMessage(
            _t("Could not prepare the demo history: %1").replace("%1", str(exc)), 8000
        )

    def poll_now(self) -> Snapshot:
        """Poll once in the caller's thread and deliver the snapshot (tests, screenshots)."""
        snap = self.sampler.poll_once()
        return snap

    def on_snapshot(self, snap: Snapshot) -> None:
        """GUI thread: take the snapshot into the state; drawing happens on the timer."""
        if self._closing:
            return
        self.snapshot_count += 1
        if self.prefill_pending:
            self._live_during_prefill.append(snap)
        elif self._merge_guard > 0:
            # A poll in flight during the swap went to the old History: carry it over.
            self._merge_guard -= 1
            rng = self.state.history.time_range()
            if rng is not None and snap.time_s > rng[1]:
                self.state.history.append(snap)
        self.state.latest = snap
        self.state.status = snap.status
        self.state.generation += 1
        self._update_banner()
        self._update_status_bar()
        self.snapshot_received.emit(snap)

    def lost_gpus(self) -> tuple[int, ...]:
        lost = set(self.state.status.lost_gpus)
        if self.state.latest is not None:
            lost.update(g.index for g in self.state.latest.gpus if g.lost)
        return tuple(sorted(lost))

    def _update_banner(self) -> None:
        message = status_message(self.state.status, self.lost_gpus())
        if (
            self.state.latest is not None
            and not self.state.latest.gpus
            and message is None
            and self.source is not None
            and self.source.kind is not SourceKind.REPLAY
        ):
            message = (
                "nogpu",
                _with_hint(
                    _t("No NVIDIA GPU: showing host telemetry only."),
                    _t(_DEFAULT_HINTS[SourceState.NO_GPUS]),
                ),
                "warning",
            )
        if message is None:
            self.banner.clear_state()
        else:
            self.banner.show_state(*message)

    def _stop_sampling(self, *, close_source: bool) -> None:
        if self.bridge is not None:
            self.bridge.close()
            self.bridge.snapshot.disconnect(self.on_snapshot)
            self.bridge.deleteLater()
            self.bridge = None
        if self.sampler is not None:
            if self.sampler.recording:
                self.stop_recording()
            self.sampler.stop()
            self.sampler = None
        if close_source and self.source is not None:
            # Closing a broken source must not block the exit.
            with contextlib.suppress(Exception):
                self.source.close()
            self.source = None

    # -- drawing --------------------------------------------------------------------------------
    def _on_redraw_timer(self) -> None:
        self.tick_count += 1
        self._update_replay_bar()
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
        for action in self.window_actions.actions():
            action.setChecked(action.data() == seconds)
        self.telemetry.sync_controls()
        self.refresh_visible(force=True)

    def _save_secondary_mode(self, mode: str) -> None:
        self.settings.secondary_series = mode

    def set_paused(self, paused: bool) -> None:
        self.state.paused = bool(paused)
        self.state.view_end_s = self.state.end_time() if paused else None
        self.pause_action.setChecked(self.state.paused)
        self.telemetry.sync_controls()
        if not paused:
            self.refresh_visible(force=True)

    def set_interval(self, seconds: float) -> None:
        self.interval_s = float(seconds)
        self.settings.interval_s = self.interval_s
        if self.sampler is not None:
            self.sampler.set_interval(self.interval_s)
        for action in self.interval_actions.actions():
            action.setChecked(abs(float(action.data()) - self.interval_s) < 1e-9)
        self._update_status_bar()

    def apply_theme(self, name: str) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.theme = apply_theme(app, name)
        self.settings.theme = self.theme.name
        for i in range(self.tabs.count()):
            widget = self.tabs.widget(i)
            if hasattr(widget, "apply_theme"):
                widget.apply_theme(self.theme)
        if hasattr(self, "theme_actions"):
            for action in self.theme_actions.actions():
                action.setChecked(action.data() == self.theme.name)

    # -- recording ------------------------------------------------------------------------------
    def start_recording(self, path: str | Path | None = None) -> Path | None:
        """Record every snapshot to a session file; asks for a file name when ``path`` is None."""
        if self.sampler is None or self.sampler.recording:
            return None
        if path is None:
            from gpuprof.paths import data_dir

            default = data_dir() / time.strftime("session-%Y%m%d-%H%M%S.gpuprof")
            chosen, _ = QFileDialog.getSaveFileName(
                self, self.tr("Record to"), str(default), self.tr("gpuprof sessions (*.gpuprof)")
            )
            if not chosen:
                return None
            path = chosen
        from gpuprof.telemetry.store import SessionStore

        out = Path(path)
        try:
            store = SessionStore.create(out, source=self.source, overwrite=True)
        except (OSError, GpuprofError) as exc:
            QMessageBox.warning(self, self.tr("Recording failed"), str(exc))
            return None
        self.sampler.start_recording(store)
        self._recording_store = store
        self.recording_path = out
        self._sync_recording_ui()
        return out

    def stop_recording(self) -> Path | None:
        if self.sampler is None or not self.sampler.recording:
            return None
        store = self.sampler.stop_recording() or self._recording_store
        if store is not None:
            store.close()
        self._recording_store = None
        path, self.recording_path = self.recording_path, None
        self._sync_recording_ui()
        if path is not None:
            self.statusBar().showMessage(
                self.tr("Saved recording %1").replace("%1", str(path)), 8000
            )
        return path

    def toggle_recording(self) -> None:
        if self.sampler is not None and self.sampler.recording:
            self.stop_recording()
        else:
            self.start_recording()

    def _sync_recording_ui(self) -> None:
        recording = self.recording_path is not None
        self.record_action.blockSignals(True)
        self.record_action.setChecked(recording)
        self.record_action.blockSignals(False)
        self.record_action.setText(
            self.tr("Stop recording") if recording else self.tr("Start recording")
        )
        self.recording_label.setVisible(recording)
        if recording:
            self.recording_label.setToolTip(str(self.recording_path))

    def open_recording(self, path: str | Path | None = None) -> None:
        """Replay a session file: the sampler now polls a ReplaySource."""
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(
                self,
                self.tr("Open recording"),
                self.settings.last_dir,
                self.tr("gpuprof sessions (*.gpuprof *.sqlite);;All files (*)"),
            )
            if not chosen:
                return
            path = chosen
        from gpuprof.telemetry.sources import ReplaySource

        try:
            source = ReplaySource(path)
        except GpuprofError as exc:
            QMessageBox.warning(self, self.tr("Cannot open recording"), str(exc))
            return
        self.settings.last_dir = str(Path(path).parent)
        self.set_source(source)

    # -- screenshots ----------------------------------------------------------------------------
    def grab_image(self, what: str = "window") -> QPixmap:
        """``what`` = "window" or "tab" (the current tab only)."""
        self.refresh_visible(force=True)
        widget: QWidget = self if what == "window" else self.tabs.currentWidget()
        return widget.grab()

    def save_screenshot(self, path: str | Path | None = None, what: str = "window") -> Path | None:
        if path is None:
            default = Path(self.settings.last_dir or ".") / f"gpuprof-{self.current_tab_name()}.png"
            chosen, _ = QFileDialog.getSaveFileName(
                self, self.tr("Save screenshot"), str(default), self.tr("PNG images (*.png)")
            )
            if not chosen:
                return None
            path = chosen
        out = Path(path)
        if not self.grab_image(what).save(str(out), "PNG"):
            raise GpuprofError(_t("could not write %1").replace("%1", str(out)))
        self.statusBar().showMessage(self.tr("Saved %1").replace("%1", str(out)), 5000)
        return out

    def copy_screenshot(self) -> None:
        QGuiApplication.clipboard().setPixmap(self.grab_image("window"))
        self.statusBar().showMessage(self.tr("Screenshot copied to the clipboard"), 3000)

    # -- replay bar -----------------------------------------------------------------------------
    def _make_replay_bar(self) -> QWidget:
        bar = QWidget(self)
        row = QHBoxLayout(bar)
        row.setContentsMargins(8, 4, 8, 4)
        badge = QLabel(self.tr("REPLAY"), bar)
        badge.setObjectName("replay")
        self.replay_play_action = QAction(self.tr("Pause replay"), self)
        self.replay_play_action.setShortcut(QKeySequence(Qt.Key.Key_Space))
        self.replay_play_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.replay_play_action.setEnabled(False)
        self.replay_play_action.triggered.connect(self.toggle_replay_playing)
        self.addAction(self.replay_play_action)
        self.replay_play_button = QToolButton(bar)
        self.replay_play_button.setDefaultAction(self.replay_play_action)
        self.replay_play_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.replay_speed_combo = QComboBox(bar)
        for speed in REPLAY_SPEEDS:
            self.replay_speed_combo.addItem(f"{speed:g}×", speed)
        self.replay_speed_combo.setToolTip(self.tr("Replay speed, × the recorded pace"))
        self.replay_speed_combo.setCurrentIndex(REPLAY_SPEEDS.index(self.settings.replay_speed))
        self.replay_speed_combo.currentIndexChanged.connect(
            lambda i: self.set_replay_speed(REPLAY_SPEEDS[i])
        )
        self.replay_slider = QSlider(Qt.Orientation.Horizontal, bar)
        self.replay_slider.setRange(0, 1000)
        self.replay_slider.setToolTip(self.tr("Position in the recording; drag to seek"))
        self.replay_slider.sliderReleased.connect(self._on_slider_released)
        self.replay_slider.actionTriggered.connect(self._on_slider_action)
        self.replay_position = QLabel("", bar)
        self.replay_position.setMinimumWidth(140)
        self.replay_position.setToolTip(self.tr("Position / length of the recording"))
        row.addWidget(badge)
        row.addWidget(self.replay_play_button)
        row.addWidget(self.replay_slider, 1)
        row.addWidget(self.replay_position)
        row.addWidget(self.replay_speed_combo)
        bar.hide()
        self._show_replay_playing(True)
        return bar

    def _replay_source(self) -> Any:
        src = self.source
        return src if src is not None and src.kind is SourceKind.REPLAY else None

    @property
    def replay_playing(self) -> bool:
        src = self._replay_source()
        return src is not None and not src.paused

    def set_replay_playing(self, playing: bool) -> None:
        """Play or pause the replay; playing from the end starts again from the beginning."""
        src = self._replay_source()
        if src is None:
            return
        if playing:
            if src.finished:
                self.seek_replay(0.0)
            src.resume()
            if self.sampler is not None:
                self.sampler.resume()
        else:
            src.pause()
            if self.sampler is not None:
                self.sampler.pause()
        self._show_replay_playing(playing)
        self._update_replay_bar()

    def toggle_replay_playing(self) -> None:
        self.set_replay_playing(not self.replay_playing)

    def _show_replay_playing(self, playing: bool) -> None:
        icon = (
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.replay_play_action.setIcon(self.style().standardIcon(icon))
        self.replay_play_action.setText(
            self.tr("Pause replay") if playing else self.tr("Play replay")
        )
        tip = (
            self.tr("Pause the replay (Space)")
            if playing
            else self.tr("Play the replay from here (Space)")
        )
        self.replay_play_action.setToolTip(tip)
        self.replay_play_action.setStatusTip(tip)

    def set_language(self, code: str) -> None:
        """View → Language: remembered, used from the next start (texts are made once)."""
        self.settings.language = code
        for a in self.language_actions.actions():
            a.setChecked(a.data() == code)
        self.statusBar().showMessage(
            self.tr("The language changes at the next start of gpuprof"), 8000
        )

    def set_replay_speed(self, speed: float) -> None:
        """Replay at ``speed`` × the recorded pace (remembered for the next replay)."""
        self.settings.replay_speed = speed
        index = REPLAY_SPEEDS.index(speed) if speed in REPLAY_SPEEDS else -1
        if index >= 0 and self.replay_speed_combo.currentIndex() != index:
            self.replay_speed_combo.setCurrentIndex(index)
        src = self._replay_source()
        if src is not None:
            src.speed = speed

    def _on_slider_action(self, action: int) -> None:
        # Clicks and keys on the slider (not drags) seek when the value has moved.
        if action != QSlider.SliderAction.SliderMove:
            QTimer.singleShot(0, self._on_slider_released)

    def _on_slider_released(self) -> None:
        src = self._replay_source()
        if src is None:
            return
        self.seek_replay(src.duration_s * self.replay_slider.value() / 1000.0)

    def seek_replay(self, t_s: float) -> None:
        """Jump to ``t_s`` seconds into the recording; the plots restart from there."""
        src = self._replay_source()
        if src is None:
            return
        src.seek(t_s)
        self.health.clear(static=False)
        self.state.view_end_s = None
        if src.paused and self.sampler is not None:
            self.poll_now()  # paused: show the new position at once
        self._update_replay_bar()

    def _update_replay_bar(self) -> None:
        src = self._replay_source()
        if src is None or self.replay_slider.isSliderDown():
            return
        if src.finished and not src.paused:
            self.set_replay_playing(False)  # stop at the end instead of repeating the last sample
            return
        duration = max(float(src.duration_s), 1e-9)
        pos = float(src.position_s)
        self.replay_slider.blockSignals(True)
        self.replay_slider.setValue(round(1000 * min(pos / duration, 1.0)))
        self.replay_slider.blockSignals(False)
        text = f"{fmt_duration(pos)} / {fmt_duration(src.duration_s)}"
        if src.finished:
            text += "  " + self.tr("(end)")
        self.replay_position.setText(text)

    # -- chrome ---------------------------------------------------------------------------------
    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        self.source_badge = QLabel(self)
        self.source_label = QLabel(self)
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setToolTip(self.tr("Where the telemetry comes from"))
        self.interval_label = QLabel(self)
        self.interval_label.setToolTip(self.tr("Sampling interval (View → Sampling interval)"))
        self.driver_label = QLabel(self)
        self.driver_label.setTextFormat(Qt.TextFormat.PlainText)
        self.driver_label.setToolTip(self.tr("NVIDIA driver and the CUDA version it supports"))
        self.recording_label = QLabel(self.tr("● REC"), self)
        self.recording_label.setObjectName("recording")
        self.recording_label.hide()
        bar.addWidget(self.source_badge)
        bar.addWidget(self.source_label)
        bar.addPermanentWidget(self.recording_label)
        bar.addPermanentWidget(self.interval_label)
        bar.addPermanentWidget(self.driver_label)

    def _update_title_and_source(self) -> None:
        src = self.source
        if src is None:
            return
        kind = src.kind
        badge = {
            SourceKind.SIMULATED: ("simulated", self.tr("SIMULATED")),
            SourceKind.REPLAY: ("replay", self.tr("REPLAY")),
        }.get(kind)
        if badge is not None:
            self.source_badge.setObjectName(badge[0])
            self.source_badge.setText(badge[1])
            self.source_badge.style().unpolish(self.source_badge)
            self.source_badge.style().polish(self.source_badge)
            self.source_badge.show()
        else:
            self.source_badge.hide()
        label = str(getattr(src, "label", kind.value))
        self.source_label.setText(label)
        host = self.state.system.hostname
        parts = ["gpuprof"]
        if kind is SourceKind.SIMULATED:
            parts.append(self.tr("SIMULATED"))
        parts.append(
            label if kind is not SourceKind.SIMULATED else label.replace("SIMULATED — ", "")
        )
        if host and kind is SourceKind.NVML:
            parts.append(host)
        self.setWindowTitle(" — ".join(dict.fromkeys(p for p in parts if p)))
        system = self.state.system
        self.driver_label.setText(
            self.tr("Driver %1 · CUDA %2")
            .replace("%1", system.driver_version or NA)
            .replace("%2", system.cuda_driver_version or NA)
        )
        self._update_status_bar()

    def _update_status_bar(self) -> None:
        text = self.tr("every %1 s").replace("%1", f"{self.interval_s:g}")
        err = getattr(self.sampler, "last_error", None) if self.sampler is not None else None
        if err:
            text += "  ⚠"
            self.interval_label.setToolTip(
                self.tr("Last sampling error: %1").replace("%1", str(err))
            )
        self.interval_label.setText(text)

    def _make_actions(self) -> None:
        def action(
            text: str,
            slot: Callable[..., Any],
            shortcut: str | QKeySequence.StandardKey | None,
            tip: str,
            checkable: bool = False,
        ) -> QAction:
            a = QAction(text, self)
            if shortcut is not None:
                a.setShortcut(QKeySequence(shortcut))
            a.setToolTip(tip)
            a.setStatusTip(tip)
            a.setCheckable(checkable)
            (a.toggled if checkable else a.triggered).connect(slot)
            self.addAction(a)
            return a

        self.open_action = action(
            self.tr("&Open recording…"),
            lambda: self.open_recording(),
            QKeySequence.StandardKey.Open,
            self.tr("Replay a recorded session (Ctrl+O)"),
        )
        self.record_action = action(
            self.tr("Start recording"),
            lambda _=False: self.toggle_recording(),
            "Ctrl+R",
            self.tr("Start or stop recording to a session file (Ctrl+R)"),
            checkable=True,
        )
        self.save_window_action = action(
            self.tr("Save screenshot of the &window…"),
            lambda: self.save_screenshot(what="window"),
            "Ctrl+S",
            self.tr("Save the whole window as PNG (Ctrl+S)"),
        )
        self.save_tab_action = action(
            self.tr("Save screenshot of the current &tab…"),
            lambda: self.save_screenshot(what="tab"),
            "Ctrl+Shift+S",
            self.tr("Save the current tab as PNG (Ctrl+Shift+S)"),
        )
        self.copy_action = action(
            self.tr("&Copy screenshot"),
            self.copy_screenshot,
            "Ctrl+Shift+C",
            self.tr("Copy the window to the clipboard (Ctrl+Shift+C)"),
        )
        self.quit_action = action(
            self.tr("&Quit"),
            self.close,
            QKeySequence.StandardKey.Quit,
            self.tr("Close gpuprof (Ctrl+Q)"),
        )
        self.pause_action = action(
            self.tr("&Pause plots"),
            self.set_paused,
            "Ctrl+P",
            self.tr("Freeze the plots; sampling goes on (Ctrl+P)"),
            checkable=True,
        )
        self.about_action = action(
            self.tr("&About gpuprof"),
            self.show_about,
            "F1",
            self.tr("Versions of gpuprof, Qt, the driver and CUDA (F1)"),
        )

        def choices(items: Any, checked: Any, slot: Callable[[Any], None]) -> QActionGroup:
            """A group of exclusive checkable actions: ``items`` are (value, title, tip[, shortcut])."""
            group = QActionGroup(self)
            for value, title, tip, *shortcut in items:
                a = QAction(title, group)
                a.setCheckable(True)
                a.setData(value)
                a.setChecked(checked(value))
                a.setToolTip(tip)
                if shortcut:
                    a.setShortcut(QKeySequence(shortcut[0]))
                    self.addAction(a)
                a.triggered.connect(lambda _=False, v=value: slot(v))
            return group

        theme_tip = self.tr("Switch the colour theme (Ctrl+T toggles)")
        self.theme_actions = choices(
            [
                ("light", self.tr("&Light theme"), theme_tip),
                ("dark", self.tr("&Dark theme"), theme_tip),
            ],
            lambda name: name == self.theme.name,
            self.apply_theme,
        )
        self.toggle_theme_action = action(
            self.tr("Toggle theme"),
            lambda: self.apply_theme("dark" if self.theme.name == "light" else "light"),
            "Ctrl+T",
            self.tr("Switch between light and dark (Ctrl+T)"),
        )
        self.interval_actions = choices(
            [
                (
                    s,
                    self.tr("%1 s").replace("%1", f"{s:g}"),
                    self.tr("Poll the GPUs every %1 s").replace("%1", f"{s:g}"),
                )
                for s in INTERVALS_S
            ],
            lambda s: abs(s - self.interval_s) < 1e-9,
            self.set_interval,
        )
        language_tip = self.tr("Language of the app; takes effect at the next start")
        self.language_actions = choices(
            [
                (code, title, language_tip)
                for code, title in (
                    ("auto", self.tr("Automatic (from the system)")),
                    *LANGUAGES.items(),
                )
            ],
            lambda code: code == self.settings.language,
            self.set_language,
        )
        self.window_actions = choices(
            [
                (
                    s,
                    time_window_label(s),
                    self.tr("Show this much history in the plots (Ctrl+%1)").replace("%1", str(n)),
                    f"Ctrl+{n}",
                )
                for n, s in enumerate(TIME_WINDOWS_S, start=1)
            ],
            lambda s: s == self.state.time_window_s,
            self.set_time_window,
        )

        for n in range(1, 10):
            a = QAction(self)
            a.setShortcut(QKeySequence(f"Alt+{n}"))
            a.triggered.connect(
                lambda _=False, i=n - 1: (
                    self.tabs.setCurrentIndex(i) if i < self.tabs.count() else None
                )
            )
            self.addAction(a)

    def _make_menus_and_toolbar(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.record_action)
        file_menu.addSeparator()
        file_menu.addAction(self.save_window_action)
        file_menu.addAction(self.save_tab_action)
        file_menu.addAction(self.copy_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        view_menu = bar.addMenu(self.tr("&View"))
        view_menu.addActions(self.theme_actions.actions())
        view_menu.addAction(self.toggle_theme_action)
        view_menu.addSeparator()
        interval_menu = view_menu.addMenu(self.tr("Sampling &interval"))
        interval_menu.addActions(self.interval_actions.actions())
        window_menu = view_menu.addMenu(self.tr("Time &window"))
        window_menu.addActions(self.window_actions.actions())
        view_menu.addAction(self.pause_action)
        view_menu.addSeparator()
        language_menu = view_menu.addMenu(self.tr("&Language"))
        language_menu.addActions(self.language_actions.actions())
        help_menu = bar.addMenu(self.tr("&Help"))
        help_menu.addAction(self.about_action)

        tools = QToolBar(self.tr("Main"), self)
        tools.setObjectName("mainToolbar")
        tools.setMovable(False)
        tools.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        tools.addAction(self.open_action)
        tools.addAction(self.record_action)
        tools.addAction(self.save_window_action)
        tools.addSeparator()
        tools.addAction(self.pause_action)
        interval_label = QLabel(self.tr(" Interval "), tools)
        self.interval_combo = QComboBox(tools)
        for seconds in INTERVALS_S:
            self.interval_combo.addItem(self.tr("%1 s").replace("%1", f"{seconds:g}"), seconds)
        if self.interval_combo.findData(self.interval_s) < 0:
            self.interval_combo.addItem(
                self.tr("%1 s").replace("%1", f"{self.interval_s:g}"), self.interval_s
            )
        self.interval_combo.setCurrentIndex(self.interval_combo.findData(self.interval_s))
        self.interval_combo.setToolTip(self.tr("Sampling interval"))
        interval_label.setToolTip(self.interval_combo.toolTip())
        self.interval_combo.currentIndexChanged.connect(
            lambda i: self.set_interval(float(self.interval_combo.itemData(i)))
        )
        tools.addWidget(interval_label)
        tools.addWidget(self.interval_combo)
        tools.addSeparator()
        tools.addAction(self.toggle_theme_action)
        self.addToolBar(tools)
        self.toolbar = tools

    def about_text(self) -> str:
        import numpy
        import pyqtgraph
        import PySide6

        system = self.state.system
        lines = [
            f"gpuprof {__version__}",
            _t("A desktop GPU profiler, microbenchmarks and cloud recommender."),
            "",
            f"Python {platform.python_version()} · Qt {PySide6.QtCore.qVersion()} · "
            f"PySide6 {PySide6.__version__} · pyqtgraph {pyqtgraph.__version__} · "
            f"numpy {numpy.__version__}",
            _t("NVIDIA driver %1 · CUDA %2 · NVML %3")
            .replace("%1", system.driver_version or NA)
            .replace("%2", system.cuda_driver_version or NA)
            .replace("%3", system.nvml_version or NA),
            _t("Source: %1").replace("%1", str(getattr(self.source, "label", NA))),
        ]
        return "\n".join(lines)

    def show_about(self) -> QMessageBox:
        box = QMessageBox(self)
        box.setWindowTitle(self.tr("About gpuprof"))
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(self.about_text())
        box.setIcon(QMessageBox.Icon.Information)
        box.open()  # not exec(): never blocks the redraw timer or a test
        return box

    # -- shutdown -------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        self.redraw_timer.stop()
        self.settings.geometry = self.saveGeometry()
        self.settings.tab = self.current_tab_name() or self.settings.tab
        self.settings.sync()
        if self._bench is not None:
            self._bench.shutdown()
        self._stop_sampling(close_source=True)
        super().closeEvent(event)
