"""How close gpuprof's benchmark numbers are to independent measurements taken in the same run.

CPU (default): GEMM FP32 and BF16 at 2048² and 4096² against ``torch.utils.benchmark.Timer``
(with ``num_threads=torch.get_num_threads()``: its default is one thread) timing the same
``torch.matmul``; target ±5%. Host copy (256 MiB ``copy_``) against a plain timed loop; ±10%.
Products that would take longer than ``--max-product-s`` on this CPU (BF16 without AVX-512 BF16
or AMX is ~100× slower than FP32) are reported as skipped with the predicted time.

    .venv/bin/python perf/bench_fidelity.py [--max-product-s 30] [--device cpu|cuda:0]

Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _ours_gemm(dtype: str, n: int, device: str) -> dict[str, float]:
    from gpuprof.bench import gemm
    from gpuprof.bench.base import CaseContext

    gemm.MAX_CPU_STEP_S = float("inf")  # the script's own limit applies instead
    gen = gemm.gemm_bench(dtype, [("", n, n, n)])(CaseContext(device=device, budget_s=3600))
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            (res,) = stop.value
            break
    return {"tflops_median": res.tflops_median, "iterations": res.iterations}


def _timer_gemm(dtype: str, n: int, device: str, min_run_time_s: float) -> dict[str, float]:
    import torch
    from torch.utils import benchmark

    tdtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype]
    dev = torch.device(device)
    a = torch.randn(n, n, dtype=tdtype, device=dev)
    b = torch.randn(n, n, dtype=tdtype, device=dev)
    timer = benchmark.Timer(
        stmt="torch.matmul(a, b)",
        globals={"torch": torch, "a": a, "b": b},
        num_threads=torch.get_num_threads(),
    )
    m = timer.blocked_autorange(min_run_time=min_run_time_s)
    return {"tflops_median": 2.0 * n**3 / m.median / 1e12, "runs": len(m.times)}


def _ours_copy(size: int) -> float:
    from gpuprof.bench.base import CaseContext
    from gpuprof.bench.memory import memory_bench

    gen = memory_bench("host", [size])(CaseContext(device="cpu", budget_s=120))
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            (ours,) = stop.value
            break
    assert ours.verified
    return float(ours.bandwidth_bytes_s)


def _plain_copy(size: int) -> float:
    import torch

    src = torch.ones(size, dtype=torch.uint8)
    dst = torch.zeros(size, dtype=torch.uint8)
    dst.copy_(src)
    dst.copy_(src)
    times = []
    for _ in range(15):
        t0 = time.perf_counter()
        dst.copy_(src)
        times.append(time.perf_counter() - t0)
    return size / statistics.median(times)


def _host_copy(size: int, rounds: int) -> dict[str, object]:
    ours, plain = [], []
    for _ in range(rounds):  # interleaved, so that drift in machine load hits both alike
        ours.append(_ours_copy(size))
        plain.append(_plain_copy(size))
    ratio = statistics.median(ours) / statistics.median(plain)
    return {
        "size_bytes": size,
        "rounds": rounds,
        "ours_bytes_s_median": statistics.median(ours),
        "plain_loop_bytes_s_median": statistics.median(plain),
        "ours_bytes_s": ours,
        "plain_loop_bytes_s": plain,
        "ratio": ratio,
        "within_10pct": abs(ratio - 1) <= 0.10,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--max-product-s", type=float, default=30.0,
                    help="skip a size whose one product would take longer (default 30 s)")
    ap.add_argument("--sizes", default="2048,4096")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds per comparison (default 3)")
    args = ap.parse_args()

    import torch

    rows: list[dict[str, object]] = []
    for dtype in ("fp32", "bf16"):
        # A probe predicts each size's product time, so a slow dtype is skipped, not waited for.
        a = torch.randn(512, 512, dtype={"fp32": torch.float32, "bf16": torch.bfloat16}[dtype])
        torch.matmul(a, a)
        t0 = time.perf_counter()
        torch.matmul(a, a)
        rate = 2.0 * 512**3 / (time.perf_counter() - t0)
        for n in (int(s) for s in args.sizes.split(",")):
            predicted = 2.0 * n**3 / rate
            if args.device == "cpu" and predicted > args.max_product_s:
                rows.append({"dtype": dtype, "n": n, "skipped": f"one product predicted {predicted:.0f} s "
                             f"> --max-product-s {args.max_product_s:g}"})
                continue
            ours_t, ref_t = [], []
            rounds = args.rounds if predicted < 5 else 1
            for _ in range(rounds):  # interleaved: load drift on a shared machine hits both
                ours_t.append(_ours_gemm(dtype, n, args.device)["tflops_median"])
                ref_t.append(_timer_gemm(dtype, n, args.device, max(1.0, 3 * predicted))["tflops_median"])
            ratio = statistics.median(ours_t) / statistics.median(ref_t)
            rows.append({
                "dtype": dtype,
                "n": n,
                "rounds": rounds,
                "ours_tflops_median": statistics.median(ours_t),
                "torch_benchmark_tflops_median": statistics.median(ref_t),
                "ours_tflops": ours_t,
                "torch_benchmark_tflops": ref_t,
                "ratio": ratio,
                "within_5pct": abs(ratio - 1) <= 0.05,
            })
            # Each comparison as it completes: a long run cut short still leaves its results.
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            ours = {"tflops_median": statistics.median(ours_t)}
            if ours["tflops_median"] > 0:
                rate = ours["tflops_median"] * 1e12
    out = {
        "device": args.device,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "gemm": rows,
        "host_copy": _host_copy(256 * 2**20, max(3, args.rounds)) if args.device == "cpu" else None,
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
