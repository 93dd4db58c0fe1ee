"""Calibrating the recommender with GEMM results from the results database (issue 5, "Time").

Expected numbers are worked by hand: the H100 SXM spec sheet says 989 dense BF16 TFLOPS, so a
measured best median of 791.2 TFLOPS is 80 % of it; the training base efficiency becomes
0.80 × 45 % (published MFU) ÷ 83 % (typical GEMM ceiling) = 43.373… %.
"""

from __future__ import annotations

import json
import time

import pytest

from gpuprof.bench.base import GemmResult, Result
from gpuprof.bench.results import ResultsDB
from gpuprof.bench.runner import BenchRun, Environment
from gpuprof.cli import main
from gpuprof.recommend.calibrate import (
    calibrations_from_run,
    local_calibrations,
    local_measurements,
    measurements_from_run,
)
from gpuprof.recommend.efficiency import TRAIN_EFFICIENCY
from gpuprof.recommend.memory import model_shape
from gpuprof.recommend.workload import Workload
from tests.fakes.fixtures import bench_case, bench_run, gemm_result
from tests.helpers.cli import train_argv

H100 = "NVIDIA H100 80GB HBM3"
H100_MEM = 85_520_809_984  # bytes, nvidia-smi 81559 MiB
A100 = "NVIDIA A100-SXM4-80GB"


def _gemm(
    dtype: str, size: int, tflops: float, *, status: str = "ok", throttle: tuple[str, ...] = ()
) -> GemmResult:
    return gemm_result(
        f"{dtype} {size}x{size}x{size}",
        tflops,
        dtype=dtype,
        size=size,
        status=status,
        throttle_reasons=throttle,
        iterations=10,
        tflops_max=tflops * 1.01,
    )


def _run(
    run_id: str,
    started_s: float,
    results: list[Result],
    *,
    device: str = "cuda:0",
    gpu: str | None = H100,
    mem: int | None = H100_MEM,
) -> BenchRun:
    env = Environment(
        hostname="here",
        gpu_name=gpu if device != "cpu" else None,
        gpu_memory_total_bytes=mem if device != "cpu" else None,
        cpu_model="Some CPU",
    )
    return bench_run(
        bench_case("gemm", "gemm", *results),
        run_id=run_id,
        device=device,
        started_s=started_s,
        seconds=30,
        only=("gemm",),
        environment=env,
    )


T_OLD = time.mktime((2025, 3, 1, 10, 0, 0, 0, 0, -1))
T_NEW = time.mktime((2025, 3, 2, 11, 0, 0, 0, 0, -1))


def _fill(db: ResultsDB) -> None:
    # Older H100 run: bf16 600 and fp32 50 (the newer run has no fp32, so fp32 comes from here).
    db.save(
        _run("20250301-100000-aaaa", T_OLD, [_gemm("bf16", 4096, 600.0), _gemm("fp32", 4096, 50.0)])
    )
    # Newer H100 run: best median 791.2 at 8192; a failed and a skipped shape are ignored.
    db.save(
        _run(
            "20250302-110000-bbbb",
            T_NEW,
            [
                _gemm("bf16", 4096, 700.0),
                _gemm("bf16", 8192, 791.2, throttle=("sw_power_cap",)),
                _gemm("bf16", 16384, 950.0, status="failed: out of memory"),
                Result(bench="gemm", case="fp8", status="skipped: no FP8"),
            ],
        )
    )
    # Newest of all, but the CPU: ignored.
    db.save(_run("20250303-090000-cccc", T_NEW + 86400, [_gemm("bf16", 1024, 1.5)], device="cpu"))
    # An A100 run (another GPU model in the same database).
    db.save(
        _run(
            "20250301-120000-dddd",
            T_OLD + 7200,
            [_gemm("bf16", 4096, 250.0)],
            gpu=A100,
            mem=85_899_345_920,
        )
    )


def test_run_best_median_per_dtype() -> None:
    run = _run(
        "r1",
        T_NEW,
        [
            _gemm("bf16", 4096, 700.0),
            _gemm("bf16", 8192, 791.2),
            _gemm("bf16", 16384, 950.0, status="failed: x"),
            _gemm("fp16", 4096, 640.0),
        ],
    )
    cals = calibrations_from_run(run)
    assert set(cals) == {"bf16", "fp16"}
    assert cals["bf16"].tflops == 791.2 and cals["bf16"].case == "bf16 8192x8192x8192"
    assert cals["bf16"].gpu_model == "H100 SXM" and cals["bf16"].run_id == "r1"
    assert measurements_from_run(run) == {"H100 SXM": {"bf16": 791.2, "fp16": 640.0}}
    # CPU runs, MIG slices and GPUs the spec table does not know give nothing.
    assert measurements_from_run(_run("c", T_NEW, [_gemm("bf16", 1024, 1.0)], device="cpu")) == {}
    assert (
        measurements_from_run(
            _run("m", T_NEW, [_gemm("bf16", 1024, 100.0)], gpu="NVIDIA A100-SXM4-40GB MIG 3g.20gb")
        )
        == {}
    )
    assert (
        measurements_from_run(_run("u", T_NEW, [_gemm("bf16", 1024, 100.0)], gpu="NVIDIA A16"))
        == {}
    )


def test_local_measurements_newest_run_per_model_and_dtype(tmp_path) -> None:
    db = ResultsDB(tmp_path / "r.sqlite")
    _fill(db)
    assert local_measurements(db) == {
        "H100 SXM": {"bf16": 791.2, "fp32": 50.0},
        "A100 80GB SXM": {"bf16": 250.0},
    }
    assert local_measurements(db, gpu_names=[H100, H100]) == {
        "H100 SXM": {"bf16": 791.2, "fp32": 50.0}
    }
    assert local_measurements(db, gpu_names=["NVIDIA GeForce RTX 4090"]) == {}
    assert local_measurements(db, gpu_names=[]) == {}
    cals = local_calibrations(db, gpu_names=[H100])
    bf16 = cals["H100 SXM"]["bf16"]
    assert bf16.run_id == "20250302-110000-bbbb" and bf16.date == "2025-03-02" and bf16.throttled
    assert bf16.label == "measured here (run 20250302-110000-bbbb, 2025-03-02)"
    assert cals["H100 SXM"]["fp32"].run_id == "20250301-100000-aaaa"


def test_default_database_is_not_created(tmp_path) -> None:
    from gpuprof.paths import results_db_path

    assert local_measurements() == {}
    assert not results_db_path().exists()


def _job(gpu: str, *extra: str) -> list[str]:
    """``gpuprof recommend`` argv: the 1e9-parameter, 1e10-token training job on one ``gpu``."""
    return train_argv("1e9", "1e10", "--gpu", gpu, "--gpus", "1", *extra)


def _recommend_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(_job("H100 SXM", "--precision", "bf16", "--json", *extra)) == 0
    return json.loads(capsys.readouterr().out)


#: The default stack's fitted GEMM share on an H100 (issue 23; was one published 45 %); on an
#: A100 (Ampere, the reference) without the Hopper factor.
GEMM = TRAIN_EFFICIENCY.gemm["tuned"] * TRAIN_EFFICIENCY.generation_share("Hopper")
GEMM_A100 = TRAIN_EFFICIENCY.gemm["tuned"]


def _shown(base: float, peak: float = 989e12, bw: float = 3350e9) -> tuple[float, float]:
    """(efficiency shown, hours) of the 1e9-parameter job on one H100 at matmul share ``base``:
    the matmuls at ``base`` of ``peak`` plus the memory-bound operators' roofline time."""
    w = Workload("pretrain", 1e9, tokens=1e10)
    layers, hidden = model_shape(w)
    matmul = 6 * 1e9 * 1e10 / (peak * base)
    membound = TRAIN_EFFICIENCY.bytes_per_token_layer_hidden * layers * hidden * 1e10
    membound /= bw * 0.70
    run = 1 + TRAIN_EFFICIENCY.run_overhead  # a whole pretraining run (issue 23, fitted)
    return base * matmul / (matmul + membound), (matmul + membound) / 3600 * run


def test_cli_uses_measured_efficiency_when_the_gpu_is_local(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _fill(ResultsDB())  # the default database (GPUPROF_DATA_DIR is private per test)
    published = _recommend_json(capsys)["rows"][0]  # no local GPU here: nothing matches
    assert not published["efficiency_measured"]
    assert published["efficiency"] == pytest.approx(_shown(GEMM)[0])
    measured = _recommend_json(capsys, "--local-gpu", H100)["rows"][0]
    eff = 0.80 * GEMM / 0.83  # 791.2 / 989 = 0.80 of spec; × the fitted share ÷ 83 %
    assert measured["efficiency_measured"]
    assert measured["efficiency"] == pytest.approx(_shown(eff)[0])
    assert measured["efficiency_source"].startswith(
        "measured here (run 20250302-110000-bbbb, 2025-03-02): bf16 GEMM 791 TFLOPS = 80% of spec 989"
    )
    assert measured["hours"] == pytest.approx(_shown(eff)[1])
    assert published["hours"] == pytest.approx(_shown(GEMM)[1])
    assert any(measured["efficiency_source"] in r for r in measured["reasons"])
    # The local row (this machine) is calibrated the same way.
    local = _recommend_json(capsys, "--local-gpu", f"{H100}x2")["local"]
    assert local["efficiency_measured"] and local["efficiency_source"].startswith(
        "measured here (run"
    )
    # Opting out gives the published number back.
    off = _recommend_json(capsys, "--local-gpu", H100, "--no-measured")["rows"][0]
    assert not off["efficiency_measured"] and off["efficiency"] == pytest.approx(_shown(GEMM)[0])
    # --measured for the same GPU and dtype wins over the database, without a run label.
    manual = _recommend_json(capsys, "--local-gpu", H100, "--measured", "H100 SXM:bf16=494.5")[
        "rows"
    ][0]
    assert manual["efficiency"] == pytest.approx(_shown(0.5 * GEMM / 0.83)[0])
    assert manual["efficiency_source"].startswith("measured here: bf16 GEMM")


def test_cli_fp32_workload_uses_the_older_fp32_run(capsys: pytest.CaptureFixture[str]) -> None:
    _fill(ResultsDB())
    row = _recommend_json(capsys, "--local-gpu", H100, "--precision", "fp32")["rows"][0]
    # 50 / 67 of the FP32 spec; the newest run had no fp32, so the 2025-03-01 one counts.
    assert row["efficiency"] == pytest.approx(_shown(50 / 67 * GEMM / 0.83, 67e12)[0])
    assert "run 20250301-100000-aaaa, 2025-03-01" in row["efficiency_source"]


def test_cli_table_says_which_run(capsys: pytest.CaptureFixture[str]) -> None:
    _fill(ResultsDB())
    assert main(_job("H100 SXM", "--local-gpu", H100)) == 0
    out = capsys.readouterr().out
    assert "H100 SXM: bf16 GEMM 791.2 TFLOPS, measured here (run 20250302-110000-bbbb" in " ".join(
        out.split()
    )


def test_cli_detects_local_gpus_with_nvml(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gpuprof.commands.recommend.local as cmd

    _fill(ResultsDB())
    monkeypatch.setattr(cmd, "local_gpu_names", lambda text: [A100] if text is None else [text])
    assert main(_job("A100-80GB", "--json")) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["efficiency"] == pytest.approx(
        _shown(250 / 312 * GEMM_A100 / 0.83, 312e12, 2039e9)[0]
    )
    assert "run 20250301-120000-dddd" in row["efficiency_source"]
