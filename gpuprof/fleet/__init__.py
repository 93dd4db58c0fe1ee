"""The fleet through Prometheus: an HTTP API client, the fleet model, its findings, and a
node's drill-down. No Qt here; the CLI (``gpuprof fleet``) and the app's Fleet tab read it."""

from __future__ import annotations

from gpuprof.fleet.client import FleetError, PrometheusClient, RangeSeries, Sample, Target
from gpuprof.fleet.drill import NodeHistory, node_history
from gpuprof.fleet.model import GRID_METRICS, Fleet, FleetFinding, FleetGpu, FleetNode
from gpuprof.fleet.read import FleetQuery, read_fleet
from gpuprof.fleet.selector import Selector, parse_selector

__all__ = [
    "GRID_METRICS",
    "Fleet",
    "FleetError",
    "FleetFinding",
    "FleetGpu",
    "FleetNode",
    "FleetQuery",
    "NodeHistory",
    "PrometheusClient",
    "RangeSeries",
    "Sample",
    "Selector",
    "Target",
    "node_history",
    "parse_selector",
    "read_fleet",
]
