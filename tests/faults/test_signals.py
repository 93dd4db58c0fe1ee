"""SIGTERM (timeout, systemd, docker stop), SIGHUP (a closed terminal) and SIGINT (Ctrl-C)
end the long-running commands cleanly: a recording is closed into one self-contained file."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.faults.hostile import start_gpuprof

SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]


def _start(args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    return start_gpuprof(args, tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, timeout_s: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
@pytest.mark.slow
def test_record_closes_the_recording_on_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
    out = tmp_path / "rec.gpuprof"
    proc = _start(["record", "--demo", "--interval", "0.2", "--out", str(out)], tmp_path)
    _wait_for(out.exists)
    time.sleep(1.5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "saved" in err
    # Closed like after --duration: the WAL is folded in, the file stands alone.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("rec")) == [out.name]
    conn = sqlite3.connect(f"{out.as_uri()}?mode=ro", uri=True)
    try:
        saved = conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
    finally:
        conn.close()
    assert saved >= 3 and f"saved {saved} samples" in err


def test_the_exporter_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    proc = _start(["exporter", "--demo", "--port", "0"], tmp_path)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "serving http://127.0.0.1:" in line
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped" in err and "Traceback" not in err


@pytest.mark.slow
def test_ctrl_c_cancels_a_benchmark_and_keeps_what_it_measured(tmp_path: Path) -> None:
    """Ctrl-C during ``bench`` cancels the rest and still writes the run: the result is never
    lost to an interrupted ``Thread.join`` (the worker is awaited through an Event)."""
    out = tmp_path / "run.json"
    proc = _start(["bench", "--device", "cpu", "--json", str(out)], tmp_path)
    maps = Path(f"/proc/{proc.pid}/maps")
    _wait_for(lambda: "libtorch_cpu" in maps.read_text(), timeout_s=90)  # the worker is going
    time.sleep(2.0)  # a case or two under way
    proc.send_signal(signal.SIGINT)
    stdout, err = proc.communicate(timeout=120)
    assert "Traceback" not in err and "unexpected error" not in err, err
    assert "cancelled" in stdout and "saved as" in stdout
    import json

    run = json.loads(out.read_text())
    assert run["cases"], "the cancelled run was still written"
