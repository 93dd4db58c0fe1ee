"""Fleet-wide findings on built fleets: each rule, and what must not trigger it."""

from __future__ import annotations

from dataclasses import replace

from gpuprof.fleet.findings import fleet_findings
from gpuprof.fleet.model import FleetGpu, FleetNode
from gpuprof.fleet.read import FleetQuery

GIB = 2**30


def _gpu(i: int, node: str = "n1", **values) -> FleetGpu:
    base = dict(
        util_pct=90.0,
        mem_used_bytes=40 * GIB,
        mem_free_bytes=40 * GIB,
        pcie_gen=5.0,
        pcie_width=16.0,
        idle_max_util_pct=95.0,
        model_name="NVIDIA H100 80GB HBM3",
    )
    base.update(values)
    return FleetGpu(job="j", instance=f"{node}:9400", node=node, gpu=str(i), **base)


def _node(gpus: list[FleetGpu], name: str = "n1", **kw) -> FleetNode:
    return FleetNode(job="j", instance=f"{name}:9400", name=name, up=True, gpus=tuple(gpus), **kw)


def _codes(*nodes: FleetNode, query: FleetQuery | None = None) -> set[tuple[str, str, str]]:
    return {(f.code, f.node, f.gpu) for f in fleet_findings(nodes, query or FleetQuery())}


def test_a_healthy_fleet_has_no_findings():
    assert _codes(_node([_gpu(i) for i in range(8)]), _node([_gpu(0, "n2")], "n2")) == set()


def test_a_narrow_link_always_and_a_slow_one_only_when_busy():
    gpus = [_gpu(i) for i in range(4)]
    gpus[1] = replace(gpus[1], pcie_width=8.0)
    gpus[2] = replace(gpus[2], pcie_gen=3.0)  # busy at Gen 3
    gpus[3] = replace(gpus[3], pcie_gen=1.0, util_pct=0.0)  # idle links drop to Gen 1: fine
    found = fleet_findings([_node(gpus)], FleetQuery())
    assert {(f.code, f.gpu) for f in found} == {("pcie_below_max", "1"), ("pcie_below_max", "2")}
    detail = next(f.detail for f in found if f.gpu == "1")
    assert "Gen 5 x8" in detail and "Gen 5 x16" in detail


def test_links_are_compared_within_a_model_only():
    a100 = [_gpu(i, "n2", model_name="NVIDIA A100-SXM4-80GB", pcie_gen=4.0) for i in range(2)]
    assert _codes(_node([_gpu(0), _gpu(1)]), _node(a100, "n2")) == set()


def test_one_throttling_gpu_among_calm_siblings_is_an_outlier():
    gpus = [_gpu(i) for i in range(8)]
    gpus[5] = replace(gpus[5], throttle=(("hw_thermal_slowdown", 1.0),))
    assert _codes(_node(gpus)) == {("throttle_outlier", "n1", "5")}
    # Most of the node throttling is the workload or the room, not one GPU.
    hot = [replace(g, throttle=(("sw_power_cap", 1.0),)) for g in gpus]
    assert _codes(_node(hot)) == set()
    # A short spell (a share of the window under one half) is not throttling.
    brief = list(gpus)
    brief[5] = replace(gpus[5], throttle=(("hw_thermal_slowdown", 0.2),))
    assert _codes(_node(brief)) == set()


def test_idle_but_held_needs_memory_or_a_holder():
    idle = dict(util_pct=0.0, idle_max_util_pct=0.0)
    held = _gpu(0, **idle)
    empty = _gpu(1, mem_used_bytes=0.3 * GIB, **idle)
    pod = _gpu(2, mem_used_bytes=0.0, workload="ml/train-7", **idle)
    found = fleet_findings([_node([held, empty, pod])], FleetQuery(idle_window_s=600))
    assert {(f.code, f.gpu) for f in found} == {("idle_held", "0"), ("idle_held", "2")}
    assert any("by ml/train-7" in f.title for f in found)
    assert all("over 10 min" in f.detail for f in found)


def test_errors_and_lost_gpus_are_critical():
    gpus = [
        _gpu(0, xid=79.0),
        _gpu(1, ecc_dbe=3.0),
        _gpu(2, row_remap_failure=1.0),
        _gpu(3, lost=True),
        _gpu(4, stale=True, util_pct=None),
        _gpu(5, xid=0.0, ecc_dbe=0.0, row_remap_failure=0.0),
    ]
    found = fleet_findings([_node(gpus)], FleetQuery())
    assert {(f.code, f.gpu) for f in found} == {
        ("xid", "0"),
        ("ecc_dbe", "1"),
        ("row_remap_failure", "2"),
        ("gpu_lost", "3"),
        ("gpu_lost", "4"),
    }
    assert {f.severity.value for f in found} == {"critical"}


def test_a_down_node_is_one_finding_not_one_per_gpu():
    gpus = [_gpu(i, down=True, util_pct=None, idle_max_util_pct=None) for i in range(8)]
    node = replace(_node(gpus), up=False, last_error="connection refused")
    found = fleet_findings([node], FleetQuery())
    assert [(f.code, f.severity.value) for f in found] == [("exporter_down", "critical")]
    assert "connection refused" in found[0].detail and "8 GPUs" in found[0].detail


def test_a_gpuprof_exporter_without_data_is_a_warning():
    node = _node([], source_up=False)
    found = fleet_findings([node], FleetQuery())
    assert [(f.code, f.severity.value) for f in found] == [("source_down", "warning")]


def test_findings_sort_critical_first():
    gpus = [_gpu(0, util_pct=0.0, idle_max_util_pct=0.0), _gpu(1, xid=13.0)]
    found = fleet_findings([_node(gpus)], FleetQuery())
    assert [f.code for f in found] == ["xid", "idle_held"]


def test_findings_on_a_simulated_node_are_labelled_simulated():
    """A demo exporter's findings are about made-up data: they say so (CLI, JSON, Fleet tab)."""
    sim = _node([_gpu(0, "sim", lost=True)], "sim", source="simulated")
    real = _node([_gpu(0, lost=True)], source="nvml")
    found = {f.node: f for f in fleet_findings([sim, real], FleetQuery())}
    assert found["sim"].simulated and found["sim"].to_json()["simulated"] is True
    assert not found["n1"].simulated and found["n1"].to_json()["simulated"] is False
