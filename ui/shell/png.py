"""Writing a PNG the way every other gpuprof output is written: atomically, and with an error
that names the file.

``QImage.save(path)`` / ``QPixmap.save(path)`` only answer ``False`` (a folder in the file's
place, a missing folder, no permission, a full disk), and a full disk can leave half a file. So
the image is encoded in memory and handed to :func:`gpuprof.fileio.write_atomic`, which raises
:class:`~gpuprof.errors.OutputError` ("cannot write PATH: reason") and never leaves a partial
file. Every PNG the app writes (File → Save screenshot, ``--screenshot``, the docs' screenshot
scripts) goes through :func:`write_png`.
"""

from __future__ import annotations

from pathlib import Path

from gpuprof.errors import OutputError
from gpuprof.fileio import write_atomic
from gpuprof.i18n import tr
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage, QPixmap

__all__ = ["png_bytes", "write_png"]


def png_bytes(image: QImage | QPixmap) -> bytes:
    """``image`` encoded as PNG (``b""`` when Qt cannot encode it, e.g. a null image)."""
    qimage = image.toImage() if isinstance(image, QPixmap) else image
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6's stubs want bytes for the format; the binding itself takes only str.
    ok = qimage.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data()) if ok else b""


def write_png(image: QImage | QPixmap, path: str | Path) -> Path:
    """Write ``image`` to ``path`` as PNG, atomically; ``OutputError`` naming the file."""
    out = Path(path)
    data = png_bytes(image)
    if not data:
        raise OutputError(tr("cannot write {p}: {e}", p=out, e=tr("the image is empty")))
    return write_atomic(out, data)
