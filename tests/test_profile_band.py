"""Issue 23: ``recommend --from-profile`` projections carry an error band, as the other
estimates do: the step, the job time and the costs × the 10th–90th percentile of the ratio of
two published runs' held-out errors (:func:`gpuprof.recommend.band.projection_band`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.recommend.band import MIN_ROWS, Residual, projection_band
from gpuprof.telemetry.codec import to_jsonable
from tests.helpers.profiles import a100_job_profile, job_recording

T0 = 1.7e9


def _res(i: str, group: str, arch: str, ratio: float) -> Residual:
    return Residual(i, group, "tuned", arch, 8, ratio)


def test_the_band_is_the_spread_of_pairs_within_a_publication_across_the_same_change() -> None:
    # One publication with runs on both generations: the H100 runs 1.2× slower than estimated
    # where the A100 runs are as estimated, so a projection A100 → H100 is 1.2× optimistic.
    res = tuple(
        [_res(f"a{i}", "p", "Ampere", 1.0) for i in range(3)]
        + [_res(f"h{i}", "p", "Hopper", 1.2) for i in range(3)]
        + [_res("x", "other", "Hopper", 5.0)]  # another publication: never paired across
    )
    up = projection_band("Ampere", "Hopper", res)
    assert up is not None and up.rows == 9 >= MIN_ROWS
    assert up.low == pytest.approx(1.2) and up.high == pytest.approx(1.2)
    assert up.basis == "pairs of one publication's runs on Ampere and Hopper"
    down = projection_band("Hopper", "Ampere", res)
    assert down is not None and down.low == pytest.approx(1 / 1.2)
    # Within one generation: pairs of different runs on it (3 × 2 per generation here).
    same = projection_band("Hopper", "Hopper", res)
    assert same is not None and same.rows == 6 and same.low == same.high == pytest.approx(1.0)
    # A generation without pairs of its own takes the pairs across any change of generation.
    new = projection_band("Ampere", "Blackwell", res)
    assert (
        new is not None and new.basis == "pairs of one publication's runs across a GPU generation"
    )
    assert projection_band("Ampere", "Hopper", ()) is None


def _recording(folder: Path) -> Path:
    """A recording whose job ran 50 steps of 1.0 s on one A100 80GB, 60 % matmul."""
    text = json.dumps(to_jsonable(a100_job_profile("tiny-lm", T0), keep_defaults=True))
    return job_recording(folder / "job.gpuprof", text, end_s=T0 + 60.0)


def test_the_cli_shows_the_projections_band_in_json_and_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuprof.cli import main

    monkeypatch.setenv("GPUPROF_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPUPROF_CONFIG_DIR", str(tmp_path / "config"))
    path = _recording(tmp_path)
    assert main(["recommend", "--from-profile", str(path), "--json", "--limit", "400"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    h100 = [r for r in rows if r["gpu_model"] == "H100 SXM" and r["step_s"] is not None]
    assert h100
    for r in h100:
        assert r["time_ratio_low"] < r["time_ratio_high"]
        assert r["band_basis"] == "pairs of one publication's runs on Ampere and Hopper"
        assert r["job_hours_low"] == pytest.approx(r["job_hours"] * r["time_ratio_low"])
        assert r["step_s_high"] == pytest.approx(r["step_s"] * r["time_ratio_high"])
        if r["cost_ondemand_usd"] is not None:
            low = r["cost_ondemand_usd"] * r["time_ratio_low"]
            assert r["cost_ondemand_usd_low"] == pytest.approx(low)
    # One A100 80GB as here: the projection is the measurement, no band.
    same = [r for r in rows if r["gpu_model"] == "A100 80GB SXM" and r["gpu_count"] == 1]
    for r in same:
        assert r["time_ratio_low"] is None and r["job_hours_low"] is None
    assert main(["recommend", "--from-profile", str(path), "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "error band ×" in out and "10th–90th percentile over" in out
