"""Copy bandwidth, the nvbandwidth way: warm-up, ≥ 3 timed samples (CUDA events on a GPU), the
median, a size sweep, and the destination checked against the source pattern afterwards.

Directions: ``h2d`` and ``d2h`` with pageable and pinned host memory, ``d2d`` on one device, and
``host`` (``tensor.copy_`` between two host buffers) on the CPU. Bandwidth counts the bytes copied;
a d2d or host copy reads and writes each byte, so its memory traffic is twice that.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import Any

from gpuprof.bench.base import BenchFn, CaseContext, MemoryResult, Progress, Result, skipped
from gpuprof.bench.timing import measure, summarize
from gpuprof.i18n import N_

__all__ = ["DIRECTIONS", "memory_bench", "memory_sizes"]

MiB = 2**20
DIRECTIONS: tuple[str, ...] = ("h2d", "d2h", "d2d", "host")

_SIZES_MIB = {
    ("cuda", "quick"): (1, 64, 1024),
    ("cuda", "standard"): (1, 4, 16, 64, 256, 1024),
    ("cuda", "full"): tuple(2**i for i in range(11)),
    ("cpu", "quick"): (1, 16, 256),
    ("cpu", "standard"): (1, 4, 16, 64, 256, 1024),
    ("cpu", "full"): tuple(2**i for i in range(13)),  # up to 4 GiB: two buffers fit in 24 GB
}
_BLOCK = MiB  # the source holds one random MiB, repeated


def memory_sizes(suite: str, cuda: bool) -> list[int]:
    """Copy sizes in bytes for a suite (1 MiB … 1 GiB on a GPU)."""
    return [s * MiB for s in _SIZES_MIB[("cuda" if cuda else "cpu", suite)]]


def _buffers(direction: str, pinned: bool, size: int, device: str) -> tuple[Any, Any, Any]:
    """(src, dst, pattern block on dst's device); src holds the block repeated."""
    import torch

    dev = torch.device(device)
    block_len = min(size, _BLOCK)
    gen = torch.Generator().manual_seed(size)
    block = torch.randint(0, 256, (block_len,), dtype=torch.uint8, generator=gen)
    src_dev = dev if direction in ("d2h", "d2d") else torch.device("cpu")
    dst_dev = dev if direction in ("h2d", "d2d") else torch.device("cpu")
    host_pinned = pinned and direction in ("h2d", "d2h")
    src = torch.empty(
        size, dtype=torch.uint8, device=src_dev, pin_memory=host_pinned and src_dev.type == "cpu"
    )
    dst = torch.zeros(
        size, dtype=torch.uint8, device=dst_dev, pin_memory=host_pinned and dst_dev.type == "cpu"
    )
    src.view(-1, block_len).copy_(block.to(src_dev).expand(size // block_len, block_len))
    return src, dst, block.to(dst_dev)


def _verified(dst: Any, block: Any) -> bool:
    import torch

    return bool(
        torch.equal(dst.view(-1, block.numel()), block.expand(dst.numel() // block.numel(), -1))
    )


def memory_bench(direction: str, sizes: list[int] | None = None) -> BenchFn:
    """The copy-bandwidth case for one direction (h2d and d2h time pageable and pinned)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}")

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        if direction != "host" and not ctx.is_cuda:
            res = skipped("memory", direction, N_("needs a CUDA device"))
            yield Progress(1.0, f"memory {direction}: skipped", res)
            return (res,)
        import torch

        cuda = ctx.is_cuda
        plan_sizes = sizes if sizes is not None else memory_sizes(ctx.suite, cuda)
        variants: tuple[bool | None, ...] = (
            (False, True) if direction in ("h2d", "d2h") else (None,)
        )
        plan = [(p, s) for p in variants for s in plan_sizes]
        results: list[Result] = []
        rate: float | None = None  # bytes/s of the last size, to predict the next
        for idx, (pinned, size0) in enumerate(plan):
            ctx.check()
            size = (
                max(_BLOCK, int(size0 * ctx.scale) // _BLOCK * _BLOCK) if size0 >= _BLOCK else size0
            )
            kind = {None: "", False: " pageable", True: " pinned"}[pinned]
            case = (
                f"{direction}{kind} {size // MiB} MiB"
                if size >= MiB
                else f"{direction}{kind} {size} B"
            )
            if f"memory/{case}" in ctx.done_keys:
                continue
            if rate is not None and not ctx.affordable(6 * size / rate):
                res = skipped("memory", case, N_("time budget of the case reached"))
                results.append(res)
                yield Progress((idx + 1) / len(plan), f"memory {case}: skipped", res)
                continue
            yield Progress(idx / len(plan), f"memory {case}")
            src, dst, block = _buffers(direction, bool(pinned), size, ctx.device)
            # Pinned copies are asynchronous (cudaMemcpyAsync); the events bracket them on the stream.
            copy: Callable[[], Any] = functools.partial(dst.copy_, src, non_blocking=bool(pinned))
            target_s = min(0.5, max(ctx.time_left_s() / (len(plan) - idx), 0.05))
            predicted = size / rate if rate else 0.0
            iters = 20 if predicted == 0 else int(min(20, max(3, target_s / max(predicted, 1e-6))))
            durations = measure(
                copy,
                timer=ctx.timer(),
                iterations=iters,
                warmup=2,
                min_iterations=3,
                max_time_s=None if cuda else target_s,
                check=ctx.check,
                clock=ctx.clock,
            )
            if cuda:
                torch.cuda.synchronize(torch.device(ctx.device))
            ok = _verified(dst, block)
            st = summarize(durations)
            rate = size / st.median_s
            notes: list[str] = []
            if direction in ("d2d", "host"):
                notes.append(N_("memory traffic = 2x bytes copied (read + write)"))
            if ctx.scale < 1:
                notes.append(N_("size scaled by {s:g} after out-of-memory").format(s=ctx.scale))
            res = MemoryResult(
                bench="memory",
                case=case,
                status="ok" if ok else N_("failed: destination differs from source after the copy"),
                direction=direction,
                pinned=pinned,
                size_bytes=size,
                samples=st.n,
                time_median_s=st.median_s,
                bandwidth_bytes_s=size / st.median_s,
                bandwidth_max_bytes_s=size / st.min_s,
                traffic_factor=2 if direction in ("d2d", "host") else 1,
                verified=ok,
                notes=tuple(notes),
            )
            del copy, src, dst, block
            results.append(res)
            yield Progress((idx + 1) / len(plan), f"memory {case}", res)
        if cuda:
            torch.cuda.empty_cache()
        return tuple(results)

    run.__name__ = f"memory_{direction}"
    return run
