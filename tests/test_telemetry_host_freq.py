"""HostSampler's ``freq_interval_s`` (the standalone ``gpuprof.track`` session's cost, issue 13):
the CPU clock is read on its own cadence and repeated in between; by default at every sample."""

from __future__ import annotations

import pytest

from gpuprof.telemetry.host import HostSampler
from tests.fakes.fixtures import FakeClock
from tests.test_telemetry_host import FakePsutil, Freq


class CountingPsutil(FakePsutil):
    def __init__(self) -> None:
        super().__init__()
        self.freq_calls = 0
        self.mhz = 2000.0

    def cpu_freq(self):
        self.freq_calls += 1
        return Freq(self.mhz, 1500.0, 3500.0)


def test_the_cpu_clock_is_read_every_sample_by_default() -> None:
    ps, clock = CountingPsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps)
    for k in range(5):
        ps.mhz = 2000.0 + k
        clock.advance(0.1)
        assert sampler.sample().cpu_freq_mhz == 2000.0 + k
    assert ps.freq_calls == 5


def test_the_cpu_clock_on_its_own_cadence_is_repeated_in_between() -> None:
    ps, clock = CountingPsutil(), FakeClock()
    sampler = HostSampler(clock=clock, ps=ps, freq_interval_s=1.0)
    seen = []
    for k in range(25):  # 2.5 s at 0.1 s
        ps.mhz = 2000.0 + k
        clock.advance(0.1)
        seen.append(sampler.sample().cpu_freq_mhz)
    assert ps.freq_calls == 3  # at 0.1 s, 1.1 s and 2.1 s
    assert seen[:10] == [2000.0] * 10  # never None: the last reading stands in
    assert seen[10] == 2010.0 and seen[20] == 2020.0
    # Every other field is still read at every sample.
    ps.net = ps.net._replace(bytes_recv=1000)
    clock.advance(0.1)
    assert sampler.sample().net_rx_bytes_s == pytest.approx(10_000.0)
