"""The CLI in Chinese: every sub-command's help and output on the SIMULATED demo, with no English
sentence left over (names, units, numbers and the data shown aside), argparse's own texts, stored
English texts shown translated, and a catalog that translates every text the code marks."""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest

from gpuprof import i18n
from gpuprof.cli import build_parser, main
from tests.prometheus_fixture import needs_prometheus

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "gpuprof_zh_CN.ts"
FIXTURE_RESULTS = ROOT / "tests" / "data" / "results-v1.sqlite"
FIXTURE_SESSION = ROOT / "tests" / "data" / "session-v1.gpuprof"

#: Words that stay as they are in Chinese text: units, product, format and tool names, and
#: identifiers a user types. Words in CAPITALS (acronyms, metavars such as FILE) stay too.
_KEPT = """
    B KiB MiB GiB TiB kB MB GB TB Gbps MHz W kWh J s ms h m d fps FLOPs
    NVIDIA GPU GPUs CPU CUDA NVML NVLink NVSwitch PCIe Gen Ctrl
    Linux Intel Xeon Platinum GeForce RTX PyTorch Prometheus Grafana SkyPilot
    gpuprof dcgm exporter nvidia smi topo iperf3 nccl tests torch pip stderr stdout
    token simulated source custom x cuda aws gcp vCPU SQLite ROCm ResNet ImageNet
    PaLM Megatron Chowdhery Narayanan ml Frontier Summit
    PromQL Authorization Bearer chmod shell python serve
    Volta Turing Ampere Ada Lovelace Hopper Blackwell CDNA
"""
KEPT = frozenset(_KEPT.split())
#: Scenario tabs named in ``--tab``'s help: values a user types.
TABS = (
    "overview",
    "telemetry",
    "processes",
    "topology",
    "benchmarks",
    "recommend",
    "health",
    "check",
)

WORD = re.compile(r"(?<![\w./\\:@$%-])[A-Za-z][A-Za-z']+(?![\w./\\@-])")
#: Not prose: commands in backticks, quoted values, paths and URLs, options, fields, the
#: one-line "gpuprof: error:" prefix scripts look for, and argparse's usage syntax.
SCRUB = re.compile(
    r"`[^`]*`|'[^']*'|\"[^\"]*\"|\S+/\S+|https?://\S+|(?<![\w-])--?[\w-]+|\{[^}]*\}|\[[^\]]*\]"
    r"|^\s*gpuprof: (?:error|warning):"
)


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.set_language("en")


def _parser_words() -> set[str]:
    """Sub-command names, option values and metavars: what a user types, shown as typed."""
    out: set[str] = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out.add(name)
                    walk(sub)
            elif action.choices:
                out.update(str(c) for c in action.choices)
            if isinstance(action.metavar, str):
                out.update(re.findall(r"[A-Za-z]+", action.metavar))

    walk(build_parser())
    return out


@cache
def _data_values() -> tuple[str, ...]:
    """Texts that come from data, not from gpuprof's own messages: the SIMULATED machines, the
    cloud catalog and GPU spec table, the recommender's keys and the benchmark fixture."""
    from gpuprof.bench.base import BENCH_NAMES
    from gpuprof.bench.results import ResultsDB
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.efficiency import STACKS
    from gpuprof.recommend.rank import OBJECTIVES
    from gpuprof.recommend.workload import PRECISIONS, RECOMPUTE
    from gpuprof.recommend.workload import SCENARIOS as WORKLOADS
    from gpuprof.telemetry.scenarios import SCENARIOS

    values: set[str] = {*OBJECTIVES, *PRECISIONS, *WORKLOADS, *TABS, *BENCH_NAMES, "train", "cpu"}
    values |= {*STACKS, *RECOMPUTE}  # --stack and --recompute values, shown as typed
    for sc in SCENARIOS.values():
        system = sc.system
        values |= {sc.label, sc.device.name, system.os or "", system.cpu_model or ""}
        values.add(system.hostname or "")
    cat = load_catalog(overlays=False)
    for i in cat.instances:
        values |= {i.provider, i.instance, i.region, i.gpu_model, i.gpu_name, i.source}
    for spec in cat.specs.values():
        values |= {spec.key, spec.interconnect or "", spec.source}
    with tempfile.TemporaryDirectory() as tmp:  # opening a database may migrate it
        copy = Path(tmp) / "results.sqlite"
        shutil.copyfile(FIXTURE_RESULTS, copy)
        run = ResultsDB(copy).load("latest")
    values |= {run.suite, run.device, run.environment.cpu_model or ""}
    values |= {f"{r.bench} {r.case}" for r in run.results} | {r.case for r in run.results}
    return tuple(sorted((v for v in values if v), key=len, reverse=True))


def _leftovers(text: str) -> list[str]:
    """Lines of ``text`` with an English word that is not a kept name, unit or data value."""
    kept = KEPT | _parser_words()
    out = []
    for line in text.splitlines():
        scrubbed = line
        for value in _data_values():
            if len(value) > 1 and value in scrubbed:
                # A whole value, not a piece of a word: Baidu's region "bj" is not in "--objective".
                scrubbed = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", scrubbed)
        scrubbed = SCRUB.sub(" ", scrubbed)
        words = [w for w in WORD.findall(scrubbed) if w not in kept and not w.isupper()]
        if words:
            out.append(f"{words}: {line.strip()}")
    return out


def _run_zh(capsys, monkeypatch, args: list[str], *, code: int = 0) -> tuple[str, str]:
    monkeypatch.setenv("COLUMNS", "400")  # rich: no wrapped or cut-off words
    try:
        got = main(["--lang", "zh_CN", *args])
    except SystemExit as done:  # --help
        got = int(done.code or 0)
    out = capsys.readouterr()
    assert got == code, out.err
    return out.out, out.err


@pytest.fixture
def results_db():
    data = Path(os.environ["GPUPROF_DATA_DIR"])
    data.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURE_RESULTS, data / "results.sqlite")


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[list[str]]:
    """Every sub-command's path (``[]`` for gpuprof itself, ``["bench", "list"]``, ...)."""
    out = [list(path)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, (*path, name))
    return out


HELP = _commands(build_parser())


@pytest.mark.parametrize("command", HELP, ids=lambda c: " ".join(c) or "gpuprof")
def test_help_is_chinese(capsys, monkeypatch, command):
    out, _ = _run_zh(capsys, monkeypatch, [*command, "--help"])
    assert "用法：" in out and "选项" in out and "显示此帮助信息并退出" in out
    assert not _leftovers(out), "\n".join(_leftovers(out))


OUTPUTS = [
    ["devices", "--demo"],
    ["monitor", "--demo", "--once"],
    ["replay", "--speed", "1000", "SESSION"],
    ["bench", "list"],
    ["bench", "show", "latest"],
    ["catalog", "list", "--no-overlays"],
    ["catalog", "gpus"],
    ["recommend", "--preset", "cv-train", "--limit", "3"],
    ["recommend", "--preset", "llm-100b-train", "--limit", "3", "--spot"],
    ["recommend", "--preset", "video-analytics", "--limit", "3"],
    ["recommend", "--preset", "nlp-inference-t4", "--limit", "3"],
    ["recommend", "--preset", "fp64-risk", "--limit", "3"],
    [
        "recommend",
        "--scenario",
        "train",
        "--gpu",
        "H100",
        "--gpus",
        "8",
        "--params",
        "7B",
        "--tokens",
        "1e9",
    ],
    ["report", "--demo", "--out", "OUT/r.json"],
    ["recommend", "--scenario", "inference", "--model", "llama-3.1-70b", "--throughput", "2000"],
    ["recommend", "--scenario", "train", "--model", "llama-3.1-8b", "--tokens", "1e9"],
]


@pytest.mark.parametrize("command", OUTPUTS, ids=lambda c: " ".join(c[:3]))
@pytest.mark.slow
def test_output_is_chinese(capsys, monkeypatch, tmp_path, results_db, command):
    session = tmp_path / "s.gpuprof"
    shutil.copyfile(FIXTURE_SESSION, session)
    args = [a.replace("SESSION", str(session)).replace("OUT", str(tmp_path)) for a in command]
    out, err = _run_zh(capsys, monkeypatch, args)
    text = out + err
    assert re.search(r"[\u4e00-\u9fff]", text)
    assert not _leftovers(text), "\n".join(_leftovers(text))


def test_compare_speaks_chinese(capsys, monkeypatch):
    data = ROOT / "tests" / "data" / "compare"
    names = ["node-a", "node-b", "node-c", "node-d", "foreign", "newer-schema"]
    args = ["compare", *(str(data / f"{n}.json") for n in names)]
    out, err = _run_zh(capsys, monkeypatch, args, code=1)  # 1: outliers flagged
    assert "离群值" in out and "格式版本" in err, out + err
    assert not _leftovers(out + err), "\n".join(_leftovers(out + err))


def test_model_list_headers_are_chinese(capsys, monkeypatch):
    out, _ = _run_zh(capsys, monkeypatch, ["recommend", "--list-models"])
    header = next(line for line in out.splitlines() if "名称" in line)
    assert "层数" in header and "激活参数量" in header and not _leftovers(header), header


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_kill_asks_and_answers_in_chinese(monkeypatch):
    import psutil

    from gpuprof.commands import kill as kill_cmd

    monkeypatch.setattr(kill_cmd, "gpu_use", lambda pid: [(3, 2 * 1024**3)])
    i18n.set_language("zh_CN")
    child = subprocess.Popen(["sleep", "60"])
    try:
        user = psutil.Process(child.pid).username()
        out = io.StringIO()
        args = argparse.Namespace(pid=child.pid, signal="TERM", yes=False)
        assert kill_cmd.cmd_kill(args, stdin=_Tty("y\n"), stdout=out) == 0
        assert child.wait(timeout=10) < 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    text = out.getvalue()
    assert f"向 PID {child.pid} 发送 SIGTERM" in text and "显存 2.0 GiB" in text, text
    shown = text.replace("sleep", " ").replace(user, " ")  # the process's own name and user
    assert not _leftovers(shown), "\n".join(_leftovers(shown))


@needs_prometheus
def test_fleet_grid_and_findings_are_chinese(capsys, monkeypatch, prom_fleet):
    args = ["fleet", "--prometheus", prom_fleet.url, "--metric", "temp", "--idle-minutes", "5"]
    out, err = _run_zh(capsys, monkeypatch, args, code=1)  # 1: a critical finding
    assert "[严重]" in out and "[警告]" in out and "发现的问题" in out, out
    assert not _leftovers(out + err), "\n".join(_leftovers(out + err))


def test_a_projection_derivation_is_shown_in_chinese_piece_by_piece():
    from gpuprof.profile.project import shown_derivation

    text = (
        "step 12 ms here (P50 of 40 measured steps, 8× H100 SXM); split breakdown: compute 60% / "
        "memory 20% / collectives 10% / idle 10%; busy time re-timed from 300 TFLOPS achieved "
        "per device while busy to 50% of the bf16 peak 989 TFLOPS (× 1.65; nothing here to carry "
        "an efficiency over from), collectives kept (link unknown here), ring 2(n−1)/n, idle "
        "unchanged; 80.0 GiB of 76.0 GiB usable per GPU: does not fit."
    )
    assert shown_derivation(text) == text  # stored English, shown as is in English
    i18n.set_language("zh_CN")
    shown = shown_derivation(text)
    assert shown.startswith("本机单步 12 ms（40 个实测步骤的 P50，8× H100 SXM）；"), shown
    assert "集合通信保持不变（本机链路未知），环形 2(n−1)/n" in shown and "放不下。" in shown
    assert not _leftovers(shown), shown
    assert (
        shown_derivation("a text no catalog has; and more.") == "a text no catalog has；and more。"
    )


def test_catalog_import_speaks_chinese(capsys, monkeypatch):
    path = ROOT / "tests" / "data" / "skypilot" / "aws_vms.csv"
    out, err = _run_zh(capsys, monkeypatch, ["catalog", "import", str(path)])
    assert "已导入" in out + err and "合并了" in err, out + err
    assert not _leftovers(out + err), "\n".join(_leftovers(out + err))


@pytest.mark.slow
def test_the_app_shows_projection_derivations_in_chinese(make_window, qtbot):
    from tests.test_ui_profile import _profile

    w = make_window()
    i18n.set_language("zh_CN")
    proj = w.feature("jobs").show_summary(_profile(), None).project()
    assert proj is not None
    qtbot.waitUntil(lambda: proj.done_, timeout=60_000)
    how = proj.table.item(0, 10).text()
    assert "本机单步" in how and not _leftovers(how), how
    assert "; step " in proj.rows[0].derivation  # the record stays English


def _refused_url() -> str:
    """A loopback URL nobody listens on (the port was just free)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.slow
def test_profile_and_recover_speak_chinese(capsys, monkeypatch, tmp_path):
    rec = tmp_path / "job.gpuprof"
    job = [sys.executable, "-c", "__import__('time').sleep(0.5)"]
    args = ["profile", "--demo", "--interval", "0.1", "--out", str(rec), "--", *job]
    out, err = _run_zh(capsys, monkeypatch, args)
    text = out + err
    # The summary's phases, severities, tensor-core share and stored notes, all in Chinese.
    assert "作业画像" in text and "张量核心" in text and "SIMULATED 遥测" in text, text
    assert not _leftovers(text), "\n".join(_leftovers(text))
    # The projection: its basis, table and the first rows' derivations.
    args = ["recommend", "--from-profile", str(rec), "--steps", "100", "--limit", "3"]
    out, err = _run_zh(capsys, monkeypatch, args)
    assert "时间划分" in out and "计算 ×" in out and "SIMULATED 遥测" in out, out
    assert not _leftovers(out + err), "\n".join(_leftovers(out + err))
    session = tmp_path / "s.gpuprof"
    shutil.copyfile(FIXTURE_SESSION, session)
    out, err = _run_zh(capsys, monkeypatch, ["recover", str(session)])
    assert "已从" in out + err and not _leftovers(out + err), _leftovers(out + err)


@pytest.mark.parametrize(
    "command",
    [
        ["fleet", "--prometheus", "URL"],
        ["monitor", "--connect", "URL", "--once"],
        ["kill", "--yes", "PID"],
        ["catalog", "update", "--url-base", "URL", "--providers", "aws"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_errors_of_the_new_commands_are_one_chinese_line(capsys, monkeypatch, command):
    gone = subprocess.Popen([sys.executable, "-c", "0"])
    gone.wait()  # a pid that has exited
    args = [a.replace("URL", _refused_url()).replace("PID", str(gone.pid)) for a in command]
    out, err = _run_zh(capsys, monkeypatch, args, code=2)
    lines = err.strip().splitlines()
    assert not out and len(lines) == 1 and lines[0].startswith("gpuprof: error: "), err
    assert re.search(r"[\u4e00-\u9fff]", lines[0]) and not _leftovers(lines[0]), lines


@pytest.mark.slow
def test_monitor_connect_to_an_exporter_speaks_chinese(capsys, monkeypatch, tmp_path):
    cmd = [sys.executable, "-m", "gpuprof", "--lang", "zh_CN", "exporter", "--demo", "--port", "0"]
    env = dict(os.environ, GPUPROF_DATA_DIR=str(tmp_path / "data"))
    child = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 30)
        banner = child.stdout.readline() if ready else ""
        found = re.search(r"http://127\.0\.0\.1:\d+", banner)
        assert found and "正在提供" in banner and not _leftovers(banner), banner
        out, err = _run_zh(capsys, monkeypatch, ["monitor", "--connect", found.group(0), "--once"])
        assert "利用率" in out and "演示数据" in out, out
        assert not _leftovers(out + err), "\n".join(_leftovers(out + err))
    finally:
        child.terminate()
        child.communicate(timeout=30)


@pytest.mark.slow
def test_record_and_export_say_what_they_did_in_chinese(capsys, monkeypatch, tmp_path):
    rec, csv = tmp_path / "r.gpuprof", tmp_path / "r.csv"
    args = ["record", "--demo", "--out", str(rec), "--duration", "1", "--interval", "0.5"]
    out, err = _run_zh(capsys, monkeypatch, args)
    assert "已保存" in out + err and not _leftovers(out + err), _leftovers(out + err)
    out, err = _run_zh(capsys, monkeypatch, ["export", "--csv", str(csv), str(rec)])
    assert "已写入" in out + err and not _leftovers(out + err), _leftovers(out + err)
    assert csv.read_text().startswith("time_s,")  # the file itself is data: English headers


def test_argparse_errors_are_chinese(capsys, monkeypatch):
    _, err = _run_zh(capsys, monkeypatch, ["monitor", "--bogus"], code=2)
    assert "无法识别的参数：--bogus" in err
    _, err = _run_zh(capsys, monkeypatch, ["record", "--demo"], code=2)
    assert "缺少以下必需参数：--out" in err
    _, err = _run_zh(capsys, monkeypatch, ["bench", "--suite", "huge"], code=2)
    assert "参数 --suite：无效的选项：'huge'" in err
    # and English stays English
    with pytest.raises(SystemExit):
        main(["--lang", "en", "monitor", "--bogus"])
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_stored_english_texts_are_shown_translated():
    # Benchmark notes and skip reasons are stored in English (data) and shown translated.
    assert i18n.tr_text("skipped: needs 2 CUDA devices") == "skipped: needs 2 CUDA devices"
    i18n.set_language("zh_CN")
    assert i18n.tr_text("skipped: needs 2 CUDA devices") == "已跳过：需要 2 个 CUDA 设备"
    assert i18n.tr_text("took 12.5 s, over its 8 s budget") == "用时 12.5 秒，超出其 8 秒的预算"
    assert i18n.tr_text("success") == "成功"
    label = "measured here (run 20250301-101500-ab12, 2025-03-01)"
    assert i18n.tr_text(label) == "本机实测（运行 20250301-101500-ab12，2025-03-01）"
    for text in ("cpu (fixture CPU)", "a text no catalog has", "", "{x}"):
        assert i18n.tr_text(text) == text


def test_recommendation_calibrated_by_a_run_names_the_run_in_chinese():
    from gpuprof.catalog.instances import load_catalog
    from gpuprof.recommend.calibrate import Calibration, annotate
    from gpuprof.recommend.rank import recommend
    from gpuprof.recommend.workload import Workload

    i18n.set_language("zh_CN")
    w = Workload.presets()["llm-100b-train"]
    cal = Calibration("H100 SXM", "NVIDIA H100 80GB HBM3", w.compute_dtype, 700.0, "c", "r1", 0.0)
    rec = recommend(
        w, load_catalog(overlays=False), local_measurements={"H100 SXM": {w.compute_dtype: 700.0}}
    )
    rec = annotate(rec, {"H100 SXM": {w.compute_dtype: cal}})
    rows = [r for r in rec.rows if r.instance.gpu_model == "H100 SXM"]
    assert rows
    row = rows[0]
    assert row.efficiency_source.startswith("measured here (run r1, ")  # data stays English
    assert any("本机实测（运行 r1，" in reason for reason in row.reasons), row.reasons


def test_bilingual_gives_both_languages():
    text = "no Chinese font is installed, so Chinese text shows as boxes; install one (e.g. `sudo apt install fonts-noto-cjk`) or start with `--lang en`"
    assert i18n.bilingual(text) == text
    i18n.set_language("zh_CN")
    both = i18n.bilingual(text)
    assert both.endswith(" / " + text) and both.startswith(i18n.lookup(text))


def _marked_texts() -> dict[str, str]:
    """Every literal passed to tr / _t / N_ / self.tr in gpuprof/ and ui/, and where."""
    found: dict[str, str] = {}
    files = [*(ROOT / "gpuprof").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            first = node.args[0]
            if (
                name in ("tr", "_t", "N_", "bilingual")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and first.value
            ):
                found.setdefault(first.value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@pytest.mark.slow
def test_every_marked_text_has_a_chinese_translation():
    # The same check as tests/test_i18n.py's lupdate run, without needing lupdate installed.
    catalog = i18n.load_catalog(CATALOG.read_text("utf-8"))
    marked = _marked_texts()
    assert len(marked) > 700
    missing = [f"{where}: {text!r}" for text, where in marked.items() if text not in catalog]
    assert not missing, f"{len(missing)} marked text(s) have no zh_CN translation:\n" + "\n".join(
        missing[:30]
    )
