"""Job profiles and the recordings that hold them, for the tests of what reads them."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpuprof.findings import Finding, Severity
from gpuprof.profile.model import (
    GpuJobStats,
    HostJobStats,
    JobProfile,
    OpTime,
    Phase,
    StepStats,
    TimeBreakdown,
    TimeShare,
)
from gpuprof.profile.storage import PROFILE_KEY
from gpuprof.report.build import demo_snapshots
from gpuprof.telemetry.store import SessionStore


def job_profile(
    t0: float = 1.7e9,
    wall_s: float = 60.0,
    *,
    gpus: Sequence[Mapping[str, Any]] = (),
    host: Mapping[str, Any] | None = None,
    phases: Sequence[tuple[str, float, float]] = (),
    steps: Mapping[str, Any] | None = None,
    breakdown: Mapping[str, Any] | None = None,
    findings: Sequence[tuple[str, str, str, str]] = (),
    **fields: Any,
) -> JobProfile:
    """A job profile of a run from ``t0`` to ``t0 + wall_s``, its sections given as plain
    values: ``gpus`` one mapping of :class:`GpuJobStats` fields per GPU (``index``: its
    position unless given; the job's ``gpu_indices``, and ``gpu_seconds`` = wall time x GPUs,
    unless given), ``host`` :class:`HostJobStats`' fields, ``phases`` (name, start, end) in
    seconds from ``t0``, ``steps`` :class:`StepStats`' fields, ``breakdown``
    :class:`TimeBreakdown`'s with ``shares`` as (category, s, %) and ``top`` as (name, category,
    s, calls, %), ``findings`` warnings as (code, title, detail, hint); ``fields`` the
    :class:`JobProfile`'s own (default: ``python train.py``, pid 1, exit code 0)."""
    made = tuple(GpuJobStats(**{"index": i, **g}) for i, g in enumerate(gpus))
    section = dict(breakdown or {})
    if breakdown is not None:
        section["shares"] = tuple(TimeShare(*s) for s in section.get("shares", ()))
        section["top"] = tuple(OpTime(*o) for o in section.get("top", ()))
    base: dict[str, Any] = dict(
        name="train",
        command=("python", "train.py"),
        pid=1,
        started_s=t0,
        ended_s=t0 + wall_s,
        exit_code=0,
        gpu_indices=tuple(g.index for g in made),
        gpu_seconds=wall_s * len(made),
        gpus=made,
        host=HostJobStats(**(host or {})),
        phases=tuple(Phase(name, t0 + start, t0 + end) for name, start, end in phases),
        steps=None if steps is None else StepStats(**steps),
        breakdown=None if breakdown is None else TimeBreakdown(**section),
        findings=tuple(Finding(code, Severity.WARNING, *texts) for code, *texts in findings),
    )
    return JobProfile(**{**base, **fields})


def a100_job_profile(name: str = "train", t0: float = 1.7e9) -> JobProfile:
    """The job profile of a 60 s run from ``t0`` on one A100 80GB: 50 steps of 1.0 s at 1000
    tokens/s (bf16) in a steady phase, 60 % of its time in matmul; what a projection reads."""
    return JobProfile(
        name=name,
        command=("python", "train.py"),
        pid=5,
        started_s=t0,
        ended_s=t0 + 60.0,
        gpu_indices=(0,),
        gpu_seconds=60.0,
        gpus=(GpuJobStats(0, "NVIDIA A100-SXM4-80GB", job_mem_peak_bytes=20 * 2**30),),
        phases=(Phase("steady", t0 + 5, t0 + 55),),
        steps=StepStats(count=50, p50_s=1.0, mean_s=1.0, tokens_per_s=1000.0, mfu_dtype="bf16"),
        breakdown=TimeBreakdown(
            "cuda", 5, 5.0, shares=(TimeShare("matmul", 3, 60.0), TimeShare("memcpy", 2, 40.0))
        ),
    )


def job_recording(path: Path, profile_text: str | None, end_s: float) -> Path:
    """A closed recording at ``path`` of 20 s of SIMULATED snapshots ending at ``end_s``, with
    ``profile_text`` (if any) as its job profile's meta row, written as it is."""
    source, snaps = demo_snapshots(duration_s=20.0, step_s=2.0, end_s=end_s)
    store = SessionStore.create(path, source=source)
    for snap in snaps:
        store.append(snap)
    store.close()
    if profile_text is not None:
        with sqlite3.connect(path) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (PROFILE_KEY, profile_text)
            )
        conn.close()
    return path
