"""The status bar's labels and the window title: the source (with its SIMULATED or REPLAY
badge), the sampling interval (⚠ after a failed poll), the driver and CUDA versions."""

from __future__ import annotations

from gpuprof.telemetry.model import SourceKind, SystemInfo
from gpuprof.units import NA
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QWidget

__all__ = ["StatusLine"]


class StatusLine(QObject):
    """Labels in ``window``'s status bar (a feature's, such as the REC mark, go before them)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        bar = window.statusBar()
        self.badge = QLabel(window)
        self.source = QLabel(window)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setToolTip(self.tr("Where the telemetry comes from"))
        self.interval = QLabel(window)
        self.interval.setToolTip(self.tr("Sampling interval (View → Sampling interval)"))
        self.driver = QLabel(window)
        self.driver.setTextFormat(Qt.TextFormat.PlainText)
        self.driver.setToolTip(self.tr("NVIDIA driver and the CUDA version it supports"))
        bar.addWidget(self.badge)
        bar.addWidget(self.source)
        bar.addPermanentWidget(self.interval)
        bar.addPermanentWidget(self.driver)

    def add(self, widget: QWidget) -> None:
        """A feature's label (the REC mark), on the right, before the interval and the driver."""
        # Qt numbers the normal widgets (badge, source) first, then the permanent ones.
        self._window.statusBar().insertPermanentWidget(2, widget)

    def show_source(self, kind: SourceKind, label: str, system: SystemInfo) -> None:
        """The badge, the source label, the driver and the window title."""
        badge = {
            SourceKind.SIMULATED: ("simulated", self.tr("SIMULATED")),
            SourceKind.REPLAY: ("replay", self.tr("REPLAY")),
        }.get(kind)
        if kind is SourceKind.REPLAY and "SIMULATED" in label:  # a recording of the demo
            badge = ("simulated", self.tr("REPLAY · SIMULATED"))
        if badge is not None:
            self.badge.setObjectName(badge[0])
            self.badge.setText(badge[1])
            self.badge.style().unpolish(self.badge)
            self.badge.style().polish(self.badge)
            self.badge.show()
        else:
            self.badge.hide()
        self.source.setText(label)
        parts = ["gpuprof"]
        if kind is SourceKind.SIMULATED:
            parts.append(self.tr("SIMULATED"))
        parts.append(
            label if kind is not SourceKind.SIMULATED else label.replace("SIMULATED — ", "")
        )
        # A remote source's label names its host already ("NVML on node-3 via http://…").
        local = kind in (SourceKind.NVML, SourceKind.NONE)
        if system.hostname and local and system.hostname not in label:
            parts.append(system.hostname)
        self._window.setWindowTitle(" — ".join(dict.fromkeys(p for p in parts if p)))
        self.driver.setText(
            self.tr("Driver %1 · CUDA %2")
            .replace("%1", system.driver_version or NA)
            .replace("%2", system.cuda_driver_version or NA)
        )

    def show_interval(self, interval_s: float, last_error: str | None) -> None:
        text = self.tr("every %1 s").replace("%1", f"{interval_s:g}")
        if last_error:
            text += "  ⚠"
            self.interval.setToolTip(
                self.tr("Last sampling error: %1").replace("%1", str(last_error))
            )
        self.interval.setText(text)
