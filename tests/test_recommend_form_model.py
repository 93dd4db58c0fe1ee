"""The Recommend tab's model picker (issue 16): a chosen architecture fills the workload."""

from __future__ import annotations

from typing import Any

from ui.recommend.form import WorkloadForm


def test_choosing_a_model_fills_the_workload_and_locks_the_count(qtbot: Any) -> None:
    form = WorkloadForm()
    qtbot.addWidget(form)
    form.select_preset("custom")
    form.scenario.setCurrentIndex(form.scenario.findData("inference"))
    form.tokens.setText("1e9")
    form.model.setCurrentIndex(form.model.findData("mixtral-8x7b"))
    assert not form.params.isEnabled() and form.params.text()
    w = form.workload()
    assert (w.model, w.params, w.active_params) == ("mixtral-8x7b", 46.7e9, 12.9e9)
    assert w.kv_per_token_layer == 2 * 8 * 128
    form.model.setCurrentIndex(0)  # back to a bare parameter count
    assert form.params.isEnabled()
    w = form.workload()
    assert w.model == "" and w.active_params is None and w.kv_per_token_layer is None
