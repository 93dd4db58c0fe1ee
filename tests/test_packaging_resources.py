"""The desktop entry, the icon files and the packaging scripts that ship with gpuprof."""

from __future__ import annotations

import configparser
import os
import struct
import subprocess
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


def _report_warnings(log: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run build.sh's own report_warnings on ``log`` (the function and its patterns, sourced)."""
    script = (ROOT / "packaging" / "build.sh").read_text()
    start = script.index("EXPECTED_WARNINGS=")
    end = script.index("\n}\n", start) + 3
    return subprocess.run(
        ["bash", "-c", script[start:end] + '\nreport_warnings "$1"', "bash", str(log)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=30,
    )


def test_build_hides_only_the_expected_pyinstaller_warnings(tmp_path):
    """The ~13 warnings of every Linux build (X11/GTK libraries, Windows DLLs, 3-D plots) are
    one note; any other warning still reaches the person building."""
    plugin = ".venv/lib/python3.11/site-packages/PySide6/Qt/lib/libQt6XcbQpa.so.6"
    log = tmp_path / "warnings.log"
    log.write_text(
        "95 INFO: PyInstaller: 6.22.3, contrib hooks: 2026.9\n"
        f"43875 WARNING: Library not found: could not resolve 'libxcb-icccm.so.4', dependency of '{plugin}'.\n"
        f"43875 WARNING: Library not found: could not resolve 'libxcb-keysyms.so.1', dependency of '{plugin}'.\n"
        "43875 WARNING: Library not found: could not resolve 'libgtk-3.so.0', dependency of 'x'.\n"
        "41260 WARNING: Library ole32 required via ctypes not found\n"
        "341 WARNING: Failed to collect submodules for 'pyqtgraph.opengl' because importing "
        "'pyqtgraph.opengl' raised: ModuleNotFoundError: No module named 'OpenGL'\n"
        "50000 WARNING: Library not found: could not resolve 'libcuda.so.1', dependency of 'y'.\n"
    )
    done = _report_warnings(log)
    assert done.returncode == 0
    assert "libcuda.so.1" in done.stderr  # not an expected one: shown
    assert "libxcb" not in done.stderr and "ole32" not in done.stderr
    assert "INFO" not in done.stderr
    assert "note: 5 expected PyInstaller warnings hidden" in done.stdout
    verbose = _report_warnings(log, GPUPROF_BUILD_VERBOSE="1")
    assert "libxcb-icccm.so.4" in verbose.stderr and "note:" not in verbose.stdout
