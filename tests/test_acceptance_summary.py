"""scripts/acceptance_summary.py on a real (CPU, tiny) benchmark run's JSON and a fidelity JSON."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from gpuprof.bench.runner import Case

ROOT = Path(__file__).resolve().parents[1]


def _summary_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "acceptance_summary", ROOT / "scripts" / "acceptance_summary.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def cpu_run_json(monkeypatch, tmp_path) -> Path:
    from gpuprof.bench import runner
    from gpuprof.bench.gemm import gemm_bench
    from gpuprof.bench.memory import MiB, memory_bench
    from gpuprof.cli import main

    def plan(device, suite, only=None):
        return [
            Case(
                "gemm", "gemm fp32", gemm_bench("fp32", [("", 64, 64, 64), ("", 128, 128, 128)]), 10
            ),
            Case("memory", "memory host", memory_bench("host", [MiB, 2 * MiB]), 10),
        ]

    monkeypatch.setattr(runner, "plan_cases", plan)
    out = tmp_path / "run.json"
    assert main(["bench", "--device", "cpu", "--json", str(out)]) == 0
    return out


def test_run_summary_picks_the_best_gemm_and_the_largest_copy(cpu_run_json, capsys):
    doc = json.loads(cpu_run_json.read_text())
    gemm = [r for c in doc["cases"] for r in c["results"] if r["type"] == "GemmResult"]
    best = max(gemm, key=lambda r: r["tflops_median"])
    lines = _summary_module().summarize_run(doc)
    assert lines[0].startswith(f"run {doc['run_id']} state success")
    (gemm_line,) = [line for line in lines if line.startswith("GEMM")]
    assert f"{best['tflops_median']:8.2f} TFLOPS at {best['case']}" in gemm_line
    assert "peak unknown" in gemm_line  # a CPU has no spec peak: left blank, never guessed
    (mem_line,) = [line for line in lines if line.startswith("memory")]
    assert "host 2 MiB" in mem_line and "verified=True" in mem_line
    assert lines[-1] == "results 4/4 ok; measured while throttled: 0"


FIDELITY_GPU = {
    "device": "cuda:0",
    "gemm": [
        {"dtype": "bf16", "n": 4096, "ratio": 1.012, "within_5pct": True},
        {"dtype": "fp32", "n": 8192, "ratio": 0.93, "within_5pct": False},
    ],
    "host_copy": None,
    "bf16_8192_vs_spec_peak": {
        "tflops_median": 700.0,
        "peak_tflops": 989.4,
        "pct_of_peak": 70.7,
        "meets_75pct": False,
    },
    "h2d_pinned": {
        "size_bytes": 256 << 20,
        "ours_bytes_s_median": 53.1e9,
        "ratio_to_plain_loop": 0.998,
        "nvbandwidth_host_to_device_memcpy_ce_gb_s": 53.6,
        "ratio_to_nvbandwidth": 0.991,
        "within_5pct_of_nvbandwidth": True,
    },
    "mamf_finder": {
        "mamf_statistic": "median",
        "mamf_tflops": 742.9,
        "shape": "11264x4096x4096",
        "ratio": 0.96,
        "within_3pct": False,
    },
}


def test_fidelity_summary_states_each_verdict():
    lines = _summary_module().summarize_fidelity(FIDELITY_GPU)
    assert "accuracy GEMM bf16 4096: ours/torch.utils.benchmark = 1.012 (within 5%)" in lines
    assert "accuracy GEMM fp32 8192: ours/torch.utils.benchmark = 0.930 (OUTSIDE 5%)" in lines
    assert any("71% of spec 989.4" in line and "NOT met" in line for line in lines)
    assert "accuracy H2D vs nvbandwidth 53.6 GB/s: ratio 0.991 (within 5%)" in lines
    assert any(
        "mamf-finder median 742.9 TFLOPS @ 11264x4096x4096: ratio 0.960 (OUTSIDE 3%)" in line
        for line in lines
    )


def test_main_reports_a_corrupt_file_by_name_and_still_summarizes_the_other(
    cpu_run_json, tmp_path, capsys
):
    broken = tmp_path / "fidelity.json"
    broken.write_text('{"gemm": [')
    assert _summary_module().main(["--run", str(cpu_run_json), "--fidelity", str(broken)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("run ")
    assert f"{broken}: cannot summarize (JSONDecodeError" in out
