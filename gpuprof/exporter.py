"""Prometheus endpoint: the latest :class:`Snapshot` under NVIDIA dcgm-exporter's metric names.

Names, units and labels (``gpu``, ``UUID``, ``pci_bus_id``, ``device``, ``modelName``,
``Hostname``) follow dcgm-exporter's ``etc/default-counters.csv`` and ``dcp-metrics-included.csv``
so that existing Grafana dashboards (e.g. grafana.com dashboard 12239) work unchanged; an
unsupported field produces no sample, as in dcgm-exporter. Two deliberate differences:

* DCGM counters (energy, PCIe replays, ECC, retired pages, remapped rows) are exposed *untyped*
  under their exact DCGM names: ``prometheus_client`` would append ``_total`` to a counter and
  break the dashboards' queries. PromQL treats the values the same.
* ``DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL`` is a gauge of RX+TX in DCGM's unit (KiB/s / 1000),
  because DCGM itself publishes a rate there (NVIDIA/dcgm-exporter PR #658).

Serving: ``prometheus_client.generate_latest`` re-validates and re-escapes every label of every
sample (about 4 ms for 8 GPUs here); :func:`render_text` writes the same text format 0.0.4 with the
per-GPU label block escaped once, which keeps a scrape of 8 GPUs near 1 ms. The collector is a
regular ``prometheus_client`` collector and also works in any ``CollectorRegistry``.

What DCGM lacks comes as ``gpuprof_*``: throttle reasons, lost GPUs, the PCIe link, the latest
benchmark results, and ``gpuprof_source_info{source="simulated"}`` so that simulated data is
labelled (its HELP texts say SIMULATED too).
"""

from __future__ import annotations

import importlib
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prometheus_client.core import GaugeMetricFamily, Metric, UnknownMetricFamily
from prometheus_client.registry import Collector

from gpuprof.diagnose import normalize_reason
from gpuprof.telemetry.model import DeviceInfo, GpuSample, Snapshot, SourceKind
from gpuprof.telemetry.source import TelemetrySource

if TYPE_CHECKING:
    from gpuprof.telemetry.session import TelemetrySession

__all__ = [
    "DEFAULT_BIND",
    "DEFAULT_PORT",
    "LABELS",
    "THROTTLE_REASONS",
    "BenchValue",
    "Exporter",
    "SnapshotCollector",
    "bench_values_of",
    "render_text",
]

log = logging.getLogger(__name__)

DEFAULT_PORT = 9400  # dcgm-exporter's port
DEFAULT_BIND = "127.0.0.1"
#: dcgm-exporter's per-GPU labels, in its order.
LABELS = ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname")
#: Canonical clocks-event reasons (see :func:`gpuprof.diagnose.normalize_reason`), idle included.
THROTTLE_REASONS = (
    "gpu_idle",
    "applications_clocks_setting",
    "sw_power_cap",
    "hw_slowdown",
    "sync_boost",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "display_clock_setting",
)
_MASK_BITS = {
    # nvml.h nvmlClocksEventReason* bits, for samples that carry only the mask.
    "gpu_idle": 0x1,
    "applications_clocks_setting": 0x2,
    "sw_power_cap": 0x4,
    "hw_slowdown": 0x8,
    "sync_boost": 0x10,
    "sw_thermal_slowdown": 0x20,
    "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80,
    "display_clock_setting": 0x100,
}
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
        "The rate of data transmitted over the PCIe bus (in B/s).",
        _attr("pcie_tx_bytes_s"),
    ),
    (
        "DCGM_FI_PROF_PCIE_RX_BYTES",
        "gauge",
        "The rate of data received over the PCIe bus (in B/s).",
        _attr("pcie_rx_bytes_s"),
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
    """A prometheus_client collector that renders the snapshot returned by ``latest()``."""

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
    ) -> None:
        self._latest = latest
        self._hostname = hostname if hostname is not None else socket.gethostname()
        self._label = label
        self._devices = {d.index: d for d in devices}
        self._labels: dict[int, list[str]] = {}
        self._bench_values = bench_values
        self._bench_ttl_s = bench_ttl_s
        self._bench_cache: tuple[float, list[BenchValue]] | None = None
        self._clock = clock

    def _gpu_labels(self, index: int, uuid: str | None) -> list[str]:
        cached = self._labels.get(index)
        if cached is None:
            d = self._devices.get(index)
            cached = [
                str(index),
                (d.uuid if d and d.uuid else uuid) or "",
                (d.pci_bus_id if d else None) or "",
                f"nvidia{index}",
                d.name if d else "",
                self._hostname,
            ]
            self._labels[index] = cached
        return cached

    def _bench(self) -> list[BenchValue]:
        if self._bench_values is None:
            return []
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

    def collect(self) -> Iterator[Metric]:
        snap = self._latest()
        simulated = snap is not None and snap.source is SourceKind.SIMULATED
        tag = " [SIMULATED data]" if simulated else ""
        source = snap.source.value if snap is not None else SourceKind.NONE.value

        info = GaugeMetricFamily(
            "gpuprof_source_info",
            "Where the data comes from (nvml, simulated, replay, none)." + tag,
            labels=["source", "label", "Hostname"],
        )
        info.add_metric([source, self._label, self._hostname], 1.0)
        yield info
        if snap is None:
            return
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
            if g.throttle_reasons:
                active = {normalize_reason(r) for r in g.throttle_reasons}
            else:
                mask = g.throttle_mask or 0
                active = {r for r, bit in _MASK_BITS.items() if mask & bit}
            for reason in THROTTLE_REASONS:
                events.add_metric([*labels, reason], 1.0 if reason in active else 0.0)
        yield lost
        if events.samples:
            yield events

        bench = self._bench()
        if bench:
            fam = GaugeMetricFamily(
                "gpuprof_bench_result",
                "Latest benchmark result measured on this machine (unit in 'metric').",
                labels=["benchmark", "case", "metric", "gpu", "Hostname"],
            )
            for b in bench:
                fam.add_metric([b.benchmark, b.case, b.metric, b.gpu, self._hostname], b.value)
            yield fam


#: The Prometheus text exposition format this module writes (what dcgm-exporter serves).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_TYPES = {"gauge": "gauge", "counter": "counter", "unknown": "untyped", "untyped": "untyped"}


def _number(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render_text(families: Iterable[Metric]) -> bytes:
    """Prometheus text format 0.0.4 for gauge/untyped families whose sample names are the family's.

    Label blocks are cached per distinct label set within one call, so each GPU's six labels are
    escaped once per scrape instead of once per sample.
    """
    cache: dict[tuple[tuple[str, str], ...], str] = {}
    out: list[str] = []
    for fam in families:
        if fam.type not in _TYPES:
            raise ValueError(f"render_text does not handle {fam.type} metrics ({fam.name})")
        doc = fam.documentation.replace("\\", "\\\\").replace("\n", "\\n")
        out.append(f"# HELP {fam.name} {doc}\n# TYPE {fam.name} {_TYPES[fam.type]}\n")
        for sample in fam.samples:
            key = tuple(sample.labels.items())
            block = cache.get(key)
            if block is None:
                inner = ",".join(f'{k}="{_escape_label(v)}"' for k, v in key)
                block = cache[key] = "{" + inner + "}" if inner else ""
            out.append(f"{sample.name}{block} {_number(sample.value)}\n")
    return "".join(out).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    server_version = "gpuprof-exporter"
    collector: SnapshotCollector  # set on the per-server subclass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            try:
                body, ctype, code = render_text(self.collector.collect()), CONTENT_TYPE, 200
            except Exception:  # answer 500 and keep serving
                log.exception("scrape failed")
                body, ctype, code = b"scrape failed\n", "text/plain; charset=utf-8", 500
        elif path == "/":
            body = b"<html><body><a href='/metrics'>metrics</a></body></html>\n"
            ctype, code = "text/html; charset=utf-8", 200
        else:
            body, ctype, code = b"not found\n", "text/plain; charset=utf-8", 404
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a scrape every few seconds would flood the terminal


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


class Exporter:
    """Serves ``/metrics`` over HTTP from a telemetry session's latest snapshot.

    ``source`` is a :class:`~gpuprof.telemetry.session.TelemetrySession` to attach to (it stays
    the caller's), or a source, for which the exporter makes its own session with a History of
    :data:`~gpuprof.telemetry.session.MINIMAL_HISTORY` samples (it serves only the latest) and
    closes that session on :meth:`stop` (not the source: the caller's). ``port=0`` picks a free
    port (see :attr:`port`). The default bind address is loopback: exposing GPU telemetry to
    the network is the user's explicit choice.
    """

    def __init__(
        self,
        source: TelemetrySource | TelemetrySession,
        *,
        port: int = DEFAULT_PORT,
        bind: str = DEFAULT_BIND,
        interval_s: float = 1.0,
        bench_values: Callable[[], Iterable[BenchValue]] | None = _default_bench_values,
    ) -> None:
        from gpuprof.telemetry.session import TelemetrySession

        if isinstance(source, TelemetrySession):
            self._own_session = False
            self.session = source
        else:
            self._own_session = True
            self.session = _own_session(source, interval_s)
        self.source = self.session.source
        self._bind = bind
        self._requested_port = port
        self._lock = threading.Lock()
        self._latest: Snapshot | None = None
        system = self.source.system_info()
        self.collector = SnapshotCollector(
            self.latest,
            self.source.devices(),
            hostname=system.hostname or None,
            label=self.source.label,
            bench_values=bench_values,
        )
        self._unsubscribe: Callable[[], None] | None = None
        self._httpd: Any = None
        self._thread: threading.Thread | None = None

    def latest(self) -> Snapshot | None:
        with self._lock:
            return self._latest

    def _on_snapshot(self, snap: Snapshot) -> None:
        with self._lock:
            self._latest = snap

    @property
    def port(self) -> int:
        return int(self._httpd.server_port) if self._httpd is not None else self._requested_port

    @property
    def url(self) -> str:
        host = f"[{self._bind}]" if ":" in self._bind else self._bind
        return f"http://{host}:{self.port}/metrics"

    def start(self) -> Exporter:
        self._unsubscribe = self.session.subscribe(self._on_snapshot)
        latest = self.session.history.latest()
        if latest is None:
            latest = self.session.poll_once()  # the first scrape already has data
        self._on_snapshot(latest)
        handler = type("Handler", (_Handler,), {"collector": self.collector})
        server_cls = _Server6 if ":" in self._bind else _Server
        self._httpd = server_cls((self._bind, self._requested_port), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="gpuprof-exporter-http",
            daemon=True,
        )
        self._thread.start()
        self.session.start()
        return self

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._own_session:
            self.session.close(close_source=False)
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def __enter__(self) -> Exporter:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _own_session(source: TelemetrySource, interval_s: float) -> TelemetrySession:
    from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession

    return TelemetrySession(source, interval_s=interval_s, history_capacity=MINIMAL_HISTORY)
