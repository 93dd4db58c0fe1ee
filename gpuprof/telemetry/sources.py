"""Telemetry sources: NVML (real GPUs), simulated machines (``--demo``) and recorded sessions.

The backends live in their own modules and are re-exported here, so callers import from one place:

- :class:`NvmlSource` lives in :mod:`gpuprof.telemetry.nvml.source`; it is re-exported here lazily so
  that importing this module never loads pynvml.
- :class:`SimulatedSource` (:mod:`gpuprof.telemetry.simulated`) plays a scripted workload on a
  made-up 8×H100 SXM or 2×RTX 4090 box (:mod:`gpuprof.telemetry.scenarios`): idle, ramp-up,
  training with periodic dips, a power/thermal throttling episode, a data-loader starved phase
  (GPU utilization well below 70%), cool-down. Its static facts are taken from real
  ``nvidia-smi -q`` captures (``reference/nvidia-smi/``). Every snapshot says SIMULATED.
- :class:`ReplaySource` (:mod:`gpuprof.telemetry.replay`) plays a
  :class:`~gpuprof.telemetry.store.SessionStore` file back.
- :class:`~gpuprof.telemetry.remote.RemoteSource` (:mod:`gpuprof.telemetry.remote`) polls
  another machine's ``gpuprof exporter`` (``--connect URL``); imported only when asked for.
- :func:`open_source` is the factory the CLI and the UI call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuprof.telemetry.replay import ReplaySource
from gpuprof.telemetry.scenarios import SCENARIOS, Scenario
from gpuprof.telemetry.simulated import (
    CYCLE_S,
    DEMO_START_OFFSET_S,
    PHASES,
    THERMAL_S,
    THROTTLE_S,
    SimulatedSource,
    demo_start_s,
    phase_at,
)
from gpuprof.telemetry.source import TelemetrySource

if TYPE_CHECKING:
    from gpuprof.telemetry.nvml.source import NvmlSource

__all__ = [
    "CYCLE_S",
    "DEMO_START_OFFSET_S",
    "PHASES",
    "SCENARIOS",
    "THERMAL_S",
    "THROTTLE_S",
    "NvmlSource",
    "ReplaySource",
    "Scenario",
    "SimulatedSource",
    "demo_start_s",
    "open_source",
    "phase_at",
]


def __getattr__(name: str) -> Any:
    # Lazy: pynvml is imported only when someone asks for the NVML backend.
    if name == "NvmlSource":
        from gpuprof.telemetry.nvml.source import NvmlSource

        return NvmlSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_source(
    *,
    demo: bool = False,
    scenario: str = "h100x8",
    replay: str | None = None,
    connect: str | None = None,
    token_file: str | None = None,
    ca_file: str | None = None,
    interval_s: float | None = None,
) -> TelemetrySource:
    """The source the CLI and the UI use: a replay file, the simulator, a remote exporter
    (``connect``, with its ``token_file`` and ``ca_file``; each request's time limit follows
    the sampling interval ``interval_s`` when given), or the local GPUs (default): NVML,
    amdsmi, or both."""
    if connect is not None:
        from gpuprof.telemetry.remote import RemoteSource
        from gpuprof.telemetry.remote_http import DEFAULT_TIMEOUT_S, timeout_for_interval

        timeout_s = DEFAULT_TIMEOUT_S if interval_s is None else timeout_for_interval(interval_s)
        return RemoteSource(connect, token_file=token_file, ca_file=ca_file, timeout_s=timeout_s)
    if replay is not None:
        return ReplaySource(replay)
    if demo:
        # Inside the training phase, so a demo shows load at once (and the power-cap episode a
        # minute later) instead of the scripted idle warm-up; the script loops from there.
        return SimulatedSource.demo(scenario)
    # NVML, or AMD GPUs through amdsmi, or both on a mixed box (gpuprof.telemetry.vendors).
    from gpuprof.telemetry.vendors import open_local_source

    return open_local_source()
