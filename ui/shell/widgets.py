"""Small painted widgets: sparkline, meter bar, colour swatch, state banner; a splitter's
folding lower pane; a push button, a plain-text label, a read-only table and a dialog's Close
button made in one call."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal, SignalInstance
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QToolButton,
    QWidget,
)

__all__ = [
    "Sparkline",
    "MeterBar",
    "Swatch",
    "Banner",
    "FoldingPane",
    "arg",
    "button",
    "field_row",
    "plain_label",
]

#: Qt's QWIDGETSIZE_MAX: no maximum height.
_NO_MAX_PX = (1 << 24) - 1


def arg(text: str, *values: object) -> str:
    """Qt-style ``%1``..``%n`` substitution (highest first, so ``%1`` never eats ``%10``)."""
    for i in range(len(values), 0, -1):
        text = text.replace(f"%{i}", str(values[i - 1]))
    return text


def button(
    text: str, tip: str, on_click: Callable[[], object] | SignalInstance, parent: QWidget | None
) -> QPushButton:
    """A push button saying ``text``, with the tooltip ``tip``, calling ``on_click`` when
    clicked (a signal: emitting it)."""
    made = QPushButton(text, parent)
    made.setToolTip(tip)
    made.clicked.connect(on_click)
    return made


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A word-wrapped label showing ``text`` and whatever it is given later as plain text
    (never as rich text: a path, a command or an error message is shown as it is)."""
    made = QLabel(text, parent)
    made.setTextFormat(Qt.TextFormat.PlainText)
    made.setWordWrap(True)
    return made


def read_only_table(headers: Sequence[str], parent: QWidget | None, rows: int = 0) -> QTableWidget:
    """A table of ``rows`` empty rows under ``headers`` that is read, not edited; no row
    numbers."""
    table = QTableWidget(rows, len(headers), parent)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return table


def field_row(field: QWidget, *buttons: QPushButton, parent: QWidget | None = None) -> QWidget:
    """``field`` taking the row's width and ``buttons`` after it (a path and its Browse…), no
    margins: one widget, for a form's row."""
    box = QWidget(parent)
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(field, 1)
    for made in buttons:
        row.addWidget(made)
    return box


def close_buttons(dialog: QDialog, *actions: QPushButton) -> QDialogButtonBox:
    """``dialog``'s button box: the ``actions`` buttons, then Close, which closes it (rejects:
    Esc does too)."""
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    box.rejected.connect(dialog.reject)
    for action in actions:
        box.addButton(action, QDialogButtonBox.ButtonRole.ActionRole)
    return box


class Sparkline(QWidget):
    """A tiny line chart; NaN values leave gaps. ``y_max`` fixes the scale (e.g. 100 for %)."""

    def __init__(self, colour: str, *, y_max: float | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self._colour = QColor(colour)
        self._y_max = y_max
        self._y = np.empty(0)
        self.setMinimumHeight(28)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(160, 32)

    def set_values(self, y: np.ndarray) -> None:
        self._y = np.asarray(y, dtype=np.float64)
        self.update()

    def values(self) -> np.ndarray:
        return self._y

    def paintEvent(self, event: object) -> None:
        p = QPainter(self)
        rect = QRectF(self.rect()).adjusted(1, 2, -1, -2)
        bg = QColor(self._colour)
        bg.setAlpha(28)
        p.fillRect(rect, bg)
        y = self._y
        n = len(y)
        if n < 2 or not np.isfinite(y).any():
            p.end()
            return
        top = self._y_max if self._y_max else float(np.nanmax(y)) or 1.0
        xs = rect.left() + rect.width() * np.arange(n) / (n - 1)
        ys = rect.bottom() - rect.height() * np.clip(y / top, 0.0, 1.0)
        pen = QPen(self._colour, 1.5)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(pen)
        poly = QPolygonF()
        for xv, yv in zip(xs, ys, strict=True):
            if math.isnan(yv):
                if poly.size() > 1:
                    p.drawPolyline(poly)
                poly = QPolygonF()
                continue
            poly.append(QPointF(float(xv), float(yv)))
        if poly.size() > 1:
            p.drawPolyline(poly)
        p.end()


class MeterBar(QWidget):
    """A horizontal bar with text on it: ``value`` of ``maximum``; a ``mark`` draws a tick."""

    def __init__(self, colour: str = "#1c7ed6", parent: QWidget | None = None):
        super().__init__(parent)
        self._colour = QColor(colour)
        self._fraction: float | None = None
        self._mark: float | None = None
        self._text = ""
        self.setMinimumHeight(18)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(160, 18)

    def set_colour(self, colour: str) -> None:
        self._colour = QColor(colour)
        self.update()

    def set_value(self, fraction: float | None, text: str, mark: float | None = None) -> None:
        """``fraction`` in 0..1 (``None`` = unknown); ``mark`` a 0..1 position for a tick."""
        self._fraction = None if fraction is None or math.isnan(fraction) else fraction
        self._mark = mark
        self._text = text
        self.update()

    def text(self) -> str:
        return self._text

    def fraction(self) -> float | None:
        return self._fraction

    def paintEvent(self, event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        trough = QColor(self.palette().color(self.foregroundRole()))
        trough.setAlpha(30)
        path = QPainterPath()
        path.addRoundedRect(rect, 3, 3)
        p.fillPath(path, trough)
        if self._fraction is not None:
            fill = QRectF(rect)
            fill.setWidth(rect.width() * min(max(self._fraction, 0.0), 1.0))
            bar = QPainterPath()
            bar.addRoundedRect(fill, 3, 3)
            colour = QColor(self._colour)
            colour.setAlpha(170)
            p.fillPath(bar, colour)
        if self._mark is not None and 0.0 <= self._mark <= 1.0:
            x = rect.left() + rect.width() * self._mark
            p.setPen(QPen(QColor("#c92a2a"), 2))
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
        p.setPen(self.palette().color(self.foregroundRole()))
        p.drawText(rect.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter, self._text)
        p.end()


class Swatch(QLabel):
    """A coloured square naming a GPU's colour."""

    def __init__(self, colour: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFixedSize(12, 12)
        self.setStyleSheet(f"background: {colour}; border-radius: 2px;")


class Banner(QFrame):
    """A one-line state message with a hint, shown above the tabs (no driver, GPU lost, ...).

    The state is about the window's own source (this machine, or the one it is connected to):
    it is not shown while the current tab is about something else (:meth:`follow_tabs`).
    """

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("banner")
        self.setProperty("severity", "warning")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.message = plain_label(parent=self)
        self.message.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(self.tr("Hide this message until the state changes"))
        self.close_button.clicked.connect(self._dismiss)
        layout.addWidget(self.message)
        layout.addWidget(self.close_button)
        self._key: object = None
        self._dismissed_key: object = None
        self._elsewhere = False  # the current tab is not about the window's source
        self.hide()

    def follow_tabs(self, tabs: QTabWidget) -> None:
        """Hide the state while the current tab of ``tabs`` says it is not about the window's
        source (its widget's ``shows_source_state`` is False: the Fleet tab, Recommend)."""

        def on_tab(index: int) -> None:
            self._elsewhere = not getattr(tabs.widget(index), "shows_source_state", True)
            self._sync()

        tabs.currentChanged.connect(on_tab)

    def _sync(self) -> None:
        wanted = self._key is not None and self._key != self._dismissed_key
        self.setVisible(wanted and not self._elsewhere)

    def _dismiss(self) -> None:
        self._dismissed_key = self._key
        self.hide()
        self.dismissed.emit()

    def show_state(self, key: object, text: str, severity: str = "warning") -> None:
        """Show ``text`` for state ``key`` unless the user dismissed that same state."""
        self._key = key
        if key == self._dismissed_key:
            return
        if self.property("severity") != severity:
            self.setProperty("severity", severity)
            self.style().unpolish(self)
            self.style().polish(self)
        self.message.setText(text)
        self._sync()

    def clear_state(self) -> None:
        self._key = None
        self._dismissed_key = None
        self.hide()

    def text(self) -> str:
        return self.message.text() if not self.isHidden() else ""


class FoldingPane:
    """The lower pane of ``owner``'s vertical ``split`` that folds to a one-line hint
    (``hint_px()`` high, the upper pane taking the height) and opens again with the split it had
    when last open: the user's, or three fifths above it at first."""

    def __init__(
        self, owner: QWidget, split: QSplitter, pane: QWidget, hint_px: Callable[[], int]
    ) -> None:
        self._owner, self._split, self._pane, self._hint_px = owner, split, pane, hint_px
        self._sizes: list[int] | None = None  # the split while the pane was last open
        self.is_open = True

    def set_open(self, shown: bool) -> None:
        if shown == self.is_open:
            return
        self.is_open = shown
        total = sum(self._split.sizes())
        if shown:
            self._pane.setMaximumHeight(_NO_MAX_PX)
            top_px = total * 3 // 5 if self._sizes is None else self._sizes[0]
            self._split.setSizes([top_px, total - top_px])
        else:
            if self._owner.isVisible():  # the split the user saw (not the one before the layout)
                self._sizes = self._split.sizes()
            self._pane.setMaximumHeight(self._hint_px())
            self._split.setSizes([total, 0])
