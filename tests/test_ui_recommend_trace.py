"""The Recommend tab's request trace (issue 22): a trace file chosen in the serving form (file
picker, read and validated by the core's reader, errors shown) fills the traffic as ``--trace``
does and is simulated on the top configurations by the same core function, with the CLI's
numbers for the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.helpers.cli import recommend_cli
from tests.ui_fixtures import serving_form

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def write_trace(path: Path, n: int = 120, gap_s: float = 0.1) -> Path:
    """A request trace of ``n`` requests ``gap_s`` apart (10 a second by default), prompts of
    800..1199 tokens and answers of 150..249."""
    lines = ["arrival_s,prompt_tokens,output_tokens"]
    for k in range(n):
        lines.append(f"{k * gap_s:.4f},{800 + (k * 37) % 400},{150 + (k * 53) % 100}")
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def serve_trace(tab, path: Path, n: int = 120, gap_s: float = 0.1) -> Path:
    """``tab``'s form set for serving (:func:`serving_form`) with the trace :func:`write_trace`
    writes to ``path`` loaded."""
    write_trace(path, n, gap_s)
    serving_form(tab)
    tab.form.trace.load(str(path))
    return path


def test_the_file_picker_loads_a_trace_into_the_traffic_fields(
    tab, tmp_path, monkeypatch, qtbot
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from gpuprof.recommend.trace import read_trace, trace_traffic

    path = write_trace(tmp_path / "trace.csv")
    serving_form(tab)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    tab.form.trace.choose.click()  # read in a worker (test_ui_recommend_trace_read.py)
    qtbot.waitUntil(lambda: tab.form.trace.trace is not None, timeout=30_000)
    traffic = trace_traffic(read_trace(path))
    assert tab.form.trace.trace is not None and tab.form.trace.error is None
    assert tab.form.prompt_len.value() == traffic["prompt_len"]
    assert tab.form.output_len.value() == traffic["output_len"]
    assert float(tab.form.rate.text()) == pytest.approx(traffic["rate_per_s"])
    assert "120 requests" in tab.form.trace.status.text()
    # a rate already typed is kept, as a --rate flag is
    tab.form.trace.clear_trace()
    tab.form.rate.setText("3")
    tab.form.trace.load(str(path))
    assert tab.form.rate.text() == "3"


@pytest.mark.slow
def test_the_tab_simulates_the_trace_with_the_clis_numbers(tab, tmp_path, qtbot) -> None:
    path = serve_trace(tab, tmp_path / "trace.csv")
    with qtbot.waitSignal(tab.trace_simulated, timeout=60_000):
        rec = tab.run_now()
    assert rec is not None and tab.error is None and rec.workload.is_serving
    assert tab.trace_results and not tab.trace_view.isHidden() and tab.trace_busy.isHidden()
    assert tab.trace_view.text().startswith("SIMULATED")
    ran = recommend_cli(
        "--scenario", "serve", "--model", "llama-3-70b", "--trace", str(path), "--json"
    )
    assert ran.returncode == 0, ran.stderr
    cli = json.loads(ran.stdout)
    assert cli["workload"]["prompt_len"] == rec.workload.prompt_len
    assert cli["workload"]["output_len"] == rec.workload.output_len
    assert cli["workload"]["rate_per_s"] == pytest.approx(rec.workload.rate_per_s)
    sims = cli["trace"]["results"]
    assert len(sims) == len(tab.trace_results) > 0
    for (row, res), c in zip(tab.trace_results, sims, strict=True):
        assert (row.rank, row.label, res.replicas) == (c["rank"], c["label"], c["replicas"])
        for key in ("p50", "p99"):
            assert res.ttft_s[key] == pytest.approx(c["ttft_s"][key])
            assert res.tpot_s[key] == pytest.approx(c["tpot_s"][key])
        assert res.output_tokens_per_s == pytest.approx(c["output_tokens_per_s"])
        assert res.goodput_share == pytest.approx(c["goodput_share"])
        assert row.label in tab.trace_view.text()


def test_a_bad_trace_is_shown_and_gives_no_estimate(tab, tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("0.0,100,20\n0.5,lots,20\n", "utf-8")
    serving_form(tab)
    tab.throughput.setText("1000")
    tab.form.trace.load(str(bad))
    status = tab.form.trace.status
    assert tab.form.trace.trace is None and not status.isHidden()
    assert "bad.csv" in status.text() and "line 2" in status.text()
    assert tab.run_now() is None
    assert tab.error is not None and "line 2" in tab.error
    assert not tab.form_error.isHidden() and tab.trace_view.isHidden()
    # taken away, the form estimates again (without a simulation)
    tab.form.trace.clear_trace()
    assert tab.run_now() is not None and tab.trace_view.isHidden() and not tab.trace_results
    # a file that is not there says so too
    tab.form.trace.load(str(tmp_path / "missing.csv"))
    assert tab.form.trace.trace is None and "missing.csv" in tab.form.trace.status.text()
