"""The window on AMD GPUs (the fake amdsmi): the overview card shows every amdsmi field the
data has and, for each absent one, the reason; a headless screenshot of 8 MI300X."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from gpuprof.telemetry.amd import AmdSmiSource
from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi
from tests.faults.hostile import gpuprof_env

ROOT = Path(__file__).resolve().parents[1]


def _sample(box: str, index: int = 0):  # type: ignore[no-untyped-def]
    fake = FakeAmdSmi(BOXES[box]())
    source = AmdSmiSource(smi=fake, clock=fake.clock)
    source.poll()
    fake.advance(1.0)
    snap = source.poll()
    info = source.devices()[index]
    source.close()
    return snap.gpus[index], info


def test_mi300x_card_shows_junction_xgmi_partition_and_reasons(qtbot) -> None:
    from gpuprof.ui.telemetry.overview import GpuCard

    sample, info = _sample("mi300x8", 3)
    card = GpuCard(3)
    qtbot.addWidget(card)
    card.show()
    card.update_card(sample, info, None)
    assert "AMD Instinct MI300X" in card.title.text()
    assert card.amd.isVisible() and card.absent.isVisible()
    amd = card.amd.text()
    assert "junction 68 °C" in amd and "HBM 53 °C" in amd and "SoC 1,143 MHz" in amd
    assert "XGMI ×7" in amd and "GB/s" in amd and "SPX/NPS1" in amd
    # MI300 has no edge sensor: the temperature meter shows the junction, and the N/A row
    # names the edge sensor and the fan with the reason.
    assert "junction" in card.temp.text()
    absent = card.absent.text()
    assert "edge temp" in absent and "fan" in absent and "not supported on this GPU" in absent
    assert "NOT_SUPPORTED" in card.absent.toolTip()
    assert card.badge.text() == "sw_power_cap"


def test_nvidia_card_has_no_amd_rows(qtbot) -> None:
    from gpuprof.ui.telemetry.overview import GpuCard

    from tests.fakes.devices import h100_info, h100_sample

    card = GpuCard(0)
    qtbot.addWidget(card)
    card.show()
    card.update_card(h100_sample(), h100_info(), None)
    assert not card.amd.isVisible() and not card.absent.isVisible()


def test_radeon_card_lists_what_it_lacks(qtbot) -> None:
    from gpuprof.ui.telemetry.overview import GpuCard

    sample, info = _sample("radeon_w7700")
    card = GpuCard(0)
    qtbot.addWidget(card)
    card.show()
    card.update_card(sample, info, None)
    absent = card.absent.text()
    assert "XGMI read" in absent and "no XGMI links" in absent and "ECC" in absent
    assert "partition" not in card.amd.text()  # a Radeon has no partition modes


@pytest.mark.slow
def test_screenshot_of_eight_mi300x(tmp_path: Path) -> None:
    """``gpuprof --screenshot … --tab overview`` in a child process whose ``amdsmi`` is the
    fake (a test hook: nothing in the product selects it)."""
    from PySide6.QtGui import QImage

    out = tmp_path / "amd.png"
    code = textwrap.dedent(
        f"""
        import sys
        from tests.fakes.fake_amdsmi import BOXES, FakeAmdSmi
        sys.modules["amdsmi"] = FakeAmdSmi(BOXES["mi300x8"](), realtime=True)
        from gpuprof.cli import main
        sys.exit(main(["--screenshot", {str(out)!r}, "--tab", "overview",
                       "--size", "1600x1000", "--after", "1.5"]))
        """
    )
    env = gpuprof_env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1600, 1000)
    colours = {img.pixel(x, y) for x in range(0, 1600, 9) for y in range(0, 1000, 9)}
    assert len(colours) > 20
