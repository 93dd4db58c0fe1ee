"""The exporter's cost per scrape, under load, and against idle connections. Prints JSON.

- ``render``: collect + :func:`render_text` in-process (the exporter's CPU per fresh snapshot);
  ``http``: one HTTP GET at a time over loopback, as Prometheus sees it (target: median <= 5 ms).
- ``concurrent``: ``--clients`` threads (20) each scraping ``--scrapes`` times (200) at once
  (target: p99 <= 50 ms).
- ``half_open``: ``--idle`` connections (500) that never send a request: the exporter's threads
  while they are open (target: those at start plus at most its worker pool, 16), a scrape meanwhile,
  and the seconds until the exporter closed every one (its timeout, ``--timeout``, is 2 s here).

The exporter runs in a child process (its own GIL, as in production). The snapshot is built from
the model dataclasses (8×H100, every field filled, NVLink and ECC present), so the numbers are the
worst case for our metric set and do not depend on the simulator.

    .venv/bin/python perf/exporter.py [--n 300] [--gpus 8] [--clients 20] [--scrapes 200]
        [--baseline PATH [--runs 7]]

With ``--baseline PATH`` (a checkout of an earlier gpuprof, e.g. ``git worktree add --detach
/tmp/gpuprof-old 4ff722e``, before GPM and per-process statistics) the render is also measured
side by side: each of ``old``, ``new`` (the same snapshot) and ``new_gpm`` (its GPUs with GPM's
profiling activity too: more series) renders in its own child process, in turn, ``--runs`` times;
``render_vs_old`` holds the medians and the ratios to ``old``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from _common import BUSY_GPM_PCT
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
    SystemInfo,
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


#: GPM's profiling activity of a busy GPU (issue 12), for the ``new_gpm`` render.
PROF = {
    **{f"prof_{name}": pct for name, pct in BUSY_GPM_PCT.items()},
    "prof_pcie_rx_bytes_s": 1e9,
    "prof_pcie_tx_bytes_s": 2e8,
    "prof_nvlink_rx_bytes_s": 18e9,
    "prof_nvlink_tx_bytes_s": 18e9,
    "prof_nvdec_pct": 0.0,
    "prof_nvjpg_pct": 0.0,
}


def _snapshot(n: int, t: float, prof: bool = False) -> Snapshot:
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
            ecc=EccCounts.clean(),
            **(PROF if prof else {}),
        )
        for i in range(n)
    )
    return Snapshot(time_s=t, source=SourceKind.NVML, host=HostSample(), gpus=gpus)


def _source(n: int) -> Any:
    """The served source: ``n`` GPUs of :func:`_snapshot`. Its class is made here, not at import,
    so that the render also runs against an earlier checkout (``--baseline``): only the serving
    half needs this gpuprof's KeptFacts and server module."""
    from gpuprof.telemetry.source import KeptFacts

    devices = _devices(n)

    class Source(KeptFacts):
        kind = SourceKind.NVML
        label = "perf"
        _system = SystemInfo(hostname="perf-node")
        _devices = devices

        def poll(self) -> Snapshot:
            return _snapshot(n, time.time())

    return Source()


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


def _serve(gpus: int, timeout_s: float) -> None:
    """The child: serve until stdin closes."""
    with Exporter(
        _source(gpus), port=0, interval_s=1.0, bench_values=None, timeout_s=timeout_s
    ) as exporter:
        print(exporter.port, flush=True)
        sys.stdin.read()


def _child_threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


def _child_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _scrape_ms(port: int) -> float:
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200 or not body:
            raise RuntimeError(f"scrape answered {resp.status}")
    finally:
        conn.close()
    return (time.perf_counter() - t0) * 1000.0


def _concurrent(pid: int, port: int, clients: int, scrapes: int) -> dict[str, float]:
    times: list[float] = []
    errors: list[BaseException] = []
    start = threading.Barrier(clients)

    def client() -> None:
        mine = []
        start.wait()
        try:
            for _ in range(scrapes):
                mine.append(_scrape_ms(port))
        except BaseException as exc:  # counted below
            errors.append(exc)
        times.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0, cpu0 = time.perf_counter(), _child_cpu_s(pid)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall, cpu = time.perf_counter() - t0, _child_cpu_s(pid) - cpu0
    times.sort()
    return {
        "concurrent_clients": clients,
        "concurrent_scrapes": len(times),
        "concurrent_errors": len(errors),
        "concurrent_median_ms": round(statistics.median(times), 3),
        "concurrent_p99_ms": round(times[int(0.99 * (len(times) - 1))], 3),
        "concurrent_max_ms": round(times[-1], 3),
        "concurrent_scrapes_per_s": round(len(times) / wall, 1),
        # The exporter's own CPU per scrape: what the load costs it, whatever else runs here.
        "concurrent_server_cpu_ms_per_scrape": round(1000.0 * cpu / max(1, len(times)), 3),
    }


def _half_open(port: int, pid: int, idle: int, timeout_s: float) -> dict[str, float | int]:
    before = _child_threads(pid)
    socks = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(idle)]
    scrape_ms = _scrape_ms(port)  # answered after every idle one was accepted
    during = _child_threads(pid)
    t0 = time.perf_counter()
    closed = 0
    for s in socks:
        try:
            closed += s.recv(1) == b""
        except ConnectionResetError:
            closed += 1
        except TimeoutError:
            pass
        s.close()
    return {
        "half_open_connections": idle,
        "half_open_threads_before": before,
        "half_open_threads_during": during,
        "half_open_scrape_ms": round(scrape_ms, 3),
        "half_open_closed": closed,
        "half_open_timeout_s": timeout_s,
        "half_open_all_closed_after_s": round(time.perf_counter() - t0, 2),
        "threads_after": _child_threads(pid),
    }


def _render_median_ms(gpus: int, n: int, prof: bool) -> float:
    """collect + render of one fresh snapshot (what the exporter does once per poll)."""
    snap = _snapshot(gpus, time.time(), prof)
    collector = SnapshotCollector(
        lambda: snap, _devices(gpus), hostname="perf-node", bench_values=None
    )
    return _median_ms(lambda: render_text(collector.collect()), n)[0]


def _render_vs_old(baseline: Path, gpus: int, n: int, runs: int) -> dict[str, object]:
    here = Path(__file__).resolve().parents[1]
    variants = {"old": (baseline, False), "new": (here, False), "new_gpm": (here, True)}
    times: dict[str, list[float]] = {name: [] for name in variants}
    perf = Path(__file__).resolve().parent
    for _ in range(runs):
        for name, (root, prof) in variants.items():  # in turn: the noise hits all alike
            # This script as a module, importing the gpuprof of ``root`` (first on the path).
            code = (
                f"import sys; sys.path[:0] = [{str(root)!r}, {str(perf)!r}]; import exporter; "
                f"print(exporter._render_median_ms({gpus}, {n}, {prof}))"
            )
            out = subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd="/"
            )
            times[name].append(float(out.stdout))
    med = {name: round(statistics.median(t), 3) for name, t in times.items()}
    return {
        "baseline": str(baseline),
        "runs": runs,
        "render_median_ms": med,
        "new_over_old": round(med["new"] / med["old"], 3),
        "new_gpm_over_old": round(med["new_gpm"] / med["old"], 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--scrapes", type=int, default=200)
    ap.add_argument("--idle", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--baseline", type=Path, help="an earlier checkout to compare the render")
    ap.add_argument("--runs", type=int, default=7, help="render runs per variant (--baseline)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        _serve(args.gpus, args.timeout)
        return

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

    serve = ["--serve", "--gpus", str(args.gpus), "--timeout", str(args.timeout)]
    child = subprocess.Popen(
        [sys.executable, __file__, *serve],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])),
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        threads_at_start = _child_threads(child.pid)
        url = f"http://127.0.0.1:{port}/metrics"

        def get() -> None:
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()

        http_med, http_p95 = _median_ms(get, args.n)
        load = _concurrent(child.pid, port, args.clients, args.scrapes)
        idle = _half_open(port, child.pid, args.idle, args.timeout)
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)
    from gpuprof.exporter.server import DEFAULT_MAX_THREADS

    threads_bound = threads_at_start + DEFAULT_MAX_THREADS  # + the worker pool, at most
    versus = (
        {} if args.baseline is None else _render_vs_old(args.baseline, args.gpus, args.n, args.runs)
    )

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
                **({"render_vs_old": versus} if versus else {}),
                "http_median_ms": round(http_med, 3),
                "http_p95_ms": round(http_p95, 3),
                "target_ms": 5.0,
                **load,
                "concurrent_target_p99_ms": 50.0,
                "threads_at_start": threads_at_start,
                **idle,
                "half_open_target_threads": threads_bound,
                "ok": http_med <= 5.0
                and load["concurrent_p99_ms"] <= 50.0
                and load["concurrent_errors"] == 0
                and idle["half_open_threads_during"] <= threads_bound
                and idle["half_open_closed"] == args.idle,
            }
        )
    )


if __name__ == "__main__":
    main()
