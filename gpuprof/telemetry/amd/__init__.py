"""AMD GPUs through amdsmi (issue 26): the source beside NVML, producing the same samples.

- :mod:`.lib`: the only module of gpuprof that imports ``amdsmi``; the query helper.
- :mod:`.values`: amdsmi's "N/A" strings, ``{value, unit}`` wrappers and microwatts made plain.
- :mod:`.read`: static facts and per-poll samples (no amdsmi import).
- :mod:`.source`: :class:`AmdSmiSource`, the :class:`~gpuprof.telemetry.source.TelemetrySource`.
"""

from __future__ import annotations

from gpuprof.telemetry.amd.source import AmdSmiSource

__all__ = ["AmdSmiSource"]
