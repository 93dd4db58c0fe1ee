"""Draw the gpuprof icon: resources/gpuprof.svg (source), .png (256 px) and .ico (Windows).

A one-off tool; its outputs are committed. Run it again after editing the SVG below:

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icon.py

The .ico holds PNG-compressed images of 16, 24, 32, 48, 64, 128 and 256 px (the layout Windows
Vista and later read), written by hand because Qt's ICO writer stores one size only.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)

# A chip with pins on four sides and a live plot line across it, on a dark rounded tile.
SVG = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#1e3a5f"/>
      <stop offset="1" stop-color="#0f172a"/>
    </linearGradient>
  </defs>
  <rect x="8" y="8" width="240" height="240" rx="52" fill="url(#bg)"/>
  <g stroke="#38bdf8" stroke-width="9" stroke-linecap="round">
    <path d="M86 42v22M114 42v22M142 42v22M170 42v22"/>
    <path d="M86 192v22M114 192v22M142 192v22M170 192v22"/>
    <path d="M42 86h22M42 114h22M42 142h22M42 170h22"/>
    <path d="M192 86h22M192 114h22M192 142h22M192 170h22"/>
  </g>
  <rect x="64" y="64" width="128" height="128" rx="16" fill="#0b1220" stroke="#38bdf8" stroke-width="9"/>
  <polyline points="82,162 104,138 124,150 146,106 164,122 178,86" fill="none"
            stroke="#4ade80" stroke-width="11" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
"""


def _render_png(svg: bytes, size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(QByteArray(svg))
    if not renderer.isValid():
        raise SystemExit("the icon SVG does not parse")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    return bytes(buf.data().data())


def _ico(pngs: dict[int, bytes]) -> bytes:
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in sorted(pngs.items()):
        dim = 0 if size >= 256 else size  # 0 means 256 in the ICO directory
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset + len(blobs))
        blobs += data
    return header + entries + blobs


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    svg = SVG.encode()
    (RESOURCES / "gpuprof.svg").write_bytes(svg)
    pngs = {size: _render_png(svg, size) for size in ICO_SIZES}
    (RESOURCES / "gpuprof.png").write_bytes(pngs[256])
    (RESOURCES / "gpuprof.ico").write_bytes(_ico(pngs))
    print("wrote", *(RESOURCES / n for n in ("gpuprof.svg", "gpuprof.png", "gpuprof.ico")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
