"""The desktop entry, the icon files and the packaging scripts that ship with gpuprof."""

from __future__ import annotations

import configparser
import os
import struct
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_icon_png_is_a_256px_png_inside_the_package():
    data = resources.files("gpuprof.resources").joinpath("gpuprof.png").read_bytes()
    assert _png_size(data) == (256, 256)


def test_icon_ico_holds_the_windows_sizes_as_png():
    data = (ROOT / "resources" / "gpuprof.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        w, h, _, _, _, bpp, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i : 22 + 16 * i]
        )
        size = w or 256
        assert (w, bpp) == (h, 32)
        assert _png_size(data[offset : offset + length]) == (size, size)
        sizes.append(size)
    assert {16, 32, 48, 256} <= set(sizes)


def test_icon_svg_is_the_source():
    text = (ROOT / "resources" / "gpuprof.svg").read_text("utf-8")
    assert text.startswith("<?xml") and 'viewBox="0 0 256 256"' in text


def test_desktop_entry():
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(ROOT / "resources" / "gpuprof.desktop", encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "gpuprof"
    assert (ROOT / "resources" / f"{entry['Icon']}.png").is_file()
    assert entry["Categories"].endswith(";")
    assert "Name" in entry and "Comment[zh_CN]" in entry


def test_packaging_scripts_are_executable_and_lite_excludes_torch():
    for name in ("build.sh", "smoke.sh"):
        assert os.access(ROOT / "packaging" / name, os.X_OK), name
    spec = (ROOT / "packaging" / "gpuprof.spec").read_text("utf-8")
    assert '"torch"' in spec and "if LITE:" in spec
    assert "gpuprof.ico" in spec
