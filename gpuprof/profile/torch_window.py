"""The bounded ``torch.profiler`` window inside a job (issue 13, "where the time goes").

``gpuprof.track(..., torch_profiler=True)``, or any ``track`` block when the environment names
a folder in :data:`ENV_VAR` (``gpuprof profile --torch`` sets it), opens a :class:`TorchWindow`
(``torch_profiler=True`` under ``gpuprof profile`` without ``--torch`` writes to the folder
:data:`ENV_ASKED` names, which the profiler also collects):
a ``torch.profiler.profile`` with ``schedule(wait, warmup, active)`` stepped by
``Tracker.step()``. Only the *active* steps are recorded, so the cost is bounded whatever the
length of the job. When the window ends the Chrome trace goes to ``OUT/trace-<pid>.json``; on
:meth:`TorchWindow.close` (the end of the ``track`` block, or the process's exit) it is
summarized into ``OUT/breakdown-<pid>.json`` (the codec JSON of a
:class:`~gpuprof.profile.model.TimeBreakdown`). The summary runs at close, not when the window
ends, so that parsing the trace never lengthens a step the markers measure.

``torch`` is imported here only when a window opens: ``import gpuprof`` never pays for it.
A failure of the profiler never breaks the job: it is logged once and the window closes.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import warnings
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_ASKED",
    "ENV_SCHEDULE",
    "ENV_VAR",
    "TorchWindow",
    "breakdown_path",
    "parse_schedule",
    "trace_path",
    "window_from_env",
]

log = logging.getLogger("gpuprof.profile")

#: The folder a job under ``gpuprof profile --torch`` writes its trace and breakdown to.
ENV_VAR = "GPUPROF_TORCH_DIR"
#: Where a window that ``track(..., torch_profiler=True)`` asks for itself writes under
#: ``gpuprof profile`` without ``--torch``: the profiler collects it from there as well.
ENV_ASKED = "GPUPROF_TORCH_ASKED_DIR"
#: Optional ``WAIT,WARMUP,ACTIVE`` steps of the window (default ``2,2,5``).
ENV_SCHEDULE = "GPUPROF_TORCH_SCHEDULE"
DEFAULT_WAIT = 2
DEFAULT_WARMUP = 2
DEFAULT_ACTIVE = 5
#: More active steps make traces of gigabytes on a big model: the window is meant to be short.
MAX_ACTIVE = 100


def trace_path(out_dir: str | os.PathLike[str], pid: int | None = None) -> Path:
    """``OUT/trace-<pid>.json``: the Chrome trace one process of the job writes."""
    return Path(out_dir) / f"trace-{os.getpid() if pid is None else pid}.json"


def breakdown_path(out_dir: str | os.PathLike[str], pid: int | None = None) -> Path:
    """``OUT/breakdown-<pid>.json``: the summary of that trace."""
    return Path(out_dir) / f"breakdown-{os.getpid() if pid is None else pid}.json"


def parse_schedule(text: str | None) -> tuple[int, int, int]:
    """``"WAIT,WARMUP,ACTIVE"`` as three step counts; the defaults for ``None``, ``""`` or a
    value that is not three whole numbers (wait, warmup >= 0; 1 <= active <= MAX_ACTIVE)."""
    default = (DEFAULT_WAIT, DEFAULT_WARMUP, DEFAULT_ACTIVE)
    if not text:
        return default
    try:
        wait, warmup, active = (int(part) for part in text.split(","))
    except ValueError:
        log.warning(
            "gpuprof: %s=%r is not WAIT,WARMUP,ACTIVE; using %s", ENV_SCHEDULE, text, default
        )
        return default
    if wait < 0 or warmup < 0 or not 1 <= active <= MAX_ACTIVE:
        log.warning("gpuprof: %s=%r is out of range; using %s", ENV_SCHEDULE, text, default)
        return default
    return wait, warmup, active


class TorchWindow:
    """A ``torch.profiler`` window of ``wait`` + ``warmup`` + ``active`` steps.

    Call :meth:`step` at the end of every step of the job and :meth:`close` at its end (it is
    also called at the process's exit). Both are cheap outside the window and never raise.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike[str],
        *,
        wait: int = DEFAULT_WAIT,
        warmup: int = DEFAULT_WARMUP,
        active: int = DEFAULT_ACTIVE,
    ) -> None:
        """Start the profiler (imports ``torch``: ``ImportError`` when it is not installed)."""
        if wait < 0 or warmup < 0 or active < 1:
            raise ValueError(
                f"bad torch profiler schedule: wait={wait} warmup={warmup} active={active}"
            )
        import torch
        from torch.profiler import ProfilerActivity, profile, schedule

        self.out_dir = Path(out_dir)
        self.wait, self.warmup, self.active = wait, warmup, active
        self.pid = os.getpid()
        self.trace_file: Path | None = None  # set once the window's trace is written
        self.breakdown_file: Path | None = None
        self.steps_seen = 0
        self.rank = _env_rank()  # torchrun / torch.distributed.launch set RANK
        self._lock = threading.Lock()
        self._closed = False
        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
        self._prof: Any = profile(
            activities=activities,
            schedule=schedule(wait=wait, warmup=warmup, active=active, repeat=1),
            on_trace_ready=self._trace_ready,
        )
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with _quiet():
            self._prof.start()
        atexit.register(self.close)

    def step(self) -> None:
        """One step of the job ended (``Tracker.step``)."""
        if self._closed:
            return
        self.steps_seen += 1
        if self.steps_seen > self.wait + self.warmup + self.active:
            return  # the window is over: nothing left to record
        try:
            with _quiet():
                self._prof.step()
        except Exception:  # the profiler must never break the job
            log.warning("gpuprof: torch.profiler failed; no time breakdown", exc_info=True)
            self._stop()

    def close(self) -> None:
        """Stop the profiler (a window cut short still gives its trace) and write the summary."""
        with self._lock:
            if self._closed:
                return
            self._stop()
            atexit.unregister(self.close)
        if self.trace_file is None:
            if self.steps_seen < self.wait + self.warmup:
                log.warning(
                    "gpuprof: the job ended after %d steps, before torch.profiler's window "
                    "(wait %d + warm-up %d steps): no time breakdown",
                    self.steps_seen,
                    self.wait,
                    self.warmup,
                )
            return
        try:
            self.breakdown_file = write_breakdown(
                self.trace_file, breakdown_path(self.out_dir, self.pid), rank=self._rank()
            )
        except Exception as e:  # InputError (a damaged trace), OutputError (a full disk)
            log.warning("gpuprof: no time breakdown from %s: %s", self.trace_file, e)

    def _rank(self) -> int | None:
        """The rank from the environment, else torch.distributed's when it is running."""
        if self.rank is not None:
            return self.rank
        with contextlib.suppress(Exception):
            import torch.distributed as dist

            if dist.is_available() and dist.is_initialized():
                return int(dist.get_rank())
        return None

    def _stop(self) -> None:
        self._closed = True
        with contextlib.suppress(Exception), _quiet():
            self._prof.stop()

    def _trace_ready(self, prof: Any) -> None:
        """torch.profiler's ``on_trace_ready``: the Chrome trace, written whole or not at all.

        Kineto writes ``PATH.tmp`` and renames it; on a failed write (a full disk) it says so
        on stderr, raises nothing and leaves ``PATH.tmp`` behind: both are checked here."""
        target = trace_path(self.out_dir, self.pid)
        tmp = target.with_name(f".{target.name}.tmp")
        why = ""
        try:
            prof.export_chrome_trace(str(tmp))
            if tmp.is_file():
                os.replace(tmp, target)
            else:
                why = "torch.profiler could not write it"
        except OSError as e:
            why = e.strerror or str(e)
        except Exception as e:  # the profiler must never break the job
            why = f"{type(e).__name__}: {e}"
        if why:
            for leftover in (tmp, tmp.with_name(tmp.name + ".tmp")):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            log.warning("gpuprof: cannot write %s (%s): no time breakdown", target, why)
            return
        self.trace_file = target


def _env_rank() -> int | None:
    text = os.environ.get("RANK", "").strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


def write_breakdown(trace: Path, out: Path, *, rank: int | None = None) -> Path:
    """Summarize ``trace`` and write it to ``out`` (codec JSON of a TimeBreakdown); ``rank``:
    the process's rank in a distributed job, kept so the profiler can merge the ranks."""
    from dataclasses import replace

    from gpuprof.fileio import write_atomic
    from gpuprof.jsonout import dumps
    from gpuprof.profile.torch_breakdown import summarize_trace
    from gpuprof.telemetry.codec import to_jsonable

    breakdown = replace(summarize_trace(trace), rank=rank)
    return write_atomic(out, dumps(to_jsonable(breakdown), indent=None) + "\n")


def window_from_env() -> TorchWindow | None:
    """The window ``gpuprof profile --torch`` asks for (:data:`ENV_VAR`), or ``None``: not
    asked, or ``torch`` cannot be imported / started (logged once)."""
    folder = os.environ.get(ENV_VAR)
    if not folder:
        return None
    return open_window(folder, parse_schedule(os.environ.get(ENV_SCHEDULE)))


def open_window(
    out_dir: str | os.PathLike[str], schedule: tuple[int, int, int] | None = None
) -> TorchWindow | None:
    """A :class:`TorchWindow` into ``out_dir``, or ``None`` (logged) when torch cannot profile."""
    wait, warmup, active = schedule or (DEFAULT_WAIT, DEFAULT_WARMUP, DEFAULT_ACTIVE)
    try:
        return TorchWindow(out_dir, wait=wait, warmup=warmup, active=active)
    except ImportError:
        log.warning("gpuprof: torch is not installed: no time breakdown")
    except Exception:
        log.warning("gpuprof: cannot start torch.profiler: no time breakdown", exc_info=True)
    return None


@contextlib.contextmanager
def _quiet() -> Any:
    """torch.profiler warns that it clears events after each cycle: with one cycle, nothing
    is lost, and a job run with ``-W error`` must not fail for it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Pp]rofiler.*", category=UserWarning)
        yield
