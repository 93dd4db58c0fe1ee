"""gpuprof.telemetry.host: rates on an injected clock, and psutil failures as None (s-tui style)."""

from __future__ import annotations

import dataclasses
import os
from collections import namedtuple

import psutil
import pytest

from gpuprof.telemetry.host import HostSampler, ProcessInfo, ProcessInfoCache, host_system_info
from gpuprof.telemetry.model import HostSample
from tests.fakes.fixtures import FakeClock

# psutil's Linux field names, so the busy/total arithmetic is exercised as on a real host.
CpuTimes = namedtuple("CpuTimes", "user nice system idle iowait irq softirq steal guest guest_nice")
DiskIo = namedtuple("DiskIo", "read_bytes write_bytes")
NetIo = namedtuple("NetIo", "bytes_recv bytes_sent")
Mem = namedtuple("Mem", "total available used")
Swap = namedtuple("Swap", "total used")
Freq = namedtuple("Freq", "current min max")
Temp = namedtuple("Temp", "label current high critical")


def cpu(user: float, idle: float, iowait: float = 0.0, guest: float = 0.0) -> CpuTimes:
    return CpuTimes(user, 0.0, 0.0, idle, iowait, 0.0, 0.0, 0.0, guest, 0.0)


class FakePsutil:
    """Scripted psutil: counters set by the test."""

    def __init__(self) -> None:
        self.cores = [cpu(0, 0), cpu(0, 0)]
        self.disk = DiskIo(0, 0)
        self.net = NetIo(0, 0)
        self.temps_calls = 0

    def cpu_times(self, percpu: bool = False):
        if percpu:
            return list(self.cores)
        return CpuTimes(*(sum(vals) for vals in zip(*self.cores, strict=True)))

    def cpu_freq(self):
        return Freq(2450.0, 1500.0, 3500.0)

    def getloadavg(self):
        return (0.5, 0.25, 0.125)

    def virtual_memory(self):
        return Mem(total=16 << 30, available=12 << 30, used=3 << 30)

    def swap_memory(self):
        return Swap(total=2 << 30, used=1 << 20)

    def disk_io_counters(self, nowrap: bool = True):
        return self.disk

    def net_io_counters(self, nowrap: bool = True):
        return self.net

    def sensors_temperatures(self):
        self.temps_calls += 1
        return {"k10temp": [Temp("Tctl", 55.5, None, None), Temp("", 40.0, None, None)]}

    def cpu_count(self, logical: bool = True):
        return 2


class BrokenPsutil:
    """Every call fails the ways psutil fails on odd platforms and in containers."""

    def __getattr__(self, name: str):
        def fail(*_args, **_kwargs):
            if name.startswith("sensors"):
                raise AttributeError(name)  # not on this platform
            if name in {"disk_io_counters", "net_io_counters"}:
                raise RuntimeError("couldn't find any physical disk")
            raise PermissionError(13, "Permission denied", "/proc/stat")

        return fail


def test_rates_come_from_counters_and_the_clock() -> None:
    ps, clock = FakePsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    ps.cores = [cpu(user=75, idle=25), cpu(user=10, idle=80, iowait=10)]
    ps.disk = DiskIo(read_bytes=4_000_000, write_bytes=1_000_000)
    ps.net = NetIo(bytes_recv=2_000_000, bytes_sent=500_000)
    clock.advance(2.0)
    s = sampler.sample()
    assert s.cpu_per_core_pct == (75.0, 10.0)  # iowait is not busy, as in psutil
    assert s.cpu_pct == pytest.approx(85 / 200 * 100)
    assert s.disk_read_bytes_s == 2_000_000 and s.disk_write_bytes_s == 500_000
    assert s.net_rx_bytes_s == 1_000_000 and s.net_tx_bytes_s == 250_000
    assert s.cpu_freq_mhz == 2450.0
    assert s.load_avg == (0.5, 0.25, 0.125)
    assert (s.mem_total_bytes, s.mem_used_bytes, s.mem_available_bytes) == (
        16 << 30,
        3 << 30,
        12 << 30,
    )
    assert (s.swap_total_bytes, s.swap_used_bytes) == (2 << 30, 1 << 20)
    assert s.temps_c == (("k10temp/Tctl", 55.5), ("k10temp/1", 40.0))


def test_guest_time_is_not_counted_twice() -> None:
    ps, clock = FakePsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    # Linux counts guest time inside user time already.
    ps.cores = [cpu(user=50, idle=50, guest=50), cpu(user=50, idle=50, guest=50)]
    clock.advance(1.0)
    assert sampler.sample().cpu_per_core_pct == (50.0, 50.0)


def test_no_time_passed_or_counter_reset_gives_no_rate() -> None:
    ps, clock = FakePsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    ps.disk = DiskIo(1000, 1000)
    s = sampler.sample()  # dt = 0
    assert s.disk_read_bytes_s is None
    assert s.cpu_pct is None and s.cpu_per_core_pct == ()
    ps.disk = DiskIo(10, 2000)  # read counter went backwards
    clock.advance(1.0)
    s = sampler.sample()
    assert s.disk_read_bytes_s is None
    assert s.disk_write_bytes_s == 1000


def test_temperatures_are_read_on_a_slow_cadence() -> None:
    ps, clock = FakePsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps, temps_interval_s=5.0)
    for _ in range(5):
        clock.advance(1.0)
        assert sampler.sample().temps_c
    assert ps.temps_calls == 1
    clock.advance(1.0)
    sampler.sample()
    assert ps.temps_calls == 2


def test_every_psutil_failure_is_none_never_an_exception() -> None:
    sampler = HostSampler(clock=FakeClock(), ps=BrokenPsutil())
    s = sampler.sample()
    assert s == HostSample()  # every field unavailable
    info = sampler.system_info()
    assert info.memory_total_bytes is None
    assert info.hostname  # from the socket module, not psutil


#: The HostSample fields each psutil call feeds.
OWN_FIELDS = {
    "cpu_times": ("cpu_pct", "cpu_per_core_pct"),
    "cpu_freq": ("cpu_freq_mhz",),
    "getloadavg": ("load_avg",),
    "virtual_memory": ("mem_total_bytes", "mem_used_bytes", "mem_available_bytes"),
    "swap_memory": ("swap_total_bytes", "swap_used_bytes"),
    "disk_io_counters": ("disk_read_bytes_s", "disk_write_bytes_s"),
    "net_io_counters": ("net_rx_bytes_s", "net_tx_bytes_s"),
    "sensors_temperatures": ("temps_c",),
}


def _busy_sample(ps: FakePsutil) -> HostSample:
    """A second sample after every counter moved, so that every field has a value."""
    clock = FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    ps.cores = [cpu(user=75, idle=25), cpu(user=10, idle=90)]
    ps.disk = DiskIo(read_bytes=4_000, write_bytes=1_000)
    ps.net = NetIo(bytes_recv=2_000, bytes_sent=500)
    clock.advance(1.0)
    return sampler.sample()


def test_every_host_field_belongs_to_one_psutil_call() -> None:
    owned = [f for fields in OWN_FIELDS.values() for f in fields]
    assert sorted(owned) == sorted(f.name for f in dataclasses.fields(HostSample))


@pytest.mark.parametrize("name", sorted(OWN_FIELDS))
def test_one_failing_psutil_call_only_blanks_its_own_fields(name: str) -> None:
    def fail(*_args, **_kwargs):
        raise psutil.AccessDenied()

    whole = _busy_sample(FakePsutil())
    blank = HostSample()
    ps = FakePsutil()
    setattr(ps, name, fail)
    s = _busy_sample(ps)
    for f in dataclasses.fields(HostSample):
        assert getattr(whole, f.name) != getattr(blank, f.name), f"{f.name} has no value to lose"
        expected = getattr(blank if f.name in OWN_FIELDS[name] else whole, f.name)
        assert getattr(s, f.name) == expected, f.name


def test_real_host_sample_is_plausible() -> None:
    clock = FakeClock()
    sampler = HostSampler(clock=clock)
    sum(i * i for i in range(200_000))  # burn a little CPU
    clock.advance(1.0)
    s = sampler.sample()
    assert s.mem_total_bytes and s.mem_used_bytes is not None
    assert s.load_avg is not None and len(s.load_avg) == 3
    assert len(s.cpu_per_core_pct) in (0, psutil.cpu_count())
    assert s.cpu_pct is None or 0.0 <= s.cpu_pct <= 100.0


def test_host_system_info() -> None:
    info = host_system_info()
    assert info.hostname
    assert info.cpu_count_logical and info.cpu_count_logical >= 1
    assert info.memory_total_bytes and info.memory_total_bytes > 0
    assert info.driver_version is None  # the GPU backend fills that in


# --- ProcessInfoCache ----------------------------------------------------------------------------


def test_process_info_for_this_process_and_cache_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ProcessInfoCache()
    pid = os.getpid()
    info = cache.lookup([pid])[pid]
    assert info.name and info.user and info.cmdline
    assert cache.misses == 1
    made = []
    real = psutil.Process
    monkeypatch.setattr(psutil, "Process", lambda p: made.append(p) or real(p))
    assert cache.lookup([pid, pid])[pid] == info
    assert made == [] and cache.hits == 1


def test_process_that_does_not_exist_is_unknown() -> None:
    cache = ProcessInfoCache()
    pid = 2**22 + 12345  # beyond pid_max
    assert cache.lookup([pid])[pid] == ProcessInfo()


class _Ctx:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class ScriptedProcess:
    def __init__(self, pid: int, ps: ScriptedPsutil) -> None:
        if pid not in ps.table:
            raise psutil.NoSuchProcess(pid)
        self.pid = pid
        self.created, self.facts = ps.table[pid]
        ps.constructed += 1

    def create_time(self) -> float:
        return self.created

    def oneshot(self) -> _Ctx:
        return _Ctx()

    def name(self) -> str:
        return self.facts["name"]

    def username(self) -> str:
        if self.facts.get("user") is None:
            raise psutil.AccessDenied(self.pid)
        return self.facts["user"]

    def cmdline(self) -> list[str]:
        if self.facts.get("cmdline") is None:
            raise psutil.AccessDenied(self.pid)
        return self.facts["cmdline"]


class ScriptedPsutil:
    def __init__(self) -> None:
        self.table: dict[int, tuple[float, dict]] = {}
        self.constructed = 0

    def Process(self, pid: int) -> ScriptedProcess:
        return ScriptedProcess(pid, self)


def test_access_denied_blanks_only_that_fact() -> None:
    ps = ScriptedPsutil()
    ps.table[10] = (100.0, {"name": "trainer", "user": None, "cmdline": None})
    info = ProcessInfoCache(ps=ps).lookup([10])[10]
    assert info == ProcessInfo(name="trainer", user=None, cmdline=None, start_time_s=100.0)


def test_pid_reuse_is_told_apart_by_create_time() -> None:
    ps = ScriptedPsutil()
    ps.table[10] = (100.0, {"name": "old", "user": "a", "cmdline": ["old", "--x"]})
    cache = ProcessInfoCache(ps=ps)
    assert cache.lookup([10])[10].cmdline == "old --x"
    cache.lookup([])  # pid 10 left the GPU
    ps.table[10] = (200.0, {"name": "new", "user": "b", "cmdline": ["new"]})
    assert cache.lookup([10])[10].name == "new"
    # The same process coming back after a gap is found by (pid, create_time).
    cache.lookup([])
    constructed = ps.constructed
    assert cache.lookup([10])[10].name == "new"
    assert ps.constructed == constructed + 1 and cache.hits >= 1


def test_cache_is_bounded() -> None:
    ps = ScriptedPsutil()
    for pid in range(1, 50):
        ps.table[pid] = (float(pid), {"name": f"p{pid}", "user": "u", "cmdline": ["x"]})
    cache = ProcessInfoCache(ps=ps, max_entries=16)
    for pid in range(1, 50):
        cache.lookup([pid])
    assert len(cache._by_key) <= 16
