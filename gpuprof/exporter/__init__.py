"""The Prometheus endpoint (``gpuprof exporter``): the metrics of a telemetry session under
dcgm-exporter's names, and the JSON API a remote gpuprof reads.

- :mod:`~gpuprof.exporter.service`: :class:`Exporter`, which serves a session over HTTP;
- :mod:`~gpuprof.exporter.metrics`: the families of a snapshot (with :mod:`.prof`, the GPM ones,
  :mod:`.processes`, per process, and :mod:`.amd`, AMD's names);
- :mod:`~gpuprof.exporter.api`: the JSON documents, the bearer token and TLS (the paths and kinds
  on the wire are :mod:`gpuprof.telemetry.wire`'s, shared with the client);
- :mod:`~gpuprof.exporter.server`: the bounded HTTP server.
"""

from __future__ import annotations

from gpuprof.exporter.metrics import (
    LABELS,
    THROTTLE_REASONS,
    BenchValue,
    SnapshotCollector,
    SourceHealth,
    bench_values_of,
)
from gpuprof.exporter.service import CONTENT_TYPE, DEFAULT_BIND, DEFAULT_PORT, Exporter, render_text

__all__ = [
    "CONTENT_TYPE",
    "DEFAULT_BIND",
    "DEFAULT_PORT",
    "LABELS",
    "THROTTLE_REASONS",
    "BenchValue",
    "Exporter",
    "SnapshotCollector",
    "SourceHealth",
    "bench_values_of",
    "render_text",
]
