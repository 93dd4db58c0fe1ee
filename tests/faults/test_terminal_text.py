"""Text from outside on its way to a terminal or a spreadsheet (issue 11).

Every hostile string of :data:`HOSTILE_TEXT` (rich markup ``[/]``, ``[link=...]``, emoji codes
like the ``:AB:`` in a DGX bus id, ESC and OSC-8 sequences, C1 controls, bidi overrides, NUL, CR,
backspaces, a trailing backslash, 20,000 characters) goes through each CLI output: it must
show literally (controls as U+FFFD), never as markup, an emoji or a terminal command, and
never crash the command. Every CSV writer keeps text cells from becoming spreadsheet formulas.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from gpuprof import csvsafe
from gpuprof.catalog.instances import COLUMNS
from gpuprof.cli import main
from gpuprof.telemetry.store import SessionStore
from tests.fakes.fixtures import bench_case, bench_run
from tests.faults.hostile import ROOT, run_gpuprof
from tests.faults.hostile_text import (
    HOSTILE_TEXT,
    HostileSource,
    assert_terminal_safe,
    groups,
    visible,
)

GROUPS = groups()
GROUP_IDS = [f"{g[0]}..{g[-1]}" for g in GROUPS]


def _texts(names: list[str]) -> list[str]:
    return [HOSTILE_TEXT[n] for n in names]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _use_source(monkeypatch: pytest.MonkeyPatch, source: HostileSource) -> None:
    monkeypatch.setattr("gpuprof.commands.telemetry._open", lambda demo, args=None: source)


def _session(path: Path, texts: list[str], polls: int = 3) -> Path:
    source = HostileSource(texts)
    store = SessionStore.create(path, source=source)
    for _ in range(polls):
        store.append(source.poll())
    store.close()
    return path


# --- devices, monitor: device names, bus ids, hostname, label, status ---------------------------


@pytest.mark.parametrize("names", GROUPS, ids=GROUP_IDS)
@pytest.mark.parametrize(
    "argv", [["devices"], ["monitor", "--once"]], ids=["devices", "monitor-once"]
)
@pytest.mark.slow
def test_device_texts_show_literally(
    names: list[str], argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    texts = _texts(names)
    _use_source(monkeypatch, HostileSource(texts))
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert_terminal_safe(out + err)
    for name, text in zip(names, texts, strict=True):
        assert visible(text) in out, name  # whole: no markup eaten, no emoji, not cut


def test_no_gpu_message_and_hint_show_literally(capsys, monkeypatch) -> None:
    texts = list(HOSTILE_TEXT.values())
    source = HostileSource(texts)
    monkeypatch.setattr(source, "devices", lambda: ())
    _use_source(monkeypatch, source)
    code, out, err = _run(capsys, "devices")
    assert code == 0, err
    assert_terminal_safe(out + err)
    assert visible(texts[0]) in out and visible(texts[-1]) in out


@pytest.mark.parametrize("argv", [["devices", "--json"], ["monitor", "--once", "--json"]])
def test_json_outputs_escape_controls_and_read_back_the_same(
    argv: list[str], capsys, monkeypatch
) -> None:
    texts = list(HOSTILE_TEXT.values())[:8]
    _use_source(monkeypatch, HostileSource(texts, status=False))
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert_terminal_safe(out.replace("\n", ""))  # C1 and bidi as \\uXXXX escapes
    data = json.loads(out)
    gpus = data["devices"] if "devices" in data else data["gpus"]
    assert [g["uuid"] for g in gpus] == texts  # lossless


def test_devices_in_a_pipe_are_not_truncated(capsys) -> None:
    code, out, _ = _run(capsys, "devices", "--demo")
    assert code == 0
    lines = out.splitlines()
    # A whole row on one line: name, bus id and UUID, as a script piping it needs them.
    row = next(line for line in lines if "00000000:AB:00.0" in line)
    assert "NVIDIA H100 80GB HBM3" in row
    assert re.search(r"GPU-[0-9a-f]{12}-0000-0000-0000-000000000005", row), row
    assert "…" not in out
    assert_terminal_safe(out)


def test_monitor_once_does_not_say_ctrl_c(capsys) -> None:
    code, out, _ = _run(capsys, "monitor", "--once", "--demo")
    assert code == 0
    assert "SIMULATED" in out and "Ctrl-C" not in out
    code, out, _ = _run(capsys, "monitor", "--demo", "--count", "1", "--interval", "0.1")
    assert code == 0
    assert "Ctrl-C to stop" in out  # the live view still says how to leave it


# --- catalog list, recommend: rows of an imported catalog -------------------------------------


def _catalog(path: Path, cells: list[str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for k, text in enumerate(cells):
            row = dict.fromkeys(COLUMNS, "")
            row.update(
                provider="Evil",
                instance=f"i{k}-{text}",
                region="us-east-1",
                gpu_model="H100",
                gpu_count="8",
                gpu_mem_gib="80",
                vcpus="96",
                ram_gib="1024",
                price_ondemand_usd_hr=f"{30 + k}",
                source=text,
                as_of="2026-01-01",
                notes=text,
            )
            w.writerow([row[c] for c in COLUMNS])
    return path


@pytest.mark.slow
def test_catalog_rows_show_literally_in_list_and_recommend(tmp_path: Path) -> None:
    texts = list(HOSTILE_TEXT.values())
    src = _catalog(tmp_path / "evil.csv", texts)
    ran = run_gpuprof(["catalog", "import", str(src)], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert_terminal_safe(ran.stdout + ran.stderr)
    listed = run_gpuprof(["catalog", "list", "--provider", "Evil", "--json"], tmp_path)
    assert_terminal_safe(listed.stdout.replace("\n", ""))  # C1 and bidi as \\uXXXX escapes
    rows = json.loads(listed.stdout)
    # Every row but NUL-free CSV limits allow is imported (NUL and the others included).
    assert len(rows) == len(texts), [r["instance"][:30] for r in rows]
    table = run_gpuprof(["catalog", "list", "--provider", "Evil"], tmp_path)
    rec = run_gpuprof(
        [
            "recommend",
            "--scenario",
            "train",
            "--params",
            "7B",
            "--tokens",
            "1e9",
            "--provider",
            "Evil",
            "--limit",
            "50",
        ],
        tmp_path,
    )
    for ran in (table, rec):
        assert ran.returncode == 0, ran.stderr[-2000:]
        assert_terminal_safe(ran.stdout + ran.stderr)
    for k, text in enumerate(texts):
        # Whole (the file is read with universal newlines: a CR is a line break in its cell).
        for part in visible(f"i{k}-{text}".replace("\r", "\n")).split("\n"):
            assert part in table.stdout, k  # the instance name
            assert part in rec.stdout, k


# --- replay, export, report, bench: recorded strings --------------------------------------------


@pytest.mark.parametrize("names", GROUPS, ids=GROUP_IDS)
@pytest.mark.slow
def test_a_recorded_session_replays_literally(names: list[str], tmp_path: Path) -> None:
    texts = _texts(names)
    session = _session(tmp_path / "evil.gpuprof", texts)
    ran = run_gpuprof(["replay", str(session), "--speed", "1000"], tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert_terminal_safe(ran.stdout + ran.stderr)
    for text in texts:
        assert visible(text) in ran.stdout


@pytest.mark.slow
def test_export_to_stdout_and_report_messages_are_safe(tmp_path: Path) -> None:
    texts = list(HOSTILE_TEXT.values())[:8]
    session = _session(tmp_path / "evil.gpuprof", texts)
    ran = run_gpuprof(["export", str(session), "--csv", "-"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert_terminal_safe(ran.stdout.replace("\r\n", "\n"))
    uuids = {row["uuid"] for row in csv.DictReader(io.StringIO(ran.stdout))}
    assert uuids == {visible(t) for t in texts}
    out = tmp_path / "a\x1b[2J\u202eb.html"  # a hostile file name in the "wrote" line
    ran = run_gpuprof(["report", "--session", str(session), "--out", str(out)], tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert out.exists()
    assert_terminal_safe(ran.stdout + ran.stderr)


def test_bench_list_and_show_print_recorded_strings_literally(capsys) -> None:
    from gpuprof.bench.base import Result
    from gpuprof.bench.environment import Environment
    from gpuprof.bench.results import ResultsDB

    texts = list(HOSTILE_TEXT.values())
    results = tuple(
        Result(bench="p2p", case=f"c{k}-{t}", status=f"skipped: {t}", notes=(t,))
        for k, t in enumerate(texts)
    )
    run = bench_run(
        bench_case("p2p", texts[2], *results, notes=(texts[3],)),
        run_id="20260101-000000-evil",
        device="cuda:0",
        started_s=1_750_000_000.0,
        seconds=30,
        environment=Environment(hostname=texts[0], gpu_name=texts[1]),
        notes=(texts[4],),
    )
    ResultsDB().save(run)
    code, out, err = _run(capsys, "bench", "list")
    assert code == 0, err
    assert_terminal_safe(out + err)
    code, out, err = _run(capsys, "bench", "show", "latest")
    assert code == 0, err
    assert_terminal_safe(out + err)
    for k, text in enumerate(texts):
        assert visible(f"c{k}-{text}") in out, k
    assert visible(texts[1]) in out and visible(texts[4]) in out


# --- CSV: formulas stay text, numbers stay numbers --------------------------------------------

FORMULAS = [
    '=HYPERLINK("https://evil.example/","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "=1+1",
]


def _is_formula(cell: str) -> bool:
    return cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not re.fullmatch(
        r"[+-]?\d+(\.\d*)?([eE][+-]?\d+)?", cell
    )


def test_csv_cells_guard_text_and_keep_numbers() -> None:
    buf = io.StringIO()
    w = csvsafe.writer(buf)
    w.writerow([*FORMULAS, -5, -1.5, "-12.5", "+3", "1e-3", "plain", "", None])
    (row,) = list(csv.reader(io.StringIO(buf.getvalue())))
    assert not any(_is_formula(c) for c in row), row
    assert row[len(FORMULAS) :] == ["-5", "-1.5", "-12.5", "+3", "1e-3", "plain", "", ""]
    assert [csvsafe.unguard(c) for c in row[:4]] == FORMULAS[:4]  # read back as written


@pytest.mark.slow
def test_catalog_overlay_keeps_formulas_as_text_and_reads_them_back(tmp_path: Path) -> None:
    src = _catalog(tmp_path / "formulas.csv", FORMULAS)
    ran = run_gpuprof(["catalog", "import", str(src)], tmp_path)
    assert ran.returncode == 0, ran.stderr
    (overlay,) = (tmp_path / "data" / "catalog").glob("*.csv")
    with overlay.open(newline="", encoding="utf-8") as fh:
        cells = [c for row in csv.reader(fh) for c in row]
    assert cells and not any(_is_formula(c) for c in cells), [c for c in cells if _is_formula(c)]
    listed = run_gpuprof(["catalog", "list", "--provider", "Evil", "--json"], tmp_path)
    sources = sorted(r["source"] for r in json.loads(listed.stdout))
    # What the user imported, read back as text (the reader strips cells).
    assert sources == sorted(f.strip() for f in FORMULAS)


def test_export_and_monitor_csv_keep_formulas_as_text(tmp_path: Path, capsys, monkeypatch) -> None:
    session = _session(tmp_path / "f.gpuprof", FORMULAS)
    out = tmp_path / "f.csv"
    assert main(["export", str(session), "--csv", str(out)]) == 0
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    _use_source(monkeypatch, HostileSource(FORMULAS, status=False))
    code, text, err = _run(capsys, "monitor", "--csv", "--count", "1", "--interval", "0.1")
    assert code == 0, err
    rows += list(csv.reader(io.StringIO(text)))
    header = rows[0]
    for row in rows[1:]:
        if row == header:
            continue
        assert not any(_is_formula(c) for c in row), row
        power = row[header.index("power_w")]
        assert power == "" or float(power) >= 0  # numbers stay numbers


# --- every output goes through the shared helpers -------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "home"),
    [
        (r"\bConsole\(", "termtext.py"),
        (r"Text\.from_markup\(", "termtext.py"),
        (r"\bcsv\.writer\(", "csvsafe.py"),
    ],
)
def test_outputs_use_the_shared_helpers(pattern: str, home: str) -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("gpuprof", "ui")
        for p in (ROOT / folder).rglob("*.py")
        if p.name != home and re.search(pattern, p.read_text("utf-8"))
    ]
    assert offenders == []
