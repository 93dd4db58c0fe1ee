"""Hostile request traces for ``gpuprof recommend --trace FILE`` (issue 22): truncated lines,
non-UTF-8 bytes, a file over the size limit, absurd or non-finite values, no requests. Each is
one clear line naming the file (and the line), exit 2 through the CLI, never a traceback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gpuprof.errors import InputError
from gpuprof.recommend.trace import read_trace
from tests.helpers.cli import recommend_cli

GOOD = "arrival_s,prompt_tokens,output_tokens\n0.0,100,20\n0.5,200,30\n"


def _write(tmp_path: Path, data: bytes | str, name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_a_good_trace_reads_sorted(tmp_path: Path) -> None:
    path = _write(tmp_path, "\ufeff# arrivals out of order\n2.0,10,5\n\n0.0,100,20\n1.0,0,1\n")
    t = read_trace(path)
    assert list(t.arrival_s) == [0.0, 1.0, 2.0]
    assert list(t.prompt) == [100, 0, 10] and list(t.output) == [20, 1, 5]
    assert t.rate_per_s == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (GOOD + "1.0,300\n", "line 4: expected 3 fields"),  # truncated line
        (GOOD + "1.0,300,", "line 4: output_tokens is not a number"),  # cut mid-line
        (GOOD + "1.0,300,40,7\n", "line 4: expected 3 fields"),
        (b"0.0,100,20\n0.5,2\xff0,30\n", "line 2: not UTF-8"),
        ("nan,100,20\n", "line 1: arrival_s must be finite"),
        ("inf,100,20\n", "line 1: arrival_s must be finite"),
        ("-1,100,20\n", "line 1: arrival_s must be from 0"),
        ("1e300,100,20\n", "line 1: arrival_s must be from 0"),
        ("0,1e30,20\n", "line 1: prompt_tokens must be a whole number"),
        ("0,-5,20\n", "line 1: prompt_tokens must be a whole number"),
        ("0,10.5,20\n", "line 1: prompt_tokens must be a whole number"),
        ("0,10,0\n", "line 1: output_tokens must be a whole number"),
        ("0,10,\x1b[31mred\n", "line 1: output_tokens is not a number"),
        ("", "no requests"),
        ("arrival_s,prompt_tokens,output_tokens\n# nothing\n", "no requests"),
    ],
)
def test_a_bad_trace_is_one_clear_error(tmp_path: Path, data: bytes | str, needle: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(InputError, match=needle) as err:
        read_trace(path)
    text = str(err.value)
    assert str(path) in text and "\n" not in text and "\x1b" not in text


def test_a_huge_trace_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    with open(path, "wb") as fh:  # sparse: big on paper, nothing written
        fh.truncate(64 * 2**20)
    with pytest.raises(InputError, match="more than the 1048576 a trace may have"):
        read_trace(path, max_bytes=2**20)


def test_too_many_requests_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gpuprof.recommend.trace as trace

    monkeypatch.setattr(trace, "MAX_REQUESTS", 3)
    path = _write(tmp_path, "".join(f"{i},10,10\n" for i in range(5)))
    with pytest.raises(InputError, match="line 4: more than 3 requests"):
        read_trace(path)


def test_a_missing_or_unreadable_trace_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read it"):
        read_trace(tmp_path / "absent.csv")
    with pytest.raises(InputError, match="is a folder, not a request trace"):
        read_trace(tmp_path)


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    """Nothing writes to this FIFO: an open() for reading would wait for ever."""
    fifo = tmp_path / "trace.csv"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_trace(fifo)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # let the stuck thread go: a writer opens and closes the FIFO
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert outcome, "read_trace waited on a FIFO"
    assert isinstance(outcome[0], InputError)
    assert "not a regular file (a FIFO)" in str(outcome[0]) and str(fifo) in str(outcome[0])


SERVE = ("--scenario", "serve", "--model", "llama-3.1-8b", "--limit", "3")


def test_the_cli_says_one_line_and_exits_2(tmp_path: Path) -> None:
    path = _write(tmp_path, b"0,100,20\n\xfe\xfe,1,1\n")
    ran = recommend_cli(*SERVE, "--trace", str(path))
    assert ran.returncode == 2
    err = [ln for ln in ran.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and str(path) in err[0] and "line 2" in err[0], err
    assert "Traceback" not in ran.stderr


def test_the_cli_simulates_a_good_trace_on_the_top_rows(tmp_path: Path) -> None:
    import json

    lines = "".join(
        f"{i * 0.05:.2f},{300 + (i % 7) * 50},{50 + (i % 5) * 10}\n" for i in range(400)
    )
    path = _write(tmp_path, lines)
    ran = recommend_cli(*SERVE, "--trace", str(path), "--ttft", "2s", "--tpot", "100ms", "--json")
    assert ran.returncode == 0, ran.stderr
    doc = json.loads(ran.stdout)
    assert doc["workload"]["prompt_len"] == 450 and doc["workload"]["output_len"] == 70
    assert doc["workload"]["rate_per_s"] == pytest.approx(400 / 19.95)
    sims = doc["trace"]["results"]
    assert doc["trace"]["simulated"] is True and 1 <= len(sims) <= 3
    for s in sims:
        assert s["completed"] == s["requests"] == 400 and s["simulated"] is True
        assert 0 < s["ttft_s"]["p50"] <= s["ttft_s"]["p99"]
        assert 0 < s["tpot_s"]["p50"] <= s["tpot_s"]["p99"]
        assert 0.0 <= s["goodput_share"] <= 1.0
    text = recommend_cli(*SERVE, "--trace", str(path))
    assert text.returncode == 0 and "SIMULATED" in text.stdout


def test_a_trace_with_a_training_workload_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD)
    ran = recommend_cli(
        "--scenario", "pretrain", "--params", "7e9", "--tokens", "1e9", "--trace", str(path)
    )
    assert ran.returncode == 2 and "--trace" in ran.stderr
