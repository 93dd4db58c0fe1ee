"""The exporter's JSON API on the wire: the paths, the document kinds and the version that the
server (:mod:`gpuprof.exporter.api`) writes and a remote source (:mod:`gpuprof.telemetry.remote`)
reads. Both sides take them from here, so that the client never imports the server.

The documents themselves are described in ``docs/exporter-api.md``.
"""

from __future__ import annotations

__all__ = [
    "API_VERSION",
    "JSON_CONTENT_TYPE",
    "SNAPSHOT_KIND",
    "SNAPSHOT_PATH",
    "STATIC_KIND",
    "STATIC_PATH",
]

#: The version of both documents; a change that an older client would misread bumps it.
API_VERSION = 1
SNAPSHOT_PATH = "/api/v1/snapshot"
STATIC_PATH = "/api/v1/static"
SNAPSHOT_KIND = "gpuprof.snapshot"
STATIC_KIND = "gpuprof.static"
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
