"""The terminal tables the commands print: rich tables whose headers are translated."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpuprof.i18n import tr

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

__all__ = ["folded_table"]


def folded_table(title: str | Text | None, columns: Iterable[str]) -> Table:
    """A table titled ``title`` with a column for each of ``columns`` (English, shown
    translated); a long cell folds onto more lines instead of being cut. Markup stays off in
    the console that prints it (:func:`gpuprof.termtext.console`): rows are shown as they are."""
    from rich.table import Table

    table = Table(title=title)
    for col in columns:
        table.add_column(tr(col), overflow="fold")
    return table
