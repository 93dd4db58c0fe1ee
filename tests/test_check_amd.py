"""``check --level quick`` on AMD GPUs (the fake amdsmi): inventory (XGMI, partitions, ECC mode,
driver) and health (findings, ECC per block, no XID); and a CPU-only torch beside GPUs is a
skip with its reason, not a crash."""

from __future__ import annotations

from typing import Any

import pytest

from gpuprof.check.model import CheckItem, CheckResult, Status
from gpuprof.check.run import CheckRun
from gpuprof.telemetry.amd import AmdSmiSource
from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi


def _run(box: str, *, fake: FakeAmdSmi | None = None, **kw: Any) -> CheckResult:
    fake = fake or FakeAmdSmi(BOXES[box]())
    source = AmdSmiSource(smi=fake, clock=fake.clock, slow_interval_s=0.0)
    kw.setdefault("bench_results", lambda dev: ())
    try:
        return CheckRun(source=source, poll_interval_s=0.0, **kw).run()
    finally:
        source.close()


def _items(res: CheckResult, item_id: str) -> list[CheckItem]:
    return [i for i in res.items if i.item_id == item_id]


def test_quick_inventory_of_eight_mi300x() -> None:
    res = _run("mi300x8")
    assert _items(res, "inventory.gpu_count")[0].measured == 8
    models = _items(res, "inventory.model")
    assert len(models) == 8 and all(
        i.status is Status.PASS and i.measured == "MI300X" for i in models
    )
    xgmi = _items(res, "inventory.xgmi")
    assert len(xgmi) == 8 and all(i.status is Status.PASS for i in xgmi)
    assert "7:XGMI" in str(xgmi[0].measured)
    parts = _items(res, "inventory.partition")
    assert {i.measured for i in parts} == {"SPX/NPS1"} and parts[0].status is Status.PASS
    assert all(i.status is Status.PASS for i in _items(res, "inventory.ecc_mode"))
    assert _items(res, "inventory.driver")[0].measured == "amdgpu 6.7.0"
    # NVIDIA-only items are not asked of an AMD GPU.
    assert not _items(res, "inventory.nvlink") and not _items(res, "inventory.persistence")
    assert not _items(res, "inventory.mig")


def test_quick_health_of_eight_mi300x() -> None:
    res = _run("mi300x8")
    power = _items(res, "health.power_throttling")
    assert [i.gpu_index for i in power] == [3] and power[0].status is Status.WARN
    ecc = _items(res, "health.ecc")
    assert len(ecc) == 8 and all(i.status is Status.PASS for i in ecc)
    xid = _items(res, "health.xid")[0]
    assert xid.status is Status.SKIP and "NVIDIA" in xid.reason


def test_new_uncorrected_ecc_errors_during_the_check_fail() -> None:
    fake = FakeAmdSmi(BOXES["mi250x2"]())
    calls = {"n": 0}
    original = fake.amdsmi_get_gpu_total_ecc_count

    def ecc_grows(h: Any) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] > 2:  # after the first window: a UMC uncorrectable error on GCD 0
            fake.box.gpus[0].ecc["UMC"] = (2, 1, 0)
        return original(h)

    fake.amdsmi_get_gpu_total_ecc_count = ecc_grows  # type: ignore[method-assign]
    res = _run("mi250x2", fake=fake)
    by_gpu = {i.gpu_index: i for i in _items(res, "health.ecc")}
    assert by_gpu[0].status is Status.FAIL and "+1 uncorrected" in str(by_gpu[0].measured)
    assert by_gpu[1].status is Status.PASS


def test_cpx_partitions_warn() -> None:
    res = _run("mi300x_cpx")
    parts = _items(res, "inventory.partition")
    assert parts and all(i.status is Status.WARN and i.measured == "CPX/NPS4" for i in parts)
    assert "compute-partition SPX" in parts[0].hint


def test_cpu_only_torch_beside_gpus_skips_with_the_reason() -> None:
    """Before: torch.cuda raised 'Torch not compiled with CUDA enabled' out of the check."""
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this torch sees GPUs")
    res = _run("mi210", bench_results=None)
    perf = _items(res, "performance")
    assert perf and perf[0].status is Status.SKIP and "ROCm" in perf[0].reason
    mem = _items(res, "diag.memtest")
    assert mem and mem[0].status is Status.SKIP and "CPU-only" in mem[0].reason


def test_a_lowered_power_cap_is_a_finding_with_the_amd_smi_hint() -> None:
    fake = FakeAmdSmi(BOXES["mi300x8"]())
    fake.box.gpus[5].power_cap_uw = 600_000_000  # µW: 600 W of the default 750 W
    res = _run("mi300x8", fake=fake)
    found = _items(res, "health.power_limit_below_default")
    assert [i.gpu_index for i in found] == [5]
    assert "amd-smi set -g 5 --power-cap 750" in found[0].hint
