"""The Recommend tab as a feature of the window: built when first shown (``--tab recommend``,
Alt+7), told this machine's GPUs when the static facts arrive (``static_received``) and what a
benchmark run measured here (``measured_here``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSettings

from ..shell.context import LazyTabFeature, WindowContext
from ..shell.state import Measurements, StaticFacts

if TYPE_CHECKING:
    from .tab import RecommendTab

__all__ = ["RecommendFeature"]


class RecommendFeature(LazyTabFeature["RecommendTab"]):
    """The lazy Recommend tab; its module and widgets are built on first show (they cost about
    0.1 s of start-up)."""

    name = "recommend"

    def __init__(self, context: WindowContext) -> None:
        # This machine's GPU names and what was measured here, for a tab built later.
        self._local: tuple[list[str], Measurements | None] | None = None
        # The title and tip keep the catalog context they had when the window made the tab.
        super().__init__(
            context,
            QCoreApplication.translate("MainWindow", "Recommend"),
            QCoreApplication.translate(
                "MainWindow", "Cloud configurations for a workload: fit, time and cost (Alt+7)"
            ),
        )
        context.static_received.connect(self._on_static)
        context.measured_here.connect(self.add_measurements)

    def _make(self) -> RecommendTab:
        from .tab import RecommendTab

        path = str(self._context.settings.path)
        tab = RecommendTab(settings=QSettings(path, QSettings.Format.IniFormat))
        if self._local is not None:
            names, measured = self._local
            tab.set_local(names, measurements=measured)
        for line in tab.settings_problems[-1:]:
            self._context.show_message(line, 15000)
        return tab

    def _on_static(self, facts: StaticFacts) -> None:
        names = [d.name for d in facts.devices]
        self._local = (names, facts.measured or None)
        if self.tab is not None:
            self.tab.set_local(names, measurements=facts.measured or None)

    def add_measurements(self, measured: Measurements) -> None:
        """A benchmark run here measured ``measured``: rank with it (the tab is built for it)."""
        tab = self.widget()
        tab.set_local(tab.local, measurements=measured)

    def shutdown(self, deadline: float) -> None:
        """Nothing of its own to wait for: ranking runs in the GUI thread, a price update in a
        daemon thread that cannot hold up the exit (:mod:`.price_update`), and a trace
        simulation's worker is one of the window's (its worker sweep cancels it after every
        feature, :mod:`.trace_run`)."""
