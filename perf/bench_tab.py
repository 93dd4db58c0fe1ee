"""GUI-thread cost of the Benchmarks tab: building it, and redrawing charts + table for a run.

Prints JSON with median milliseconds over ``--repeat`` tries, offscreen at 1600×1000:
``construct_ms`` (BenchTab(), no torch), ``redraw_ms`` for a synthetic full-suite-sized GPU run
(5 dtypes × 16 GEMM sizes, 5 copy kinds × 11 sizes, an 8-GPU P2P matrix, 2 collectives × 28
sizes: 192 results): ``redraw_full_ms`` rebuilds every chart and the table (a run shown),
``redraw_live_ms`` is one more GEMM result during a run (only its chart is rebuilt, plus the
table); ``paint_ms`` is ``grab()`` of the whole tab. Live results are coalesced to one redraw
per ``REDRAW_DELAY_MS``.
Usage: ``python perf/bench_tab.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median_ms, setup

setup(qt=True)


def _results() -> list:
    from gpuprof.bench.base import CollectiveResult, MemoryResult, P2PResult
    from gpuprof.catalog.specs import load_specs
    from tests.fakes.fixtures import gemm_result

    h100 = load_specs()["H100 SXM"]  # the spec table's peaks, not a copy of them
    out: list = []
    for d in ("fp32", "tf32", "fp16", "bf16", "fp8"):
        peak = h100.peak_tflops(d)
        assert peak is not None
        for s in range(1024, 16385, 1024):
            tf = peak * 0.75 * min(1.0, s / 8192)
            out.append(gemm_result(f"{d} {s}", tf, dtype=d, size=s, peak=peak, iterations=50))
    for direction, pinned in (
        ("h2d", False),
        ("h2d", True),
        ("d2h", False),
        ("d2h", True),
        ("d2d", None),
    ):
        for i in range(11):
            size = 2**20 * 2**i
            out.append(
                MemoryResult(
                    bench="memory",
                    case=f"{direction} {pinned} {size}",
                    direction=direction,
                    pinned=pinned,
                    size_bytes=size,
                    samples=5,
                    time_median_s=1,
                    bandwidth_bytes_s=5e10 * (1 - 0.5 / (i + 1)),
                    bandwidth_max_bytes_s=5.5e10,
                )
            )
    n = 8
    bw = tuple(tuple(3e12 if i == j else 3.7e11 for j in range(n)) for i in range(n))
    links = tuple(tuple(None if i == j else "NVLink (NV18)" for j in range(n)) for i in range(n))
    out.append(
        P2PResult(
            bench="p2p",
            case="matrix 8 GPUs",
            devices=tuple(range(n)),
            size_bytes=2**28,
            uni_bw_on_bytes_s=bw,
            links=links,
        )
    )
    for op in ("all_reduce", "all_gather"):
        for i in range(3, 31):
            out.append(
                CollectiveResult(
                    bench="collective",
                    case=f"{op} {2**i} B",
                    op=op,
                    backend="nccl",
                    world_size=8,
                    size_bytes=2**i,
                    dtype="fp32",
                    iterations=20,
                    latency_p50_s=1e-5,
                    latency_p99_s=2e-5,
                    algbw_bytes_s=min(2**i / 1e-5, 4e11),
                    busbw_bytes_s=min(2**i / 1e-5, 4e11) * 1.75,
                )
            )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=9)
    args = p.parse_args()

    from gpuprof.ui.bench.tab import BenchTab
    from gpuprof.ui.shell.app import make_app
    from PySide6.QtWidgets import QApplication

    make_app()
    app = QApplication.instance()
    tabs = []
    construct = median_ms(
        lambda: tabs.append(BenchTab(db=Path("/nonexistent/results.sqlite"))), args.repeat
    )
    tab = tabs[-1]
    tab.resize(1600, 1000)
    tab.show()
    app.processEvents()
    results = _results()

    def redraw_full() -> None:
        tab.charts._signatures.clear()  # every chart rebuilt: a finished run shown
        tab.live_results = list(results)
        tab.running = True  # draw the live view
        tab._redraw()
        tab.running = False

    gemm = [r for r in results if r.bench == "gemm"]
    rest = [r for r in results if r.bench != "gemm"]

    def redraw_live() -> None:
        # A GEMM result arrives while the other families are already drawn: only GEMM redraws.
        import dataclasses

        tab.live_results = [*rest, *gemm[:-1], dataclasses.replace(gemm[-1])]
        tab.running = True
        tab._redraw()
        tab.running = False

    redraw_ms = median_ms(redraw_full, args.repeat)
    redraw_full()
    live_ms = median_ms(redraw_live, args.repeat)
    paint_ms = median_ms(lambda: tab.grab(), args.repeat)
    print(
        json.dumps(
            {
                "results": len(results),
                "construct_ms": construct,
                "redraw_full_ms": redraw_ms,
                "redraw_live_ms": live_ms,
                "paint_ms": paint_ms,
                "torch_imported": "torch" in sys.modules,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
