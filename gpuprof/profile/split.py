"""How a profiled step divides by what bounds it: compute, memory, collectives, idle (the
split :mod:`gpuprof.profile.project` scales onto other GPUs; issue 23 moved it here).

From the torch breakdown (matmul + attention compute-bound; copies and other kernels memory-
bound; collectives; idle), else NVML GPM (busy share split as tensor/SM vs DRAM activity), else
the assumption :data:`ASSUMED_SPLIT`, said in every row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from gpuprof.i18n import N_
from gpuprof.profile.model import JobProfile, TimeBreakdown

__all__ = ["ASSUMED_SPLIT", "Split", "positive", "split_of", "split_short"]

#: (compute-bound, memory-bound) shares of a step when neither a torch breakdown nor GPM says.
ASSUMED_SPLIT = (0.7, 0.3)


def positive(value: object) -> float | None:
    """A finite number > 0, else None (what a hostile or damaged profile holds is unknown)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) and v > 0 else None


def _pct(value: object) -> float | None:
    v = positive(value)
    return None if v is None else min(v, 100.0)


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True, slots=True)
class Split:
    """Fractions of a step (summing to 1) by what bounds them, and where they come from."""

    compute: float
    memory: float
    collectives: float
    fixed: float  # idle gaps: host-bound, the same on any GPU
    source: str  # "breakdown", "gpm" or "assumption"
    text: str


def _split_breakdown(b: TimeBreakdown) -> Split | None:
    by: dict[str, float] = {}
    for share in b.shares:
        v = positive(share.share_pct)
        if v is not None:
            by[share.category] = by.get(share.category, 0.0) + v
    total = sum(by.values())
    if total <= 0:
        return None
    c = (by.get("matmul", 0.0) + by.get("attention", 0.0)) / total
    m = (by.get("memcpy", 0.0) + by.get("other compute", 0.0)) / total
    k = by.get("collectives", 0.0) / total
    f = max(0.0, 1.0 - c - m - k)
    text = N_(
        "{c} compute-bound (matmul + attention), {m} memory-bound (copies + other kernels), "
        "{k} collectives, {f} idle (torch breakdown, {d})"
    ).format(c=f"{c:.0%}", m=f"{m:.0%}", k=f"{k:.0%}", f=f"{f:.0%}", d=b.device)
    return Split(c, m, k, f, N_("breakdown"), text)


def _split_gpm(profile: JobProfile) -> Split | None:
    gpus = profile.gpus
    tensor = _mean(_pct(g.tensor_active_mean_pct) for g in gpus)
    sm = _mean(_pct(g.sm_active_mean_pct) for g in gpus)
    dram = _mean(_pct(g.dram_active_mean_pct) for g in gpus)
    busy_pct = _mean(_pct(g.util_gpu_mean_pct) for g in gpus)
    active, name = (tensor, N_("tensor")) if tensor is not None else (sm, "SM")
    if active is None or dram is None:
        return None
    busy = 1.0 if busy_pct is None else busy_pct / 100.0
    c = busy * active / (active + dram)
    m = busy - c
    f = 1.0 - busy
    text = (
        N_("{c} compute-bound, {m} memory-bound, {f} idle (GPM: {n} active {a} vs DRAM active {d})")
        if busy_pct is None
        else N_(
            "{c} compute-bound, {m} memory-bound, {f} idle (GPM: GPU utilization {u} busy, "
            "{n} active {a} vs DRAM active {d})"
        )
    ).format(
        c=f"{c:.0%}",
        m=f"{m:.0%}",
        f=f"{f:.0%}",
        u=f"{busy_pct or 0:.0f}%",
        n=name,
        a=f"{active:.0f}%",
        d=f"{dram:.0f}%",
    )
    return Split(c, m, 0.0, f, N_("gpm"), text)


def split_of(profile: JobProfile) -> Split:
    if profile.breakdown is not None:
        found = _split_breakdown(profile.breakdown)
        if found is not None:
            return found
    found = _split_gpm(profile)
    if found is not None:
        return found
    c, m = ASSUMED_SPLIT
    text = N_(
        "{c} compute-bound / {m} memory-bound (an assumption: no torch breakdown "
        "and no GPM activity in this profile)"
    ).format(c=f"{c:.0%}", m=f"{m:.0%}")
    return Split(c, m, 0.0, 0.0, N_("assumption"), text)


def split_short(s: Split) -> str:
    if s.collectives and s.fixed:
        text = N_("compute {c} / memory {m} / collectives {k} / idle {f}")
    elif s.collectives:
        text = N_("compute {c} / memory {m} / collectives {k}")
    elif s.fixed:
        text = N_("compute {c} / memory {m} / idle {f}")
    else:
        text = N_("compute {c} / memory {m}")
    return text.format(
        c=f"{s.compute:.0%}", m=f"{s.memory:.0%}", k=f"{s.collectives:.0%}", f=f"{s.fixed:.0%}"
    )
