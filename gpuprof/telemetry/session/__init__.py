"""The telemetry session (:class:`TelemetrySession`) and the values it hands out.

- :mod:`.core`: the session: one source, one sampler and one History for its whole life,
  subscriptions, replay control;
- :mod:`.recording`: :class:`Recording`, the sampler's sink while the session records;
- :mod:`.ledger`: :class:`ProcessLedger`, the GPU processes seen;
- :mod:`.extract`: :class:`SourceFacts` (static facts, read once per source) and the frozen
  :class:`SessionExtract` of a span that reports are built from.
"""

from __future__ import annotations

from gpuprof.telemetry.sampler import Sink
from gpuprof.telemetry.session.core import (
    CLOSE_TIMEOUT_S,
    FULL_HISTORY,
    MINIMAL_HISTORY,
    ReplayState,
    SamplerFactory,
    SessionState,
    TelemetrySession,
)
from gpuprof.telemetry.session.extract import SessionExtract, SourceFacts, ThrottleEpisode
from gpuprof.telemetry.session.ledger import MAX_PROCESSES, ProcessLedger, ProcessSeen
from gpuprof.telemetry.session.recording import Recording

__all__ = [
    "CLOSE_TIMEOUT_S",
    "FULL_HISTORY",
    "MAX_PROCESSES",
    "MINIMAL_HISTORY",
    "ProcessLedger",
    "ProcessSeen",
    "Recording",
    "ReplayState",
    "SamplerFactory",
    "SessionExtract",
    "SessionState",
    "Sink",
    "SourceFacts",
    "TelemetrySession",
    "ThrottleEpisode",
]
