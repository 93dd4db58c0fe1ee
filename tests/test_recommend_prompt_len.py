"""``gpuprof recommend --prompt-len N``: prefill costed apart from decode (issue 16)."""

from __future__ import annotations

import json

import pytest

from gpuprof.cli import main

BASE = [
    "recommend",
    "--scenario",
    "inference",
    "--model",
    "llama-2-7b",
    "--tokens",
    "1e6",
    "--seq-len",
    "256",
    "--batch",
    "1",
    "--gpu",
    "A100-80GB",
    "--gpus",
    "1",
    "--json",
]


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main([*BASE, *extra]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_prompt_len_adds_the_prefill_time(capsys: pytest.CaptureFixture[str]) -> None:
    base = _run(capsys)
    more = _run(capsys, "--prompt-len", "56")
    assert more["workload"]["prompt_len"] == 56  # type: ignore[index]
    (r0,) = base["rows"]  # type: ignore[misc]
    (r1,) = more["rows"]  # type: ignore[misc]
    # Prompt 56 → 256 − 56 = 200 tokens generated per sequence → 1e6 / 200 = 5000 prefills of
    # 2 × 6.74e9 × 56 FLOPs at 312 TFLOPS × 50 % = 156e12 FLOP/s: 4.839 ms each, +24.195 s on
    # one GPU (no all-reduces). The decode steps are the same 1e6, each reading the KV cache at
    # its mean length, (256 + 56) / 2 = 156 tokens, not 128: 28 × 524,288 B more at
    # 2,039 GB/s × 70 %: +10.285 s.
    extra_s = (r1["hours"] - r0["hours"]) * 3600
    prefill = 5000 * 2 * 6.74e9 * 56 / 156e12
    decode = 1e6 * 28 * 524_288 / (2039e9 * 0.70)
    assert extra_s == pytest.approx(prefill + decode, rel=1e-6)


def test_prompt_len_at_or_over_the_sequence_is_one_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*BASE, "--prompt-len", "256"]) == 2
    err = capsys.readouterr().err.strip()
    assert "prompt_len" in err and "\n" not in err


def test_prompt_len_with_training_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["recommend", "--scenario", "pretrain", "--params", "7e9", "--tokens", "1e9"]
    assert main([*args, "--prompt-len", "16"]) == 2  # it would be ignored silently
    err = capsys.readouterr().err.strip()
    assert "--prompt-len" in err and "inference" in err and "\n" not in err
