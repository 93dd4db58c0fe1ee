"""Cost of one Prometheus scrape of 8 GPUs (target: median <= 5 ms). Prints JSON.

Two numbers: ``render`` is collect + :func:`render_text` in-process (what the exporter's CPU pays per
scrape); ``http`` is a full HTTP GET over loopback, as Prometheus sees it. The snapshot is built
from the model dataclasses (8×H100, every field filled, NVLink and ECC present), so the numbers
are the worst case for our metric set and do not depend on the simulator.

    .venv/bin/python perf/exporter.py [--n 300] [--gpus 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import urllib.request
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest

from gpuprof.exporter import Exporter, SnapshotCollector, render_text
from gpuprof.telemetry.model import (
    DeviceInfo,
    EccCounts,
    GpuSample,
    HostSample,
    NvLinkSample,
    Snapshot,
    SourceKind,
    SourceStatus,
    SystemInfo,
    Topology,
)

MIB = 2**20


def _devices(n: int) -> tuple[DeviceInfo, ...]:
    return tuple(
        DeviceInfo(
            index=i,
            name="NVIDIA H100 80GB HBM3",
            uuid=f"GPU-{i:08d}-0000-0000-0000-000000000000",
            pci_bus_id=f"00000000:{0x18 + i:02X}:00.0",
            memory_total_bytes=81559 * MIB,
        )
        for i in range(n)
    )


def _snapshot(n: int, t: float) -> Snapshot:
    gpus = tuple(
        GpuSample(
            index=i,
            uuid=f"GPU-{i:08d}-0000-0000-0000-000000000000",
            util_gpu_pct=97.0,
            util_mem_pct=41.0,
            util_enc_pct=0.0,
            util_dec_pct=0.0,
            mem_total_bytes=81559 * MIB,
            mem_used_bytes=70000 * MIB,
            mem_free_bytes=11559 * MIB,
            mem_reserved_bytes=500 * MIB,
            clock_sm_mhz=1980.0,
            clock_mem_mhz=2619.0,
            power_w=690.0,
            power_limit_w=700.0,
            energy_total_j=1e6 + t,
            temp_gpu_c=66.0,
            temp_mem_c=70.0,
            throttle_reasons=("sw_power_cap",),
            throttle_mask=0x4,
            pcie_gen=5,
            pcie_width=16,
            pcie_rx_bytes_s=1e9,
            pcie_tx_bytes_s=2e8,
            pcie_replay_count=0,
            nvlinks=tuple(
                NvLinkSample(link=k, active=True, rx_bytes_s=1e9, tx_bytes_s=1e9) for k in range(18)
            ),
            nvlink_rx_bytes_s=18e9,
            nvlink_tx_bytes_s=18e9,
            ecc=EccCounts(0, 0, 0, 0, None, None, None, 0, 0, False, False),
        )
        for i in range(n)
    )
    return Snapshot(time_s=t, source=SourceKind.NVML, host=HostSample(), gpus=gpus)


@dataclass
class _Source:
    n: int
    kind: SourceKind = SourceKind.NVML
    label: str = "perf"

    def system_info(self) -> SystemInfo:
        return SystemInfo(hostname="perf-node")

    def devices(self) -> tuple[DeviceInfo, ...]:
        return _devices(self.n)

    def topology(self) -> Topology:
        return Topology()

    def status(self) -> SourceStatus:
        return SourceStatus()

    def poll(self) -> Snapshot:
        return _snapshot(self.n, time.time())

    def close(self) -> None:
        pass


def _median_ms(fn, n: int) -> tuple[float, float]:
    for _ in range(20):
        fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--gpus", type=int, default=8)
    args = ap.parse_args()

    snap = _snapshot(args.gpus, time.time())
    collector = SnapshotCollector(
        lambda: snap, _devices(args.gpus), hostname="perf-node", bench_values=None
    )
    reg = CollectorRegistry(auto_describe=False)
    reg.register(collector)
    body = render_text(collector.collect())
    render_med, render_p95 = _median_ms(lambda: render_text(collector.collect()), args.n)
    # For comparison: the same families through prometheus_client's own encoder.
    pc_med, _ = _median_ms(lambda: generate_latest(reg), args.n)

    with Exporter(_Source(args.gpus), port=0, interval_s=1.0, bench_values=None) as exporter:
        url = exporter.url

        def get() -> None:
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()

        http_med, http_p95 = _median_ms(get, args.n)

    print(
        json.dumps(
            {
                "bench": "exporter_scrape",
                "gpus": args.gpus,
                "iterations": args.n,
                "samples": sum(
                    1 for line in body.decode().splitlines() if line and not line.startswith("#")
                ),
                "bytes": len(body),
                "render_median_ms": round(render_med, 3),
                "render_p95_ms": round(render_p95, 3),
                "prometheus_client_render_median_ms": round(pc_med, 3),
                "http_median_ms": round(http_med, 3),
                "http_p95_ms": round(http_p95, 3),
                "target_ms": 5.0,
                "ok": http_med <= 5.0,
            }
        )
    )


if __name__ == "__main__":
    main()
