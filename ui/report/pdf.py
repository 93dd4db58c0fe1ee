"""Write a report as PDF (A4 or Letter) with Qt: QTextDocument on the report HTML → QPdfWriter.

Why this route: the core (``gpuprof/``) must not import Qt, no pure-Python PDF writer is
installed, and Qt already ships with the app (PySide6). QTextDocument lays the same jinja
template out (its ``qt`` flavor: tables and simple CSS, ``page-break-before`` honoured) and
paginates it onto the page size; the charts are the same SVGs as in the HTML, rasterized here
with QSvgRenderer at print resolution and handed to the document as image resources. Headless
use (``gpuprof report --out x.pdf``) needs no display: a QGuiApplication on the offscreen
platform is enough. It registers itself in :mod:`gpuprof.report.render`; the CLI entry point
registers it lazily, so this module is imported only for ``.pdf``.

The document is made in two steps: :func:`document_parts` (the HTML and the chart images: the
costly part, seconds for 8 GPUs, and safe in a worker thread: SVG painted on a QImage, no
QPixmap, no widget) and :func:`document_from_parts` (the QTextDocument, in the thread that owns
it). The app's report preview runs the first in a worker, so its event loop never waits on it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpuprof.errors import InputError, OutputError
from gpuprof.fileio import write_atomic
from gpuprof.i18n import tr
from gpuprof.report.html import CHART_SIZE, iter_charts, render_html
from gpuprof.report.model import Chart, Report
from gpuprof.report.render import Renderer, register
from gpuprof.report.svg import render_svg
from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QIODevice,
    QMarginsF,
    QSize,
    QSizeF,
    QUrl,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QImageReader,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextOption,
    QTextTable,
)
from PySide6.QtSvg import QSvgRenderer

__all__ = [
    "PAPER_SIZES",
    "DocumentParts",
    "build_document",
    "document_from_parts",
    "document_parts",
    "ensure_gui_app",
    "keep_rows_together",
    "render_chart_image",
    "soften_long_words",
    "write_pdf",
]

#: Paper names the CLI and the dialog accept.
PAPER_SIZES: dict[str, QPageSize.PageSizeId] = {
    "a4": QPageSize.PageSizeId.A4,
    "letter": QPageSize.PageSizeId.Letter,
}
#: Chart rasterization scale over CSS pixels (sharp at ~200 dpi on paper).
CHART_SCALE = 2.5


def ensure_gui_app() -> QCoreApplication:
    """The running Q(Gui)Application, or a new one on the offscreen platform when there is
    no display (fonts and painting need one; no window is shown)."""
    app = QGuiApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and os.name != "nt":
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(["gpuprof"])
    return app


def render_chart_image(chart: Chart, scale: float = CHART_SCALE) -> QImage:
    """The chart's SVG (the one the HTML shows) as a white-background image.

    Read through Qt's SVG image plugin (QImageReader), which PySide runs without holding the
    GIL: a chart of noisy curves takes hundreds of ms to paint, and the app's preview worker
    must not stop the GUI thread for that long. Painted with QSvgRenderer (the same renderer,
    GIL held) where the plugin is missing."""
    w, h = CHART_SIZE
    data = QByteArray(render_svg(chart, w, h).encode("utf-8"))
    size = QSize(int(w * scale), int(h * scale))
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, b"svg")
    reader.setScaledSize(size)
    reader.setBackgroundColor(QColor("white"))
    image = reader.read()
    if not image.isNull():
        return image.convertToFormat(QImage.Format.Format_RGB32)
    renderer = QSvgRenderer(data)
    image = QImage(size, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter)
    painter.end()
    return image


@dataclass(frozen=True, slots=True)
class DocumentParts:
    """A report's document before Qt lays it out: its title, its HTML (``qt`` flavor) and each
    chart as an image, by resource key."""

    title: str
    html: str
    charts: tuple[tuple[str, QImage], ...]


def document_parts(
    report: Report, paper: str = "a4", *, cancelled: Callable[[], bool] | None = None
) -> DocumentParts | None:
    """The HTML and chart images of ``report`` (see the module's docstring: any thread); None
    when ``cancelled()`` turns true, which is asked before each chart."""
    charts = []
    for chart in iter_charts(report):
        if cancelled is not None and cancelled():
            return None
        charts.append((chart.key.replace('"', ""), render_chart_image(chart)))
    return DocumentParts(report.title, render_html(report, flavor="qt", paper=paper), tuple(charts))


def build_document(report: Report, paper: str = "a4") -> QTextDocument:
    """A QTextDocument of the report with its charts as image resources (also the preview)."""
    ensure_gui_app()
    parts = document_parts(report, paper)
    assert parts is not None  # nothing to cancel it
    return document_from_parts(parts)


def document_from_parts(parts: DocumentParts) -> QTextDocument:
    """The QTextDocument of :func:`document_parts`' result (the cheap step: HTML to text)."""
    doc = QTextDocument()
    doc.setDefaultFont(QFont("DejaVu Sans", 9))
    doc.setDocumentMargin(0)
    for key, image in parts.charts:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart:{key}"), image)
    # Lines break between words only: Qt's default (anywhere, when a word does not fit) lets
    # the table layout squeeze a column below its longest word and cut "Memory", a GPU name
    # or "1,980 MHz" in two. Words too long for any column get break points instead.
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    doc.setHtml(parts.html)
    soften_long_words(doc)
    doc.setMetaInformation(QTextDocument.MetaInformation.DocumentTitle, parts.title)
    return doc


#: A word longer than this (characters) gets a zero-width break point every as many characters.
LONG_WORD = 24
_LONG_WORD_RE = re.compile(rf"[^\s\u200b]{{{LONG_WORD + 1},}}")


#: The space between a number and what follows it ("1,980 MHz", "80.0 GiB", "12 %").
_UNIT_SPACE_RE = re.compile(r"(?<=\d) (?=[^\W\d_]|[%°$µ])")
#: The dash of a range ("345 MHz–1,980 MHz"): a line may break after it.
_RANGE_DASH_RE = re.compile(r"(?<=\S)–(?=\d)")


def soften_long_words(doc: QTextDocument) -> int:
    """Fit the text to the page's columns without cutting a token: a number and its unit are
    bound by a no-break space, a range may break after its dash, and a word longer than :data:`LONG_WORD` characters (a command
    line's argument, a path) gets a zero-width break point every as many characters, so it
    wraps in its cell instead of widening the table off the page. Returns the edits made."""
    edits = 0
    block = doc.begin()
    while block.isValid():
        text = block.text()
        cuts = [
            (m.start() + k, False)
            for m in _LONG_WORD_RE.finditer(text)
            for k in range(LONG_WORD, len(m.group()), LONG_WORD)
        ]
        cuts += [(m.start(), True) for m in _UNIT_SPACE_RE.finditer(text)]
        cuts += [(m.end(), False) for m in _RANGE_DASH_RE.finditer(text)]
        cursor = QTextCursor(block)
        for offset, is_unit in sorted(cuts, reverse=True):
            cursor.setPosition(block.position() + offset)
            if is_unit:  # replace the space, keeping its character format
                cursor.setPosition(block.position() + offset + 1, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText("\u00a0")
            else:
                cursor.insertText("\u200b")
        edits += len(cuts)
        block = block.next()
    return edits


def page_layout(paper: str) -> QPageLayout:
    """The page of a PDF report on ``paper`` (a key of :data:`PAPER_SIZES`): portrait, 12 mm
    margins left and right, 14 mm top and bottom."""
    return QPageLayout(
        QPageSize(PAPER_SIZES[paper]),
        QPageLayout.Orientation.Portrait,
        QMarginsF(12, 14, 12, 14),
        QPageLayout.Unit.Millimeter,
    )


def lay_out(doc: QTextDocument, page: QPageLayout) -> None:
    """Lay ``doc`` out on the printable area of ``page`` at 96 px per inch, the unit the HTML's
    pixel sizes (chart images) are in (print_() then scales it onto the page), with no table
    row cut by a page break."""
    rect_mm = page.paintRect(QPageLayout.Unit.Millimeter)
    doc.setPageSize(QSizeF(rect_mm.width() / 25.4 * 96.0, rect_mm.height() / 25.4 * 96.0))
    keep_rows_together(doc)


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
    writer.setPageLayout(page_layout(key))
    lay_out(doc, writer.pageLayout())
    doc.print_(writer)
    del writer  # finishes the document
    data = bytes(buffer.data().data())
    buffer.close()
    if not data.startswith(b"%PDF"):
        raise OutputError(tr("could not write PDF {p}", p=out))
    return write_atomic(out, data)


def _tables(doc: QTextDocument) -> list[QTextTable]:
    out: list[QTextTable] = []

    def walk(frame: QTextFrame) -> None:
        for child in frame.childFrames():
            if isinstance(child, QTextTable):
                out.append(child)
            walk(child)

    walk(doc.rootFrame())
    return out


def _row_extent(doc: QTextDocument, table: QTextTable, row: int) -> tuple[float, float]:
    """Top and bottom (document pixels) of the text in ``row``."""
    layout = doc.documentLayout()
    top, bottom = math.inf, -math.inf
    for c in range(table.columns()):
        cell = table.cellAt(row, c)
        block = cell.firstCursorPosition().block()
        last = cell.lastCursorPosition().block()
        while block.isValid():
            rect = layout.blockBoundingRect(block)
            top, bottom = min(top, rect.top()), max(bottom, rect.bottom())
            if block == last:
                break
            block = block.next()
    return top, bottom


def _first_split_row(doc: QTextDocument) -> tuple[QTextTable, int] | None:
    """The first table row whose text runs over a page break (rows taller than half a page
    are left to break: moving them would not help)."""
    page = doc.pageSize().height()
    for table in _tables(doc):
        for row in range(table.rows()):
            top, bottom = _row_extent(doc, table, row)
            # 2 px of slack: a row at the very top of a page is not "cut" by rounding.
            first, last = math.floor((top + 2) / page), math.floor((bottom - 2) / page)
            if bottom - top < page / 2 and first != last:
                return table, row
    return None


def keep_rows_together(doc: QTextDocument, max_moves: int = 500) -> int:
    """Move each table row that a page break would cut to the next page; returns the moves.

    Qt's layout keeps a row whole only when none of its cells' first line fits on the page
    (CSS ``page-break-inside`` is not read): a row of two-line cells (a mean above its range) or
    a wrapped name is cut between its lines. So, on the laid-out document (its page size set),
    the table is split before such a row: the rest, below a copy of its header rows, becomes a
    table that starts a new page. A cut first row moves its whole table to the next page.
    """
    moves = 0
    while moves < max_moves:
        hit = _first_split_row(doc)
        if hit is None:
            break
        table, row = hit
        fmt = table.format()
        header = fmt.headerRowCount()
        moves += 1
        if row <= header:
            fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
            table.setFormat(fmt)
            continue
        cursor = QTextCursor(doc)
        cursor.setPosition(table.cellAt(0, 0).firstCursorPosition().position())
        cursor.setPosition(
            table.cellAt(table.rows() - 1, table.columns() - 1).lastCursorPosition().position(),
            QTextCursor.MoveMode.KeepAnchor,
        )
        whole = cursor.selection()
        rows = table.rows()
        table.removeRows(row, rows - row)
        after = QTextCursor(doc)
        after.setPosition(table.lastPosition() + 1)
        after.insertBlock()
        start = after.position()
        after.insertFragment(whole)
        rest = min(
            (t for t in _tables(doc) if t.firstPosition() >= start), key=QTextTable.firstPosition
        )
        if row > header:
            rest.removeRows(header, row - header)
        fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
        rest.setFormat(fmt)
    return moves


def pdf_renderer() -> Renderer:
    """The PDF renderer for :mod:`gpuprof.report.render` (paper: ``a4`` or ``letter``)."""

    def write(report: Report, path: str | Path, *, paper: str = "a4", **_options: object) -> Path:
        return write_pdf(report, path, paper)

    return Renderer("pdf", ".pdf", True, write)


register("pdf", pdf_renderer)
