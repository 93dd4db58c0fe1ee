"""What a poll does not do (issue 21): the GPU processes' host statistics and GPM are read at
their own cadence, or at every poll only while someone watches, and never where there is
nothing to read. Counted reads against injected clocks, never timings (perf/sampler.py
measures the cost)."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuprof.exporter import Exporter
from gpuprof.telemetry.model import (
    GpuSample,
    HostSample,
    MigProfSample,
    NvLinkSample,
    ProcessSample,
)
from gpuprof.telemetry.nvml import poll as nvml_poll
from gpuprof.telemetry.nvml.gpm import GPM_INTERVAL_S, PROF_FIRST_SAMPLE
from gpuprof.telemetry.procstat import PROCESS_HOST_INTERVAL_S, ProcessUsageReader
from gpuprof.telemetry.reasons import ClockEventReason
from gpuprof.telemetry.session import MINIMAL_HISTORY, TelemetrySession
from tests.fakes.devices import h100_sxm_8gpu_box, t4_box
from tests.fakes.fake_gpm import FakeGpmActivity
from tests.fakes.fake_nvml import FakeNvml, FakeProcess, mib
from tests.fakes.fixtures import FakeClock, source_on
from tests.test_processes_telemetry import FakeProc
from tests.ui_fakes import FakeSource

procfs = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs")


# --- the reader's cadence ---------------------------------------------------------------------


def _reader(tmp_path: Path) -> tuple[FakeClock, FakeProc, ProcessUsageReader]:
    """A process reader on a fake clock and a fake /proc under ``tmp_path``, every 5 s."""
    clock = FakeClock()
    proc = FakeProc(tmp_path / "proc")
    return clock, proc, ProcessUsageReader(clock=clock, proc_root=str(proc.root), interval_s=5.0)


def _reader_of_7(tmp_path: Path) -> tuple[FakeClock, FakeProc, ProcessUsageReader]:
    """:func:`_reader` after it read process 7 twice, 1 s apart (its first CPU %): two
    readings, 7 known."""
    clock, proc, reader = _reader(tmp_path)
    proc.put(7, ticks=10)
    reader.read([7])
    clock.advance(1.0)
    reader.read([7])
    return clock, proc, reader


@procfs
def test_between_readings_no_file_is_read_and_the_last_values_stand(tmp_path: Path) -> None:
    clock, proc, reader = _reader(tmp_path)
    tick = 1.0 / os.sysconf("SC_CLK_TCK")
    proc.put(7, ticks=1000)
    proc.put(8, ticks=1000)
    reader.read([7, 8])
    clock.advance(1.0)
    proc.put(7, ticks=1000 + round(0.5 / tick))
    got = reader.read([7, 8])  # the second reading of new processes: their first CPU %
    assert got[7].cpu_pct == pytest.approx(50.0)
    assert reader.readings == 4
    proc.put(7, ticks=1000 + round(4.5 / tick), rss_pages=999)
    for _ in range(3):  # 1 s apart, under 5 s since the last reading of all: nothing read
        clock.advance(1.0)
        got = reader.read([7, 8])
        assert got[7].cpu_pct == pytest.approx(50.0) and got[7].rss_bytes == 256 * proc_page()
    assert reader.readings == 4
    clock.advance(1.0)  # 5 s since the last reading of all
    got = reader.read([7, 8])
    assert reader.readings == 6
    # CPU % is the mean since 7's last reading: 4 CPU seconds in 4 s
    assert got[7].cpu_pct == pytest.approx(100.0) and got[7].rss_bytes == 999 * proc_page()


def proc_page() -> int:
    return os.sysconf("SC_PAGE_SIZE")


@procfs
def test_a_new_process_is_read_at_once_and_one_that_left_is_forgotten(tmp_path: Path) -> None:
    clock, proc, reader = _reader_of_7(tmp_path)
    proc.put(9, ticks=10, rss_pages=77)
    clock.advance(1.0)
    got = reader.read([7, 9])
    assert got[9].rss_bytes == 77 * proc_page()  # a new process does not wait for the cadence
    assert reader.readings == 3
    clock.advance(5.0)
    reader.read([9])
    assert set(reader._seen) == {9} and set(reader._fds) == {9}  # 7 left: its file is closed


@procfs
def test_watching_reads_at_every_call_from_the_next_one(tmp_path: Path) -> None:
    clock, _, reader = _reader_of_7(tmp_path)
    clock.advance(1.0)
    reader.read([7])
    assert reader.readings == 2
    reader.set_interval(0.0)
    for n in range(3):
        clock.advance(1.0)
        reader.read([7])
        assert reader.readings == 3 + n


# --- the NVML source: processes --------------------------------------------------------------


def _box_with(pids: list[int]) -> Any:
    box = h100_sxm_8gpu_box()
    box.devices[0].processes = [
        FakeProcess(pid=pid, used_memory_bytes=mib(64), sm_util_pct=10) for pid in pids
    ]
    return box


def test_nobody_watching_the_processes_host_columns_cost_a_reading_per_interval() -> None:
    pids = [os.getpid(), os.getppid()]
    fake = FakeNvml(_box_with(pids))
    with source_on(fake) as source:
        reader = source._proc_cache.usage
        source.poll()
        fake.advance(1.0)
        second = source.poll().processes
        assert all(p.host_cpu_pct is not None for p in second)  # after one poll, as before
        after = reader.readings
        for _ in range(int(PROCESS_HOST_INTERVAL_S) - 2):
            fake.advance(1.0)
            snap = source.poll()
            assert [p.host_rss_bytes for p in snap.processes] == [p.host_rss_bytes for p in second]
        assert reader.readings == after  # no /proc read on the polls in between
        fake.advance(1.0)
        source.poll()
        assert reader.readings == after + len(pids)
        source.watch_process_host(True)
        for n in (1, 2):
            fake.advance(1.0)
            source.poll()
            assert reader.readings == after + len(pids) * (1 + n)
        source.watch_process_host(False)
        fake.advance(1.0)
        source.poll()
        assert reader.readings == after + 3 * len(pids)


class _WatchedSource(FakeSource):
    def __init__(self, **kw: Any) -> None:
        super().__init__(2, **kw)
        self.watched: list[bool] = []  # the processes' host statistics
        self.gpm: list[bool] = []

    def watch_process_host(self, watched: bool) -> None:
        self.watched.append(watched)

    def watch_gpm(self, watched: bool) -> None:
        self.gpm.append(watched)


def test_session_watches_nest_and_carry_over_to_a_new_source() -> None:
    first, second = _WatchedSource(), _WatchedSource()
    session = TelemetrySession(first, history_capacity=MINIMAL_HISTORY)
    try:
        tab = session.watch_processes()
        exporter = session.watch_processes()
        assert first.watched == [True]
        tab()
        tab()  # twice: counted once
        assert first.watched == [True]
        session.set_source(second, start=False)
        assert second.watched == [True]
        exporter()
        assert second.watched == [True, False] and first.watched == [True]
        session.set_source(FakeSource(1), start=False)  # a source without a cadence: no call
        session.watch_processes()()
        session.watch_gpm()()
        assert second.gpm == [] and first.gpm == []  # GPM is watched apart
    finally:
        session.close()


def test_the_exporter_watches_only_with_per_process_series() -> None:
    for per_process in (False, True):
        src = _WatchedSource()
        with Exporter(src, port=0, interval_s=0.1, bench_values=None, per_process=per_process):
            assert src.watched == ([True] if per_process else [])
        assert src.watched == ([True, False] if per_process else [])


def test_the_shown_tab_watches_what_it_shows(make_window: Any) -> None:
    src = _WatchedSource()
    w = make_window(src, tab="topology")
    assert (src.watched, src.gpm) == ([], [])
    w.select_tab("processes")
    assert (src.watched, src.gpm) == ([True], [])
    w.select_tab("overview")
    assert (src.watched, src.gpm) == ([True, False], [True])
    w.select_tab("telemetry")  # still watched: no second call
    assert (src.watched, src.gpm) == ([True, False], [True])
    w.select_tab("health")
    assert (src.watched, src.gpm) == ([True, False], [True, False])
    shown = _WatchedSource()
    make_window(shown, tab="processes")
    assert (shown.watched, shown.gpm) == ([True], [])


# --- the NVML source: GPM ------------------------------------------------------------------


def test_gpm_is_not_entered_on_gpus_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    read_gpm = nvml_poll.read_gpm

    def counted(q: Any, dev: Any, now: float) -> Any:
        calls.append(dev.index)
        return read_gpm(q, dev, now)

    monkeypatch.setattr(nvml_poll, "read_gpm", counted)
    fake = FakeNvml(t4_box())
    with source_on(fake) as source:
        source.poll()
        assert calls == [0]  # asked once
        for _ in range(3):
            fake.advance(1.0)
            g = source.poll().gpus[0]
            assert g.prof_unavailable == "not supported on this GPU"
        assert calls == [0]


def _h100_gpu0_at_80() -> tuple[Any, FakeNvml]:
    """The 8x H100 box (and its fake NVML) whose GPU 0's GPM says 80 % of SMs active."""
    box = h100_sxm_8gpu_box()
    box.devices[0].gpm = FakeGpmActivity(sm_active_pct=80.0)
    return box, FakeNvml(box)


def test_gpm_is_sampled_every_interval_and_repeated_in_between() -> None:
    box, fake = _h100_gpu0_at_80()
    with source_on(fake) as source:
        gpus = len(box.devices)
        assert source.poll().gpus[0].prof_unavailable == PROF_FIRST_SAMPLE
        fake.advance(1.0)
        assert source.poll().gpus[0].prof_sm_active_pct == 80.0  # the pair at the next poll
        assert fake.calls["nvmlGpmSampleGet"] == 2 * gpus
        box.devices[0].gpm = FakeGpmActivity(sm_active_pct=20.0)
        fake.advance(GPM_INTERVAL_S / 2)
        assert source.poll().gpus[0].prof_sm_active_pct == 80.0  # repeated, no driver call
        assert fake.calls["nvmlGpmSampleGet"] == 2 * gpus
        assert fake.calls["nvmlGpmMetricsGet"] == gpus
        fake.advance(GPM_INTERVAL_S / 2)
        g = source.poll().gpus[0]
        assert g.prof_sm_active_pct == 20.0  # the mean over the interval since the last sample
        assert fake.calls["nvmlGpmSampleGet"] == 3 * gpus


def test_while_watched_gpm_is_sampled_at_every_poll() -> None:
    box, fake = _h100_gpu0_at_80()
    with source_on(fake) as source:
        gpus = len(box.devices)
        source.poll()
        fake.advance(1.0)
        source.poll()  # the pair: 2 samples per GPU
        fake.advance(1.0)
        source.poll()  # not due
        assert fake.calls["nvmlGpmSampleGet"] == 2 * gpus
        source.watch_gpm(True)
        box.devices[0].gpm = FakeGpmActivity(sm_active_pct=30.0)
        fake.advance(1.0)
        # Sampled at once: the mean over the 2 s since the last sample (80 %, then 30 %)
        assert source.poll().gpus[0].prof_sm_active_pct == 55.0
        for n in (4, 5):
            box.devices[0].gpm = FakeGpmActivity(sm_active_pct=10.0 * n)
            fake.advance(1.0)
            assert source.poll().gpus[0].prof_sm_active_pct == 10.0 * n
            assert fake.calls["nvmlGpmSampleGet"] == n * gpus
        source.watch_gpm(False)
        fake.advance(1.0)
        source.poll()
        assert fake.calls["nvmlGpmSampleGet"] == 5 * gpus  # back to its cadence


def test_after_a_failed_gpm_poll_the_next_poll_tries_again() -> None:
    _, fake = _h100_gpu0_at_80()
    with source_on(fake) as source:
        source.poll()
        fake.advance(1.0)
        source.poll()
        fake.advance(GPM_INTERVAL_S)
        fake.inject("nvmlGpmMetricsGet", error=999, device=0, times=1)
        assert source.poll().gpus[0].prof_unavailable == "GPM error: Unknown"
        fake.advance(1.0)  # under the interval, but the last poll failed
        assert source.poll().gpus[0].prof_sm_active_pct == 80.0


# --- the samples themselves ------------------------------------------------------------------


@pytest.mark.parametrize("cls", [GpuSample, ProcessSample, NvLinkSample, MigProfSample, HostSample])
def test_the_fast_constructor_keeps_the_dataclass_contract(cls: type) -> None:
    fields = dataclasses.fields(cls)
    required = [f for f in fields if f.default is dataclasses.MISSING]
    base = {f.name: k + 1 for k, f in enumerate(required)}
    plain = cls(**base)
    for f in fields:  # every default, and nothing shared but immutable defaults
        assert getattr(plain, f.name) == base.get(f.name, f.default), f.name
    values = {f.name: base.get(f.name, f"v{k}") for k, f in enumerate(fields)}
    by_position = cls(*values.values())
    assert by_position == cls(**values) and dataclasses.asdict(by_position) == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        by_position.__setattr__(fields[0].name, 0)
    with pytest.raises(TypeError):
        cls(**base, no_such_field=1)
    if required:
        with pytest.raises(TypeError):
            cls()


def test_throttle_names_per_mask_match_the_flag() -> None:
    for mask in (None, 0, 1, 4, 0x4 | 0x20, 0x1 | 0x80, 1 << 40):
        assert nvml_poll._throttle_names(mask) == ClockEventReason.from_mask(mask).throttle_names


# --- NVLink: the far end is fixed while a link stays up ---------------------------------------


def test_nvlink_far_end_is_read_once_and_again_when_the_link_state_changes() -> None:
    box = h100_sxm_8gpu_box()
    fake = FakeNvml(box)
    with source_on(fake, slow_interval_s=1.0) as source:  # every poll slow
        links = sum(len(d.nvlinks or ()) for d in box.devices)
        for _ in range(3):
            source.poll()
            fake.advance(1.0)
        # At the start (the static facts) and at each of the three polls
        assert fake.calls["nvmlDeviceGetNvLinkState"] == 4 * links
        assert fake.calls["nvmlDeviceGetNvLinkRemotePciInfo"] == links  # the first time only
        assert fake.calls["nvmlDeviceGetNvLinkVersion"] == links
        link = box.devices[0].nvlinks[3]  # type: ignore[index]
        link.active = False
        g = source.poll().gpus[0]
        assert g.nvlinks[3].active is False
        assert fake.calls["nvmlDeviceGetNvLinkRemotePciInfo"] == links + 1
        link.active, link.remote_pci_bus_id = True, "00000000:0B:00.0"  # up again, elsewhere
        fake.advance(1.0)
        g = source.poll().gpus[0]
        assert (g.nvlinks[3].active, g.nvlinks[3].remote_pci_bus_id) == (True, "00000000:0B:00.0")


def test_monitor_watches_what_it_shows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuprof.cli import main

    watched: list[str] = []
    for what in ("gpm", "processes"):
        original = getattr(TelemetrySession, f"watch_{what}")

        def watch(self: TelemetrySession, _what: str = what, _original: Any = original) -> Any:
            watched.append(_what)
            return _original(self)

        monkeypatch.setattr(TelemetrySession, f"watch_{what}", watch)
    assert main(["monitor", "--once", "--demo"]) == 0
    assert watched == ["gpm"]  # the SM active column
    assert main(["monitor", "--once", "--json", "--demo"]) == 0
    assert watched == ["gpm", "gpm", "processes"]  # and the processes' host fields
    capsys.readouterr()


# --- the cadences are stated where the values are shown ----------------------------------------


def test_the_cadences_are_stated_in_tooltips_and_help(
    make_window: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuprof.ui.telemetry.processes.model import COLUMN
    from PySide6.QtCore import Qt

    from gpuprof.cli import main
    from tests.test_true_utilization_outputs import UiGpmSource
    from tests.ui_fixtures import polls

    w = make_window(UiGpmSource(2, gpm=True))
    polls(w, 4)
    w.select_tab("overview")
    w.overview.refresh(force=True)
    assert f"otherwise every {GPM_INTERVAL_S:g} s" in w.overview.cards[0].sm.toolTip()
    model = w.processes.model
    for attr in ("host_cpu_pct", "host_rss_bytes"):
        tip = model.headerData(COLUMN[attr], Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert f"otherwise every {PROCESS_HOST_INTERVAL_S:g} s" in tip
    with pytest.raises(SystemExit):
        main(["exporter", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"instead of every {PROCESS_HOST_INTERVAL_S:g} s" in help_text


def test_profile_watches_gpm_for_the_jobs_true_utilization(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuprof.cli import main

    watched: list[str] = []
    original = TelemetrySession.watch_gpm

    def watch(self: TelemetrySession) -> Any:
        watched.append("gpm")
        return original(self)

    monkeypatch.setattr(TelemetrySession, "watch_gpm", watch)
    monkeypatch.setenv("GPUPROF_DATA_DIR", str(tmp_path))
    out = str(tmp_path / "job.gpuprof")
    job = [sys.executable, "-c", "pass"]
    assert main(["profile", "--demo", "--interval", "0.1", "--out", out, "--", *job]) == 0
    assert watched == ["gpm"]
    capsys.readouterr()
