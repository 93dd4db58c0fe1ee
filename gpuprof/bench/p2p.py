"""GPU↔GPU copies, like the CUDA samples' p2pBandwidthLatencyTest.

For every ordered pair (i, j): unidirectional bandwidth (i → j), bidirectional bandwidth (i → j
and j → i at once, bytes of both directions over the time) and latency (a 4-byte copy), with peer
access on (a direct ``copy_`` between devices: torch enables peer access where
``can_device_access_peer`` allows it) and off (staged through pinned host memory, which is what
the driver does without peer access). Each pair is labelled from NVML topology (``nvidia-smi topo
-m``): NVLink or the PCIe path. Fewer than two CUDA devices → a skipped result, never a number.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Generator
from typing import Any

from gpuprof.bench.base import BenchFn, CaseContext, P2PResult, Progress, Result, skipped
from gpuprof.i18n import N_

__all__ = ["link_label", "p2p_bench"]

MiB = 2**20
_PCIE_PATHS = {
    "PIX": "PCIe (PIX: one switch)",
    "PXB": "PCIe (PXB: several switches)",
    "PHB": "PCIe (PHB: through the CPU's host bridge)",
    "NODE": "PCIe (NODE: across host bridges in one NUMA node)",
    "SYS": "PCIe (SYS: across the CPU interconnect)",
}
_SIZES = {"quick": 64 * MiB, "standard": 256 * MiB, "full": 1024 * MiB}


def link_label(topo_label: str | None) -> str | None:
    """``"NV18"`` → ``"NVLink (NV18)"``; ``"PIX"`` → a PCIe path; None when unknown."""
    if topo_label is None:
        return None
    if topo_label == "X":
        return "self"
    if topo_label.startswith("NV"):
        return f"NVLink ({topo_label})"
    if topo_label == "XGMI":  # AMD's GPU-to-GPU link (amdsmi topology)
        return "XGMI (Infinity Fabric)"
    return _PCIE_PATHS.get(topo_label, f"PCIe ({topo_label})")


def _nvml_indices(count: int, source: Any) -> tuple[list[int], bool]:
    """CUDA ordinal → NVML index, matched by PCI bus id; (identity, False) when unmatched."""
    import torch

    identity = list(range(count))
    if source is None:
        return identity, False
    try:
        infos = source.devices()
    except Exception:
        return identity, False
    by_bus = {str(d.pci_bus_id).lower()[-12:]: d.index for d in infos if d.pci_bus_id}
    mapping: list[int] = []
    for i in range(count):
        props = torch.cuda.get_device_properties(i)
        bus = getattr(props, "pci_bus_id", None)
        dom = getattr(props, "pci_domain_id", None)
        dev = getattr(props, "pci_device_id", None)
        if bus is None or dom is None or dev is None:
            return identity, False
        key = f"{dom:04x}:{bus:02x}:{dev:02x}.0"[-12:]
        if key not in by_bus:
            return identity, False
        mapping.append(by_bus[key])
    return mapping, True


def _wall_median(
    fn: Callable[[], Any],
    sync: Callable[[], Any],
    iters: int,
    check: Callable[[], Any],
    clock: Callable[[], float],
) -> float:
    fn()
    sync()
    times = []
    for _ in range(iters):
        check()
        t0 = clock()
        fn()
        sync()
        times.append(clock() - t0)
    return statistics.median(times)


def p2p_bench(size_bytes: int | None = None) -> BenchFn:
    """The P2P matrix case."""

    def run(ctx: CaseContext) -> Generator[Progress, None, tuple[Result, ...]]:
        if not ctx.is_cuda:
            res = skipped("p2p", "matrix", N_("needs 2 CUDA devices"))
            yield Progress(1.0, "P2P: skipped", res)
            return (res,)
        import torch

        n = torch.cuda.device_count()
        if n < 2:
            res = skipped("p2p", "matrix", N_("needs 2 CUDA devices"))
            yield Progress(1.0, "P2P: skipped", res)
            return (res,)
        size = int((size_bytes or _SIZES[ctx.suite]) * ctx.scale) // MiB * MiB or MiB
        devs = [torch.device("cuda", i) for i in range(n)]

        def sync() -> None:
            for d in devs:
                torch.cuda.synchronize(d)

        access = tuple(
            tuple(i == j or bool(torch.cuda.can_device_access_peer(i, j)) for j in range(n))
            for i in range(n)
        )
        nvml, matched = _nvml_indices(n, ctx.source)
        topo = None
        if ctx.source is not None:
            try:
                topo = ctx.source.topology()
            except Exception:
                topo = None
        links = tuple(
            tuple(
                link_label(topo.link(nvml[i], nvml[j])) if topo is not None else None
                for j in range(n)
            )
            for i in range(n)
        )
        bufs = [torch.ones(size, dtype=torch.uint8, device=d) for d in devs]
        recv = [torch.empty(size, dtype=torch.uint8, device=d) for d in devs]
        tiny = [torch.ones(4, dtype=torch.uint8, device=d) for d in devs]
        tiny_recv = [torch.empty(4, dtype=torch.uint8, device=d) for d in devs]
        stage = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        stage_back = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        tiny_stage = torch.empty(4, dtype=torch.uint8, pin_memory=True)
        streams = [torch.cuda.Stream(device=d) for d in devs]  # type: ignore[no-untyped-call]
        iters = 5 if ctx.suite == "quick" else 10
        empty: list[list[float | None]] = [[None] * n for _ in range(n)]
        uni_on, uni_off, bi_on, bi_off = ([r[:] for r in empty] for _ in range(4))
        lat_on, lat_off = ([r[:] for r in empty] for _ in range(2))
        pairs = [(i, j) for i in range(n) for j in range(n)]

        def direct_copy(src: Any, dst: Any) -> Callable[[], None]:
            def run() -> None:
                dst.copy_(src, non_blocking=True)

            return run

        def staged_copy(src: Any, dst: Any, host: Any, src_dev: Any) -> Callable[[], None]:
            """Through pinned host memory: the device-to-host copy done before the next."""

            def run() -> None:
                host.copy_(src, non_blocking=True)
                torch.cuda.synchronize(src_dev)
                dst.copy_(host, non_blocking=True)

            return run

        for idx, (i, j) in enumerate(pairs):
            ctx.check()
            if ctx.over_budget():
                break
            yield Progress(idx / len(pairs), f"P2P GPU{i} → GPU{j}")

            direct = direct_copy(bufs[i], recv[j])
            staged = staged_copy(bufs[i], recv[j], stage, devs[i])
            tiny_direct = direct_copy(tiny[i], tiny_recv[j])
            tiny_staged = staged_copy(tiny[i], tiny_recv[j], tiny_stage, devs[i])

            def both(i: int = i, j: int = j) -> None:
                with torch.cuda.stream(streams[i]):
                    recv[j].copy_(bufs[i], non_blocking=True)
                with torch.cuda.stream(streams[j]):
                    recv[i].copy_(bufs[j], non_blocking=True)

            def both_staged(i: int = i, j: int = j) -> None:
                with torch.cuda.stream(streams[i]):
                    stage.copy_(bufs[i], non_blocking=True)
                with torch.cuda.stream(streams[j]):
                    stage_back.copy_(bufs[j], non_blocking=True)
                sync()
                with torch.cuda.stream(streams[j]):
                    recv[j].copy_(stage, non_blocking=True)
                with torch.cuda.stream(streams[i]):
                    recv[i].copy_(stage_back, non_blocking=True)

            med = _wall_median(direct, sync, iters, ctx.check, ctx.clock)
            uni_on[i][j] = size / med
            lat_on[i][j] = _wall_median(tiny_direct, sync, 20, ctx.check, ctx.clock)
            if i != j:
                uni_off[i][j] = size / _wall_median(staged, sync, iters, ctx.check, ctx.clock)
                bi_on[i][j] = 2 * size / _wall_median(both, sync, iters, ctx.check, ctx.clock)
                bi_off[i][j] = (
                    2 * size / _wall_median(both_staged, sync, iters, ctx.check, ctx.clock)
                )
                lat_off[i][j] = _wall_median(tiny_staged, sync, 20, ctx.check, ctx.clock)
        ok = all(recv[j][:16].eq(1).all().item() for j in range(n))
        notes = [N_("latency is host-timed (copy + synchronize), as an upper bound")]
        if topo is not None and not matched:
            notes.append(
                N_("CUDA and NVML device order matched by index (PCI bus ids unavailable)")
            )
        done = sum(1 for row in uni_on for v in row if v is not None)
        status = "ok" if done == len(pairs) else N_("partial: time budget of the case reached")
        if not ok:
            status = N_("failed: received data differs from what was sent")
        res = P2PResult(
            bench="p2p",
            case=f"matrix {n} GPUs",
            status=status,
            devices=tuple(range(n)),
            size_bytes=size,
            access=access,
            links=links,
            uni_bw_on_bytes_s=tuple(map(tuple, uni_on)),
            uni_bw_off_bytes_s=tuple(map(tuple, uni_off)),
            bi_bw_on_bytes_s=tuple(map(tuple, bi_on)),
            bi_bw_off_bytes_s=tuple(map(tuple, bi_off)),
            latency_on_s=tuple(map(tuple, lat_on)),
            latency_off_s=tuple(map(tuple, lat_off)),
            notes=tuple(notes),
        )
        bufs.clear()
        recv.clear()
        torch.cuda.empty_cache()
        yield Progress(1.0, "P2P done", res)
        return (res,)

    run.__name__ = "p2p"
    return run
