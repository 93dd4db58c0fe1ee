"""The Prometheus metrics of a :class:`Snapshot`, under NVIDIA dcgm-exporter's names.

Names, units and labels (``gpu``, ``UUID``, ``pci_bus_id``, ``device``, ``modelName``,
``Hostname``) follow dcgm-exporter's ``etc/default-counters.csv`` and ``dcp-metrics-included.csv``
so that existing Grafana dashboards (e.g. grafana.com dashboard 12239) work unchanged; an
unsupported field produces no sample, as in dcgm-exporter. Two deliberate differences:

* DCGM counters (energy, PCIe replays, ECC, retired pages, remapped rows) are exposed *untyped*
  under their exact DCGM names: ``prometheus_client`` would append ``_total`` to a counter and
  break the dashboards' queries. PromQL treats the values the same.
* ``DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL`` is a gauge of RX+TX in DCGM's unit (KiB/s / 1000),
  because DCGM itself publishes a rate there (NVIDIA/dcgm-exporter PR #658).

The profiling activities (``DCGM_FI_PROF_SM_ACTIVE``, tensor, DRAM, the pipes, NVLink traffic;
NVML GPM) are :mod:`gpuprof.exporter.prof`'s, as ratios 0–1 like dcgm-exporter's.

What DCGM lacks comes as ``gpuprof_*``: throttle reasons, lost GPUs, the PCIe link, the latest
benchmark results, and ``gpuprof_source_info{source="simulated"}`` so that simulated data is
labelled (its HELP texts say SIMULATED too). The source's health (:class:`SourceHealth`) comes as
``gpuprof_source_up``, ``gpuprof_source_last_success_age_seconds`` and
``gpuprof_source_poll_errors_total``; when no poll succeeded within the staleness bound the GPU
series are dropped, as a dcgm-exporter that lost its GPUs stops serving them. :class:`SnapshotCollector` is a regular
``prometheus_client`` collector and also works in any ``CollectorRegistry``; the HTTP endpoint
that serves it is :mod:`gpuprof.exporter`.
"""

from __future__ import annotations

import importlib
import logging
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    Metric,
    UnknownMetricFamily,
)
from prometheus_client.registry import Collector

from gpuprof.exporter.amd import amd_families
from gpuprof.exporter.processes import process_families
from gpuprof.exporter.prof import prof_families
from gpuprof.redact import redact_text
from gpuprof.telemetry.model import DeviceInfo, GpuSample, Snapshot, SourceKind
from gpuprof.telemetry.reasons import EXPORTED

__all__ = [
    "LABELS",
    "THROTTLE_REASONS",
    "BenchValue",
    "SnapshotCollector",
    "SourceHealth",
    "bench_values_of",
    "health_families",
]

log = logging.getLogger("gpuprof.exporter")

#: dcgm-exporter's per-GPU labels, in its order.
LABELS = ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname")
#: The clocks-event reasons labelled, idle included: ``nvmlClocksEventReasonAll``, in bit order.
THROTTLE_REASONS = tuple(r.key for r in EXPORTED)
_MIB = float(2**20)


def _mib(v: float | None) -> float | None:
    return None if v is None else v / _MIB


def _mj(v: float | None) -> float | None:
    return None if v is None else v * 1000.0


def _nvlink_dcgm(s: GpuSample) -> float | None:
    if s.nvlink_rx_bytes_s is None and s.nvlink_tx_bytes_s is None:
        return None
    return ((s.nvlink_rx_bytes_s or 0.0) + (s.nvlink_tx_bytes_s or 0.0)) / 1024.0 / 1000.0


def _ecc(attr: str) -> Callable[[GpuSample], float | None]:
    def get(s: GpuSample) -> float | None:
        v = getattr(s.ecc, attr, None) if s.ecc is not None else None
        return None if v is None else float(v)

    return get


def _attr(
    attr: str, convert: Callable[[Any], float | None] = lambda v: v
) -> Callable[[GpuSample], float | None]:
    def get(s: GpuSample) -> float | None:
        v = getattr(s, attr)
        return None if v is None else convert(v)

    return get


def _prof_or(prof: str, nvml: str) -> Callable[[GpuSample], float | None]:
    """GPM's value where the GPU has one (DCGM reads PCIe traffic there too), else NVML's."""

    def get(s: GpuSample) -> float | None:
        v: float | None = getattr(s, prof)
        if v is None:
            v = getattr(s, nvml)
        return v

    return get


# (name, kind, help, getter): kind is "gauge" or "untyped" (a DCGM counter, see module doc).
_DCGM: tuple[tuple[str, str, str, Callable[[GpuSample], float | None]], ...] = (
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", _attr("clock_sm_mhz")),
    ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", _attr("clock_mem_mhz")),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", _attr("temp_mem_c")),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", _attr("temp_gpu_c")),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", _attr("power_w")),
    (
        "DCGM_FI_DEV_POWER_MGMT_LIMIT",
        "gauge",
        "Power management limit (in W).",
        _attr("power_limit_w"),
    ),
    (
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        "untyped",
        "Total energy consumption since boot (in mJ).",
        _attr("energy_total_j", _mj),
    ),
    (
        "DCGM_FI_PROF_PCIE_TX_BYTES",
        "gauge",
        "The rate of data transmitted over the PCIe bus - including both protocol headers and "
        "data payloads - in bytes per second.",
        _prof_or("prof_pcie_tx_bytes_s", "pcie_tx_bytes_s"),
    ),
    (
        "DCGM_FI_PROF_PCIE_RX_BYTES",
        "gauge",
        "The rate of data received over the PCIe bus - including both protocol headers and "
        "data payloads - in bytes per second.",
        _prof_or("prof_pcie_rx_bytes_s", "pcie_rx_bytes_s"),
    ),
    (
        "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
        "untyped",
        "Total number of PCIe retries.",
        _attr("pcie_replay_count", float),
    ),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", _attr("util_gpu_pct")),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", _attr("util_mem_pct")),
    ("DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", _attr("util_enc_pct")),
    ("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", _attr("util_dec_pct")),
    (
        "DCGM_FI_DEV_FB_FREE",
        "gauge",
        "Framebuffer memory free (in MiB).",
        _attr("mem_free_bytes", _mib),
    ),
    (
        "DCGM_FI_DEV_FB_USED",
        "gauge",
        "Framebuffer memory used (in MiB).",
        _attr("mem_used_bytes", _mib),
    ),
    (
        "DCGM_FI_DEV_FB_RESERVED",
        "gauge",
        "Framebuffer memory reserved (in MiB).",
        _attr("mem_reserved_bytes", _mib),
    ),
    (
        "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
        "untyped",
        "Total number of single-bit volatile ECC errors.",
        _ecc("volatile_corrected"),
    ),
    (
        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
        "untyped",
        "Total number of double-bit volatile ECC errors.",
        _ecc("volatile_uncorrected"),
    ),
    (
        "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
        "untyped",
        "Total number of single-bit persistent ECC errors.",
        _ecc("aggregate_corrected"),
    ),
    (
        "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
        "untyped",
        "Total number of double-bit persistent ECC errors.",
        _ecc("aggregate_uncorrected"),
    ),
    (
        "DCGM_FI_DEV_RETIRED_SBE",
        "untyped",
        "Total number of retired pages due to single-bit errors.",
        _ecc("retired_pages_sbe"),
    ),
    (
        "DCGM_FI_DEV_RETIRED_DBE",
        "untyped",
        "Total number of retired pages due to double-bit errors.",
        _ecc("retired_pages_dbe"),
    ),
    (
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
        "gauge",
        "NVLink throughput, RX plus TX, all links (in KiB/s / 1000, as DCGM reports it).",
        _nvlink_dcgm,
    ),
    (
        "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
        "untyped",
        "Number of remapped rows for uncorrectable errors",
        _ecc("remapped_rows_uncorrectable"),
    ),
    (
        "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
        "untyped",
        "Number of remapped rows for correctable errors",
        _ecc("remapped_rows_correctable"),
    ),
    (
        "DCGM_FI_DEV_ROW_REMAP_FAILURE",
        "gauge",
        "Whether remapping of rows has failed",
        _ecc("remapped_rows_failure"),
    ),
    # What DCGM lacks.
    ("gpuprof_pcie_link_gen", "gauge", "Current PCIe link generation.", _attr("pcie_gen", float)),
    (
        "gpuprof_pcie_link_width",
        "gauge",
        "Current PCIe link width (lanes).",
        _attr("pcie_width", float),
    ),
    (
        "gpuprof_nvlink_rx_bytes_per_second",
        "gauge",
        "NVLink receive rate, all links (in B/s).",
        _attr("nvlink_rx_bytes_s"),
    ),
    (
        "gpuprof_nvlink_tx_bytes_per_second",
        "gauge",
        "NVLink transmit rate, all links (in B/s).",
        _attr("nvlink_tx_bytes_s"),
    ),
)


@dataclass(frozen=True, slots=True)
class BenchValue:
    """One benchmark number for ``gpuprof_bench_result`` (e.g. gemm / bf16 8192 / tflops)."""

    benchmark: str
    case: str
    metric: str
    value: float
    gpu: str = ""


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """How the polls of the telemetry source go, as the exporter serves it.

    ``up``: the latest poll succeeded and is within the bound; ``stale``: no poll succeeded in
    the last ``stale_after_s`` seconds (or ever), so the GPU series are not served;
    ``last_success_age_s`` is ``None`` before the first success.
    """

    up: bool
    stale: bool
    last_success_age_s: float | None
    poll_errors: int
    stale_after_s: float


def health_families(health: SourceHealth, *, simulated: bool = False) -> Iterator[Metric]:
    """``gpuprof_source_up`` (dcgm-exporter users alert on ``up``-style series), the age of the
    last good poll (+Inf before the first), the count of failed polls, and the bound."""
    tag = " [SIMULATED data]" if simulated else ""
    yield GaugeMetricFamily(
        "gpuprof_source_up",
        "1 when the latest poll of the telemetry source succeeded within the staleness bound, "
        "else 0 (GPU series are dropped once no poll succeeded within the bound)." + tag,
        value=1.0 if health.up else 0.0,
    )
    age = health.last_success_age_s
    yield GaugeMetricFamily(
        "gpuprof_source_last_success_age_seconds",
        "Seconds since the last successful poll of the telemetry source (+Inf: none yet)." + tag,
        value=float("inf") if age is None else age,
    )
    yield CounterMetricFamily(
        "gpuprof_source_poll_errors",
        "Polls of the telemetry source that failed." + tag,
        value=float(health.poll_errors),
    )
    yield GaugeMetricFamily(
        "gpuprof_source_stale_after_seconds",
        "GPU series are dropped when the last successful poll is older than this.",
        value=health.stale_after_s,
    )


def _default_bench_values() -> list[BenchValue]:
    """The numbers of the latest run in the benchmark results database (none if no database).

    Each ok result gives its headline number (``tflops_median``, ...; the unit is in the name)
    and its percent of the spec peak where known. A module-level
    ``gpuprof.bench.results.exporter_values()``, when present, takes precedence.
    """
    try:
        results = importlib.import_module("gpuprof.bench.results")
    except ImportError:
        return []
    fn = getattr(results, "exporter_values", None)
    if callable(fn):
        return [
            BenchValue(
                str(v.benchmark),
                str(v.case),
                str(v.metric),
                float(v.value),
                str(getattr(v, "gpu", "")),
            )
            for v in fn()
        ]
    from gpuprof.paths import results_db_path

    if not results_db_path().exists():
        return []
    db = results.ResultsDB()
    runs = db.list_runs(limit=1)
    if not runs:
        return []
    run = db.load(runs[0].run_id)
    return bench_values_of(run)


def bench_values_of(run: Any) -> list[BenchValue]:
    """:class:`BenchValue` s of a benchmark run: each ok result's headline and % of peak."""
    out: list[BenchValue] = []
    for result in run.results:
        headline = getattr(result, "headline", None)
        if not result.ok or not callable(headline):
            continue
        name, value, _unit = headline()
        pairs = [(name, value), ("pct_of_peak", getattr(result, "pct_of_peak", None))]
        for metric, v in pairs:
            if isinstance(v, int | float) and not isinstance(v, bool) and v == v:
                out.append(
                    BenchValue(
                        str(result.bench), str(result.case), metric, float(v), str(run.device)
                    )
                )
    return out


class SnapshotCollector(Collector):
    """A prometheus_client collector that renders the snapshot returned by ``latest()``.

    With ``health`` (a :class:`SourceHealth` callable) it serves the health series too and drops
    the GPU series while the source is stale. ``kind`` names the source before its first
    snapshot (``gpuprof_source_info``). ``per_process`` adds a series per GPU process
    (:mod:`gpuprof.exporter.processes`).
    """

    def __init__(
        self,
        latest: Callable[[], Snapshot | None],
        devices: Sequence[DeviceInfo],
        *,
        hostname: str | None = None,
        label: str = "",
        bench_values: Callable[[], Iterable[BenchValue]] | None = _default_bench_values,
        bench_ttl_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        health: Callable[[], SourceHealth] | None = None,
        kind: SourceKind | None = None,
        per_process: bool = False,
    ) -> None:
        self._latest = latest
        self._per_process = per_process
        self._health = health
        self._kind = kind
        # Label values leave the machine: cleaned and with secrets hidden, as in reports.
        self._hostname = redact_text(hostname if hostname is not None else socket.gethostname())
        self._label = redact_text(label)
        # Benchmark results are measured here even when the telemetry is SIMULATED: they carry
        # this machine's own name, never the simulated box's.
        self._real_hostname = redact_text(socket.gethostname(), 255)
        self._devices = {d.index: d for d in devices}
        self._labels: dict[int, list[str]] = {}
        self._bench_values = bench_values
        self._bench_ttl_s = bench_ttl_s
        self._bench_cache: tuple[float, list[BenchValue]] | None = None
        self._no_bench: list[BenchValue] = []
        self._clock = clock

    def _gpu_labels(self, index: int, uuid: str | None) -> list[str]:
        cached = self._labels.get(index)
        if cached is None:
            d = self._devices.get(index)
            cached = [
                str(index),
                redact_text((d.uuid if d and d.uuid else uuid) or ""),
                redact_text((d.pci_bus_id if d else None) or ""),
                f"nvidia{index}",
                redact_text(d.name if d else ""),
                self._hostname,
            ]
            self._labels[index] = cached
        return cached

    def bench(self) -> list[BenchValue]:
        """The benchmark values, read again at most every ``bench_ttl_s`` (the same list
        object until then)."""
        if self._bench_values is None:
            return self._no_bench
        now = self._clock()
        if self._bench_cache is None or now - self._bench_cache[0] >= self._bench_ttl_s:
            try:
                values = list(self._bench_values())
            except Exception:  # a broken results DB must not break the scrape
                log.warning("benchmark results unavailable", exc_info=True)
                values = []
            self._bench_cache = (now, values)
        return self._bench_cache[1]

    def describe(self) -> Iterable[Metric]:
        return []  # unchecked collector: names depend on what the source supports

    @property
    def simulated(self) -> bool:
        snap = self._latest()
        kind = snap.source if snap is not None else self._kind
        return kind is SourceKind.SIMULATED

    def collect(self) -> Iterator[Metric]:
        health = self._health() if self._health is not None else None
        snap = None if health is not None and health.stale else self._latest()
        yield from self.collect_snapshot(snap)
        if health is not None:
            yield from health_families(health, simulated=self.simulated)

    def collect_snapshot(
        self, snap: Snapshot | None, bench: list[BenchValue] | None = None
    ) -> Iterator[Metric]:
        """The families of ``snap`` (``None``: the source info alone) and the benchmark values
        (``bench``, or :meth:`bench`), without the health series."""
        kind = snap.source if snap is not None else (self._kind or SourceKind.NONE)
        tag = " [SIMULATED data]" if kind is SourceKind.SIMULATED else ""
        source = kind.value

        info = GaugeMetricFamily(
            "gpuprof_source_info",
            "Where the data comes from (nvml, simulated, replay, none)." + tag,
            labels=["source", "label", "Hostname"],
        )
        info.add_metric([source, self._label, self._hostname], 1.0)
        yield info
        if snap is not None:
            yield from self._gpu_families(snap, tag)
        bench = self.bench() if bench is None else bench
        if bench:
            fam = GaugeMetricFamily(
                "gpuprof_bench_result",
                "Latest benchmark result measured on this machine (unit in 'metric').",
                labels=["benchmark", "case", "metric", "gpu", "Hostname"],
            )
            for b in bench:
                texts = [redact_text(t) for t in (b.benchmark, b.case, b.metric, b.gpu)]
                host = self._real_hostname if kind is SourceKind.SIMULATED else self._hostname
                fam.add_metric([*texts, host], b.value)
            yield fam

    def _gpu_families(self, snap: Snapshot, tag: str) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "gpuprof_snapshot_timestamp_seconds",
            "Unix time of the sample being served." + tag,
            value=snap.time_s,
        )

        gpus = [(g, self._gpu_labels(g.index, g.uuid)) for g in snap.gpus]
        for name, kind, doc, get in _DCGM:
            family: GaugeMetricFamily | UnknownMetricFamily
            if kind == "gauge":
                family = GaugeMetricFamily(name, doc + tag, labels=LABELS)
            else:
                family = UnknownMetricFamily(name, doc + tag, labels=LABELS)
            for g, labels in gpus:
                if g.lost:
                    continue
                value = get(g)
                if value is not None:
                    family.add_metric(labels, value)
            if family.samples:
                yield family

        yield from prof_families(gpus, LABELS, tag, self._devices.get)
        yield from amd_families(gpus, LABELS, tag, self._devices.get)
        if self._per_process:
            yield from process_families(snap, self._gpu_labels, LABELS, tag)

        lost = GaugeMetricFamily(
            "gpuprof_gpu_lost", "1 when the GPU fell off the bus." + tag, labels=LABELS
        )
        events = GaugeMetricFamily(
            "gpuprof_clocks_event_reasons",
            "1 when the clocks-event (throttle) reason is active, else 0." + tag,
            labels=[*LABELS, "reason"],
        )
        for g, labels in gpus:
            lost.add_metric(labels, 1.0 if g.lost else 0.0)
            if g.lost or (g.throttle_mask is None and not g.throttle_reasons):
                continue
            active = g.clock_events
            for reason in EXPORTED:
                events.add_metric([*labels, reason.key], 1.0 if active & reason else 0.0)
        yield lost
        if events.samples:
            yield events
