"""Report timings on one SIMULATED 8×H100 session.

``render`` (the default part): time to assemble and render a report of one 12-minute session
(360 samples): medians in milliseconds of build (stats, charts, findings), HTML, JSON and PDF
(A4), and the output sizes.

``dialog``: File → Export report… in the app on the demo (8 GPUs, its 10 minutes of history):
the longest stretch the GUI event loop was blocked (a 2 ms heartbeat timer's largest gap) from
the trigger until the preview is shown, the time until the dialog is on screen and until the
preview is filled in; medians over ``--repeat`` openings.

Prints one JSON object. Run: ``.venv/bin/python perf/report.py [--repeat 3] [--part dialog]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import setup

#: The heartbeat that measures how long the event loop was blocked, ms.
HEARTBEAT_MS = 2
#: How long to go on watching after the preview is filled in (its first paint, a late block), s.
TAIL_S = 0.3
#: Give up on a preview that never comes, s.
PREVIEW_TIMEOUT_S = 60.0


def render_part(repeat: int) -> dict[str, Any]:
    from gpuprof.ui.report.pdf import ensure_gui_app, write_pdf

    from gpuprof.report import build
    from gpuprof.report.html import render_html
    from gpuprof.report.json import dumps_report

    ensure_gui_app()
    source, snaps = build.demo_snapshots(end_s=1_750_000_000.0)
    times: dict[str, list[float]] = {"build_ms": [], "html_ms": [], "json_ms": [], "pdf_a4_ms": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            t0 = time.perf_counter()
            report = build.from_source(source, snapshots=snaps)
            t1 = time.perf_counter()
            html = render_html(report)
            t2 = time.perf_counter()
            text = dumps_report(report)
            t3 = time.perf_counter()
            pdf = write_pdf(report, Path(tmp) / "r.pdf")
            t4 = time.perf_counter()
            for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                times[key].append(dt * 1000.0)
        sizes = {
            "html_bytes": len(html.encode()),
            "json_bytes": len(text.encode()),
            "pdf_bytes": pdf.stat().st_size,
        }
    return {
        "samples": len(snaps),
        "gpus": 8,
        **{k: round(statistics.median(v), 1) for k, v in times.items()},
        **sizes,
    }


def _demo_window(tmp: Path) -> Any:
    """A shown MainWindow on the demo source with its prefilled history, static facts read."""
    from gpuprof.ui.shell.app import demo_source, make_app
    from gpuprof.ui.shell.main_window import MainWindow
    from gpuprof.ui.shell.settings import UiSettings

    from gpuprof.telemetry.history import History

    app = make_app()
    source, make = demo_source()
    history = History()
    for snap in make():
        history.append(snap)
    w = MainWindow(source, settings=UiSettings(tmp / "ui.ini"), history=history, autostart=False)
    w.resize(1600, 1000)
    w.show()
    deadline = time.monotonic() + 10
    while not w.state.devices and time.monotonic() < deadline:
        app.processEvents()
    w.set_time_window(0)  # the report covers all of the history
    return app, w


def _open_once(app: Any, w: Any) -> dict[str, float]:
    """Trigger File → Export report… from the running event loop; the heartbeat's largest gap
    from then until the preview is filled in (and :data:`TAIL_S` after), and when each came."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    beats: list[float] = []
    marks: dict[str, float] = {}
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(HEARTBEAT_MS)
    heartbeat.timeout.connect(lambda: beats.append(time.perf_counter()))
    loop = QEventLoop()

    def trigger() -> None:
        marks["trigger"] = time.perf_counter()
        w.action("file.export_report").trigger()
        watch()

    def watch() -> None:
        dialog = w.feature("report").dialog
        now = time.perf_counter()
        if "shown" not in marks and dialog is not None and dialog.isVisible():
            marks["shown"] = now
        # Before the preview moved to a worker, it was filled in before the dialog returned.
        if "ready" not in marks and not getattr(dialog, "preview_pending", False):
            marks["ready"] = now
        if "ready" in marks and now - marks["ready"] >= TAIL_S:
            loop.quit()
        elif now - marks["trigger"] > PREVIEW_TIMEOUT_S:
            raise RuntimeError("the preview did not come")
        else:
            QTimer.singleShot(1, watch)

    heartbeat.start()
    QTimer.singleShot(50, trigger)
    loop.exec()
    heartbeat.stop()
    t0 = marks["trigger"]
    around = [t for t in beats if t >= t0 - 0.05]
    # The first beat after the trigger closes the gap the trigger itself opened.
    gaps = [b - a for a, b in itertools.pairwise(around)]
    w.feature("report").dialog.reject()
    app.processEvents()
    return {
        "max_block_ms": max(gaps) * 1000.0,
        "dialog_shown_ms": (marks.get("shown", marks["ready"]) - t0) * 1000.0,
        "preview_ready_ms": (marks["ready"] - t0) * 1000.0,
    }


def dialog_part(repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        app, w = _demo_window(Path(tmp))
        _open_once(app, w)  # warm-up: template compilation, fonts
        runs = [_open_once(app, w) for _ in range(repeat)]
        samples = len(w.session.history)
        w.close()
    out: dict[str, Any] = {"gpus": 8, "samples": samples, "heartbeat_ms": HEARTBEAT_MS}
    for key in runs[0]:
        values = [r[key] for r in runs]
        out[f"{key}_median"] = round(statistics.median(values), 1)
        out[f"{key}_all"] = [round(v, 1) for v in values]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--part", choices=("render", "dialog", "all"), default="render")
    args = parser.parse_args()
    setup(qt=True)
    out: dict[str, Any] = {"repeat": args.repeat, "load_avg_1min": round(os.getloadavg()[0], 2)}
    if args.part in ("render", "all"):
        out.update(render_part(args.repeat))
    if args.part in ("dialog", "all"):
        out["dialog"] = dialog_part(args.repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
