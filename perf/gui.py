"""GUI performance: redraw time, CPU use while live, start-up to the first painted frame.

Prints one JSON object. Runs offscreen (no display needed)::

    .venv/bin/python perf/gui.py            # all three, ~1–2 minutes
    .venv/bin/python perf/gui.py --quick    # fewer frames and a shorter live run

Set-up (issue 3): 8 simulated GPUs sampled at 10 Hz, a full 1-hour window — 36,000 samples per
curve pre-filled into History — on the Telemetry tab at 1600×1000. Targets: median redraw
≤ 15 ms, GUI process CPU ≤ 25 % of one core while running, first frame ≤ 1.0 s without torch.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HZ = 10.0
HOUR_S = 3600


#: Simulated polls per second of history in the prefill. SimulatedSource.poll() costs ~2 ms here,
#: so 36,000 real polls would take minutes: each 1 Hz poll is repeated at 0.1 s steps (same
#: values). The redraw cost depends on the number of samples, not on their values.
PREFILL_POLL_HZ = float(os.environ.get("GPUPROF_PERF_PREFILL_HZ", "1.0"))


def _prefill(history, n_samples: int, start: float) -> None:
    from dataclasses import replace

    from gpuprof.telemetry.sources import SimulatedSource

    repeat = max(1, round(HZ / PREFILL_POLL_HZ))
    n_polls = -(-n_samples // repeat)
    ticks = iter([start + k * repeat / HZ for k in range(n_polls)])
    twin = SimulatedSource("h100x8", clock=lambda: next(ticks), start_s=start)
    done = 0
    for _ in range(n_polls):
        snap = twin.poll()
        for r in range(repeat):
            if done == n_samples:
                return
            history.append(replace(snap, time_s=snap.time_s + r / HZ) if r else snap)
            done += 1


def _window(tmp: Path, n_samples: int):
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.main_window import MainWindow
    from gpuprof.ui.shell.settings import UiSettings

    from gpuprof.telemetry.history import History
    from gpuprof.telemetry.sampler import Sampler
    from gpuprof.telemetry.sources import SimulatedSource

    app = make_app()
    now = time.time()
    start = now - n_samples / HZ
    history = History(capacity=max(n_samples + 1000, 40_000))
    t0 = time.perf_counter()
    _prefill(history, n_samples, start)
    prefill_s = time.perf_counter() - t0
    live = SimulatedSource("h100x8", start_s=start)
    w = MainWindow(
        live,
        settings=UiSettings(tmp / "ui.ini"),
        interval_s=1 / HZ,
        history=history,
        sampler_factory=lambda s, i, h: Sampler(s, interval_s=i, history=h),
        autostart=False,
    )
    w.resize(1600, 1000)
    w.show()
    w.select_tab("telemetry")
    w.set_time_window(HOUR_S)
    w.on_snapshot(history.latest())
    deadline = time.time() + 5
    while not w.state.devices and time.time() < deadline:
        app.processEvents()
    for _ in range(3):
        app.processEvents()
    return app, w, history, prefill_s


def measure_redraw(tmp: Path, frames: int, step_s: float = 0.0) -> dict[str, object]:
    app, w, history, prefill_s = _window(tmp, HOUR_S * int(HZ))
    tab = w.telemetry
    if step_s > 0:  # a job's step ticks (issue 13): one step every step_s over the window
        t_end = history.latest().time_s
        tab.step_ticks.set_times([t_end - k * step_s for k in range(int(HOUR_S / step_s))])
    data_ms, paint_ms, total_ms, cpu_ms, scene_ms = [], [], [], [], []
    # One frame first: it draws every plot's cached curve image from scratch (see below).
    tab.refresh(force=True)
    app.processEvents()
    w.repaint()
    rebuilds0 = sum(p.layer.rebuild_count for p in tab.plots.values())
    for _ in range(frames):
        # A new sample arrives, then one frame: fetch + the curve layers, then a synchronous paint.
        w.sampler.poll_once()
        w.on_snapshot(history.latest())
        t0 = time.perf_counter()
        c0 = time.thread_time()
        tab.refresh(force=True)
        t1 = time.perf_counter()
        app.processEvents()  # the scene posts its update; the view paints it
        t_scene = time.perf_counter()
        w.repaint()  # and the rest of the window (menus, toolbar, tab bar: not per frame in the app)
        t2 = time.perf_counter()
        scene_ms.append((t_scene - t0) * 1e3)
        cpu_ms.append((time.thread_time() - c0) * 1e3)
        data_ms.append((t1 - t0) * 1e3)
        paint_ms.append((t2 - t1) * 1e3)
        total_ms.append((t2 - t0) * 1e3)
    rebuilds = sum(p.layer.rebuild_count for p in tab.plots.values()) - rebuilds0
    # The worst case: the scale changes at every frame ("All" window growing, axis rescaling
    # each time), so no cached curve image outlives its frame: the curves are stroked directly.
    full_ms = []
    for _ in range(max(5, frames // 10)):
        w.sampler.poll_once()
        w.on_snapshot(history.latest())
        for p in tab.plots.values():
            p.layer.invalidate()
        t0 = time.perf_counter()
        tab.refresh(force=True)
        app.processEvents()
        w.repaint()
        full_ms.append((time.perf_counter() - t0) * 1e3)
    x, _ = tab.plots["util"].data[(0, "util_gpu_pct")]
    n_curves = sum(1 for p in tab.plots.values() for c in p.curves.values() if c.isVisible())
    out = {
        "prefill": f"{PREFILL_POLL_HZ:g} Hz simulated polls, each repeated at {1 / HZ:g} s steps",
        "samples_per_curve": len(history),
        "prefill_s": round(prefill_s, 2),
        "curves": n_curves,
        "secondary_series": tab.secondary_shown(),
        "curve_image_rebuilds": rebuilds,
        "points_per_curve_drawn": len(x),
        "plot_width_px": tab._plot_width_px(),
        "frames": frames,
        "redraw_ms_median": round(statistics.median(total_ms), 2),
        "redraw_ms_p90": round(sorted(total_ms)[int(0.9 * (frames - 1))], 2),
        "redraw_cpu_ms_median": round(statistics.median(cpu_ms), 2),
        "redraw_ms_median_scale_changing_every_frame": round(statistics.median(full_ms), 2),
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "cpu_count": os.cpu_count(),
        "data_ms_median": round(statistics.median(data_ms), 2),
        "redraw_ms_median_without_window_repaint": round(statistics.median(scene_ms), 2),
        "paint_ms_median": round(statistics.median(paint_ms), 2),
        "min_redraw_period_s_1h": round(tab.min_redraw_period_s(), 3),
        "target_ms": 15.0,
        "step_ticks": tab.step_ticks.count,
        "step_ticks_painted": tab.step_ticks.painted,
    }
    w.close()
    return out


def measure_cpu(tmp: Path, seconds: float) -> dict[str, object]:
    import psutil

    app, w, _history, _ = _window(tmp, HOUR_S * int(HZ))
    proc = psutil.Process()
    results: dict[str, object] = {}
    for window_s in (HOUR_S, 60):
        w.set_time_window(window_s)
        w.start_sampling()
        frames0, polls0 = w.telemetry.redraw_count, w.sampler.poll_count
        c0 = proc.cpu_times()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            app.processEvents()
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        c1 = proc.cpu_times()
        w.sampler.stop()
        cpu = (c1.user - c0.user) + (c1.system - c0.system)
        key = "1h" if window_s == HOUR_S else "1min"
        results[f"cpu_pct_one_core_window_{key}"] = round(100 * cpu / wall, 1)
        results[f"frames_per_s_window_{key}"] = round(
            (w.telemetry.redraw_count - frames0) / wall, 1
        )
        results[f"polls_per_s_window_{key}"] = round((w.sampler.poll_count - polls0) / wall, 1)
    results["live_seconds"] = seconds
    results["target_pct"] = 25.0
    w.close()
    return results


def _startup_child() -> None:
    """Run the real entry point; report when the main window paints its first frame."""
    launched = float(os.environ["GPUPROF_PERF_LAUNCH"])
    import gpuprof.ui.shell.app as app_mod
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    original = app_mod.build_window

    def build_window(args, **kw):
        window = original(args, **kw)

        class FirstPaint(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint and obj is window:
                    elapsed = time.time() - launched
                    window.removeEventFilter(self)
                    print(
                        json.dumps(
                            {
                                "first_paint_s": round(elapsed, 3),
                                "torch_imported": "torch" in sys.modules,
                            }
                        ),
                        flush=True,
                    )
                    QTimer.singleShot(0, QApplication.instance().quit)
                return False

        window._perf_filter = FirstPaint(window)
        window.installEventFilter(window._perf_filter)
        return window

    app_mod.build_window = build_window
    from gpuprof.cli import main

    sys.exit(main(sys.argv[2:]))


def _startup_run(extra: list[str], env: dict[str, str]) -> dict[str, object]:
    env = dict(env, GPUPROF_PERF_LAUNCH=repr(time.time()))
    proc = subprocess.run(
        [sys.executable, __file__, "--startup-child", *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("{")), None)
    if line is None:
        raise RuntimeError(f"start-up child failed: {proc.stderr[-1000:]}")
    return dict(json.loads(line))


def measure_startup(runs: int, extra: list[str], pycache: Path) -> dict[str, object]:
    """First paint of ``gpuprof [extra]``, with the bytecode cache an installed package has.

    A development shell may set ``PYTHONDONTWRITEBYTECODE`` (these machines do): every start
    then compiles gpuprof's own modules from source, ~0.2 s that no installed copy pays (pip
    and PyInstaller ship bytecode). So the children get a bytecode cache under ``pycache``
    (``PYTHONPYCACHEPREFIX``, nothing written into the tree); a first, unmeasured start fills
    it, and its time is reported too.
    """
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(pycache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compiling = _startup_run(extra, env)
    times, torch = [], [compiling["torch_imported"]]
    for _ in range(runs):
        data = _startup_run(extra, env)
        times.append(data["first_paint_s"])
        torch.append(data["torch_imported"])
    assert not any(torch), "torch was imported at start-up"
    return {
        "args": " ".join(extra),
        "runs": runs,
        "first_paint_s_median": round(statistics.median(times), 3),
        "first_paint_s_all": times,
        "first_paint_s_while_compiling_bytecode": compiling["first_paint_s"],
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "torch_imported": any(torch),
        "target_s": 1.0,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--startup-child":
        _startup_child()
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=("redraw", "cpu", "startup"))
    parser.add_argument(
        "--step-s", type=float, default=0.0, help="redraw with a job step tick every STEP_S s"
    )
    args = parser.parse_args()
    import tempfile

    out: dict[str, object] = {"qt_platform": os.environ["QT_QPA_PLATFORM"]}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GPUPROF_CONFIG_DIR", tmp)
        if args.only in (None, "redraw"):
            out["redraw"] = measure_redraw(Path(tmp), 20 if args.quick else 100, args.step_s)
        if args.only in (None, "cpu"):
            out["cpu"] = measure_cpu(Path(tmp), 5.0 if args.quick else 15.0)
        if args.only in (None, "startup"):
            runs = 2 if args.quick else 5
            pycache = Path(tmp) / "pycache"
            out["startup_demo"] = measure_startup(runs, ["--demo"], pycache)
            out["startup_no_gpu"] = measure_startup(runs, [], pycache)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
