"""packaging/prometheus: the alerting rules checked and unit-tested by ``promtool``, the
scrape-config example checked, the rules kept in step with ``gpuprof fleet``'s findings, and
the rules evaluated by a real Prometheus scraping the test fleet."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

from tests.prometheus_fixture import DCGM_HOST, PROMTOOL, RULES, needs_prometheus, needs_promtool

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "packaging" / "prometheus"
RULES_TEST = FOLDER / "gpuprof-alerts.test.yml"

#: Each finding of gpuprof fleet and the alert that stands for it in Prometheus (None: it
#: needs the whole fleet side by side, which one alert expression does not see).
FINDING_ALERTS = {
    "exporter_down": "GpuExporterDown",
    "source_down": "GpuExporterNoData",
    "gpu_lost": "GpuLost",
    "xid": "GpuXidError",
    "ecc_dbe": "GpuEccDoubleBit",
    "row_remap_failure": "GpuEccDoubleBit",
    "throttle_outlier": "GpuThermalThrottling",
    "idle_held": "GpuIdleButHeld",
    "pcie_below_max": None,
}


def _promtool(*args: str, cwd: Path = FOLDER) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@needs_promtool
def test_promtool_check_rules():
    done = _promtool("check", "rules", RULES.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 8 rules found" in done.stdout


@needs_promtool
def test_promtool_test_rules():
    done = _promtool("test", "rules", RULES_TEST.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


@needs_promtool
def test_the_rules_test_catches_a_broken_rule(tmp_path):
    # Guards the test above: promtool really compares the alerts with what is expected.
    shutil.copy(RULES_TEST, tmp_path)
    text = RULES.read_text("utf-8").replace(
        "DCGM_FI_DEV_XID_ERRORS > 0", "DCGM_FI_DEV_XID_ERRORS > 99"
    )
    (tmp_path / RULES.name).write_text(text, "utf-8")
    done = _promtool("test", "rules", RULES_TEST.name, cwd=tmp_path)
    assert done.returncode != 0
    assert "alertname: GpuXidError" in done.stdout + done.stderr


@needs_promtool
def test_promtool_check_config_of_the_example():
    done = _promtool("check", "config", "prometheus.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def _finding_codes() -> set[str]:
    """The first argument of every FleetFinding(...) and add(...) in gpuprof/fleet/findings.py, and
    the codes of its error-counter table."""
    tree = ast.parse((ROOT / "gpuprof" / "fleet" / "findings.py").read_text("utf-8"))
    codes = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") in ("FleetFinding", "add")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            codes.add(node.args[0].value)
    from gpuprof.fleet import findings  # the error counters' findings are a table a loop reads

    return codes | {code for code, _title, _detail in findings._ERROR_COUNTERS}


def test_every_fleet_finding_has_its_alert():
    assert _finding_codes() == set(FINDING_ALERTS)
    text = RULES.read_text("utf-8")
    alerts = re.findall(r"^\s*- alert: (\w+)$", text, re.MULTILINE)
    assert len(alerts) == len(set(alerts)) == 8
    for code, alert in FINDING_ALERTS.items():
        assert alert is None or alert in alerts, (code, alert)
    for alert in alerts:  # each alert says which finding it is
        block = text.split(f"- alert: {alert}\n", 1)[1].split("- alert:", 1)[0]
        assert re.search(r"finding: \w+", block) and "severity:" in block, alert


@needs_prometheus
def test_a_real_prometheus_fires_the_rules_on_the_test_fleet(prom_fleet):
    rules = prom_fleet.get("/api/v1/rules")["data"]["groups"]
    loaded = [r for g in rules for r in g["rules"]]
    assert len(loaded) == 8 and all(r["health"] == "ok" for r in loaded), loaded

    def firing() -> set[tuple[str, str, str]]:
        alerts = prom_fleet.get("/api/v1/alerts")["data"]["alerts"]
        return {
            (a["labels"]["alertname"], a["labels"].get("Hostname", ""), a["labels"].get("gpu", ""))
            for a in alerts
            if a["state"] == "firing"
        }

    want = {("GpuXidError", DCGM_HOST, "1"), ("GpuEccDoubleBit", DCGM_HOST, "1")}
    prom_fleet.wait_until("the XID and ECC alerts", lambda: want <= firing())
    assert not [a for a in firing() if a[0] in ("GpuExporterDown", "GpuLost")]
