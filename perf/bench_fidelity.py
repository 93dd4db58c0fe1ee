"""How close gpuprof's benchmark numbers are to independent measurements taken in the same run.

CPU (default): GEMM FP32 and BF16 at 2048² and 4096² against ``torch.utils.benchmark.Timer``
(with ``num_threads=torch.get_num_threads()``: its default is one thread) timing the same
``torch.matmul``; target ±5%. Host copy (256 MiB ``copy_``) against a plain timed loop; ±10%.
Products that would take longer than ``--max-product-s`` on this CPU (BF16 without AVX-512 BF16
or AMX is ~100× slower than FP32) are reported as skipped with the predicted time.

GPU (``--device cuda:0``): the same GEMM comparison; BF16 against the spec sheet's dense peak
(target ≥ 75% on H100/H200); H2D pinned 256 MiB against a plain CUDA-event-timed ``copy_`` loop;
and, when given, the reference tools themselves:

- ``--mamf-finder "python mamf-finder.py --m_range 0 20480 256 --n 4096 --k 4096 --dtype bfloat16"``
  runs mamf-finder's quick sweep, then our BF16 GEMM on the shape it found best; target ±3%.
- ``--nvbandwidth /path/to/nvbandwidth`` runs ``-t host_to_device_memcpy_ce`` and compares our
  H2D pinned bandwidth with it; target ±5%.

    .venv/bin/python perf/bench_fidelity.py [--max-product-s 30] [--device cpu|cuda:0]
        [--mamf-finder CMD] [--nvbandwidth BIN]

Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize(device)


def _ours_gemm(
    dtype: str, n: int, device: str, mnk: tuple[int, int, int] | None = None
) -> dict[str, float]:
    from gpuprof.bench import gemm
    from gpuprof.bench.base import CaseContext, drain

    gemm.MAX_CPU_STEP_S = float("inf")  # the script's own limit applies instead
    m, nn, k = mnk or (n, n, n)
    _, (res,) = drain(
        gemm.gemm_bench(dtype, [("", m, nn, k)])(CaseContext(device=device, budget_s=3600))
    )
    if res.status != "ok":
        raise RuntimeError(f"our GEMM {dtype} {m}x{nn}x{k} on {device}: {res.status}")
    return {
        "tflops_median": res.tflops_median,
        "iterations": res.iterations,
        "peak_tflops": res.peak_tflops,
        "pct_of_peak": res.pct_of_peak,
    }


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
    from gpuprof.bench.base import CaseContext, drain
    from gpuprof.bench.memory import memory_bench

    _, (ours,) = drain(memory_bench("host", [size])(CaseContext(device="cpu", budget_s=120)))
    assert ours.verified
    return float(ours.bandwidth_bytes_s)


def _ours_h2d_pinned(size: int, device: str) -> float:
    from gpuprof.bench.base import CaseContext, drain
    from gpuprof.bench.memory import memory_bench

    _, results = drain(memory_bench("h2d", [size])(CaseContext(device=device, budget_s=120)))
    (ours,) = [r for r in results if r.pinned]
    if not ours.verified:
        raise RuntimeError(f"our H2D pinned {size} B on {device}: {ours.status}")
    return float(ours.bandwidth_bytes_s)


def _plain_h2d_pinned(size: int, device: str) -> float:
    """A plain loop: pinned source, ``copy_(non_blocking=True)`` bracketed by CUDA events."""
    import torch

    src = torch.ones(size, dtype=torch.uint8, pin_memory=True)
    dst = torch.empty(size, dtype=torch.uint8, device=device)
    for _ in range(3):
        dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize(device)
    times = []
    for _ in range(15):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src, non_blocking=True)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return size / statistics.median(times)


def _gpu_h2d(size: int, device: str, rounds: int, nvbandwidth: str | None) -> dict[str, object]:
    ours, plain = [], []
    for _ in range(rounds):
        ours.append(_ours_h2d_pinned(size, device))
        plain.append(_plain_h2d_pinned(size, device))
    ratio = statistics.median(ours) / statistics.median(plain)
    out: dict[str, object] = {
        "size_bytes": size,
        "ours_bytes_s_median": statistics.median(ours),
        "plain_loop_bytes_s_median": statistics.median(plain),
        "ratio_to_plain_loop": ratio,
        "within_5pct_of_plain_loop": abs(ratio - 1) <= 0.05,
    }
    if nvbandwidth:
        from gpuprof.bench.external import parse_nvbandwidth

        index = int(device.partition(":")[2] or 0)
        proc = subprocess.run(
            [nvbandwidth, "-t", "host_to_device_memcpy_ce"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        gbs = parse_nvbandwidth(proc.stdout, "host_to_device_memcpy_ce", row=0, column=index)
        out["nvbandwidth_host_to_device_memcpy_ce_gb_s"] = gbs
        out["ratio_to_nvbandwidth"] = statistics.median(ours) / (gbs * 1e9)
        out["within_5pct_of_nvbandwidth"] = abs(out["ratio_to_nvbandwidth"] - 1) <= 0.05  # type: ignore[operator]
    return out


def _mamf_compare(cmd: str, device: str) -> dict[str, object]:
    """mamf-finder's best shape and median, then ours on that shape."""
    from gpuprof.bench.external import parse_mamf_finder

    proc = subprocess.run(
        shlex.split(cmd), capture_output=True, text=True, timeout=1800, check=False
    )
    best = parse_mamf_finder(proc.stdout)
    ours = _ours_gemm("bf16", 0, device, (best.m, best.n, best.k))
    ratio = ours["tflops_median"] / best.tflops
    return {
        "command": cmd,
        "mamf_statistic": best.statistic,
        "shape": f"{best.m}x{best.n}x{best.k}",
        "mamf_tflops": best.tflops,
        "ours_tflops_median": ours["tflops_median"],
        "ratio": ratio,
        "within_3pct": abs(ratio - 1) <= 0.03,
    }


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
    ap.add_argument(
        "--max-product-s",
        type=float,
        default=30.0,
        help="skip a size whose one product would take longer (default 30 s)",
    )
    ap.add_argument("--sizes", default="2048,4096")
    ap.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds per comparison (default 3)"
    )
    ap.add_argument(
        "--mamf-finder", metavar="CMD", help="GPU: a mamf-finder command line to compare BF16 with"
    )
    ap.add_argument(
        "--nvbandwidth", metavar="BIN", help="GPU: the nvbandwidth executable to compare H2D with"
    )
    args = ap.parse_args()

    import torch

    rows: list[dict[str, object]] = []
    for dtype in ("fp32", "bf16"):
        # A probe predicts each size's product time, so a slow dtype is skipped, not waited for.
        a = torch.randn(
            512,
            512,
            dtype={"fp32": torch.float32, "bf16": torch.bfloat16}[dtype],
            device=args.device,
        )
        torch.matmul(a, a)
        _sync(args.device)
        t0 = time.perf_counter()
        torch.matmul(a, a)
        _sync(args.device)
        rate = 2.0 * 512**3 / (time.perf_counter() - t0)
        for n in (int(s) for s in args.sizes.split(",")):
            predicted = 2.0 * n**3 / rate
            if args.device == "cpu" and predicted > args.max_product_s:
                rows.append(
                    {
                        "dtype": dtype,
                        "n": n,
                        "skipped": f"one product predicted {predicted:.0f} s "
                        f"> --max-product-s {args.max_product_s:g}",
                    }
                )
                continue
            ours_t, ref_t = [], []
            rounds = args.rounds if predicted < 5 else 1
            for _ in range(rounds):  # interleaved: load drift on a shared machine hits both
                ours_t.append(_ours_gemm(dtype, n, args.device)["tflops_median"])
                ref_t.append(
                    _timer_gemm(dtype, n, args.device, max(1.0, 3 * predicted))["tflops_median"]
                )
            ratio = statistics.median(ours_t) / statistics.median(ref_t)
            rows.append(
                {
                    "dtype": dtype,
                    "n": n,
                    "rounds": rounds,
                    "ours_tflops_median": statistics.median(ours_t),
                    "torch_benchmark_tflops_median": statistics.median(ref_t),
                    "ours_tflops": ours_t,
                    "torch_benchmark_tflops": ref_t,
                    "ratio": ratio,
                    "within_5pct": abs(ratio - 1) <= 0.05,
                }
            )
            # Each comparison as it completes: a long run cut short still leaves its results.
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            ours = {"tflops_median": statistics.median(ours_t)}
            if ours["tflops_median"] > 0:
                rate = ours["tflops_median"] * 1e12
    out: dict[str, object] = {
        "device": args.device,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "gemm": rows,
        "host_copy": _host_copy(256 * 2**20, max(3, args.rounds)) if args.device == "cpu" else None,
    }
    if args.device.startswith("cuda"):
        out["gpu"] = torch.cuda.get_device_name(args.device)
        best = _ours_gemm("bf16", 8192, args.device)
        out["bf16_8192_vs_spec_peak"] = {
            **best,
            "meets_75pct": None if best["pct_of_peak"] is None else best["pct_of_peak"] >= 75,
        }
        out["h2d_pinned"] = _gpu_h2d(
            256 * 2**20, args.device, max(3, args.rounds), args.nvbandwidth
        )
        if args.mamf_finder:
            out["mamf_finder"] = _mamf_compare(args.mamf_finder, args.device)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
