"""The limits of every network request gpuprof makes, in one module that imports nothing: the
clients take them as defaults and the commands' ``--help`` states them, without importing the
clients (urllib and ssl cost start-up time).

Each request gets a deadline for all of it (connect to last byte) and a cap on its answer;
:mod:`gpuprof.httpread` enforces both.
"""

from __future__ import annotations

__all__ = [
    "CATALOG_MAX_BYTES",
    "CATALOG_TIMEOUT_S",
    "EXPORTER_MAX_BYTES",
    "EXPORTER_MIN_TIMEOUT_S",
    "PROMETHEUS_MAX_BYTES",
    "PROMETHEUS_TIMEOUT_S",
]

#: ``catalog update``: seconds for each provider's download, in all.
CATALOG_TIMEOUT_S = 120.0
#: ``catalog update``: the largest catalog file (AWS's v8 vms.csv is about 4 MB).
CATALOG_MAX_BYTES = 32 * 2**20

#: A Prometheus query (``fleet``, the Fleet tab): seconds in all.
PROMETHEUS_TIMEOUT_S = 30.0
#: A Prometheus answer at most: 64 nodes × 8 GPUs × every metric is about 4 MiB. The Fleet tab
#: asks 7 queries at once: 7 × this is what a hostile server can make it hold.
PROMETHEUS_MAX_BYTES = 32 * 2**20

#: ``--connect``: seconds for each request to an exporter at least (the sampling interval when
#: longer): a poll that takes longer than the interval only delays the next, and a slow link
#: (an SSH tunnel across the world) needs a few round trips.
EXPORTER_MIN_TIMEOUT_S = 2.0
#: ``--connect``: an exporter's answer at most. A snapshot of 8 GPUs and 224 cores is about
#: 40 KiB; with the most processes a snapshot keeps (4,096, text cut at 500 characters) about
#: 3 MiB.
EXPORTER_MAX_BYTES = 8 * 2**20
