"""``gpuprof compare`` over many check results, or over a few very large ones: wall time.
Prints JSON.

Target (issue 14): 100 result files in ≤ 2 s. Generates ``--files`` check results (the shape
``gpuprof check --json`` writes: about 150 items each, per-GPU performance and burn-in items on
8 GPUs; values are synthetic, with one node's all-reduce and one GPU's GEMM low so that outliers
are found). With ``--items N`` (issue 21: a 50,000-item file took over 2 minutes, ~2.5 ms an
item) each file holds N synthetic per-GPU items instead, and ``per_item_us`` is the CLI's wall
time per item read. Then times

* ``cli_s``: a fresh ``python -m gpuprof compare FILES --html OUT --json OUT`` child, its table
  to a drained pipe, start-up included (median of ``--runs``);
* ``cli_cpu_s``: that child's CPU time (user + system), which a busy machine does not inflate;
* ``in_process_ms``: reading the files and finding the outliers in this process (median).

    .venv/bin/python perf/compare.py [--files 100] [--runs 5]
    .venv/bin/python perf/compare.py --files 2 --items 10000   # two files at the item cap
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, median_ms, setup

setup()

from gpuprof.check.compare import compare, load_results  # noqa: E402

GPUS = 8


def _item(
    item_id: str, group: str, measured: object, unit: str, gpu: int | None
) -> dict[str, object]:
    return {
        "item_id": item_id,
        "group": group,
        "status": "PASS",
        "measured": measured,
        "expected": None,
        "ratio": None,
        "unit": unit,
        "reason": "",
        "hint": "",
        "source": "synthetic (perf/compare.py)",
        "gpu_index": gpu,
    }


def check_doc(node: int, rng: random.Random) -> dict[str, object]:
    items = [_item(f"inventory.field{i}", "inventory", f"value {i}", "", None) for i in range(10)]
    items += [_item(f"health.field{i}", "health", 0, "", None) for i in range(10)]
    for gpu in range(GPUS):
        low = node == 7 and gpu == 3
        for name, base, unit in (
            ("perf.gemm_bf16", 700.0, "TFLOPS"),
            ("perf.gemm_fp16", 700.0, "TFLOPS"),
            ("perf.gemm_tf32", 380.0, "TFLOPS"),
            ("perf.gemm_fp8", 1300.0, "TFLOPS"),
            ("perf.h2d", 55e9, "B/s"),
            ("perf.d2h", 55e9, "B/s"),
            ("perf.d2d", 2.6e12, "B/s"),
            ("perf.p2p_min", 360e9, "B/s"),
            ("diag.memtest_errors", 0.0, ""),
            ("burnin.clock", 1980.0, "MHz"),
            ("burnin.temperature", 70.0, "°C"),
            ("burnin.power", 690.0, "W"),
            ("burnin.ecc", 0.0, ""),
            ("burnin.xid", 0.0, ""),
        ):
            value = base * rng.uniform(0.98, 1.02) * (0.6 if low and "gemm" in name else 1.0)
            items.append(_item(name, "performance", value, unit, gpu))
    busbw = 470e9 * rng.uniform(0.98, 1.02) * (0.7 if node == 42 else 1.0)
    items.append(_item("perf.allreduce_busbw", "performance", busbw, "B/s", None))
    items.append(_item("perf.allreduce_p99_latency", "performance", 4e-5, "s", None))
    return {
        "schema": "gpuprof.check",
        "schema_version": 1,
        "verdict": "PASS",
        "exit_code": 0,
        "level": "standard",
        "device": "all",
        "expectation": "8xH100-SXM",
        "started_s": 1.0,
        "ended_s": 2.0,
        "cancelled": False,
        "thresholds": {"pass": 0.9, "warn": 0.75},
        "identity": {"hostname": f"node-{node:03d}"},
        "items": items,
    }


def large_doc(node: int, rng: random.Random, n_items: int) -> dict[str, object]:
    """A check result of ``n_items`` per-GPU items (``perf.metricK`` on GPUs 0-7)."""
    doc = check_doc(node, rng)
    doc["items"] = [
        _item(
            f"perf.metric{i // GPUS}",
            "performance",
            700.0 * rng.uniform(0.98, 1.02),
            "TFLOPS",
            i % GPUS,
        )
        for i in range(n_items)
    ]
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--items", type=int, default=None, help="items per file (default: a real check's ~150)"
    )
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = []
        for node in range(args.files):
            path = folder / f"node-{node:03d}.json"
            doc = check_doc(node, rng) if args.items is None else large_doc(node, rng, args.items)
            path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
            paths.append(path)
        size = sum(p.stat().st_size for p in paths)

        def in_process() -> object:
            return compare(load_results(paths)[0])

        found = compare(load_results(paths)[0])
        items = sum(len(m.metrics) for m in found.machines)
        walls, cpus = [], []
        code = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [
                    *(sys.executable, "-m", "gpuprof", "compare"),
                    *map(str, paths),
                    *("--html", str(folder / "out.html"), "--json", str(folder / "out.json")),
                ],
                cwd=ROOT,
                env=dict(os.environ, GPUPROF_LANG="en"),
                capture_output=True,
                check=False,
            )
            walls.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            code = done.returncode
        print(
            json.dumps(
                {
                    "files": args.files,
                    "items_per_file": len(found.keys) and len(found.machines[0].metrics),
                    "items_read": items,
                    "bytes": size,
                    "outliers": [[o.machine, o.key, o.kind] for o in found.outliers],
                    "exit_code": code,
                    "cli_s": round(statistics.median(walls), 3),
                    "cli_s_all": [round(w, 3) for w in walls],
                    "cli_cpu_s": round(statistics.median(cpus), 3),
                    "per_item_us": round(1e6 * statistics.median(walls) / max(items, 1), 1),
                    "per_item_cpu_us": round(1e6 * statistics.median(cpus) / max(items, 1), 1),
                    "in_process_ms": median_ms(in_process, args.runs),
                    "target_s": 2.0 if args.items is None else None,
                    "load_avg_1min": round(os.getloadavg()[0], 2),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
