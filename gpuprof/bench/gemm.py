"""GEMM throughput by dtype, the mamf-finder way: warm-up, per-iteration CUDA events, L2 flushed
between iterations, a shape sweep; mean / median / max TFLOPS and % of the spec sheet's peak.

FP32, TF32 and FP16/BF16 go through ``torch.matmul``; FP8 (e4m3) through ``torch._scaled_mm`` on
compute capability ≥ 8.9. On the CPU FP32, BF16 and FP16 run for real; sizes whose single product
would take longer than ``MAX_CPU_STEP_S`` are skipped with a note (a product cannot be interrupted,
and cancel must act within a second) — BF16/FP16 matmul is ~100× slower than FP32 on CPUs without
AVX-512 BF16/AMX.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Generator, Iterator
from typing import Any

from gpuprof.bench.base import BenchFn, CaseContext, GemmResult, Progress, Result, skipped
from gpuprof.bench.timing import measure, summarize
from gpuprof.i18n import N_

__all__ = [
    "DTYPES",
    "LLM_SHAPES",
    "MAX_CPU_STEP_S",
    "gemm_bench",
    "gemm_shapes",
    "gemm_tflops",
    "spec_peak_tflops",
]

DTYPES: tuple[str, ...] = ("fp32", "tf32", "fp16", "bf16", "fp8")

#: (label, tokens m, out n, in k): the projections of common LLM layers at 4096 tokens.
LLM_SHAPES: tuple[tuple[str, int, int, int], ...] = (
    ("llama-7b qkv", 4096, 12288, 4096),
    ("llama-7b mlp-up", 4096, 11008, 4096),
    ("llama-7b mlp-down", 4096, 4096, 11008),
    ("llama-70b mlp-up", 4096, 28672, 8192),
)

#: On the CPU, one product longer than this is skipped (cancel acts between products).
MAX_CPU_STEP_S = 1.0

_SQUARES = {
    ("cuda", "quick"): (2048, 4096, 8192),
    ("cuda", "standard"): (1024, 2048, 4096, 8192, 16384),
    ("cuda", "full"): tuple(range(1024, 16384 + 1, 1024)),
    ("cpu", "quick"): (256, 512, 1024, 2048),
    ("cpu", "standard"): (256, 512, 1024, 2048, 4096),
    ("cpu", "full"): (256, 512, 1024, 2048, 3072, 4096, 6144, 8192),
}
_LLM_COUNT = {"quick": 2, "standard": 4, "full": 4}
_CPU_TOKENS = 256  # LLM shapes on the CPU keep n and k but take 256 tokens

Shape = tuple[str, int, int, int]


def gemm_shapes(suite: str, cuda: bool) -> list[Shape]:
    """The (label, m, n, k) sweep for a suite: squares first, then LLM-shaped products."""
    squares = _SQUARES[("cuda" if cuda else "cpu", suite)]
    shapes: list[Shape] = [("", s, s, s) for s in squares]
    for label, m, n, k in LLM_SHAPES[: _LLM_COUNT[suite] if cuda else 1]:
        shapes.append((label, m if cuda else _CPU_TOKENS, n, k))
    return shapes


def gemm_tflops(m: int, n: int, k: int, seconds: float) -> float:
    """TFLOPS of one m×k by k×n product (2·m·n·k FLOP: a multiply and an add per term)."""
    return 2.0 * m * n * k / seconds / 1e12


# --- spec peak, from the catalog (guarded: the catalog API may not be there) ----------------------


def spec_peak_tflops(
    device_name: str | None, dtype: str, memory_gib: float | None = None
) -> float | None:
    """The spec sheet's dense TFLOPS for ``dtype`` on this GPU, or None (unknown: never guessed)."""
    if not device_name:
        return None
    try:
        from gpuprof.catalog.names import gpu_for_nvml_name
    except ImportError:
        return None
    try:
        spec = gpu_for_nvml_name(device_name, memory_gib)
        value = spec.peak_tflops(dtype) if spec is not None else None
    except Exception:
        return None
    return float(value) if value else None


# --- the benchmark --------------------------------------------------------------------------------


def _device_identity(device: str) -> tuple[str | None, float | None]:
    """(name, memory GiB) of a CUDA device, for the catalog lookup; (None, None) on the CPU."""
    if not device.startswith("cuda"):
        return None, None
    import torch

    props = torch.cuda.get_device_properties(torch.device(device))
    return str(props.name), props.total_memory / 2**30


def _support(device: str, dtype: str) -> str | None:
    """None when ``dtype`` can run on ``device``, else why not."""
    if not device.startswith("cuda"):
        if dtype == "tf32":
            return N_("TF32 is a CUDA tensor-core mode")
        if dtype == "fp8":
            return N_("FP8 needs a CUDA GPU with compute capability >= 8.9")
        return None
    import torch

    arch = rocm_arch(device)
    if arch is not None:
        return _rocm_support(arch, dtype)
    cc = torch.cuda.get_device_capability(torch.device(device))
    if dtype == "tf32" and cc < (8, 0):
        return N_("TF32 needs compute capability >= 8.0 (this GPU: {a}.{b})").format(
            a=cc[0], b=cc[1]
        )
    if dtype == "bf16" and cc < (8, 0):
        return N_("BF16 tensor cores need compute capability >= 8.0 (this GPU: {a}.{b})").format(
            a=cc[0], b=cc[1]
        )
    if dtype == "fp8" and (cc < (8, 9) or not hasattr(torch, "_scaled_mm")):
        return N_("FP8 needs compute capability >= 8.9 (this GPU: {a}.{b})").format(
            a=cc[0], b=cc[1]
        )
    return None


def rocm_arch(device: str) -> str | None:
    """The AMD GPU's architecture ("gfx942") on a ROCm build of torch (``torch.version.hip``),
    None on CUDA or the CPU. ROCm torch answers ``get_device_capability`` with numbers made
    from the gfx name (gfx942 -> 9.4): NVIDIA's compute-capability rules do not apply."""
    if not device.startswith("cuda"):
        return None
    import torch

    if not getattr(torch.version, "hip", None):
        return None
    name = str(getattr(torch.cuda.get_device_properties(torch.device(device)), "gcnArchName", ""))
    return name.split(":")[0] or "gfx?"


#: AMD architectures with FP8 matrix cores, and the FP8 type torch uses on each: MI300 (CDNA3)
#: has the "fnuz" variant, MI350 (CDNA4) the OCP e4m3 of NVIDIA's FP8 (ROCm docs, "Precision
#: support": FP8 E4M3 FNUZ on gfx942, OCP FP8 on gfx950).
ROCM_FP8 = {"gfx942": "float8_e4m3fnuz", "gfx950": "float8_e4m3fn"}


def _rocm_support(arch: str, dtype: str) -> str | None:
    if dtype == "tf32":
        # XF32 exists on MI300 (gfx942) only, and torch applies it only when asked through
        # HIPBLASLT_ALLOW_TF32=1 (pytorch/pytorch#139869): otherwise "TF32" would time FP32.
        if arch == "gfx942" and os.environ.get("HIPBLASLT_ALLOW_TF32") == "1":
            return None
        return N_(
            "TF32 on AMD GPUs: MI300 (gfx942) only, with HIPBLASLT_ALLOW_TF32=1 (this GPU: {a})"
        ).format(a=arch)
    if dtype == "fp8":
        import torch

        if arch not in ROCM_FP8 or not hasattr(torch, "_scaled_mm"):
            return N_(
                "FP8 on AMD GPUs needs MI300 (gfx942) or MI350 (gfx950) (this GPU: {a})"
            ).format(a=arch)
    return None


@contextlib.contextmanager
def _matmul_precision(dtype: str) -> Iterator[None]:
    import torch

    before = torch.get_float32_matmul_precision()
    with warnings.catch_warnings():
        # Newer torch nudges towards backends.*.fp32_precision; this call keeps working everywhere.
        warnings.simplefilter("ignore")
        torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.set_float32_matmul_precision(before)


def _operands(dtype: str, m: int, n: int, k: int, device: str) -> Callable[[], Any]:
    """Random operands (zeros run faster on some GPUs) and the product to time."""
    import torch

    dev = torch.device(device)
    gen = torch.Generator(device=dev).manual_seed(0)
    if dtype == "fp8":
        arch = rocm_arch(device)
        fp8 = getattr(torch, ROCM_FP8.get(arch, "float8_e4m3fn") if arch else "float8_e4m3fn")
        a = torch.randn(m, k, device=dev, generator=gen).to(fp8)
        # _scaled_mm wants B column-major.
        b = torch.randn(n, k, device=dev, generator=gen).to(fp8).t()
        one = torch.ones((), device=dev, dtype=torch.float32)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    tdtype = {
        "fp32": torch.float32,
        "tf32": torch.float32,
        "fp16": torch.float16,
        "bf16": torch.bfloat16,
    }[dtype]
    a = torch.randn(m, k, device=dev, dtype=tdtype, generator=gen)
    b = torch.randn(k, n, device=dev, dtype=tdtype, generator=gen)
    out = torch.empty(m, n, device=dev, dtype=tdtype)
    return lambda: torch.matmul(a, b, out=out)


def _l2_flusher(device: str) -> Callable[[], Any] | None:
    """Writes a buffer twice the L2 size (≥ 64 MiB) so each product starts with a cold cache."""
    if not device.startswith("cuda"):
        return None
    import torch

    dev = torch.device(device)
    l2 = int(getattr(torch.cuda.get_device_properties(dev), "L2_cache_size", 0) or 50 * 2**20)
    buf = torch.empty(max(2 * l2, 64 * 2**20), dtype=torch.int8, device=dev)
    return lambda: buf.zero_()


def _probe_rate_flop_s(
    fn_for: Callable[[int], Callable[[], Any]],
    clock: Callable[[], float],
    sync: Callable[[], Any],
    size: int,
) -> float:
    """A rough FLOP/s from a size³ product, to predict how long bigger ones take."""
    fn = fn_for(size)
    fn()
    sync()
    best = float("inf")
    for _ in range(3):
        t0 = clock()
        fn()
        sync()
        best = min(best, clock() - t0)
    return 2.0 * size**3 / max(best, 1e-9)


def _round16(x: float) -> int:
    return max(16, round(x / 16.0) * 16)


def gemm_bench(dtype: str, shapes: list[Shape] | None = None) -> BenchFn:
    """The GEMM case for one dtype (``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``)."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}")

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        why = _support(ctx.device, dtype)
        if why is not None:
            res = skipped("gemm", dtype, why)
            yield Progress(1.0, f"GEMM {dtype}: skipped", res)
            return (res,)
        import torch

        plan = shapes if shapes is not None else gemm_shapes(ctx.suite, ctx.is_cuda)
        cuda = ctx.is_cuda
        name, mem_gib = _device_identity(ctx.device)
        peak = spec_peak_tflops(name, dtype, mem_gib)
        results: list[Result] = []
        with _matmul_precision(dtype):
            flush = _l2_flusher(ctx.device)
            dev = torch.device(ctx.device)
            rate = _probe_rate_flop_s(
                lambda s: _operands(dtype, s, s, s, ctx.device),
                ctx.clock,
                (lambda: torch.cuda.synchronize(dev)) if cuda else (lambda: None),
                2048 if cuda else 128,
            )
            for idx, (label, m0, n0, k0) in enumerate(plan):
                ctx.check()
                m, n, k = (_round16(v * ctx.scale) for v in (m0, n0, k0))
                case = f"{dtype} {m}x{n}x{k}" + (f" {label}" if label else "")
                if f"gemm/{case}" in ctx.done_keys:
                    continue
                flop = 2.0 * m * n * k
                step_s = flop / rate
                if not cuda and step_s > MAX_CPU_STEP_S:
                    res = skipped(
                        "gemm",
                        case,
                        N_(
                            "one product would take ~{t:.1f} s on this CPU (limit {limit:.0f} s, "
                            "so cancel stays prompt)"
                        ).format(t=step_s, limit=MAX_CPU_STEP_S),
                    )
                    results.append(res)
                    yield Progress((idx + 1) / len(plan), f"GEMM {case}: skipped", res)
                    continue
                warmup, min_iters = (5, 5) if cuda else (1, 3)
                if not ctx.affordable(step_s * (warmup + min_iters)):
                    res = skipped("gemm", case, N_("time budget of the case reached"))
                    results.append(res)
                    yield Progress((idx + 1) / len(plan), f"GEMM {case}: skipped", res)
                    continue
                yield Progress(idx / len(plan), f"GEMM {case}")
                target_s = min(
                    1.0 if cuda else 1.5, max(ctx.time_left_s() / (len(plan) - idx), 0.1)
                )
                iters = int(min(100 if cuda else 20, max(min_iters, target_s / step_s)))
                fn = _operands(dtype, m, n, k, ctx.device)
                durations = measure(
                    fn,
                    timer=ctx.timer(),
                    iterations=iters,
                    warmup=warmup,
                    min_iterations=min_iters,
                    max_time_s=None if cuda else target_s,
                    before=flush,
                    check=ctx.check,
                    clock=ctx.clock,
                )
                del fn
                st = summarize(durations)
                rate = flop / st.median_s
                med = gemm_tflops(m, n, k, st.median_s)
                res = GemmResult(
                    bench="gemm",
                    case=case,
                    dtype=dtype,
                    m=m,
                    n=n,
                    k=k,
                    iterations=st.n,
                    time_mean_s=st.mean_s,
                    time_median_s=st.median_s,
                    time_min_s=st.min_s,
                    tflops_mean=gemm_tflops(m, n, k, st.mean_s),
                    tflops_median=med,
                    tflops_max=gemm_tflops(m, n, k, st.min_s),
                    peak_tflops=peak,
                    pct_of_peak=100.0 * med / peak if peak else None,
                    l2_flushed=flush is not None,
                    notes=(N_("sizes scaled by {s:g} after out-of-memory").format(s=ctx.scale),)
                    if ctx.scale < 1
                    else (),
                )
                results.append(res)
                yield Progress((idx + 1) / len(plan), f"GEMM {case}", res)
            if cuda:
                del flush
                torch.cuda.empty_cache()
        return tuple(results)

    run.__name__ = f"gemm_{dtype}"
    return run
