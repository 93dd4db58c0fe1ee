"""The runner: plans a suite's cases, drives each benchmark generator, and returns a
:class:`BenchRun` with the environment and the telemetry seen while it ran.

Callers own the thread: the CLI runs :meth:`Runner.run` in a thread beside a rich progress bar,
the GUI in a QThreadPool worker. Callbacks are called from that thread. Each case has a time
budget, the cancel token is checked between steps (each step ≤ 1 s), an out-of-memory error
retries the case with sizes halved (and says so), and a failing case does not stop the suite.

Planning lives in :mod:`gpuprof.bench.plan`, environment capture in
:mod:`gpuprof.bench.environment` and telemetry during the run in :mod:`gpuprof.bench.monitor`;
their public names are re-exported here.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuprof.bench.base import (
    Cancelled,
    CancelToken,
    CaseContext,
    Progress,
    Result,
    RunState,
    is_oom,
)
from gpuprof.bench.environment import (
    Environment,
    capture_environment,
    nvml_index_for,
    read_cublas_version,
)
from gpuprof.bench.monitor import BENIGN_CLOCK_REASONS, TelemetryPoint, _Monitor
from gpuprof.bench.plan import SUITES, Case, parse_only, plan_cases
from gpuprof.errors import InputError
from gpuprof.i18n import N_, tr

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
    "run_state",
]

SCHEMA_VERSION = 1
_MAX_OOM_RETRIES = 3


# --- records --------------------------------------------------------------------------------------


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
    run (simulated and replayed sources are not: their readings were not taken here); with
    ``owns_source`` the runner closes it when :meth:`run` ends (or at :meth:`close`). ``cases``
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
        source: TelemetrySource | None = None,
        owns_source: bool = False,
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
        self.owns_source = owns_source
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

    def close(self) -> None:
        """Close the source if the runner owns it (idempotent; :meth:`run` does it at its end)."""
        src, owned = self.source, self.owns_source
        if owned and src is not None:
            self.owns_source = False
            src.close()

    def _usable_source(self, notes: list[str]) -> TelemetrySource | None:
        src = self.source
        if src is None:
            return None
        kind = str(getattr(getattr(src, "kind", None), "value", "nvml"))
        if kind in ("simulated", "replay"):
            notes.append(
                N_("telemetry source is {kind}: not attached to measured results").format(kind=kind)
            )
            return None
        return src

    def run(
        self,
        on_progress: Callable[[RunProgress], None] | None = None,
        on_result: Callable[[Result], None] | None = None,
        cancel: CancelToken | None = None,
        on_state: Callable[[RunState], None] | None = None,
    ) -> BenchRun:
        """Run every case; returns the run even when cancelled (state ``interrupted``). An owned
        source is closed at the end, however the run ends."""
        try:
            return self._run(on_progress, on_result, cancel, on_state)
        finally:
            self.close()

    def _run(
        self,
        on_progress: Callable[[RunProgress], None] | None,
        on_result: Callable[[Result], None] | None,
        cancel: CancelToken | None,
        on_state: Callable[[RunState], None] | None,
    ) -> BenchRun:
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
        nvml_index = nvml_index_for(device, source) if source is not None else None
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
                            notes=(N_("not started: cancelled"),),
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
        state = RunState.INTERRUPTED if cancel.cancelled else run_state(records)
        if self._capture_env and device.startswith("cuda") and env.cublas_version is None:
            env = dataclasses.replace(env, cublas_version=read_cublas_version())
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
                notes.append(N_("cancelled"))
                break
            except Exception as exc:
                if is_oom(exc) and attempts <= _MAX_OOM_RETRIES:
                    _free_cuda(device)
                    notes.append(
                        N_(
                            "out of memory at size scale {s:g}; retried with sizes x{half:g}"
                        ).format(s=scale, half=scale / 2)
                    )
                    scale /= 2
                    continue
                state = RunState.FAILURE
                error = f"{type(exc).__name__}: {exc}".strip()
                if is_oom(exc):
                    notes.append(N_("out of memory even at the smallest size tried"))
                break
            finally:
                gen.close()
        elapsed = self._clock() - t0
        if state is RunState.SUCCESS:
            state, failed_note = _ended_state(kept)
            notes.extend(failed_note)
        # Whatever the case's state: a case skipped as too slow may have spent far more than
        # its budget finding that out, and the run's length must be explained either way.
        if elapsed > case.budget_s * 1.5 and state is not RunState.INTERRUPTED:
            notes.append(
                N_("took {t:.1f} s, over its {budget:.0f} s budget").format(
                    t=elapsed, budget=case.budget_s
                )
            )
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


def _ended_state(results: Sequence[Result]) -> tuple[RunState, tuple[str, ...]]:
    """The state of a case that ran to its end, from its results: failure when a measurement
    failed (with a note counting them), skipped when every one was skipped, else success."""
    failed = sum(1 for r in results if r.failed)
    if failed:
        note = N_("{n} of {m} measurements failed").format(n=failed, m=len(results))
        return RunState.FAILURE, (note,)
    if results and not any(r.ok for r in results):
        return RunState.SKIPPED, ()
    return RunState.SUCCESS, ()


def run_state(cases: Sequence[CaseRecord]) -> RunState:
    """How a run that was not cancelled ended: success when no case failed (skipped ones do not
    count), partial when some failed and others succeeded, failure when none succeeded."""
    if not any(c.state is RunState.FAILURE for c in cases):
        return RunState.SUCCESS
    if any(c.state is RunState.SUCCESS for c in cases):
        return RunState.PARTIAL
    return RunState.FAILURE


def _free_cuda(device: str) -> None:
    if device.startswith("cuda"):
        import gc

        import torch

        gc.collect()
        torch.cuda.empty_cache()


def open_run_telemetry(device: str | None) -> TelemetrySource | None:
    """A private source for a GPU run's telemetry (NVML, amdsmi or both: as
    :func:`~gpuprof.telemetry.vendors.open_local_source`); None on the CPU or without a driver.

    Private because a source's host counters are rates since its previous poll: sharing the
    app's source with a second poller would halve its intervals. Never fatal.
    """
    if device == "cpu":
        return None
    try:
        from gpuprof.telemetry.vendors import open_local_source

        src = open_local_source()
        if not src.status().ok:
            src.close()
            return None
        return src
    except Exception:
        return None
