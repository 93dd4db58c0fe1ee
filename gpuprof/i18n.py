"""One function for user-visible CLI text, so a zh_CN catalog can be added later.

The UI uses Qt's ``tr()``; the core and CLI call :func:`tr`. Today it returns the text as is.
"""

from __future__ import annotations

__all__ = ["tr"]


def tr(text: str, /, **kwargs: object) -> str:
    """Translate ``text`` (currently identity) and format ``{name}`` fields from ``kwargs``."""
    return text.format(**kwargs) if kwargs else text
