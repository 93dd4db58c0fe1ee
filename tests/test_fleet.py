"""The fleet against a real Prometheus (tests/prometheus_fixture.py): two ``gpuprof exporter
--demo`` nodes and one plain dcgm-exporter node, scraped every second."""

from __future__ import annotations

import time

import pytest

from gpuprof.fleet import PrometheusClient, node_history, parse_selector, read_fleet
from gpuprof.fleet.read import FleetQuery
from gpuprof.jsonout import loads_strict
from tests.faults.hostile import assert_one_clear_error, run_gpuprof
from tests.prometheus_fixture import (
    DCGM_HOST,
    DCGM_MODEL,
    needs_prometheus,
    start_fleet,
)

pytestmark = needs_prometheus


def _fleet(url: str, selector: str | None = None):
    return read_fleet(PrometheusClient(url), FleetQuery(selector=parse_selector(selector)))


@pytest.mark.slow
def test_reads_gpuprof_and_dcgm_exporter_label_sets(prom_fleet):
    fleet = _fleet(prom_fleet.url)
    assert len(fleet.nodes) == 3
    by_exporter = {}
    for node in fleet.nodes:
        by_exporter.setdefault(node.exporter, []).append(node)
    assert sorted(by_exporter) == ["dcgm-exporter", "gpuprof"]

    (dcgm,) = by_exporter["dcgm-exporter"]
    assert (dcgm.name, dcgm.job, dcgm.cluster, dcgm.up, dcgm.source_up) == (
        DCGM_HOST,
        "dcgm",
        "b",
        True,
        None,
    )
    assert [g.gpu for g in dcgm.gpus] == ["0", "1", "2", "3"]
    g0, g1, g2, g3 = dcgm.gpus
    assert g0.model_name == DCGM_MODEL and g0.uuid.startswith("GPU-5f3a")
    assert g0.util_pct == 95 and g0.mem_used_bytes == 61000 * 2**20
    assert g0.sm_active_pct == pytest.approx(91.0)  # GR_ENGINE_ACTIVE: a ratio, shown in %
    assert g1.xid == 48 and g1.ecc_dbe == 2
    assert g2.workload == "ml/train-7" and g2.util_pct == 0
    assert dict(g3.throttle) == {"hw_thermal_slowdown": 1.0}  # bit 0x40 of the bitmask
    assert not any(g.stale or g.down for g in dcgm.gpus)

    sims = by_exporter["gpuprof"]
    assert len(sims) == 2 and {n.cluster for n in sims} == {"a", "b"}
    # Both simulated machines call themselves sim-hgx-h100: the scrape target tells them apart.
    assert len({n.name for n in sims}) == 2
    for node in sims:
        assert node.name == f"sim-hgx-h100 ({node.instance})"
        assert node.up is True and node.source_up is True
        assert [g.gpu for g in node.gpus] == [str(i) for i in range(8)]
        for g in node.gpus:
            assert g.model_name == "NVIDIA H100 80GB HBM3" and g.node == node.name
            assert g.pcie_gen == 5 and g.pcie_width == 16  # gpuprof_pcie_link_*
            assert 0 <= g.util_pct <= 100 and 0 < g.mem_used_pct <= 100
            assert g.temp_c is not None and g.power_w is not None and g.sm_active_pct is not None


def test_findings_of_the_dcgm_node(prom_fleet):
    fleet = _fleet(prom_fleet.url)
    found = {(f.code, f.gpu) for f in fleet.findings if f.node == DCGM_HOST}
    assert found == {("xid", "1"), ("ecc_dbe", "1"), ("idle_held", "2"), ("throttle_outlier", "3")}
    idle = next(f for f in fleet.findings if f.code == "idle_held")
    assert "ml/train-7" in idle.title and "39.1 GiB" in idle.detail
    assert fleet.findings[0].severity.value == "critical"  # critical first
    assert not [f for f in fleet.findings if f.node != DCGM_HOST and f.severity.value == "critical"]


@pytest.mark.parametrize(
    ("selector", "nodes", "gpus"),
    [
        ('{cluster="a"}', 1, 8),
        ('{cluster="b"}', 2, 12),
        ('{job="dcgm"}', 1, 4),
        ('{modelName=~".*A100.*"}', 1, 4),  # a per-GPU label: nodes without such GPUs drop out
        ('{gpu="0"}', 3, 3),
        ('{cluster="z"}', 0, 0),
    ],
)
def test_selector_narrows_every_query(prom_fleet, selector, nodes, gpus):
    fleet = _fleet(prom_fleet.url, selector)
    assert (len(fleet.nodes), len(fleet.gpus)) == (nodes, gpus)
    assert fleet.selector == selector


def test_cli_json_is_strict_and_exit_1_on_critical(prom_fleet, tmp_path):
    ran = run_gpuprof(["fleet", "--prometheus", prom_fleet.url, "--json"], tmp_path)
    assert ran.returncode == 1, ran.stderr  # the dcgm node's XID and ECC are critical
    doc = loads_strict(ran.stdout)
    assert doc["schema"] == "gpuprof.fleet/1" and doc["prometheus"] == prom_fleet.url
    assert doc["summary"]["nodes"] == 3 and doc["summary"]["gpus"] == 20
    codes = {f["code"] for f in doc["findings"]}
    assert {"xid", "ecc_dbe", "idle_held", "throttle_outlier"} <= codes
    dcgm = next(n for n in doc["nodes"] if n["exporter"] == "dcgm-exporter")
    assert dcgm["gpus"][2]["workload"] == "ml/train-7"
    assert dcgm["gpus"][0]["pcie_gen"] is None  # dcgm-exporter's defaults have no link gen

    only_a = run_gpuprof(
        ["fleet", "--prometheus", prom_fleet.url, "--json", "--selector", '{cluster="a"}'],
        tmp_path,
    )
    assert only_a.returncode == 0, only_a.stderr
    assert loads_strict(only_a.stdout)["summary"]["gpus"] == 8


def test_cli_prints_the_grid_and_the_findings(prom_fleet, tmp_path):
    ran = run_gpuprof(
        ["fleet", "--prometheus", prom_fleet.url, "--metric", "temp", "--idle-minutes", "5"],
        tmp_path,
    )
    assert ran.returncode == 1, ran.stderr
    out = ran.stdout
    assert "3 nodes (0 down), 20 GPUs" in out
    assert "GPU temp (°C) by node" in out
    assert DCGM_HOST in out and "52°C" in out and "dcgm-exporter" in out
    assert "[critical] XID 48 on dgx-a100-07 GPU 1" in out
    assert "over 5 min" in out


def test_demo_exporters_are_labelled_simulated(prom_fleet, tmp_path):
    """A ``gpuprof exporter --demo`` seen through Prometheus serves made-up data: its nodes,
    GPUs and findings say SIMULATED in the model, the table and the JSON; the dcgm-exporter
    node does not."""
    fleet = _fleet(prom_fleet.url)
    sims = [n for n in fleet.nodes if n.exporter == "gpuprof"]
    (dcgm,) = [n for n in fleet.nodes if n.exporter == "dcgm-exporter"]
    assert len(sims) == 2
    for node in sims:
        assert node.simulated and node.source == "simulated"
        assert all(g.simulated for g in node.gpus)
    assert not dcgm.simulated and dcgm.source == "" and not any(g.simulated for g in dcgm.gpus)

    ran = run_gpuprof(["fleet", "--prometheus", prom_fleet.url, "--json"], tmp_path)
    doc = loads_strict(ran.stdout)
    assert doc["summary"]["nodes_simulated"] == 2
    by_name = {n["name"]: n for n in doc["nodes"]}
    for node in sims:
        got = by_name[node.name]
        assert got["simulated"] is True and got["source"] == "simulated"
        assert all(g["simulated"] is True for g in got["gpus"])
    got = by_name[dcgm.name]
    assert got["simulated"] is False and got["source"] is None
    assert not any(g["simulated"] for g in got["gpus"])

    ran = run_gpuprof(["fleet", "--prometheus", prom_fleet.url], tmp_path)
    lines = ran.stdout.splitlines()
    assert "SIMULATED: 2 nodes serve demo data" in ran.stdout
    rows = [line for line in lines if "sim-hgx-h100" in line]
    assert len(rows) == 2 and all("SIMULATED" in row for row in rows)
    assert not any("SIMULATED" in line for line in lines if DCGM_HOST in line)


@pytest.mark.slow
def test_drill_down_six_plots_per_gpu(prom_fleet):
    client = PrometheusClient(prom_fleet.url)
    fleet = read_fleet(client)
    node = next(n for n in fleet.nodes if n.exporter == "gpuprof")
    time.sleep(2.5)  # at least three scrapes in the window
    history = node_history(client, node.key, window_s=120, points=120)
    assert [p.key for p in history.plots] == ["util", "sm", "mem", "temp", "power", "clock"]
    assert history.step_s == 1.0
    for plot in history.plots:
        assert list(plot.curves) == [str(i) for i in range(8)], plot.key
        times, values = plot.curves["0"]
        assert len(times) == len(values) >= 3
        assert (times[1:] > times[:-1]).all()
    _, util = history.plots[0].curves["0"]
    assert ((util >= 0) & (util <= 100)).all()
    _, mem = history.plots[2].curves["0"]
    assert (mem > 1).all() and (mem < 81).all()  # GiB of an 80 GB H100


@pytest.mark.slow
def test_a_down_exporter_is_marked_down_with_a_finding(tmp_path):
    with start_fleet(tmp_path / "prom", exporters=2, dcgm=False) as prom:
        victim = prom.exporters[0]
        victim.stop()
        prom.wait_until(
            "the killed exporter down",
            lambda: prom.targets_health()[victim.address] == "down",
        )
        fleet = _fleet(prom.url)
        down = [n for n in fleet.nodes if n.down]
        assert [n.instance for n in down] == [victim.address]
        (node,) = down
        assert len(node.gpus) == 8 and all(g.down for g in node.gpus)  # known from history
        assert "connection refused" in node.last_error or "connect" in node.last_error
        finding = next(f for f in fleet.findings if f.code == "exporter_down")
        assert finding.severity.value == "critical" and finding.node == node.name
        assert victim.address in finding.detail
        ran = run_gpuprof(["fleet", "--prometheus", prom.url], tmp_path)
        assert ran.returncode == 1 and "1 down" in ran.stdout, ran.stderr
        assert "Exporter down on" in ran.stdout
        assert_one_clear_error(
            run_gpuprof(["fleet", "--prometheus", prom.url, "--selector", "{cluster=}"], tmp_path),
            "--selector",
        )


#: An exporter of its own making: the GPU index and nothing else (Prometheus adds job and
#: instance, the target no labels), so every metric of a GPU has the same label set but for
#: its name.
BARE_PAGE = """# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0"} 1000
DCGM_FI_DEV_FB_USED{gpu="1"} 2000
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0"} 37
DCGM_FI_DEV_GPU_UTIL{gpu="1"} 63
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0"} 41
DCGM_FI_DEV_GPU_TEMP{gpu="1"} 44
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0"} 0
DCGM_FI_DEV_XID_ERRORS{gpu="1"} 79
"""


@pytest.mark.slow
def test_gpus_with_only_their_index_keep_every_value(tmp_path):
    """The memory series (asked with all its labels) and the other values (asked with the
    GPU's key labels) are separate queries: with an ``or`` between them, Prometheus dropped
    every other value of a GPU whose memory series has no label beyond the key ones."""
    bare = {"dcgm_page": BARE_PAGE, "dcgm_gpus": 2, "dcgm_labels": {}}
    with start_fleet(tmp_path, exporters=0, **bare) as prom:
        fleet = _fleet(prom.url)
    (node,) = fleet.nodes
    assert node.exporter == "dcgm-exporter" and node.name == node.instance
    got = [(g.gpu, g.util_pct, g.temp_c, g.mem_used_bytes, g.xid) for g in node.gpus]
    assert got == [("0", 37.0, 41.0, 1000 * 2**20, 0.0), ("1", 63.0, 44.0, 2000 * 2**20, 79.0)]
    assert [f.code for f in fleet.findings] == ["xid"]
