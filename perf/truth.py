"""The recommender against published runs (issue 16, "Truth"); prints JSON.

For each row of ``tests/data/published_runs.csv`` it asks ``gpuprof recommend`` (the CLI, one
configuration: ``--gpu G --gpus N``) for the same model, precision, sequence length, batch and
tokens, turns the estimate into the row's metric (tokens/s per GPU, or GPU-hours) and prints the
estimate, the published value and the error. The same model explains every row: no per-row
constant. Goals: training median |error| <= 10 % and every row within +-25 %.

Usage: ``python perf/truth.py [--csv PATH]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "tests" / "data" / "published_runs.csv"


def rows(path: Path) -> list[dict[str, str]]:
    lines = [ln for ln in path.read_text("utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines))


def estimate(row: dict[str, str]) -> float:
    args = [
        sys.executable,
        "-m",
        "gpuprof",
        "recommend",
        "--scenario",
        "pretrain" if row["kind"] == "train" else "inference",
        "--precision",
        row["precision"],
        "--seq-len",
        row["seq_len"],
        "--batch",
        row["batch"],
        "--tokens",
        row["tokens"],
        "--gpu",
        row["gpu"],
        "--gpus",
        row["gpus"],
        "--json",
    ]
    args += ["--model", row["model"]] if row["model"] else ["--params", row["params"]]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{row['id']}: {done.stderr.strip()}")
    best = json.loads(done.stdout)["rows"][0]
    hours, gpus = float(best["hours"]), float(best["gpus_total"])
    if row["metric"] == "gpu_hours":
        return hours * gpus
    if row["metric"] == "tokens_per_s":  # the whole configuration (batch-1 decode)
        return float(row["tokens"]) / (hours * 3600.0)
    return float(row["tokens"]) / (hours * 3600.0 * gpus)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", type=Path, default=CSV)
    a = ap.parse_args()
    out = []
    for row in rows(a.csv):
        est = estimate(row)
        pub = float(row["published"])
        out.append(
            {
                "id": row["id"],
                "kind": row["kind"],
                "metric": row["metric"],
                "estimate": round(est, 1),
                "published": pub,
                "error_pct": round((est - pub) / pub * 100.0, 1),
            }
        )
    train = [abs(r["error_pct"]) for r in out if r["kind"] == "train"]
    infer = [abs(r["error_pct"]) for r in out if r["kind"] != "train"]
    summary = {
        "train_median_abs_error_pct": round(statistics.median(train), 1) if train else None,
        "train_max_abs_error_pct": max(train) if train else None,
        "infer_max_abs_error_pct": max(infer) if infer else None,
        "goal_train_median_le_10": bool(train) and statistics.median(train) <= 10.0,
        "goal_train_all_within_25": bool(train) and max(train) <= 25.0,
        "goal_infer_all_within_30": (max(infer) <= 30.0) if infer else None,
    }
    print(json.dumps({"rows": out, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
