"""One time breakdown for a job whose processes (DDP ranks) each profiled a window (issue 13).

Every process of a job that opens a ``torch.profiler`` window writes its own
``breakdown-<pid>.json`` (:mod:`gpuprof.profile.torch_window`). :func:`merge_breakdowns` makes
the job's one :class:`~gpuprof.profile.model.TimeBreakdown` of them:

- **shares** from the time summed over the processes: each category's seconds added up, divided
  by the processes' summed window time (device time of their GPUs for CUDA traces, the steps'
  wall time for CPU traces), so the shares still sum to 100 %; a rank that idles while the
  others compute weighs as much as its window is long;
- **top operators** by name, their time and calls added up over the processes' own top lists
  (an operator outside one process's top 15 counts nothing there: a lower bound), the 15
  longest kept;
- the **data-loader wait** per step is the mean over the processes that saw one; the window's
  **steps** and **wall time** are the longest process's;
- **per process** (:class:`~gpuprof.profile.model.RankBreakdown`): its rank, pid, steps, window,
  shares, data-loader wait and trace, ordered by rank (unknown ranks last, by pid).

CUDA and CPU breakdowns are not added together: when both kinds are present the CUDA ones are
merged and a note says how many CPU ones were left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from gpuprof.profile.model import (
    BREAKDOWN_CATEGORIES,
    OpTime,
    RankBreakdown,
    TimeBreakdown,
    TimeShare,
)
from gpuprof.profile.torch_breakdown import TOP_N

__all__ = ["merge_breakdowns", "rank_order"]


def rank_order(pid: int, b: TimeBreakdown) -> tuple[int, int, int]:
    """Sort key: known ranks first in rank order, then by pid."""
    return (0, b.rank, pid) if b.rank is not None else (1, 0, pid)


def _window_s(b: TimeBreakdown) -> float:
    """What one process's shares are shares of (their times add up to it)."""
    return sum(s.time_s for s in b.shares)


def _who(parts: Sequence[tuple[int, TimeBreakdown]]) -> str:
    ranks = [b.rank for _, b in parts]
    if all(r is not None for r in ranks):
        return "ranks " + ", ".join(str(r) for r in ranks)
    return "pids " + ", ".join(str(pid) for pid, _ in parts)


def merge_breakdowns(
    parts: Sequence[tuple[int, TimeBreakdown]], notes: list[str] | None = None
) -> TimeBreakdown | None:
    """The job's breakdown from ``(pid, breakdown)`` of each process (see the module doc);
    ``None`` when none has a window to count. One part comes back as it is. What was left out
    is said in ``notes``."""
    notes = notes if notes is not None else []
    if len(parts) == 1:
        return parts[0][1]
    usable = [(pid, b) for pid, b in parts if b.shares and _window_s(b) > 0]
    if len(usable) < len(parts):
        notes.append(f"{len(parts) - len(usable)} torch breakdown(s) with an empty window left out")
    kinds = {b.device for _, b in usable}
    if len(kinds) > 1:
        kept = [(pid, b) for pid, b in usable if b.device == "cuda"]
        notes.append(
            f"{len(usable) - len(kept)} CPU-only torch breakdown(s) left out of the CUDA ones"
        )
        usable = kept
    if not usable:
        return None
    usable.sort(key=lambda part: rank_order(*part))
    if len(usable) == 1:
        return usable[0][1]
    device = usable[0][1].device
    windows = [_window_s(b) for _, b in usable]
    total = sum(windows)
    per_cat: dict[str, float] = defaultdict(float)
    for _, b in usable:
        for s in b.shares:
            per_cat[s.category] += s.time_s
    shares = tuple(
        TimeShare(category=c, time_s=per_cat[c], share_pct=100.0 * per_cat[c] / total)
        for c in BREAKDOWN_CATEGORIES
    )
    op_time: dict[str, float] = defaultdict(float)
    op_count: dict[str, int] = defaultdict(int)
    op_cat: dict[str, str] = {}
    for _, b in usable:
        for o in b.top:
            op_time[o.name] += o.time_s
            op_count[o.name] += o.count
            op_cat.setdefault(o.name, o.category)
    ranked = sorted(op_time, key=lambda n: (-op_time[n], n))[:TOP_N]
    top = tuple(
        OpTime(
            name=n,
            category=op_cat[n],
            time_s=op_time[n],
            count=op_count[n],
            share_pct=100.0 * op_time[n] / total,
        )
        for n in ranked
    )
    waits = [b.dataloader_wait_s_per_step for _, b in usable]
    seen = [w for w in waits if w is not None]
    steps = {b.steps for _, b in usable}
    what = "device time of their GPUs" if device == "cuda" else "profiled steps' time"
    note = (
        f"merged from {len(usable)} processes ({_who(usable)}): shares of their summed {what} "
        f"({total:.3f} s); top operators summed over each process's own top {TOP_N}"
    )
    if len(steps) > 1:
        note += f"; the processes profiled {min(steps)}–{max(steps)} steps"
    ranks = tuple(
        RankBreakdown(
            pid=pid,
            rank=b.rank,
            steps=b.steps,
            total_s=b.total_s,
            shares=b.shares,
            dataloader_wait_s_per_step=b.dataloader_wait_s_per_step,
            trace_file=b.trace_file,
        )
        for pid, b in usable
    )
    return TimeBreakdown(
        device=device,
        steps=max(steps),
        total_s=max(b.total_s for _, b in usable),
        shares=shares,
        top=top,
        dataloader_wait_s_per_step=sum(seen) / len(seen) if seen else None,
        trace_file=usable[0][1].trace_file,
        note=note,
        rank=None,
        ranks=ranks,
    )
