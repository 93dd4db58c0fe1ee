"""History cost: memory for 8 GPUs × 24 h at 1 Hz, append time, decimated window reads.

Prints JSON. Run: ``.venv/bin/python perf/sampler_history.py [--quick]``. Times are medians of
repeated runs (``time.perf_counter``); the full 86,400-sample history is filled through the real
``History.append`` with snapshots from the 8×H100 simulator (values recycled to save time).
Every numeric GPU field is stored, the profiling (GPM) ones of issue 12 included.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, median_ms

sys.path.insert(0, str(ROOT))

from gpuprof.telemetry.history import History
from gpuprof.telemetry.sources import CYCLE_S, SimulatedSource
from gpuprof.telemetry.store import SessionStore

T0 = 1_700_000_000.0
median_ms = functools.partial(median_ms, digits=4)  # sub-millisecond timings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fill 2 h instead of 24 h")
    args = ap.parse_args()
    capacity = 86_400
    n_fill = 7_200 if args.quick else capacity
    clock = [T0]
    src = SimulatedSource("h100x8", seed=0, clock=lambda: clock[0], start_s=T0)
    cycle = []
    for k in range(int(CYCLE_S)):
        clock[0] = T0 + k
        cycle.append(src.poll())

    h = History(capacity=capacity)
    append_ms: list[float] = []
    fill_start = time.perf_counter()
    for k in range(n_fill):
        snap = replace(cycle[k % len(cycle)], time_s=T0 + k)
        t = time.perf_counter()
        h.append(snap)
        append_ms.append((time.perf_counter() - t) * 1e3)
    fill_s = time.perf_counter() - fill_start
    t_end = T0 + n_fill - 1

    result = {
        "history_capacity_samples": capacity,
        "history_gpus": len(h.gpu_indices),
        "history_fields_per_gpu": len(h.gpu_fields),
        "history_nbytes": h.nbytes,
        "history_mb": round(h.nbytes / 1e6, 1),
        "history_mb_target": 150,
        "history_meets_target": h.nbytes <= 150e6,
        # The prof_* fields of issue 12 (NVML GPM) are 16 of the GPU fields: without them.
        "history_mb_without_prof_fields": round(
            History.estimate_nbytes(
                8, capacity, sum(not f.startswith("prof_") for f in h.gpu_fields)
            )
            / 1e6,
            1,
        ),
        "samples_filled": n_fill,
        "append_8gpu_ms_median": round(statistics.median(append_ms), 4),
        "append_8gpu_ms_p99": round(sorted(append_ms)[int(0.99 * len(append_ms))], 4),
        "fill_s": round(fill_s, 2),
    }
    for label, span in (("1h", 3600), ("24h", 86_400)):
        t0 = max(T0, t_end - span)
        n = len(h.gpu_series(0, "power_w", t0, t_end, max_points=1600)[0])
        result[f"gpu_series_{label}_1600pts_ms_median"] = median_ms(
            lambda t0=t0: h.gpu_series(0, "power_w", t0, t_end, max_points=1600), 50
        )
        result[f"gpu_series_{label}_points"] = n
    # One redraw of the GPU tab: 6 plots × 8 curves over the 1 h window.
    fields = (
        "util_gpu_pct",
        "power_w",
        "clock_sm_mhz",
        "temp_gpu_c",
        "mem_used_bytes",
        "pcie_rx_bytes_s",
    )
    result["redraw_6x8_series_1h_ms_median"] = median_ms(
        lambda: [
            h.gpu_series(g, f, t_end - 3600, t_end, max_points=1600)
            for f in fields
            for g in range(8)
        ],
        10,
    )
    result["simulated_poll_h100x8_ms_median"] = median_ms(src.poll, 50)

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        st = SessionStore.create(Path(tmp) / "p.gpuprof", source=src)
        snaps = [replace(cycle[k], time_s=T0 + k) for k in range(200)]
        it = iter(snaps)
        result["store_append_h100x8_ms_median"] = median_ms(lambda: st.append(next(it)), 200)
        st.close()
        size = (Path(tmp) / "p.gpuprof").stat().st_size
        result["store_bytes_per_snapshot_h100x8"] = size // 200
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
