"""Pytest fixtures shared across test modules (registered in tests/conftest.py)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gpuprof.telemetry.amd import lib as amd_lib
from gpuprof.telemetry.nvml import source as nvml
from tests.fakes.devices import BOXES
from tests.fakes.fake_amdsmi import BOXES as AMD_BOXES
from tests.fakes.fake_amdsmi import FakeAmdSmi
from tests.fakes.fake_nvml import FakeBox, FakeNvml


def gemm_result(
    case: str,
    tflops: float,
    *,
    dtype: str = "fp32",
    size: int = 1024,
    peak: float | None = None,
    **fields: Any,
) -> Any:
    """A square GEMM result measured at exactly ``tflops`` (no torch), % of ``peak`` if given;
    ``fields``: GemmResult's others (status, throttle_reasons, ...) or values to replace."""
    from gpuprof.bench.base import GemmResult

    t = 2.0 * size**3 / (tflops * 1e12)
    values: dict[str, Any] = dict(
        bench="gemm",
        case=case,
        dtype=dtype,
        m=size,
        n=size,
        k=size,
        iterations=5,
        time_mean_s=t,
        time_median_s=t,
        time_min_s=t,
        tflops_mean=tflops,
        tflops_median=tflops,
        tflops_max=tflops,
        peak_tflops=peak,
        pct_of_peak=100.0 * tflops / peak if peak else None,
    )
    return GemmResult(**{**values, **fields})


def memory_result(
    case: str,
    bandwidth_bytes_s: float,
    *,
    direction: str = "host",
    pinned: bool | None = None,
    size: int = 2**30,
    max_bytes_s: float | None = None,
    **fields: Any,
) -> Any:
    """A copy of ``size`` bytes in ``direction`` measured at ``bandwidth_bytes_s`` (bytes
    copied a second; the median of 5 samples, the fastest at ``max_bytes_s``, the median if not
    given); ``fields``: MemoryResult's others (traffic_factor, verified, throttle_reasons, ...)."""
    from gpuprof.bench.base import MemoryResult

    return MemoryResult(
        bench="memory",
        case=case,
        direction=direction,
        pinned=pinned,
        size_bytes=size,
        samples=5,
        time_median_s=size / bandwidth_bytes_s,
        bandwidth_bytes_s=bandwidth_bytes_s,
        bandwidth_max_bytes_s=bandwidth_bytes_s if max_bytes_s is None else max_bytes_s,
        **fields,
    )


def all_reduce_result(
    case: str,
    world: int,
    busbw_bytes_s: float,
    *,
    p50_s: float,
    p99_s: float,
    backend: str = "nccl",
    size: int = 2**30,
    dtype: str = "bf16",
) -> Any:
    """An all-reduce of ``size`` bytes over ``world`` ranks at ``busbw_bytes_s`` bus bandwidth
    (its algorithm bandwidth derived as nccl-tests does: busbw × n / 2(n-1)), 20 iterations
    with the latencies given."""
    from gpuprof.bench.base import CollectiveResult

    return CollectiveResult(
        bench="collective",
        case=case,
        op="all_reduce",
        backend=backend,
        world_size=world,
        size_bytes=size,
        dtype=dtype,
        iterations=20,
        latency_p50_s=p50_s,
        latency_p99_s=p99_s,
        algbw_bytes_s=busbw_bytes_s * world / (2 * (world - 1)),
        busbw_bytes_s=busbw_bytes_s,
    )


def bench_case(bench: str, name: str, *results: Any, **fields: Any) -> Any:
    """A case of a benchmark run holding ``results``; SUCCESS unless ``fields`` says
    otherwise (``fields``: CaseRecord's others: state, notes, elapsed_s, budget_s)."""
    from gpuprof.bench.base import RunState
    from gpuprof.bench.runner import CaseRecord

    fields.setdefault("state", RunState.SUCCESS)
    return CaseRecord(bench=bench, name=name, results=results, **fields)


def bench_run(
    *cases: Any,
    run_id: str = "r",
    device: str = "cpu",
    started_s: float = 0.0,
    seconds: float = 1.0,
    **fields: Any,
) -> Any:
    """A benchmark run of the quick suite made of ``cases`` on ``device``, ``seconds`` long,
    ended SUCCESS unless ``fields`` says otherwise (``fields``: BenchRun's others: state, only,
    environment (default: an empty one), telemetry, notes)."""
    from gpuprof.bench.base import RunState
    from gpuprof.bench.runner import BenchRun, Environment

    fields.setdefault("state", RunState.SUCCESS)
    fields.setdefault("only", ())
    fields.setdefault("environment", Environment())
    return BenchRun(
        run_id=run_id,
        suite="quick",
        device=device,
        started_s=started_s,
        ended_s=started_s + seconds,
        cases=cases,
        **fields,
    )


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, start_s: float = 1000.0) -> None:
        self.now_s = start_s

    def __call__(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> None:
        self.now_s += seconds


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_fake_nvml(monkeypatch: pytest.MonkeyPatch) -> Callable[[FakeBox], FakeNvml]:
    """Factory: install a fake NVML for ``box`` as ``gpuprof.telemetry.nvml.pynvml``."""

    def install(box: FakeBox) -> FakeNvml:
        fake = FakeNvml(box)
        monkeypatch.setattr(nvml, "pynvml", fake)
        return fake

    return install


@pytest.fixture(params=["h100x8"])
def fake_nvml(
    request: pytest.FixtureRequest, make_fake_nvml: Callable[[FakeBox], FakeNvml]
) -> FakeNvml:
    """A fresh fake NVML installed for the production nvml.py.

    The 8x H100 NVSwitch box by default; pick another with
    ``@pytest.mark.parametrize("fake_nvml", ["rtx4090x2"], indirect=True)`` (names in
    ``tests.fakes.devices.BOXES``).
    """
    return make_fake_nvml(BOXES[request.param]())


@pytest.fixture
def nvml_source(fake_nvml: FakeNvml) -> Iterator[Any]:
    """An NvmlSource on ``fake_nvml``, running on the fake's clock; closed afterwards."""
    source = nvml.NvmlSource(
        clock=fake_nvml.clock, wall_clock=lambda: 1_700_000_000.0 + fake_nvml.clock()
    )
    yield source
    source.close()


def gpm_source(box: FakeBox) -> tuple[FakeNvml, nvml.NvmlSource]:
    """A fake NVML on ``box`` and a source reading it that samples GPM at every poll (the GPM
    tests poll once a second; the default cadence, GPM_INTERVAL_S, has tests of its own in
    test_telemetry_poll_cost.py)."""
    from gpuprof.telemetry.nvml.gpm import GPM_MIN_INTERVAL_S

    fake = FakeNvml(box)
    return fake, nvml.NvmlSource(nvml=fake, clock=fake.clock, gpm_interval_s=GPM_MIN_INTERVAL_S)


@contextlib.contextmanager
def source_on(fake: FakeNvml, **kwargs: Any) -> Iterator[nvml.NvmlSource]:
    """An NvmlSource reading ``fake`` on the fake's clock (``kwargs``: its other arguments),
    closed when the block ends, failed or not."""
    source = nvml.NvmlSource(nvml=fake, clock=fake.clock, **kwargs)
    try:
        yield source
    finally:
        source.close()


@pytest.fixture
def install_amd(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], FakeAmdSmi]:
    """``install_amd(box)``: a fake amdsmi for the named AMD box (``tests.fakes.fake_amdsmi.
    BOXES``) where ``import amdsmi`` finds it, as the real one would be."""

    def install(box: str) -> FakeAmdSmi:
        fake = FakeAmdSmi(AMD_BOXES[box]())
        monkeypatch.setattr(amd_lib, "amdsmi", None)  # nothing cached from another test
        monkeypatch.setitem(sys.modules, "amdsmi", fake)
        return fake

    return install


@pytest.fixture
def sleep_child() -> Iterator[subprocess.Popen[bytes]]:
    """A ``sleep 60`` child process to signal; killed after the test if still there."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


__all__ = [
    "bench_case",
    "bench_run",
    "FakeClock",
    "fake_clock",
    "fake_nvml",
    "gpm_source",
    "install_amd",
    "make_fake_nvml",
    "nvml_source",
    "sleep_child",
    "source_on",
]
