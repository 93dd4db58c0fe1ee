"""The runner: plans a suite's cases, drives each benchmark generator, and returns a
:class:`BenchRun` with the environment and the telemetry seen while it ran.

Callers own the thread: the CLI runs :meth:`Runner.run` in a thread beside a rich progress bar,
the GUI in a QThreadPool worker. Callbacks are called from that thread. Each case has a time
budget, the cancel token is checked between steps (each step ≤ 1 s), an out-of-memory error
retries the case with sizes halved (and says so), and a failing case does not stop the suite.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuprof.bench.base import (
    BENCH_NAMES,
    BenchFn,
    Cancelled,
    CancelToken,
    CaseContext,
    Progress,
    Result,
    RunState,
    is_oom,
)
from gpuprof.errors import InputError
from gpuprof.i18n import tr

if TYPE_CHECKING:
    from gpuprof.telemetry.source import TelemetrySource

__all__ = [
    "open_run_telemetry",
    "BENIGN_CLOCK_REASONS",
    "BenchRun",
    "Case",
    "CaseRecord",
    "Environment",
    "RunProgress",
    "Runner",
    "SCHEMA_VERSION",
    "SUITES",
    "TelemetryPoint",
    "capture_environment",
    "parse_only",
    "plan_cases",
]

SCHEMA_VERSION = 1
SUITES: tuple[str, ...] = ("quick", "standard", "full")
#: Clock-event reasons that do not mean the GPU slowed itself down.
BENIGN_CLOCK_REASONS = frozenset(
    {"gpu_idle", "applications_clocks_setting", "display_clock_setting"}
)
_MAX_OOM_RETRIES = 3

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


# --- records --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Environment:
    """What the numbers were measured on. None = unknown or not applicable."""

    hostname: str = ""
    os: str = ""
    python: str = ""
    cpu_model: str | None = None
    cpu_count_logical: int | None = None
    host_memory_total_bytes: int | None = None
    torch_version: str | None = None
    torch_threads: int | None = None
    cuda_runtime_version: str | None = None  # torch.version.cuda
    cudnn_version: str | None = None
    cublas_version: str | None = None
    nccl_version: str | None = None
    driver_version: str | None = None  # from NVML
    cuda_driver_version: str | None = None
    gpu_name: str | None = None
    gpu_count: int | None = None
    gpu_uuid: str | None = None
    gpu_nvml_index: int | None = None
    compute_capability: tuple[int, int] | None = None
    sm_count: int | None = None
    gpu_memory_total_bytes: int | None = None
    l2_cache_bytes: int | None = None
    sm_clock_max_mhz: int | None = None
    mem_clock_max_mhz: int | None = None
    sm_clock_start_mhz: float | None = None
    power_limit_w: float | None = None
    pcie_gen: int | None = None
    pcie_width: int | None = None
    telemetry_source: str | None = None  # "nvml"; None when nothing was sampled


@dataclass(frozen=True, slots=True)
class TelemetryPoint:
    """One GPU reading taken while the run went on (Unix time)."""

    time_s: float
    gpu_index: int
    sm_clock_mhz: float | None = None
    mem_clock_mhz: float | None = None
    power_w: float | None = None
    temp_gpu_c: float | None = None
    util_gpu_pct: float | None = None
    throttle_reasons: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CaseRecord:
    """One case of the suite and how it ended. ``results`` are in measurement order."""

    bench: str
    name: str
    state: RunState
    elapsed_s: float = 0.0
    budget_s: float = 0.0
    attempts: int = 1
    error: str | None = None
    notes: tuple[str, ...] = ()
    results: tuple[Result, ...] = ()


@dataclass(frozen=True, kw_only=True)
class BenchRun:
    """One run of a suite: what ran, where, how it ended. Times are Unix seconds."""

    run_id: str
    suite: str
    device: str
    only: tuple[str, ...]
    state: RunState
    started_s: float
    ended_s: float
    environment: Environment
    cases: tuple[CaseRecord, ...] = ()
    telemetry: tuple[TelemetryPoint, ...] = ()
    notes: tuple[str, ...] = ()
    schema_version: int = SCHEMA_VERSION

    @property
    def results(self) -> tuple[Result, ...]:
        return tuple(r for c in self.cases for r in c.results)


@dataclass(frozen=True, slots=True)
class RunProgress:
    """What a progress bar shows: overall fraction (0..1), the case and its stage text."""

    fraction: float
    case_index: int
    case_count: int
    case_name: str
    case_fraction: float
    stage: str


@dataclass(frozen=True)
class Case:
    """One unit the runner drives: a benchmark generator function and its time budget."""

    bench: str
    name: str
    fn: BenchFn
    budget_s: float


# --- planning -------------------------------------------------------------------------------------


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


# --- environment ----------------------------------------------------------------------------------


def _cpu_model() -> str | None:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as fh:
        for line in fh:
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or None


def _cublas_version() -> str | None:
    """cuBLAS's own version (``cublasGetProperty``) from the library torch loaded, else the wheel's."""
    import ctypes

    with contextlib.suppress(OSError):
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = {line.split()[-1] for line in fh if "libcublas.so" in line and "Lt" not in line}
        for path in sorted(paths):
            with contextlib.suppress(OSError, AttributeError):
                lib = ctypes.CDLL(path)
                parts = []
                for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
                    value = ctypes.c_int()
                    if lib.cublasGetProperty(prop, ctypes.byref(value)) != 0:
                        break
                    parts.append(str(value.value))
                if len(parts) == 3:
                    return ".".join(parts)
    import importlib.metadata as md

    for dist in ("nvidia-cublas-cu12", "nvidia-cublas-cu13", "nvidia-cublas", "nvidia-cublas-cu11"):
        with contextlib.suppress(md.PackageNotFoundError):
            return md.version(dist) + " (wheel)"
    return None


def _nvml_index_for(device: str, source: Any) -> int | None:
    """The NVML index of ``cuda:N``, matched by PCI bus id; N itself when no id matches."""
    if not device.startswith("cuda"):
        return None
    import torch

    ordinal = torch.device(device).index or 0
    if source is None:
        return ordinal
    props = torch.cuda.get_device_properties(ordinal)
    bus = getattr(props, "pci_bus_id", None)
    dom = getattr(props, "pci_domain_id", None)
    dev = getattr(props, "pci_device_id", None)
    if bus is not None and dom is not None and dev is not None:
        key = f"{dom:04x}:{bus:02x}:{dev:02x}.0"[-12:]
        with contextlib.suppress(Exception):
            for info in source.devices():
                if info.pci_bus_id and str(info.pci_bus_id).lower()[-12:] == key:
                    return int(info.index)
    return ordinal


def capture_environment(
    device: str, source: Any = None, *, nvml_index: int | None = None
) -> Environment:
    """GPU, driver, CUDA, torch, cuBLAS, clocks, power limit and host CPU. Imports torch."""
    import psutil
    import torch

    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_model": _cpu_model(),
        "cpu_count_logical": os.cpu_count(),
        "host_memory_total_bytes": int(psutil.virtual_memory().total),
        "torch_version": str(torch.__version__),
        "torch_threads": int(torch.get_num_threads()),
        "cuda_runtime_version": torch.version.cuda,
    }
    if device.startswith("cuda"):
        dev = torch.device(device)
        props = torch.cuda.get_device_properties(dev)
        env.update(
            gpu_name=str(props.name),
            gpu_count=int(torch.cuda.device_count()),
            compute_capability=(int(props.major), int(props.minor)),
            sm_count=int(props.multi_processor_count),
            gpu_memory_total_bytes=int(props.total_memory),
            l2_cache_bytes=int(getattr(props, "L2_cache_size", 0)) or None,
            cublas_version=_cublas_version(),
        )
        with contextlib.suppress(Exception):
            env["cudnn_version"] = str(torch.backends.cudnn.version())  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            env["nccl_version"] = ".".join(map(str, torch.cuda.nccl.version()))  # type: ignore[no-untyped-call]
    if source is not None and device.startswith("cuda"):
        index = nvml_index if nvml_index is not None else _nvml_index_for(device, source)
        env["gpu_nvml_index"] = index
        with contextlib.suppress(Exception):
            sysinfo = source.system_info()
            env["driver_version"] = sysinfo.driver_version
            env["cuda_driver_version"] = sysinfo.cuda_driver_version
        with contextlib.suppress(Exception):
            for info in source.devices():
                if info.index == index:
                    env["gpu_uuid"] = info.uuid
                    env["sm_clock_max_mhz"] = info.sm_clock_max_mhz
                    env["mem_clock_max_mhz"] = info.mem_clock_max_mhz
        with contextlib.suppress(Exception):
            snap = source.poll()
            for g in snap.gpus:
                if g.index == index:
                    env["sm_clock_start_mhz"] = g.clock_sm_mhz
                    env["power_limit_w"] = g.power_enforced_limit_w or g.power_limit_w
                    env["pcie_gen"] = g.pcie_gen
                    env["pcie_width"] = g.pcie_width
        env["telemetry_source"] = str(getattr(getattr(source, "kind", None), "value", "nvml"))
    return Environment(**env)


# --- telemetry while running ----------------------------------------------------------------------


class _Monitor:
    """Polls the telemetry source in the background and on demand (at each result)."""

    def __init__(
        self, source: Any, interval_s: float | None, wall_clock: Callable[[], float]
    ) -> None:
        self._source = source
        self._interval_s = interval_s
        self._wall = wall_clock
        self._points: list[TelemetryPoint] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._interval_s:
            self._thread = threading.Thread(
                target=self._loop, name="gpuprof-bench-telemetry", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        assert self._interval_s
        while not self._stop.wait(self._interval_s):
            self.sample()

    def sample(self) -> None:
        try:
            snap = self._source.poll()
        except Exception:
            return
        now = self._wall()
        pts = [
            TelemetryPoint(
                time_s=now,
                gpu_index=g.index,
                sm_clock_mhz=g.clock_sm_mhz,
                mem_clock_mhz=g.clock_mem_mhz,
                power_w=g.power_w,
                temp_gpu_c=g.temp_gpu_c,
                util_gpu_pct=g.util_gpu_pct,
                throttle_reasons=tuple(g.throttle_reasons),
            )
            for g in snap.gpus
            if not g.lost
        ]
        with self._lock:
            self._points.extend(pts)

    def points(self) -> tuple[TelemetryPoint, ...]:
        with self._lock:
            return tuple(self._points)

    def reasons_between(self, gpu_index: int | None, t0: float, t1: float) -> tuple[str, ...]:
        """Throttle reasons (benign ones dropped) seen on ``gpu_index`` in (t0, t1], sorted.

        The runner samples right after each result, so the window of a result runs from just after
        the previous result's sample to its own; background samples fill long windows.
        """
        seen: set[str] = set()
        with self._lock:
            for p in self._points:
                if (gpu_index is None or p.gpu_index == gpu_index) and t0 < p.time_s <= t1:
                    seen.update(r for r in p.throttle_reasons if r not in BENIGN_CLOCK_REASONS)
        return tuple(sorted(seen))


# --- the runner -----------------------------------------------------------------------------------


def _new_run_id(started_s: float) -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(started_s)) + "-" + secrets.token_hex(2)


def _default_device() -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}"
    return "cpu"


def _check_device(device: str) -> None:
    if device == "cpu":
        return
    if not device.startswith("cuda"):
        raise InputError(tr("device must be cpu or cuda:N, got {d!r}", d=device))
    import torch

    if not torch.cuda.is_available():
        raise InputError(
            tr(
                "{d}: no CUDA device is available (torch {v}); use --device cpu",
                d=device,
                v=torch.__version__,
            )
        )
    try:
        index = torch.device(device).index or 0
    except RuntimeError:
        raise InputError(tr("device must be cpu or cuda:N, got {d!r}", d=device)) from None
    if index >= torch.cuda.device_count():
        raise InputError(tr("{d}: only {n} CUDA device(s)", d=device, n=torch.cuda.device_count()))


class Runner:
    """Runs a suite. ``device`` None picks ``cuda:0`` when CUDA is available, else ``cpu``.

    ``source`` is an optional :class:`~gpuprof.telemetry.source.TelemetrySource` sampled during the
    run (simulated and replayed sources are not: their readings were not taken here). ``cases``
    replaces the planned suite (tests, the GUI's own selection). ``clock`` is the monotonic clock
    for budgets, ``wall_clock`` the Unix clock for stamps; ``telemetry_interval_s`` None samples
    only at each result.
    """

    def __init__(
        self,
        device: str | None = None,
        suite: str = "quick",
        only: Sequence[str] | str | None = None,
        *,
        source: Any = None,
        cases: Sequence[Case] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        wall_clock: Callable[[], float] = time.time,
        telemetry_interval_s: float | None = 0.5,
        timer_factory: Callable[[], Any] | None = None,
        capture_env: bool = True,
    ) -> None:
        if suite not in SUITES:
            raise InputError(tr("unknown suite {s}; choose from {c}", s=suite, c=", ".join(SUITES)))
        self.device = device
        self.suite = suite
        self.only = parse_only(only)
        self.source = source
        self._cases = list(cases) if cases is not None else None
        self._clock = clock
        self._wall = wall_clock
        self._interval_s = telemetry_interval_s
        self._timer_factory = timer_factory
        self._capture_env = capture_env
        self.state = RunState.STARTING

    def plan(self) -> list[Case]:
        if self._cases is not None:
            return self._cases
        return plan_cases(self._resolved_device(), self.suite, self.only)

    def _resolved_device(self) -> str:
        if self.device is None:
            self.device = _default_device()
        return self.device

    def _usable_source(self, notes: list[str]) -> Any:
        src = self.source
        if src is None:
            return None
        kind = str(getattr(getattr(src, "kind", None), "value", "nvml"))
        if kind in ("simulated", "replay"):
            notes.append(f"telemetry source is {kind}: not attached to measured results")
            return None
        return src

    def run(
        self,
        on_progress: Callable[[RunProgress], None] | None = None,
        on_result: Callable[[Result], None] | None = None,
        cancel: CancelToken | None = None,
        on_state: Callable[[RunState], None] | None = None,
    ) -> BenchRun:
        """Run every case; returns the run even when cancelled (state ``interrupted``)."""
        cancel = cancel or CancelToken()
        started = self._wall()
        run_notes: list[str] = []
        self.state = RunState.STARTING
        if on_state:
            on_state(self.state)
        device = self._resolved_device() if self._cases is None else (self.device or "cpu")
        if self._cases is None:
            _check_device(device)
        source = self._usable_source(run_notes)
        nvml_index = _nvml_index_for(device, source) if source is not None else None
        env = (
            capture_environment(device, source, nvml_index=nvml_index)
            if self._capture_env
            else Environment()
        )
        cases = self.plan()
        monitor = _Monitor(source, self._interval_s, self._wall) if source is not None else None
        if monitor is not None:
            monitor.sample()
            monitor.start()
        self.state = RunState.RUNNING
        if on_state:
            on_state(self.state)
        records: list[CaseRecord] = []
        try:
            for ci, case in enumerate(cases):
                if cancel.cancelled:
                    records.append(
                        CaseRecord(
                            bench=case.bench,
                            name=case.name,
                            state=RunState.INTERRUPTED,
                            budget_s=case.budget_s,
                            notes=("not started: cancelled",),
                        )
                    )
                    continue
                records.append(
                    self._run_case(
                        ci,
                        len(cases),
                        case,
                        device,
                        cancel,
                        monitor,
                        nvml_index,
                        on_progress,
                        on_result,
                    )
                )
        finally:
            if monitor is not None:
                monitor.stop()
        if cancel.cancelled:
            state = RunState.INTERRUPTED
        elif records and all(r.state is RunState.FAILURE for r in records):
            state = RunState.FAILURE
        else:
            state = RunState.SUCCESS
        if self._capture_env and device.startswith("cuda") and env.cublas_version is None:
            env = dataclasses.replace(env, cublas_version=_cublas_version())
        self.state = state
        if on_state:
            on_state(state)
        return BenchRun(
            run_id=_new_run_id(started),
            suite=self.suite,
            device=device,
            only=self.only,
            state=state,
            started_s=started,
            ended_s=self._wall(),
            environment=env,
            cases=tuple(records),
            telemetry=monitor.points() if monitor is not None else (),
            notes=tuple(run_notes),
        )

    def _run_case(
        self,
        ci: int,
        n: int,
        case: Case,
        device: str,
        cancel: CancelToken,
        monitor: _Monitor | None,
        nvml_index: int | None,
        on_progress: Callable[[RunProgress], None] | None,
        on_result: Callable[[Result], None] | None,
    ) -> CaseRecord:
        t0 = self._clock()
        scale = 1.0
        attempts = 0
        kept: list[Result] = []
        notes: list[str] = []
        error: str | None = None
        state = RunState.SUCCESS

        def report(fraction: float, stage: str) -> None:
            if on_progress is not None:
                f = min(max(fraction, 0.0), 1.0)
                on_progress(RunProgress((ci + f) / n, ci, n, case.name, f, stage))

        report(0.0, case.name)
        while True:
            attempts += 1
            ctx = CaseContext(
                device=device,
                suite=self.suite,
                budget_s=case.budget_s - (self._clock() - t0),
                cancel=cancel,
                clock=self._clock,
                scale=scale,
                done_keys=frozenset(r.key for r in kept),
                source=self.source,
                timer_factory=self._timer_factory,
            )
            seen: set[int] = set()
            mark = self._wall()
            gen = case.fn(ctx)
            try:
                while True:
                    try:
                        step: Progress = next(gen)
                    except StopIteration as stop:
                        for r in stop.value or ():
                            if id(r) not in seen:
                                kept.append(r)
                        break
                    res = step.result
                    if res is not None:
                        seen.add(id(res))
                        if monitor is not None:
                            monitor.sample()
                            now = self._wall()
                            reasons = monitor.reasons_between(nvml_index, mark, now)
                            mark = now
                            if reasons and res.status == "ok":
                                res = dataclasses.replace(res, throttle_reasons=reasons)
                        kept.append(res)
                        if on_result is not None:
                            on_result(res)
                    report(step.fraction, step.stage)
                    if cancel.cancelled:
                        raise Cancelled()
                break
            except Cancelled:
                state = RunState.INTERRUPTED
                notes.append("cancelled")
                break
            except Exception as exc:
                if is_oom(exc) and attempts <= _MAX_OOM_RETRIES:
                    _free_cuda(device)
                    notes.append(
                        f"out of memory at size scale {scale:g}; retried with sizes x{scale / 2:g}"
                    )
                    scale /= 2
                    continue
                state = RunState.FAILURE
                error = f"{type(exc).__name__}: {exc}".strip()
                if is_oom(exc):
                    notes.append("out of memory even at the smallest size tried")
                break
            finally:
                gen.close()
        elapsed = self._clock() - t0
        if elapsed > case.budget_s * 1.5 and state is RunState.SUCCESS:
            notes.append(f"took {elapsed:.1f} s, over its {case.budget_s:.0f} s budget")
        report(1.0, case.name)
        return CaseRecord(
            bench=case.bench,
            name=case.name,
            state=state,
            elapsed_s=elapsed,
            budget_s=case.budget_s,
            attempts=attempts,
            error=error,
            notes=tuple(notes),
            results=tuple(kept),
        )


def _free_cuda(device: str) -> None:
    if device.startswith("cuda"):
        import gc

        import torch

        gc.collect()
        torch.cuda.empty_cache()


def open_run_telemetry(device: str | None) -> TelemetrySource | None:
    """A private NVML source for a GPU run's telemetry; None on the CPU or without a driver.

    Private because a source's host counters are rates since its previous poll: sharing the
    app's source with a second poller would halve its intervals. Never fatal.
    """
    if device == "cpu":
        return None
    try:
        from gpuprof.telemetry.nvml import NvmlSource

        src = NvmlSource()
        if not src.status().ok:
            src.close()
            return None
        return src
    except Exception:
        return None
