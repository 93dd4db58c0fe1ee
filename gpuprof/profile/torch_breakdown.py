"""Where the time went, from a ``torch.profiler`` Chrome trace (issue 13).

:func:`summarize_trace` reads the trace ``torch.profiler`` exports (``traceEvents``: complete
events, ``"ph": "X"``, with ``ts`` and ``dur`` in µs) and returns a
:class:`~gpuprof.profile.model.TimeBreakdown`:

- **CUDA traces** (any ``kernel`` / ``gpu_memcpy`` / ``gpu_memset`` event): device time per GPU
  (the event's ``pid``) over the window from the first ``ProfilerStep#N`` or device event to
  the last. Kernels on concurrent streams overlap: each instant of busy time is split evenly
  among the events running then, so the categories add up to the union of busy time and
  *idle* is the window minus that union. The shares therefore sum to 100 %.
- **CPU traces** (no device events): the top-level ``cpu_op`` events inside the
  ``ProfilerStep#N`` spans (an op nested in another op of the same thread is its child and is
  not counted again); *idle* is step time minus that busy time.

Names are sorted into :data:`~gpuprof.profile.model.BREAKDOWN_CATEGORIES` by :func:`classify`
(one classification for kernels and operators). The top 15 kernels or operators are listed by
their own time (overlap not split). The data-loader wait is the time per step in events
named ``...DataLoader...`` (``enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__``).

A trace that cannot be read (missing, not a regular file, larger than
:data:`MAX_TRACE_BYTES`, not JSON, nested too deeply, of the wrong shape, or with nothing to
summarize) is one :class:`~gpuprof.errors.InputError` naming the file; single events of the
wrong types are skipped and counted in the breakdown's note.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError
from gpuprof.profile.model import BREAKDOWN_CATEGORIES, OpTime, TimeBreakdown, TimeShare

__all__ = [
    "MAX_TRACE_BYTES",
    "TOP_N",
    "classify",
    "read_breakdown",
    "summarize_events",
    "summarize_profiler",
    "summarize_trace",
]

#: The largest trace read (after gunzip). A 5-step window of a big model is ~100-300 MB;
#: parsed JSON takes several times its size in memory, so more is refused rather than risked.
MAX_TRACE_BYTES = 768 * 2**20
#: The largest breakdown file read (:func:`read_breakdown`): a summary is a few kB.
MAX_BREAKDOWN_BYTES = 1 * 2**20
TOP_N = 15
#: Longest kernel or operator name kept (templated CUDA kernel names run to kilobytes).
MAX_NAME_CHARS = 300

_DEVICE_CATS = frozenset({"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"})
_OP_CATS = frozenset({"cpu_op", "operator"})
_LOADER_CATS = frozenset({"cpu_op", "operator", "python_function", "user_annotation"})
_STEP_CATS = frozenset({"user_annotation", "cpu_op", "operator", ""})
_STEP_NAME = re.compile(r"ProfilerStep#\d+$")

# Checked in this order: flash-attention kernels are cutlass templates, and NCCL kernels are
# named after reductions; so attention and collectives come before matmul.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "collectives",
        re.compile(
            r"nccl|c10d::|gloo|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|"
            r"broadcast_coalesced"
        ),
    ),
    ("memcpy", re.compile(r"^(memcpy|memset)|^aten::(copy_|to|_to_copy)$")),
    (
        "attention",
        re.compile(r"flash|fmha|efficient_attention|scaled_dot_product|attention|sdpa"),
    ),
    (
        "matmul",
        re.compile(
            r"gemm|gemv|cutlass|xmma|cublas|nvjet|matmul|linear|conv|"
            r"(^|[^a-z])(mm|addmm|bmm|baddbmm|addbmm)([^a-z]|$)|mmbackward"
        ),
    ),
)


def classify(name: str, cat: str = "") -> str:
    """The :data:`BREAKDOWN_CATEGORIES` entry for a kernel or operator ``name`` (``cat`` is
    the trace's category: ``gpu_memcpy`` / ``gpu_memset`` are copies whatever their name)."""
    cat = cat.lower()
    if cat in ("gpu_memcpy", "gpu_memset", "memcpy", "memset"):
        return "memcpy"
    lowered = name.lower()
    for category, pattern in _RULES:
        if pattern.search(lowered):
            return category
    return "other compute"


# --- reading ----------------------------------------------------------------------------------


def _fail(path: Path, why: str) -> InputError:
    return InputError(f"{path}: not a readable torch.profiler trace ({why})")


def read_bounded(path: str | os.PathLike[str], limit: int, *, what: str = "file") -> bytes:
    """The bytes of ``path`` (gunzipped when it is gzip), refusing anything but a regular file
    and more than ``limit`` bytes. ``O_NONBLOCK``: opening a FIFO never waits for a writer."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{p}: is a directory, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{p}: not a regular file, not a {what}")
        if info.st_size > limit:
            raise InputError(
                f"{p}: {info.st_size >> 20} MiB, larger than the {limit >> 20} MiB read"
            )
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew while read
                raise InputError(f"{p}: larger than the {limit >> 20} MiB read")
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if data[:2] == b"\x1f\x8b":  # torch writes .json.gz when asked to
        inflater = zlib.decompressobj(wbits=31)
        try:
            data = inflater.decompress(data, limit + 1)
        except zlib.error as e:
            raise InputError(f"{p}: broken gzip data ({e})") from None
        if len(data) > limit:
            raise InputError(f"{p}: inflates to more than {limit >> 20} MiB (a compression bomb?)")
        if not inflater.eof:
            raise InputError(f"{p}: truncated gzip data")
    return data


def _load_json(path: Path, data: bytes, *, what: str = "readable torch.profiler trace") -> Any:
    """Parse ``data``; ``NaN`` / ``Infinity`` are left to the callers (a trace skips the event
    holding one, a breakdown refuses them)."""

    def fail(why: str) -> InputError:
        return InputError(f"{path}: not a {what} ({why})")

    if not data.strip():
        raise fail("empty file")
    try:
        return json.loads(data)
    except RecursionError:
        raise fail("JSON nested too deeply") from None
    except UnicodeDecodeError:
        raise fail("not UTF-8 text") from None
    except ValueError as e:
        raise fail(f"not JSON: {_clip(e, 120)}") from None
    except MemoryError:
        raise fail("too large to parse in memory") from None


_JSON_TYPES = {dict: "an object", list: "a list", str: "text", int: "a number", float: "a number"}


def json_type(value: object) -> str:
    """What a JSON value is, in words (``null``, ``a number``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _clip(text: object, limit: int) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """One complete (``"ph": "X"``) event of a trace; times in µs."""

    name: str
    cat: str  # lower case
    start: float
    end: float
    pid: int | str
    tid: int | str


_MAX_US = 1e18  # ~31,000 years: a larger timestamp is damage, not time


def _number(value: object) -> float | None:
    """``value`` as a finite number of µs within ±:data:`_MAX_US`, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    f = float(value)
    return f if math.isfinite(f) and abs(f) <= _MAX_US else None


def _event(raw: Any) -> Event | None:
    """``raw`` as an :class:`Event`; ``None`` when it is not a complete event, :data:`_SKIP`
    when it is damaged (wrong types, times that are no times)."""
    if not isinstance(raw, dict):
        return _SKIP
    if raw.get("ph") != "X":
        return None
    name, cat = raw.get("name"), raw.get("cat", "")
    start, length = _number(raw.get("ts")), _number(raw.get("dur"))
    pid, tid = raw.get("pid", 0), raw.get("tid", 0)
    if not isinstance(name, str) or not isinstance(cat, str):
        return _SKIP
    if start is None or length is None or length < 0:
        return _SKIP
    for key in (pid, tid):
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            return _SKIP
    return Event(name, cat.lower(), start, start + length, pid, tid)


_SKIP = Event("", "", 0.0, 0.0, 0, 0)  # a sentinel: a damaged entry, counted


def events_of(path: Path, doc: Any) -> tuple[list[Event], int]:
    """The complete events of a parsed trace and how many entries were skipped as damaged."""
    if isinstance(doc, dict):
        if "traceEvents" not in doc:
            raise _fail(path, "no traceEvents")
        raw_events = doc["traceEvents"]
        if not isinstance(raw_events, list):
            raise _fail(path, f"traceEvents is {json_type(raw_events)}, not a list")
    elif isinstance(doc, list):
        raw_events = doc  # the Chrome trace format also allows a bare array
    else:
        raise _fail(path, f"the JSON is {json_type(doc)}, not an object with traceEvents")
    events: list[Event] = []
    skipped = 0
    for raw in raw_events:
        event = _event(raw)
        if event is _SKIP:
            skipped += 1
        elif event is not None:
            events.append(event)
    return events, skipped


# --- interval arithmetic ----------------------------------------------------------------------


def _merge(spans: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of ``spans`` as sorted, disjoint intervals."""
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _clip_to(
    items: Sequence[tuple[float, float, str]], windows: Sequence[tuple[float, float]]
) -> list[tuple[float, float, str]]:
    """The parts of ``items`` (start, end, key) inside the disjoint sorted ``windows``."""
    import bisect

    starts = [w[0] for w in windows]
    out: list[tuple[float, float, str]] = []
    for start, end, key in items:
        i = max(bisect.bisect_right(starts, start) - 1, 0)
        while i < len(windows) and windows[i][0] < end:
            lo, hi = max(start, windows[i][0]), min(end, windows[i][1])
            if hi > lo:
                out.append((lo, hi, key))
            i += 1
    return out


def split_busy(items: Iterable[tuple[float, float, str]]) -> tuple[dict[str, float], float]:
    """Busy time per key, each instant split evenly among the items running then, and the
    union of busy time: ``sum(per_key.values()) == busy`` (up to rounding)."""
    edges: list[tuple[float, int, str]] = []
    for start, end, key in items:
        if end > start:
            edges.append((start, 1, key))
            edges.append((end, -1, key))
    edges.sort(key=lambda e: (e[0], e[1]))
    running: dict[str, int] = defaultdict(int)
    per_key: dict[str, float] = defaultdict(float)
    active = 0
    busy = 0.0
    last = 0.0
    for t, delta, key in edges:
        if active and t > last:
            seg = t - last
            busy += seg
            for k, n in running.items():
                if n:
                    per_key[k] += seg * n / active
        running[key] += delta
        active += delta
        last = t
    return dict(per_key), busy


def _top_level(ops: list[Event]) -> list[Event]:
    """The ops not nested in another op of the same thread (their children are inside them)."""
    out: list[Event] = []
    by_thread: dict[tuple[int | str, int | str], list[Event]] = defaultdict(list)
    for op in ops:
        by_thread[(op.pid, op.tid)].append(op)
    for thread_ops in by_thread.values():
        thread_ops.sort(key=lambda e: (e.start, -e.end))
        end = -math.inf
        for op in thread_ops:
            if op.end <= end:
                continue  # a child
            if op.start < end:  # overlaps its neighbour without nesting: count the rest
                op = replace(op, start=end)
            out.append(op)
            end = op.end
    return out


# --- the summary ------------------------------------------------------------------------------


def summarize_trace(path: str | os.PathLike[str], *, steps: int | None = None) -> TimeBreakdown:
    """The :class:`TimeBreakdown` of the Chrome trace at ``path`` (``InputError`` naming it when
    it cannot be read). ``steps`` counts the window's steps when the trace has no
    ``ProfilerStep#N`` annotations (a profile without a schedule)."""
    p = Path(path)
    doc = _load_json(p, read_bounded(p, MAX_TRACE_BYTES, what="torch.profiler trace"))
    events, skipped = events_of(p, doc)
    try:
        breakdown = summarize_events(events, steps=steps, skipped=skipped)
    except ValueError as e:
        more = f"; {skipped} damaged events skipped" if skipped else ""
        raise _fail(p, f"{e}{more}") from None
    return replace(breakdown, trace_file=str(p))


def summarize_events(
    events: Sequence[Event], *, steps: int | None = None, skipped: int = 0
) -> TimeBreakdown:
    """The breakdown of parsed trace events; ``ValueError`` when there is nothing to summarize."""
    step_spans = _merge(
        (e.start, e.end) for e in events if e.cat in _STEP_CATS and _STEP_NAME.match(e.name)
    )
    n_steps = sum(1 for e in events if e.cat in _STEP_CATS and _STEP_NAME.match(e.name))
    device = [e for e in events if e.cat in _DEVICE_CATS]
    notes: list[str] = []
    if device:
        starts = [e.start for e in device] + [s for s, _ in step_spans]
        ends = [e.end for e in device] + [e for _, e in step_spans]
        windows = [(min(starts), max(ends))]
        counted = device
        gpus = sorted({e.pid for e in device}, key=str)
        per_key: dict[str, float] = defaultdict(float)
        busy = 0.0
        for gpu in gpus:
            items = [(e.start, e.end, classify(e.name, e.cat)) for e in device if e.pid == gpu]
            keys, gpu_busy = split_busy(items)
            busy += gpu_busy
            for k, v in keys.items():
                per_key[k] += v
        span = windows[0][1] - windows[0][0]
        total_us = span * len(gpus)
        notes.append(
            f"device time of {len(gpus)} GPU(s) over {span / 1e3:.3f} ms; kernels running "
            "at once on several streams share each instant evenly"
        )
        kind = "cuda"
    else:
        ops = [e for e in events if e.cat in _OP_CATS and not _STEP_NAME.match(e.name)]
        if step_spans:
            windows = step_spans
        elif ops:
            windows = [(min(e.start for e in ops), max(e.end for e in ops))]
        else:
            raise ValueError("no ProfilerStep, operator or kernel events")
        counted = _top_level(ops)
        clipped = _clip_to([(e.start, e.end, classify(e.name, e.cat)) for e in counted], windows)
        per_key, busy = split_busy(clipped)
        span = sum(hi - lo for lo, hi in windows)
        total_us = span
        where = f"the {n_steps} profiled steps" if step_spans else "the traced span"
        notes.append(
            f"CPU trace: top-level operators within {where} ({span / 1e3:.3f} ms); idle is "
            "the time outside operators (Python, the framework)"
        )
        kind = "cpu"
    if total_us <= 0:
        raise ValueError("the profiled window is empty")
    if skipped:
        notes.append(f"{skipped} damaged trace events skipped")
    idle = max(total_us - busy, 0.0)
    times = {c: per_key.get(c, 0.0) for c in BREAKDOWN_CATEGORIES}
    times["idle"] = idle
    shares = tuple(
        TimeShare(category=c, time_s=times[c] / 1e6, share_pct=100.0 * times[c] / total_us)
        for c in BREAKDOWN_CATEGORIES
    )
    count = n_steps if step_spans else (steps or 0)
    return TimeBreakdown(
        device=kind,
        steps=count,
        total_s=span / 1e6,
        shares=shares,
        top=_top_ops(counted, windows, total_us),
        dataloader_wait_s_per_step=_loader_wait(events, step_spans, count),
        note="; ".join(notes),
    )


def _top_ops(
    counted: Sequence[Event], windows: Sequence[tuple[float, float]], total_us: float
) -> tuple[OpTime, ...]:
    time_us: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    cats: dict[str, str] = {}
    for e in counted:
        inside = _clip_to([(e.start, e.end, e.name)], windows)
        if inside:
            time_us[e.name] += sum(end - start for start, end, _ in inside)
            count[e.name] += 1
            cats.setdefault(e.name, classify(e.name, e.cat))
    ranked = sorted(time_us, key=lambda n: (-time_us[n], n))[:TOP_N]
    return tuple(
        OpTime(
            name=_clip(name, MAX_NAME_CHARS),
            category=cats[name],
            time_s=time_us[name] / 1e6,
            count=count[name],
            share_pct=100.0 * time_us[name] / total_us,
        )
        for name in ranked
    )


def _loader_wait(
    events: Sequence[Event], step_spans: Sequence[tuple[float, float]], steps: int
) -> float | None:
    """Seconds per step spent in data-loader events (outermost ones, within the steps)."""
    loader = [e for e in events if e.cat in _LOADER_CATS and "dataloader" in e.name.lower()]
    if not loader or steps <= 0:
        return None
    spans = _merge((e.start, e.end) for e in loader)
    if step_spans:
        spans = [(lo, hi) for lo, hi, _ in _clip_to([(a, b, "") for a, b in spans], step_spans)]
    return sum(hi - lo for lo, hi in spans) / 1e6 / steps


def summarize_profiler(prof: Any, *, steps: int | None = None) -> TimeBreakdown:
    """The breakdown of a finished ``torch.profiler.profile`` (exported to a temporary trace
    and read by :func:`summarize_trace`: one classification for both)."""
    with tempfile.TemporaryDirectory(prefix="gpuprof-trace-") as folder:
        trace = Path(folder) / "trace.json"
        prof.export_chrome_trace(str(trace))
        return replace(summarize_trace(trace, steps=steps), trace_file=None)


# --- a breakdown file written by a job ----------------------------------------------------------


def read_breakdown(path: str | os.PathLike[str]) -> TimeBreakdown:
    """A ``breakdown-<pid>.json`` a job wrote (:mod:`gpuprof.profile.torch_window`), checked:
    known device and categories, finite non-negative numbers, shares summing to 100 %."""
    from gpuprof.telemetry.codec import from_jsonable

    p = Path(path)
    doc = _load_json(
        p, read_bounded(p, MAX_BREAKDOWN_BYTES, what="time breakdown"), what="time breakdown"
    )
    if not isinstance(doc, dict):
        raise InputError(f"{p}: not a time breakdown (the JSON is {json_type(doc)}, not an object)")
    missing = [k for k in ("device", "steps", "total_s") if k not in doc]
    if missing:
        raise InputError(f"{p}: not a time breakdown (no {', '.join(missing)})")
    try:
        _refuse_non_finite(doc)
        breakdown = from_jsonable(TimeBreakdown, doc)
    except RecursionError:
        raise InputError(f"{p}: not a time breakdown (JSON nested too deeply)") from None
    except (ValueError, TypeError, KeyError) as e:
        raise InputError(f"{p}: not a time breakdown ({_clip(e, 120)})") from None
    why = _check(breakdown)
    if why:
        raise InputError(f"{p}: not a time breakdown ({why})")
    return replace(breakdown, ranks=())  # one process's own: merging is the profiler's


def _refuse_non_finite(value: Any) -> None:
    """``ValueError`` for a NaN or infinity anywhere in ``value`` (Python's JSON reads them)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a number JSON has")
    if isinstance(value, dict):
        for v in value.values():
            _refuse_non_finite(v)
    elif isinstance(value, list):
        for v in value:
            _refuse_non_finite(v)


def _check(b: TimeBreakdown) -> str:
    if b.device not in ("cuda", "cpu"):
        return f"unknown device {_clip(b.device, 40)!r}"
    rank = b.rank
    if rank is not None and (type(rank) is not int or not 0 <= rank < 2**31):
        return "a rank out of range"
    numbers = [b.total_s, float(b.steps), b.dataloader_wait_s_per_step or 0.0]
    numbers += [v for s in b.shares for v in (s.time_s, s.share_pct)]
    numbers += [v for o in b.top for v in (o.time_s, o.share_pct, float(o.count))]
    if any(not math.isfinite(v) or v < 0 for v in numbers):
        return "a negative or non-finite number"
    if any(s.category not in BREAKDOWN_CATEGORIES for s in b.shares):
        return "an unknown category"
    if b.shares and abs(sum(s.share_pct for s in b.shares) - 100.0) > 0.5:
        return "shares do not sum to 100 %"
    if len(b.top) > TOP_N:
        return f"more than {TOP_N} top operators"
    return ""
