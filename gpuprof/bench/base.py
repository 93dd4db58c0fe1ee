"""The benchmark protocol: run states, progress, cancel, case context and typed results.

A benchmark is a generator function ``bench(ctx) -> Generator[Progress, None, tuple[Result, ...]]``.
It yields :class:`Progress` (a fraction of its own work and a stage text); when a measurement is
done it yields a Progress carrying that :class:`Result` so that a chart can draw it at once, and it
returns every Result at the end. Between steps it calls ``ctx.check()``, which raises
:class:`Cancelled` once the user cancelled (superqt's generator workers do the same with their
abort flag). It never imports torch at module level.

Run states follow ScopeFoundry's measurement: starting → running → ended (success, interrupted or
failure), with two more ended states: a run some of whose cases failed is ``partial`` (not a
success), and a case that measured nothing because every measurement was skipped is ``skipped``.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from gpuprof.i18n import N_

__all__ = [
    "BENCH_NAMES",
    "BenchFn",
    "Cancelled",
    "CancelToken",
    "CaseContext",
    "drain",
    "CollectiveResult",
    "GemmResult",
    "MemoryResult",
    "P2PResult",
    "Progress",
    "Result",
    "RESULT_TYPES",
    "RunState",
    "WorkloadResult",
    "is_oom",
    "skipped",
]

#: The benchmark families, in the order the runner runs them.
BENCH_NAMES: tuple[str, ...] = ("gemm", "memory", "p2p", "collective", "workload")


class RunState(str, enum.Enum):
    """Where a run or a case is: starting → running → one of the ended states.

    A case ends success (it measured something and nothing failed), skipped (every measurement
    was skipped), failure (it raised, or a measurement failed) or interrupted. A run ends
    success (no case failed), partial (some cases failed, others measured), failure (cases
    failed and none measured anything) or interrupted.
    """

    STARTING = "starting"
    RUNNING = "running"
    SUCCESS = "success"
    PARTIAL = "partial"
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"
    FAILURE = "failure"

    @property
    def ended(self) -> bool:
        return self not in (RunState.STARTING, RunState.RUNNING)


#: The states' names for the catalog: stored in English, shown translated (``tr_text``).
_STATE_NAMES = (
    N_("starting"),
    N_("running"),
    N_("success"),
    N_("partial"),
    N_("skipped"),
    N_("interrupted"),
    N_("failure"),
)


class Cancelled(Exception):
    """Raised by :meth:`CaseContext.check` once the run was cancelled."""


class CancelToken:
    """A thread-safe cancel flag, set by the UI or Ctrl-C, polled by the benchmark between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout_s: float) -> bool:
        """Sleep up to ``timeout_s``; True as soon as cancelled."""
        return self._event.wait(timeout_s)


@dataclass(frozen=True, slots=True)
class Progress:
    """A step inside one benchmark: ``fraction`` of its work (0..1) and what it is doing.

    ``result`` is set when the step finished a measurement (live charts draw it at once).
    """

    fraction: float
    stage: str
    result: Result | None = None


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Result:
    """Fields every result has. A plain ``Result`` is a skipped or failed measurement.

    ``status`` is ``"ok"``, ``"skipped: <why>"``, ``"failed: <why>"`` or ``"partial: <why>"``.
    ``throttle_reasons`` are the NVML clock-event reasons seen while it was measured (idle
    excluded); the runner fills them in from the telemetry it sampled.
    """

    bench: str
    case: str
    status: str = "ok"
    notes: tuple[str, ...] = ()
    throttle_reasons: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "ok" or self.status.startswith("partial")

    @property
    def failed(self) -> bool:
        """A measurement that ran and went wrong (not one that was skipped)."""
        return self.status.startswith("failed")

    @property
    def throttled(self) -> bool:
        return bool(self.throttle_reasons)

    @property
    def key(self) -> str:
        """Identifies the same measurement across runs (for ``bench compare``)."""
        return f"{self.bench}/{self.case}"

    def headline(self) -> tuple[str, float | None, str]:
        """The one number a table shows: (metric name, value, unit)."""
        return ("", None, "")


@dataclass(frozen=True, kw_only=True)
class GemmResult(Result):
    """One matrix product shape and dtype: C[m,n] = A[m,k] @ B[k,n], FLOP = 2·m·n·k."""

    dtype: str
    m: int
    n: int
    k: int
    iterations: int
    time_mean_s: float
    time_median_s: float
    time_min_s: float
    tflops_mean: float
    tflops_median: float
    tflops_max: float
    peak_tflops: float | None = None
    pct_of_peak: float | None = None  # of the spec sheet's dense peak, from the median
    l2_flushed: bool = False

    @property
    def flop(self) -> int:
        return 2 * self.m * self.n * self.k

    def headline(self) -> tuple[str, float | None, str]:
        return ("tflops_median", self.tflops_median, "TFLOPS")


@dataclass(frozen=True, kw_only=True)
class MemoryResult(Result):
    """One copy direction and size. ``direction`` is h2d, d2h, d2d or host (CPU memcpy).

    ``bandwidth_bytes_s`` counts the bytes copied; a device-local or host copy reads and writes
    each byte, so its memory traffic is ``traffic_factor`` (2) times that.
    """

    direction: str
    pinned: bool | None
    size_bytes: int
    samples: int
    time_median_s: float
    bandwidth_bytes_s: float  # bytes copied / median time
    bandwidth_max_bytes_s: float  # bytes copied / fastest sample
    traffic_factor: int = 1
    verified: bool = False

    def headline(self) -> tuple[str, float | None, str]:
        return ("bandwidth_bytes_s", self.bandwidth_bytes_s, "B/s")


@dataclass(frozen=True, kw_only=True)
class P2PResult(Result):
    """GPU×GPU matrices, indexed by CUDA device ordinal; the diagonal is the local copy.

    ``links[i][j]`` is "NVLink (NV18)", "PCIe (PIX)"… from NVML topology, None when unknown.
    Bandwidth in bytes/s, latency in seconds; ``_off`` matrices go through host memory as the
    CUDA samples' p2pBandwidthLatencyTest does with peer access disabled.
    """

    devices: tuple[int, ...] = ()
    size_bytes: int = 0
    access: tuple[tuple[bool, ...], ...] = ()
    links: tuple[tuple[str | None, ...], ...] = ()
    uni_bw_on_bytes_s: tuple[tuple[float | None, ...], ...] = ()
    uni_bw_off_bytes_s: tuple[tuple[float | None, ...], ...] = ()
    bi_bw_on_bytes_s: tuple[tuple[float | None, ...], ...] = ()
    bi_bw_off_bytes_s: tuple[tuple[float | None, ...], ...] = ()
    latency_on_s: tuple[tuple[float | None, ...], ...] = ()
    latency_off_s: tuple[tuple[float | None, ...], ...] = ()

    def headline(self) -> tuple[str, float | None, str]:
        values = [
            v
            for i, row in enumerate(self.uni_bw_on_bytes_s)
            for j, v in enumerate(row)
            if i != j and v is not None
        ]
        return ("uni_bw_min_bytes_s", min(values) if values else None, "B/s")


@dataclass(frozen=True, kw_only=True)
class CollectiveResult(Result):
    """One collective at one size over ``world_size`` ranks (nccl-tests definitions).

    ``size_bytes`` is the whole buffer (for all-gather: the gathered output).
    algbw = size / time; busbw = algbw × 2(n-1)/n for all-reduce, × (n-1)/n for all-gather.
    """

    op: str
    backend: str
    world_size: int
    size_bytes: int
    dtype: str
    iterations: int
    latency_p50_s: float
    latency_p99_s: float
    algbw_bytes_s: float
    busbw_bytes_s: float

    @property
    def key(self) -> str:
        return f"{self.bench}/{self.case}/n{self.world_size}"

    def headline(self) -> tuple[str, float | None, str]:
        return ("busbw_bytes_s", self.busbw_bytes_s, "B/s")


@dataclass(frozen=True, kw_only=True)
class WorkloadResult(Result):
    """A training step on synthetic data: ``throughput_per_s`` in ``unit`` (tokens or images)."""

    model: str
    dtype: str
    batch: int
    seq_len: int | None
    params: int
    steps: int
    step_time_median_s: float
    throughput_per_s: float
    unit: str

    def headline(self) -> tuple[str, float | None, str]:
        return (f"{self.unit}_per_s", self.throughput_per_s, f"{self.unit}/s")


#: Type tag (as stored in JSON) → class.
RESULT_TYPES: dict[str, type[Result]] = {
    cls.__name__: cls
    for cls in (Result, GemmResult, MemoryResult, P2PResult, CollectiveResult, WorkloadResult)
}

# --- the context a benchmark runs in --------------------------------------------------------------

Clock = Callable[[], float]
BenchFn = Callable[["CaseContext"], Generator[Progress, None, tuple[Result, ...]]]


@dataclass
class CaseContext:
    """What a running benchmark may ask for: device, cancel, its time budget, the timer.

    ``scale`` shrinks problem sizes after an out-of-memory (1, then 0.5, 0.25…);
    ``done_keys`` are measurements kept from an earlier attempt, not to be repeated.
    """

    device: str = "cpu"
    suite: str = "quick"
    budget_s: float = 60.0
    cancel: CancelToken = field(default_factory=CancelToken)
    clock: Clock = time.perf_counter
    scale: float = 1.0
    done_keys: frozenset[str] = frozenset()
    source: Any = None  # a TelemetrySource, for topology (P2P link labels)
    timer_factory: Callable[[], Any] | None = None  # IterationTimer; None: the device's own
    started_s: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started_s = self.clock()

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def check(self) -> None:
        """Raise :class:`Cancelled` if the user cancelled. Call between steps (each < 1 s)."""
        if self.cancel.cancelled:
            raise Cancelled()

    def elapsed_s(self) -> float:
        return self.clock() - self.started_s

    def time_left_s(self) -> float:
        return self.budget_s - self.elapsed_s()

    def over_budget(self) -> bool:
        return self.time_left_s() <= 0

    def affordable(self, predicted_s: float) -> bool:
        """Whether work predicted to take ``predicted_s`` fits in what is left of the budget."""
        return predicted_s <= self.time_left_s()

    def timer(self) -> Any:
        """An :class:`~gpuprof.bench.timing.IterationTimer` for this device."""
        if self.timer_factory is not None:
            return self.timer_factory()
        from gpuprof.bench.timing import timer_for_device

        return timer_for_device(self.device, clock=self.clock)


def is_oom(exc: BaseException) -> bool:
    """True for CUDA / allocator out-of-memory errors (``torch.OutOfMemoryError`` and kin)."""
    if type(exc).__name__ == "OutOfMemoryError":
        return True
    return isinstance(exc, (RuntimeError, MemoryError)) and "out of memory" in str(exc).lower()


def drain(
    gen: Generator[Progress, None, tuple[Result, ...]],
) -> tuple[list[Progress], tuple[Result, ...]]:
    """Run a benchmark generator to its end outside the runner: (its progress steps, its results)."""
    steps = []
    while True:
        try:
            steps.append(next(gen))
        except StopIteration as stop:
            return steps, stop.value


def skipped(bench: str, case: str, why: str) -> Result:
    """A result that says why nothing was measured (never a fake number)."""
    return Result(bench=bench, case=case, status=N_("skipped: {why}").format(why=why))
