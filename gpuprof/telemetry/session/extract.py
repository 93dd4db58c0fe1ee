"""What a session hands out as values: a source's static facts and a frozen extract of a span.

:class:`SourceFacts` are read once per source (:meth:`TelemetrySession.static`);
:class:`SessionExtract` is what :meth:`TelemetrySession.extract` returns for ``[t0, t1]``: the
kept samples in range as read-only arrays, the static facts, the throttle episodes and the
processes seen, the source's label and whether it is SIMULATED. Reports are built from it
(:func:`gpuprof.report.build.from_extract`), in any thread, while the session goes on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import (
    DeviceInfo,
    SourceKind,
    SourceStatus,
    SystemInfo,
    Topology,
)
from gpuprof.telemetry.session.ledger import ProcessSeen
from gpuprof.telemetry.source import TelemetrySource

__all__ = ["SessionExtract", "SourceFacts", "ThrottleEpisode", "extract_of"]


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """A source's static facts, read once (slow on NVML: static queries per GPU)."""

    system: SystemInfo
    devices: tuple[DeviceInfo, ...]
    topology: Topology
    status: SourceStatus

    @classmethod
    def read(cls, source: TelemetrySource) -> SourceFacts:
        return cls(source.system_info(), source.devices(), source.topology(), source.status())


@dataclass(frozen=True, slots=True)
class ThrottleEpisode:
    """A contiguous run of samples of one GPU with a throttle reason (History's intervals)."""

    gpu_index: int
    start_s: float
    end_s: float
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True, eq=False)
class SessionExtract:
    """The samples of ``span`` (Unix s ``(t0, t1)``; None: the session had no samples) and
    what a report needs beside them.

    ``times_s`` is ``(n,)``; ``host`` is ``(len(host_fields), n)``; ``gpus[i]`` is
    ``(len(gpu_fields), n)`` for each GPU seen (NaN: absent or unsupported). The arrays are
    copies and read-only; ``gpus`` is a read-only mapping. An extract made without samples
    (``extract(..., samples=False)``, for a report that reads History's min/max levels) has
    ``n == 0`` and no ``gpus``.
    """

    span: tuple[float, float] | None
    source_kind: SourceKind
    source_label: str
    simulated: bool
    static: SourceFacts
    times_s: np.ndarray
    host_fields: tuple[str, ...]
    host: np.ndarray
    gpu_fields: tuple[str, ...]
    gpus: Mapping[int, np.ndarray]
    events: tuple[ThrottleEpisode, ...]
    processes: tuple[ProcessSeen, ...]

    def __len__(self) -> int:
        return int(self.times_s.size)


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


def extract_of(
    history: History,
    processes: tuple[ProcessSeen, ...],
    source: TelemetrySource,
    static: SourceFacts,
    span: tuple[float, float] | None,
    *,
    samples: bool = True,
) -> SessionExtract:
    """The extract of ``history`` over ``span``; see :class:`SessionExtract`. Without
    ``samples`` the arrays are empty (a report reads History's levels itself)."""
    t0, t1 = span if span is not None else (math.inf, -math.inf)
    samples = samples and span is not None
    if samples:
        view = history.host_view(history.host_fields, t0, t1)
        times, host = view.t_s, view.values
    else:
        times, host = np.empty(0), np.empty((len(history.host_fields), 0))
    gpus: dict[int, np.ndarray] = {}
    events: list[ThrottleEpisode] = []
    for index in history.gpu_indices if span is not None else ():
        if samples:
            gpus[index] = _frozen(history.gpu_view(index, history.gpu_fields, t0, t1).values)
        events.extend(
            ThrottleEpisode(index, a, b, names)
            for a, b, names in history.throttle_intervals(index, t0, t1)
        )
    events.sort(key=lambda e: (e.start_s, e.gpu_index))
    latest = history.latest()
    simulated = source.kind is SourceKind.SIMULATED or (latest is not None and latest.simulated)
    return SessionExtract(
        span=None if span is None else (float(t0), float(t1)),
        source_kind=source.kind,
        source_label=source.label,
        simulated=simulated,
        static=static,
        times_s=_frozen(times),
        host_fields=history.host_fields,
        host=_frozen(host),
        gpu_fields=history.gpu_fields,
        gpus=MappingProxyType(gpus),
        events=tuple(events),
        processes=tuple(p for p in processes if p.last_s >= t0 and p.first_s <= t1),
    )
