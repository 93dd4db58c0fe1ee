"""Microbenchmarks: GEMM by dtype, memory bandwidth, P2P, collectives, a training step.

Each benchmark is a generator that yields :class:`Progress` and returns :class:`Result` records;
:class:`Runner` drives a suite of them (in the caller's thread) and returns a :class:`BenchRun`,
which :class:`ResultsDB` stores. Importing this package does not import torch.
"""

from gpuprof.bench.base import (
    BENCH_NAMES,
    Cancelled,
    CancelToken,
    CaseContext,
    CollectiveResult,
    GemmResult,
    MemoryResult,
    P2PResult,
    Progress,
    Result,
    RunState,
    WorkloadResult,
)
from gpuprof.bench.results import Comparison, ResultsDB, compare_runs, read_json, write_json
from gpuprof.bench.runner import (
    SUITES,
    BenchRun,
    Case,
    CaseRecord,
    Environment,
    Runner,
    RunProgress,
    TelemetryPoint,
    plan_cases,
)

__all__ = [
    "BENCH_NAMES",
    "SUITES",
    "BenchRun",
    "Cancelled",
    "CancelToken",
    "Case",
    "CaseContext",
    "CaseRecord",
    "CollectiveResult",
    "Comparison",
    "Environment",
    "GemmResult",
    "MemoryResult",
    "P2PResult",
    "Progress",
    "Result",
    "ResultsDB",
    "RunProgress",
    "RunState",
    "Runner",
    "TelemetryPoint",
    "WorkloadResult",
    "compare_runs",
    "plan_cases",
    "read_json",
    "write_json",
]
