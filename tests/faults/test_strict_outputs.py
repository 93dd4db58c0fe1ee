"""Strict, honest outputs: every ``--json`` is strict JSON, unknown is null with a reason, and
simulated and real never mix silently (replays, reports, the exporter, a machine without a
driver, the Health tab with no GPU). ``bench`` without torch says how to get it.

Every JSON output is read with a strict parser (``NaN``/``Infinity`` refused, as jq and
JavaScript refuse them); a new ``--json`` output gets a row in :data:`JSON_OUTPUTS`.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.faults.hostile import (
    GOOD_RESULTS,
    GOOD_SESSION,
    ROOT,
    TIMEOUT_S,
    assert_one_clear_error,
    gpuprof_env,
    run_gpuprof,
)


def strict_loads(text: str) -> Any:
    """``json.loads`` as strict readers parse: NaN, Infinity and -Infinity are errors."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _home(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir(exist_ok=True)
    shutil.copyfile(GOOD_RESULTS, tmp_path / "data" / "results.sqlite")
    return tmp_path


#: Every JSON output: name -> (arguments, the file it writes or None for standard output,
#: whether the output is JSON lines).
JSON_OUTPUTS: dict[str, tuple[list[str], str | None, bool]] = {
    "devices --demo": (["devices", "--json", "--demo"], None, False),
    "devices (this machine)": (["devices", "--json"], None, False),
    "monitor --once": (["monitor", "--json", "--once", "--demo"], None, False),
    "monitor (stream)": (
        ["monitor", "--json", "--count", "2", "--demo", "--interval", "0.1"],
        None,
        True,
    ),
    "replay": (["replay", "--json", str(GOOD_SESSION)], None, True),
    "catalog list": (["catalog", "list", "--json"], None, False),
    "catalog gpus": (["catalog", "gpus", "--json"], None, False),
    "bench show": (["bench", "show", "latest", "--json", "-"], None, False),
    "report json (demo)": (["report", "--demo", "--out", "r.json"], "r.json", False),
    "report json (session, recommendation)": (
        ["report", "--session", str(GOOD_SESSION), "--recommend", "llm-100b-train"],
        "r.json",
        False,
    ),
    # Every row of every preset: the rows without a rate for the dtype used to be NaN.
    **{
        f"recommend {preset}": (
            ["recommend", "--preset", preset, "--json", "--limit", "1000"],
            None,
            False,
        )
        for preset in (
            "llm-100b-train",
            "video-analytics",
            "nlp-inference-t4",
            "fp64-risk",
            "cv-train",
        )
    },
    "recommend one configuration (no rate)": (
        [
            "recommend",
            "--scenario",
            "pretrain",
            "--params",
            "7e9",
            "--tokens",
            "1e9",
            "--gpu",
            "A10G",
            "--gpus",
            "8",
            "--json",
        ],
        None,
        False,
    ),
    "recommend --instance": (
        ["recommend", "--preset", "cv-train", "--instance", "p4d.24xlarge", "--json"],
        None,
        False,
    ),
}


def _walk(obj: Any) -> list[tuple[dict[str, Any], str, Any]]:
    out: list[tuple[dict[str, Any], str, Any]] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.append((obj, key, value))
            out.extend(_walk(value))
    elif isinstance(obj, list):
        for value in obj:
            out.extend(_walk(value))
    return out


@pytest.mark.parametrize("name", list(JSON_OUTPUTS))
@pytest.mark.slow
def test_every_json_output_is_strict_json(name: str, tmp_path: Path) -> None:
    args, out_file, lines = JSON_OUTPUTS[name]
    home = _home(tmp_path)
    if out_file is not None and "--out" not in args:
        args = [*args, "--out", out_file]
    ran = run_gpuprof(args, home)
    assert ran.returncode == 0, ran.stderr[-2000:]
    text = (home / out_file).read_text("utf-8") if out_file else ran.stdout
    docs = [strict_loads(line) for line in text.splitlines()] if lines else [strict_loads(text)]
    assert docs and all(d for d in docs)


def test_unknown_numbers_in_recommend_are_null_with_a_reason(tmp_path: Path) -> None:
    ran = run_gpuprof(
        ["recommend", "--preset", "llm-100b-train", "--json", "--limit", "1000"], tmp_path
    )
    doc = strict_loads(ran.stdout)
    unknown = [r for r in doc["rows"] if r["hours"] is None]
    assert unknown, "the catalog has GPUs without a bf16 rate"
    for row in unknown:
        assert row["efficiency"] is None and row["cost_usd"] is None
        for key in ("hours", "scaling_efficiency", "efficiency", "achieved_tflops", "cost_usd"):
            if row[key] is None:
                assert isinstance(row.get(key + "_reason"), str) and row[key + "_reason"], key
        assert "time unknown" in row["hours_reason"]
    known = [r for r in doc["rows"] if r["hours"] is not None]
    assert known and all("hours_reason" not in r for r in known)


def test_the_shared_writer_turns_non_finite_numbers_into_null_with_a_reason(tmp_path: Path) -> None:
    from gpuprof.jsonout import dumps, loads_strict, write_json

    data = {
        "nan": math.nan,
        "inf": math.inf,
        "ok": 1.5,
        "n32": np.float32("nan"),
        "i64": np.int64(3),
        "flag": True,
        "rows": ({"x": -math.inf, "x_reason": "given by the caller"}, [math.nan, 2.0]),
        "path": Path("a/b"),
    }
    doc = loads_strict(dumps(data))
    assert doc["nan"] is None and "unknown" in doc["nan_reason"]
    assert doc["inf"] is None and "without bound" in doc["inf_reason"]
    assert doc["n32"] is None and doc["n32_reason"]
    assert doc["ok"] == 1.5 and "ok_reason" not in doc
    assert doc["i64"] == 3 and doc["flag"] is True and doc["path"] == "a/b"
    assert doc["rows"][0] == {"x": None, "x_reason": "given by the caller"}
    assert doc["rows"][1] == [None, 2.0]
    assert strict_loads(dumps({"s": "caf\udce9"})) == {"s": "caf\udce9"}  # lossless escapes
    with pytest.raises(ValueError, match="NaN"):
        loads_strict('{"x": NaN}')
    out = write_json(tmp_path / "x.json", {"v": math.nan})
    assert strict_loads(out.read_text()) == {"v": None, "v_reason": doc["nan_reason"]}


@pytest.mark.slow
def test_a_report_with_non_finite_numbers_is_strict_json() -> None:
    from gpuprof.report.build import demo_snapshots, from_source
    from gpuprof.report.json import dumps_report, loads_report

    source, snaps = demo_snapshots()
    report = from_source(source, snapshots=snaps)
    source.close()
    tel = report.telemetry
    assert tel is not None and tel.stats
    from dataclasses import replace

    broken = replace(
        tel, stats=(replace(tel.stats[0], mean=math.nan, max=math.inf), *tel.stats[1:])
    )
    text = dumps_report(replace(report, telemetry=broken))
    doc = strict_loads(text)
    first = doc["telemetry"]["stats"][0]
    assert first["mean"] is None and first["mean_reason"] and first["max"] is None
    assert loads_report(text).telemetry is not None  # the reader ignores the reasons


# --- recommend says when nothing meets the deadline or the budget ------------------------------


@pytest.mark.parametrize(
    ("flags", "headline"),
    [
        (["--deadline", "1h"], "NOTHING MEETS THE DEADLINE"),
        (["--budget", "10"], "NOTHING STAYS WITHIN THE BUDGET"),
    ],
)
@pytest.mark.slow
def test_recommend_says_above_the_table_when_nothing_meets_a_constraint(
    flags: list[str], headline: str, tmp_path: Path
) -> None:
    args = ["recommend", "--preset", "llm-100b-train", "--limit", "3", *flags]
    ran = run_gpuprof(args, tmp_path)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    said = next(i for i, line in enumerate(lines) if headline in line)
    table = next(i for i, line in enumerate(lines) if "candidates fit" in line)
    assert said < table
    doc = strict_loads(run_gpuprof([*args, "--json"], tmp_path).stdout)
    assert any(headline in v for v in doc["verdict"])
    ok = strict_loads(
        run_gpuprof(["recommend", "--preset", "llm-100b-train", "--json"], tmp_path).stdout
    )
    # Without a constraint nothing is missed (issue 23 may still note that the top rows
    # overlap within their error bands).
    assert not [v for v in ok["verdict"] if "overlap within their error bands" not in v]
    assert ok["nodes_needed"] is None


# --- simulated and real -------------------------------------------------------------------------


@pytest.mark.slow
def test_a_replay_of_a_simulated_session_stays_simulated(tmp_path: Path) -> None:
    """tests/data/session-v1.gpuprof was recorded from the simulator."""
    from gpuprof.telemetry.model import SourceKind
    from gpuprof.telemetry.replay import ReplaySource

    src = ReplaySource(GOOD_SESSION)
    try:
        assert "SIMULATED" in src.label and src.kind is SourceKind.REPLAY
        assert src.poll().simulated
    finally:
        src.close()
    ran = run_gpuprof(["replay", str(GOOD_SESSION), "--speed", "1000"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "SIMULATED" in ran.stdout
    ran = run_gpuprof(["export", str(GOOD_SESSION), "--csv", str(tmp_path / "x.csv")], tmp_path)
    assert ran.returncode == 0 and "SIMULATED" in ran.stderr
    replayed = [
        strict_loads(x)
        for x in run_gpuprof(["replay", "--json", str(GOOD_SESSION)], tmp_path).stdout.splitlines()
    ]
    assert replayed and all(s["source"] == "simulated" for s in replayed)


def test_the_window_labels_a_replay_of_simulated_data(qtbot: Any) -> None:
    pytest.importorskip("PySide6")
    from gpuprof.ui.shell.app import make_app
    from gpuprof.ui.shell.status_line import StatusLine
    from PySide6.QtWidgets import QMainWindow

    from gpuprof.telemetry.model import SourceKind, SystemInfo

    make_app()
    window = QMainWindow()
    qtbot.addWidget(window)
    line = StatusLine(window)
    line.show_source(SourceKind.REPLAY, "REPLAY of SIMULATED data — x.gpuprof", SystemInfo())
    assert "SIMULATED" in window.windowTitle()
    assert "SIMULATED" in line.badge.text() and line.badge.objectName() == "simulated"
    line.show_source(SourceKind.REPLAY, "REPLAY — real.gpuprof", SystemInfo())
    assert line.badge.text() == "REPLAY" and "SIMULATED" not in window.windowTitle()


@pytest.mark.slow
def test_a_report_of_demo_telemetry_and_a_real_benchmark_labels_each_part(tmp_path: Path) -> None:
    home = _home(tmp_path)
    ran = run_gpuprof(["report", "--demo", "--bench", "latest", "--out", "r.html"], home)
    assert ran.returncode == 0, ran.stderr
    page = (home / "r.html").read_text("utf-8")
    assert "SIMULATED" in page
    assert "Nothing in it was measured" not in page  # the benchmark was
    assert "measured for real" in page and "MEASURED" in page
    assert "MEASURED" in ran.stderr
    ran = run_gpuprof(["report", "--demo", "--bench", "latest", "--out", "r.json"], home)
    doc = strict_loads((home / "r.json").read_text("utf-8"))
    assert doc["simulated"] is True and doc["telemetry"]["source_kind"] == "simulated"
    assert any("MEASURED" in n and doc["bench"]["run_id"] in n for n in doc["notes"])
    alone = run_gpuprof(["report", "--demo", "--out", "d.html"], home)
    assert alone.returncode == 0
    assert "Nothing in it was measured" in (home / "d.html").read_text("utf-8")


def test_the_exporter_does_not_tag_real_benchmarks_with_the_simulated_hostname() -> None:
    from gpuprof.exporter.metrics import BenchValue, SnapshotCollector
    from gpuprof.redact import redact_text
    from gpuprof.telemetry.sources import SimulatedSource

    src = SimulatedSource("h100x8")
    snap = src.poll()
    fake_host = src.system_info().hostname
    assert fake_host and fake_host != socket.gethostname()
    value = BenchValue("gemm", "bf16 8192", "tflops_median", 1.5, gpu="cpu")
    collector = SnapshotCollector(
        lambda: snap, src.devices(), hostname=fake_host, bench_values=lambda: [value]
    )
    fams = {f.name: f for f in collector.collect()}
    bench = fams["gpuprof_bench_result"].samples[0]
    assert bench.labels["Hostname"] == redact_text(socket.gethostname(), 255) != fake_host
    gpu = fams["DCGM_FI_DEV_GPU_UTIL"].samples[0]
    assert gpu.labels["Hostname"] == fake_host  # the simulated GPUs keep the simulated box's name
    src.close()


def test_a_machine_without_the_driver_is_not_labelled_nvml(fake_nvml: Any) -> None:
    import pynvml

    from gpuprof.telemetry.model import SourceKind
    from gpuprof.telemetry.nvml.source import NvmlSource

    fake_nvml.inject("nvmlInit", error=pynvml.NVML_ERROR_LIBRARY_NOT_FOUND)
    source = NvmlSource(nvml=fake_nvml, clock=fake_nvml.clock)
    assert source.kind is SourceKind.NVML  # not tried yet: reading the kind starts nothing
    source.system_info()
    assert source.kind is SourceKind.NONE and "NVML" not in source.label
    assert "no NVIDIA driver" in source.label
    source.close()
    assert source.kind is SourceKind.NONE  # still known after close (banners print after it)


def test_health_with_no_gpu_is_not_all_clear(qtbot: Any) -> None:
    pytest.importorskip("PySide6")
    from gpuprof.ui.health.tab import HealthTab
    from gpuprof.ui.shell.app import make_app

    from gpuprof.telemetry.model import HostSample, Snapshot, SourceKind, SystemInfo

    make_app()
    tab = HealthTab(torch_cuda_version=None)
    qtbot.addWidget(tab)
    tab.set_static((), SystemInfo(hostname="box"))
    tab.add_snapshots(
        [Snapshot(time_s=1.7e9 + k, source=SourceKind.NONE, host=HostSample()) for k in range(5)]
    )
    tab.run_now()
    assert tab.summary == "No GPU to check"
    assert "All clear" not in tab.clear_title.text()
    assert "✓" not in tab.checks_label.text() and "Persistence" in tab.checks_label.text()
    assert "Not checked" in tab.findings_text()


# --- bench without torch --------------------------------------------------------------------------


def _run_python(
    code: str, home: Path, extra_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = gpuprof_env(home)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=TIMEOUT_S,
    )


NO_TORCH: dict[str, Callable[[Path], tuple[str, Path | None]]] = {
    # torch is not installed (an import finds nothing)
    "missing": lambda d: ("import sys; sys.modules['torch'] = None\n", None),
    # a torch whose own import fails (a broken install, missing CUDA libraries)
    "broken": lambda d: ("", d),
}


@pytest.mark.parametrize("case", list(NO_TORCH))
@pytest.mark.slow
def test_bench_without_torch_says_how_to_get_it(case: str, tmp_path: Path) -> None:
    fake = tmp_path / "site"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text(
        "raise ImportError('libcudart.so.12: cannot open')\n"
    )
    prelude, path = NO_TORCH[case](fake)
    code = (
        prelude + "import sys\nfrom gpuprof.cli import main\nsys.exit(main(['bench', '--no-save']))"
    )
    done = _run_python(code, tmp_path, path)
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and "PyTorch" in errors[0], done.stderr
    if case == "missing":
        assert "pip install" in errors[0]
    else:
        assert "libcudart" in errors[0]


def test_the_lite_executable_says_it_has_no_benchmarks(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None; sys.frozen = True\n"
        "from gpuprof.cli import main\nsys.exit(main(['bench']))"
    )
    done = _run_python(code, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "this build of gpuprof has no benchmarks" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_bench_json_into_a_missing_folder_fails_before_the_benchmark_runs(tmp_path: Path) -> None:
    out = tmp_path / "no-such-folder" / "run.json"
    ran = run_gpuprof(
        ["bench", "--device", "cpu", "--only", "memory", "--json", str(out)], tmp_path
    )
    assert_one_clear_error(ran, "no-such-folder")
    assert not (tmp_path / "data" / "results.sqlite").exists()  # nothing ran, nothing was saved
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    ran = run_gpuprof(
        ["bench", "--device", "cpu", "--only", "memory", "--json", str(folder)], tmp_path
    )
    assert_one_clear_error(ran, "a-folder.json")
    assert not (tmp_path / "data" / "results.sqlite").exists()
