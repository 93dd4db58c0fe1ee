"""True utilization (issue 12) in the outputs: health findings, reports, monitor, export, the app.

Samples are built directly with the profiling (NVML GPM) fields set, or absent with the reason,
as the NVML source gives them: absent values never count as zero anywhere.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuprof.cli import main
from gpuprof.health import activity as dp
from gpuprof.health.diagnose import diagnose
from gpuprof.telemetry.model import (
    GpuSample,
    HostSample,
    ProcessSample,
    Snapshot,
    SourceKind,
    SystemInfo,
)
from gpuprof.telemetry.source import KeptFacts
from tests.fakes.devices import h100_info, h100_sample

GIB = 2**30
NOT_SUPPORTED = "not supported on this GPU"
NO_PROF = {
    "prof_sm_active_pct": None,
    "prof_sm_occupancy_pct": None,
    "prof_tensor_active_pct": None,
    "prof_dram_active_pct": None,
    "prof_fp64_active_pct": None,
    "prof_fp32_active_pct": None,
    "prof_fp16_active_pct": None,
}


def gpu(i: int = 0, **changes: Any) -> GpuSample:
    """A busy H100 with a job's memory in use and healthy GPM values (nothing to report)."""
    base = h100_sample(
        i,
        util_gpu_pct=97.0,
        mem_used_bytes=60 * GIB,
        power_w=600.0,
        temp_gpu_c=60.0,
        prof_sm_active_pct=85.0,
        prof_sm_occupancy_pct=40.0,
        prof_tensor_active_pct=55.0,
        prof_dram_active_pct=35.0,
        prof_fp64_active_pct=0.0,
        prof_fp32_active_pct=10.0,
        prof_fp16_active_pct=5.0,
    )
    return replace(base, **changes)


STARVED = {"util_gpu_pct": 100.0, "prof_sm_active_pct": 12.0, "prof_tensor_active_pct": 2.0}
FP32_TRAINING = {
    "prof_sm_active_pct": 90.0,
    "prof_tensor_active_pct": 0.0,
    "prof_fp32_active_pct": 45.0,
}
MEMORY_BOUND = {
    "prof_sm_active_pct": 70.0,
    "prof_tensor_active_pct": 15.0,
    "prof_dram_active_pct": 88.0,
    "prof_fp32_active_pct": 20.0,
}


def window(samples: list[GpuSample], step_s: float = 1.0) -> list[Snapshot]:
    return [
        Snapshot(
            time_s=1.7e9 + k * step_s,
            source=SourceKind.NVML,
            host=HostSample(cpu_pct=10.0, mem_total_bytes=64 * GIB, mem_used_bytes=8 * GIB),
            gpus=(s,),
        )
        for k, s in enumerate(samples)
    ]


def codes(samples: list[GpuSample], step_s: float = 1.0) -> set[str]:
    return {f.code for f in diagnose([h100_info(0)], window(samples, step_s))}


PROF_CODES = {"sm_idle_while_busy", "tensor_cores_idle", "memory_bandwidth_bound"}


# --- health findings -----------------------------------------------------------------------------


def test_healthy_gpm_job_has_no_true_utilization_finding():
    assert codes([gpu()] * 60) & PROF_CODES == set()


@pytest.mark.parametrize(
    ("pattern", "code"),
    [
        (STARVED, "sm_idle_while_busy"),
        (FP32_TRAINING, "tensor_cores_idle"),
        (MEMORY_BOUND, "memory_bandwidth_bound"),
    ],
)
def test_each_pattern_fires_when_sustained_and_only_then(pattern, code):
    sustained = [gpu(**pattern)] * 40
    assert code in codes(sustained)
    # Shorter than the minimum duration: nothing, however strong.
    n_short = int(dp.PROF_MIN_DURATION_S) - 5
    assert code not in codes([gpu()] * 20 + [gpu(**pattern)] * n_short + [gpu()] * 20)
    # Broken in the middle by healthy samples: neither half lasts long enough.
    half = [gpu(**pattern)] * 20
    assert code not in codes([*half, gpu(), *half])
    # Samples 5 s apart: 8 samples cover 40 s.
    assert code in codes([gpu(**pattern)] * 8, step_s=5.0)


@pytest.mark.parametrize("pattern", [STARVED, FP32_TRAINING, MEMORY_BOUND])
def test_absent_prof_values_never_make_a_finding(pattern):
    # A GPU without GPM: util 100 % and no SM activity is NOT "SMs idle".
    absent = gpu(**{**pattern, **NO_PROF}, prof_unavailable=NOT_SUPPORTED)
    assert codes([absent] * 120) & PROF_CODES == set()
    # A gap (first sample after a restart, a GPM error) breaks a run instead of extending it.
    half = [gpu(**pattern)] * 20
    gap = replace(half[0], **NO_PROF, prof_unavailable="first sample")
    assert codes([*half, gap, *half]) & PROF_CODES == set()


def test_sm_idle_finding_says_what_was_seen_and_what_to_do():
    findings = diagnose([h100_info(0)], window([gpu(**STARVED)] * 45))
    f = next(f for f in findings if f.code == "sm_idle_while_busy")
    assert f.gpu_index == 0 and f.severity.value == "warning"
    assert "100%" in f.detail and "12%" in f.detail and "45.0 s" in f.detail
    assert "CUDA graphs" in f.hint
    assert "busy but SMs mostly idle" in f.title


def test_tensor_finding_needs_a_job_and_fp32_math():
    idle_job = {**FP32_TRAINING, "mem_used_bytes": 1 * GIB}  # no process, little memory: no job
    assert "tensor_cores_idle" not in codes([gpu(**idle_job)] * 60)
    no_fp32 = {**FP32_TRAINING, "prof_fp32_active_pct": 3.0}  # integer / copy work, not FP32
    assert "tensor_cores_idle" not in codes([gpu(**no_fp32)] * 60)
    f = next(
        f
        for f in diagnose([h100_info(0)], window([gpu(**FP32_TRAINING)] * 60))
        if f.code == "tensor_cores_idle"
    )
    assert "bfloat16" in f.hint and "TF32" in f.hint


def test_memory_bound_needs_the_math_pipes_moderate():
    gemm = {**MEMORY_BOUND, "prof_tensor_active_pct": 70.0}  # DRAM busy but tensor cores too
    assert "memory_bandwidth_bound" not in codes([gpu(**gemm)] * 60)


def test_findings_are_translated(monkeypatch):
    from gpuprof import i18n

    i18n.set_language("zh_CN")
    try:
        findings = diagnose([h100_info(0)], window([gpu(**STARVED)] * 45))
    finally:
        i18n.set_language("en")
    f = next(f for f in findings if f.code == "sm_idle_while_busy")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in f.title + f.detail + f.hint)


# --- reports -------------------------------------------------------------------------------------


def _report(samples_per_gpu: dict[int, list[GpuSample]]):
    from gpuprof.report import build

    n = len(next(iter(samples_per_gpu.values())))
    snaps = [
        Snapshot(
            time_s=1.7e9 + k,
            source=SourceKind.NVML,
            host=HostSample(cpu_pct=10.0, mem_total_bytes=64 * GIB, mem_used_bytes=8 * GIB),
            gpus=tuple(samples_per_gpu[i][k] for i in sorted(samples_per_gpu)),
        )
        for k in range(n)
    ]
    return build.build_report(
        system=SystemInfo(hostname="node-a"),
        devices=[h100_info(i) for i in sorted(samples_per_gpu)],
        snapshots=snaps,
        created_s=1.7e9 + n,
    )


def test_report_stats_charts_findings_and_json_carry_true_utilization(tmp_path):
    from gpuprof.report.html import render_html
    from gpuprof.report.json import load_report, write_json

    no_gpm = gpu(1, **NO_PROF, prof_unavailable=NOT_SUPPORTED)
    report = _report({0: [gpu(0, **STARVED)] * 50, 1: [no_gpm] * 50})
    tel = report.telemetry
    assert tel is not None
    stat = {(s.key, s.gpu_index): s for s in tel.stats}
    assert stat["prof_sm_active_pct", 0].count == 50
    assert stat["prof_sm_active_pct", 0].mean == pytest.approx(12.0)
    assert stat["prof_tensor_active_pct", 0].mean == pytest.approx(2.0)
    assert stat["prof_dram_active_pct", 0].mean == pytest.approx(35.0)
    # The GPU without GPM: no samples, no made-up zeros.
    assert stat["prof_sm_active_pct", 1].count == 0 and stat["prof_sm_active_pct", 1].mean is None
    charts = {c.key: c for c in tel.charts}
    assert [s.label for s in charts["gpu.prof_sm_active_pct"].series] == ["GPU 0"]
    assert {"gpu.prof_tensor_active_pct", "gpu.prof_dram_active_pct"} <= set(charts)
    assert "sm_idle_while_busy" in {f.code for f in report.findings}

    out = write_json(report, tmp_path / "r.json")
    data = json.loads(out.read_text("utf-8"), parse_constant=pytest.fail)
    keys = {(s["key"], s["gpu_index"]): s for s in data["telemetry"]["stats"]}
    assert keys["prof_sm_active_pct", 0]["mean"] == pytest.approx(12.0)
    assert keys["prof_sm_active_pct", 1]["mean"] is None
    assert load_report(out) == report

    page = render_html(report)
    assert "SM active" in page and "Tensor core active" in page
    assert "GPU busy but SMs mostly idle" in page


def test_report_without_any_gpm_has_no_activity_chart_or_finding():
    no_gpm = gpu(0, **STARVED | NO_PROF, prof_unavailable=NOT_SUPPORTED)
    report = _report({0: [no_gpm] * 60})
    assert report.telemetry is not None
    assert not any(c.key.startswith("gpu.prof_") for c in report.telemetry.charts)
    assert {f.code for f in report.findings} & PROF_CODES == set()


# --- monitor, export -----------------------------------------------------------------------------


class GpmSource(KeptFacts):
    """Two H100s: GPU 0 with GPM values, GPU 1 without (the reason given)."""

    kind = SourceKind.NVML
    label = "FAKE"

    def __init__(self, *, gpm: bool = True) -> None:
        self.gpm = gpm
        self.t = 1.7e9
        self._system = SystemInfo(hostname="node-a")
        self._devices = (h100_info(0), h100_info(1))

    def poll(self) -> Snapshot:
        self.t += 1.0
        first = gpu(0, **STARVED) if self.gpm else gpu(0, **NO_PROF, prof_unavailable="x")
        return Snapshot(
            time_s=self.t,
            source=self.kind,
            host=HostSample(cpu_pct=5.0),
            gpus=(first, gpu(1, **NO_PROF, prof_unavailable=NOT_SUPPORTED)),
            processes=(ProcessSample(pid=42, gpu_index=0, gpu_mem_bytes=GIB),),
        )


@pytest.fixture
def gpm_source(monkeypatch):
    from gpuprof.commands import telemetry

    monkeypatch.setattr(telemetry, "_open", lambda demo, args=None: GpmSource())


def test_monitor_json_carries_prof_values_and_the_reason(gpm_source, capsys):
    assert main(["monitor", "--json", "--count", "1", "--interval", "0.1"]) == 0
    snap = json.loads(capsys.readouterr().out.splitlines()[0])
    g0, g1 = snap["gpus"]
    assert g0["prof_sm_active_pct"] == 12.0 and g0["prof_tensor_active_pct"] == 2.0
    assert g1["prof_sm_active_pct"] is None and g1["prof_unavailable"] == NOT_SUPPORTED


def test_monitor_csv_carries_prof_columns_empty_where_absent(gpm_source, capsys):
    assert main(["monitor", "--csv", "--count", "1", "--interval", "0.1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["prof_sm_active_pct"] for r in rows] == ["12.0", ""]
    assert [r["prof_dram_active_pct"] for r in rows] == ["35.0", ""]


def test_recording_replays_and_exports_prof_values(tmp_path: Path, capsys):
    from gpuprof.telemetry.store import SessionStore

    src = GpmSource()
    path = tmp_path / "gpm.gpuprof"
    with SessionStore.create(path, source=src) as store:
        for _ in range(3):
            store.append(src.poll())
    with SessionStore.open(path) as store:
        back = list(store.snapshots())
    assert back[0].gpus[0].prof_sm_active_pct == 12.0
    assert back[0].gpus[1].prof_unavailable == NOT_SUPPORTED
    assert main(["export", str(path), "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6
    assert {r["prof_tensor_active_pct"] for r in rows if r["gpu_index"] == "0"} == {"2.0"}
    assert {r["prof_tensor_active_pct"] for r in rows if r["gpu_index"] == "1"} == {""}


def _table_text(snap: Snapshot, width: int = 200) -> str:
    from rich.console import Console

    from gpuprof.commands.telemetry_views import gpu_table

    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(gpu_table(snap, [h100_info(0), h100_info(1)], width=width))
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_monitor_table_has_an_sm_column_where_a_gpu_has_gpm():
    text = _table_text(GpmSource().poll())
    header = [c.strip() for c in next(x for x in text.splitlines() if "Util" in x).split("┃")]
    assert header.index("SM active") == header.index("Util") + 1
    rows = [[c.strip() for c in x.split("│")] for x in text.splitlines() if x.startswith("│")]
    col = header.index("SM active")
    assert [r[col] for r in rows] == ["12%", "–"]
    assert f"SM active –: GPU 1: {NOT_SUPPORTED}" in " ".join(text.split())


def test_monitor_table_without_any_gpm_has_no_sm_column():
    text = _table_text(GpmSource(gpm=False).poll())
    assert "SM active" not in text


# --- the app -------------------------------------------------------------------------------------


class UiGpmSource:
    """The UI tests' fake source (tests/ui_fakes.py) with GPM on GPU 0 only."""

    def __new__(cls, n_gpus: int = 2, *, gpm: bool = True):
        from tests.ui_fakes import FakeSource

        class Source(FakeSource):
            def gpu(self, i: int) -> GpuSample:
                g = super().gpu(i)
                if i == 0 and gpm:
                    return replace(
                        g,
                        util_gpu_pct=100.0,
                        prof_sm_active_pct=12.0,
                        prof_tensor_active_pct=2.0,
                        prof_dram_active_pct=30.0,
                    )
                return replace(g, prof_unavailable=NOT_SUPPORTED)

        return Source(n_gpus)


@pytest.fixture
def ui(make_window):
    pytest.importorskip("PySide6")
    pytest.importorskip("pyqtgraph")
    from tests.ui_fixtures import polls

    def make(gpm: bool):
        w = make_window(UiGpmSource(2, gpm=gpm))
        polls(w, 4)
        return w

    return make


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_overview_card_shows_sm_active_next_to_util_with_the_difference_explained(ui):
    w = ui(gpm=True)
    w.select_tab("overview")
    w.overview.refresh(force=True)
    card0, card1 = w.overview.cards[0], w.overview.cards[1]
    assert card0.util.text() == "100%"
    assert not card0.sm.isHidden() and card0.sm.text() == "SM 12%"
    assert "some kernel ran" in card0.sm.toolTip()
    assert not card1.sm.isHidden() and card1.sm.text() == "SM –"
    assert NOT_SUPPORTED in card1.sm.toolTip()


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_overview_hides_sm_where_no_gpu_has_gpm(ui):
    w = ui(gpm=False)
    w.select_tab("overview")
    w.overview.refresh(force=True)
    assert all(card.sm.isHidden() for card in w.overview.cards.values())


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
@pytest.mark.slow
def test_telemetry_activity_plot_draws_gpm_and_greys_with_the_reason_without(ui):
    w = ui(gpm=True)
    w.select_tab("telemetry")
    w.telemetry.refresh(force=True)
    plot = w.telemetry.plots["activity"]
    x, y = plot.data[0, "prof_sm_active_pct"]
    assert y.size and float(y[-1]) == pytest.approx(12.0)
    assert (0, "prof_dram_active_pct") in plot.data  # 2 GPUs: the pale series are drawn
    assert plot.item.titleLabel.text.startswith("SM / tensor / DRAM activity — SM (bright)")
    readout = w.telemetry.show_values_at(float(x[-1]), "activity")
    assert "SM / tensor / DRAM activity" in readout and "tensor" in readout

    w2 = ui(gpm=False)
    w2.select_tab("telemetry")
    w2.telemetry.refresh(force=True)
    plot2 = w2.telemetry.plots["activity"]
    title = plot2.item.titleLabel.text
    assert title == f"SM / tensor / DRAM activity — not available: {NOT_SUPPORTED}"
    assert plot2.item.titleLabel.opts["color"] == w2.telemetry._theme.muted
