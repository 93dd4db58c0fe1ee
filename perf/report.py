"""Time to assemble and render a report of one 12-minute SIMULATED 8×H100 session (360 samples).

Prints JSON: medians in milliseconds of build (stats, charts, findings), HTML, JSON and PDF (A4),
and the output sizes. Run: ``.venv/bin/python perf/report.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpuprof.ui.report_pdf import ensure_gui_app, write_pdf

    from gpuprof.report import build
    from gpuprof.report.html import render_html
    from gpuprof.report.json import dumps_report

    ensure_gui_app()
    source, snaps = build.demo_snapshots(end_s=1_750_000_000.0)
    times: dict[str, list[float]] = {"build_ms": [], "html_ms": [], "json_ms": [], "pdf_a4_ms": []}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
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
    out = {
        "samples": len(snaps),
        "gpus": 8,
        "repeat": args.repeat,
        **{k: round(statistics.median(v), 1) for k, v in times.items()},
        **sizes,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
