"""AMD GPUs over ``--connect``: a real exporter child on 127.0.0.1 whose ``amdsmi`` is the fake
(8 MI300X; a test hook, as in test_ui_amd's screenshot), read by the remote source. The AMD-only
fields (junction and HBM temperature, SoC clock, multimedia activity, XGMI rates), the reasons
for absent fields and the partition facts arrive as the local source gives them."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuprof.telemetry.history import History
from gpuprof.telemetry.model import SourceKind
from gpuprof.telemetry.remote import RemoteSource

ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 30.0  # a bounded wait for the child; a hang fails, slowness does not


@pytest.fixture(scope="module")
def amd_exporter() -> Iterator[str]:
    code = textwrap.dedent(
        """
        import sys
        from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi
        sys.modules["amdsmi"] = FakeAmdSmi(BOXES["mi300x8"](), realtime=True)
        from gpuprof.cli import main
        sys.exit(main(["exporter", "--port", "0", "--interval", "0.2"]))
        """
    )
    env = dict(os.environ, GPUPROF_LANG="en")
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], WAIT_S)
    line = proc.stdout.readline() if ready else ""
    match = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
    if not match:
        proc.kill()
        _, err = proc.communicate(timeout=WAIT_S)
        raise AssertionError(f"exporter did not start: {line!r} {err[-2000:]}")
    yield f"http://127.0.0.1:{match.group(1)}"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=WAIT_S)


def _poll_until_rates(remote: RemoteSource):  # type: ignore[no-untyped-def]
    """Poll until the XGMI rates are there (the exporter's second amdsmi poll has run)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        snap = remote.poll()
        if snap.gpus and snap.gpus[0].xgmi_read_bytes_s is not None:
            return snap
        assert time.monotonic() < deadline, f"no XGMI rates over --connect: {snap.gpus[:1]}"
        time.sleep(0.2)


def test_the_remote_source_gets_the_amd_fields_and_reasons(amd_exporter: str) -> None:
    remote = RemoteSource(amd_exporter)
    try:
        devices = remote.devices()
        assert len(devices) == 8 and devices[0].vendor == "amd"
        assert devices[0].name == "AMD Instinct MI300X" and devices[0].xgmi_link_count == 7
        assert devices[0].compute_partition == "SPX" and devices[0].memory_partition == "NPS1"
        snap = _poll_until_rates(remote)
        assert snap.source is SourceKind.AMDSMI
        g = snap.gpus[3]
        assert g.temp_gpu_c is None and g.temp_hotspot_c == 68.0 and g.temp_mem_c == 53.0
        assert g.clock_soc_mhz == 1143.0 and g.util_mm_pct == 0.0
        assert g.xgmi_read_bytes_s and g.xgmi_write_bytes_s
        assert "NOT_SUPPORTED" in dict(g.absent)["temp_gpu_c"]
        # Fed to History, the junction and XGMI fill the shared rings as they do locally.
        h = History(capacity=16)
        h.append(snap)
        assert h.stored_field(3, "temp_gpu_c") == "temp_hotspot_c"
        assert h.gpu_series(3, "temp_hotspot_c")[1][-1] == 68.0
    finally:
        remote.close()


def test_the_snapshot_json_names_the_amd_fields(amd_exporter: str) -> None:
    import urllib.request

    deadline = time.monotonic() + WAIT_S
    while True:
        with urllib.request.urlopen(amd_exporter + "/api/v1/snapshot", timeout=WAIT_S) as resp:
            doc = json.loads(resp.read())
        gpus = (doc.get("snapshot") or {}).get("gpus") or []
        if gpus and gpus[0].get("xgmi_read_bytes_s") is not None:
            break
        assert time.monotonic() < deadline, doc
        time.sleep(0.2)
    assert doc["source"]["kind"] == "amdsmi"
    g = gpus[0]
    assert g["temp_hotspot_c"] == 65.0 and g.get("temp_gpu_c") is None  # None is left out
    for name in ("clock_soc_mhz", "util_mm_pct", "xgmi_write_bytes_s", "absent"):
        assert name in g
