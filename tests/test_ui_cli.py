"""The app from the command line: headless screenshot, bad input, and the PySide6 6.12 trap."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from tests.faults.hostile import gpuprof_env

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], tmp_path: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = gpuprof_env(tmp_path)
    return subprocess.run(
        [sys.executable, "-m", "gpuprof", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_screenshot_command_writes_a_png_of_the_requested_size(tmp_path):
    from PySide6.QtGui import QImage

    out = tmp_path / "shot.png"
    proc = _run(
        [
            "--demo",
            "--screenshot",
            str(out),
            "--tab",
            "telemetry",
            "--after",
            "0.5",
            "--size",
            "900x640",
        ],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "propagateSizeHints" not in proc.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 640)
    # Not blank: a plot window has many distinct colours (curves, text, grid).
    colours = {img.pixel(x, y) for x in range(0, 900, 7) for y in range(0, 640, 7)}
    assert len(colours) > 20
    # The screenshot used a throwaway settings file, not the user's.
    assert not (tmp_path / "config" / "gpuprof-ui.ini").exists()


@pytest.mark.slow
def test_screenshot_with_unknown_tab_exits_2(tmp_path):
    proc = _run(
        ["--demo", "--screenshot", str(tmp_path / "x.png"), "--tab", "nope", "--after", "0"],
        tmp_path,
    )
    assert proc.returncode == 2
    assert "unknown tab" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_screenshot_needs_png_and_an_existing_folder(tmp_path):
    proc = _run(["--demo", "--screenshot", str(tmp_path / "x.jpg")], tmp_path)
    assert proc.returncode == 2 and "PNG" in proc.stderr
    proc = _run(["--demo", "--screenshot", str(tmp_path / "no" / "x.png")], tmp_path)
    assert proc.returncode == 2 and "does not exist" in proc.stderr


def test_replay_of_a_missing_file_exits_2(tmp_path):
    proc = _run(
        ["--replay", str(tmp_path / "none.gpuprof"), "--screenshot", str(tmp_path / "x.png")],
        tmp_path,
    )
    assert proc.returncode == 2 and "none.gpuprof: no such file" in proc.stderr


def test_bad_interval_exits_2(tmp_path):
    proc = _run(["--demo", "--interval", "0.01", "--screenshot", str(tmp_path / "x.png")], tmp_path)
    assert proc.returncode == 2 and "interval" in proc.stderr


def test_pyside6_property_and_setdata_do_not_crash():
    """PySide6 6.12.0 dies with 'none_dealloc' here (DESIGN.md, Known traps): run it apart."""
    code = textwrap.dedent(
        """
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        import numpy as np
        from PySide6.QtCore import QObject
        from PySide6.QtWidgets import QApplication
        import pyqtgraph as pg

        app = QApplication([])
        obj = QObject()
        for _ in range(20000):
            assert obj.property("never-set-name") is None
        item = pg.PlotDataItem()
        for i in range(2000):
            item.setData(np.arange(100.0), np.random.rand(100), connect="finite")
        import gc; gc.collect()
        print("survived")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "survived" in proc.stdout


def test_no_display_is_a_clear_error_not_a_qt_abort(monkeypatch, capsys) -> None:
    import sys

    from gpuprof.cli import main

    if not sys.platform.startswith("linux"):
        pytest.skip("the check is for Linux sessions")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert main(["--demo"]) == 2
    err = capsys.readouterr().err
    assert "no display" in err and "--screenshot" in err


def test_debug_turns_on_logging_for_core_and_ui() -> None:
    """--debug shows DEBUG records with the module that logged them; without it, none."""
    import subprocess
    import sys

    base = [sys.executable, "-m", "gpuprof"]
    quiet = subprocess.run([*base, "devices", "--demo", "--json"], capture_output=True, text=True)
    loud = subprocess.run(
        [*base, "--debug", "devices", "--demo", "--json"], capture_output=True, text=True
    )
    assert quiet.returncode == loud.returncode == 0
    assert "DEBUG" not in quiet.stderr
    assert "DEBUG gpuprof.cli: gpuprof " in loud.stderr


def test_a_failing_redraw_is_logged_with_its_traceback(make_window, caplog) -> None:
    import logging

    w = make_window(n_gpus=1)
    w.select_tab("overview")

    def broken(force: bool = False) -> None:
        raise RuntimeError("paint bug")

    w.overview.refresh = broken
    with caplog.at_level(logging.ERROR, logger="gpuprof.ui.shell.main_window"):
        w.refresh_visible(force=True)
    record = next(r for r in caplog.records if r.name == "gpuprof.ui.shell.main_window")
    assert "overview" in record.getMessage() and record.exc_info[1].args == ("paint bug",)
    assert "paint bug" in w.statusBar().currentMessage()


@pytest.mark.slow
def test_report_png_says_what_it_wrote_like_the_other_formats(tmp_path):
    out = tmp_path / "report.png"
    proc = _run(
        ["report", "--demo", "--out", str(out), "--tab", "overview", "--duration", "0.5"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out} (SIMULATED data)" in proc.stderr
