"""``gpuprof report --check FILE`` (issue 14): a ``gpuprof check --json`` result as the first
page of the CLI's HTML, PDF and JSON reports, read as the app's "Add check result…" reads it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpuprof.check.model import result_to_dict
from gpuprof.cli import main
from gpuprof.jsonout import write_json
from gpuprof.report.json import load_report
from tests.faults.hostile import GOOD_SESSION
from tests.pdftext import page_texts, squash
from tests.test_report_check import _result


@pytest.fixture
def check_file(tmp_path: Path) -> Path:
    """What `gpuprof check --json` writes for a WARN check on node-17."""
    path = tmp_path / "c.json"
    write_json(str(path), result_to_dict(_result()))
    return path


def _report(tmp_path: Path, out: str, *extra: str) -> Path:
    path = tmp_path / out
    assert main(["report", "--session", str(GOOD_SESSION), "--out", str(path), *extra]) == 0
    return path


def _text(html: str) -> str:
    body = html[html.index("<body") :]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()


def test_html_starts_with_the_verdict(tmp_path: Path, check_file: Path) -> None:
    html = _report(tmp_path, "r.html", "--check", str(check_file)).read_text("utf-8")
    text = _text(html)
    assert text.startswith("GPU acceptance check (quick) verdict: WARN (exit code 3)"), text[:200]
    assert text.index("node-17") < text.index("1654922011234") < text.index("At a glance")
    assert "612.5 TFLOPS" in text[: text.index("At a glance")]
    plain = _report(tmp_path, "plain.html").read_text("utf-8")
    assert 'id="verdict"' not in plain and not _text(plain).startswith("GPU acceptance check")


def test_json_carries_the_check(tmp_path: Path, check_file: Path) -> None:
    rep = load_report(_report(tmp_path, "r.json", "--check", str(check_file)))
    assert rep.check is not None
    assert (rep.check.verdict, rep.check.exit_code, rep.check.hostname) == ("WARN", 3, "node-17")
    assert [r.item_id for r in rep.check.rows] == ["inventory", "perf.gemm_bf16", "diag.burnin"]
    assert rep.check.gpus[0].serial == "1654922011234"
    assert load_report(_report(tmp_path, "plain.json")).check is None


def test_pdf_first_page_is_the_check(tmp_path: Path, check_file: Path, qapp: object) -> None:
    pages = page_texts(_report(tmp_path, "r.pdf", "--check", str(check_file)).read_bytes())
    first = squash(pages[0])
    assert first.startswith(squash("GPU acceptance check (quick)"))
    assert squash("verdict: WARN (exit code 3)") in first and "node-17" in first
    assert squash("At a glance") not in first and squash("At a glance") in squash(pages[1])


def test_png_refuses_check(
    tmp_path: Path, check_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.png"
    assert main(["report", "--demo", "--out", str(out), "--check", str(check_file)]) == 2
    err = capsys.readouterr().err
    assert "--check" in err and err.count("\n") == 1 and not out.exists()


@pytest.mark.slow
def test_a_real_check_over_demo_telemetry_is_labelled_measured(
    tmp_path: Path, check_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A check always measures the real machine: over SIMULATED telemetry the banner, the notes
    and the CLI line say the check was measured (not "nothing in it was measured")."""
    html = tmp_path / "r.html"
    assert main(["report", "--demo", "--check", str(check_file), "--out", str(html)]) == 0
    assert "the acceptance check is MEASURED" in capsys.readouterr().err
    page = html.read_text("utf-8")
    assert "Nothing in it was measured" not in page
    assert "acceptance check on the first page was measured for real, on node-17" in page
    out = tmp_path / "r.json"
    assert main(["report", "--demo", "--check", str(check_file), "--out", str(out)]) == 0
    doc = json.loads(out.read_text("utf-8"))
    assert any("acceptance check is MEASURED (on node-17)" in n for n in doc["notes"])
