"""The Recommend tab for serving traffic (issue 22): the form switches to traffic and latency
fields, the table and details show the serving columns and the bound, the scatter plots cost per
million against throughput per instance, and the numbers are the CLI's."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from tests.helpers.cli import SERVE_LLAMA_70B, recommend_cli
from tests.ui_fixtures import serving_form

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def _serve(tab) -> None:
    """The issue's question typed into the form: Llama-3-70B at 5000 output tokens/s."""
    serving_form(tab)
    tab.throughput.setText("5000")
    tab.form.prompt_len.setValue(1000)
    tab.form.output_len.setValue(200)


def _visible(tab, key: str) -> bool:
    from gpuprof.ui.recommend.model import column

    return not tab.table.isColumnHidden(column(key))


def test_the_form_switches_to_traffic_and_latency_fields(tab) -> None:
    form = tab.form
    tab.select_preset("llm-100b-train")
    assert form.serving.isHidden() and not form.deadline.isHidden()
    tab.scenario.setCurrentIndex(tab.scenario.findData("inference"))
    assert not form.serving.isHidden()
    assert form.deadline.isHidden() and form.epochs.isHidden()  # a job's fields go
    for field in (form.prompt_len, form.output_len, form.rate, form.ttft, form.tpot, form.slo):
        assert not field.isHidden()
    tab.scenario.setCurrentIndex(tab.scenario.findData("pretrain"))
    assert form.serving.isHidden() and not form.deadline.isHidden()


def test_the_tab_shows_the_clis_serving_numbers(tab) -> None:
    _serve(tab)
    tab.form.tpot.setText("40ms")
    rec = tab.run_now()
    assert rec is not None and tab.error is None and rec.workload.is_serving
    for key in ("instances", "per_million", "throughput", "ttft", "tpot", "bound", "batch"):
        assert _visible(tab, key), key
    for key in ("hours", "cost", "efficiency"):
        assert not _visible(tab, key), key
    ran = recommend_cli(*SERVE_LLAMA_70B, "--tpot", "40ms", "--limit", "5", "--json")
    assert ran.returncode == 0, ran.stderr
    cli = json.loads(ran.stdout)["rows"]
    from gpuprof.ui.recommend.model import ROW_ROLE, column

    shown = [tab.proxy.index(i, 0).data(ROW_ROLE) for i in range(5)]
    for r, c in zip(shown, cli, strict=True):
        assert (r.instance.provider, r.instance.instance) == (c["provider"], c["instance"])
        assert r.instances_needed == c["instances_needed"]
        assert r.usd_per_million == pytest.approx(c["usd_per_million"])
        assert r.serving.bound == c["serving"]["bound"]
        assert r.serving.tpot_p99_s == pytest.approx(c["serving"]["tpot_p99_s"])
    # what the cells say
    top = shown[0]
    row0 = [tab.proxy.index(0, column(k)).data() for k in ("instances", "per_million", "bound")]
    assert row0[0] == str(top.instances_needed)
    assert row0[1] == f"${top.usd_per_million:,.2f}"
    assert row0[2] == top.serving.bound
    tab.table.selectRow(0)
    text = tab.details.toPlainText()
    assert f"Bound: {top.serving.bound}" in text
    assert "per million output tokens" in text and "TTFT p50" in text
    assert "Time:" not in text


def test_the_scatter_is_cost_per_million_against_throughput(tab) -> None:
    _serve(tab)
    rec = tab.run_now()
    assert rec is not None and rec.scatter_axes == ("tokens_per_s_per_instance", "usd_per_million")
    plot = tab.scatter.plot
    assert "tokens/s per instance" in plot.getAxis("bottom").labelText
    assert "per million" in plot.getAxis("left").labelText
    assert tab.scatter.point_count() == len(rec.scatter) > 0
    assert 0 < tab.scatter.pareto_count() <= tab.scatter.point_count()
    plotted = tab.scatter.plotted_rows()
    assert plotted  # table rows are found on the plot by their own numbers
    tab.scatter.point_clicked.emit(plotted[0])
    assert tab.selected_row() is rec.rows[plotted[0]]
    # back to a job: time against cost again
    tab.scenario.setCurrentIndex(tab.scenario.findData("pretrain"))
    tab.tokens.setText("1e9")
    tab.run_now()
    assert "time" in plot.getAxis("bottom").labelText
