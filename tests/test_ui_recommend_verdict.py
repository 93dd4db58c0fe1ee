"""The Recommend tab says above its table what the CLI says above its own (issue 23): nothing
meets the deadline (of every candidate), nothing priced does within the node limit and which
node count would. Before, the tab showed only the workload's warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings

from gpuprof.recommend.verdict import verdict_lines
from gpuprof.recommend.workload import Workload
from tests.helpers.catalog import catalog_of, offer


def _tab(qtbot, tmp_path: Path, w: Workload):
    from gpuprof.ui.recommend.tab import RecommendTab
    from gpuprof.ui.shell.app import make_app

    make_app()
    fast = offer("unpriced", "B200", 8, 180, None, provider="Z")
    t = RecommendTab(
        catalog_loader=lambda: catalog_of(fast, offer("priced", price=40.0)),
        settings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(t)
    t.select_preset("custom")
    t.fill_form(w)
    return t


def test_the_tab_shows_the_verdict_the_cli_prints(qtbot, tmp_path: Path) -> None:
    # A deadline nothing can meet: one hour for 7B × 2e10 tokens.
    t = _tab(qtbot, tmp_path, Workload("pretrain", 7e9, tokens=2e10, deadline_hours=1.0))
    rec = t.run_now()
    assert rec is not None
    said = verdict_lines(rec)
    assert any(v.startswith("NOTHING MEETS THE DEADLINE") for v in said)
    assert not t.notes.isHidden()
    for line in said:
        assert line in t.notes.text()


def test_no_verdict_and_no_warning_no_notes(qtbot, tmp_path: Path) -> None:
    t = _tab(qtbot, tmp_path, Workload("pretrain", 7e9, tokens=2e10))
    rec = t.run_now()
    assert rec is not None
    if not verdict_lines(rec) and not rec.warnings:
        assert t.notes.isHidden()
    else:  # whatever there is to say is said, and only that
        assert t.notes.text().count("⚠") == len(verdict_lines(rec)) + len(rec.warnings)
