"""The Benchmarks tab as a feature of the window: built when first shown (``--tab benchmarks``,
Alt+6); what a finished run measured here is announced on the window's ``measured_here``
(the Recommend feature ranks with it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuprof.recommend.calibrate import measurements_from_run
from PySide6.QtCore import QCoreApplication

from ..shell.context import LazyTabFeature, WindowContext

if TYPE_CHECKING:
    from gpuprof.bench.runner import BenchRun

    from .tab import BenchTab

__all__ = ["BenchFeature"]


class BenchFeature(LazyTabFeature["BenchTab"]):
    """The lazy Benchmarks tab; its module and widgets are built on first show (they cost about
    0.1 s of start-up, and torch is imported only by a run's worker thread)."""

    name = "benchmarks"

    def __init__(self, context: WindowContext) -> None:
        # The title and tip keep the catalog context they had when the window made the tab.
        super().__init__(
            context,
            QCoreApplication.translate("MainWindow", "Benchmarks"),
            QCoreApplication.translate(
                "MainWindow", "GEMM, memory, P2P, collective and training-step benchmarks (Alt+6)"
            ),
        )

    def _make(self) -> BenchTab:
        from .tab import BenchTab

        tab = BenchTab()
        tab.run_finished.connect(self._on_run_finished)
        return tab

    def _on_run_finished(self, run: BenchRun) -> None:
        measured = measurements_from_run(run)  # {} for the CPU and for unknown GPUs
        if measured:
            self._context.measured_here.emit(measured)

    def shutdown(self, deadline: float) -> None:
        """A run's worker is one of the window's: after every feature, the window's worker
        sweep cancels it and waits (3 s at most) before the shared deadline."""
