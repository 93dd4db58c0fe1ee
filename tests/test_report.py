"""Reports: model assembly from a recorded demo session, HTML, JSON, PDF, CLI, safety."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import math
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from gpuprof.cli import main
from gpuprof.errors import InputError
from gpuprof.report import build
from gpuprof.report.html import iter_charts, render_html, write_html
from gpuprof.report.json import dumps_report, load_report, loads_report, report_to_dict, write_json
from gpuprof.report.model import Report
from gpuprof.report.svg import render_svg
from gpuprof.telemetry.model import ProcessSample, Snapshot, SystemInfo
from gpuprof.telemetry.sources import SimulatedSource
from gpuprof.telemetry.store import SessionStore
from tests.fakes.fixtures import bench_case, bench_run, gemm_result, memory_result

ROOT = Path(__file__).resolve().parents[1]
STEP_S = 4.0
N_SNAPS = 180  # one 720 s scripted cycle of the simulator


def _demo_snaps(scenario: str = "h100x8") -> tuple[SimulatedSource, list[Snapshot]]:
    start = 1_750_000_000.0
    ticks = iter([start + k * STEP_S for k in range(N_SNAPS)])
    src = SimulatedSource(scenario, clock=lambda: next(ticks), start_s=start)
    return src, [src.poll() for _ in range(N_SNAPS)]


@pytest.fixture(scope="module")
def session_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "demo.gpuprof"
    src, snaps = _demo_snaps()
    store = SessionStore.create(path, source=src)
    for snap in snaps:
        store.append(snap)
    store.close()
    return path


@pytest.fixture(scope="module")
def report(session_file: Path) -> Report:
    return build.from_session(session_file, created_s=1_750_001_000.0)


def _bench_run():  # type: ignore[no-untyped-def]
    from gpuprof.bench.base import Result
    from gpuprof.bench.runner import Environment

    gemm = gemm_result(
        "bf16 8192x8192x8192",
        550.0,
        dtype="bf16",
        size=8192,
        peak=989.4,
        pct_of_peak=55.6,
        tflops_mean=520.0,
        tflops_max=580.0,
        throttle_reasons=("sw_power_cap",),
    )
    copy = memory_result(
        "h2d pinned 1 GiB", 53.7e9, direction="h2d", pinned=True, max_bytes_s=54e9, verified=True
    )
    skipped = Result(bench="p2p", case="p2p", status="skipped: needs 2 CUDA devices")
    env = Environment(
        hostname="box",
        gpu_name="NVIDIA H100 80GB HBM3",
        torch_version="2.13.0",
        cuda_runtime_version="12.4",
    )
    return bench_run(
        bench_case("gemm", "bf16", gemm),
        bench_case("memory", "h2d", copy),
        bench_case("p2p", "p2p", skipped),
        run_id="20260101-000000-abcd",
        device="cuda:0",
        started_s=1_750_000_000.0,
        seconds=30,
        environment=env,
    )


# --- model -----------------------------------------------------------------------------------------


def test_session_report_model(report: Report) -> None:
    assert report.simulated
    assert report.telemetry is not None
    tel = report.telemetry
    assert tel.sample_count == N_SNAPS
    assert tel.duration_s == pytest.approx((N_SNAPS - 1) * STEP_S)
    assert len(report.gpus) == 8 and report.gpus[0].name == "NVIDIA H100 80GB HBM3"
    assert report.topology.link(0, 1) == "NV18"
    assert report.machine.hostname == "sim-hgx-h100"
    util = [s for s in tel.stats if s.key == "util_gpu_pct" and s.gpu_index is not None]
    assert sorted(s.gpu_index for s in util) == list(range(8))
    for s in util:
        assert s.count == N_SNAPS
        assert 0.0 <= s.min <= s.mean <= s.max <= 100.0  # type: ignore[operator]
    # The script throttles on power during training and thermally on the last GPU.
    reasons = {r for e in tel.throttle_events for r in e.reasons}
    assert "sw_power_cap" in reasons
    assert any("thermal" in r for e in tel.throttle_events if e.gpu_index == 7 for r in e.reasons)
    for e in tel.throttle_events:
        assert e.duration_s == pytest.approx(e.end_s - e.start_s) and e.duration_s > 0
    codes = {f.code for f in report.findings}
    assert {"low_utilization", "power_throttling"} <= codes
    assert {c.key for c in tel.charts} >= {
        "gpu.util_gpu_pct",
        "gpu.power_w",
        "gpu.temp_gpu_c",
        "host.cpu_mem_pct",
    }
    # Default: command-line arguments hidden.
    assert tel.processes and all(p.cmdline is None or "--" not in p.cmdline for p in tel.processes)


@pytest.mark.slow
def test_stats_equal_numpy_over_the_session(report: Report, session_file: Path) -> None:
    with SessionStore.open(session_file) as store:
        power = np.array(
            [next(g.power_w for g in s.gpus if g.index == 3) for s in store.snapshots()]
        )
    stat = next(s for s in report.telemetry.stats if s.key == "power_w" and s.gpu_index == 3)  # type: ignore[union-attr]
    assert stat.mean == pytest.approx(power.mean())
    assert (stat.min, stat.max) == (pytest.approx(power.min()), pytest.approx(power.max()))


@pytest.mark.slow
def test_chart_decimation_keeps_extremes_and_gaps() -> None:
    """Charts come from History's min/max levels: a one-sample spike and a gap both survive."""
    from gpuprof.telemetry.model import GpuSample, HostSample, Snapshot, SourceKind

    x = np.arange(20_000, dtype=float)
    y = np.sin(x / 300.0) * 50 + 50
    y[7000:9000] = np.nan
    y[12345] = 1000.0
    snaps = [
        Snapshot(
            time_s=1.7e9 + t,
            source=SourceKind.NVML,
            host=HostSample(cpu_pct=10.0),
            gpus=(GpuSample(index=0, power_w=None if np.isnan(v) else float(v)),),
        )
        for t, v in zip(x.tolist(), y.tolist(), strict=True)
    ]
    history, _ = build.history_of(snaps)
    summary = build.summarize_telemetry(
        history, source_kind=SourceKind.NVML, source_label="t", buckets=100
    )
    chart = next(c for c in summary.charts if c.key == "gpu.power_w")
    xs, ys = chart.series[0].x, chart.series[0].y
    assert len(xs) <= 200
    assert max(v for v in ys if v is not None) == 1000.0
    assert None in ys  # the gap survives as a gap
    assert list(xs) == sorted(xs) and xs[0] == 0.0
    stat = next(s for s in summary.stats if s.key == "power_w" and s.gpu_index == 0)
    assert stat.count == 18_000 and stat.max == 1000.0


def test_versions_read_torch_without_importing_it() -> None:
    code = (
        "import sys; from gpuprof.report.build import versions; v = versions(); "
        "print(v.torch); assert 'torch' not in sys.modules"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == importlib.metadata.version("torch")


def test_bench_summary_against_peak() -> None:
    summary = build.summarize_bench(_bench_run())
    gemm = next(r for r in summary.rows if r.bench == "gemm")
    assert (gemm.value, gemm.peak, gemm.pct_of_peak, gemm.unit) == (550.0, 989.4, 55.6, "TFLOPS")
    assert gemm.throttle_reasons == ("sw_power_cap",)
    chart = next(c for c in summary.charts if c.key == "bench.gemm")
    assert chart.categories == ("bf16",)
    assert [s.y for s in chart.series] == [(550.0,), (989.4,)]
    assert any(r.status.startswith("skipped") for r in summary.rows)
    html = render_html(dataclasses.replace(_minimal_report(), bench=summary))
    assert "550.0 TFLOPS" in html and "989.4 TFLOPS" in html and "56%" in html


def _minimal_report(**kwargs: object) -> Report:
    return build.build_report(system=SystemInfo(hostname="h"), devices=(), created_s=0.0, **kwargs)  # type: ignore[arg-type]


def test_recommendation_section(report: Report) -> None:
    from gpuprof.recommend.workload import Workload

    rec = build.recommend_for(
        Workload.presets()["llm-100b-train"], devices=report.gpus, util_pct=60.0
    )
    summary = build.summarize_recommendation(rec)
    assert summary.rows and summary.rows[0].rank == 1
    assert summary.local is not None  # this machine as the "vs here" row
    assert ("scenario", "pretrain") in summary.workload
    html = render_html(dataclasses.replace(report, recommendation=summary))
    assert summary.rows[0].instance in html and "Pareto" in html


# --- HTML ------------------------------------------------------------------------------------------

_URL_ATTRS = {"src", "href", "action", "xlink:href", "poster", "data", "srcset", "formaction"}


class _Tags(HTMLParser):
    """Real tags and attributes of a document (text that merely looks like a tag is not one)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.handlers: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in _URL_ATTRS:
                self.urls.append(value or "")
            if name.startswith("on"):
                self.handlers.append(name)


def _check_tags(html: str) -> _Tags:
    tags = _Tags(html)
    assert not {"script", "iframe", "object", "embed", "link", "img", "base", "form"} & set(
        tags.tags
    )
    assert all(u.startswith(("data:", "#")) for u in tags.urls), tags.urls
    assert tags.handlers == []
    return tags


def test_html_is_self_contained(report: Report, tmp_path: Path) -> None:
    out = write_html(report, tmp_path / "r.html")
    html = out.read_text("utf-8")
    assert "http://" not in html and "https://" not in html
    tags = _check_tags(html)
    assert "@import" not in html and "url(" not in html
    assert tags.tags.count("svg") == len(iter_charts(report)) > 0
    assert "SIMULATED" in html
    assert "@media print" in html and "page-break-before" in html


@pytest.mark.slow
def test_html_and_json_escape_hostile_system_text(tmp_path: Path) -> None:
    src, snaps = _demo_snaps()
    evil = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
    bad_bytes = b"caf\xe9-\xff\xfe".decode("utf-8", "surrogateescape")
    long = "A" * 20_000
    cmd = (
        f"/opt/{evil}/python3 train.py --password=hunter2 --hf-token hf_abcdefghijklmnopqrstuvwxyz12345 "
        "--data https://alice:s3cr3tpw@data.example.com/x --max-tokens 4096"
    )
    hostile = tuple(
        ProcessSample(
            pid=100 + k, gpu_index=k % 8, name=name, user=evil, cmdline=cmd, gpu_mem_bytes=2**30
        )
        for k, name in enumerate((evil, bad_bytes, long, "\x1b[31mred\x07"))
    )
    snaps = [dataclasses.replace(s, processes=s.processes + hostile) for s in snaps]
    devices = tuple(dataclasses.replace(d, name=evil + bad_bytes) for d in src.devices())
    system = dataclasses.replace(src.system_info(), hostname=evil + long, os=bad_bytes)
    for include in (False, True):
        rep = build.build_report(
            system=system,
            devices=devices,
            topology=src.topology(),
            snapshots=snaps,
            source_kind=src.kind,
            source_label=evil,
            include_cmdlines=include,
        )
        html = write_html(rep, tmp_path / f"h{include}.html").read_text("utf-8")
        _check_tags(html)  # no <script>, <img>, on* handler or URL from the data became markup
        assert "<script" not in html.lower()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        for secret in ("hunter2", "hf_abcdefghijklmnopqrstuvwxyz12345", "s3cr3tpw", "alice:"):
            assert secret not in html
        assert ("--password=***" in html) is include
        assert ("--max-tokens 4096" in html) is include  # not a secret
        assert "\ufffd" in html  # invalid bytes became replacement characters
        assert "\x1b" not in html and "\x07" not in html
        assert "A" * 2000 not in html  # very long strings are cut
        text = dumps_report(rep)
        json.loads(text)
        text.encode("utf-8")  # no lone surrogates
        assert "hunter2" not in text
        assert loads_report(text) == rep


def test_svg_escapes_labels_and_splits_gaps() -> None:
    from gpuprof.report.model import Chart, ChartSeries

    chart = Chart(
        key="k",
        title="<b>t</b>",
        kind="line",
        unit="w",
        series=(
            ChartSeries(
                "<script>x</script>", (0.0, 1.0, 2.0, 3.0, 4.0), (1.0, 2.0, None, 3.0, 4.0)
            ),
            ChartSeries("b", (0.0, 1.0), (5.0, 6.0)),
        ),
    )
    svg = render_svg(chart)
    assert "<script" not in svg and "&lt;b&gt;t&lt;/b&gt;" in svg
    assert svg.count("<polyline") == 3  # the None splits the first series in two


# --- JSON ------------------------------------------------------------------------------------------


def test_json_round_trip_and_documented_schema(report: Report, tmp_path: Path) -> None:
    path = write_json(report, tmp_path / "r.json")
    data = json.loads(path.read_text("utf-8"))
    assert data["format"] == "gpuprof-report" and data["schema_version"] == 1
    assert load_report(path) == report
    doc = (ROOT / "docs" / "report-schema.md").read_text("utf-8")
    for key in report_to_dict(report):
        assert f"`{key}`" in doc, f"docs/report-schema.md does not document {key}"
    for key in data["telemetry"]:
        assert f"`{key}`" in doc, f"docs/report-schema.md does not document telemetry.{key}"
    with pytest.raises(InputError):
        loads_report('{"format": "something-else"}')
    with pytest.raises(InputError):
        loads_report("not json")


def test_json_has_no_nan(report: Report) -> None:
    rep = dataclasses.replace(
        report,
        telemetry=dataclasses.replace(
            report.telemetry, stats=(dataclasses.replace(report.telemetry.stats[0], mean=math.nan),)
        ),
    )  # type: ignore[union-attr,arg-type]
    data = json.loads(dumps_report(rep))
    assert data["telemetry"]["stats"][0]["mean"] is None


# --- PDF (Qt, offscreen) ---------------------------------------------------------------------------


@pytest.mark.slow
def test_pdf_a4_and_letter(report: Report, tmp_path: Path, qapp: object) -> None:
    from gpuprof.ui.report.pdf import write_pdf

    sizes = {}
    for paper in ("a4", "letter"):
        out = write_pdf(report, tmp_path / f"{paper}.pdf", paper)
        data = out.read_bytes()
        assert data.startswith(b"%PDF")
        pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", data))
        assert pages >= 2
        box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
        assert box is not None
        sizes[paper] = (round(float(box.group(1))), round(float(box.group(2))))
    assert sizes["a4"] == (595, 842)
    assert sizes["letter"] == (612, 792)
    with pytest.raises(InputError):
        write_pdf(report, tmp_path / "x.pdf", "a3")


# --- CLI -------------------------------------------------------------------------------------------


def _report_cli(session: Path, out: Path, *options: str) -> int:
    """``gpuprof report --session SESSION --out OUT OPTIONS`` in this process (its data folder
    the test's own, from conftest); its exit code."""
    return main(["report", "--session", str(session), "--out", str(out), *options])


@pytest.mark.slow
def test_cli_session_to_json(session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert _report_cli(session_file, out, "--recommend", "cv-train", "--include-cmdlines") == 0
    rep = load_report(out)
    assert rep.simulated and rep.cmdlines_included
    assert rep.recommendation is not None and rep.recommendation.rows
    assert rep.telemetry is not None and rep.telemetry.session_path == str(session_file)


@pytest.mark.slow
def test_cli_bench_from_results_db(session_file: Path, tmp_path: Path) -> None:
    from gpuprof.bench.results import ResultsDB

    out = tmp_path / "r.html"
    assert _report_cli(session_file, out, "--bench", "latest") == 2
    ResultsDB().save(_bench_run())
    assert _report_cli(session_file, out, "--bench", "2026") == 0
    html = out.read_text("utf-8")
    assert "20260101-000000-abcd" in html and "GEMM throughput vs spec peak" in html


@pytest.mark.parametrize(
    "argv",
    [
        ["--out", "{tmp}/r.txt", "--demo"],
        ["--out", "{tmp}/missing/r.html", "--demo"],
        ["--out", "{tmp}/r.html", "--session", "{tmp}/nope.gpuprof"],
        ["--out", "{tmp}/r.html", "--session", "{session}", "--recommend", "no-such-preset"],
        [
            "--out",
            "{tmp}/r.html",
            "--session",
            "{session}",
            "--scenario",
            "pretrain",
        ],  # no --params
        ["--out", "{tmp}/r.pdf", "--demo", "--paper", "a3"],
    ],
)
def test_cli_bad_input_exits_2(
    argv: list[str], tmp_path: Path, session_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [a.format(tmp=tmp_path, session=session_file) for a in argv]
    if "a3" in args:  # argparse's choices: exit 2 as well
        with pytest.raises(SystemExit) as exc:
            main(["report", *args])
        assert exc.value.code == 2
    else:
        assert main(["report", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") <= 3 and "Traceback" not in err


def test_broken_session_file_is_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gpuprof"
    bad.write_bytes(b"not a database at all" * 100)
    assert _report_cli(bad, tmp_path / "r.html") == 2


def test_the_pdf_renderer_is_injected_and_the_core_never_imports_qt() -> None:
    """Only HTML and JSON are the core's; PDF comes from the front end (DESIGN.md)."""
    code = (
        "import sys\n"
        "from gpuprof.errors import InputError\n"
        "from gpuprof.report import render\n"
        "print(','.join(render.formats()))\n"
        "try:\n"
        "    render.renderer('pdf')\n"
        "except InputError as e:\n"
        "    print('refused:', e)\n"
        "assert not [m for m in sys.modules if m.startswith(('gpuprof.ui', 'PySide6'))]\n"
        "from gpuprof.cli import _register_front_ends\n"
        "_register_front_ends()\n"
        "print(render.renderer('pdf').extension)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "html,json"
    assert lines[1].startswith("refused: PDF needs the desktop app's Qt")
    assert lines[2] == ".pdf"
