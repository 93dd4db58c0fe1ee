"""The fleet as Prometheus sees it: nodes (scrape targets) with their GPUs, and findings.

Frozen dataclasses, built by :mod:`gpuprof.fleet.read` and read by the CLI, the app's Fleet tab
and JSON. A value the exporter does not serve (or served as NaN) is ``None``. Units live in the
names; ``mem_*`` are bytes (dcgm-exporter serves MiB), ``sm_active_pct`` is a percentage
(dcgm-exporter serves a 0–1 ratio).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuprof.findings import Severity
from gpuprof.fleet.selector import Selector

__all__ = [
    "GRID_METRICS",
    "SIMULATED_SOURCE",
    "Fleet",
    "FleetFinding",
    "FleetGpu",
    "FleetNode",
    "FleetQuery",
    "NodeKey",
]

#: (job, instance): a scrape target, the identity of a node.
NodeKey = tuple[str, str]

#: ``gpuprof_source_info``'s ``source`` label of an exporter serving the simulator's data
#: (``gpuprof exporter --demo``): its nodes, GPUs and findings are labelled SIMULATED.
SIMULATED_SOURCE = "simulated"

#: The metrics a grid can be coloured by: ``--metric`` name → (attribute, unit).
GRID_METRICS: dict[str, tuple[str, str]] = {
    "util": ("util_pct", "%"),
    "sm": ("sm_active_pct", "%"),
    "mem": ("mem_used_pct", "%"),
    "temp": ("temp_c", "°C"),
    "power": ("power_w", "W"),
}


@dataclass(frozen=True, slots=True)
class FleetGpu:
    """One GPU (or MIG instance) of a node, with its latest values.

    ``stale``: seen within the look-back window but no current sample (the exporter stopped
    serving it: a GPU lost, or dropped by a stale source); ``down``: its node's exporter is down;
    ``simulated``: its exporter serves SIMULATED data (``gpuprof exporter --demo``).
    ``throttle``: (reason, share of the throttle window it was active; 1.0 when read at the
    latest sample), thermal and power reasons only. ``idle_max_util_pct``: the highest utilization over the idle window.
    """

    job: str
    instance: str
    node: str
    gpu: str
    uuid: str = ""
    model_name: str = ""
    hostname: str = ""
    mig_instance: str = ""
    workload: str = ""
    util_pct: float | None = None
    sm_active_pct: float | None = None
    mem_used_bytes: float | None = None
    mem_free_bytes: float | None = None
    temp_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    xid: float | None = None
    ecc_dbe: float | None = None
    ecc_sbe: float | None = None
    row_remap_failure: float | None = None
    pcie_gen: float | None = None
    pcie_width: float | None = None
    lost: bool = False
    throttle: tuple[tuple[str, float], ...] = ()
    idle_max_util_pct: float | None = None
    stale: bool = False
    down: bool = False
    simulated: bool = False

    @property
    def node_key(self) -> NodeKey:
        return (self.job, self.instance)

    @property
    def mem_used_pct(self) -> float | None:
        used, free = self.mem_used_bytes, self.mem_free_bytes
        if used is None or free is None or used + free <= 0:
            return None
        return 100.0 * used / (used + free)

    @property
    def name(self) -> str:
        """``node/gpu`` (``node/gpu/mig``): how findings name it."""
        parts = [self.node, f"GPU {self.gpu}"]
        if self.mig_instance:
            parts.append(f"MIG {self.mig_instance}")
        return " ".join(parts)

    @property
    def column(self) -> str:
        """Its grid column: ``gpu``, or ``gpu/mig`` for a MIG instance."""
        return f"{self.gpu}/{self.mig_instance}" if self.mig_instance else self.gpu

    def metric(self, name: str) -> float | None:
        """The value of a :data:`GRID_METRICS` name (``util``, ``sm``, ``mem``, ...)."""
        attr, _ = GRID_METRICS[name]
        value: float | None = getattr(self, attr)
        return value

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "uuid": self.uuid,
            "model_name": self.model_name,
            "hostname": self.hostname,
            "mig_instance": self.mig_instance or None,
            "workload": self.workload or None,
            "util_pct": self.util_pct,
            "sm_active_pct": self.sm_active_pct,
            "mem_used_bytes": self.mem_used_bytes,
            "mem_free_bytes": self.mem_free_bytes,
            "mem_used_pct": self.mem_used_pct,
            "temp_c": self.temp_c,
            "power_w": self.power_w,
            "power_limit_w": self.power_limit_w,
            "xid": self.xid,
            "ecc_dbe": self.ecc_dbe,
            "ecc_sbe": self.ecc_sbe,
            "pcie_gen": self.pcie_gen,
            "pcie_width": self.pcie_width,
            "lost": self.lost,
            "throttle": {reason: frac for reason, frac in self.throttle},
            "idle_max_util_pct": self.idle_max_util_pct,
            "stale": self.stale,
            "down": self.down,
            "simulated": self.simulated,
        }


@dataclass(frozen=True, slots=True)
class FleetNode:
    """One scrape target: its labels (``cluster``, ``node``, ...) and its GPUs.

    ``up``: Prometheus's ``up`` (None when Prometheus has no ``up`` for it: a recording rule
    or federation); ``source_up``: gpuprof's ``gpuprof_source_up`` (None for dcgm-exporter);
    ``exporter``: ``gpuprof`` or ``dcgm-exporter``, from the series it serves; ``source``: a
    gpuprof exporter's data source (``nvml``, ``simulated``, ``replay``; empty otherwise).
    """

    job: str
    instance: str
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    up: bool | None = None
    source_up: bool | None = None
    exporter: str = ""
    last_error: str = ""
    gpus: tuple[FleetGpu, ...] = ()
    source: str = ""

    @property
    def key(self) -> NodeKey:
        return (self.job, self.instance)

    @property
    def simulated(self) -> bool:
        """Its exporter serves SIMULATED data (``gpuprof exporter --demo``), not measurements."""
        return self.source == SIMULATED_SOURCE

    @property
    def down(self) -> bool:
        return self.up is False

    @property
    def cluster(self) -> str:
        return self.labels.get("cluster", "")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "job": self.job,
            "instance": self.instance,
            "labels": dict(self.labels),
            "up": self.up,
            "down": self.down,
            "source_up": self.source_up,
            "exporter": self.exporter or None,
            "source": self.source or None,
            "simulated": self.simulated,
            "last_error": self.last_error or None,
            "gpus": [g.to_json() for g in self.gpus],
        }


@dataclass(frozen=True, slots=True)
class FleetFinding:
    """One fleet-wide finding. ``code`` is stable (tests, JSON, alert names); texts translated."""

    code: str
    severity: Severity
    title: str
    detail: str
    hint: str
    node: str = ""
    gpu: str = ""
    #: About a node whose exporter serves SIMULATED data.
    simulated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "title": self.title,
            "detail": self.detail,
            "hint": self.hint,
            "node": self.node or None,
            "gpu": self.gpu or None,
            "simulated": self.simulated,
        }


@dataclass(frozen=True, slots=True)
class Fleet:
    """What one look at Prometheus found: the nodes, the findings, and how it was asked."""

    url: str
    time_s: float
    selector: str
    nodes: tuple[FleetNode, ...]
    findings: tuple[FleetFinding, ...] = ()
    skipped_series: int = 0

    @property
    def gpus(self) -> tuple[FleetGpu, ...]:
        return tuple(g for n in self.nodes for g in n.gpus)

    @property
    def worst(self) -> Severity | None:
        if not self.findings:
            return None
        return min((f.severity for f in self.findings), key=lambda s: s.rank)

    def to_json(self) -> dict[str, Any]:
        """The versioned JSON document of ``gpuprof fleet --json``."""
        return {
            "schema": "gpuprof.fleet/1",
            "prometheus": self.url,
            "time_s": self.time_s,
            "selector": self.selector or None,
            "summary": {
                "nodes": len(self.nodes),
                "nodes_down": sum(1 for n in self.nodes if n.down),
                "nodes_simulated": sum(1 for n in self.nodes if n.simulated),
                "gpus": len(self.gpus),
                "gpus_stale": sum(1 for g in self.gpus if g.stale),
                "findings": len(self.findings),
                "skipped_series": self.skipped_series,
            },
            "nodes": [n.to_json() for n in self.nodes],
            "findings": [f.to_json() for f in self.findings],
        }


@dataclass(frozen=True, slots=True)
class FleetQuery:
    """What to ask: the selector and the windows (seconds). ``throttle_window_s``: 0 reads the
    throttle reasons at the latest sample, more their share of that window (dearer: the alert
    rules watch "for 5 minutes"). ``idle_util_pct``: at or below it a GPU counts as idle;
    ``idle_mem_bytes``: memory in use that means a job holds it."""

    selector: Selector = field(default_factory=Selector)
    lookback_s: float = 3600.0
    throttle_window_s: float = 0.0
    idle_window_s: float = 1800.0
    idle_util_pct: float = 1.0
    idle_mem_bytes: float = 2.0**30
