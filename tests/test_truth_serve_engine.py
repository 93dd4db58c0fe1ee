"""perf/truth.py asks the serving model the question the engine's benchmark ran (issue 22):
trtllm-bench caps the engine's batch at 4,096 sequences (tensorrt_llm/bench/build/tuning.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _truth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truth_serve_probe", ROOT / "perf" / "truth.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(**over: str) -> dict[str, str]:
    row = {
        "id": "x",
        "kind": "serve",
        "model": "mixtral-8x7b",
        "gpu": "H200",
        "gpus": "8",
        "precision": "fp8",
        "batch": "",
        "prompt_len": "128",
        "output_len": "2048",
        "kv_admission": "reserve",
        "attention_kernel": "grouped",
        "group": "trtllm-v0.17",
        "source": "TensorRT-LLM v0.17 perf-overview",
        "metric": "output_tokens_per_s",
    }
    row.update(over)
    return row


def _run(monkeypatch: pytest.MonkeyPatch, row: dict[str, str]) -> tuple[list[str], float]:
    truth = _truth()
    seen: list[list[str]] = []

    def fake_run(args: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(list(args))
        layout = {"tp": 8, "pp": 1, "ep": 8, "batch_best": 1, "batch_max": 1, "bound": "compute"}
        serving = {"capacity_tokens_per_s_per_instance": 1.0, "ttft_p50_s": 0.025, **layout}
        body = {"rows": [{"serving": serving}]}
        return subprocess.CompletedProcess(args, 0, json.dumps(body), "")

    monkeypatch.setattr(truth.subprocess, "run", fake_run)
    value, _ = truth.estimate_serve(row)
    return seen[0], value


def _args(monkeypatch: pytest.MonkeyPatch, row: dict[str, str]) -> list[str]:
    return _run(monkeypatch, row)[0]


def test_a_time_to_first_token_row_reads_the_ttft_in_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(monkeypatch, _row(metric="output_tokens_per_s"))[1] == 1.0
    args, value = _run(monkeypatch, _row(metric="ttft_ms", batch="1", output_len="1"))
    assert value == pytest.approx(25.0)
    assert args[args.index("--batch") + 1] == "1"
    # a time: a time ratio of published / estimated
    assert _truth()._time_ratio("ttft_ms", 25.0) == pytest.approx(1 / 1.25)


def _batch_flag(monkeypatch: pytest.MonkeyPatch, row: dict[str, str]) -> str | None:
    args = _args(monkeypatch, row)
    return args[args.index("--batch") + 1] if "--batch" in args else None


def test_a_row_runs_with_its_engines_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    args = _args(monkeypatch, _row(sampler="decoder"))
    assert args[args.index("--sampler") + 1] == "decoder"
    assert "--sampler" not in _args(monkeypatch, _row(sampler=""))  # the default, argmax


def test_trtllm_bench_rows_run_at_its_batch_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _batch_flag(monkeypatch, _row(group="trtllm-perf-overview")) == "4096"
    # v0.17's perf-overview sent 3,000 requests at 128/2048, 30,000 at 128/128: the engine
    # holds at most that many, and never more than its 4,096.
    assert _batch_flag(monkeypatch, _row()) == "3000"
    assert _batch_flag(monkeypatch, _row(prompt_len="5000", output_len="500")) == "1500"
    assert _batch_flag(monkeypatch, _row(prompt_len="128", output_len="128")) == "4096"
    # Lengths the table does not list keep the engine's own cap.
    assert _batch_flag(monkeypatch, _row(prompt_len="64", output_len="64")) == "4096"


def test_a_stated_batch_wins_and_other_engines_pick_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _batch_flag(monkeypatch, _row(group="trtllm-v0.6.1", batch="64")) == "64"
    assert _batch_flag(monkeypatch, _row(group="trtllm-v0.17", batch="256")) == "256"
    assert _batch_flag(monkeypatch, _row(group="vllm-something")) is None


@pytest.mark.slow
def test_the_cap_binds_only_where_the_kv_cache_holds_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mixtral 8x7B TP8 at 128/2048: the H200's cache holds ~7,300 sequences (a 4,096 cap
    binds), the H100's ~4,000 (it does not); the estimate moves only where it binds."""
    truth = _truth()
    est = {}
    for gpu in ("H200", "H100 SXM"):
        for group in ("trtllm-perf-overview", "vllm-something"):
            tokens, layout = truth.estimate_serve(_row(gpu=gpu, group=group))
            est[gpu, group] = (tokens, layout["batch_max"])
    assert est["H200", "trtllm-perf-overview"][1] == 4096 < est["H200", "vllm-something"][1]
    assert est["H200", "trtllm-perf-overview"][0] < est["H200", "vllm-something"][0]
    assert est["H100 SXM", "trtllm-perf-overview"] == est["H100 SXM", "vllm-something"]
    tokens, layout = truth.estimate_serve(_row(gpu="H100 SXM"))
    assert layout["batch_max"] == 3000 and tokens < est["H100 SXM", "vllm-something"][0]
