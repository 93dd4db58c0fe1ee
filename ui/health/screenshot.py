"""The Health tab's screenshot (docs/screenshot-health.png), made offscreen from the simulator.

Kept apart from :mod:`.tab` so that the tab does not import the app module (which
imports the main window, which imports the tab).
"""

from __future__ import annotations

from ..shell.png import write_png
from .tab import WINDOW_SNAPSHOTS, HealthTab

__all__ = ["render_screenshot"]


def render_screenshot(
    out: str, *, size: tuple[int, int] = (1600, 1000), theme: str = "light", select_row: int = 0
) -> str:
    """Offscreen PNG of the tab fed with the demo machine inside its power-cap episode
    (docs/screenshot-health.png): ``python -m gpuprof.ui.health.screenshot OUT.png [light|dark] [ROW]``.
    """
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpuprof.telemetry.sources import THERMAL_S, SimulatedSource

    from ..shell.app import make_app
    from ..shell.theme import apply_theme

    app = make_app()
    th = apply_theme(app, theme)
    t = [0.0]
    src = SimulatedSource("h100x8", clock=lambda: t[0], start_s=0.0)
    tab = HealthTab()
    tab.apply_theme(th)
    tab.resize(*size)
    tab.set_static(src.devices(), src.system_info())
    for k in range(WINDOW_SNAPSHOTS):  # one a second, ending inside the thermal slowdown
        t[0] = THERMAL_S[1] - WINDOW_SNAPSHOTS + k
        tab.add_snapshot(src.poll())
    tab.show()
    tab.select_finding(select_row)
    for _ in range(5):
        app.processEvents()
    write_png(tab.grab(), out)
    tab.close()
    return out


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    render_screenshot(
        args[0] if args else "docs/screenshot-health.png",
        theme=args[1] if len(args) > 1 else "light",
        select_row=int(args[2]) if len(args) > 2 else 0,
    )
