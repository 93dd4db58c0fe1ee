"""A frame's data for the Telemetry tab: History's min/max-decimated views, per GPU, cached."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from gpuprof.telemetry.history import Block, History

from .specs import GPU_FIELDS, GPU_PRIMARY_FIELDS, HOST_FIELDS

__all__ = ["Fetched", "FrameFetcher"]


@dataclass(frozen=True, eq=False)
class Fetched:
    """One GPU's (or the host's) view for a frame: History's block with x relative to t1."""

    t_s: np.ndarray
    x: np.ndarray
    rows: dict[str, np.ndarray]
    n_final: int
    bucket_samples: int
    #: Asked field -> the row that holds what its ring keeps for this GPU (History.stored_field:
    #: ``temp_hotspot_c`` for ``temp_gpu_c`` on a GPU without an edge sensor); identity else.
    stored: dict[str, str] = field(default_factory=dict)


class FrameFetcher:
    """Fetches every plotted series of a frame, and keeps the last frame's views for reuse."""

    def __init__(self) -> None:
        self._fetched: dict[tuple[int, tuple[str, ...]], tuple[tuple[object, ...], Fetched]] = {}

    def fetch(
        self,
        history: History,
        visible: list[int],
        t0: float,
        t1: float,
        max_points: int,
        secondary: bool,
    ) -> dict[int, Fetched]:
        """Every plotted series of the frame, per GPU (host: ``-1``).

        One :meth:`History.gpu_view` call per GPU decimates all its fields together (the
        buckets are shared), instead of one call per curve; a GPU whose view was fetched for the
        same history version, window and width is not fetched again (a theme change, a GPU
        unticked, the secondary series switched).
        """
        version = getattr(history, "version", None)
        out: dict[int, Fetched] = {}
        gpu_fields = GPU_FIELDS if secondary else GPU_PRIMARY_FIELDS
        jobs: list[tuple[int, tuple[str, ...]]] = [(gpu, gpu_fields) for gpu in visible]
        jobs.append((-1, HOST_FIELDS))
        cache: dict[tuple[int, tuple[str, ...]], tuple[tuple[object, ...], Fetched]] = {}
        for gpu, fields in jobs:
            key = (id(history), version, t0, t1, max_points)
            hit = self._fetched.get((gpu, fields))
            if version is not None and hit is not None and hit[0] == key:
                got = hit[1]
            else:
                got = _fetch_one(history, gpu, fields, t0, t1, max_points)
            cache[(gpu, fields)] = (key, got)
            out[gpu] = got
        self._fetched = cache
        return out


def _fetch_one(
    history: History, gpu: int, fields: tuple[str, ...], t0: float, t1: float, max_points: int
) -> Fetched:
    stored: dict[str, str] = {}
    try:
        if gpu < 0:
            view = history.host_view(fields, t0, t1, max_points)
        else:
            stored_field = getattr(history, "stored_field", None)
            if stored_field is not None:
                stored = {f: stored_field(gpu, f) for f in fields}
                fields = tuple(stored[f] for f in fields)
            view = history.gpu_view(gpu, fields, t0, t1, max_points)
    except (KeyError, ValueError, IndexError):
        view = Block(np.empty(0), np.empty((len(fields), 0)))
    t = np.asarray(view.t_s, dtype=np.float64)
    return Fetched(
        t,
        t - t1,
        dict(zip(fields, view.values, strict=True)),
        view.n_final,
        view.bucket_samples,
        {k: v for k, v in stored.items() if k != v},
    )
