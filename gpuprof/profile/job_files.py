"""Files around a job's recording: where recordings go by default, and what ``--torch`` leaves.

``gpuprof profile --torch`` points :data:`TORCH_ENV_VAR` at a private folder; inside the job
:mod:`gpuprof.profile.torch_window` writes ``trace-<pid>.json`` (the Chrome/Perfetto trace of its
profiled window) and ``breakdown-<pid>.json`` (the codec JSON of its
:class:`~gpuprof.profile.model.TimeBreakdown`) there. :func:`torch_outputs` reads the breakdown
back (a file that is not one is a note, never a failure) and keeps the trace next to the
recording: ``RUN.gpuprof`` -> ``RUN.trace.json``.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

from gpuprof.errors import OutputError
from gpuprof.profile.model import TimeBreakdown
from gpuprof.telemetry.store_read import clip

__all__ = [
    "MAX_BREAKDOWN_BYTES",
    "TORCH_ENV_VAR",
    "default_out",
    "job_name",
    "jobs_dir",
    "torch_outputs",
    "trace_path_for",
]

TORCH_ENV_VAR = "GPUPROF_TORCH_DIR"
#: The largest ``breakdown-<pid>.json`` read back from the job (a summary is a few kB).
MAX_BREAKDOWN_BYTES = 4 * 2**20


def jobs_dir() -> Path:
    """Where job recordings go by default (the app lists past job profiles from here)."""
    from gpuprof.paths import data_dir

    try:
        path = data_dir() / "jobs"
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot make the folder for job recordings ({e})") from None
    return path


def default_out(name: str, *, now: float | None = None) -> Path:
    """``jobs_dir()/YYYYmmdd-HHMMSS-NAME.gpuprof`` (a suffix added when taken)."""
    from gpuprof.catalog.names import file_stem

    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    base = f"{stamp}-{file_stem(name or 'job', fallback='job')}"
    folder = jobs_dir()
    out = folder / f"{base}.gpuprof"
    n = 2
    while out.exists():
        out = folder / f"{base}-{n}.gpuprof"
        n += 1
    return out


def job_name(command: tuple[str, ...] | list[str]) -> str:
    """A short name for a command: ``python train.py --x`` -> ``train``, ``./run.sh`` -> ``run.sh``."""
    if not command:
        return ""
    first = Path(command[0]).name
    if first.startswith("python") and len(command) > 1:
        if command[1] == "-m" and len(command) > 2:
            return command[2]
        if command[1].endswith(".py"):
            return Path(command[1]).stem
    return first


def trace_path_for(out: Path) -> Path:
    """``RUN.gpuprof`` -> ``RUN.trace.json``: the torch trace kept next to the recording."""
    return out.with_name(f"{out.stem if out.suffix else out.name}.trace.json")


def torch_outputs(
    torch_dir: Path | None, out: Path, notes: list[str]
) -> tuple[TimeBreakdown | None, Path | None]:
    """The job's ``breakdown-<pid>.json`` (the first one) and its trace, moved next to
    the recording as ``RUN.trace.json``."""
    if torch_dir is None:
        return None, None
    from gpuprof.errors import InputError
    from gpuprof.profile.torch_breakdown import read_breakdown

    files = sorted(torch_dir.glob("breakdown-*.json"))
    breakdown: TimeBreakdown | None = None
    chosen: Path | None = None
    for path in files:
        try:  # bounded, checked (types, finite numbers, shares summing to 100 %)
            breakdown, chosen = read_breakdown(path), path
            break
        except InputError as e:
            notes.append(f"torch breakdown {path.name} unreadable ({clip(e, 120)}); left out")
    if not files:
        notes.append("--torch: the job wrote no time breakdown (no track(...) step window?)")
    elif len(files) > 1:
        notes.append(f"{len(files)} processes wrote a time breakdown; the first is shown")
    trace = None
    traces = sorted(torch_dir.glob("trace-*.json"))
    if chosen is not None:  # the trace of the process whose breakdown is shown
        own = chosen.with_name(chosen.name.replace("breakdown-", "trace-", 1))
        traces = [own] if own.is_file() else traces
    if traces:
        trace = trace_path_for(out)
        try:
            shutil.move(str(traces[0]), trace)
        except OSError as e:
            notes.append(f"the torch trace could not be kept next to the recording ({e})")
            trace = None
    if breakdown is not None:
        breakdown = replace(breakdown, trace_file=trace.name if trace else None)
    return breakdown, trace
