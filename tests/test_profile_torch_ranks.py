"""The job's torch breakdown (issue 13): a window the job asks for itself, and DDP ranks merged.

End to end on the CPU with real torch and real child processes:

- ``track(..., torch_profiler=True)`` (tests/data/train_small.py ``--torch-profiler``) under
  ``gpuprof profile`` *without* ``--torch``: the breakdown and trace are collected as with it;
- tests/data/train_ddp_small.py: two ranks, DistributedDataParallel over gloo on 127.0.0.1,
  under ``gpuprof profile --torch``: both ranks' breakdowns merged into the job's, each rank
  kept with its own shares and trace.

:func:`~gpuprof.profile.torch_merge.merge_breakdowns`' rules are checked on the two real
breakdowns that DDP run wrote, and on hand-made ones for the cases a real run does not give.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gpuprof.jsonout import loads_strict
from gpuprof.profile.model import BREAKDOWN_CATEGORIES, OpTime, TimeBreakdown, TimeShare
from gpuprof.profile.storage import read_job_profile
from gpuprof.profile.torch_breakdown import summarize_trace
from gpuprof.profile.torch_merge import merge_breakdowns
from tests.faults.hostile import ROOT, Ran, run_gpuprof
from tests.schema_paths import documented_fields, json_paths

pytest.importorskip("torch")

DATA = ROOT / "tests" / "data"


def shares(b: TimeBreakdown) -> dict[str, float]:
    return {s.category: s.share_pct for s in b.shares}


def _profile(tmp_path: Path, *args: str) -> Ran:
    """``gpuprof profile --interval 0.2 ARGS`` with this checkout on the job's PYTHONPATH."""
    argv = ["profile", "--interval", "0.2", *args]
    return run_gpuprof(argv, tmp_path, timeout=300, env={"PYTHONPATH": str(ROOT)})


@pytest.mark.slow
def test_a_window_the_job_asks_for_is_collected_without_the_torch_flag(tmp_path: Path) -> None:
    run, summary = tmp_path / "RUN.gpuprof", tmp_path / "RUN.json"
    done = _profile(
        tmp_path,
        "--out", str(run), "--json", str(summary), "--",
        sys.executable, str(DATA / "train_small.py"), "--steps", "15", "--torch-profiler",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "without --torch" not in done.stderr  # no warning about a trace put elsewhere
    profile = read_job_profile(run)
    assert profile is not None and profile.breakdown is not None, done.stderr[-3000:]
    b = profile.breakdown
    assert b.device == "cpu" and b.steps == 5  # track()'s default window: 2 + 2 + 5 steps
    assert sum(shares(b).values()) == pytest.approx(100.0, abs=0.1)
    assert shares(b)["matmul"] > 0  # an MLP
    assert b.trace_file == "RUN.trace.json" and (tmp_path / "RUN.trace.json").is_file()
    assert summarize_trace(tmp_path / "RUN.trace.json").steps == 5
    assert not (tmp_path / "data" / "torch").exists()  # not left in the data folder instead
    assert not any("--torch" in n for n in profile.notes)
    doc = loads_strict(summary.read_text())
    assert doc["trace"] == str(tmp_path / "RUN.trace.json")
    assert doc["breakdown"]["ranks"] == [] and doc["breakdown"]["rank"] is None


@pytest.mark.slow
def test_without_a_window_nothing_is_collected_and_nothing_said(tmp_path: Path) -> None:
    run = tmp_path / "plain.gpuprof"
    done = _profile(
        tmp_path, "--out", str(run), "--",
        sys.executable, str(DATA / "train_small.py"), "--steps", "6",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    profile = read_job_profile(run)
    assert profile is not None and profile.breakdown is None
    assert not any("breakdown" in n for n in profile.notes)
    assert not list(tmp_path.glob("*.trace.json"))


# --- DDP: two ranks ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ddp_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``gpuprof profile --torch -- python train_ddp_small.py --ranks 2 --steps 12`` once;
    the two ranks' own breakdowns are summarized again from their kept traces."""
    home = tmp_path_factory.mktemp("ddp")
    run = home / "DDP.gpuprof"
    done = _profile(
        home, "--torch", "--out", str(run), "--json", str(home / "DDP.json"), "--",
        sys.executable, str(DATA / "train_ddp_small.py"), "--ranks", "2", "--steps", "12",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rank 0 done 12 steps" in done.stdout and "rank 1 done 12 steps" in done.stdout
    return home, run


@pytest.mark.slow
def test_ddp_ranks_are_merged_into_the_jobs_breakdown(ddp_run: tuple[Path, Path]) -> None:
    home, run = ddp_run
    profile = read_job_profile(run)
    assert profile is not None and profile.breakdown is not None
    assert profile.steps is not None and profile.steps.count == 24  # 12 steps of each rank
    b = profile.breakdown
    assert b.device == "cpu" and b.rank is None
    assert [r.rank for r in b.ranks] == [0, 1]
    assert len({r.pid for r in b.ranks}) == 2 and profile.pid not in {r.pid for r in b.ranks}
    assert all(r.steps == 5 for r in b.ranks) and b.steps == 5
    # Each rank's trace is kept next to the recording, the first one under the usual name.
    assert [r.trace_file for r in b.ranks] == ["DDP.trace.json", "DDP.rank1.trace.json"]
    assert b.trace_file == "DDP.trace.json"
    per_rank = [summarize_trace(home / str(r.trace_file)) for r in b.ranks]
    for rank, again in zip(b.ranks, per_rank, strict=True):
        assert rank.shares == again.shares  # the rank's own, unchanged
    # Shares of the summed time: each category's seconds added over the ranks.
    total = sum(s.time_s for r in b.ranks for s in r.shares)
    for s in b.shares:
        mine = sum(x.time_s for r in b.ranks for x in r.shares if x.category == s.category)
        assert s.time_s == pytest.approx(mine)
        assert s.share_pct == pytest.approx(100.0 * mine / total)
    assert [s.category for s in b.shares] == list(BREAKDOWN_CATEGORIES)
    assert sum(shares(b).values()) == pytest.approx(100.0, abs=0.01)
    assert shares(b)["matmul"] > 0
    assert b.total_s == pytest.approx(max(r.total_s for r in b.ranks))
    assert "merged from 2 processes (ranks 0, 1)" in b.note
    assert any(
        "merges the windows of 2 processes" in n and "DDP.rank1.trace.json" in n
        for n in profile.notes
    )
    # Top operators summed by name over the ranks' own lists (calls of both ranks).
    linear = next(o for o in b.top if o.name == "aten::linear")
    own = [o for r in per_rank for o in r.top if o.name == "aten::linear"]
    assert len(own) == 2 and linear.count == sum(o.count for o in own)
    assert linear.time_s == pytest.approx(sum(o.time_s for o in own))
    assert linear.share_pct == pytest.approx(100.0 * linear.time_s / total)
    doc = loads_strict((home / "DDP.json").read_text())
    assert [r["rank"] for r in doc["breakdown"]["ranks"]] == [0, 1]
    documented = documented_fields(ROOT / "docs" / "profile-schema.md")
    missing = sorted(p for p in json_paths(doc["breakdown"], "breakdown.") if p not in documented)
    assert not missing, f"breakdown fields not in docs/profile-schema.md: {missing}"


def test_merging_the_two_real_rank_breakdowns_by_hand(ddp_run: tuple[Path, Path]) -> None:
    """The rules on real breakdowns: one part is itself; order by rank; data-loader mean."""
    _home, run = ddp_run
    profile = read_job_profile(run)
    assert profile is not None and profile.breakdown is not None
    ranks = profile.breakdown.ranks
    parts = [
        (r.pid, TimeBreakdown("cpu", r.steps, r.total_s, r.shares, rank=r.rank)) for r in ranks
    ]
    assert merge_breakdowns(parts[:1]) is parts[0][1]
    merged = merge_breakdowns(list(reversed(parts)))
    assert merged is not None and [r.rank for r in merged.ranks] == [0, 1]
    assert merged.shares == profile.breakdown.shares
    (p0, b0), (p1, b1) = parts
    got = merge_breakdowns(
        [(p0, replace(b0, dataloader_wait_s_per_step=0.002)), (p1, b1)]  # rank 1: none seen
    )
    assert got is not None and got.dataloader_wait_s_per_step == pytest.approx(0.002)


def _b(device: str, times: dict[str, float], **kw: object) -> TimeBreakdown:
    total = sum(times.values())
    return TimeBreakdown(
        device=device,
        steps=3,
        total_s=total,
        shares=tuple(
            TimeShare(c, times.get(c, 0.0), 100.0 * times.get(c, 0.0) / total)
            for c in BREAKDOWN_CATEGORIES
        ),
        **kw,  # type: ignore[arg-type]
    )


def test_hand_worked_merge_of_unequal_windows() -> None:
    """Rank 0: 3 s matmul + 1 s idle; rank 1: 1 s collectives + 3 s idle (4 s windows each):
    together 3 / 8 matmul, 1 / 8 collectives, 4 / 8 idle."""
    a = _b(
        "cuda", {"matmul": 3.0, "idle": 1.0}, rank=0, top=(OpTime("gemm", "matmul", 3.0, 6, 75.0),)
    )
    b = _b("cuda", {"collectives": 1.0, "idle": 3.0}, rank=1,
           top=(OpTime("ncclAllReduce", "collectives", 1.0, 2, 25.0), OpTime("gemm", "matmul", 0.5, 1, 12.5)))  # fmt: skip
    merged = merge_breakdowns([(20, b), (10, a)])
    assert merged is not None
    assert shares(merged) == pytest.approx(
        {"matmul": 37.5, "attention": 0, "other compute": 0, "collectives": 12.5, "memcpy": 0, "idle": 50.0}
    )  # fmt: skip
    assert [(o.name, o.time_s, o.count, o.share_pct) for o in merged.top] == [
        ("gemm", 3.5, 7, pytest.approx(43.75)),
        ("ncclAllReduce", 1.0, 2, pytest.approx(12.5)),
    ]
    assert [(r.rank, r.pid) for r in merged.ranks] == [(0, 10), (1, 20)]


def test_cpu_breakdowns_are_not_added_to_cuda_ones_and_empty_windows_are_left_out() -> None:
    gpu = _b("cuda", {"matmul": 2.0, "idle": 2.0}, rank=1)
    cpu = _b("cpu", {"other compute": 1.0}, rank=0)
    empty = TimeBreakdown("cuda", 0, 0.0, rank=2)
    notes: list[str] = []
    merged = merge_breakdowns([(1, cpu), (2, gpu), (3, empty)], notes)
    assert merged is gpu  # the one CUDA breakdown left
    assert any("CPU-only" in n for n in notes) and any("empty window" in n for n in notes)
    assert merge_breakdowns([(1, empty), (2, empty)], []) is None
