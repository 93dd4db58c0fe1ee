"""The short summary of a GPU acceptance run: a benchmark run's JSON and perf/bench_fidelity.py's.

    python scripts/acceptance_summary.py [--run quick.json] [--fidelity fidelity.json]

Prints one line per headline number. Standard library only: it runs in whatever Python the
acceptance script found, and the tests run it on a CPU run's JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

GEMM_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")


def summarize_run(doc: dict[str, Any]) -> list[str]:
    """Environment, best GEMM per dtype, the largest copy per memory case, workloads, failures."""
    env = doc["environment"]
    results = [r for c in doc["cases"] for r in c["results"]]
    ok = [r for r in results if r["status"] == "ok"]
    lines = [
        f"run {doc['run_id']} state {doc['state']} {doc['ended_s'] - doc['started_s']:.0f} s on "
        f"{env.get('gpu_name') or doc['device']} driver {env.get('driver_version')} "
        f"torch {env.get('torch_version')} CUDA {env.get('cuda_runtime_version')} "
        f"cuBLAS {env.get('cublas_version')}"
    ]
    for dtype in GEMM_DTYPES:
        rows = [r for r in ok if r["type"] == "GemmResult" and r["dtype"] == dtype]
        if rows:
            best = max(rows, key=lambda r: r["tflops_median"])
            pct = (
                f"{best['pct_of_peak']:.0f}% of {best['peak_tflops']:g}"
                if best.get("pct_of_peak") is not None
                else "peak unknown"
            )
            lines.append(
                f"GEMM {dtype:5s} best median {best['tflops_median']:8.2f} TFLOPS at {best['case']} ({pct})"
            )
    largest: dict[tuple[str, Any], dict[str, Any]] = {}
    for r in ok:
        if r["type"] == "MemoryResult":
            key = (r["direction"], r.get("pinned"))
            if key not in largest or r["size_bytes"] > largest[key]["size_bytes"]:
                largest[key] = r
    for r in largest.values():
        lines.append(
            f"memory {r['case']:22s} {r['bandwidth_bytes_s'] / 1e9:8.1f} GB/s verified={r['verified']}"
        )
    for r in ok:
        if r["type"] == "WorkloadResult":
            lines.append(f"workload {r['case']}: {r['throughput_per_s']:,.0f} {r['unit']}/s")
    throttled = [r["case"] for r in results if r.get("throttle_reasons")]
    lines.append(f"results {len(ok)}/{len(results)} ok; measured while throttled: {len(throttled)}")
    for c in doc["cases"]:
        if c["state"] != "success" or c["error"]:
            lines.append(f"case {c['name']}: {c['state']} {c['error'] or ''}".rstrip())
    return lines


def _verdict(ok: bool, pct: int) -> str:
    return f"within {pct}%" if ok else f"OUTSIDE {pct}%"


def summarize_fidelity(doc: dict[str, Any]) -> list[str]:
    """Each comparison of perf/bench_fidelity.py with its ratio and whether it meets its target."""
    lines = []
    for row in doc["gemm"]:
        if "ratio" in row:
            verdict = _verdict(row["within_5pct"], 5)
            lines.append(
                f"accuracy GEMM {row['dtype']} {row['n']}: ours/torch.utils.benchmark = "
                f"{row['ratio']:.3f} ({verdict})"
            )
        else:
            lines.append(f"accuracy GEMM {row['dtype']} {row['n']}: skipped, {row['skipped']}")
    if doc.get("host_copy"):
        hc = doc["host_copy"]
        verdict = _verdict(hc["within_10pct"], 10)
        lines.append(f"accuracy host copy: ours/plain loop = {hc['ratio']:.3f} ({verdict})")
    peak = doc.get("bf16_8192_vs_spec_peak")
    if peak:
        if peak.get("pct_of_peak") is None:
            lines.append(
                f"accuracy BF16 8192: {peak['tflops_median']:.1f} TFLOPS, spec peak unknown"
            )
        else:
            verdict = "met" if peak["meets_75pct"] else "NOT met"
            lines.append(
                f"accuracy BF16 8192: {peak['tflops_median']:.1f} TFLOPS = {peak['pct_of_peak']:.0f}% "
                f"of spec {peak['peak_tflops']:g} (target >= 75% on H100/H200: {verdict})"
            )
    h2d = doc.get("h2d_pinned")
    if h2d:
        lines.append(
            f"accuracy H2D pinned {h2d['size_bytes'] >> 20} MiB: {h2d['ours_bytes_s_median'] / 1e9:.1f} GB/s, "
            f"ours/plain loop = {h2d['ratio_to_plain_loop']:.3f}"
        )
        if "ratio_to_nvbandwidth" in h2d:
            verdict = _verdict(h2d["within_5pct_of_nvbandwidth"], 5)
            lines.append(
                f"accuracy H2D vs nvbandwidth {h2d['nvbandwidth_host_to_device_memcpy_ce_gb_s']:.1f} GB/s: "
                f"ratio {h2d['ratio_to_nvbandwidth']:.3f} ({verdict})"
            )
    mamf = doc.get("mamf_finder")
    if mamf:
        verdict = _verdict(mamf["within_3pct"], 3)
        lines.append(
            f"accuracy BF16 vs mamf-finder {mamf['mamf_statistic']} {mamf['mamf_tflops']:.1f} TFLOPS @ "
            f"{mamf['shape']}: ratio {mamf['ratio']:.3f} ({verdict})"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, help="a benchmark run's JSON (gpuprof bench --json)")
    ap.add_argument("--fidelity", type=Path, help="perf/bench_fidelity.py's JSON")
    args = ap.parse_args(argv)
    lines: list[str] = []
    for path, fn in ((args.run, summarize_run), (args.fidelity, summarize_fidelity)):
        if path is None:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            lines += fn(doc)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            lines.append(f"{path}: cannot summarize ({type(exc).__name__}: {exc})")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
