"""File → Compare results… with two machines: the ratio column and a status line that says
outliers need three or more machines (issue 21: "0 outliers" beside a 13× gap), as the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "compare"


def _slow_copy(tmp_path: Path) -> Path:
    doc = json.loads((DATA / "node-a.json").read_text(encoding="utf-8"))
    doc["identity"]["hostname"] = "node-z"
    for item in doc["items"]:
        if item["item_id"] == "perf.allreduce_busbw":
            item["measured"] /= 13.0
    path = tmp_path / "node-z.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_two_machines_show_the_ratio_column_and_no_zero_outliers(
    qtbot: Any, tmp_path: Path
) -> None:
    from gpuprof.ui.report.compare import OUTLIER_BACKGROUND, CompareDialog
    from gpuprof.ui.shell.app import make_app
    from PySide6.QtGui import QColor

    make_app()
    dialog = CompareDialog()
    qtbot.addWidget(dialog)
    dialog.load([DATA / "node-a.json", _slow_copy(tmp_path)])
    comp = dialog.comparison
    assert comp is not None and comp.pair
    headers = [dialog.table.horizontalHeaderItem(c).text() for c in range(3)]
    assert headers == ["node-a", "node-z", "node-z / node-a"]
    row = comp.keys.index("perf.allreduce_busbw")
    gap = dialog.table.item(row, 2)
    assert gap.text() == "×0.0769" and gap.background().color() == QColor(OUTLIER_BACKGROUND)
    assert "more than 20%" in gap.toolTip()
    same = dialog.table.item(comp.keys.index("perf.gemm_bf16/gpu0"), 2)
    assert same.text() == "×1" and same.background().color() != QColor(OUTLIER_BACKGROUND)
    status = dialog.status.text()
    assert "0 outliers" not in status and "three or more machines" in status
    assert "perf.allreduce_busbw ×0.0769" in status
    summaries = [dialog.summaries.item(i).text() for i in range(dialog.summaries.count())]
    assert summaries and not any("0 outliers" in s for s in summaries)
    assert dialog.flagged_cells() == []  # a gap is not an outlier


def test_three_machines_have_no_ratio_column(qtbot: Any, tmp_path: Path) -> None:
    from gpuprof.ui.report.compare import CompareDialog
    from gpuprof.ui.shell.app import make_app

    make_app()
    dialog = CompareDialog()
    qtbot.addWidget(dialog)
    dialog.load([DATA / "node-a.json", DATA / "node-d.json", _slow_copy(tmp_path)])
    assert dialog.table.columnCount() == 3
    assert "3 machines compared" in dialog.status.text()
