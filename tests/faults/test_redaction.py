"""Secrets never leave the machine (issue 11): command lines, process names, the hostname and
the session label go through the same rules (gpuprof.redact) in every output: HTML and JSON
reports (and so the PDF, rendered from the same model), ``--json`` outputs, the exporter's
labels and the Processes tab (what its screenshots show).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuprof.cli import main
from gpuprof.redact import MASK, redact_cmdline, redact_secrets
from gpuprof.telemetry.store import SessionStore
from tests.faults.hostile import run_gpuprof
from tests.faults.hostile_text import HostileSource

#: name -> (text with a secret, the secret). Each is a command line AND a process name below.
SECRETS: dict[str, tuple[str, str]] = {
    "-p quoted": ("mysql -h db -p 'pwquoted1' app", "pwquoted1"),
    "-p value": ("sshpass -p pwplain2 ssh host", "pwplain2"),
    "--pw=": ("tool --pw=pweq3 --lr 1", "pweq3"),
    "--key=": ("tool --key=keyeq4", "keyeq4"),
    "--password value": ("tool --password pwsp5", "pwsp5"),
    "--token value": ("tool --token toksp6", "toksp6"),
    "--secret value": ("tool --secret secsp7", "secsp7"),
    "--api-key value": ("tool --api-key apikey8", "apikey8"),
    "env FOO_TOKEN=": ("FOO_TOKEN=envtok9 python run.py", "envtok9"),
    "url user:pass@": ("git clone https://alice:urlpw10@example.com/r", "urlpw10"),
    "mysql -pSECRET": ("mysql -uroot -pglued11 db", "glued11"),
    "curl -u user:pass": ("curl -u bob:curlpw12 https://example.com", "curlpw12"),
}
HOSTNAME = ("build-7 HF_TOKEN=hosttok13", "hosttok13")
LABEL = ("REPLAY — https://carol:labelpw14@example.com/run.gpuprof", "labelpw14")
ALL_SECRETS = [s for _, s in SECRETS.values()] + [HOSTNAME[1], LABEL[1]]
#: Ordinary arguments that must survive (a report with --include-cmdlines is for debugging).
KEPT = ["--max-tokens 4096", "--tokenizer gpt2", "mkdir -p -v out", "--key-file /etc/k.pem"]


def _source(cmdline: str | None = None) -> HostileSource:
    texts = [text for text, _ in SECRETS.values()]
    return HostileSource(texts, cmdline=cmdline, hostname=HOSTNAME[0], label=LABEL[0], status=False)


def _assert_no_secret(text: str) -> None:
    leaked = [s for s in ALL_SECRETS if s in text]
    assert leaked == [], leaked


@pytest.mark.parametrize("name", list(SECRETS))
def test_each_rule_hides_its_secret(name: str) -> None:
    text, secret = SECRETS[name]
    out = redact_secrets(text)
    assert secret not in out and MASK in out
    kept = redact_cmdline(text, keep=True) or ""
    assert secret not in kept and MASK in kept


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_arguments_are_kept(text: str) -> None:
    assert redact_secrets(text) == text


def test_redaction_leaves_a_masked_line_as_it_is() -> None:
    once = redact_secrets(" ".join(t for t, _ in SECRETS.values()))
    assert redact_secrets(once) == once


# --- reports: the model every renderer (HTML, JSON, PDF) reads ----------------------------------


@pytest.mark.parametrize("include", [False, True], ids=["default", "include-cmdlines"])
def test_report_hides_secrets_in_names_hostname_and_label(include: bool, tmp_path: Path) -> None:
    from gpuprof.report import build
    from gpuprof.report.html import write_html
    from gpuprof.report.json import dumps_report

    source = _source(cmdline=f"python train.py {' '.join(KEPT[:2])} --password=cmdpw15")
    snaps = [source.poll() for _ in range(3)]
    report = build.from_source(source, snapshots=snaps, include_cmdlines=include)
    assert report.telemetry is not None and len(report.telemetry.processes) == len(SECRETS)
    html = write_html(report, tmp_path / "r.html").read_text("utf-8")
    text = dumps_report(report)
    for out in (repr(report), html, text):
        _assert_no_secret(out)
        assert "cmdpw15" not in out
    names = {p.name for p in report.telemetry.processes}
    assert "tool --pw=*** --lr 1" in names  # a name keeps what is not a secret
    assert report.machine.hostname == f"build-7 HF_TOKEN={MASK}"
    assert ("--max-tokens 4096 --tokenizer gpt2" in html) is include


@pytest.mark.slow
def test_report_command_hides_secrets_of_a_recorded_session(tmp_path: Path) -> None:
    source = _source()
    session = tmp_path / "s.gpuprof"
    store = SessionStore.create(session, source=source)
    for _ in range(3):
        store.append(source.poll())
    store.close()
    for fmt in ("json", "html"):
        out = tmp_path / f"r.{fmt}"
        ran = run_gpuprof(
            ["report", "--session", str(session), "--include-cmdlines", "--out", str(out)],
            tmp_path,
        )
        assert ran.returncode == 0, ran.stderr[-2000:]
        written = out.read_text("utf-8")
        _assert_no_secret(written + ran.stdout + ran.stderr)
        assert "tool --pw=*** --lr 1" in written


# --- --json outputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv", [["devices", "--json"], ["monitor", "--once", "--json"]], ids=["devices", "monitor"]
)
def test_json_outputs_hide_secrets(argv: list[str], capsys, monkeypatch) -> None:
    monkeypatch.setattr("gpuprof.commands.telemetry._open", lambda demo, args=None: _source())
    assert main(argv) == 0
    out = capsys.readouterr().out
    _assert_no_secret(out)
    data = json.loads(out)
    if "processes" in data:
        cmdlines = [p["cmdline"] for p in data["processes"]]
        assert f"tool --pw={MASK} --lr 1" in cmdlines  # the rest of the line is kept
    else:
        assert data["system"]["hostname"] == f"build-7 HF_TOKEN={MASK}"


def test_replay_json_hides_secrets(tmp_path: Path, capsys) -> None:
    source = _source()
    session = tmp_path / "s.gpuprof"
    store = SessionStore.create(session, source=source)
    store.append(source.poll())
    store.close()
    assert main(["replay", str(session), "--json"]) == 0
    out = capsys.readouterr().out
    _assert_no_secret(out)
    assert len(json.loads(out)["processes"]) == len(SECRETS)


# --- exporter labels ------------------------------------------------------------------------------


def test_exporter_labels_hide_secrets() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    from gpuprof.exporter.metrics import SnapshotCollector

    source = _source()
    snap = source.poll()
    collector = SnapshotCollector(
        lambda: snap,
        source.devices(),
        hostname=HOSTNAME[0],
        label=LABEL[0],
        bench_values=None,
    )
    reg = CollectorRegistry(auto_describe=False)
    reg.register(collector)
    text = generate_latest(reg).decode()
    assert "DCGM_FI_DEV_GPU_UTIL" in text
    _assert_no_secret(text)
    assert f'Hostname="build-7 HF_TOKEN={MASK}"' in text


# --- the Processes tab ----------------------------------------------------------------------------


def test_process_table_shows_no_secret(qtbot) -> None:
    from gpuprof.ui.telemetry.processes.tab import COLUMNS, ProcessModel
    from PySide6.QtCore import Qt

    model = ProcessModel()
    model.set_processes(_source().poll().processes)
    shown = [
        str(model.data(model.index(row, col), role))
        for row in range(model.rowCount())
        for col in range(len(COLUMNS))
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)
    ]
    assert len(shown) == 2 * len(SECRETS) * len(COLUMNS)
    _assert_no_secret("\n".join(shown))
    assert f"tool --pw={MASK} --lr 1" in shown
