"""A sub-command as data, the way Django's management commands are (``help`` and
``add_arguments(parser)``): each command module lists its :class:`Command` rows in ``COMMANDS``
and :func:`add_command` alone makes their parsers, so the texts are translated in one place."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuprof.i18n import tr

__all__ = ["Command", "add_actions", "add_command"]


@dataclass(frozen=True)
class Command:
    """One sub-command (or one action of a command group such as ``bench list``).

    ``help`` (the line in the parent's list) and ``description`` (the paragraph atop its own
    ``--help``; several texts are joined by a space) are English, marked with ``N_`` for the
    catalog, and translated when the parser is made; ``values`` fill the description's
    ``{fields}``. ``run`` is what ``args.func`` calls (``None`` for a group whose action is
    required); ``raw_description`` keeps the description's line breaks (an example)."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int] | None = None
    description: str | tuple[str, ...] = ()
    values: Mapping[str, object] = field(default_factory=dict)
    raw_description: bool = False


def add_command(sub: argparse._SubParsersAction[Any], command: Command) -> argparse.ArgumentParser:
    """The parser of ``command`` under ``sub``, its arguments added and ``func`` set."""
    texts = (command.description,) if isinstance(command.description, str) else command.description
    parser: argparse.ArgumentParser = sub.add_parser(
        command.name,
        help=tr(command.help),
        description=" ".join(tr(t, **command.values) for t in texts) if texts else None,
        formatter_class=argparse.RawDescriptionHelpFormatter
        if command.raw_description
        else argparse.HelpFormatter,
    )
    command.add_arguments(parser)
    if command.run is not None:
        parser.set_defaults(func=command.run)
    return parser


def add_actions(
    parser: argparse.ArgumentParser,
    dest: str,
    actions: tuple[Command, ...],
    *,
    required: bool = False,
) -> None:
    """The ``ACTION`` sub-commands of a command group (``bench list``, ``catalog import``), their
    name stored in ``dest``."""
    sub = parser.add_subparsers(dest=dest, metavar="ACTION", required=required)
    for action in actions:
        add_command(sub, action)
