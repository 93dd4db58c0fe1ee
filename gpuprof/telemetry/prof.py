"""What the profiling (NVML GPM) fields of a :class:`GpuSample` say, for every reader.

``GpuSample.prof_*`` are all ``None`` where the GPU has no GPM (before Hopper, GeForce, vGPU, no
permission) or on the first poll, with the reason in ``prof_unavailable``; the monitor, the
overview cards, the plots, the exporter and the health checks ask these helpers rather than test
single fields.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpuprof.i18n import tr
from gpuprof.telemetry.model import GpuSample

__all__ = ["PROF_PCT_FIELDS", "any_prof", "has_prof", "prof_reason"]

#: The activity fields of a sample, in percent of cycles (the DCGM_FI_PROF_* ratios x 100).
PROF_PCT_FIELDS: tuple[str, ...] = (
    "prof_sm_active_pct",
    "prof_sm_occupancy_pct",
    "prof_tensor_active_pct",
    "prof_tensor_hmma_pct",
    "prof_tensor_imma_pct",
    "prof_tensor_dfma_pct",
    "prof_dram_active_pct",
    "prof_fp64_active_pct",
    "prof_fp32_active_pct",
    "prof_fp16_active_pct",
    "prof_nvdec_pct",
    "prof_nvjpg_pct",
)


def has_prof(s: GpuSample) -> bool:
    """True when any profiling activity of ``s`` is present (a lost GPU has none)."""
    return not s.lost and any(getattr(s, f) is not None for f in PROF_PCT_FIELDS)


def any_prof(samples: Iterable[GpuSample]) -> bool:
    """True when at least one of ``samples`` has profiling activity."""
    return any(has_prof(s) for s in samples)


def prof_reason(s: GpuSample) -> str:
    """Why ``s`` has no profiling activity, translated ("not supported on this GPU", ...);
    empty when it has some."""
    if has_prof(s):
        return ""
    if s.lost:
        return tr("GPU lost")
    return tr(s.prof_unavailable) if s.prof_unavailable else tr("not reported")
