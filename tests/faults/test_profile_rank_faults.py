"""Hostile per-process torch breakdowns (issue 13): what several processes of a job leave in the
profiler's torch folder is merged (:func:`gpuprof.profile.job_files.torch_outputs`).

The job writes that folder, so anything may be there: ranks that are no ranks, a file claiming
merged ranks of its own, names that carry no pid, two files claiming one rank, thousands of
files, traces that are links or pipes. Each is a note (one line naming the file) or ignored;
never an exception, a wrong merge, a file read outside the folder, or a trace overwritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gpuprof.errors import InputError
from gpuprof.profile.job_files import MAX_BREAKDOWN_FILES, torch_outputs
from gpuprof.profile.model import BREAKDOWN_CATEGORIES, TimeBreakdown, TimeShare
from gpuprof.profile.torch_breakdown import read_breakdown
from gpuprof.telemetry.codec import to_jsonable


def _doc(rank: object = None, matmul: float = 1.0, idle: float = 1.0) -> dict[str, Any]:
    total = matmul + idle
    times = {"matmul": matmul, "idle": idle}
    b = TimeBreakdown(
        device="cpu",
        steps=3,
        total_s=total,
        shares=tuple(
            TimeShare(c, times.get(c, 0.0), 100.0 * times.get(c, 0.0) / total)
            for c in BREAKDOWN_CATEGORIES
        ),
    )
    doc: dict[str, Any] = to_jsonable(b)
    doc["rank"] = rank
    return doc


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "torch"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    "rank",
    [-1, "0", 1.5, True, 2**40, [0], {"r": 0}, 1e308],
    ids=["negative", "text", "fraction", "boolean", "huge", "a-list", "an-object", "1e308"],
)
def test_a_rank_that_is_no_rank_leaves_that_file_out_with_a_note(
    rank: object, tmp_path: Path
) -> None:
    folder = _folder(tmp_path)
    (folder / "breakdown-11.json").write_text(json.dumps(_doc(rank)))
    with pytest.raises(InputError, match=r"breakdown-11\.json"):
        read_breakdown(folder / "breakdown-11.json")
    (folder / "breakdown-12.json").write_text(json.dumps(_doc(0)))
    notes: list[str] = []
    merged, trace = torch_outputs(folder, tmp_path / "r.gpuprof", notes)
    assert merged is not None and merged.rank == 0 and merged.ranks == () and trace is None
    assert len(notes) == 1 and "breakdown-11.json" in notes[0] and "\n" not in notes[0]


@pytest.mark.parametrize(
    "ranks",
    [[{"pid": 1, "rank": 5}], [1, 2], [{"pid": "x"}], "all", 5, [None]],
    ids=["plausible", "numbers", "bad-pid", "text", "a-number", "nulls"],
)
def test_merged_ranks_claimed_by_one_process_are_never_taken(ranks: object, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    doc = _doc(3)
    doc["ranks"] = ranks
    (folder / "breakdown-40.json").write_text(json.dumps(doc))
    notes: list[str] = []
    merged, _ = torch_outputs(folder, tmp_path / "r.gpuprof", notes)
    # Either refused (a note) or read with its claim dropped: merging is the profiler's.
    assert merged is None or (merged.ranks == () and merged.rank == 3)
    assert all("\n" not in n for n in notes)


def test_names_without_a_pid_and_one_rank_claimed_twice_keep_every_trace(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    for name, rank, matmul in (("abc", 1, 1.0), ("", 1, 3.0), ("7", 0, 1.0)):
        (folder / f"breakdown-{name}.json").write_text(json.dumps(_doc(rank, matmul=matmul)))
        (folder / f"trace-{name}.json").write_text(f'{{"who": "{name}"}}')
    notes: list[str] = []
    merged, trace = torch_outputs(folder, tmp_path / "r.gpuprof", notes)
    assert merged is not None and [r.rank for r in merged.ranks] == [0, 1, 1]
    assert [r.pid for r in merged.ranks] == [7, 0, 0]
    names = [r.trace_file for r in merged.ranks]
    assert names[0] == "r.trace.json" and trace == tmp_path / "r.trace.json"
    assert len(set(names)) == 3 and all(n and (tmp_path / n).is_file() for n in names)
    whose = {json.loads((tmp_path / str(n)).read_text())["who"] for n in names}
    assert whose == {"abc", "", "7"}  # none overwritten by another
    matmul = next(s for s in merged.shares if s.category == "matmul")
    assert matmul.time_s == pytest.approx(5.0)  # 1 + 3 + 1, over 2 + 4 + 2 s
    assert matmul.share_pct == pytest.approx(62.5)


def test_thousands_of_breakdown_files_merge_a_bounded_number(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    text = json.dumps(_doc(None))
    for pid in range(1, MAX_BREAKDOWN_FILES + 90):
        (folder / f"breakdown-{pid}.json").write_text(text)
    notes: list[str] = []
    merged, _ = torch_outputs(folder, tmp_path / "r.gpuprof", notes)
    assert merged is not None and len(merged.ranks) == MAX_BREAKDOWN_FILES
    assert merged.ranks[0].pid == 1 and merged.ranks[-1].pid == MAX_BREAKDOWN_FILES
    assert any(f"the first {MAX_BREAKDOWN_FILES} by pid" in n for n in notes)


def test_a_trace_that_is_a_link_or_a_pipe_is_not_kept(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not a trace")
    folder = _folder(tmp_path)
    (folder / "breakdown-1.json").write_text(json.dumps(_doc(0)))
    (folder / "trace-1.json").symlink_to(secret)
    (folder / "breakdown-2.json").write_text(json.dumps(_doc(1)))
    os.mkfifo(folder / "trace-2.json")
    notes: list[str] = []
    merged, trace = torch_outputs(folder, tmp_path / "r.gpuprof", notes)
    assert merged is not None and trace is None
    assert [r.trace_file for r in merged.ranks] == [None, None]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt", "torch"]
    assert sum("not a regular file" in n for n in notes) == 2
