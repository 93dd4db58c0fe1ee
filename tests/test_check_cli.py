"""``gpuprof check`` end to end on the CPU (a real, short run), and its GPU acceptance test."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gpuprof.check.reference import Reference, reference_file_dict
from tests.faults.hostile import gpuprof_env, run_gpuprof


@pytest.mark.slow
def test_cpu_quick_check_end_to_end(tmp_path: Path) -> None:
    out, html, ref = tmp_path / "c.json", tmp_path / "c.html", tmp_path / "golden.json"
    ran = run_gpuprof(
        [
            "check",
            "--device",
            "cpu",
            "--level",
            "quick",
            "--json",
            str(out),
            "--html",
            str(html),
            "--save-reference",
            str(ref),
        ],
        tmp_path,
    )
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema"] == "gpuprof.check" and data["device"] == "cpu"
    assert ran.returncode == data["exit_code"] == {"PASS": 0, "FAIL": 1, "WARN": 3}[data["verdict"]]
    by = {i["item_id"]: i for i in data["items"]}
    # What a CPU can do ran for real, three times; with nothing published for a CPU and no
    # golden file it is measured, not graded (it was once graded against its own best run).
    margin = round(1 - data["thresholds"]["pass"], 9)
    for item_id in ("perf.gemm_fp32", "perf.memcpy_host"):
        item = by[item_id]
        assert item["status"] == "INFO" and item["measured"] > 0, item
        assert item["expected"] is None and item["ratio"] is None and item["source"] == ""
        # Three runs; on a machine too busy for a case in one of them, fewer.
        runs = item["runs"]
        assert 1 <= len(runs) <= 3 and min(runs) <= item["measured"] <= max(runs)
        if len(runs) >= 2:
            spread = (max(runs) - min(runs)) / item["measured"]
            assert item["spread"] == pytest.approx(spread, rel=1e-3, abs=1e-4)
        assert "no reference for this CPU" in item["reason"]
    # The host memory test is gpuprof.check.memtest's (another module); without it, a reason.
    memtest = importlib.util.find_spec("gpuprof.check.memtest") is not None
    assert by["diag.memtest"]["status"] == ("PASS" if memtest else "SKIP"), by["diag.memtest"]
    assert by["inventory"]["status"] == by["health"]["status"] == "SKIP"
    assert by["diag.burnin"]["status"] == "SKIP" and by["diag.burnin"]["reason"]
    assert "verdict:" in ran.stdout and "perf.gemm_fp32" in ran.stdout
    page = html.read_text(encoding="utf-8")
    assert "perf.gemm_fp32" in page and data["verdict"] in page
    # A golden file keeps the values whose runs agreed; a noisy one is left out, and said so
    # (how noisy this machine is now decides which, not the test).
    golden = json.loads(ref.read_text(encoding="utf-8"))
    steady = {
        k[5:]
        for k in ("perf.gemm_fp32", "perf.memcpy_host")
        if len(by[k]["runs"]) >= 2 and by[k]["spread"] <= margin
    }
    assert {r["metric"] for r in golden["rows"]} == steady
    for item_id in {"perf.gemm_fp32", "perf.memcpy_host"} - {f"perf.{m}" for m in steady}:
        assert (
            f"{item_id}: not saved as a reference: too few of its runs, or too noisy" in ran.stderr
        )

    # A golden file as the reference (values this CPU beats), and thresholds loose enough that
    # a busy CPU passes: graded now, or too noisy even for a 99% margin, never a WARN or FAIL.
    mine = tmp_path / "mine.json"
    rows = [
        Reference("CPU", "gemm_fp32", 1e-6, "TFLOPS", "golden", "a test"),
        Reference("CPU", "memcpy_host", 1e-3, "GB/s", "golden", "a test"),
    ]
    mine.write_text(json.dumps(reference_file_dict(rows, machine="node-a", date="2026-01-01")))
    loose = tmp_path / "loose.json"
    loose.write_text('{"pass": 0.01, "warn": 0.005}')
    again = run_gpuprof(
        [
            "check",
            "--device",
            "cpu",
            "--reference",
            str(mine),
            "--thresholds",
            str(loose),
            "--json",
            "-",
        ],
        tmp_path,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    second = json.loads(again.stdout)
    gemm = next(i for i in second["items"] if i["item_id"] == "perf.gemm_fp32")
    assert gemm["source"].startswith("golden") and gemm["expected"] == 1e-6
    assert gemm["status"] == "PASS" or "too noisy to grade" in gemm["reason"], gemm
    assert second["thresholds"] == {"pass": 0.01, "warn": 0.005}


@pytest.mark.gpu
def test_gpu_quick_check(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    ran = run_gpuprof(["check", "--level", "quick", "--json", str(out)], tmp_path)
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert ran.returncode == data["exit_code"]
    ids = {i["item_id"] for i in data["items"]}
    assert "inventory.gpu_count" in ids and "perf.gemm_bf16" in ids and "diag.memtest" in ids
    assert all(i["source"] for i in data["items"] if i["item_id"].startswith("perf.gemm"))


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_done_and_exits_130(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "c.json"
    env = gpuprof_env(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuprof", "check", "--device", "cpu", "--json", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    proc.stderr.readline()  # "no GPU checked: CPU only …": the check is about to start
    time.sleep(1.0)  # into the measurements (they take seconds on any CPU), not a timing test
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr
    data = json.loads(out.read_text(encoding="utf-8"))  # what was done is reported
    assert data["cancelled"] and data["exit_code"] == 130
    assert data["verdict"] == "INCOMPLETE"  # not PASS: what did not run did not pass
    assert any(i["reason"] == "cancelled" for i in data["items"])
    assert "cancelled" in stdout and "verdict: INCOMPLETE (exit code 130)" in stdout
