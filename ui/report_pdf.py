"""Write a report as PDF (A4 or Letter) with Qt: QTextDocument on the report HTML → QPdfWriter.

Why this route: the core (``gpuprof/``) must not import Qt, no pure-Python PDF writer is
installed, and Qt already ships with the app (PySide6). QTextDocument lays the same jinja
template out (its ``qt`` flavor: tables and simple CSS, ``page-break-before`` honoured) and
paginates it onto the page size; the charts are the same SVGs as in the HTML, rasterized here
with QSvgRenderer at print resolution and handed to the document as image resources. Headless
use (``gpuprof report --out x.pdf``) needs no display: a QGuiApplication on the offscreen
platform is enough. It registers itself in :mod:`gpuprof.report.render`; the CLI entry point
registers it lazily, so this module is imported only for ``.pdf``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gpuprof.errors import InputError, OutputError
from gpuprof.fileio import write_atomic
from gpuprof.i18n import tr
from gpuprof.report.html import CHART_SIZE, iter_charts, render_html
from gpuprof.report.model import Report
from gpuprof.report.render import Renderer, register
from gpuprof.report.svg import render_svg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
)
from PySide6.QtSvg import QSvgRenderer

__all__ = ["PAPER_SIZES", "build_document", "ensure_gui_app", "render_chart_image", "write_pdf"]

#: Paper names the CLI and the dialog accept.
PAPER_SIZES: dict[str, QPageSize.PageSizeId] = {
    "a4": QPageSize.PageSizeId.A4,
    "letter": QPageSize.PageSizeId.Letter,
}
#: Chart rasterization scale over CSS pixels (sharp at ~200 dpi on paper).
CHART_SCALE = 2.5


def ensure_gui_app() -> Any:
    """The running Q(Gui)Application, or a new one on the offscreen platform when there is
    no display (fonts and painting need one; no window is shown)."""
    app = QGuiApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and os.name != "nt":
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(["gpuprof"])
    return app


def render_chart_image(chart: Any, scale: float = CHART_SCALE) -> QImage:
    """The chart's SVG (the one the HTML shows) as a white-background image."""
    w, h = CHART_SIZE
    renderer = QSvgRenderer(QByteArray(render_svg(chart, w, h).encode("utf-8")))
    image = QImage(int(w * scale), int(h * scale), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter)
    painter.end()
    return image


def build_document(report: Report, paper: str = "a4") -> QTextDocument:
    """A QTextDocument of the report with its charts as image resources (also the preview)."""
    ensure_gui_app()
    doc = QTextDocument()
    doc.setDefaultFont(QFont("DejaVu Sans", 9))
    doc.setDocumentMargin(0)
    for chart in iter_charts(report):
        key = chart.key.replace('"', "")
        doc.addResource(
            QTextDocument.ResourceType.ImageResource,
            QUrl(f"chart:{key}"),
            render_chart_image(chart),
        )
    doc.setHtml(render_html(report, flavor="qt", paper=paper))
    doc.setMetaInformation(QTextDocument.MetaInformation.DocumentTitle, report.title)
    return doc


def write_pdf(report: Report, path: str | Path, paper: str = "a4") -> Path:
    """Write ``report`` to ``path`` as PDF on A4 or Letter paper; returns the path."""
    key = paper.lower()
    if key not in PAPER_SIZES:
        raise InputError(
            tr("paper must be one of {p}, got {x!r}", p=", ".join(PAPER_SIZES), x=paper)
        )
    out = Path(path)
    doc = build_document(report, key)
    # Qt writes a PDF file without reporting errors (a full disk leaves a truncated file that
    # looks written): render into memory, then write it atomically, which does report them.
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(report.title)
    writer.setCreator(f"gpuprof {report.versions.gpuprof}")
    writer.setResolution(300)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(PAPER_SIZES[key]),
            QPageLayout.Orientation.Portrait,
            QMarginsF(12, 14, 12, 14),
            QPageLayout.Unit.Millimeter,
        )
    )
    # Lay the document out on the printable area at 96 px per inch, the unit the HTML's pixel
    # sizes (chart images) are in; print_() then scales it onto the page.
    rect_mm = writer.pageLayout().paintRect(QPageLayout.Unit.Millimeter)
    doc.setPageSize(QSizeF(rect_mm.width() / 25.4 * 96.0, rect_mm.height() / 25.4 * 96.0))
    doc.print_(writer)
    del writer  # finishes the document
    data = bytes(buffer.data().data())
    buffer.close()
    if not data.startswith(b"%PDF"):
        raise OutputError(tr("could not write PDF {p}", p=out))
    return write_atomic(out, data)


def pdf_renderer() -> Renderer:
    """The PDF renderer for :mod:`gpuprof.report.render` (paper: ``a4`` or ``letter``)."""

    def write(report: Report, path: str | Path, *, paper: str = "a4", **_options: Any) -> Path:
        return write_pdf(report, path, paper)

    return Renderer("pdf", ".pdf", True, write)


register("pdf", pdf_renderer)
