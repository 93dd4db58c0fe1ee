"""Assemble a :class:`~gpuprof.report.model.Report` from what gpuprof already has.

- :func:`build_report` — from static facts plus a list of snapshots (the core of the others).
- :func:`from_session` — a recorded session file (:class:`~gpuprof.telemetry.store.SessionStore`).
- :func:`from_source` — a short live sample of a telemetry source (NVML, or the simulator).
- :func:`demo_snapshots` — one scripted cycle of the simulator on a stepped clock (SIMULATED).
- :func:`load_bench_run`, :func:`summarize_bench` — a run from the results database.
- :func:`summarize_recommendation`, :func:`recommend_for` — cloud configurations for a workload.

Everything that came from the system goes through :func:`gpuprof.redact.clean_text` here, and
command lines through :func:`gpuprof.redact.redact_cmdline`, so every renderer gets safe text.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib.metadata
import math
import platform
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuprof import __version__
from gpuprof.diagnose import Finding, diagnose
from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.redact import clean_text, redact_cmdline
from gpuprof.report.model import (
    BenchRow,
    BenchSummary,
    Chart,
    ChartSeries,
    Machine,
    MetricStat,
    ProcessRow,
    RecommendationRowSummary,
    RecommendationSummary,
    Report,
    TelemetrySummary,
    ThrottleEvent,
    Versions,
)
from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    Snapshot,
    SourceKind,
    SystemInfo,
    Topology,
)

if TYPE_CHECKING:
    from gpuprof.bench.runner import BenchRun
    from gpuprof.recommend.rank import Recommendation, RecommendationRow
    from gpuprof.recommend.workload import Workload
    from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "GPU_METRICS",
    "HOST_METRICS",
    "build_report",
    "demo_snapshots",
    "from_session",
    "from_source",
    "load_bench_run",
    "recommend_for",
    "summarize_bench",
    "summarize_recommendation",
    "summarize_telemetry",
    "torch_versions",
    "versions",
]

#: GPU metrics summarized in a report: (GpuSample field, label, unit as in Chart.unit).
GPU_METRICS: tuple[tuple[str, str, str], ...] = (
    ("util_gpu_pct", "GPU utilization", "pct"),
    ("util_mem_pct", "Memory controller utilization", "pct"),
    ("mem_used_bytes", "Memory used", "bytes"),
    ("power_w", "Power draw", "w"),
    ("temp_gpu_c", "GPU temperature", "c"),
    ("clock_sm_mhz", "SM clock", "mhz"),
    ("clock_mem_mhz", "Memory clock", "mhz"),
    ("pcie_rx_bytes_s", "PCIe RX", "bytes_s"),
    ("pcie_tx_bytes_s", "PCIe TX", "bytes_s"),
    ("nvlink_rx_bytes_s", "NVLink RX", "bytes_s"),
    ("nvlink_tx_bytes_s", "NVLink TX", "bytes_s"),
)
#: Host metrics summarized in a report.
HOST_METRICS: tuple[tuple[str, str, str], ...] = (
    ("cpu_pct", "CPU utilization", "pct"),
    ("mem_used_bytes", "Host memory used", "bytes"),
    ("disk_read_bytes_s", "Disk read", "bytes_s"),
    ("disk_write_bytes_s", "Disk write", "bytes_s"),
    ("net_rx_bytes_s", "Network RX", "bytes_s"),
    ("net_tx_bytes_s", "Network TX", "bytes_s"),
)
#: GPU metrics drawn as charts (one line per GPU).
_GPU_CHARTS = (
    "util_gpu_pct",
    "mem_used_bytes",
    "power_w",
    "temp_gpu_c",
    "clock_sm_mhz",
    "nvlink_rx_bytes_s",
    "pcie_rx_bytes_s",
)
_Y_RANGES = {"pct": (0.0, 100.0)}
#: Points per chart series: min and max of this many time buckets.
CHART_BUCKETS = 240
#: Processes listed at most.
MAX_PROCESSES = 60


# --- versions and machine ------------------------------------------------------------------------


def torch_versions() -> tuple[str | None, str | None]:
    """(torch version, CUDA runtime it was built for) from package metadata, without importing
    torch (which costs seconds). ``(None, None)`` when torch is not installed."""
    try:
        dist = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        return None, None
    cuda: str | None = None
    try:
        text = Path(str(dist.locate_file("torch/version.py"))).read_text(encoding="utf-8")
        m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
        cuda = m.group(1) if m else None
    except OSError:
        pass
    return dist.version, cuda


def versions(system: SystemInfo | None = None) -> Versions:
    torch, torch_cuda = torch_versions()
    s = system or SystemInfo()
    return Versions(
        gpuprof=__version__,
        python=platform.python_version(),
        driver=_opt_clean(s.driver_version),
        cuda_driver=_opt_clean(s.cuda_driver_version),
        nvml=_opt_clean(s.nvml_version),
        torch=torch,
        torch_cuda=torch_cuda,
    )


def _opt_clean(text: str | None, max_len: int = 200) -> str | None:
    return None if text is None else clean_text(text, max_len)


def _clean_record(obj: Any, max_len: int = 300) -> Any:
    """A copy of a frozen record with every string field (also nested) passed through clean_text."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            cleaned = _clean_record(value, max_len)
            if cleaned is not value:
                changes[f.name] = cleaned
        return dataclasses.replace(obj, **changes) if changes else obj
    if isinstance(obj, str) and not isinstance(obj, enum.Enum):
        cleaned_text = clean_text(obj, max_len)
        return obj if cleaned_text == obj else cleaned_text
    if isinstance(obj, tuple):
        items = tuple(_clean_record(v, max_len) for v in obj)
        return obj if all(a is b for a, b in zip(items, obj, strict=True)) else items
    return obj


def machine(system: SystemInfo) -> Machine:
    return Machine(
        hostname=clean_text(system.hostname, 255),
        os=clean_text(system.os, 300),
        cpu_model=_opt_clean(system.cpu_model),
        cpu_count_logical=system.cpu_count_logical,
        memory_total_bytes=system.memory_total_bytes,
    )


# --- telemetry -----------------------------------------------------------------------------------


def _stats(values: np.ndarray) -> tuple[int, float | None, float | None, float | None]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0, None, None, None
    return int(finite.size), float(finite.min()), float(finite.mean()), float(finite.max())


def _decimate(
    x: np.ndarray, y: np.ndarray, buckets: int
) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
    """Min and max of each of ``buckets`` equal-count buckets, in time order; NaN → None (gap).

    Up to 4 points per bucket are kept as they are."""
    n = x.size
    if n <= 4 * buckets:
        xs, ys = x, y
    else:
        size = -(-n // buckets)
        padded = np.full(buckets * size, np.nan)
        padded[:n] = y
        grid = padded.reshape(buckets, size)
        finite = np.isfinite(grid)
        lo = np.argmin(np.where(finite, grid, np.inf), axis=1)
        hi = np.argmax(np.where(finite, grid, -np.inf), axis=1)
        base = np.arange(buckets) * size
        empty = ~finite.any(axis=1)
        lo = np.where(empty, 0, lo) + base
        hi = np.where(empty, 0, hi) + base
        idx = np.unique(np.concatenate([lo, hi]))
        idx = idx[idx < n]
        xs, ys = x[idx], y[idx]
    return (
        tuple(round(float(v), 3) for v in xs),
        tuple(None if not math.isfinite(v) else float(v) for v in ys.tolist()),
    )


def _gpu_matrix(snaps: Sequence[Snapshot], gpu: int, field: str) -> np.ndarray:
    out = np.full(len(snaps), np.nan)
    for k, snap in enumerate(snaps):
        for g in snap.gpus:
            if g.index == gpu:
                v = None if g.lost else getattr(g, field)
                if v is not None:
                    out[k] = float(v)
                break
    return out


def _throttle_events(snaps: Sequence[Snapshot], gpu: int) -> list[ThrottleEvent]:
    events: list[ThrottleEvent] = []
    start: float | None = None
    reasons: dict[str, None] = {}

    def close(end: float) -> None:
        nonlocal start, reasons
        if start is not None:
            events.append(ThrottleEvent(gpu, start, end, max(0.0, end - start), tuple(reasons)))
        start, reasons = None, {}

    last_t: float | None = None
    for snap in snaps:
        g = next((s for s in snap.gpus if s.index == gpu), None)
        names = _reasons_of(g) if g is not None else ()
        if names:
            if start is None:
                start = snap.time_s
            for name in names:
                reasons[name] = None
        else:
            close(snap.time_s)
        last_t = snap.time_s
    if last_t is not None:
        close(last_t)
    return events


def _reasons_of(g: GpuSample) -> tuple[str, ...]:
    if g.lost:
        return ()
    if g.throttle_reasons:
        return tuple(clean_text(r, 80) for r in g.throttle_reasons)
    if g.throttle_mask and g.throttle_mask & ~0x1:
        return (f"mask 0x{g.throttle_mask:x}",)
    return ()


def _processes(snaps: Sequence[Snapshot], include_cmdlines: bool) -> tuple[ProcessRow, ...]:
    rows: dict[tuple[int, int], ProcessRow] = {}
    for snap in snaps:
        for p in snap.processes:
            key = (p.pid, p.gpu_index)
            old = rows.get(key)
            mem = p.gpu_mem_bytes
            if old is not None:
                if old.gpu_mem_max_bytes is not None and (
                    mem is None or mem < old.gpu_mem_max_bytes
                ):
                    mem = old.gpu_mem_max_bytes
                rows[key] = dataclasses.replace(old, gpu_mem_max_bytes=mem)
                continue
            rows[key] = ProcessRow(
                pid=p.pid,
                gpu_index=p.gpu_index,
                name=clean_text(p.name or "", 200),
                user=_opt_clean(p.user, 100),
                kind=clean_text(p.kind, 40),
                gpu_mem_max_bytes=mem,
                cmdline=redact_cmdline(p.cmdline, keep=include_cmdlines),
            )
    ordered = sorted(rows.values(), key=lambda r: (r.gpu_index, -(r.gpu_mem_max_bytes or 0), r.pid))
    return tuple(ordered[:MAX_PROCESSES])


def summarize_telemetry(
    snaps: Sequence[Snapshot],
    *,
    source_kind: SourceKind,
    source_label: str,
    gpu_indices: Iterable[int] = (),
    include_cmdlines: bool = False,
    session_path: str | None = None,
    buckets: int = CHART_BUCKETS,
) -> TelemetrySummary:
    """Min/mean/max per metric and GPU, charts, throttle episodes and processes of ``snaps``."""
    if not snaps:
        raise InputError(tr("no telemetry samples to report on"))
    snaps = sorted(snaps, key=lambda s: s.time_s)
    t0 = snaps[0].time_s
    times = np.array([s.time_s - t0 for s in snaps])
    gpus = sorted(set(gpu_indices) | {g.index for s in snaps for g in s.gpus})
    stats: list[MetricStat] = []
    series: dict[str, list[ChartSeries]] = {k: [] for k in _GPU_CHARTS}
    for field, label, unit in GPU_METRICS:
        for gpu in gpus:
            values = _gpu_matrix(snaps, gpu, field)
            count, lo, mean, hi = _stats(values)
            stats.append(MetricStat(field, label, unit, gpu, count, lo, mean, hi))
            if field in series and count:
                xs, ys = _decimate(times, values, buckets)
                series[field].append(ChartSeries(tr("GPU {i}", i=gpu), xs, ys))
    host_values: dict[str, np.ndarray] = {}
    for field, label, unit in HOST_METRICS:
        values = np.array(
            [
                np.nan if getattr(s.host, field) is None else float(getattr(s.host, field))
                for s in snaps
            ]
        )
        host_values[field] = values
        count, lo, mean, hi = _stats(values)
        stats.append(MetricStat(field, label, unit, None, count, lo, mean, hi))
    charts: list[Chart] = []
    labels = {f: (lbl, unit) for f, lbl, unit in GPU_METRICS}
    for field in _GPU_CHARTS:
        if not series[field]:
            continue
        label, unit = labels[field]
        lo_hi = _Y_RANGES.get(unit, (0.0, None))
        charts.append(
            Chart(
                key=f"gpu.{field}",
                title=tr(label),
                kind="line",
                unit=unit,
                series=tuple(series[field]),
                y_min=lo_hi[0],
                y_max=lo_hi[1],
                x_label=tr("time since start"),
                t0_s=t0,
            )
        )
    host_series = []
    for field, label in (("cpu_pct", tr("CPU")),):
        values = host_values[field]
        if np.isfinite(values).any():
            xs, ys = _decimate(times, values, buckets)
            host_series.append(ChartSeries(label, xs, ys))
    mem_total = next((s.host.mem_total_bytes for s in snaps if s.host.mem_total_bytes), None)
    if mem_total:
        values = 100.0 * host_values["mem_used_bytes"] / float(mem_total)
        if np.isfinite(values).any():
            xs, ys = _decimate(times, values, buckets)
            host_series.append(ChartSeries(tr("RAM"), xs, ys))
    if host_series:
        charts.append(
            Chart(
                key="host.cpu_mem_pct",
                title=tr("Host CPU and RAM"),
                kind="line",
                unit="pct",
                series=tuple(host_series),
                y_min=0.0,
                y_max=100.0,
                x_label=tr("time since start"),
                t0_s=t0,
            )
        )
    events = [e for gpu in gpus for e in _throttle_events(snaps, gpu)]
    events.sort(key=lambda e: (e.start_s, e.gpu_index))
    return TelemetrySummary(
        source_kind=source_kind,
        source_label=clean_text(source_label, 300),
        start_s=snaps[0].time_s,
        end_s=snaps[-1].time_s,
        sample_count=len(snaps),
        stats=tuple(stats),
        charts=tuple(charts),
        throttle_events=tuple(events),
        processes=_processes(snaps, include_cmdlines),
        session_path=_opt_clean(session_path, 1000),
    )


# --- benchmarks ----------------------------------------------------------------------------------

_BENCH_UNITS = {"TFLOPS": "tflops", "B/s": "bytes_s"}


def load_bench_run(run_id: str, db_path: str | Path | None = None) -> BenchRun:
    """A run from the results database by id, unique prefix or ``latest``."""
    try:
        from gpuprof.bench.results import ResultsDB
    except ImportError as exc:  # a build without the benchmark module
        raise InputError(tr("benchmarks are not available in this build: {e}", e=exc)) from None
    if db_path is not None and not Path(db_path).is_file():
        raise InputError(tr("results database {p} does not exist", p=db_path))
    return ResultsDB(db_path).load(run_id)


def summarize_bench(run: BenchRun) -> BenchSummary:
    rows: list[BenchRow] = []
    gemm_best: dict[str, tuple[float, float | None]] = {}
    copy_best: dict[str, tuple[int, float]] = {}
    for r in run.results:
        metric, value, unit = r.headline()
        peak = getattr(r, "peak_tflops", None)
        pct = getattr(r, "pct_of_peak", None)
        if value is not None and not math.isfinite(value):
            value = None
        rows.append(
            BenchRow(
                key=clean_text(r.key, 200),
                bench=clean_text(r.bench, 80),
                case=clean_text(r.case, 200),
                status=clean_text(r.status, 300),
                metric=metric,
                value=value,
                unit=unit,
                peak=peak,
                pct_of_peak=pct,
                throttle_reasons=tuple(clean_text(t, 80) for t in r.throttle_reasons),
            )
        )
        if not r.ok or value is None:
            continue
        dtype = getattr(r, "dtype", None)
        if r.bench == "gemm" and dtype:
            best = gemm_best.get(dtype)
            if best is None or value > best[0]:
                gemm_best[dtype] = (value, peak)
        direction = getattr(r, "direction", None)
        if r.bench == "memory" and direction:
            pinned = getattr(r, "pinned", None)
            label = direction.upper() + {True: " pinned", False: " pageable", None: ""}[pinned]
            size = int(getattr(r, "size_bytes", 0))
            prev = copy_best.get(label)
            if prev is None or size > prev[0]:
                copy_best[label] = (size, value)
    charts: list[Chart] = []
    if gemm_best:
        cats = tuple(gemm_best)
        measured = ChartSeries(
            tr("measured (best median)"),
            tuple(float(i) for i in range(len(cats))),
            tuple(gemm_best[c][0] for c in cats),
        )
        series = [measured]
        if any(p is not None for _, p in gemm_best.values()):
            series.append(
                ChartSeries(
                    tr("spec peak (dense)"), measured.x, tuple(gemm_best[c][1] for c in cats)
                )
            )
        charts.append(
            Chart(
                key="bench.gemm",
                title=tr("GEMM throughput vs spec peak"),
                kind="bar",
                unit="tflops",
                series=tuple(series),
                categories=cats,
                y_min=0.0,
                x_unit="",
            )
        )
    if copy_best:
        cats = tuple(copy_best)
        charts.append(
            Chart(
                key="bench.memory",
                title=tr("Copy bandwidth (largest size)"),
                kind="bar",
                unit="bytes_s",
                series=(
                    ChartSeries(
                        tr("median"),
                        tuple(float(i) for i in range(len(cats))),
                        tuple(copy_best[c][1] for c in cats),
                    ),
                ),
                categories=cats,
                y_min=0.0,
                x_unit="",
            )
        )
    env = run.environment
    return BenchSummary(
        run_id=clean_text(run.run_id, 100),
        suite=clean_text(run.suite, 50),
        device=clean_text(run.device, 50),
        state=run.state.value,
        started_s=run.started_s,
        ended_s=run.ended_s,
        device_name=_opt_clean(env.gpu_name or (env.cpu_model if run.device == "cpu" else None)),
        torch_version=_opt_clean(env.torch_version),
        cuda_runtime_version=_opt_clean(env.cuda_runtime_version),
        rows=tuple(rows),
        charts=tuple(charts),
        notes=tuple(clean_text(n, 500) for n in run.notes),
    )


# --- recommendations -----------------------------------------------------------------------------


def recommend_for(
    workload: Workload,
    *,
    devices: Sequence[DeviceInfo] = (),
    util_pct: float | None = None,
    bench: BenchRun | None = None,
    limit: int = 10,
) -> Recommendation:
    """Rank catalog instances for ``workload``; this machine's GPUs (and GEMM TFLOPS measured
    in ``bench``) are the "vs here" baseline."""
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.rank import LocalMachine, recommend

    local = None
    if devices:
        counts: dict[str, int] = {}
        for d in devices:
            counts[d.name] = counts.get(d.name, 0) + 1
        local = LocalMachine(tuple(counts.items()), util_pct=util_pct)
    measured: dict[str, dict[str, float]] = {}
    if bench is not None and bench.environment.gpu_name and bench.device != "cpu":
        for r in bench.results:
            dtype = getattr(r, "dtype", None)
            if r.bench == "gemm" and r.ok and dtype:
                value = r.headline()[1]
                if value is not None:
                    per_dtype = measured.setdefault(bench.environment.gpu_name, {})
                    per_dtype[dtype] = max(per_dtype.get(dtype, 0.0), value)
    return recommend(
        workload,
        load_catalog(),
        local=local,
        local_measurements=measured or None,
        local_util_pct=util_pct,
        limit=limit,
    )


def _rec_row(r: RecommendationRow) -> RecommendationRowSummary:
    inst = r.instance
    return RecommendationRowSummary(
        rank=r.rank,
        provider=inst.provider,
        instance=inst.instance,
        label=r.label,
        region=inst.region,
        gpu_model=inst.gpu_model,
        gpus_total=float(r.gpus_total),
        fits=r.fits,
        mem_need_per_gpu_bytes=float(r.mem_need_per_gpu_bytes),
        mem_per_gpu_bytes=float(r.mem_per_gpu_bytes),
        hours=r.hours,
        cost_usd=r.cost_usd,
        cost_basis=r.cost_basis,
        price_per_hour_usd=r.price_per_hour_usd,
        price_as_of=inst.as_of or "",
        efficiency=r.efficiency,
        pareto=r.pareto,
        speedup_vs_local=r.speedup_vs_local,
        reasons=tuple(r.reasons),
        warnings=tuple(r.warnings),
    )


def _workload_fields(w: Workload) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for f in dataclasses.fields(w):
        value = getattr(w, f.name)
        if f.name == "name" or value is None:
            continue
        if (
            f.default is not dataclasses.MISSING
            and value == f.default
            and f.name not in ("precision",)
        ):
            continue
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        out.append((f.name, text))
    return tuple(out)


def summarize_recommendation(rec: Recommendation) -> RecommendationSummary:
    charts: list[Chart] = []
    pts = [(h, c, p) for h, c, p in rec.scatter if math.isfinite(h) and math.isfinite(c)]
    if pts:
        others = [(h, c) for h, c, p in pts if not p]
        front = sorted((h, c) for h, c, p in pts if p)
        series = []
        if others:
            series.append(
                ChartSeries(tr("fits"), tuple(h for h, _ in others), tuple(c for _, c in others))
            )
        if front:
            series.append(
                ChartSeries(
                    tr("Pareto front"), tuple(h for h, _ in front), tuple(c for _, c in front)
                )
            )
        charts.append(
            Chart(
                key="recommend.pareto",
                title=tr("Time vs cost of every fitting configuration"),
                kind="scatter",
                unit="usd",
                series=tuple(series),
                x_unit="hours",
                x_label=tr("time to finish"),
                y_min=0.0,
            )
        )
    return RecommendationSummary(
        workload_name=rec.workload.name or "",
        workload=_workload_fields(rec.workload),
        objective=rec.objective,
        candidates=rec.candidates,
        viable=rec.viable,
        rows=tuple(_rec_row(r) for r in rec.rows),
        local=_rec_row(rec.local) if rec.local is not None else None,
        warnings=tuple(rec.warnings),
        formulas=tuple(rec.formulas),
        charts=tuple(charts),
    )


# --- whole reports -------------------------------------------------------------------------------


def build_report(
    *,
    system: SystemInfo,
    devices: Sequence[DeviceInfo],
    topology: Topology | None = None,
    snapshots: Sequence[Snapshot] = (),
    source_kind: SourceKind = SourceKind.NVML,
    source_label: str = "",
    session_path: str | None = None,
    bench: BenchRun | None = None,
    recommendation: Recommendation | None = None,
    include_cmdlines: bool = False,
    created_s: float | None = None,
    title: str | None = None,
) -> Report:
    """The report for a machine: static facts, a telemetry window, health findings, and
    optionally a benchmark run and a recommendation."""
    snaps = sorted(snapshots, key=lambda s: s.time_s)
    simulated = source_kind is SourceKind.SIMULATED or any(s.simulated for s in snaps)
    telemetry = None
    if snaps:
        telemetry = summarize_telemetry(
            snaps,
            source_kind=SourceKind.SIMULATED if simulated else source_kind,
            source_label=source_label,
            gpu_indices=[d.index for d in devices],
            include_cmdlines=include_cmdlines,
            session_path=session_path,
        )
    _, torch_cuda = torch_versions()
    findings: list[Finding] = []
    if devices and snaps:
        findings = diagnose(devices, snaps, torch_cuda_version=torch_cuda, system=system)
    host = machine(system)
    notes = []
    if simulated:
        notes.append(tr("SIMULATED data from `--demo`: a scripted machine, not a measurement."))
    return Report(
        title=clean_text(title, 300)
        if title
        else tr("GPU report — {h}", h=host.hostname or tr("this machine")),
        created_s=time.time() if created_s is None else created_s,
        simulated=simulated,
        versions=versions(system),
        machine=host,
        gpus=tuple(_clean_record(d) for d in devices),
        topology=_clean_record(topology or Topology(), 20),
        telemetry=telemetry,
        findings=tuple(_clean_record(f, 2000) for f in findings),
        bench=summarize_bench(bench) if bench is not None else None,
        recommendation=summarize_recommendation(recommendation)
        if recommendation is not None
        else None,
        cmdlines_included=include_cmdlines,
        notes=tuple(notes),
    )


def from_session(path: str | Path, **kwargs: Any) -> Report:
    """A report on a recorded session file (``gpuprof record``, or File → Record in the app)."""
    from gpuprof.telemetry.store import SessionStore

    p = Path(path)
    if not p.is_file():
        raise InputError(tr("session file {p} does not exist", p=p))
    with SessionStore.open(p) as store:
        snaps = list(store.snapshots())
        if not snaps:
            raise InputError(tr("{p}: the session has no samples", p=p))
        return build_report(
            system=store.system_info(),
            devices=store.devices(),
            topology=store.topology(),
            snapshots=snaps,
            source_kind=store.source_kind,
            source_label=store.label or p.name,
            session_path=str(p),
            **kwargs,
        )


def from_source(
    source: TelemetrySource,
    *,
    duration_s: float = 3.0,
    interval_s: float = 0.5,
    snapshots: Sequence[Snapshot] = (),
    sleep: Callable[[float], None] = time.sleep,
    **kwargs: Any,
) -> Report:
    """A report on ``snapshots`` (if given) or on a live sample of ``source`` taken every
    ``interval_s`` for ``duration_s`` seconds."""
    snaps = list(snapshots)
    if not snaps:
        count = max(2, round(duration_s / interval_s) + 1)
        for k in range(count):
            if k:
                sleep(interval_s)
            snaps.append(source.poll())
    return build_report(
        system=source.system_info(),
        devices=source.devices(),
        topology=source.topology(),
        snapshots=snaps,
        source_kind=source.kind,
        source_label=source.label,
        **kwargs,
    )


def demo_snapshots(
    scenario: str = "h100x8",
    duration_s: float = 720.0,
    step_s: float = 2.0,
    *,
    end_s: float | None = None,
) -> tuple[Any, list[Snapshot]]:
    """A :class:`SimulatedSource` and ``duration_s`` of its scripted workload sampled every
    ``step_s`` on a stepped clock ending at ``end_s`` (default now): all SIMULATED."""
    from gpuprof.telemetry.sources import SimulatedSource

    end = time.time() if end_s is None else end_s
    start = end - duration_s
    n = int(duration_s / step_s)
    ticks = iter([start + k * step_s for k in range(n)])
    source = SimulatedSource(scenario, clock=lambda: next(ticks), start_s=start)
    return source, [source.poll() for _ in range(n)]
