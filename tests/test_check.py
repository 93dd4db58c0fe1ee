"""gpuprof check: verdict, thresholds, exit codes, --expect, inventory via the fake NVML, grading
of benchmark results against references, the reference table's citations."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuprof.bench.base import CancelToken, Result
from gpuprof.catalog.specs import load_specs
from gpuprof.check.inventory import parse_expect
from gpuprof.check.model import (
    CheckItem,
    CheckResult,
    Status,
    Thresholds,
    exit_code,
    load_thresholds,
    result_to_dict,
    verdict,
)
from gpuprof.check.perf import grade_runs, pcie_bytes_s, perf_runs
from gpuprof.check.reference import (
    DERIVED_RATIO,
    Reference,
    golden_rows,
    load_packaged,
    lookup,
    read_reference_file,
    reference_file_dict,
)
from gpuprof.check.run import CheckRun, parse_device
from gpuprof.errors import InputError
from gpuprof.telemetry.nvml import source as nvml
from gpuprof.telemetry.nvml.events import XidWatch
from tests.fakes.devices import make_fleet
from tests.fakes.fake_nvml import FakeBox, FakeNvml
from tests.fakes.fixtures import all_reduce_result, gemm_result, memory_result
from tests.helpers.check import perf_item

ROOT = Path(__file__).resolve().parents[1]


def _item(status: Status) -> CheckItem:
    return CheckItem(item_id="x", group="performance", status=status)


# --- verdict, thresholds, exit codes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "want", "code"),
    [
        ([], Status.PASS, 0),
        ([Status.PASS, Status.SKIP], Status.PASS, 0),
        ([Status.SKIP], Status.PASS, 0),
        ([Status.PASS, Status.WARN, Status.SKIP], Status.WARN, 3),
        ([Status.WARN, Status.FAIL], Status.FAIL, 1),
        ([Status.FAIL, Status.PASS], Status.FAIL, 1),
    ],
)
def test_verdict_and_exit_code(statuses: list[Status], want: Status, code: int) -> None:
    items = [_item(s) for s in statuses]
    assert verdict(items) is want
    assert exit_code(items) == code


@pytest.mark.parametrize(
    ("statuses", "want", "code"),
    [
        ([], Status.INCOMPLETE, 130),  # cancelled before anything ran
        ([Status.SKIP], Status.INCOMPLETE, 130),
        ([Status.PASS, Status.SKIP], Status.INCOMPLETE, 130),
        ([Status.PASS, Status.WARN, Status.SKIP], Status.INCOMPLETE, 130),
        ([Status.PASS, Status.FAIL, Status.SKIP], Status.FAIL, 1),  # a failure stands
    ],
)
def test_a_cancelled_check_is_incomplete_unless_it_failed(
    statuses: list[Status], want: Status, code: int
) -> None:
    """The terminal, the Check tab, the JSON and the report page all read the verdict here."""
    from gpuprof.report.check import check_section

    items = tuple(_item(s) for s in statuses)
    res = CheckResult(
        level="quick", device="cpu", started_s=0.0, ended_s=1.0, items=items, cancelled=True
    )
    assert res.verdict is want and res.exit_code == code
    assert verdict(items, cancelled=True) is want
    data = result_to_dict(res)
    assert (data["verdict"], data["exit_code"]) == (want.value, code)
    section = check_section(json.loads(json.dumps(data)))
    assert (section.verdict, section.exit_code) == (want.value, code)


@pytest.mark.parametrize(
    ("ratio", "want"),
    [
        (1.2, Status.PASS),
        (0.90, Status.PASS),
        (0.8999, Status.WARN),
        (0.75, Status.WARN),
        (0.7499, Status.FAIL),
        (0.0, Status.FAIL),
        (None, Status.SKIP),
        (float("nan"), Status.SKIP),
    ],
)
def test_default_thresholds(ratio: float | None, want: Status) -> None:
    assert Thresholds().grade(ratio) is want


def test_a_thresholds_file_overrides_the_ratios(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"pass": 0.95, "warn": 0.5}))
    t = load_thresholds(path)
    assert (t.pass_ratio, t.warn_ratio) == (0.95, 0.5)
    assert (
        t.grade(0.93) is Status.WARN and t.grade(0.6) is Status.WARN and t.grade(0.4) is Status.FAIL
    )
    path.write_text(json.dumps({"warn": 0.6}))
    assert load_thresholds(path) == Thresholds(0.90, 0.6)


@pytest.mark.parametrize(
    "text",
    [
        '{"pass": 0.5, "warn": 0.8}',
        '{"pass": "0.9"}',
        '{"pass": true}',
        '{"pass": 0}',
        '{"pass": NaN}',
        '{"pass": 3}',
        '{"fail": 0.5}',
        "{}",
        "[0.9, 0.75]",
        '{"pass": 1e999}',
    ],
)
def test_a_bad_thresholds_file_is_an_input_error_naming_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad-thresholds.json"
    path.write_text(text)
    with pytest.raises(InputError, match=r"bad-thresholds\.json"):
        load_thresholds(path)


def test_result_json_is_strict_and_keeps_the_items() -> None:
    from gpuprof.jsonout import dumps

    res = CheckResult(
        level="quick",
        device="cpu",
        started_s=1.0,
        ended_s=2.0,
        items=(
            _item(Status.WARN),
            CheckItem(item_id="y", group="health", status=Status.PASS, ratio=float("nan")),
        ),
    )
    data = json.loads(dumps(result_to_dict(res)))
    assert data["verdict"] == "WARN" and data["exit_code"] == 3
    assert [i["status"] for i in data["items"]] == ["WARN", "PASS"]
    assert data["items"][1]["ratio"] is None


# --- --expect and --device -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "model", "count"),
    [
        ("8xH100-SXM", "H100 SXM", 8),
        ("4×A100-80GB", "A100 80GB SXM", 4),
        ("h100", "H100 SXM", None),
        ("2 x H200", "H200", 2),
    ],
)
def test_parse_expect_short_specs(text: str, model: str, count: int | None) -> None:
    e = parse_expect(text, instances=[])
    assert (e.gpu_model, e.gpu_count) == (model, count)
    assert e.memory_gib == load_specs()[model].memory_gib


def test_parse_expect_an_instance_type_from_the_catalog() -> None:
    from gpuprof.catalog.instances import load_catalog

    inst = next(
        i
        for i in load_catalog().instances
        if i.gpu_known and i.gpu_count == 8 and i.gpu_model == "H100 SXM"
    )
    e = parse_expect(inst.instance.upper())
    assert (e.gpu_model, e.gpu_count) == ("H100 SXM", 8)


@pytest.mark.parametrize("text", ["8xNoSuchGPU", "100xH100", "p99.none", "0xH100"])
def test_parse_expect_refuses_what_it_cannot_read(text: str) -> None:
    with pytest.raises(InputError, match="--expect"):
        parse_expect(text, instances=[])


def test_parse_device() -> None:
    assert parse_device(None) == "all" and parse_device("CPU") == "cpu"
    assert parse_device("cuda:03") == "cuda:3"
    for bad in ("cuda", "cuda:x", "gpu0", "cuda:²", "cuda:99999999"):
        with pytest.raises(InputError):
            parse_device(bad)


# --- inventory and health through the fake NVML ----------------------------------------------


def _run_on(
    box: FakeBox | FakeNvml,
    monkeypatch: pytest.MonkeyPatch,
    *,
    on_item: Callable[[CheckItem], None] | None = None,
    cancel: CancelToken | None = None,
    **kw: Any,
) -> CheckResult:
    """A check of ``box`` (or of a fake NVML made before, to act on it during the run) with
    ``kw`` as CheckRun's other arguments; nothing is measured unless ``bench_results`` says."""
    fake = box if isinstance(box, FakeNvml) else FakeNvml(box)
    monkeypatch.setattr(nvml, "pynvml", fake)
    source = nvml.NvmlSource(clock=fake.clock)
    kw.setdefault("bench_results", lambda dev: ())
    try:
        return CheckRun(source=source, poll_interval_s=0.0, **kw).run(
            on_item=on_item, cancel=cancel
        )
    finally:
        source.close()


def _by_id(res: CheckResult, item_id: str) -> list[CheckItem]:
    return [i for i in res.items if i.item_id == item_id]


def test_expecting_8_h100_on_a_4_gpu_machine_fails_with_a_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    res = _run_on(make_fleet(4), monkeypatch, expect=parse_expect("8xH100-SXM", instances=[]))
    (count,) = _by_id(res, "inventory.gpu_count")
    assert count.status is Status.FAIL and (count.measured, count.expected) == (4, 8)
    assert "nvidia-smi -L" in count.hint
    assert res.verdict is Status.FAIL and res.exit_code == 1
    assert [i.status for i in _by_id(res, "inventory.model")] == [Status.PASS] * 4
    groups = [i.group for i in res.items]
    assert groups == sorted(groups, key=["inventory", "health", "performance", "diagnostics"].index)


def test_the_hgx_box_matches_its_own_spec_with_nvlink_to_every_peer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    res = _run_on(make_fleet(8), monkeypatch, expect=parse_expect("8xH100-SXM", instances=[]))
    assert _by_id(res, "inventory.gpu_count")[0].status is Status.PASS
    links = _by_id(res, "inventory.nvlink")
    assert len(links) == 8 and all(i.status is Status.PASS for i in links), links
    mems = _by_id(res, "inventory.memory")
    assert all(i.status is Status.PASS and i.unit == "GiB" for i in mems)
    assert res.identity["gpus"][0]["uuid"] and res.identity["driver_version"]
    assert _by_id(res, "health.xid")[0].status is Status.SKIP


def test_expecting_another_model_fails_each_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    res = _run_on(make_fleet(2), monkeypatch, expect=parse_expect("2xA100-80GB", instances=[]))
    assert [i.status for i in _by_id(res, "inventory.model")] == [Status.FAIL, Status.FAIL]


def test_device_cuda_n_checks_one_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    res = _run_on(make_fleet(4), monkeypatch, device="cuda:2")
    assert {i.gpu_index for i in res.items if i.gpu_index is not None} == {2}


def test_health_ecc_and_pending_remap() -> None:
    from gpuprof.check.items import health_items
    from gpuprof.telemetry.model import EccCounts, SystemInfo
    from tests.fakes.devices import h100_info

    clean = EccCounts.clean()
    worse = EccCounts(volatile_uncorrected=2, volatile_corrected=0, remapped_rows_pending=True)
    items = health_items([h100_info(0)], SystemInfo(), [], {0: clean}, {0: worse}, [(0, 48)])
    by = {i.item_id: i for i in items}
    assert by["health.ecc"].status is Status.FAIL
    assert (
        by["health.retirement"].status is Status.FAIL
        and "nvidia-smi -r" in by["health.retirement"].hint
    )
    assert by["health.xid"].status is Status.FAIL and "XID 48" in str(by["health.xid"].measured)
    ok = health_items([h100_info(0)], SystemInfo(), [], {0: clean}, {0: clean}, [])
    assert {i.item_id: i.status for i in ok}["health.ecc"] is Status.PASS
    assert {i.item_id: i.status for i in ok}["health.xid"] is Status.PASS


# --- performance grading ---------------------------------------------------------------------


def test_gemm_is_graded_against_the_published_reference_and_the_peak() -> None:
    spec = load_specs()["H100 SXM"]
    results: list[Result] = [
        gemm_result("bf16", 600.0, dtype="bf16"),
        gemm_result("bf16", 720.0, dtype="bf16"),
    ]
    (item,) = grade_runs([results], device="cuda", spec=spec, thresholds=Thresholds())
    assert item.item_id == "perf.gemm_bf16" and item.expected == 794.5
    assert item.ratio == pytest.approx(720 / 794.5, abs=1e-4) and item.status is Status.PASS
    assert "ml-engineering" in item.source and "published" in item.source
    assert "73% of spec peak 989" in item.reason
    (low,) = grade_runs(
        [[gemm_result("bf16", 400.0, dtype="bf16")]],
        device="cuda",
        spec=spec,
        thresholds=Thresholds(),
    )
    assert low.status is Status.FAIL and low.hint


def test_without_a_published_value_the_reference_is_derived_and_says_so() -> None:
    spec = load_specs()["L40S"]
    (item,) = grade_runs(
        [[gemm_result("bf16", 250.0, dtype="bf16")]],
        device="cuda",
        spec=spec,
        thresholds=Thresholds(),
    )
    assert item.expected == pytest.approx(362 * DERIVED_RATIO)
    assert item.source.startswith("derived:") and "not published" in item.source


def test_a_golden_reference_wins_over_the_published_one() -> None:
    golden = {
        ("H100 SXM", "gemm_bf16"): Reference(
            "H100 SXM", "gemm_bf16", 700.0, "TFLOPS", "golden", "golden machine a"
        )
    }
    ref = lookup("H100 SXM", "gemm_bf16", peak=989.0, unit="TFLOPS", golden=golden)
    assert ref is not None and ref.value == 700.0


def test_pinned_h2d_against_the_pcie_link_and_skips_kept() -> None:
    assert pcie_bytes_s(5, 16) == pytest.approx(63.008e9)
    spec = load_specs()["H100 SXM"]
    mem = memory_result("h2d pinned", 30e9, direction="h2d", pinned=True, max_bytes_s=31e9)
    skip = Result(bench="p2p", case="p2p", status="skipped: needs 2 CUDA devices")
    items = grade_runs(
        [[mem, skip]], device="cuda", spec=spec, thresholds=Thresholds(), pcie=(5, 16)
    )
    h2d = items[0]
    assert h2d.item_id == "perf.memcpy_h2d" and h2d.status is Status.FAIL  # 30 of 50.4 GB/s
    assert items[1].status is Status.SKIP and "needs 2 CUDA devices" in items[1].reason


# --- the reference table and golden files ---------------------------------------------------


def test_every_reference_row_is_cited_and_names_a_known_gpu() -> None:
    path = ROOT / "resources" / "reference_results.csv"
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    assert rows
    specs = load_specs()
    for row in rows:
        assert row["source"].strip() and row["kind"] in ("published", "derived"), row
        assert row["gpu_model"] in specs, row
        assert float(row["value"]) > 0
        peak = specs[row["gpu_model"]].peak_tflops(row["metric"].removeprefix("gemm_"))
        if row["unit"] == "TFLOPS" and peak:
            assert float(row["value"]) < peak, row  # an achieved value never beats the peak
    assert len(load_packaged()) == len(rows)


def test_golden_rows_round_trip(tmp_path: Path) -> None:
    items = (
        perf_item("perf.gemm_bf16", Status.PASS, 780.0, 794.5, 0.98, gpu_index=0),
        perf_item("perf.gemm_bf16", Status.PASS, 760.0, 794.5, 0.96, gpu_index=1),
        perf_item("perf.gemm_fp32", Status.PASS, 0.2, 0.21, 0.95),
    )
    res = CheckResult(
        level="quick",
        device="all",
        started_s=0,
        ended_s=1,
        items=items,
        identity={
            "gpus": [
                {"index": 0, "name": "NVIDIA H100 80GB HBM3"},
                {"index": 1, "name": "NVIDIA H100 80GB HBM3"},
            ]
        },
    )
    rows = golden_rows(res, perf_runs(res.device))
    assert {(r.gpu_model, r.metric, r.value) for r in rows} == {
        ("H100 SXM", "gemm_bf16", 760.0),
        ("CPU", "gemm_fp32", 0.2),
    }
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(reference_file_dict(rows, machine="node-a", date="2026-12-01")))
    back = read_reference_file(path)
    assert back[("H100 SXM", "gemm_bf16")].value == 760.0
    assert "node-a" in back[("H100 SXM", "gemm_bf16")].source


def test_a_cancelled_check_reports_what_it_did_and_skips_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cancel = CancelToken()

    def measured(dev: str) -> tuple[Result, ...]:
        cancel.cancel()  # Ctrl-C while the first GPU is measured
        return (gemm_result("bf16", 700.0, dtype="bf16"),)

    seen: list[str] = []
    on_item: Callable[[CheckItem], None] = lambda i: seen.append(i.item_id)  # noqa: E731
    res = _run_on(
        make_fleet(2), monkeypatch, bench_results=measured, on_item=on_item, cancel=cancel
    )
    assert res.cancelled and res.exit_code == 130  # incomplete, not a PASS
    assert any(i.item_id == "perf.gemm_bf16" for i in res.items)
    assert any(
        i.item_id.startswith("performance.cuda:1") and i.status is Status.SKIP for i in res.items
    )
    assert any(i.group == "diagnostics" and i.reason == "cancelled" for i in res.items)
    assert len(seen) == len(res.items)


def test_an_xid_during_the_check_fails_it_through_the_nvml_event_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeNvml(make_fleet(4))
    watch = XidWatch(nvml=fake, wait_ms=10)
    assert watch.start()

    def measured(dev: str) -> tuple[Result, ...]:
        if dev == "cuda:2":
            fake.emit_xid(2, 48)  # a double-bit ECC error while GPU 2 is measured
        return ()

    try:
        res = _run_on(fake, monkeypatch, bench_results=measured, xid_watch=lambda: _settled(watch))
    finally:
        watch.close()
    (xid,) = _by_id(res, "health.xid")
    assert xid.status is Status.FAIL and xid.measured == "GPU 2: XID 48"
    assert fake.calls["nvmlEventSetFree"] == 1


def _settled(watch: XidWatch) -> list[tuple[int, int]] | None:
    import time

    for _ in range(200):  # the watcher thread delivers within one wait (10 ms)
        seen = watch.events()
        if seen:
            return seen
        time.sleep(0.01)
    return watch.events()


def test_without_event_sets_the_xid_item_is_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeNvml(make_fleet(1))
    fake.event_sets_supported = False
    watch = XidWatch(nvml=fake)
    assert not watch.start() and watch.events() is None
    watch.close()
    res = _run_on(make_fleet(1), monkeypatch, xid_watch=watch.events)
    (xid,) = _by_id(res, "health.xid")
    assert xid.status is Status.SKIP and "event sets" in xid.reason


def _allreduce(world: int, busbw_gbs: float) -> Result:
    return all_reduce_result("all_reduce 1 GiB", world, busbw_gbs * 1e9, p50_s=0.004, p99_s=0.005)


def test_allreduce_busbw_uses_the_published_figure_only_for_its_world_size() -> None:
    spec = load_specs()["H100 SXM"]
    busbw, p99 = grade_runs(
        [[_allreduce(8, 300.0)]], device="cuda", spec=spec, thresholds=Thresholds()
    )
    assert busbw.item_id == "perf.allreduce_busbw" and busbw.expected == 460.0
    assert busbw.status is Status.FAIL and "alayanew" in busbw.source  # 65 % of 460
    assert p99.measured == 5000.0 and p99.unit == "µs"
    two, _ = grade_runs([[_allreduce(2, 300.0)]], device="cuda", spec=spec, thresholds=Thresholds())
    assert two.source.startswith("derived:")


@pytest.mark.parametrize("box", ["a100mig", "rtx4090x2", "t4"])
def test_inventory_on_other_boxes_says_why_each_item_is_what_it_is(
    box: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.devices import BOXES

    res = _run_on(BOXES[box](), monkeypatch)
    by: dict[str, list[CheckItem]] = {}
    for i in res.items:
        by.setdefault(i.item_id, []).append(i)
    for item in res.items:
        if item.status in (Status.SKIP, Status.WARN, Status.FAIL):
            assert item.reason or item.hint, item
    if box == "a100mig":
        assert any(i.status is Status.WARN and "MIG" in i.reason for i in by["inventory.mig"])
    if box == "rtx4090x2":  # a PCIe card: no NVLink expected, none asked for
        assert all(i.status is Status.SKIP for i in by["inventory.nvlink"])


def test_pcie_below_its_maximum_under_load_and_modes_off_warn_with_hints() -> None:
    from gpuprof.check.inventory import Expectation, inventory_items
    from gpuprof.telemetry.model import SystemInfo
    from tests.fakes.devices import h100_info, h100_sample

    dev = h100_info(0, ecc_mode_current=False, persistence_mode=False, mig_mode_current=True)
    busy_slow = h100_sample(0, util_gpu_pct=95.0, pcie_gen=3, pcie_width=16)
    items = inventory_items(
        [dev],
        SystemInfo(driver_version="565.57.01"),
        None,
        [busy_slow],
        Expectation(),
        Thresholds(),
    )
    by = {i.item_id: i for i in items}
    assert by["inventory.pcie"].status is Status.WARN
    assert by["inventory.pcie"].measured == "Gen3 x16" and "riser" in by["inventory.pcie"].hint
    assert (
        by["inventory.ecc_mode"].status is Status.WARN and "-e 1" in by["inventory.ecc_mode"].hint
    )
    assert by["inventory.persistence"].status is Status.WARN
    assert by["inventory.mig"].status is Status.WARN
    # Idle, the link may sit at Gen1 on purpose: the GPU's own maximum is what is checked then.
    idle = h100_sample(0, util_gpu_pct=0.0, pcie_gen=1)
    again = inventory_items([h100_info(0)], SystemInfo(), None, [idle], Expectation(), Thresholds())
    pcie = next(i for i in again if i.item_id == "inventory.pcie")
    assert pcie.status is Status.PASS and "idle" in pcie.reason


@pytest.mark.slow
def test_burn_in_level_runs_the_burn_in_and_judges_only_xids_seen_after_it_starts() -> None:
    from gpuprof.check.run import _xids_after

    seen = [(0, 79)]
    later = _xids_after(lambda: seen, 1)
    assert later() == []
    seen.append((1, 48))
    assert later() == [(1, 48)]
    assert _xids_after(lambda: None, 0)() == []

    res = CheckRun(device="cpu", level="burn-in", minutes=0.03).run()  # about 2 s of CPU load
    ids = [i.item_id for i in res.items if i.group == "diagnostics"]
    assert "diag.memtest" in ids
    assert any(i.startswith("burnin.") or i == "diag.burnin" for i in ids), ids
    assert "burn-in runs with --level burn-in" not in [i.reason for i in res.items]


def test_every_catalog_instance_type_keeps_its_gpu_count() -> None:
    """Instance names that also read as a GPU model ("gpu_8x_h100_sxm5",
    "Standard_NC24ads_A100_v4") are catalog rows first: their GPU count is kept."""
    from gpuprof.catalog.instances import load_catalog

    rows = [
        i
        for i in load_catalog().instances
        if i.gpu_known and i.gpu_count >= 1 and float(i.gpu_count).is_integer()
    ]
    assert any(i.instance == "gpu_8x_h100_sxm5" for i in rows)
    for inst in rows:
        e = parse_expect(inst.instance)
        assert e.gpu_count == int(inst.gpu_count), inst.instance
