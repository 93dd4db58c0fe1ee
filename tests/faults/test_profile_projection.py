"""Hostile job profiles through ``gpuprof recommend --from-profile`` and ``gpuprof report``.

A job profile is read back from a recording, which is outside input: the codec reads ``null``
into a plain ``float`` field, ``"nan"`` as NaN, ``3.5`` into an ``int``; a damaged or hostile
file holds anything. Every reader of a job profile goes through one repair
(:func:`gpuprof.profile.sane.sane_profile`, applied by ``read_job_profile``), so the projection
and the report do arithmetic on numbers only: each hostile profile below gives a table, strict
JSON and a report, or one clear error naming the file; never a traceback, a NaN or markup.
Unusable files (:func:`~tests.faults.hostile.hostile_files`) and a recording of no job get one
line naming the file, exit 2.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuprof.jsonout import loads_strict
from gpuprof.profile.model import (
    JobProfile,
)
from gpuprof.profile.sane import sane_profile
from gpuprof.profile.storage import read_job_profile
from gpuprof.telemetry.codec import to_jsonable
from tests.faults.hostile import assert_one_clear_error, hostile_files, run_gpuprof, set_at
from tests.helpers.profiles import a100_job_profile, job_recording

T0 = 1.7e9
EVIL = "\x1b[31mred\x1b[0m [bold]b[/] <script>x</script> \u202eevil"


def _good() -> dict[str, Any]:
    data: dict[str, Any] = to_jsonable(a100_job_profile("train", T0), keep_defaults=True)
    return data


def _all(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for c in changes:
            c(d)

    return change


#: Profiles that read (repaired): each must give a table, strict JSON and a report.
READABLE: dict[str, Callable[[dict[str, Any]], None]] = {
    "nulls-in-required-floats": _all(
        set_at("phases.0.end_s", None),
        set_at("breakdown.total_s", None),
        set_at("gpu_seconds", None),
        set_at("breakdown.shares.0.time_s", None),
    ),
    "nan-and-inf-strings": _all(
        set_at("steps.p50_s", "nan"),
        set_at("steps.mean_s", "inf"),
        set_at("gpus.0.util_gpu_mean_pct", "-inf"),
        set_at("gpus.0.energy_j", "nan"),
        set_at("breakdown.shares.0.share_pct", "inf"),
    ),
    "huge-numbers": _all(
        set_at("steps.p50_s", 1e300),
        set_at("gpu_seconds", 1e308),
        set_at("gpus.0.job_mem_peak_bytes", 1e30),
        set_at("steps.count", 1e20),
        set_at("steps.tokens_per_s", 1e308),
    ),
    "negative-numbers": _all(
        set_at("steps.p50_s", -1.0),
        set_at("steps.mean_s", -1.0),
        set_at("steps.count", -5),
        set_at("gpus.0.job_mem_peak_bytes", -(2**40)),
        set_at("breakdown.shares.0.share_pct", -60.0),
    ),
    "fractional-counts": _all(set_at("steps.count", 2.5), set_at("gpus.0.index", 0.5)),
    "hostile-text": _all(
        set_at("name", EVIL),
        set_at("gpus.0.name", EVIL),
        set_at("command", [EVIL, "--password=hunter2"]),
        set_at("notes", [EVIL]),
    ),
    "gpu-names-that-are-no-gpu": _all(set_at("gpus.0.name", "GRID A100-4C"), set_at("steps", None)),
    "floats-as-text": _all(set_at("steps.p50_s", "1.0"), set_at("phases.0.start_s", "1.7e9")),
}
#: Profiles that cannot be read: the recording is then one of no job (one clear error).
UNREADABLE: dict[str, Callable[[dict[str, Any]], None] | str] = {
    "empty-object": lambda d: d.clear(),
    "name-is-a-number": set_at("name", 5),
    "times-are-null": _all(set_at("started_s", None), set_at("ended_s", None)),
    "a-count-is-null": set_at("steps.count", None),
    "a-word-for-a-number": set_at("phases.0.start_s", "soon"),
    "not-json": "{{{",
    "a-list": "[1, 2, 3]",
    "deeply-nested": "[" * 100_000 + "]" * 100_000,
}


def _recording(folder: Path, name: str, text: str | None) -> Path:
    """A closed recording of SIMULATED snapshots with ``text`` as its job profile's meta row."""
    return job_recording(folder / f"{name}.gpuprof", text, end_s=T0 + 60.0)


def _profile_text(change: Callable[[dict[str, Any]], None] | str) -> str:
    if isinstance(change, str):
        return change
    data = copy.deepcopy(_good())
    change(data)
    return json.dumps(data)


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from gpuprof.cli import main

    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(autouse=True)
def _raise_unexpected(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # In-process, an unexpected exception must fail the test, not become a polite line.
    monkeypatch.setenv("GPUPROF_DEBUG", "1")
    monkeypatch.setenv("GPUPROF_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPUPROF_CONFIG_DIR", str(tmp_path / "config"))


@pytest.mark.parametrize("name", list(READABLE))
@pytest.mark.slow
def test_a_hostile_profile_is_repaired_and_projected(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, name, _profile_text(READABLE[name]))
    profile = read_job_profile(path)
    assert profile is not None and sane_profile(profile) is profile  # repaired once, on read
    rc, out, err = _main(["recommend", "--from-profile", str(path), "--limit", "5"], capsys)
    assert rc == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "hunter2" not in out
    assert "nan" not in out.lower().replace("nano", "") and "inf " not in out.lower()
    rc, out, err = _main(["recommend", "--from-profile", str(path), "--json"], capsys)
    assert rc == 0, err
    data = loads_strict(out)  # NaN or Infinity would raise here
    assert data["rows"] and all(r["derivation"] for r in data["rows"])
    for fmt in ("html", "json"):
        out_file = tmp_path / f"r.{fmt}"
        rc, _, err = _main(["report", "--session", str(path), "--out", str(out_file)], capsys)
        assert rc == 0, err
        text = out_file.read_text("utf-8")
        assert "hunter2" not in text and "\u202e" not in text and "\x1b" not in text
        if fmt == "json":
            assert loads_strict(text)["job"] is not None
        else:
            assert "<script>" not in text and "Job profile" in text


@pytest.mark.parametrize("name", list(UNREADABLE))
@pytest.mark.slow
def test_an_unreadable_profile_is_a_recording_of_no_job(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, name, _profile_text(UNREADABLE[name]))
    rc, out, err = _main(["recommend", "--from-profile", str(path)], capsys)
    assert rc == 2 and out == ""
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and str(path) in errors[0] and "no job profile" in errors[0], err
    out_file = tmp_path / "r.html"
    rc, _, err = _main(["report", "--session", str(path), "--out", str(out_file)], capsys)
    assert rc == 0, err  # the snapshots still make a report, without the section
    assert '<h2 id="job"' not in out_file.read_text("utf-8")


@pytest.mark.slow
def test_a_recording_of_no_job_is_one_clear_error(tmp_path: Path) -> None:
    path = _recording(tmp_path, "plain", None)
    ran = run_gpuprof(["recommend", "--from-profile", str(path)], tmp_path)
    assert_one_clear_error(ran, str(path))
    assert "no job profile" in ran.stderr


@pytest.mark.parametrize(
    "name",
    [
        "empty",
        "truncated",
        "random-bytes",
        "nul-bytes",
        "a-folder",
        "missing",
        "newer-version",
        "foreign-sqlite",
    ],
)
@pytest.mark.slow
def test_an_unusable_file_is_one_clear_error_naming_it(name: str, tmp_path: Path) -> None:
    path = hostile_files(tmp_path / "in")[name]
    ran = run_gpuprof(["recommend", "--from-profile", str(path), "--json"], tmp_path)
    assert_one_clear_error(ran, str(path))
    assert ran.stdout == ""


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        (["--steps", "10", "--tokens", "1e9"], "--steps or --tokens"),
        (["--scenario", "pretrain", "--params", "7B"], "--scenario, --params"),
        (["--gpu", "H100", "--gpus", "8"], "--gpu, --gpus"),
        (["--tokens", "1e9"], "tokens"),  # the profile counts none
    ],
)
@pytest.mark.slow
def test_flags_that_do_not_go_with_a_profile_are_one_clear_error(
    extra: list[str], names: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _profile_text(set_at("steps.tokens_per_s", None))
    path = _recording(tmp_path, "job", text)
    rc, out, err = _main(["recommend", "--from-profile", str(path), *extra], capsys)
    assert rc == 2 and out == ""
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and names in errors[0], err


#: recommend's options that do not describe the workload (or go with --from-profile; --currency
#: and --fx-rate are refused with it by recommend's run itself)
NOT_WORKLOAD = {
    "help", "models_file", "list_models", "tokens", "spot", "provider", "objective",
    "no_measured", "from_profile", "steps", "limit", "json", "measured", "currency", "fx_rate",
}  # fmt: skip


def test_every_workload_flag_is_refused_with_a_profile() -> None:
    """A new recommend flag that describes the workload must be refused with --from-profile
    (it would be ignored silently otherwise): listed in WORKLOAD_FLAGS or here on purpose."""
    import argparse

    from gpuprof.cli import build_parser
    from gpuprof.commands.recommend.profile import WORKLOAD_FLAGS

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    dests = {a.dest for a in sub.choices["recommend"]._actions}
    listed = {dest for dest, _ in WORKLOAD_FLAGS}
    assert dests - NOT_WORKLOAD == listed


@pytest.mark.parametrize("extra", [["--prompt-len", "16"], ["--model", "llama-2-7b"]])
def test_newer_workload_flags_are_refused_with_a_profile(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, "job", json.dumps(_good()))
    rc, out, err = _main(["recommend", "--from-profile", str(path), *extra], capsys)
    assert rc == 2 and out == "" and extra[0] in err, err


@pytest.mark.slow
def test_steps_without_a_profile_is_one_clear_error(tmp_path: Path) -> None:
    ran = run_gpuprof(["recommend", "--preset", "cv-train", "--steps", "5"], tmp_path)
    assert_one_clear_error(ran, "--from-profile")


def test_sane_profile_keeps_a_good_profile_as_it_is() -> None:
    from gpuprof.telemetry.codec import from_jsonable

    good = from_jsonable(JobProfile, _good())
    assert sane_profile(good) is good


@pytest.mark.parametrize(
    "change",
    [
        _all(set_at("gpus", []), set_at("gpu_indices", []), set_at("breakdown", None)),
        # Issue 23: 2.47 s CPU steps with FLOPs and a CPU breakdown, FP32 declared: once
        # scaled by peak ratios into 0.005 ms steps and $0.00 rows.
        _all(
            set_at("gpus", []),
            set_at("gpu_indices", []),
            set_at("steps.p50_s", 2.47),
            set_at("steps.mean_s", 2.47),
            set_at("steps.achieved_tflops", 0.02),
            set_at("steps.mfu_dtype", "fp32"),
            set_at("breakdown.device", "cpu"),
        ),
    ],
    ids=["without-flops", "with-flops"],
)
def test_a_cpu_profile_is_refused_for_projection_with_one_clear_line(
    change: Callable[[dict[str, Any]], None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _recording(tmp_path, "cpu", _profile_text(change))
    for extra in ([], ["--json"]):
        rc, out, err = _main(["recommend", "--from-profile", str(path), *extra], capsys)
        assert rc == 2 and out == "" and "$0.00" not in err
        errors = [line for line in err.splitlines() if line.strip()]
        assert len(errors) == 1 and str(path) in errors[0] and "profiled on the CPU" in errors[0]
    # The report of the same recording still works (nothing is projected there).
    rc, _, err = _main(
        ["report", "--session", str(path), "--out", str(tmp_path / "r.json")], capsys
    )
    assert rc == 0, err
