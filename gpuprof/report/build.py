"""Assemble a :class:`~gpuprof.report.model.Report` from what gpuprof already has.

- :func:`build_report` — from static facts plus telemetry in a History (the core of the others).
- :func:`from_telemetry_session` — what a live :class:`TelemetrySession` holds (the app), through
  :func:`from_extract` — a session's frozen extract of a span, and its History.
- :func:`from_session` — a recorded session file (:class:`~gpuprof.telemetry.store.SessionStore`).
- :func:`from_source` — a short live sample of a telemetry source (NVML, or the simulator).
- :func:`demo_snapshots` — one scripted cycle of the simulator on a stepped clock (SIMULATED).
- :func:`load_bench_run`, :func:`summarize_bench` — a run from the results database, and
  :func:`summarize_recommendation`, :func:`recommend_for` — cloud configurations for a workload:
  in :mod:`gpuprof.report.summaries`, imported here too.

Everything that came from the system goes through :func:`gpuprof.redact.clean_text` here, and
command lines through :func:`gpuprof.redact.redact_cmdline`, so every renderer gets safe text.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import math
import platform
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuprof.errors import InputError
from gpuprof.health.diagnose import Finding, diagnose_series
from gpuprof.i18n import N_, tr
from gpuprof.redact import clean_text, clean_tree, redact_cmdline, redact_tree
from gpuprof.report.demo import demo_snapshots
from gpuprof.report.job import job_from_store, job_of_source
from gpuprof.report.model import (
    Chart,
    ChartSeries,
    JobSection,
    Machine,
    MetricStat,
    ProcessRow,
    Report,
    TelemetrySummary,
    ThrottleEvent,
    Versions,
)
from gpuprof.report.summaries import (
    load_bench_run,
    recommend_for,
    summarize_bench,
    summarize_recommendation,
)
from gpuprof.telemetry.model import (
    DeviceInfo,
    GpuSample,
    Snapshot,
    SourceKind,
    SystemInfo,
    Topology,
)
from gpuprof.version import __version__

if TYPE_CHECKING:
    from gpuprof.bench.runner import BenchRun
    from gpuprof.recommend.rank import Recommendation
    from gpuprof.telemetry.history import History
    from gpuprof.telemetry.session import (
        ProcessLedger,
        ProcessSeen,
        SessionExtract,
        TelemetrySession,
    )
    from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "GPU_METRICS",
    "HOST_METRICS",
    "build_report",
    "diagnose_history",
    "history_of",
    "demo_snapshots",
    "from_extract",
    "from_session",
    "from_source",
    "from_telemetry_session",
    "load_bench_run",
    "recommend_for",
    "summarize_bench",
    "summarize_recommendation",
    "summarize_telemetry",
    "torch_versions",
    "versions",
]

#: GPU metrics summarized in a report: (GpuSample field, label, unit as in Chart.unit). The
#: profiling activities (NVML GPM) have no samples on GPUs without it: their stats have
#: ``count`` 0 and they get no chart.
GPU_METRICS: tuple[tuple[str, str, str], ...] = (
    ("util_gpu_pct", "GPU utilization", "pct"),
    ("prof_sm_active_pct", N_("SM active"), "pct"),
    ("prof_tensor_active_pct", N_("Tensor core active"), "pct"),
    ("prof_dram_active_pct", N_("DRAM bandwidth active"), "pct"),
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
    "prof_sm_active_pct",
    "prof_tensor_active_pct",
    "prof_dram_active_pct",
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
#: Health findings in a report look at the newest this many samples of its window per GPU
#: (an hour at 1 Hz, what the app's report covered before it read History).
DIAGNOSE_SAMPLES = 3600


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


def _points(
    t_s: np.ndarray, values: np.ndarray, t0: float
) -> tuple[tuple[float, ...], tuple[float | None, ...]]:
    """A chart series: seconds since ``t0`` and values, NaN → None (a gap)."""
    return (
        tuple(round(float(t - t0), 3) for t in t_s.tolist()),
        tuple(None if not math.isfinite(v) else float(v) for v in values.tolist()),
    )


def _reasons_of(names: Iterable[str]) -> tuple[str, ...]:
    from gpuprof.telemetry.reasons import ClockEventReason

    idle = ClockEventReason.GPU_IDLE.key  # resting, not a throttle episode
    return tuple(clean_text(r, 80) for r in names if r != idle)


def _processes(seen: Iterable[ProcessSeen], include_cmdlines: bool) -> tuple[ProcessRow, ...]:
    rows = [
        ProcessRow(
            pid=r.sample.pid,
            gpu_index=r.sample.gpu_index,
            name=clean_text(r.sample.name or "", 200),
            user=_opt_clean(r.sample.user, 100),
            kind=clean_text(r.sample.kind, 40),
            gpu_mem_max_bytes=r.gpu_mem_max_bytes,
            cmdline=redact_cmdline(r.sample.cmdline, keep=include_cmdlines),
        )
        for r in seen
    ]
    rows.sort(key=lambda r: (r.gpu_index, -(r.gpu_mem_max_bytes or 0), r.pid))
    return tuple(rows[:MAX_PROCESSES])


def history_of(snapshots: Sequence[Snapshot]) -> tuple[History, ProcessLedger]:
    """A History holding every one of ``snapshots`` (a recording) and its process ledger."""
    from gpuprof.telemetry.history import History
    from gpuprof.telemetry.session import ProcessLedger

    snaps = sorted(snapshots, key=lambda s: s.time_s)
    history = History(capacity=max(2, len(snaps)))
    ledger = ProcessLedger()
    for snap in snaps:
        history.append(snap)
        ledger.add(snap)
    return history, ledger


def summarize_telemetry(
    history: History,
    *,
    processes: Iterable[ProcessSeen] = (),
    span: tuple[float, float] | None = None,
    source_kind: SourceKind,
    source_label: str,
    gpu_indices: Iterable[int] = (),
    include_cmdlines: bool = False,
    session_path: str | None = None,
    buckets: int = CHART_BUCKETS,
) -> TelemetrySummary:
    """Min/mean/max per metric and GPU, charts, throttle episodes and processes of the samples
    History keeps in ``span`` (Unix s; default: all of them).

    Reads History's rings (its min/max levels for the charts), never a list of snapshots.
    """
    rng = history.time_range()
    if rng is None:
        raise InputError(tr("no telemetry samples to report on"))
    t0, t1 = span if span is not None else rng
    host_fields = [f for f, _, _ in HOST_METRICS]
    host_view = history.host_view(host_fields, t0, t1)
    host_t, host_values = host_view.t_s, host_view.values
    if host_t.size == 0:
        raise InputError(tr("no telemetry samples to report on"))
    t0, t1 = float(host_t[0]), float(host_t[-1])
    gpus = sorted(set(gpu_indices) | set(history.gpu_indices))
    gpu_fields = [f for f, _, _ in GPU_METRICS]
    stats: list[MetricStat] = []
    series: dict[str, list[ChartSeries]] = {k: [] for k in _GPU_CHARTS}
    raw = {gpu: history.gpu_view(gpu, gpu_fields, t0, t1).values for gpu in gpus}
    for fi, (field, label, unit) in enumerate(GPU_METRICS):
        for gpu in gpus:
            values = raw[gpu][fi] if raw[gpu].shape[1] else np.empty(0)
            count, lo, mean, hi = _stats(values)
            stats.append(MetricStat(field, tr(label), unit, gpu, count, lo, mean, hi))
            if field in series and count:
                xs, ys = history.gpu_series(gpu, field, t0, t1, max_points=2 * buckets)
                series[field].append(ChartSeries(tr("GPU {i}", i=gpu), *_points(xs, ys, t0)))
    for hi_, (field, label, unit) in enumerate(HOST_METRICS):
        count, lo, mean, hi = _stats(host_values[hi_])
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
    xs, cpu = history.host_series("cpu_pct", t0, t1, max_points=2 * buckets)
    if np.isfinite(cpu).any():
        host_series.append(ChartSeries(tr("CPU"), *_points(xs, cpu, t0)))
    latest = history.latest()
    mem_total = latest.host.mem_total_bytes if latest is not None else None
    if mem_total:
        xs, used = history.host_series("mem_used_bytes", t0, t1, max_points=2 * buckets)
        ram = 100.0 * used / float(mem_total)
        if np.isfinite(ram).any():
            host_series.append(ChartSeries(tr("RAM"), *_points(xs, ram, t0)))
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
    events = []
    for gpu in gpus:
        for start, end, names in history.throttle_intervals(gpu, t0, t1):
            reasons = _reasons_of(names)
            if reasons:
                events.append(ThrottleEvent(gpu, start, end, max(0.0, end - start), reasons))
    events.sort(key=lambda e: (e.start_s, e.gpu_index))
    return TelemetrySummary(
        source_kind=source_kind,
        source_label=clean_text(source_label, 300),
        start_s=t0,
        end_s=t1,
        sample_count=int(host_t.size),
        stats=tuple(stats),
        charts=tuple(charts),
        throttle_events=tuple(events),
        processes=_processes(
            (p for p in processes if p.last_s >= t0 and p.first_s <= t1), include_cmdlines
        ),
        session_path=_opt_clean(session_path, 1000),
    )


def diagnose_history(
    devices: Sequence[DeviceInfo],
    history: History,
    processes: Sequence[ProcessSeen],
    span: tuple[float, float] | None = None,
    *,
    torch_cuda_version: str | None = None,
    system: SystemInfo | None = None,
    last: int = DIAGNOSE_SAMPLES,
) -> list[Finding]:
    """Health findings over the newest ``last`` samples of ``span``, read from History.

    A GPU "runs a job" at a sample when the ledger saw a process on it then; ECC counters come
    from the newest snapshot (History keeps only numbers).
    """
    t0, t1 = span if span is not None else (None, None)
    latest = history.latest()
    ecc = {g.index: g.ecc for g in latest.gpus} if latest is not None else {}
    series: dict[int, list[GpuSample]] = {}
    jobs: dict[int, list[bool]] = {}
    times: dict[int, list[float]] = {}
    for device in devices:
        rows = history.gpu_samples(device.index, t0, t1, last=last)
        times[device.index] = [t for t, _ in rows]
        on_gpu = [(p.first_s, p.last_s) for p in processes if p.sample.gpu_index == device.index]
        samples = [g for _, g in rows]
        if samples and ecc.get(device.index) is not None:
            samples[-1] = dataclasses.replace(samples[-1], ecc=ecc[device.index])
        series[device.index] = samples
        jobs[device.index] = [any(a <= t <= b for a, b in on_gpu) for t, _ in rows]
    return diagnose_series(
        devices, series, jobs, torch_cuda_version=torch_cuda_version, system=system, times=times
    )


# --- whole reports -------------------------------------------------------------------------------


def build_report(
    *,
    system: SystemInfo,
    devices: Sequence[DeviceInfo],
    topology: Topology | None = None,
    snapshots: Sequence[Snapshot] = (),
    history: History | None = None,
    processes: Sequence[ProcessSeen] = (),
    span: tuple[float, float] | None = None,
    source_kind: SourceKind = SourceKind.NVML,
    source_label: str = "",
    session_path: str | None = None,
    bench: BenchRun | None = None,
    recommendation: Recommendation | None = None,
    job: JobSection | None = None,
    include_cmdlines: bool = False,
    created_s: float | None = None,
    title: str | None = None,
) -> Report:
    """The report for a machine: static facts, a telemetry window, health findings, and
    optionally a benchmark run and a recommendation.

    The telemetry comes from ``history`` (a session's, with its ``processes`` ledger and the
    ``span`` to cover) or from ``snapshots`` (put into a History of their own).
    """
    if history is None and snapshots:
        history, ledger = history_of(snapshots)
        processes = ledger.rows()
    has_data = history is not None and history.time_range() is not None
    latest = history.latest() if history is not None else None
    simulated = source_kind is SourceKind.SIMULATED or (latest is not None and latest.simulated)
    simulated = simulated or (job is not None and job.profile.source == SourceKind.SIMULATED.value)
    telemetry = None
    findings: list[Finding] = []
    if has_data:
        assert history is not None
        telemetry = summarize_telemetry(
            history,
            processes=processes,
            span=span,
            source_kind=SourceKind.SIMULATED if simulated else source_kind,
            source_label=source_label,
            gpu_indices=[d.index for d in devices],
            include_cmdlines=include_cmdlines,
            session_path=session_path,
        )
        if devices:
            _, torch_cuda = torch_versions()
            findings = diagnose_history(
                devices,
                history,
                processes,
                (telemetry.start_s, telemetry.end_s),
                torch_cuda_version=torch_cuda,
                system=system,
            )
    host = machine(system)
    notes = []
    if simulated:
        notes.append(tr("SIMULATED data from `--demo`: a scripted machine, not a measurement."))
        if bench is not None:  # benchmarks always run for real: say which part is which
            notes.append(
                tr(
                    "The benchmark run {i} is MEASURED (on {d}); the machine, telemetry and "
                    "health findings are SIMULATED.",
                    i=bench.run_id,
                    d=bench.device,
                )
            )
    # Every string of the model leaves the machine (HTML, PDF, JSON): hostnames, process names,
    # labels and notes get the same secret rules as command lines.
    report = Report(
        title=clean_text(title, 300)
        if title
        else tr("GPU report — {h}", h=host.hostname or tr("this machine")),
        created_s=time.time() if created_s is None else created_s,
        simulated=simulated,
        versions=versions(system),
        machine=host,
        gpus=tuple(clean_tree(d, 300) for d in devices),
        topology=clean_tree(topology or Topology(), 20),
        telemetry=telemetry,
        findings=tuple(clean_tree(f, 2000) for f in findings),
        bench=summarize_bench(bench) if bench is not None else None,
        recommendation=summarize_recommendation(recommendation)
        if recommendation is not None
        else None,
        job=job,
        cmdlines_included=include_cmdlines,
        notes=tuple(notes),
    )
    return redact_tree(report)


def from_session(path: str | Path, **kwargs: Any) -> Report:
    """A report on a recorded session file (``gpuprof record``, or File → Record in the app)."""
    from gpuprof.telemetry.store import SessionStore

    p = Path(path)
    with SessionStore.open(p) as store:  # names what is wrong: missing, a folder, corrupt
        snaps = list(store.snapshots())
        if not snaps:
            raise InputError(tr("{p}: the session has no samples", p=p))
        if "job" not in kwargs:  # a recording of `gpuprof profile`: its job profile section
            kwargs["job"] = job_from_store(
                store, include_cmdlines=kwargs.get("include_cmdlines", False)
            )
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
    ``interval_s`` for ``duration_s`` seconds through a telemetry session (the source stays
    open: it is the caller's)."""
    if snapshots:
        return build_report(
            system=source.system_info(),
            devices=source.devices(),
            topology=source.topology(),
            snapshots=snapshots,
            source_kind=source.kind,
            source_label=source.label,
            **kwargs,
        )
    from gpuprof.telemetry.session import TelemetrySession

    count = max(2, round(duration_s / interval_s) + 1)
    session = TelemetrySession(source, interval_s=interval_s, history_capacity=count)
    try:
        for k in range(count):
            if k:
                sleep(interval_s)
            session.poll_once()
        return from_telemetry_session(session, **kwargs)
    finally:
        session.close(close_source=False)


def from_telemetry_session(session: TelemetrySession, **kwargs: Any) -> Report:
    """A report on what a live session holds: its :meth:`~TelemetrySession.extract` of the
    :meth:`report_span` (the app's time window; static facts read once by the session)."""
    if "job" not in kwargs:  # replaying a job's recording: its job profile section
        kwargs["job"] = job_of_source(
            session.source, include_cmdlines=kwargs.get("include_cmdlines", False)
        )
    return from_extract(session.extract(samples=False), session.history, **kwargs)


def from_extract(extract: SessionExtract, history: History, **kwargs: Any) -> Report:
    """A report on a session's ``extract``: its static facts, span, processes, source and
    SIMULATED flag. The numbers and charts are read from the session's ``history`` over the
    extract's span (its min/max levels; the extract may be made without samples)."""
    static = extract.static
    return build_report(
        system=static.system,
        devices=static.devices,
        topology=static.topology,
        history=history,
        processes=extract.processes,
        span=extract.span,
        source_kind=SourceKind.SIMULATED if extract.simulated else extract.source_kind,
        source_label=extract.source_label,
        **kwargs,
    )
