"""``gpuprof bench`` when a case really fails: the run is not a success (issue 21: "state
success" was printed with the collectives failed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.faults.hostile import run_gpuprof


@pytest.mark.slow  # two spawned gloo ranks import torch before they fail
def test_collectives_that_cannot_start_make_the_run_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A network interface that does not exist: each gloo rank fails to set up its transport
    # (a real error from torch.distributed, not a stand-in), as on a host whose loopback is down.
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "gpuprof-no-such-if0")
    out = tmp_path / "run.json"
    ran = run_gpuprof(
        ["bench", "--device", "cpu", "--only", "memory,collective", "--json", str(out)], tmp_path
    )
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    assert ran.returncode == 1, ran.stdout[-3000:] + ran.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))
    states = {c["name"]: c["state"] for c in doc["cases"]}
    assert states == {"memory host": "success", "collectives": "failure"}
    assert doc["state"] == "partial"
    assert "gpuprof-no-such-if0" in next(c["error"] for c in doc["cases"] if c["error"])
    assert "state partial" in ran.stdout and "state success" not in ran.stdout
