"""The window's tab widget: tabs by name (``--tab``, settings), some built on first show.

A lazy tab is a placeholder until it is shown or used; then :meth:`TabHost.realize` builds it
and puts it in its place. Its modules and widgets cost about 0.1 s of start-up otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gpuprof.errors import GpuprofError
from PySide6.QtWidgets import QTabWidget, QWidget

from .i18n import translate as _t

if TYPE_CHECKING:
    from .theme import Theme

__all__ = ["TabHost"]


class TabHost(QTabWidget):
    """Tabs with names; ``theme()`` gives the theme a new tab's ``apply_theme`` gets."""

    def __init__(self, theme: Callable[[], Theme | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self._theme = theme
        self._names: list[str] = []
        self._lazy: dict[str, Callable[[], QWidget]] = {}

    def add(self, widget: QWidget, name: str, title: str, tooltip: str = "") -> int:
        """Add a tab; ``widget.apply_theme(theme)`` (if any) is called on theme changes."""
        if name in self._names:
            raise ValueError(f"a tab named {name!r} exists")
        index = self.addTab(widget, title)
        if tooltip:
            self.setTabToolTip(index, tooltip)
        self._names.append(name)
        apply = getattr(widget, "apply_theme", None)
        theme = self._theme()
        if apply is not None and theme is not None:
            apply(theme)
        return index

    def add_lazy(self, name: str, make: Callable[[], QWidget], title: str, tooltip: str) -> None:
        """A tab that ``make()`` builds when it is first shown or :meth:`realize`\\ d."""
        self._lazy[name] = make
        self.add(QWidget(), name, title, tooltip)

    def is_lazy(self, name: str) -> bool:
        return name in self._lazy

    def realize(self, name: str) -> QWidget:
        """Build a lazy tab now and put it in its place (the current tab stays current)."""
        widget = self._lazy.pop(name)()
        index = self._names.index(name)
        placeholder = self.widget(index)
        title, tip = self.tabText(index), self.tabToolTip(index)
        current = self.currentIndex()
        self.blockSignals(True)
        try:
            self.removeTab(index)
            self.insertTab(index, widget, title)
            self.setTabToolTip(index, tip)
            self.setCurrentIndex(current)
        finally:
            self.blockSignals(False)
        if placeholder is not None:
            placeholder.deleteLater()
        apply = getattr(widget, "apply_theme", None)
        if apply is not None:
            apply(self._theme())
        return widget

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._names)

    def name_at(self, index: int) -> str:
        return self._names[index] if 0 <= index < len(self._names) else ""

    def current_name(self) -> str:
        return self.name_at(self.currentIndex())

    def select(self, name: str, *, strict: bool = True) -> None:
        """Show the tab ``name`` (or the only one it starts); unknown: an error when ``strict``."""
        key = name.strip().lower()
        matches = [n for n in self._names if n == key] or [
            n for n in self._names if n.startswith(key)
        ]
        if not matches:
            if strict and key and "fleet".startswith(key) and "fleet" not in self._names:
                # The Fleet tab exists only with a Prometheus: say so, not "unknown tab".
                raise GpuprofError(_t("the Fleet tab shows a Prometheus: add --prometheus URL"))
            if strict:
                raise GpuprofError(
                    _t("unknown tab %1; choose one of: %2")
                    .replace("%1", repr(name))
                    .replace("%2", ", ".join(self._names))
                )
            return
        self.setCurrentIndex(self._names.index(matches[0]))
