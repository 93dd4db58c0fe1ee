"""``--tab NAME`` when the tab does not exist: a newcomer who reads "fleet with --prometheus" in
``--help`` and asks for ``--tab fleet`` alone is told what the Fleet tab needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")


def test_tab_fleet_without_prometheus_says_what_it_needs(tmp_path: Path) -> None:
    from tests.faults.hostile import run_gpuprof

    out = tmp_path / "x.png"
    ran = run_gpuprof(
        ["--demo", "--tab", "fleet", "--screenshot", str(out), "--after", "0"], tmp_path
    )
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert lines == ["gpuprof: error: the Fleet tab shows a Prometheus: add --prometheus URL"]
    assert not out.exists()


def test_an_unknown_tab_still_lists_the_tabs(make_window: Any) -> None:
    from gpuprof.errors import GpuprofError

    w = make_window(n_gpus=1)
    with pytest.raises(GpuprofError, match="unknown tab 'nonsense'; choose one of: overview"):
        w.select_tab("nonsense")
    with pytest.raises(GpuprofError, match="--prometheus URL"):
        w.select_tab("fl")
