"""Planning a suite: which cases run on a device, and each one's time budget."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuprof.bench.base import BENCH_NAMES, BenchFn
from gpuprof.errors import InputError
from gpuprof.i18n import tr

__all__ = ["SUITES", "Case", "parse_only", "plan_cases"]

SUITES: tuple[str, ...] = ("quick", "standard", "full")

# Seconds per case in the quick suite; standard and full multiply these.
_QUICK_BUDGET_S = {
    ("cuda", "gemm"): 3.0,
    ("cuda", "memory"): 2.0,
    ("cuda", "p2p"): 15.0,
    ("cuda", "collective"): 20.0,
    ("cuda", "workload"): 4.0,
    ("cpu", "gemm"): 7.0,
    ("cpu", "memory"): 5.0,
    ("cpu", "p2p"): 1.0,
    ("cpu", "collective"): 20.0,
    ("cpu", "workload"): 5.0,
}
_SUITE_FACTOR = {"quick": 1.0, "standard": 3.0, "full": 8.0}


@dataclass(frozen=True)
class Case:
    """One unit the runner drives: a benchmark generator function and its time budget."""

    bench: str
    name: str
    fn: BenchFn
    budget_s: float


def parse_only(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"gemm,memory"`` → ("gemm", "memory"); None or empty → every benchmark."""
    if text is None:
        return BENCH_NAMES
    parts = [p.strip().lower() for p in (text.split(",") if isinstance(text, str) else text)]
    parts = [p for p in parts if p]
    if not parts:
        return BENCH_NAMES
    unknown = [p for p in parts if p not in BENCH_NAMES]
    if unknown:
        raise InputError(
            tr(
                "unknown benchmark {u}; choose from {c}",
                u=", ".join(unknown),
                c=",".join(BENCH_NAMES),
            )
        )
    return tuple(b for b in BENCH_NAMES if b in parts)


def plan_cases(device: str, suite: str, only: Sequence[str] | None = None) -> list[Case]:
    """The cases of ``suite`` on ``device`` (``cpu`` or ``cuda:N``), filtered by ``only``."""
    from gpuprof.bench.collective import collective_bench
    from gpuprof.bench.gemm import DTYPES, gemm_bench
    from gpuprof.bench.memory import memory_bench
    from gpuprof.bench.p2p import p2p_bench
    from gpuprof.bench.workload import workload_bench

    if suite not in SUITES:
        raise InputError(tr("unknown suite {s}; choose from {c}", s=suite, c=", ".join(SUITES)))
    wanted = parse_only(only)
    kind = "cuda" if device.startswith("cuda") else "cpu"

    def budget(bench: str) -> float:
        return _QUICK_BUDGET_S[(kind, bench)] * _SUITE_FACTOR[suite]

    cases: list[Case] = []
    if "gemm" in wanted:
        cases += [Case("gemm", f"gemm {d}", gemm_bench(d), budget("gemm")) for d in DTYPES]
    if "memory" in wanted:
        dirs = ("h2d", "d2h", "d2d") if kind == "cuda" else ("host",)
        cases += [Case("memory", f"memory {d}", memory_bench(d), budget("memory")) for d in dirs]
    if "p2p" in wanted:
        cases.append(Case("p2p", "p2p", p2p_bench(), budget("p2p")))
    if "collective" in wanted:
        cases.append(Case("collective", "collectives", collective_bench(), budget("collective")))
    if "workload" in wanted:
        extra = "fp16" if kind == "cuda" else "fp32"
        loads = [("transformer", "bf16"), ("conv", "bf16")]
        if suite != "quick":
            loads.append(("transformer", extra))
        cases += [
            Case("workload", f"workload {m} {d}", workload_bench(m, d), budget("workload"))
            for m, d in loads
        ]
    return cases
