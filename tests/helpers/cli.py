"""``gpuprof`` run as a user would, in a child process."""

from __future__ import annotations

import subprocess
import sys


def recommend_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m gpuprof recommend ARGS`` in a bare environment: English, PATH /usr/bin:/bin
    and nothing else (no GPU tools, no local GPU row, no user settings), 250 columns (rich folds
    no table cell)."""
    return subprocess.run(
        [sys.executable, "-m", "gpuprof", "recommend", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"GPUPROF_LANG": "en", "PATH": "/usr/bin:/bin", "COLUMNS": "250"},
    )


#: Issue 22's serving question as ``recommend`` arguments: Llama-3-70B at 5000 output tokens/s,
#: 1000-token prompts, 200-token answers.
SERVE_LLAMA_70B = (
    "--scenario",
    "serve",
    "--model",
    "llama-3-70b",
    "--throughput",
    "5000",
    "--prompt-len",
    "1000",
    "--output-len",
    "200",
)


def train_argv(params: str, tokens: str, *extra: str) -> list[str]:
    """``recommend --scenario train --params PARAMS --tokens TOKENS EXTRA...`` (the argv of
    ``gpuprof.cli.main`` or of :func:`recommend_cli` after its ``recommend``)."""
    return ["recommend", "--scenario", "train", "--params", params, "--tokens", tokens, *extra]
