"""gpuprof.commands.progress.run_with_progress: the worker thread behind ``check`` and ``bench``."""

from __future__ import annotations

import io
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from rich.console import Console

from gpuprof.bench.base import CancelToken
from gpuprof.commands.progress import run_with_progress

R = TypeVar("R")


def _console() -> Console:
    return Console(file=io.StringIO(), force_terminal=False)


def _run_quietly(job: Callable[[Callable[[int], None], CancelToken], R], **kw: Any) -> R:
    return run_with_progress(
        job,
        describe=lambda p: (0.0, ""),
        console=_console(),
        starting="go",
        thread_name="t",
        quiet=True,
        **kw,
    )


def test_the_jobs_result_comes_back_and_its_progress_is_described() -> None:
    seen: list[int] = []
    described = threading.Event()

    def job(on_progress: Callable[[int], None], cancel: CancelToken) -> str:
        on_progress(2)
        described.wait(60.0)  # the waiting thread polls it within its poll interval
        return f"done on {threading.current_thread().name}"

    def describe(step: int) -> tuple[float, str]:
        seen.append(step)
        described.set()
        return step / 3, f"step {step}"

    got = run_with_progress(
        job, describe=describe, console=_console(), starting="go", thread_name="t-worker"
    )
    assert got == "done on t-worker"
    assert seen and set(seen) == {2}


def test_what_the_job_raises_is_raised_in_the_caller() -> None:
    class Boom(Exception):
        pass

    def job(on_progress: Callable[[int], None], cancel: CancelToken) -> int:
        raise Boom("bad input")

    with pytest.raises(Boom, match="bad input"):
        _run_quietly(job)


def _main_thread_waits_for_the_job() -> bool:
    """True once the main thread is blocked in run_with_progress's wait for the worker."""
    ident = threading.main_thread().ident
    assert ident is not None
    frame = sys._current_frames().get(ident)
    while frame is not None:
        caller = frame.f_back
        if (
            frame.f_code.co_name == "wait"
            and caller
            and caller.f_code.co_name == "run_with_progress"
        ):
            return True
        frame = caller
    return False


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX signals")
@pytest.mark.slow
def test_ctrl_c_cancels_the_job_and_keeps_its_result() -> None:
    """A KeyboardInterrupt in the waiting thread sets the cancel token; the job's result (what
    it did before it stopped) is still handed back, and the interrupt does not escape."""

    def job(on_progress: Callable[[int], None], cancel: CancelToken) -> str:
        # With an hour's poll the main thread leaves its wait only when interrupted or done:
        # Ctrl-C lands there, not anywhere else.
        while not _main_thread_waits_for_the_job():
            if cancel.wait(0.01):
                return "cancelled before the wait"
        # Ctrl-C, as the main thread sees it: a SIGINT that wakes it from its blocking wait.
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        # Ends as soon as it is cancelled; the bound only keeps a broken helper from hanging.
        return "cancelled, partial" if cancel.wait(60.0) else "never cancelled"

    assert _run_quietly(job, poll_s=3600.0) == "cancelled, partial"
