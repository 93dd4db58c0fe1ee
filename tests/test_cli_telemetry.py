"""The telemetry CLI as a user runs it: devices, monitor, record, replay, export."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from gpuprof.cli import main
from gpuprof.telemetry.store import CSV_HEADER as CSV_COLUMNS
from tests.faults.hostile import run_gpuprof, start_gpuprof


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_devices_without_driver_says_why_and_shows_host(capsys, monkeypatch) -> None:
    # This machine has no NVIDIA driver: the real pynvml fails to load libnvidia-ml.
    code, out, _ = run(capsys, "devices")
    assert code == 0
    assert "no NVIDIA GPU/driver found" in out
    assert "Host" in out and "RAM used" in out


def test_devices_json_without_driver(capsys) -> None:
    code, out, _ = run(capsys, "devices", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["devices"] == []
    assert data["status"]["state"] in {"library_not_found", "driver_not_loaded", "no_gpus"}
    assert data["host"]["mem_total_bytes"] > 0
    assert data["simulated"] is False


def test_devices_json_demo_lists_simulated_fleet(capsys) -> None:
    code, out, _ = run(capsys, "devices", "--json", "--demo")
    assert code == 0
    data = json.loads(out)
    assert data["simulated"] is True and data["source"] == "simulated"
    assert len(data["devices"]) == 8
    assert data["topology"]["matrix"][0][1].startswith("NV")


def test_monitor_once_json_demo(capsys) -> None:
    code, out, _ = run(capsys, "monitor", "--once", "--json", "--demo")
    assert code == 0
    snap = json.loads(out)
    assert snap["source"] == "simulated"
    assert len(snap["gpus"]) == 8
    assert all(0 <= g["util_gpu_pct"] <= 100 for g in snap["gpus"])


def test_monitor_once_table_demo_is_labelled_simulated(capsys) -> None:
    code, out, _ = run(capsys, "monitor", "--once", "--demo")
    assert code == 0
    assert "SIMULATED" in out
    assert "GPU" in out and "Power" in out


def test_monitor_csv_streams_rows_per_gpu(capsys) -> None:
    code, out, _ = run(capsys, "monitor", "--csv", "--demo", "--interval", "0.1", "--count", "3")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 1 + 3 * 8
    times = sorted({r[0] for r in rows[1:]})
    assert len(times) == 3


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["monitor", "--interval", "0.01"], "interval"),
        (["monitor", "--interval", "abc"], "interval"),
        (["record"], "--out"),
        (["bogus-command"], "invalid choice"),
        (["replay", "/nonexistent/run.gpuprof"], "/nonexistent/run.gpuprof"),
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, argv, needle) -> None:
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(("gpuprof", "usage"))


@pytest.mark.slow
def test_record_then_replay_and_export(capsys, tmp_path: Path) -> None:
    out_file = tmp_path / "run.gpuprof"
    code, _, err = run(
        capsys, "record", "--out", str(out_file), "--duration", "2", "--interval", "0.2", "--demo"
    )
    assert code == 0, err
    assert "saved" in err
    code, out, _ = run(capsys, "replay", str(out_file), "--json")
    assert code == 0
    snaps = [json.loads(line) for line in out.splitlines()]
    assert len(snaps) >= 3  # ~10 at 0.2 s; the shared CI machine may be slow
    assert all(len(s["gpus"]) == 8 for s in snaps)
    assert [s["time_s"] for s in snaps] == sorted(s["time_s"] for s in snaps)

    csv_path = tmp_path / "run.csv"
    code, _, _ = run(capsys, "export", str(out_file), "--csv", str(csv_path))
    assert code == 0
    rows = list(csv.reader(csv_path.read_text().splitlines()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) - 1 == 8 * len(snaps)

    # Refuses to clobber a recording.
    code, _, err = run(capsys, "record", "--out", str(out_file), "--duration", "0.2", "--demo")
    assert code == 2 and "--force" in err


def test_replay_of_garbage_file_names_the_file(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "broken.gpuprof"
    bad.write_bytes(b"this is not a session" * 10)
    code, _, err = run(capsys, "replay", str(bad), "--json")
    assert code == 2
    assert str(bad) in err and "Traceback" not in err


@pytest.mark.slow
def test_record_killed_with_sigkill_replays(tmp_path: Path) -> None:
    """record → kill -9 → replay, as a user would: at most the last second is lost."""
    out_file = tmp_path / "killed.gpuprof"
    proc = start_gpuprof(
        ["record", "--out", str(out_file), "--interval", "0.1", "--demo"],
        tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not out_file.exists():
            time.sleep(0.1)
        time.sleep(2.5)
        t_kill = time.time()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    replay = run_gpuprof(["replay", str(out_file), "--json"], tmp_path)
    assert replay.returncode == 0, replay.stderr
    snaps = [json.loads(line) for line in replay.stdout.splitlines()]
    assert len(snaps) >= 5
    # Simulated snapshots carry wall-clock times: the last saved one is within ~1 s of the kill.
    assert t_kill - snaps[-1]["time_s"] <= 1.5
