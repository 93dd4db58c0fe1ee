"""All-reduce and all-gather bandwidth and latency through ``torch.distributed``, as nccl-tests
defines them: algbw = bytes / time; busbw = algbw × 2(n-1)/n for all-reduce and × (n-1)/n for
all-gather, where bytes is the whole buffer (for all-gather, the gathered output).

NCCL on GPUs (one process per device), gloo on the CPU (two processes). The runner spawns the
processes and talks to them over a queue; under ``torchrun`` (``RANK`` and ``WORLD_SIZE`` set)
the benchmark uses the launcher's group instead, so several nodes work:
``torchrun --nnodes N --nproc-per-node G -m gpuprof bench --only collective``.
Each iteration is timed on every rank and the slowest rank's time counts.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue as queue_mod
import socket
import sys
import time
from collections.abc import Callable, Generator
from typing import Any

from gpuprof.bench.base import BenchFn, CaseContext, CollectiveResult, Progress, Result, skipped
from gpuprof.bench.timing import percentile
from gpuprof.i18n import N_

__all__ = [
    "OPS",
    "bus_factor",
    "collective_bench",
    "collective_sizes",
    "free_port",
    "launched_by_torchrun",
]

OPS: tuple[str, ...] = ("all_reduce", "all_gather")
KiB, MiB, GiB = 2**10, 2**20, 2**30

_SIZES = {
    ("cuda", "quick"): (8, 64 * KiB, MiB, 16 * MiB, 256 * MiB),
    ("cuda", "standard"): (*(8 * 8**i for i in range(10)), GiB),
    ("cuda", "full"): tuple(2**i for i in range(3, 31)),
    ("cpu", "quick"): (8, KiB, 64 * KiB, MiB),
    ("cpu", "standard"): (8, 256, 8 * KiB, 256 * KiB, 4 * MiB, 16 * MiB),
    ("cpu", "full"): tuple(2**i for i in range(3, 27, 2)),
}
_CPU_WORLD = 2
#: The parent waits this long for workers to exit after a cancel, then terminates them.
_CANCEL_GRACE_S = 0.5


def bus_factor(op: str, world: int) -> float:
    """nccl-tests' busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n for all-gather."""
    if op == "all_reduce":
        return 2.0 * (world - 1) / world
    if op == "all_gather":
        return (world - 1) / world
    raise ValueError(f"unknown collective {op!r}")


def collective_sizes(suite: str, cuda: bool) -> list[int]:
    """Buffer sizes in bytes: 8 B … 1 GiB on GPUs, capped on the CPU."""
    return list(_SIZES[("cuda" if cuda else "cpu", suite)])


def launched_by_torchrun() -> bool:
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (the rendezvous binds loopback only)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- what every rank runs -------------------------------------------------------------------------


def _sweep(
    *,
    dev: Any,
    backend: str,
    ops: tuple[str, ...],
    sizes: list[int],
    budget_s: float,
    should_stop: Callable[[], bool],
    emit: Callable[[tuple[Any, ...]], None] | None,
    suite: str,
) -> list[dict[str, Any]]:
    """Every rank runs this in lockstep; stop decisions are agreed with an all-reduce(MAX)."""
    import torch
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    cuda = dev.type == "cuda"
    t_start = time.perf_counter()
    plan = [(op, s) for op in ops for s in sizes]
    out: list[dict[str, Any]] = []
    flag = torch.zeros(1, device=dev)
    target_s = {"quick": 0.3, "standard": 0.6, "full": 1.0}.get(suite, 0.3) * (1.0 if cuda else 1.5)
    for idx, (op, size) in enumerate(plan):
        over = time.perf_counter() - t_start > budget_s
        flag.fill_(1.0 if (should_stop() or over) else 0.0)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if flag.item() > 0:
            if emit is not None:
                emit(("note", N_("stopped early: time budget reached or cancelled")))
            break
        if emit is not None:
            emit(("progress", idx / len(plan), f"{op} {size} B x{world}"))
        if op == "all_reduce":
            numel = max(size // 4, 1)
            buf = torch.zeros(numel, device=dev)  # zeros stay finite however often summed
            total_bytes = numel * 4

            step: Callable[[], Any] = functools.partial(dist.all_reduce, buf)
        else:
            per_rank = max(size // 4 // world, 1)
            send = torch.full((per_rank,), float(rank), device=dev)
            recv = torch.empty(per_rank * world, device=dev)
            total_bytes = per_rank * world * 4

            # all_gather_single is the newer name (torch >= 2.12) of all_gather_into_tensor.
            gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor

            step = functools.partial(gather, recv, send)

        def sync() -> None:
            if cuda:
                torch.cuda.synchronize(dev)

        for _ in range(3 if cuda else 2):
            step()
        sync()
        # One timed op, slowest rank, sets the same iteration count on every rank.
        t0 = time.perf_counter()
        step()
        sync()
        probe = torch.tensor([time.perf_counter() - t0], device=dev, dtype=torch.float64)
        dist.all_reduce(probe, op=dist.ReduceOp.MAX)
        iters = int(min(50 if cuda else 20, max(5, target_s / max(probe.item(), 1e-6))))
        times = torch.zeros(iters, dtype=torch.float64)
        if cuda:
            new_event: Any = torch.cuda.Event
            events = [
                (new_event(enable_timing=True), new_event(enable_timing=True)) for _ in range(iters)
            ]
            for a, b in events:
                a.record()
                step()
                b.record()
            sync()
            for i, (a, b) in enumerate(events):
                times[i] = a.elapsed_time(b) / 1000.0
        else:
            for i in range(iters):
                t0 = time.perf_counter()
                step()
                times[i] = time.perf_counter() - t0
        times_dev = times.to(dev)
        dist.all_reduce(times_dev, op=dist.ReduceOp.MAX)
        slowest = times_dev.cpu().tolist()
        p50 = percentile(slowest, 50.0)
        algbw = total_bytes / p50
        row = {
            "op": op,
            "size_bytes": total_bytes,
            "iterations": iters,
            "latency_p50_s": p50,
            "latency_p99_s": percentile(slowest, 99.0),
            "algbw_bytes_s": algbw,
            "busbw_bytes_s": algbw * bus_factor(op, world),
        }
        if op == "all_reduce":
            buf.fill_(1.0)
            step()
            sync()
            ok = bool(buf.eq(float(world)).all().item())
        else:
            got = recv.view(world, per_rank)[:, 0].cpu().tolist()
            ok = got == [float(r) for r in range(world)]
        row["verified"] = ok
        out.append(row)
        if emit is not None:
            emit(("result", row))
        del step
    return out


def _worker(
    rank: int,
    world: int,
    backend: str,
    device_kind: str,
    port: int,
    ops: tuple[str, ...],
    sizes: list[int],
    budget_s: float,
    suite: str,
    out_q: Any,
    stop: Any,
) -> None:
    """One spawned rank. Rank 0 reports progress and results on ``out_q``."""
    try:
        import torch
        import torch.distributed as dist

        if device_kind == "cuda":
            torch.cuda.set_device(rank)
            dev = torch.device("cuda", rank)
        else:
            torch.set_num_threads(1)  # one process per core
            dev = torch.device("cpu")
        from datetime import timedelta

        dist.init_process_group(
            backend,
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=world,
            timeout=timedelta(seconds=120),
        )
        try:
            _sweep(
                dev=dev,
                backend=backend,
                ops=ops,
                sizes=sizes,
                budget_s=budget_s,
                should_stop=stop.is_set,
                emit=out_q.put if rank == 0 else None,
                suite=suite,
            )
        finally:
            dist.destroy_process_group()
    except BaseException as exc:
        out_q.put(("error", rank, f"{type(exc).__name__}: {exc}"))
    finally:
        out_q.put(("done", rank))


# --- the benchmark, as the runner sees it ---------------------------------------------------------


def _to_result(row: dict[str, Any], backend: str, world: int) -> CollectiveResult:
    size = int(row["size_bytes"])
    return CollectiveResult(
        bench="collective",
        case=f"{row['op']} {size} B",
        status="ok"
        if row.get("verified", True)
        else N_("failed: wrong values after the collective"),
        op=row["op"],
        backend=backend,
        world_size=world,
        size_bytes=size,
        dtype="fp32",
        iterations=int(row["iterations"]),
        latency_p50_s=float(row["latency_p50_s"]),
        latency_p99_s=float(row["latency_p99_s"]),
        algbw_bytes_s=float(row["algbw_bytes_s"]),
        busbw_bytes_s=float(row["busbw_bytes_s"]),
    )


def collective_bench(
    ops: tuple[str, ...] = OPS, sizes: list[int] | None = None, world_size: int | None = None
) -> BenchFn:
    """The collectives case: spawns one process per device (or joins torchrun's group)."""

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        plan = sizes if sizes is not None else collective_sizes(ctx.suite, ctx.is_cuda)
        plan = [max(8, int(s * ctx.scale)) for s in plan]
        if launched_by_torchrun():
            return (yield from _run_in_torchrun_group(ctx, ops, plan))
        if ctx.is_cuda:
            import torch

            world = world_size or torch.cuda.device_count()
            if world < 2:
                res = skipped("collective", "all", N_("needs 2 CUDA devices"))
                yield Progress(1.0, "collectives: skipped", res)
                return (res,)
            backend, kind = "nccl", "cuda"
        else:
            world, backend, kind = world_size or _CPU_WORLD, "gloo", "cpu"
        return (yield from _run_spawned(ctx, ops, plan, world, backend, kind))

    run.__name__ = "collective"
    return run


def _run_spawned(
    ctx: CaseContext, ops: tuple[str, ...], plan: list[int], world: int, backend: str, kind: str
) -> Generator[Progress, None, tuple[Result, ...]]:
    import multiprocessing as mp

    mp_ctx = mp.get_context("spawn")
    out_q = mp_ctx.Queue()
    stop = mp_ctx.Event()
    port = free_port()
    env_backup = {k: os.environ.get(k) for k in ("GLOO_SOCKET_IFNAME",)}
    if (
        kind == "cpu"
        and sys.platform.startswith("linux")
        and not os.environ.get("GLOO_SOCKET_IFNAME")
    ):
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"  # children inherit it: keep gloo on loopback
    yield Progress(0.0, f"collectives: starting {world} {backend} processes")
    procs = [
        mp_ctx.Process(
            target=_worker,
            args=(
                rank,
                world,
                backend,
                kind,
                port,
                ops,
                plan,
                max(ctx.time_left_s() - 5.0, 1.0),
                ctx.suite,
                out_q,
                stop,
            ),
            daemon=True,
        )
        for rank in range(world)
    ]
    results: list[Result] = []
    notes: list[str] = []
    errors: list[str] = []
    done: set[int] = set()
    try:
        for p in procs:
            p.start()
        cancelled = False
        while len(done) < world:
            if ctx.cancel.cancelled and not cancelled:
                cancelled = True
                stop.set()
                deadline = time.perf_counter() + _CANCEL_GRACE_S
                while time.perf_counter() < deadline and any(p.is_alive() for p in procs):
                    time.sleep(0.05)
                break
            try:
                msg = out_q.get(timeout=0.1)
            except queue_mod.Empty:
                dead = [p for p in procs if not p.is_alive() and p.exitcode not in (0, None)]
                if dead and len(done) < world:
                    # A rank died without a word (killed, segfault): the others would hang.
                    errors.append(f"a worker process exited with code {dead[0].exitcode}")
                    break
                if ctx.time_left_s() < -30:
                    errors.append("workers did not finish within the time budget")
                    break
                continue
            if msg[0] == "progress":
                yield Progress(float(msg[1]), f"collectives: {msg[2]}")
            elif msg[0] == "result":
                res = _to_result(msg[1], backend, world)
                results.append(res)
                yield Progress(
                    len(results) / max(len(plan) * len(ops), 1), f"collectives: {res.case}", res
                )
            elif msg[0] == "note":
                notes.append(str(msg[1]))
            elif msg[0] == "error":
                errors.append(f"rank {msg[1]}: {msg[2]}")
            elif msg[0] == "done":
                done.add(int(msg[1]))
        ctx.check()
    finally:
        stop.set()
        for p in procs:
            if p.is_alive():
                p.join(timeout=0.2)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        out_q.close()
        out_q.join_thread()
        for k, v in env_backup.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if errors and not results:
        raise RuntimeError("; ".join(errors))
    if errors:
        notes.extend(errors)
    if notes:
        results = [_with_notes(r, notes) for r in results]
    return tuple(results)


def _with_notes(res: Result, notes: list[str]) -> Result:
    import dataclasses

    return dataclasses.replace(res, notes=res.notes + tuple(notes))


def _run_in_torchrun_group(
    ctx: CaseContext, ops: tuple[str, ...], plan: list[int]
) -> Generator[Progress, None, tuple[Result, ...]]:
    import torch
    import torch.distributed as dist

    if ctx.is_cuda:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        backend = "nccl"
    else:
        dev, backend = torch.device("cpu"), "gloo"
    created = False
    if not dist.is_initialized():
        dist.init_process_group(backend, init_method="env://")
        created = True
    world = dist.get_world_size()
    rows: list[tuple[Any, ...]] = []
    yield Progress(0.0, f"collectives: {world} ranks under torchrun")
    try:
        _sweep(
            dev=dev,
            backend=backend,
            ops=ops,
            sizes=plan,
            budget_s=max(ctx.time_left_s(), 1.0),
            should_stop=lambda: ctx.cancel.cancelled,
            emit=rows.append,
            suite=ctx.suite,
        )
    finally:
        if created:
            with contextlib.suppress(Exception):
                dist.destroy_process_group()
    results: list[Result] = []
    for row in rows:
        if row[0] == "result":
            res = _to_result(row[1], backend, world)
            results.append(res)
            yield Progress(1.0, f"collectives: {res.case}", res)
    return tuple(results)
