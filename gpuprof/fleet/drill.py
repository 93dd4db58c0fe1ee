"""A node's drill-down: its GPUs' curves over a window, from ``/api/v1/query_range``.

Six plots, one range query each, sent at once: utilization, SM activity, memory used,
temperature, power and SM clock. Each curve is one GPU (or MIG instance). The step keeps about
``points`` samples per curve whatever the window, so an hour or a week costs the same to fetch
and to draw.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuprof.fleet.client import PrometheusClient, RangeSeries
from gpuprof.fleet.model import NodeKey
from gpuprof.fleet.read import gpu_key, node_selector
from gpuprof.i18n import N_

__all__ = ["DRILL_PLOTS", "DrillPlot", "NodeHistory", "node_history"]

#: (key, title, unit, PromQL metric, scale): the six plots of a node.
DRILL_PLOTS: tuple[tuple[str, str, str, str, float], ...] = (
    ("util", N_("GPU utilization"), "%", "DCGM_FI_DEV_GPU_UTIL", 1.0),
    ("sm", N_("SM active"), "%", "DCGM_FI_PROF_SM_ACTIVE", 100.0),
    ("mem", N_("Memory used"), "GiB", "DCGM_FI_DEV_FB_USED", 1.0 / 1024.0),
    ("temp", N_("Temperature"), "°C", "DCGM_FI_DEV_GPU_TEMP", 1.0),
    ("power", N_("Power"), "W", "DCGM_FI_DEV_POWER_USAGE", 1.0),
    ("clock", N_("SM clock"), "MHz", "DCGM_FI_DEV_SM_CLOCK", 1.0),
)


@dataclass(frozen=True, slots=True)
class DrillPlot:
    """One plot: a curve per GPU, keyed ``gpu`` (``gpu/MIG``); times in Unix s."""

    key: str
    title: str
    unit: str
    curves: dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]


@dataclass(frozen=True, slots=True)
class NodeHistory:
    node: NodeKey
    start_s: float
    end_s: float
    step_s: float
    plots: tuple[DrillPlot, ...]


def _curves(
    series: list[RangeSeries], scale: float
) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    out = {}
    for s in series:
        _, _, gpu, mig = gpu_key(s.labels)
        name = f"{gpu}/{mig}" if mig else gpu
        out[name] = (s.times_s, s.values * scale)
    return dict(sorted(out.items(), key=lambda kv: (len(kv[0]), kv[0])))


def node_history(
    client: PrometheusClient,
    node: NodeKey,
    *,
    window_s: float = 3600.0,
    points: int = 240,
    clock: Callable[[], float] = time.time,
) -> NodeHistory:
    """The six plots of ``node`` over the last ``window_s`` seconds."""
    end = clock()
    start = end - window_s
    step = max(1.0, window_s / max(1, points))
    matchers = node_selector(node)
    with ThreadPoolExecutor(
        max_workers=len(DRILL_PLOTS), thread_name_prefix="gpuprof-drill"
    ) as pool:
        futures = [
            pool.submit(
                client.query_range,
                f"{metric}{{{matchers}}}",
                start_s=start,
                end_s=end,
                step_s=step,
            )
            for _, _, _, metric, _ in DRILL_PLOTS
        ]
        answers = [f.result() for f in futures]
    plots = tuple(
        DrillPlot(key, title, unit, _curves(series, scale))
        for (key, title, unit, _, scale), series in zip(DRILL_PLOTS, answers, strict=True)
    )
    return NodeHistory(node, start, end, step, plots)
