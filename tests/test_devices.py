"""NVML GPUs ↔ torch's ``cuda:N`` (gpuprof.devices), and the check running each NVML GPU's
benchmarks, memory test and burn-in on the torch device that is that GPU: fake torch device
properties here; on a real GPU the mapping is compared with NVML's UUIDs."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, cast

import pytest

from gpuprof import devices
from gpuprof.check.model import CheckItem, CheckResult, Status
from gpuprof.devices import TorchDevice, cuda_map, normalise_bus_id, nvml_index_of, torch_devices
from gpuprof.telemetry.model import DeviceInfo
from gpuprof.telemetry.nvml import source as nvml
from tests.fakes.devices import make_fleet
from tests.fakes.fake_nvml import FakeNvml
from tests.fakes.fixtures import gemm_result


@dataclass(frozen=True)
class Gpu:
    """What NVML says of a GPU (the fields of DeviceInfo the mapping reads)."""

    index: int
    uuid: str | None
    pci_bus_id: str | None


UUIDS = [f"GPU-{i:08x}-1111-4000-8000-{i:012x}" for i in range(4)]
BUSES = [f"00000000:{0x18 + 8 * i:02X}:00.0" for i in range(4)]
GPUS = [Gpu(i, UUIDS[i], BUSES[i]) for i in range(4)]


@dataclass
class Props:
    """A stand-in for torch.cuda.get_device_properties(i)."""

    uuid: object = None
    pci_bus_id: object = None
    pci_domain_id: object = None
    pci_device_id: object = None


class Uuid:
    """torch's UUID object: str() without NVML's GPU- prefix."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class FakeTorch:
    def __init__(self, props: list[Props]) -> None:
        self.props = props
        self.cuda = self

    def is_available(self) -> bool:
        return bool(self.props)

    def device_count(self) -> int:
        return len(self.props)

    def get_device_properties(self, i: int) -> Props:
        return self.props[i]


def _ordinals(matches: dict[int, devices.CudaMatch]) -> dict[int, int | None]:
    return {i: m.ordinal for i, m in matches.items()}


def test_uuids_match_whatever_order_torch_lists_the_gpus_in() -> None:
    # FASTEST_FIRST (torch's default order) put NVML GPU 3 first.
    order = [3, 0, 2, 1]
    torch = FakeTorch([Props(uuid=Uuid(UUIDS[i][4:])) for i in order])
    found = cuda_map(GPUS, torch_devices(torch), env={})
    assert _ordinals(found) == {3: 0, 0: 1, 2: 2, 1: 3}
    assert {m.how for m in found.values()} == {"uuid"}
    assert found[3].device == "cuda:0"


def test_the_gpu_prefix_and_case_do_not_matter() -> None:
    torch = FakeTorch([Props(uuid=UUIDS[1].upper()), Props(uuid=UUIDS[0][4:].upper())])
    found = cuda_map(GPUS[:2], torch_devices(torch), env={})
    assert _ordinals(found) == {1: 0, 0: 1}


def test_pci_bus_ids_match_when_torch_tells_no_uuid() -> None:
    torch = FakeTorch(
        [Props(pci_bus_id=0x18 + 8 * i, pci_domain_id=0, pci_device_id=0) for i in (2, 3)]
    )
    found = cuda_map(GPUS, torch_devices(torch), env={"CUDA_VISIBLE_DEVICES": "2,3"})
    assert _ordinals(found) == {0: None, 1: None, 2: 0, 3: 1}
    assert found[2].how == "pci"
    assert found[0].reason == "not visible to CUDA: CUDA_VISIBLE_DEVICES=2,3"
    assert normalise_bus_id("00000000:1B:00.0") == normalise_bus_id("0000:1b:00.0")
    assert normalise_bus_id("garbage") is None


def test_a_uuid_that_matches_no_gpu_falls_back_to_the_pci_bus_id() -> None:
    # A MIG instance: torch gives its own UUID, NVML the whole GPU's; the bus id is the GPU's.
    torch = FakeTorch([Props(uuid="MIG-0000", pci_bus_id=0x20, pci_domain_id=0, pci_device_id=0)])
    found = cuda_map(GPUS, torch_devices(torch), env={})
    assert _ordinals(found) == {0: None, 1: 0, 2: None, 3: None}
    assert found[1].how == "pci"


def test_cuda_visible_devices_indices_when_torch_tells_nothing() -> None:
    torch = FakeTorch([Props(), Props()])
    found = cuda_map(GPUS, torch_devices(torch), env={"CUDA_VISIBLE_DEVICES": "2,3"})
    assert _ordinals(found) == {0: None, 1: None, 2: 0, 3: 1}
    assert found[2].how == "CUDA_VISIBLE_DEVICES"
    assert "CUDA_VISIBLE_DEVICES=2,3" in found[1].reason
    # Without torch at all, the environment alone decides.
    assert _ordinals(
        cuda_map(GPUS, None, env={"CUDA_VISIBLE_DEVICES": "3,1"}, ask_torch=False)
    ) == {
        0: None,
        1: 1,
        2: None,
        3: 0,
    }


def test_cuda_visible_devices_uuids_and_prefixes() -> None:
    env = {"CUDA_VISIBLE_DEVICES": f"{UUIDS[3]},{UUIDS[1][:12]}"}
    found = cuda_map(GPUS, None, env=env, ask_torch=False)
    assert _ordinals(found) == {0: None, 1: 1, 2: None, 3: 0}


def test_cuda_stops_reading_cuda_visible_devices_at_an_invalid_entry() -> None:
    found = cuda_map(GPUS, None, env={"CUDA_VISIBLE_DEVICES": "1,-1,2"}, ask_torch=False)
    assert _ordinals(found) == {0: None, 1: 0, 2: None, 3: None}


def test_an_ordinal_torch_does_not_have_is_hidden_not_swapped() -> None:
    # Two devices for torch, CUDA_VISIBLE_DEVICES names three: the third is not there.
    torch = FakeTorch([Props(), Props()])
    found = cuda_map(GPUS, torch_devices(torch), env={"CUDA_VISIBLE_DEVICES": "0,1,2"})
    assert _ordinals(found) == {0: 0, 1: 1, 2: None, 3: None}


def test_a_gpu_torch_does_not_list_is_hidden_with_the_reason() -> None:
    torch = FakeTorch([Props(uuid=UUIDS[i][4:]) for i in (0, 2, 3)])
    found = cuda_map(GPUS, torch_devices(torch), env={"CUDA_VISIBLE_DEVICES": "0,2,3"})
    assert found[1].ordinal is None and found[1].device is None
    assert found[1].reason == "not visible to CUDA: CUDA_VISIBLE_DEVICES=0,2,3"
    unset = cuda_map(GPUS, torch_devices(torch), env={})
    assert unset[1].ordinal is None and "not visible to CUDA" in unset[1].reason


def test_the_reverse_mapping_for_a_torch_device() -> None:
    torch = FakeTorch([Props(uuid=UUIDS[i][4:]) for i in (3, 1)])
    devs = torch_devices(torch)
    assert nvml_index_of(0, GPUS, devs, env={}) == 3
    assert nvml_index_of(1, GPUS, devs, env={}) == 1
    assert nvml_index_of(2, GPUS, devs, env={}) is None
    assert nvml_index_of(5, [], devs, env={}) == 5  # nothing to match against


def test_no_cuda_means_no_torch_devices() -> None:
    assert torch_devices(FakeTorch([])) is None


# --- the check -------------------------------------------------------------------------------

VISIBLE = (3, 0, 2)  # torch's cuda:0 is NVML GPU 3, cuda:1 GPU 0, cuda:2 GPU 2; GPU 1 hidden


def _check(monkeypatch: pytest.MonkeyPatch, level: str) -> tuple[CheckResult, list[str], Any]:
    from gpuprof.check import burnin
    from gpuprof.check.run import CheckRun

    pytest.importorskip("torch")
    box = make_fleet(4)
    for dev in box.devices:
        dev.util_gpu_pct = 100
        dev.clocks_event_reasons = 0
    from gpuprof.telemetry.reasons import ClockEventReason

    box.devices[3].clocks_event_reasons = int(ClockEventReason.HW_SLOWDOWN)
    fake = FakeNvml(box)
    monkeypatch.setattr(nvml, "pynvml", fake)
    uuids = [d.uuid for d in box.devices]
    monkeypatch.setattr(
        devices,
        "torch_devices",
        lambda torch=None: [TorchDevice(o, uuids[i][4:]) for o, i in enumerate(VISIBLE)],
    )
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in VISIBLE))
    runs: list[Any] = []
    real = functools.partial(burnin.run_burnin, n=32, interval_s=0.1, tensor_device=lambda d: "cpu")

    def run_burnin(*args: Any, **kw: Any) -> Any:
        runs.append(real(*args, **kw))
        return runs[-1]

    monkeypatch.setattr(burnin, "run_burnin", run_burnin)
    measured: list[str] = []

    def bench(dev: str) -> tuple[Any, ...]:
        measured.append(dev)
        return (gemm_result("bf16", 700.0, dtype="bf16"),)

    source = nvml.NvmlSource(clock=fake.clock)
    try:
        res = CheckRun(
            level=level, minutes=0.01, source=source, poll_interval_s=0.0, bench_results=bench
        ).run()
    finally:
        source.close()
    return res, measured, runs


def _items(res: CheckResult, item_id: str) -> dict[int | None, CheckItem]:
    found = [i for i in res.items if i.item_id == item_id]
    by = {i.gpu_index: i for i in found}
    assert len(by) == len(found), found
    return by


def test_the_check_runs_each_gpu_on_its_own_torch_device_and_skips_a_hidden_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    res, measured, runs = _check(monkeypatch, "burn-in")
    # NVML GPUs 0, 2, 3 in the check's order, each on the torch device that is it.
    assert measured == ["cuda:1", "cuda:2", "cuda:0"]
    gemm = _items(res, "perf.gemm_bf16")
    assert set(gemm) == {0, 2, 3}
    reason = "not visible to CUDA: CUDA_VISIBLE_DEVICES=3,0,2"
    (perf_skip,) = [i for i in res.items if i.group == "performance" and i.gpu_index == 1]
    assert perf_skip.status is Status.SKIP and perf_skip.reason == reason
    mem = _items(res, "diag.memtest")
    assert set(mem) == {0, 1, 2, 3}
    assert mem[1].status is Status.SKIP and mem[1].reason == reason
    # The burn-in loaded torch devices 1, 2, 0 and graded them as NVML GPUs 0, 2, 3.
    (run,) = runs
    assert [(x.device, x.gpu_index) for x in run.loads] == [
        ("cuda:1", 0),
        ("cuda:2", 2),
        ("cuda:0", 3),
    ]
    burn = _items(res, "diag.burnin")
    assert set(burn) == {0, 1, 2, 3}
    assert burn[1].status is Status.SKIP and burn[1].reason == reason
    # GPU 3 (torch's cuda:0) throttles: its own item fails, nobody else's.
    assert burn[3].status is Status.FAIL and "burnin.throttle FAIL" in burn[3].reason
    assert burn[0].status is Status.PASS and burn[2].status is Status.PASS
    throttle = {i.gpu_index: i.status for i in res.items if i.item_id == "burnin.throttle"}
    assert throttle == {0: Status.PASS, 2: Status.PASS, 3: Status.FAIL}


def test_the_check_on_one_hidden_gpu_skips_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuprof.check.run import CheckRun

    box = make_fleet(2)
    fake = FakeNvml(box)
    monkeypatch.setattr(nvml, "pynvml", fake)
    monkeypatch.setattr(devices, "torch_devices", lambda torch=None: None)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    seen: list[str] = []

    def bench(dev: str) -> tuple[Any, ...]:
        seen.append(dev)
        return ()

    source = nvml.NvmlSource(clock=fake.clock)
    try:
        res = CheckRun(
            device="cuda:1",
            source=source,
            poll_interval_s=0.0,
            bench_results=bench,
        ).run()
    finally:
        source.close()
    assert seen == []  # never measured on cuda:1, which is another GPU (or none)
    skipped = [i for i in res.items if i.group in ("performance", "diagnostics") and i.gpu_index]
    assert skipped and all(
        i.status is Status.SKIP and i.reason == "not visible to CUDA: CUDA_VISIBLE_DEVICES=0"
        for i in skipped
    )


@pytest.mark.gpu
def test_gpu_every_visible_gpu_maps_to_the_nvml_gpu_of_its_uuid() -> None:
    import torch

    from gpuprof.bench.runner import open_run_telemetry

    source = open_run_telemetry("cuda:0")
    assert source is not None
    try:
        infos = list(source.devices())
    finally:
        source.close()
    found = cuda_map(infos)
    visible = [m for m in found.values() if m.ordinal is not None]
    assert len(visible) == torch.cuda.device_count(), found
    for info in infos:
        match = found[info.index]
        if match.ordinal is None:
            continue
        props = torch.cuda.get_device_properties(match.ordinal)
        assert devices.normalise_uuid(props.uuid) == devices.normalise_uuid(info.uuid), match
        assert match.how in ("uuid", "pci"), match
        assert nvml_index_of(match.ordinal, infos) == info.index


def test_a_benchs_telemetry_gpu_is_the_nvml_gpu_of_its_torch_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpuprof.bench.environment import nvml_index_for

    pytest.importorskip("torch")

    class Source:
        def devices(self) -> list[Gpu]:
            return GPUS

    # CUDA_VISIBLE_DEVICES=2,1: torch's cuda:0 is NVML GPU 2 (the bench used to watch GPU 0).
    monkeypatch.setattr(
        devices,
        "torch_devices",
        lambda torch=None: [TorchDevice(0, UUIDS[2][4:]), TorchDevice(1, UUIDS[1][4:])],
    )
    assert nvml_index_for("cuda:0", Source()) == 2
    assert nvml_index_for("cuda:1", Source()) == 1
    assert nvml_index_for("cuda:2", Source()) is None  # no GPU's telemetry rather than another's
    assert nvml_index_for("cpu", Source()) is None


def test_a_burn_in_on_torch_devices_grades_them_as_their_nvml_gpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpuprof.check.burnin import run_burnin

    pytest.importorskip("torch")
    monkeypatch.setattr(
        devices,
        "torch_devices",
        lambda torch=None: [TorchDevice(0, UUIDS[2][4:]), TorchDevice(1, UUIDS[1][4:])],
    )
    infos = cast("list[DeviceInfo]", GPUS)
    run = run_burnin(
        ["cuda:0", "cuda:1"], seconds=0.2, n=16, devices=infos, tensor_device=lambda d: "cpu"
    )
    assert [(x.device, x.gpu_index) for x in run.loads] == [("cuda:0", 2), ("cuda:1", 1)]
    given = run_burnin(
        ["cuda:0"], seconds=0.1, n=16, nvml_indices=[3], tensor_device=lambda d: "cpu"
    )
    assert [x.gpu_index for x in given.loads] == [3]
    with pytest.raises(ValueError):
        run_burnin(["cuda:0"], seconds=0.1, nvml_indices=[0, 1])


def test_the_plan_counts_only_the_gpus_cuda_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuprof.check.run import CheckRun

    fake = FakeNvml(make_fleet(4))
    monkeypatch.setattr(nvml, "pynvml", fake)
    monkeypatch.setattr(devices, "torch_devices", lambda torch=None: None)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,3")
    source = nvml.NvmlSource(clock=fake.clock)
    try:
        plan = CheckRun(source=source, poll_interval_s=0.0).plan()
    finally:
        source.close()
    assert plan.gpu_count == 2
