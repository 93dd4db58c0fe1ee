"""GPU processes' host side (CPU %, RSS, start time, container) and their per-process GPU
utilization through the production nvml.py against the fake NVML."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psutil
import pynvml as real_pynvml
import pytest

from gpuprof.telemetry.containers import ContainerResolver
from gpuprof.telemetry.host import ProcessInfoCache
from gpuprof.telemetry.nvml.poll import UTIL_FRESH_S, _process_util
from gpuprof.telemetry.nvml.query import DeviceState
from gpuprof.telemetry.procstat import HostUsage, ProcessUsageReader
from tests.fakes.devices import h100_sxm_8gpu_box, t4_box
from tests.fakes.fake_nvml import FakeNvml, FakeProcess, mib
from tests.fakes.fixtures import source_on

DATA = Path(__file__).resolve().parent / "data" / "cgroup"


# --- /proc/PID/stat ---------------------------------------------------------------------------


def _stat_line(pid: int, name: str, state: str, ticks: int, start: int, rss_pages: int) -> str:
    # Fields 3.. after "(name) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt
    # cmajflt utime stime cutime cstime priority nice threads itreal starttime vsize rss ...
    rest = [state, "1", "1", "1", "0", "-1", "0", "0", "0", "0", "0"]
    rest += [str(ticks // 2), str(ticks - ticks // 2), "0", "0", "20", "0", "4", "0"]
    rest += [str(start), "1000000", str(rss_pages), "0"]
    return f"{pid} ({name}) " + " ".join(rest) + "\n"


class FakeProc:
    """A folder laid out like /proc for the pids a test writes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "self").mkdir(parents=True)

    def put(
        self, pid: int, *, ticks: int, start: int = 500, rss_pages: int = 256, **kw: Any
    ) -> None:
        (self.root / str(pid)).mkdir(exist_ok=True)
        line = _stat_line(
            pid, kw.get("name", "python3"), kw.get("state", "S"), ticks, start, rss_pages
        )
        (self.root / str(pid) / "stat").write_text(line)


def _reader(tmp_path: Path, clock: list[float]) -> tuple[ProcessUsageReader, FakeProc]:
    proc = FakeProc(tmp_path / "proc")
    reader = ProcessUsageReader(clock=lambda: clock[0], proc_root=str(proc.root))
    return reader, proc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")
def test_cpu_percent_and_rss_from_proc_stat(tmp_path: Path) -> None:
    now = [100.0]
    reader, proc = _reader(tmp_path, now)
    tick = 1.0 / os.sysconf("SC_CLK_TCK")
    page = os.sysconf("SC_PAGE_SIZE")
    proc.put(7, ticks=1000, rss_pages=1000, name="my (weird) trainer")
    first = reader.read([7])[7]
    assert first == HostUsage(cpu_pct=None, rss_bytes=1000 * page)  # no interval yet
    now[0] += 2.0
    proc.put(7, ticks=1000 + round(3.0 / tick), rss_pages=2000)  # 3 CPU seconds in 2 s
    assert reader.read([7])[7] == HostUsage(cpu_pct=pytest.approx(150.0), rss_bytes=2000 * page)
    # Polls closer together than the kernel's tick resolution repeat the last value.
    now[0] += 0.01
    proc.put(7, ticks=1000 + round(3.0 / tick) + 5, rss_pages=2000)
    assert reader.read([7])[7].cpu_pct == pytest.approx(150.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")
def test_reused_pid_zombie_vanished_and_garbage_give_no_false_numbers(tmp_path: Path) -> None:
    now = [0.0]
    reader, proc = _reader(tmp_path, now)
    proc.put(8, ticks=5000, start=100)
    reader.read([8])
    now[0] += 1.0
    proc.put(8, ticks=10, start=900)  # the pid now belongs to a new process
    assert reader.read([8])[8].cpu_pct is None
    proc.put(8, ticks=10, start=900, state="Z")
    assert reader.read([8])[8] == HostUsage()
    (proc.root / "8" / "stat").write_bytes(os.urandom(300))
    assert reader.read([8])[8] == HostUsage()
    (proc.root / "8" / "stat").write_text("8 (x) S 1 2\n")  # truncated
    assert reader.read([8])[8] == HostUsage()
    assert reader.read([9])[9] == HostUsage()  # no such pid
    assert reader._seen == {} and reader._fds == {}  # nothing kept for pids not asked for


def _spawn(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code])


def test_real_processes_busy_and_sleeping() -> None:
    busy = _spawn("while True: pass")
    idle = _spawn("import time; time.sleep(60)")
    try:
        reader = ProcessUsageReader()
        reader.read([busy.pid, idle.pid])
        time.sleep(0.5)
        got = reader.read([busy.pid, idle.pid])
        assert got[busy.pid].cpu_pct is not None and got[busy.pid].cpu_pct > 20.0
        assert got[idle.pid].cpu_pct is not None and got[idle.pid].cpu_pct < 20.0
        assert all(u.rss_bytes and u.rss_bytes > 1 << 20 for u in got.values())
    finally:
        for p in (busy, idle):
            p.kill()
            p.wait()
    assert reader.read([busy.pid])[busy.pid] == HostUsage()  # reaped: gone


class _Times(SimpleNamespace):
    pass


class ScriptedProcess:
    def __init__(self, pid: int, table: dict[int, dict[str, Any]], made: list[int]) -> None:
        if pid not in table:
            raise psutil.NoSuchProcess(pid)
        self.pid, self._table, self._created = pid, table, table[pid]["created"]
        made.append(pid)

    def _row(self) -> dict[str, Any]:
        row = self._table.get(self.pid)
        if row is None:
            raise psutil.NoSuchProcess(self.pid)
        return row

    def is_running(self) -> bool:
        row = self._table.get(self.pid)
        return row is not None and row["created"] == self._created

    def oneshot(self) -> Any:
        import contextlib

        return contextlib.nullcontext()

    def cpu_times(self) -> _Times:
        return _Times(user=self._row()["cpu"], system=0.0)

    def memory_info(self) -> _Times:
        return _Times(rss=self._row()["rss"])

    def create_time(self) -> float:
        return float(self._created)


def test_psutil_path_keeps_one_process_object_per_pid() -> None:
    table: dict[int, dict[str, Any]] = {5: {"created": 10.0, "cpu": 1.0, "rss": 4096}}
    made: list[int] = []
    ps = SimpleNamespace(Process=lambda pid: ScriptedProcess(pid, table, made))
    now = [0.0]
    reader = ProcessUsageReader(ps=ps, clock=lambda: now[0])
    assert reader.read([5])[5] == HostUsage(None, 4096)
    for _ in range(3):
        now[0] += 1.0
        table[5]["cpu"] += 0.25
        assert reader.read([5])[5] == HostUsage(pytest.approx(25.0), 4096)
    assert made == [5]  # cached between polls, so the CPU % has a baseline
    table[5] = {"created": 99.0, "cpu": 0.0, "rss": 1}  # pid reused
    now[0] += 1.0
    assert reader.read([5])[5] == HostUsage(None, 1)
    del table[5]
    assert reader.read([5])[5] == HostUsage()
    assert made == [5, 5]


# --- the poll: host fields on every GPU process -------------------------------------------------


def test_gpu_processes_carry_host_cpu_rss_start_time_and_container(
    make_fake_nvml, tmp_path: Path
) -> None:
    box = h100_sxm_8gpu_box()
    me = os.getpid()
    box.devices[0].processes = [FakeProcess(pid=me, used_memory_bytes=mib(512), sm_util_pct=40)]
    fake: FakeNvml = make_fake_nvml(box)
    # This process's cgroup as a Kubernetes pod's (recorded file) with the kubelet's log folder.
    proc = tmp_path / "proc" / str(me)
    proc.mkdir(parents=True)
    (proc / "cgroup").write_bytes((DATA / "k8s-containerd-v2-systemd.cgroup").read_bytes())
    uid = "af2eb608-5a1f-42fa-bff3-e8059ec0f31f"
    (tmp_path / "var" / "log" / "pods" / f"ml-team_llama-7b_{uid}").mkdir(parents=True)
    containers = ContainerResolver(proc_root=str(tmp_path / "proc"), root=str(tmp_path))
    cache = ProcessInfoCache(clock=fake.clock, containers=containers)
    with source_on(fake, processes=cache) as source:
        (first,) = source.poll().processes
        assert first.host_cpu_pct is None  # one reading: no interval yet
        assert first.host_rss_bytes and first.host_rss_bytes > 1 << 20
        assert first.start_time_s == pytest.approx(psutil.Process(me).create_time())
        assert first.container_id is not None and first.container_id.startswith("7702807882dd")
        assert (first.pod_name, first.pod_namespace) == ("llama-7b", "ml-team")
        sum(range(200_000))  # some CPU time of our own
        fake.advance(1.0)
        (second,) = source.poll().processes
        assert second.host_cpu_pct is not None and second.host_cpu_pct >= 0.0
        assert second.sm_util_pct == 40.0


def test_a_process_that_vanished_keeps_its_gpu_row_without_host_numbers(make_fake_nvml) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    box = h100_sxm_8gpu_box()
    box.devices[1].processes = [FakeProcess(pid=gone.pid, used_memory_bytes=mib(64))]
    fake = make_fake_nvml(box)
    with source_on(fake) as source:
        (p,) = source.poll().processes
        assert p.gpu_mem_bytes == mib(64)
        assert (p.host_cpu_pct, p.host_rss_bytes, p.start_time_s, p.name) == (None,) * 4


# --- per-process GPU utilization: the timestamp cursor --------------------------------------------


def test_newer_call_on_drivers_550_and_up_older_call_before(make_fake_nvml) -> None:
    for box, newer in ((h100_sxm_8gpu_box(), True), (t4_box(), False)):
        box.devices[0].processes = [FakeProcess(pid=4321, used_memory_bytes=mib(1), sm_util_pct=70)]
        fake = make_fake_nvml(box)
        with source_on(fake) as source:
            (p,) = [p for p in source.poll().processes if p.pid == 4321]
            assert (p.sm_util_pct, p.mem_util_pct) == (70.0, 0.0)
            assert (fake.calls["nvmlDeviceGetProcessUtilization"] > 0) is not newer
            assert "nvmlDeviceGetProcessesUtilizationInfo" not in fake.unimplemented
            # An old driver without the newer call is not a failure to report.
            assert not source.diagnostics.has(0, "process_util_info", "FunctionNotFound")


def test_cursor_takes_each_sample_once_and_idle_processes_go_stale(make_fake_nvml) -> None:
    box = h100_sxm_8gpu_box()
    busy = FakeProcess(pid=111, used_memory_bytes=mib(1), sm_util_pct=90, mem_util_pct=30)
    box.devices[0].processes = [busy]
    fake = make_fake_nvml(box)
    with source_on(fake) as source:
        assert source.poll().processes[0].sm_util_pct == 90.0
        cursor = source._devices[0].proc_util_ts
        assert cursor == int(fake.now_s * 1e6)
        # Nothing newer than the cursor: NVML says NOT_FOUND, the last sample stays a while.
        assert source.poll().processes[0].sm_util_pct == 90.0
        busy.sm_util_pct = None  # the process stops running kernels: no more samples
        fake.advance(UTIL_FRESH_S - 1.0)
        assert source.poll().processes[0].sm_util_pct == 90.0
        fake.advance(2.0)
        p = source.poll().processes[0]
        assert (p.sm_util_pct, p.mem_util_pct) == (None, None)  # not 90 % for ever
        busy.sm_util_pct = 10
        fake.advance(1.0)
        assert source.poll().processes[0].sm_util_pct == 10.0
        assert source._devices[0].proc_util_ts > cursor


def test_success_without_samples_is_no_new_samples_not_an_error(make_fake_nvml) -> None:
    box = h100_sxm_8gpu_box()
    box.devices[0].processes = [FakeProcess(pid=5, used_memory_bytes=mib(1), sm_util_pct=20)]
    fake = make_fake_nvml(box)
    with source_on(fake) as source:
        source.poll()
        fake.advance(1.0)
        # pynvml's wrappers raise NVMLError(0) when NVML reports success and no samples.
        fake.inject("nvmlDeviceGetProcessesUtilizationInfo", error=0, times=1)
        assert source.poll().processes[0].sm_util_pct == 20.0
        assert "process_util_info" not in source._devices[0].skip
        assert not source.diagnostics.has(0, "process_util_info")


def test_no_permission_for_utilization_marks_the_status(make_fake_nvml) -> None:
    box = h100_sxm_8gpu_box()
    box.devices[0].processes = [FakeProcess(pid=5, used_memory_bytes=mib(1), sm_util_pct=20)]
    fake = make_fake_nvml(box)
    fake.inject("nvmlDeviceGetProcessesUtilizationInfo", error=real_pynvml.NVML_ERROR_NO_PERMISSION)
    with source_on(fake) as source:
        snap = source.poll()
        assert snap.processes[0].sm_util_pct is None
        assert snap.processes[0].gpu_mem_bytes == mib(1)
        assert snap.status.process_info_permitted is False


class _StubQuery:
    def __init__(self, samples: list[Any]) -> None:
        self.samples = samples
        self.cursors: list[int] = []

    def fn(self, name: str) -> Any:
        def call(_handle: Any, cursor: int) -> list[Any]:
            self.cursors.append(cursor)
            return [s for s in self.samples if s.timeStamp > cursor]

        return call


def _sample(pid: int, ts_s: float, sm: int) -> Any:
    return SimpleNamespace(pid=pid, timeStamp=int(ts_s * 1e6), smUtil=sm, memUtil=1)


def test_the_first_read_drops_what_the_driver_kept_from_long_ago() -> None:
    q = _StubQuery([_sample(1, 100.0, 80), _sample(2, 100.0, 50), _sample(1, 200.0, 5)])
    dev = DeviceState(index=0, handle=object())
    _process_util(q, dev, now=7.0)  # type: ignore[arg-type]
    assert dev.proc_util == {1: (200_000_000, 5.0, 1.0, 7.0)}  # pid 2's sample is 100 s old
    assert dev.proc_util_ts == 200_000_000
    q.samples.append(_sample(2, 201.0, 60))
    _process_util(q, dev, now=8.0)  # type: ignore[arg-type]
    assert q.cursors == [0, 200_000_000]
    assert dev.proc_util[2] == (201_000_000, 60.0, 1.0, 8.0)


def test_recordings_keep_the_host_and_container_fields() -> None:
    from gpuprof.telemetry.codec import from_jsonable, to_jsonable
    from gpuprof.telemetry.model import ProcessSample

    p = ProcessSample(
        pid=1,
        gpu_index=0,
        host_cpu_pct=12.5,
        host_rss_bytes=2**30,
        start_time_s=1.7e9,
        container_id="a" * 64,
        pod_name="p",
        pod_namespace="ns",
    )
    assert from_jsonable(ProcessSample, to_jsonable(p)) == p
