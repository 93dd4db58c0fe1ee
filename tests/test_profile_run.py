"""``gpuprof profile`` end to end with real child processes (issue 13): no mocks of subprocess.

The children are small Python scripts written here: they allocate, sleep, write markers straight
into the file ``GPUPROF_MARKERS`` names (the protocol, without ``gpuprof.track``), exit with a
given code, die of a signal, or catch one and say so in a file. The GPU part runs the real
:class:`JobRunner` in-process over the fake NVML, which lists the real child's pid on a GPU.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuprof.jsonout import loads_strict
from gpuprof.profile.runner import JobOptions, JobRunner, LiveStatus
from gpuprof.profile.storage import read_job_profile, read_markers
from gpuprof.telemetry.nvml.source import NvmlSource
from gpuprof.telemetry.store import SessionStore
from tests.fakes.devices import h100_sxm_8gpu_box
from tests.fakes.fake_nvml import FakeNvml, FakeProcess
from tests.faults.hostile import (
    ROOT,
    TIMEOUT_S,
    assert_one_clear_error,
    profile_argv,
    python_job,
    run_gpuprof,
    run_profile,
    start_gpuprof,
)
from tests.schema_paths import documented_fields, json_paths

GIB = 2**30

#: A job: STEPS steps of SLEEP s writing step markers, 8 MiB allocated, then exit CODE.
JOB = """
import json, os, sys, time
steps, sleep, code = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
fd = os.open(os.environ["GPUPROF_MARKERS"], os.O_WRONLY | os.O_APPEND)
def put(**kw):
    kw.update(v=1, t=time.time(), run="job", pid=os.getpid())
    os.write(fd, (json.dumps(kw) + "\\n").encode())
ballast = bytearray(8 << 20)
put(kind="start")
last = time.time()
for k in range(1, steps + 1):
    time.sleep(sleep)
    now = time.time()
    put(kind="step", step=k, dt=now - last, tokens=512, samples=4)
    last = now
    if k == 2:
        put(kind="mark", label="eval")
put(kind="end")
sys.exit(code)
"""

#: Waits for a signal; writes its name to argv[1] and exits 7 (or dies of SIGKILL when
#: argv[2] says so: it ignores the polite ones).
CATCHER = """
import os, signal, sys, time
got, mode = sys.argv[1], sys.argv[2]
def caught(signo, _frame):
    with open(got, "a") as fh:
        fh.write(signal.Signals(signo).name + "\\n")
    if mode != "stubborn":
        sys.exit(7)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, caught)
open(got + ".ready", "w").close()
for _ in range(600):
    time.sleep(0.1)
"""


@pytest.fixture
def scripts(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("job.py", JOB), ("catcher.py", CATCHER)):
        path = tmp_path / name
        path.write_text(text)
        out[name] = path
    return out


@pytest.mark.slow
def test_exit_code_markers_profile_and_strict_json(tmp_path: Path, scripts) -> None:
    out, summary = tmp_path / "run.gpuprof", tmp_path / "run.json"
    job = [sys.executable, str(scripts["job.py"]), "6", "0.05", "3"]
    ran = run_profile(tmp_path, job, "--out", str(out), "--json", str(summary), "--name", "tiny")
    assert ran.returncode == 3, ran.stderr
    assert "Traceback" not in ran.stderr
    assert "Job profile: tiny" in ran.stderr and "exit code 3" in ran.stderr
    doc = loads_strict(summary.read_text())
    assert doc["schema_version"] == 1 and doc["exit_code"] == 3 and doc["exit_signal"] is None
    assert doc["steps"]["count"] == 6
    assert doc["steps"]["samples_per_s"] > 0
    assert doc["recording"] == str(out)
    assert doc["host"]["rss_peak_bytes"] >= 8 << 20
    assert doc["host"]["processes_peak"] == 1
    assert "eval" in {p["name"] for p in doc["phases"]}
    profile = read_job_profile(out)
    assert profile is not None and profile.exit_code == 3 and profile.name == "tiny"
    with SessionStore.open(out) as store:
        markers = read_markers(store)
        assert store.count() >= 2
    assert sum(1 for m in markers if type(m).__name__ == "StepMarker") == 6
    assert {getattr(m, "kind", "step") for m in markers} == {"start", "step", "mark", "end"}


@pytest.mark.slow
def test_json_fields_are_the_documented_ones(tmp_path: Path, scripts) -> None:
    summary = tmp_path / "s.json"
    job = [sys.executable, str(scripts["job.py"]), "3", "0.05", "0"]
    ran = run_profile(tmp_path, job, "--demo", "--json", str(summary))
    assert ran.returncode == 0, ran.stderr
    doc = loads_strict(summary.read_text())
    assert doc["simulated"] is True and doc["source"] == "simulated"
    assert len(doc["gpus"]) == 8 and doc["gpus"][0]["energy_j"] > 0
    documented = documented_fields(ROOT / "docs" / "profile-schema.md")
    missing = sorted(json_paths(doc) - documented)
    assert not missing, f"fields of --json not in docs/profile-schema.md: {missing}"
    # The recording the demo made is the default one, in the data folder.
    assert Path(doc["recording"]).parent == tmp_path / "data" / "jobs"


@pytest.mark.slow
def test_a_job_killed_by_a_signal_exits_128_plus_signo(tmp_path: Path) -> None:
    out = tmp_path / "k.gpuprof"
    code = "import os, signal, time; time.sleep(0.3); os.kill(os.getpid(), signal.SIGTERM)"
    ran = run_profile(tmp_path, python_job(code), "--out", str(out))
    assert ran.returncode == 128 + signal.SIGTERM, ran.stderr
    profile = read_job_profile(out)
    assert profile is not None
    assert profile.exit_code is None and profile.exit_signal == "SIGTERM"


def _start_profile(tmp_path: Path, got: Path, mode: str, *extra: str) -> subprocess.Popen[str]:
    proc = start_gpuprof(
        profile_argv(
            *extra,
            "--out",
            str(tmp_path / "sig.gpuprof"),
            job=[sys.executable, str(tmp_path / "catcher.py"), str(got), mode],
        ),
        tmp_path,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + TIMEOUT_S
    while not Path(f"{got}.ready").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("signo", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.slow
def test_a_signal_goes_to_the_job_first_then_the_profile_is_saved(
    tmp_path: Path, scripts, signo: int
) -> None:
    got = tmp_path / "got.txt"
    proc = _start_profile(tmp_path, got, "polite")
    time.sleep(0.3)
    proc.send_signal(signo)
    _, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 7, err  # the job's own exit code, after it handled the signal
    assert got.read_text().split() == [signal.Signals(signo).name]
    profile = read_job_profile(tmp_path / "sig.gpuprof")
    assert profile is not None and profile.exit_code == 7
    assert "Traceback" not in err and "saved the recording" in err


@pytest.mark.slow
def test_a_job_that_ignores_the_signal_is_killed_after_the_grace(tmp_path: Path, scripts) -> None:
    got = tmp_path / "got.txt"
    proc = _start_profile(tmp_path, got, "stubborn", "--grace", "0.5")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=TIMEOUT_S)
    assert proc.returncode == 128 + signal.SIGKILL, err
    assert got.read_text().split() == ["SIGINT"]
    profile = read_job_profile(tmp_path / "sig.gpuprof")
    assert profile is not None and profile.exit_signal == "SIGKILL"
    assert any("did not exit within 0.5 s" in n for n in profile.notes)


@pytest.mark.parametrize(
    "command",
    [["no-such-command-gpuprof"], ["./not-executable.sh"], ["/"]],
    ids=["not-found", "not-executable", "a-folder"],
)
@pytest.mark.slow
def test_a_command_that_cannot_start_is_one_error_and_no_recording(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "not-executable.sh").write_text("#!/bin/sh\necho hi\n")
    out = tmp_path / "never.gpuprof"
    ran = run_gpuprof(["profile", "--out", str(out), "--", *command], tmp_path)
    assert_one_clear_error(ran, command[0])
    assert not list(tmp_path.glob("never.gpuprof*"))
    ran = run_gpuprof(["profile", "--", *command], tmp_path)  # the default place too
    assert_one_clear_error(ran, command[0])
    assert not list((tmp_path / "data" / "jobs").glob("*"))


@pytest.mark.slow
def test_attach_follows_a_running_process_until_it_exits(tmp_path: Path) -> None:
    go = tmp_path / "go"
    waits = f"import os, time\nwhile not os.path.exists({str(go)!r}): time.sleep(0.05)\n"
    sleeper = subprocess.Popen([sys.executable, "-c", waits + "time.sleep(0.3)"])
    out, summary = tmp_path / "a.gpuprof", tmp_path / "a.json"
    try:
        proc = start_gpuprof(
            [
                "profile",
                "--attach",
                str(sleeper.pid),
                "--interval",
                "0.1",
                "--out",
                str(out),
                "--json",
                str(summary),
            ],
            tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + TIMEOUT_S
        while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        go.touch()  # the process ends by itself: the profile follows it to its end
        _, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        go.touch()
        sleeper.wait()
    assert proc.returncode == 0, err
    doc = json.loads(summary.read_text())
    assert doc["attached"] is True and doc["exit_code"] is None and doc["pid"] == sleeper.pid
    assert "time.sleep(0.3)" in " ".join(doc["command"])
    assert 0.3 < doc["wall_s"] < TIMEOUT_S
    assert "exit code unknown (attached)" in err


def test_attach_to_a_missing_pid_is_exit_2(tmp_path: Path) -> None:
    assert_one_clear_error(run_gpuprof(["profile", "--attach", "4000000"], tmp_path), "4000000")


def test_attach_and_a_command_together_is_a_usage_error(tmp_path: Path) -> None:
    ran = run_gpuprof(["profile", "--attach", str(os.getpid()), "--", "true"], tmp_path)
    assert_one_clear_error(ran, "--attach")


def test_no_command_is_a_usage_error(tmp_path: Path) -> None:
    assert_one_clear_error(run_gpuprof(["profile"], tmp_path), "CMD")


def test_gpu_scoping_through_the_fake_nvml(tmp_path: Path, scripts) -> None:
    """The real runner, in-process, over the fake H100 box: the child's pid shows on GPU 3."""
    box = h100_sxm_8gpu_box()
    fake = FakeNvml(box)
    source = NvmlSource(nvml=fake, clock=fake.clock)
    dev = box.devices[3]
    dev.power_mw = 400_000
    dev.util_gpu_pct = 80
    statuses: list[LiveStatus] = []

    def on_status(status: LiveStatus) -> None:
        if not statuses:  # the job runs: NVML starts to list it on GPU 3, next to a stranger
            dev.processes = [
                FakeProcess(status.pid, used_memory_bytes=20 * GIB),
                FakeProcess(4_000_001, used_memory_bytes=2 * GIB),
            ]
        fake.advance(0.1)  # the fake's counters follow the fake clock
        statuses.append(status)

    options = JobOptions(
        command=(sys.executable, str(scripts["job.py"]), "8", "0.05", "0"),
        out=tmp_path / "gpu.gpuprof",
        interval_s=0.1,
    )
    result = JobRunner(options, source=source, on_status=on_status).run()
    p = result.profile
    assert result.exit_status == 0 and p.exit_code == 0
    assert p.gpu_indices == (3,)
    g = p.gpus[0]
    assert g.job_mem_peak_bytes == 20 * GIB and g.others_mem_peak_bytes == 2 * GIB
    assert g.energy_j is not None and g.energy_j > 0
    assert g.power_mean_w == pytest.approx(400.0)
    assert p.steps is not None and p.steps.count == 8
    assert statuses and statuses[-1].gpu_indices == (3,)
    assert max(s.steps for s in statuses) >= 1
    assert read_job_profile(result.out) == p


class _Tty:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_the_live_status_is_one_rewritten_line_on_a_terminal_only() -> None:
    from gpuprof.commands.profile_status import StatusBar

    status = LiveStatus(
        elapsed_s=65.0,
        pid=1,
        gpu_indices=(0, 1),
        util_pct=93.0,
        sm_active_pct=71.0,
        mem_used_bytes=60 * GIB,
        power_w=1200.0,
        steps=42,
        step_s=0.25,
        simulated=True,
    )
    tty = _Tty(True)
    line = StatusBar(tty)  # type: ignore[arg-type]
    line(status)
    line(status)
    assert tty.text.count("\r") == 2 and "\n" not in tty.text
    shown = tty.text.split("\r")[-1]
    for part in ("SIMULATED", "GPUs 0,1", "util 93%", "SM 71%", "60.0 GiB", "steps 42", "250 ms"):
        assert part in shown, (part, shown)
    line.close()
    assert tty.text.endswith("\r\x1b[K")
    pipe = _Tty(False)
    quiet = StatusBar(pipe)  # type: ignore[arg-type]
    quiet(status)
    quiet.close()
    assert pipe.text == ""
