"""Files around a job's recording: where recordings go by default, and what ``--torch`` leaves.

``gpuprof profile --torch`` points :data:`TORCH_ENV_VAR` at a private folder; inside the job
:mod:`gpuprof.profile.torch_window` writes ``trace-<pid>.json`` (the Chrome/Perfetto trace of its
profiled window) and ``breakdown-<pid>.json`` (the codec JSON of its
:class:`~gpuprof.profile.model.TimeBreakdown`) there. :func:`torch_outputs` reads the breakdown
back (a file that is not one is a note, never a failure) and keeps the trace next to the
recording: ``RUN.gpuprof`` -> ``RUN.trace.json``. When several processes of the job (DDP ranks)
wrote one, their breakdowns are merged (:mod:`gpuprof.profile.torch_merge`) and every trace is
kept (``RUN.rankN.trace.json`` for all but the first).
"""

from __future__ import annotations

import shutil
import stat
import time
from dataclasses import replace
from pathlib import Path

from gpuprof.errors import OutputError
from gpuprof.profile.model import TimeBreakdown
from gpuprof.telemetry.store.read import clip

__all__ = [
    "MAX_BREAKDOWN_BYTES",
    "MAX_BREAKDOWN_FILES",
    "TORCH_ENV_VAR",
    "default_out",
    "job_name",
    "jobs_dir",
    "rank_trace_path_for",
    "torch_outputs",
    "trace_path_for",
    "untaken",
]

TORCH_ENV_VAR = "GPUPROF_TORCH_DIR"
#: The largest ``breakdown-<pid>.json`` read back from the job (a summary is a few kB).
MAX_BREAKDOWN_BYTES = 4 * 2**20
#: The most processes' breakdowns merged (a job writing thousands of files costs no more).
MAX_BREAKDOWN_FILES = 512


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
    return untaken(jobs_dir(), f"{stamp}-{file_stem(name or 'job', fallback='job')}")


def untaken(folder: Path, base: str, suffix: str = ".gpuprof") -> Path:
    """``folder/BASE.gpuprof``, or ``BASE-2``, ``BASE-3``, ... : the first that does not exist."""
    out = folder / f"{base}{suffix}"
    n = 2
    while out.exists():
        out = folder / f"{base}-{n}{suffix}"
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


def rank_trace_path_for(out: Path, rank: int | None, pid: int) -> Path:
    """``RUN.gpuprof`` -> ``RUN.rank1.trace.json`` (``RUN.pid1234.trace.json`` without a rank):
    the trace of another process of a job whose processes each profiled a window."""
    first = trace_path_for(out)
    who = f"rank{rank}" if rank is not None else f"pid{pid}"
    return first.with_name(first.name.removesuffix(".trace.json") + f".{who}.trace.json")


def _pid_of(path: Path) -> int:
    digits = path.name.removeprefix("breakdown-").removesuffix(".json")
    return int(digits) if digits.isdigit() and len(digits) < 12 else 0


def _keep_trace(trace: Path, target: Path, notes: list[str]) -> Path | None:
    """``trace`` moved to ``target``; a link or anything but a regular file is left behind."""
    try:
        if not stat.S_ISREG(trace.lstat().st_mode):
            notes.append(f"the torch trace {trace.name} is not a regular file; not kept")
            return None
        shutil.move(str(trace), target)
    except OSError as e:
        notes.append(f"the torch trace could not be kept next to the recording ({e})")
        return None
    return target


def torch_outputs(
    torch_dir: Path | None, out: Path, notes: list[str], *, asked: bool = True
) -> tuple[TimeBreakdown | None, Path | None]:
    """The job's breakdown from the ``breakdown-<pid>.json`` files in ``torch_dir`` (several
    processes, DDP ranks: merged, :func:`~gpuprof.profile.torch_merge.merge_breakdowns`) and
    their traces moved next to the recording: the first (the lowest rank's) as
    ``RUN.trace.json``, each other one as ``RUN.rankN.trace.json``. ``asked``: the job was
    asked for a window (``--torch``), so a job that wrote none gets a note saying so."""
    if torch_dir is None or not torch_dir.is_dir():
        return None, None
    from gpuprof.errors import InputError
    from gpuprof.profile.torch_breakdown import read_breakdown
    from gpuprof.profile.torch_merge import merge_breakdowns, rank_order

    files = sorted(torch_dir.glob("breakdown-*.json"), key=lambda p: (_pid_of(p), p.name))
    if len(files) > MAX_BREAKDOWN_FILES:
        notes.append(
            f"{len(files)} torch breakdown files; the first {MAX_BREAKDOWN_FILES} by pid are merged"
        )
        files = files[:MAX_BREAKDOWN_FILES]
    parts: list[tuple[int, TimeBreakdown, Path]] = []
    for path in files:
        try:  # bounded, checked (types, finite numbers, shares summing to 100 %)
            parts.append((_pid_of(path), read_breakdown(path), path))
        except InputError as e:
            notes.append(f"torch breakdown {path.name} unreadable ({clip(e, 120)}); left out")
    if not files and asked:
        notes.append("--torch: the job wrote no time breakdown (no track(...) step window?)")
    parts.sort(key=lambda part: rank_order(part[0], part[1]))
    traces = sorted(torch_dir.glob("trace-*.json"))
    first: Path | None = None
    kept: list[tuple[int, TimeBreakdown]] = []
    used: set[Path] = set()
    for pid, b, path in parts:
        own = path.with_name(path.name.replace("breakdown-", "trace-", 1))
        if not own.exists() and len(parts) == 1 and traces:
            own = traces[0]  # one process: the trace there is its own
        trace = None
        if own.exists() or own.is_symlink():
            target = trace_path_for(out) if first is None else rank_trace_path_for(out, b.rank, pid)
            if target in used:  # two files claiming one rank: each trace is kept all the same
                base = rank_trace_path_for(out, None, pid)
                target, k = base, 2
                while target in used:
                    target = base.with_name(base.name.replace(".trace.json", f"-{k}.trace.json"))
                    k += 1
            used.add(target)
            trace = _keep_trace(own, target, notes)
            first = first or trace
        kept.append((pid, replace(b, trace_file=trace.name if trace else None)))
    if not parts and traces:  # a trace the job could not summarize is still worth keeping
        first = _keep_trace(traces[0], trace_path_for(out), notes)
    merged = merge_breakdowns(kept, notes)
    if merged is not None and merged.ranks:
        names = ", ".join(r.trace_file for r in merged.ranks if r.trace_file) or "none kept"
        notes.append(
            f"the time breakdown merges the windows of {len(merged.ranks)} processes "
            f"(DDP ranks); their traces: {names}"
        )
    return merged, first
