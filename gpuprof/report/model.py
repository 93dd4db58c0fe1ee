"""The report as data: frozen records that every renderer (HTML, PDF, JSON) reads.

A :class:`Report` holds no markup and no images: charts are :class:`Chart` records (series of
points with units) that each renderer draws its own way (inline SVG in HTML, PNG in the PDF).
Strings that came from the system (host and GPU names, process names, command lines) are
already cleaned and, for command lines, redacted by :mod:`gpuprof.report.build`; renderers
escape them again for their output format.

The JSON form is ``to_jsonable(report, keep_defaults=True)`` (see docs/report-schema.md) and
``from_jsonable(Report, data)`` rebuilds an equal report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpuprof.health.diagnose import Finding
from gpuprof.profile.model import JobProfile, Projection
from gpuprof.telemetry.model import DeviceInfo, SourceKind, Topology

__all__ = [
    "REPORT_FORMAT",
    "REPORT_SCHEMA_VERSION",
    "BenchRow",
    "BenchSummary",
    "Chart",
    "ChartSeries",
    "CheckGpu",
    "CheckRow",
    "CheckSection",
    "JobSection",
    "Machine",
    "MetricStat",
    "ProcessRow",
    "RecommendationRowSummary",
    "RecommendationSummary",
    "Report",
    "TelemetrySummary",
    "ThrottleEvent",
    "Versions",
]

#: ``format`` of a JSON report.
REPORT_FORMAT = "gpuprof-report"
#: Bumped when a field changes meaning or goes away (adding a field does not bump it).
REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Versions:
    """Software the numbers depend on. ``torch`` is read from package metadata (no import)."""

    gpuprof: str
    python: str
    driver: str | None = None
    cuda_driver: str | None = None  # newest CUDA the driver supports (nvidia-smi "CUDA Version")
    nvml: str | None = None
    torch: str | None = None
    torch_cuda: str | None = None  # CUDA runtime torch was built with; None for CPU builds


@dataclass(frozen=True, slots=True)
class Machine:
    """The host (``hostname``, OS, CPU, RAM)."""

    hostname: str = ""
    os: str = ""
    cpu_model: str | None = None
    cpu_count_logical: int | None = None
    memory_total_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """One line or bar set. ``x`` and ``y`` have equal length; ``None`` in ``y`` is a gap."""

    label: str
    x: tuple[float, ...]
    y: tuple[float | None, ...]


@dataclass(frozen=True, slots=True)
class Chart:
    """A chart to draw. ``kind``: ``line`` (x = seconds from ``t0_s``), ``bar`` (x = index into
    ``categories``) or ``scatter``. ``unit`` names the y unit as the model stores it: ``pct``,
    ``bytes``, ``bytes_s``, ``w``, ``c``, ``mhz``, ``tflops``, ``usd``, ``hours`` or ``""``."""

    key: str
    title: str
    kind: str
    unit: str
    series: tuple[ChartSeries, ...]
    x_unit: str = "s"
    x_label: str = ""
    y_min: float | None = None
    y_max: float | None = None
    categories: tuple[str, ...] = ()
    t0_s: float | None = None

    @classmethod
    def bars(
        cls,
        key: str,
        title: str,
        unit: str,
        categories: tuple[str, ...],
        bars: Sequence[tuple[str, tuple[float | None, ...]]],
        *,
        x_unit: str = "s",
        y_max: float | None = None,
    ) -> Chart:
        """A bar chart from 0 of ``categories``: one series per ``(label, a value per
        category)`` of ``bars``."""
        x = tuple(float(i) for i in range(len(categories)))
        return cls(
            key=key,
            title=title,
            kind="bar",
            unit=unit,
            series=tuple(ChartSeries(label, x, values) for label, values in bars),
            x_unit=x_unit,
            y_min=0.0,
            y_max=y_max,
            categories=categories,
        )


@dataclass(frozen=True, slots=True)
class MetricStat:
    """Min / mean / max of one metric over a session. ``gpu_index`` None = the host."""

    key: str  # GpuSample / HostSample field name, e.g. "power_w"
    label: str
    unit: str  # as in Chart.unit
    gpu_index: int | None
    count: int  # samples with a value
    min: float | None = None
    mean: float | None = None
    max: float | None = None


@dataclass(frozen=True, slots=True)
class ThrottleEvent:
    """A stretch of samples with any clock-event (throttle) reason, idle excluded."""

    gpu_index: int
    start_s: float
    end_s: float
    duration_s: float
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProcessRow:
    """A process seen on a GPU during the session; ``cmdline`` is redacted (see build)."""

    pid: int
    gpu_index: int
    name: str
    user: str | None = None
    kind: str = "compute"
    gpu_mem_max_bytes: int | None = None
    cmdline: str | None = None


@dataclass(frozen=True, slots=True)
class TelemetrySummary:
    """What a session (recorded file or a short live sample) showed."""

    source_kind: SourceKind
    source_label: str
    start_s: float
    end_s: float
    sample_count: int
    stats: tuple[MetricStat, ...] = ()
    charts: tuple[Chart, ...] = ()
    throttle_events: tuple[ThrottleEvent, ...] = ()
    processes: tuple[ProcessRow, ...] = ()
    session_path: str | None = None

    @property
    def duration_s(self) -> float:
        return max(0.0, self.end_s - self.start_s)


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One benchmark result with its headline number and, where known, the spec peak."""

    key: str
    bench: str
    case: str
    status: str
    metric: str = ""
    value: float | None = None
    unit: str = ""
    peak: float | None = None
    pct_of_peak: float | None = None
    throttle_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BenchSummary:
    """A benchmark run from the results database."""

    run_id: str
    suite: str
    device: str
    state: str
    started_s: float
    ended_s: float
    device_name: str | None = None
    torch_version: str | None = None
    cuda_runtime_version: str | None = None
    rows: tuple[BenchRow, ...] = ()
    charts: tuple[Chart, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServingRowSummary:
    """A serving row's numbers (``gpuprof recommend --scenario serve``; see
    :class:`gpuprof.recommend.rank.rows.ServingRow`): all for ``instances`` configurations of
    ``tp`` × ``pp`` GPUs per replica. Seconds, tokens/s, USD."""

    tp: int
    pp: int
    ep: int
    replicas: int
    instances: int
    batch: float  # sequences in flight per replica at this load
    batch_max: int  # sequences the KV cache holds
    output_tokens_per_s: float  # the traffic
    capacity_tokens_per_s_per_instance: float
    load: float
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    tpot_p50_s: float | None
    tpot_p99_s: float | None
    slo_percentile: str
    meets_targets: bool
    bound: str
    usd_per_hour: float | None
    usd_per_million_output: float | None
    usd_per_million_input: float | None


@dataclass(frozen=True, slots=True)
class RecommendationRowSummary:
    """One ranked cloud configuration (see :class:`gpuprof.recommend.rank.RecommendationRow`)."""

    rank: int
    provider: str
    instance: str
    label: str
    region: str | None
    gpu_model: str
    gpus_total: float
    fits: bool
    mem_need_per_gpu_bytes: float
    mem_per_gpu_bytes: float
    hours: float | None
    cost_usd: float | None
    cost_basis: str
    price_per_hour_usd: float | None
    price_as_of: str
    efficiency: float | None
    pareto: bool
    speedup_vs_local: float | None = None
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: serving rows only: the traffic, latency and cost columns that replace time and cost
    serving: ServingRowSummary | None = None


@dataclass(frozen=True, slots=True)
class RecommendationSummary:
    """Cloud configurations ranked for a workload; ``workload`` holds its fields as set."""

    workload_name: str
    workload: tuple[tuple[str, str], ...]  # (field, value as text), in declaration order
    objective: str
    candidates: int
    viable: int
    rows: tuple[RecommendationRowSummary, ...] = ()
    local: RecommendationRowSummary | None = None
    warnings: tuple[str, ...] = ()
    formulas: tuple[str, ...] = ()
    charts: tuple[Chart, ...] = ()


@dataclass(frozen=True, slots=True)
class JobSection:
    """A job profile (``gpuprof profile``, issue 13) and its projection onto the catalog.

    ``profile.command`` is one redacted string (the program alone unless command lines are
    included). ``projections`` are the cheapest rows that fit, first; ``projection_basis`` says
    what every row starts from, ``projection_note`` why there is no projection.
    """

    profile: JobProfile
    charts: tuple[Chart, ...] = ()
    projections: tuple[Projection, ...] = ()
    projection_candidates: int = 0
    projection_basis: tuple[str, ...] = ()
    projection_note: str = ""

    @property
    def energy_kwh(self) -> float | None:
        values = [
            g.energy_j
            for g in self.profile.gpus
            if g.energy_j is not None and math.isfinite(g.energy_j) and g.energy_j >= 0
        ]
        return sum(values) / 3.6e6 if values else None


@dataclass(frozen=True, slots=True)
class CheckGpu:
    """One GPU of the checked machine, as a customer identifies it."""

    index: int
    name: str = ""
    uuid: str = ""
    serial: str = ""
    pci_bus_id: str = ""
    vbios_version: str = ""


@dataclass(frozen=True, slots=True)
class CheckRow:
    """One scorecard line: ``measured``/``expected`` as shown (number and unit, or text);
    ``reason``/``hint``/``source`` stay English (translated where shown)."""

    item_id: str
    status: str  # PASS, WARN, FAIL, SKIP, INFO
    gpu_index: int | None = None
    measured: str = ""
    expected: str = ""
    ratio: float | None = None
    reason: str = ""
    hint: str = ""
    source: str = ""


@dataclass(frozen=True, slots=True)
class CheckSection:
    """An acceptance check (``gpuprof check``, the Check tab): the report's first page."""

    verdict: str
    exit_code: int
    level: str
    device: str
    started_s: float | None = None
    ended_s: float | None = None
    expectation: str = ""
    cancelled: bool = False
    hostname: str = ""
    os: str = ""
    driver_version: str = ""
    cuda_driver_version: str = ""
    gpus: tuple[CheckGpu, ...] = ()
    rows: tuple[CheckRow, ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    """Everything a report shows. ``simulated`` is True when any part came from ``--demo``."""

    title: str
    created_s: float
    simulated: bool
    versions: Versions
    machine: Machine
    gpus: tuple[DeviceInfo, ...] = ()
    topology: Topology = field(default_factory=Topology)
    telemetry: TelemetrySummary | None = None
    findings: tuple[Finding, ...] = ()
    bench: BenchSummary | None = None
    recommendation: RecommendationSummary | None = None
    job: JobSection | None = None
    check: CheckSection | None = None
    cmdlines_included: bool = False
    notes: tuple[str, ...] = ()
    schema_version: int = REPORT_SCHEMA_VERSION
