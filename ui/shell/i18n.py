"""The UI's translation function for texts outside a ``QObject.tr()``: module functions, data
tables and widgets built for a class. Imported as ``_t``, the name ``pyside6-lupdate`` is told
to read as ``tr`` (scripts/update_catalog.py).

The app's translator looks a text up by its English words alone (:mod:`gpuprof.i18n`), so one
context serves every module."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

__all__ = ["translate"]


def translate(text: str) -> str:
    """``text`` in the app's language (English where the catalog has no finished translation)."""
    return QCoreApplication.translate("gpuprof", text)
