"""The sub-commands as data (gpuprof.commands.base): every module's COMMANDS rows become the
parser's sub-commands, and add_command translates their texts when the parser is made."""

from __future__ import annotations

import argparse
import importlib

import pytest

from gpuprof import i18n
from gpuprof.cli import COMMAND_MODULES, build_parser
from gpuprof.commands.base import Command, add_actions, add_command


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.set_language("en")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _run(args: argparse.Namespace) -> int:
    return 7


def test_every_command_row_is_a_subcommand_in_order() -> None:
    rows = [
        c
        for m in COMMAND_MODULES
        for c in importlib.import_module(f"gpuprof.commands.{m}").COMMANDS
    ]
    assert all(isinstance(c, Command) for c in rows)
    parsers = _subcommands(build_parser())
    assert list(parsers) == [c.name for c in rows]
    for c in rows:
        assert parsers[c.name].get_default("func") is c.run


def _parser(command: Command) -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="t")
    add_command(root.add_subparsers(dest="command"), command)
    return _subcommands(root)[command.name]


def test_description_parts_are_joined_and_filled() -> None:
    p = _parser(
        Command(
            "x",
            "help",
            lambda p: None,
            description=("First part.", "At most {n} items."),
            values={"n": 3},
        )
    )
    assert p.description == "First part. At most 3 items."
    assert "At most 3 items." in p.format_help()


def test_raw_description_keeps_its_line_breaks() -> None:
    text = "One line.\n\nExample: a b c"
    assert (
        "One line.\n\nExample"
        in _parser(
            Command("x", "help", lambda p: None, description=text, raw_description=True)
        ).format_help()
    )
    assert (
        "One line. Example"
        in _parser(Command("x", "help", lambda p: None, description=text)).format_help()
    )


def test_run_is_func_and_arguments_are_added() -> None:
    def arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--n", type=int)

    args = _parser(Command("x", "help", arguments, _run)).parse_args(["--n", "4"])
    assert args.n == 4 and args.func(args) == 7
    assert _parser(Command("x", "help", arguments)).get_default("func") is None


def test_actions_are_subcommands_of_a_group() -> None:
    actions = (Command("a", "first", lambda p: None, _run), Command("b", "second", lambda p: None))

    def group(p: argparse.ArgumentParser) -> None:
        add_actions(p, "group_command", actions, required=True)

    root = argparse.ArgumentParser(prog="t")
    add_command(root.add_subparsers(dest="command"), Command("g", "a group", group))
    args = root.parse_args(["g", "a"])
    assert args.group_command == "a" and args.func is _run
    with pytest.raises(SystemExit):
        root.parse_args(["g"])  # the action is required


def test_texts_are_translated_when_the_parser_is_made() -> None:
    command = Command("x", "print JSON", lambda p: None, description="packaged catalog only")
    english = _parser(command)
    i18n.set_language("zh_CN")
    root = argparse.ArgumentParser(prog="t")
    add_command(root.add_subparsers(dest="command"), command)
    chinese = _subcommands(root)["x"]
    assert chinese.description == i18n.tr("packaged catalog only") != english.description
    assert i18n.tr("print JSON") in root.format_help()
    assert "print JSON" not in root.format_help()
