"""Memory soak: the app on the demo source for a long while; does its memory stay flat?

Prints one JSON object (and writes it to ``--out`` if given). Runs offscreen::

    .venv/bin/python perf/soak.py                 # 30 minutes (the target's set-up)
    .venv/bin/python perf/soak.py --minutes 3     # a quick look

Set-up (issue 11): the window of ``gpuprof --demo`` (8 simulated GPUs, its 10 minutes of
history) sampled every 0.1 s, the visible tab changing every ``--tab-every`` seconds so that each
tab draws, and File → Export report… opened and closed every ``--report-every`` seconds. The
resident set size (RSS) is read every ``--rss-every`` seconds. History's rings have a fixed size
and the report dialog keeps nothing, so after the warm-up (the first ``--warmup`` seconds, by
default a tenth of the run, at least a minute and one round of the tabs: the rings, caches,
fonts and the lazily built tabs) the RSS
should stay flat. ``left_per_report_mb_median``: the median step of the RSS read just before
each report opening (from the second on), i.e. what one opening leaves behind for good. Target: growth after the warm-up ≤ 10 MB. ``--trim`` hands freed heap back
to the OS before each reading (glibc keeps the pages of a closed report's images otherwise), so
that what grows is memory still in use.

Measured on the shared 2-core machine (load 2-10 while other work ran): 30 minutes at 0.1 s,
``--report-every 0``, 17,849 snapshots: before the window trimmed the heap (ui/shell/heap.py) 21.5 MB
of growth after the warm-up; after it **9.3 MB** (329.1 → 338.4 MB after a 270 s warm-up;
slope 31.7 MB/h; peak 346.2 MB): the target is met, with little room.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import setup

setup(qt=True)

TARGET_MB = 10.0
MB = 1024.0 * 1024.0


def _rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / MB


def _slope_mb_per_h(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) points, in MB per hour."""
    if len(points) < 2:
        return 0.0
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx * 3600.0


def soak(
    minutes: float,
    *,
    interval_s: float = 0.1,
    warmup_s: float | None = None,
    rss_every_s: float = 10.0,
    tab_every_s: float = 30.0,
    report_every_s: float = 300.0,
    trim: bool = False,
) -> dict[str, object]:
    """Run the demo window for ``minutes``; the RSS over time and its growth after warm-up."""
    from gpuprof.ui.shell.app import build_window, make_app
    from gpuprof.ui.shell.heap import trim_heap
    from gpuprof.ui.shell.settings import UiSettings
    from PySide6.QtCore import QTimer

    duration_s = minutes * 60.0
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="gpuprof-soak-") as tmp:
        args = argparse.Namespace(demo=True, replay=None, interval=interval_s, tab="telemetry")
        window = build_window(args, settings=UiSettings(Path(tmp) / "ui.ini"))
        if warmup_s is None:
            # At least one round of the tabs: the lazy ones (Benchmarks, Recommend and its
            # catalog) are built on their first showing, once.
            cycle_s = tab_every_s * (window.tabs.count() + 1) if tab_every_s > 0 else 0.0
            warmup_s = max(60.0, duration_s / 10.0, cycle_s)
        warmup_s = min(warmup_s, duration_s / 2.0)
        window.resize(1600, 1000)
        window.show()
        start = time.monotonic()
        points: list[tuple[float, float]] = [(0.0, _rss_mb())]
        counts = {"tab_changes": 0, "reports": 0}

        trimmed = [False]

        def sample() -> None:
            if trim:
                # With --trim each reading comes after a trim: growth is memory still referenced.
                trimmed[0] = trim_heap()
            points.append((time.monotonic() - start, _rss_mb()))

        def next_tab() -> None:
            window.tabs.setCurrentIndex((window.tabs.currentIndex() + 1) % window.tabs.count())
            counts["tab_changes"] += 1

        before_reports: list[float] = []

        def report() -> None:
            # With the last dialog closed for a while: what each opening leaves behind.
            before_reports.append(_rss_mb())
            window.action("file.export_report").trigger()
            QTimer.singleShot(2000, lambda: window.feature("report").dialog.reject())
            counts["reports"] += 1

        timers = []
        for period_s, slot in (
            (rss_every_s, sample),
            (tab_every_s, next_tab),
            (report_every_s, report),
        ):
            if period_s > 0:
                timer = QTimer()
                timer.setInterval(int(period_s * 1000))
                timer.timeout.connect(slot)
                timer.start()
                timers.append(timer)
        QTimer.singleShot(int(duration_s * 1000), app.quit)
        app.exec()
        sample()
        for timer in timers:
            timer.stop()
        snapshots = window.snapshot_count
        window.close()

    after = [p for p in points if p[0] >= warmup_s]
    head = statistics.median(p[1] for p in after[:3]) if after else points[-1][1]
    tail = statistics.median(p[1] for p in after[-3:]) if after else points[-1][1]
    growth = tail - head
    # The RSS just before each Export report… (the last dialog long closed): the step from one
    # to the next is what an opening leaves behind for good (the first one: lazy set-up too).
    steps = [b - a for a, b in itertools.pairwise(before_reports[1:])]
    return {
        "minutes": round(minutes, 2),
        "interval_s": interval_s,
        "warmup_s": round(warmup_s, 1),
        "snapshots": snapshots,
        "tab_changes": counts["tab_changes"],
        "reports_opened": counts["reports"],
        "rss_mb_start": round(points[0][1], 1),
        "rss_mb_after_warmup": round(head, 1),
        "rss_mb_end": round(points[-1][1], 1),
        "rss_mb_max": round(max(p[1] for p in points), 1),
        "trimmed": trimmed[0],
        "growth_after_warmup_mb": round(growth, 1),
        "slope_after_warmup_mb_per_h": round(_slope_mb_per_h(after), 1),
        "target_growth_mb": TARGET_MB,
        "ok": growth <= TARGET_MB,
        "rss_mb_before_each_report": [round(mb, 1) for mb in before_reports],
        "left_per_report_mb_median": round(statistics.median(steps), 1) if steps else None,
        "rss_mb": [[round(t, 1), round(mb, 1)] for t, mb in points],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
    # The dests are soak()'s parameters: the options go to it as they are.
    p.add_argument(
        "--interval", dest="interval_s", type=float, default=0.1, help="sampling interval, s (0.1)"
    )
    p.add_argument("--warmup", dest="warmup_s", type=float, help="warm-up, s (a tenth, ≥ 60)")
    p.add_argument(
        "--rss-every", dest="rss_every_s", type=float, default=10.0, help="RSS reading period, s"
    )
    p.add_argument(
        "--tab-every",
        dest="tab_every_s",
        type=float,
        default=30.0,
        help="tab change period, s (0: off)",
    )
    p.add_argument(
        "--report-every",
        dest="report_every_s",
        type=float,
        default=300.0,
        help="Export report period, s (0: off)",
    )
    p.add_argument(
        "--trim", action="store_true", help="malloc_trim before each reading (live memory)"
    )
    p.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    options = vars(p.parse_args(argv))
    if not options["minutes"] > 0:
        p.error("--minutes must be > 0")
    out = options.pop("out")
    result = soak(**options)
    text = json.dumps(result, indent=2)
    print(text)
    if out is not None:
        from gpuprof.fileio import write_atomic

        write_atomic(out, text + "\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
