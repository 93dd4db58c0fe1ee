"""HostSampler's ``io_interval_s`` (the standalone ``gpuprof.track`` session's cost, issue 13):
memory and the disk and network counters read on their own cadence, their rates over that span
and repeated in between; CPU use at every sample; by default everything at every sample."""

from __future__ import annotations

import pytest

from gpuprof.telemetry.host import HostSampler
from tests.fakes.fixtures import FakeClock
from tests.test_telemetry_host import DiskIo, FakePsutil, Mem, NetIo, cpu


class CountingPsutil(FakePsutil):
    def __init__(self) -> None:
        super().__init__()
        self.io_calls = 0
        self.mem_calls = 0
        self.used = 3 << 30
        self.net_broken = False

    def net_io_counters(self, nowrap: bool = True):
        self.io_calls += 1
        if self.net_broken:
            raise OSError("no /proc/net/dev")
        return self.net

    def virtual_memory(self):
        self.mem_calls += 1
        return Mem(total=16 << 30, available=12 << 30, used=self.used)


def test_memory_disk_and_network_are_read_every_sample_by_default() -> None:
    ps, clock = CountingPsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    calls0 = ps.io_calls
    for k in range(1, 6):
        ps.net = NetIo(bytes_recv=1000 * k, bytes_sent=0)
        clock.advance(0.1)
        assert sampler.sample().net_rx_bytes_s == pytest.approx(10_000.0)
    assert ps.io_calls - calls0 == 5 and ps.mem_calls == 5


def test_on_their_own_cadence_the_rates_cover_the_span_and_stand_in_between() -> None:
    ps, clock = CountingPsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps, io_interval_s=0.5)
    calls0 = ps.io_calls
    seen = []
    for k in range(1, 16):  # 1.5 s at 0.1 s; the network moves 1000 bytes a sample
        ps.net = NetIo(bytes_recv=1000 * k, bytes_sent=0)
        ps.disk = DiskIo(read_bytes=0, write_bytes=500 * k)
        ps.used = (3 << 30) + k
        ps.cores = [cpu(user=k, idle=k), cpu(user=0, idle=2 * k)]
        clock.advance(0.1)
        seen.append(sampler.sample())
    assert ps.io_calls - calls0 == 3 and ps.mem_calls == 3  # at 0.1 s, 0.6 s and 1.1 s
    # The first reading: since the baseline taken at construction, 0.1 s before.
    assert [s.net_rx_bytes_s for s in seen[:5]] == [pytest.approx(10_000.0)] * 5
    # Later readings: over the 0.5 s since the one before; never None in between.
    assert [s.net_rx_bytes_s for s in seen[5:]] == [pytest.approx(10_000.0)] * 10
    assert all(s.disk_write_bytes_s == pytest.approx(5_000.0) for s in seen)
    assert [s.mem_used_bytes - (3 << 30) for s in seen] == [1] * 5 + [6] * 5 + [11] * 5
    # CPU use is still read at every sample (each sample's own share: core 0 busy half the time).
    assert all(s.cpu_per_core_pct[0] == pytest.approx(50.0) for s in seen)
    assert [s.cpu_pct for s in seen] == [pytest.approx(25.0)] * 15


def test_a_counter_that_cannot_be_read_on_the_cadence_is_none_until_it_can() -> None:
    ps, clock = CountingPsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps, io_interval_s=0.5)
    ps.net_broken = True
    clock.advance(0.1)
    assert sampler.sample().net_rx_bytes_s is None
    ps.net_broken = False
    ps.net = NetIo(bytes_recv=0, bytes_sent=0)
    clock.advance(0.5)
    assert sampler.sample().net_rx_bytes_s is None  # a new baseline: no rate yet
    ps.net = NetIo(bytes_recv=5000, bytes_sent=0)
    clock.advance(0.5)
    assert sampler.sample().net_rx_bytes_s == pytest.approx(10_000.0)
