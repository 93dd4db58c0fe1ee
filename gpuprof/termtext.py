"""Text from outside on its way to a terminal: one console factory and three small helpers.

Catalog rows, device names, bus ids, process names, recorded strings, hostnames and labels
come from files, drivers and other machines. Printed as they are, ``[/]`` in a catalog row is a
rich markup error (every ``catalog list`` fails), a DGX bus id ``00000000:AB:00.0`` shows rich's
``:ab:`` emoji, and an ESC sequence or a bidi override rewrites what the terminal shows.

- :func:`console`: every CLI console. Markup and emoji are OFF, so a plain ``str`` (a table cell,
  a title, a printed line) is shown literally; control and bidi characters in any ``str`` it
  renders are neutralised; when the output is not a terminal it is unbounded (nothing is cut
  or wrapped to 80 columns in a pipe).
- Our own styling is explicit: :func:`styled` (one style for a whole text) or :func:`markup`
  (a template of ours whose outside values went through :func:`safe`).
- :func:`plain`: for ``print()``: control and bidi characters neutralised, optionally one line.
- :func:`json_text`: JSON text with C1 controls and bidi overrides as ``\\uXXXX`` escapes
  (lossless: the JSON reads back to the same strings).
"""

from __future__ import annotations

import functools
import re
from typing import IO, TYPE_CHECKING

from gpuprof.redact import clean_text

if TYPE_CHECKING:
    from rich.console import Console, HighlighterType, JustifyMethod, OverflowMethod
    from rich.style import Style
    from rich.text import Text

__all__ = ["UNBOUNDED_WIDTH", "console", "json_text", "markup", "plain", "safe", "styled"]

#: The console width when the output is not a terminal: wide enough that no table is cut.
UNBOUNDED_WIDTH = 100_000

_LINE_BREAKS = re.compile(r"[\n\u2028\u2029]")
# In JSON text these can only be inside strings; json.dumps(ensure_ascii=False) leaves them raw.
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def plain(text: object, *, one_line: bool = False, max_len: int | None = None) -> str:
    """``text`` safe for a terminal: C0/C1 controls (ESC included), bidi overrides and lone
    surrogates become U+FFFD (a tab a space); with ``one_line`` line breaks become spaces."""
    s = clean_text(text, max_len)
    return _LINE_BREAKS.sub(" ", s) if one_line else s


def safe(text: object, *, one_line: bool = False, max_len: int | None = None) -> str:
    """``text`` to put into a rich markup template of ours: :func:`plain` and markup-escaped."""
    from rich.markup import escape

    return escape(plain(text, one_line=one_line, max_len=max_len))


def markup(template: str) -> Text:
    """Our own markup (outside values already through :func:`safe`) as rich Text, emoji off."""
    from rich.text import Text

    return Text.from_markup(plain(template), emoji=False)


def styled(text: object, style: str) -> Text:
    """Outside text shown literally in one style (``"red"``, ``"bold yellow"``)."""
    from rich.text import Text

    return Text(plain(text), style=style)


def json_text(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with C1 controls, zero-width
    marks, line separators and bidi overrides written as ``\\uXXXX`` escapes."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@functools.cache
def _console_class() -> type[Console]:
    from rich.console import Console

    class SafeConsole(Console):
        """A rich Console whose every rendered str is neutralised and never gets emoji."""

        def render_str(
            self,
            text: str,
            *,
            style: str | Style = "",
            justify: JustifyMethod | None = None,
            overflow: OverflowMethod | None = None,
            emoji: bool | None = None,
            markup: bool | None = None,
            highlight: bool | None = None,
            highlighter: HighlighterType | None = None,
        ) -> Text:
            # Every str the console shows passes here: table cells, titles, printed lines.
            return super().render_str(
                plain(text),
                style=style,
                justify=justify,
                overflow=overflow,
                emoji=False,
                markup=markup,
                highlight=highlight,
                highlighter=highlighter,
            )

    return SafeConsole


def console(file: IO[str] | None = None, *, stderr: bool = False) -> Console:
    """The console every CLI command prints with (see the module docstring)."""
    con = _console_class()(
        file=file, stderr=stderr, markup=False, emoji=False, highlight=False, soft_wrap=False
    )
    if not con.is_terminal:
        con.width = UNBOUNDED_WIDTH
    return con
