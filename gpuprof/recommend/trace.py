"""A request trace run through a discrete-event simulation of the continuous-batching scheduler
(issue 22, ``gpuprof recommend --scenario serve --trace FILE``), the way Vidur simulates an
engine (Agrawal et al. 2024, "Vidur: A Large-Scale Simulation Framework for LLM Inference"),
joined here to the priced configurations the ranking chose.

**Trace**: CSV, one request per line: ``arrival_s, prompt_tokens, output_tokens`` (a header
line of those names is optional; ``#`` comments and blank lines are skipped). Read with limits:
at most :data:`MAX_TRACE_BYTES` bytes and :data:`MAX_REQUESTS` requests; every value finite,
arrival ≥ 0 s and ≤ ten years, tokens whole numbers 1 … 10⁷ (prompts may be 0). Bad input is
one :class:`~gpuprof.errors.InputError` naming the file and line.

**Scheduler** (per replica; requests go to the replicas round-robin, as a plain load balancer
does): each engine step first advances every running sequence by one token, then fills the
rest of the step's token budget (:data:`~gpuprof.recommend.serve.step.TOKEN_BUDGET`) with prompt
chunks of waiting or partly prefilled requests, first come first served (chunked prefill). A
request is admitted when the replica has fewer than ``batch_max`` sequences and its KV cache
can hold what the engine holds for it (``--kv-admission``: the whole prompt + output reserved,
or, blocks allocated as tokens come, prompt + output/2 on average; no preemption). A step
takes :func:`gpuprof.recommend.serve.step.step_seconds` for its decode tokens, prefill tokens and the
running sequences' mean context. A request's first token comes at the end of the step that
finishes its prompt; each later step adds one.

**Reported**: TTFT and TPOT (``(finish − first token) / (output − 1)``) percentiles over the
requests, output tokens/s, and goodput: the share (and rate) of requests that meet both
latency targets. It is a model of a scheduler, not a measurement: labelled SIMULATED.
"""

from __future__ import annotations

import codecs
import math
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from gpuprof.errors import InputError
from gpuprof.i18n import tr
from gpuprof.jsonin import read_regular
from gpuprof.recommend.serve import ServeArrays
from gpuprof.recommend.serve.step import TOKEN_BUDGET, Hardware, Shape, shape_of, step_seconds
from gpuprof.recommend.workload import Workload

if TYPE_CHECKING:
    from gpuprof.recommend.rank import Recommendation, RecommendationRow

__all__ = [
    "MAX_REQUESTS",
    "MAX_TRACE_BYTES",
    "TRACE_TOP",
    "Trace",
    "TraceCancelled",
    "TraceResult",
    "read_trace",
    "simulate",
    "simulate_top",
    "trace_traffic",
]

Arr = npt.NDArray[np.float64]

#: The largest trace read (bytes): ~30 bytes a line makes this ~8 M requests' worth.
MAX_TRACE_BYTES = 256 * 2**20
#: The most requests simulated (the simulation is pure Python: ~1 s per 10⁵ engine steps).
MAX_REQUESTS = 200_000
#: The most engine steps simulated over all replicas; past it the run stops, says so.
MAX_STEPS = 2_000_000
#: Sanity limits of one request.
MAX_TOKENS = 10_000_000
MAX_ARRIVAL_S = 10 * 366 * 86400.0
_HEADER = ("arrival_s", "prompt_tokens", "output_tokens")


@dataclass(frozen=True)
class Trace:
    """Requests sorted by arrival: seconds, prompt tokens, output tokens."""

    path: str
    arrival_s: Arr
    prompt: npt.NDArray[np.int64]
    output: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.arrival_s)

    @property
    def duration_s(self) -> float:
        return float(self.arrival_s[-1] - self.arrival_s[0]) if len(self) else 0.0

    @property
    def rate_per_s(self) -> float:
        """Requests per second over the trace (its arrivals' span; one request: 1 s)."""
        return len(self) / max(self.duration_s, 1.0) if len(self) > 1 else float(len(self))


#: Configurations a trace is simulated on: the best rows that fit.
TRACE_TOP = 3
#: Engine steps between two calls of a simulation's ``tick`` (progress, cancel).
TICK_STEPS = 512

#: ``tick(fraction_done)``: called every :data:`TICK_STEPS` engine steps with the share of the
#: work done (0..1); returns True to stop the simulation (it raises :class:`TraceCancelled`).
Tick = Callable[[float], bool]


class TraceCancelled(Exception):
    """A simulation stopped because its ``tick`` asked it to (the user cancelled it)."""


def _part(tick: Tick, offset: float, scale: float, whole: float) -> Tick:
    """``tick`` for a part of the work: ``x`` of the part is ``(offset + scale·x) / whole``."""
    return lambda x: tick((offset + scale * x) / whole)


def trace_traffic(trace: Trace) -> dict[str, float]:
    """The traffic ``trace`` shows — mean prompt and output tokens and its request rate: what
    ``--trace`` (and the Recommend tab's trace file) fill in where no flag or field gave one."""
    return {
        "prompt_len": round(float(trace.prompt.mean())),
        "output_len": max(1, round(float(trace.output.mean()))),
        "rate_per_s": trace.rate_per_s,
    }


def simulate_top(
    rec: Recommendation, trace: Trace, top: int = TRACE_TOP, *, tick: Tick | None = None
) -> list[tuple[RecommendationRow, TraceResult]]:
    """(row, result) of ``trace`` simulated on the ``top`` best rows of ``rec`` that fit, each
    on all the replicas of its instances (the CLI's ``--trace`` and the Recommend tab, which
    runs it in a worker: ``tick`` gets the share done over all the rows, and may cancel)."""
    from gpuprof.recommend.rank import serving_arrays_of

    rows = [r for r in rec.rows if r.fits and r.serving is not None][:top]
    out = []
    for k, row in enumerate(rows):
        assert row.serving is not None
        sv, i = serving_arrays_of(rec, row)
        replicas = row.serving.instances * row.serving.replicas_per_instance
        sub = None if tick is None else _part(tick, k, 1, len(rows))
        out.append((row, simulate(rec.workload, sv, i, trace, replicas, tick=sub)))
    return out


def _bad(path: str, line: int, why: str) -> InputError:
    return InputError(tr("trace {f}: line {n}: {why}", f=path, n=line, why=why))


def _number(text: str, path: str, line: int, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _bad(
            path, line, tr("{name} is not a number: {t!r}", name=name, t=text[:40])
        ) from None
    if not math.isfinite(value):
        raise _bad(path, line, tr("{name} must be finite, got {t!r}", name=name, t=text[:40]))
    return value


def _tokens(text: str, path: str, line: int, name: str, low: int) -> int:
    value = _number(text, path, line, name)
    if value != int(value) or not low <= value <= MAX_TOKENS:
        raise _bad(
            path,
            line,
            tr(
                "{name} must be a whole number from {lo} to {hi}, got {t!r}",
                name=name,
                lo=low,
                hi=MAX_TOKENS,
                t=text[:40],
            ),
        )
    return int(value)


def read_trace(path: str | os.PathLike[str], *, max_bytes: int = MAX_TRACE_BYTES) -> Trace:
    """Read and check a request trace (see the module docstring); raises InputError."""
    name = str(path)
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise InputError(
                tr(
                    "trace {f}: {size} bytes, more than the {lim} a trace may have",
                    f=name,
                    size=size,
                    lim=max_bytes,
                )
            )
    except OSError as exc:
        raise InputError(
            tr("trace {f}: cannot read it ({why})", f=name, why=exc.strerror or exc)
        ) from None
    # A regular file only, opened without waiting: a FIFO would block the command for ever.
    raw = read_regular(path, max_bytes, what=tr("request trace"))
    try:
        text: str = codecs.decode(raw, "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _bad(name, raw[: exc.start].count(b"\n") + 1, tr("not UTF-8 text")) from None
    arrival: list[float] = []
    prompt: list[int] = []
    output: list[int] = []
    for n, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if tuple(c.lower() for c in cells) == _HEADER:
            continue
        if len(cells) != 3:
            raise _bad(
                name,
                n,
                tr(
                    "expected 3 fields (arrival_s, prompt_tokens, output_tokens), got {k}",
                    k=len(cells),
                ),
            )
        t = _number(cells[0], name, n, "arrival_s")
        if not 0.0 <= t <= MAX_ARRIVAL_S:
            raise _bad(
                name,
                n,
                tr("arrival_s must be from 0 to {hi:g} s, got {t!r}", hi=MAX_ARRIVAL_S, t=cells[0]),
            )
        arrival.append(t)
        prompt.append(_tokens(cells[1], name, n, "prompt_tokens", 0))
        output.append(_tokens(cells[2], name, n, "output_tokens", 1))
        if len(arrival) > MAX_REQUESTS:
            raise _bad(name, n, tr("more than {m} requests in one trace", m=MAX_REQUESTS))
    if not arrival:
        raise InputError(tr("trace {f}: no requests in it", f=name))
    order = np.argsort(np.asarray(arrival), kind="stable")
    return Trace(
        path=name,
        arrival_s=np.asarray(arrival, dtype=np.float64)[order],
        prompt=np.asarray(prompt, dtype=np.int64)[order],
        output=np.asarray(output, dtype=np.int64)[order],
    )


@dataclass(frozen=True)
class TraceResult:
    """The simulation of one configuration over a trace (seconds, tokens). SIMULATED."""

    replicas: int
    requests: int
    completed: int
    ttft_s: dict[str, float]  # p50, p90, p99
    tpot_s: dict[str, float]
    output_tokens_per_s: float
    goodput_share: float  # of requests meeting both targets (all finished ones when none)
    goodput_per_s: float
    steps: int
    truncated: bool  # stopped at MAX_STEPS
    simulated: bool = True

    def to_dict(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass
class _Req:
    arrival: float
    prompt: int
    output: int
    prefilled: int = 0
    generated: int = 0
    first: float = math.nan
    done: float = math.nan


@dataclass
class _Replica:
    waiting: deque[_Req] = field(default_factory=deque)
    running: list[_Req] = field(default_factory=list)
    kv_used: float = 0.0


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": math.nan, "p90": math.nan, "p99": math.nan}
    a = np.asarray(values)
    return {p: float(np.percentile(a, q)) for p, q in (("p50", 50), ("p90", 90), ("p99", 99))}


def simulate(
    w: Workload, sv: ServeArrays, i: int, trace: Trace, replicas: int, *, tick: Tick | None = None
) -> TraceResult:
    """Run ``trace`` through ``replicas`` engine replicas of candidate ``i``'s layout;
    ``tick(share of the requests finished)`` every :data:`TICK_STEPS` steps may cancel it
    (:class:`TraceCancelled`)."""
    s = shape_of(w)
    hw = sv.hardware(i)
    kv_cap = float(sv.kv_tokens[i])
    b_cap = int(sv.batch_max[i])
    reqs = [
        _Req(float(t), int(p), int(o))
        for t, p, o in zip(trace.arrival_s, trace.prompt, trace.output, strict=True)
    ]
    per: list[list[_Req]] = [reqs[k::replicas] for k in range(replicas)]
    steps = 0
    truncated = False
    total = max(len(reqs), 1)
    before = 0  # requests of the replicas already simulated
    for queue in per:
        sub = None if tick is None else _part(tick, before, 1, total)
        steps, stopped = _run_replica(s, hw, queue, kv_cap, b_cap, steps, w.kv_admission, tick=sub)
        truncated |= stopped
        before += len(queue)
    done = [r for r in reqs if math.isfinite(r.done)]
    ttft = [r.first - r.arrival for r in done]
    tpot = [(r.done - r.first) / (r.output - 1) for r in done if r.output > 1]
    good = [
        r
        for r in done
        if (w.ttft_s is None or r.first - r.arrival <= w.ttft_s)
        and (w.tpot_s is None or r.output <= 1 or (r.done - r.first) / (r.output - 1) <= w.tpot_s)
    ]
    end = max((r.done for r in done), default=float(trace.arrival_s[0]))
    span = max(end - float(trace.arrival_s[0]), 1e-9)
    return TraceResult(
        replicas=replicas,
        requests=len(reqs),
        completed=len(done),
        ttft_s=_percentiles(ttft),
        tpot_s=_percentiles(tpot),
        output_tokens_per_s=sum(r.output for r in done) / span,
        goodput_share=len(good) / len(reqs),
        goodput_per_s=len(good) / span,
        steps=steps,
        truncated=truncated,
    )


def _held(r: _Req, admission: str) -> float:
    """Cache tokens a request is counted for: its whole sequence (``reserve``) or, blocks being
    allocated as tokens come (``on-demand``), what it holds on average over its life."""
    return r.prompt + (r.output if admission == "reserve" else r.output / 2.0)


def _run_replica(
    s: Shape,
    hw: Hardware,
    queue: list[_Req],
    kv_cap: float,
    b_cap: int,
    steps: int,
    admission: str = "reserve",
    *,
    tick: Tick | None = None,
) -> tuple[int, bool]:
    """Simulate one replica over its requests; returns (steps so far, stopped early).
    ``tick(requests finished here)`` every :data:`TICK_STEPS` steps: True cancels
    (:class:`TraceCancelled`)."""
    rep = _Replica()
    pending = deque(queue)
    now = 0.0
    finished_here = 0
    while pending or rep.waiting or rep.running:
        if steps >= MAX_STEPS:
            return steps, True
        if tick is not None and steps % TICK_STEPS == 0 and tick(finished_here):
            raise TraceCancelled("the trace simulation was cancelled")
        if not rep.waiting and not rep.running:
            now = max(now, pending[0].arrival)
        while pending and pending[0].arrival <= now:
            rep.waiting.append(pending.popleft())
        # Admit while a slot and the KV cache allow (the engine's admission: _held).
        while rep.waiting and len(rep.running) < b_cap:
            r = rep.waiting[0]
            need = _held(r, admission)
            if rep.kv_used + need > kv_cap and rep.running:
                break
            rep.waiting.popleft()
            rep.running.append(r)
            rep.kv_used += need
        decoding = [r for r in rep.running if r.prefilled >= r.prompt]
        budget = TOKEN_BUDGET - len(decoding)
        chunks: list[tuple[_Req, int]] = []
        for r in rep.running:
            if budget <= 0:
                break
            if r.prefilled < r.prompt:
                take = int(min(r.prompt - r.prefilled, budget))
                chunks.append((r, take))
                budget -= take
        prefill = float(sum(t for _, t in chunks))
        b = float(len(decoding))
        ctx = sum(r.prompt + r.generated for r in decoding) / len(decoding) if decoding else 0.0
        p_mean = (sum(r.prompt for r, _ in chunks) / len(chunks)) if chunks else 0.0
        m, c, x = step_seconds(
            s,
            hw,
            np.asarray([b]),
            np.asarray([prefill]),
            ctx=ctx,
            prompt=p_mean,
        )
        now += float((m + c + x)[0])
        steps += 1
        finished: list[_Req] = []
        for r in decoding:
            r.generated += 1
            if r.generated == 1:  # no prompt: the first step yields the first token
                r.first = now
            if r.generated >= r.output:
                r.done = now
                finished.append(r)
        for r, take in chunks:
            r.prefilled += take
            if r.prefilled >= r.prompt:  # the prompt's last chunk yields the first token
                r.first = now
                r.generated = 1
                if r.generated >= r.output:
                    r.done = now
                    finished.append(r)
        for r in finished:
            rep.running.remove(r)
            rep.kv_used -= _held(r, admission)
        finished_here += len(finished)
    return steps, False
