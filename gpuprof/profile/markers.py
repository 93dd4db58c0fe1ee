"""The marker protocol between a job and the profiler that runs it.

``gpuprof profile`` sets the environment variable :data:`ENV_VAR` to the path of a marker file
before it starts the job. Inside the job, ``gpuprof.track`` appends one JSON object per line
to that file (opened with ``O_APPEND``: lines from several processes of the job never
interleave, and a marker written just before a crash is kept). The profiler reads new lines at
each poll and once more at the end, and stores the markers inside the recording.

Each line is a JSON object with ``"v": 1`` and ``"kind"``:

- ``{"v":1,"kind":"start","t":T,"run":NAME,"pid":PID}`` — a ``track`` block began;
- ``{"v":1,"kind":"step","t":T,"run":NAME,"pid":PID,"step":N,"dt":S,
  "tokens":X,"samples":X,"flops":X}`` — step N ended at T after S seconds (the optional
  counts are left out when not given);
- ``{"v":1,"kind":"mark","t":T,"run":NAME,"pid":PID,"label":TEXT}`` — a phase label;
- ``{"v":1,"kind":"end","t":T,"run":NAME,"pid":PID}`` — the block ended.

``T`` is Unix time in seconds, like snapshots. A reader skips (and counts) lines it cannot
parse, lines of another version and a partial last line, so a job can never break its
profile by writing garbage.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from gpuprof.profile.model import PhaseMark, StepMarker
from gpuprof.telemetry.store.read import MAX_TIME_S, MIN_TIME_S

__all__ = ["ENV_VAR", "VERSION", "Marker", "decode_line", "encode", "iter_steps", "parse_lines"]

#: The environment variable naming the marker file of the profiler running this process.
ENV_VAR = "GPUPROF_MARKERS"
VERSION = 1
#: A longer line is not a marker (a job writing garbage into the file).
MAX_LINE = 4096

Marker = StepMarker | PhaseMark


def encode(marker: Marker) -> bytes:
    """One marker as its line (UTF-8, ``\\n`` terminated)."""
    out: dict[str, Any] = {"v": VERSION, "t": marker.time_s, "run": marker.run, "pid": marker.pid}
    if isinstance(marker, StepMarker):
        out.update(kind="step", step=marker.step, dt=marker.duration_s)
        for key, value in (
            ("tokens", marker.tokens),
            ("samples", marker.samples),
            ("flops", marker.flops),
        ):
            if value is not None:
                out[key] = value
    else:
        out.update(kind=marker.kind, label=marker.label)
    return (json.dumps(out, separators=(",", ":"), allow_nan=False) + "\n").encode()


def _finite(value: Any, *, positive: bool = False) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not a number")
    try:
        f = float(value)
    except OverflowError:  # an integer of 400 digits
        raise ValueError("number out of range") from None
    if not math.isfinite(f) or f < 0 or (positive and f == 0):
        raise ValueError("not a finite non-negative number")
    return f


def decode_line(line: bytes | str) -> Marker:
    """One line back to its marker; ``ValueError`` when it is not one of ours."""
    if len(line) > MAX_LINE:
        raise ValueError("line too long")
    # UTF-8 only (json.loads would guess UTF-16 or UTF-32 from bytes).
    data = json.loads(line.decode("utf-8") if isinstance(line, (bytes, bytearray)) else line)
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise ValueError("not a version-1 marker")
    t = _finite(data.get("t"), positive=True)
    run, pid = data.get("run", ""), data.get("pid", 0)
    if t is None or not MIN_TIME_S < t <= MAX_TIME_S:
        raise ValueError("impossible time")
    if not isinstance(run, str) or not isinstance(pid, int) or isinstance(pid, bool) or pid < 0:
        raise ValueError("bad run or pid")
    kind = data.get("kind")
    if kind == "step":
        step = data.get("step")
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise ValueError("bad step number")
        dt = _finite(data.get("dt"))
        if dt is not None and dt > t - MIN_TIME_S:  # the step began before 1970
            raise ValueError("impossible step duration")
        return StepMarker(
            time_s=t,
            step=step,
            duration_s=dt,
            tokens=_finite(data.get("tokens")),
            samples=_finite(data.get("samples")),
            flops=_finite(data.get("flops")),
            run=run[:200],
            pid=pid,
        )
    if kind in ("start", "mark", "end"):
        label = data.get("label", "")
        if not isinstance(label, str):
            raise ValueError("bad label")
        return PhaseMark(time_s=t, kind=kind, label=label[:200], run=run[:200], pid=pid)
    raise ValueError(f"unknown kind {kind!r}")


def parse_lines(lines: Iterable[bytes | str]) -> tuple[list[Marker], int]:
    """The markers in ``lines`` and how many lines were skipped as not markers."""
    markers: list[Marker] = []
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            markers.append(decode_line(line))
        except (ValueError, UnicodeDecodeError, RecursionError):
            skipped += 1
    return markers, skipped


def iter_steps(markers: Iterable[Marker]) -> Iterator[StepMarker]:
    """Only the step markers."""
    return (m for m in markers if isinstance(m, StepMarker))
