"""What the shown tab reads at every poll; the rest is read at the source's slower cadence.

The processes' host CPU % and RSS are watched on the Processes tab, GPM's SM / tensor / DRAM
activity on Overview and Telemetry (:meth:`TelemetrySession.watch_processes`,
:meth:`TelemetrySession.watch_gpm`). Nobody looks at them elsewhere, so the source reads them
every few seconds instead of at every poll (issue 21: a poll that costs less than any peer's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gpuprof.telemetry.session import TelemetrySession

__all__ = ["TAB_WATCHES", "TabWatches"]

#: For each watch, the tabs that show what it reads.
TAB_WATCHES: Mapping[str, frozenset[str]] = {
    "processes": frozenset({"processes"}),
    "gpm": frozenset({"overview", "telemetry"}),
}


class TabWatches:
    """The session watches held for the shown tab, given back when another tab is shown."""

    def __init__(self) -> None:
        self._unwatch: dict[str, Callable[[], None]] = {}

    @property
    def held(self) -> frozenset[str]:
        return frozenset(self._unwatch)

    def sync(self, session: TelemetrySession, tab: str) -> None:
        """Hold the watches ``tab`` needs on ``session`` and give back the others."""
        watch_of = {"processes": session.watch_processes, "gpm": session.watch_gpm}
        for what, tabs in TAB_WATCHES.items():
            unwatch = self._unwatch.pop(what, None)
            if tab in tabs:
                self._unwatch[what] = unwatch or watch_of[what]()
            elif unwatch is not None:
                unwatch()
