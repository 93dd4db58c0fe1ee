"""How long a check takes, by design: an estimate from the time budgets it hands out.

No item of a check runs open-ended: the benchmark cases get a budget each
(:func:`gpuprof.check.perf.perf_budgets`), the memory test a size, the burn-in its minutes. This
module adds them up for a level, a GPU count and a GPU model, so that the levels' time budgets
(``quick`` ≤ 3 minutes, ``standard`` ≤ 10 minutes on one 8-GPU node) hold by construction and
are tested on the CPU (tests/test_check_plan.py), and ``gpuprof check`` prints the plan before
it starts.

How each item is estimated (every figure below is a stated assumption of this module, not a
measurement; a GPU run checks the total, ``@pytest.mark.gpu`` in tests/test_check_plan.py):

* A benchmark case: its budget plus one step. The runner checks the budget between steps that
  each take at most about a second (:mod:`gpuprof.bench.runner`), so a case ends at most one
  step past it; the collectives case gives up :data:`COLLECTIVE_GRACE_S` past its budget (its
  spawned ranks import torch and set up NCCL first), so that is its allowance. The per-GPU
  cases run once per GPU, one GPU after the other; P2P and collectives once for the node. On
  the CPU every case runs :func:`~gpuprof.check.perf.perf_runs` times (its speed varies).
* The memory test: bytes tested × the bytes its tensor operations move per tested byte
  (:data:`MEMTEST_TRAFFIC`, counted from :mod:`gpuprof.check.memtest`'s fill and verify) ÷
  :data:`MEMTEST_BW_FRACTION` of the spec memory bandwidth, plus :data:`MEMTEST_SETUP_S` for
  allocating the chunks; one GPU after the other. The fraction is conservative: a coalesced
  HBM3 load on an H100 SXM was measured at 84% of its 3.35 TB/s (mikamirai.com, "GPU Memory
  Bandwidth: What Your Profiler Isn't Telling You", 2026-03-28); PyTorch's elementwise kernels
  with int64 temporaries are not measured here, so half the spec rate is assumed.
* The burn-in: its minutes, once: it loads every GPU at the same time
  (:func:`gpuprof.check.burnin.run_burnin`).
* Start-up (torch import, a CUDA context and cuBLAS per GPU) and the NVML inventory and health
  windows: fixed allowances.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuprof.catalog.specs import GpuSpec
from gpuprof.check.perf import perf_budgets
from gpuprof.i18n import tr

__all__ = [
    "COLLECTIVE_GRACE_S",
    "CPU_MEMTEST_BYTES",
    "LEVEL_BUDGET_S",
    "MEMTEST_BW_FRACTION",
    "MEMTEST_FRACTION",
    "MEMTEST_TRAFFIC",
    "QUICK_MEMTEST_BYTES",
    "WINDOW_POLLS",
    "CheckPlan",
    "PlanItem",
    "check_plan",
    "memtest_bytes",
    "plan_seconds",
]

GIB = 1 << 30
#: The time budget of each level on one 8-GPU node (issue 14); burn-in adds its minutes (once:
#: all GPUs are loaded together).
LEVEL_BUDGET_S: Mapping[str, float] = {"quick": 180.0, "standard": 600.0}
#: Polls of the health window before and after the measurements, per level.
WINDOW_POLLS: Mapping[str, int] = {"quick": 2, "standard": 5, "burn-in": 5}
#: Host memory the CPU-only memory test covers, per level (a smoke test of the host).
CPU_MEMTEST_BYTES: Mapping[str, int] = {
    "quick": 16 << 20,
    "standard": 64 << 20,
    "burn-in": 64 << 20,
}
#: Memory tested per GPU at ``quick`` (at most; less when less is free): 8 GiB.
QUICK_MEMTEST_BYTES = 8 * GIB
#: Share of the free memory tested per GPU at ``standard`` and ``burn-in`` (memtest's default).
MEMTEST_FRACTION = 0.9
#: Bytes read + written per tested byte, per pattern: the write pass and the verify pass each
#: build the pattern (walking ones: arange, ones_like, %, <<, and the int64 → int32 fold, 124
#: bytes per 4-byte word; address: 76; random: one int32 write), and the verify adds the
#: compare (8 read, 1 written) and the nonzero scan (1 read) per word.
MEMTEST_TRAFFIC: Mapping[str, float] = {"walking_ones": 64.5, "random": 4.5, "address": 40.5}
#: Share of the spec memory bandwidth assumed for the memory test's tensor operations.
MEMTEST_BW_FRACTION = 0.5
#: Allocating a GPU's test chunks and freeing them afterwards.
MEMTEST_SETUP_S = 1.0
#: Bandwidth assumed for a GPU without a spec row (the lowest of the data-center rows, T4/L4).
FALLBACK_BW_GBS = 300.0
#: Bandwidth assumed for the host memory test (the CPU-only check; a small test).
HOST_BW_GBS = 2.0
#: One step past a case's budget, and the collectives' give-up time past theirs.
STEP_S = 1.0
COLLECTIVE_GRACE_S = 30.0
#: importing torch and initialising CUDA once; a context, cuBLAS and the allocator per GPU.
TORCH_START_S = 10.0
GPU_START_S = 2.0
#: NVML inventory (devices, topology, system) and one poll of the health window.
NVML_START_S = 2.0
POLL_S = 0.25


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One part of the check and its estimated wall time (seconds)."""

    item: str
    seconds: float
    basis: str


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """The estimate for one level on ``gpu_count`` GPUs of ``gpu_model`` (0 and "CPU": no GPU)."""

    level: str
    gpu_count: int
    gpu_model: str
    items: tuple[PlanItem, ...]
    memtest_bytes_per_gpu: int

    @property
    def total_s(self) -> float:
        return sum(i.seconds for i in self.items)

    @property
    def budget_s(self) -> float | None:
        """The level's time budget for an 8-GPU node (None for burn-in: its minutes rule)."""
        return LEVEL_BUDGET_S.get(self.level)

    def summary(self) -> str:
        """``plan: about 2.4 min for quick on 8× H100 SXM`` (translated)."""
        where = "CPU" if self.gpu_count == 0 else f"{self.gpu_count}× {self.gpu_model or 'GPU'}"
        return tr(
            "plan: about {m:.1f} min for {level} on {where}",
            m=self.total_s / 60.0,
            level=self.level,
            where=where,
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``plan`` object of docs/check-schema.md."""
        return {
            "level": self.level,
            "gpu_count": self.gpu_count,
            "gpu_model": self.gpu_model,
            "total_s": round(self.total_s, 1),
            "budget_s": self.budget_s,
            "memtest_bytes_per_gpu": self.memtest_bytes_per_gpu,
            "items": [
                {"item": i.item, "seconds": round(i.seconds, 1), "basis": i.basis}
                for i in self.items
            ],
        }


def memtest_bytes(level: str, device: str) -> int | None:
    """The size the check asks the memory test for on ``device``: None means
    :data:`MEMTEST_FRACTION` of its free memory."""
    if device == "cpu":
        return CPU_MEMTEST_BYTES[level]
    return QUICK_MEMTEST_BYTES if level == "quick" else None


def _memtest_s(tested: float, bw_gbs: float) -> float:
    traffic = tested * sum(MEMTEST_TRAFFIC.values())
    return traffic / (bw_gbs * 1e9 * MEMTEST_BW_FRACTION)


def check_plan(
    level: str,
    gpu_count: int,
    spec: GpuSpec | None,
    *,
    minutes: float = 10.0,
    memory_bytes: int | None = None,
    gpu_model: str | None = None,
) -> CheckPlan:
    """The estimate of a check at ``level`` on ``gpu_count`` GPUs of ``spec`` (0: the CPU).

    ``memory_bytes`` is one GPU's memory (NVML's total) when known, else the spec row's (80 GiB
    without either); ``gpu_model`` names the GPU when it has no spec row.
    """
    items: list[PlanItem] = []
    polls = WINDOW_POLLS[level]
    gpus = max(gpu_count, 0)
    device = "cuda:0" if gpus else "cpu"
    items.append(
        PlanItem(
            "startup",
            TORCH_START_S + GPU_START_S * gpus,
            f"torch + CUDA {TORCH_START_S:g} s, {GPU_START_S:g} s per GPU (assumed)"
            if gpus
            else f"torch {TORCH_START_S:g} s (assumed)",
        )
    )
    if gpus:
        items.append(
            PlanItem(
                "inventory",
                NVML_START_S + POLL_S * polls,
                f"NVML {NVML_START_S:g} s + {polls} polls (assumed)",
            )
        )
    for case in perf_budgets(device, level, gpus):
        once = case.bench in ("p2p", "collective") or not gpus
        extra = COLLECTIVE_GRACE_S if case.bench == "collective" else STEP_S
        times = (1 if once else gpus) * case.runs
        runs = f" × {case.runs} runs" if case.runs > 1 else ""
        items.append(
            PlanItem(
                f"perf.{case.name.replace(' ', '_')}",
                (case.budget_s + extra) * times,
                f"({case.budget_s:g} s budget + {extra:g} s) × {1 if once else gpus}{runs}",
            )
        )
    if gpus:
        gib = spec.memory_gib if spec is not None and spec.memory_gib else None
        total = memory_bytes or (int(gib * GIB) if gib else 80 * GIB)
        size = memtest_bytes(level, device)
        tested = min(size, int(total * MEMTEST_FRACTION)) if size else int(total * MEMTEST_FRACTION)
        bw = spec.memory_bw_gbs if spec is not None and spec.memory_bw_gbs else FALLBACK_BW_GBS
        one = _memtest_s(tested, bw) + MEMTEST_SETUP_S
        basis = (
            f"{tested / GIB:.1f} GiB × {sum(MEMTEST_TRAFFIC.values()):g} B moved per B ÷ "
            f"({MEMTEST_BW_FRACTION:g} × {bw:g} GB/s) + {MEMTEST_SETUP_S:g} s, × {gpus}"
        )
    else:
        tested = CPU_MEMTEST_BYTES[level]
        one = _memtest_s(tested, HOST_BW_GBS)
        basis = f"{tested >> 20} MiB host memory at an assumed {HOST_BW_GBS:g} GB/s"
    items.append(PlanItem("diag.memtest", one * max(gpus, 1), basis))
    if level == "burn-in":
        items.append(
            PlanItem(
                "diag.burnin",
                minutes * 60.0,
                f"{minutes:g} min, all {gpus} GPUs at once" if gpus else f"{minutes:g} min",
            )
        )
    if gpus:
        items.append(PlanItem("health", POLL_S * polls, f"{polls} polls"))
    model = spec.key if spec is not None else (gpu_model or "")
    return CheckPlan(level, gpus, model if gpus else "CPU", tuple(items), tested)


def plan_seconds(
    level: str, gpu_count: int, spec: GpuSpec | None, *, minutes: float = 10.0
) -> list[tuple[str, float]]:
    """``[(item, seconds), …]`` of :func:`check_plan` (the items in the order they run)."""
    return [(i.item, i.seconds) for i in check_plan(level, gpu_count, spec, minutes=minutes).items]
