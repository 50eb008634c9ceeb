"""The CLI's help formatter reads the terminal's width only when it lays out text
(cairn.cli._deferred): argparse makes one for every argument it adds, and the stock one
reads the width, importing shutil, as it is made. What it prints must not change."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from cairn import cli


def _help(argv: list[str], columns: int, monkeypatch, capsys) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        cli.build_parser(cli.command_in(argv)).parse_args(argv)
    return capsys.readouterr().out


def _stock_help(argv: list[str], columns: int, monkeypatch, capsys) -> str:
    """The same help with argparse's own formatters (the deferral undone)."""
    monkeypatch.setattr(cli, "_deferred", lambda base: base)
    return _help(argv, columns, monkeypatch, capsys)


@pytest.mark.parametrize("columns", [40, 80, 200])
@pytest.mark.parametrize("argv", [["--help"], ["recall", "--help"], ["labels", "--help"], ["import", "--help"]])
def test_help_reads_as_with_the_stock_formatter(argv, columns, monkeypatch, capsys):
    deferred = _help(argv, columns, monkeypatch, capsys)
    assert deferred == _stock_help(argv, columns, monkeypatch, capsys)
    assert "usage: cairn" in deferred


def test_control_the_comparison_sees_the_width(monkeypatch, capsys):
    # The layout does depend on the width read: a narrower terminal wraps the same help.
    narrow = _help(["recall", "--help"], 40, monkeypatch, capsys)
    wide = _help(["recall", "--help"], 200, monkeypatch, capsys)
    assert narrow != wide and len(narrow.splitlines()) > len(wide.splitlines())


def test_a_usage_error_reads_the_width_and_names_the_command(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "50")
    with pytest.raises(SystemExit):
        cli.build_parser("recall").parse_args(["recall", "--limit", "0", "x"])
    err = capsys.readouterr().err
    assert err.startswith("usage: cairn recall [-h] [--db PATH]\n") and "--limit: '0' must be at least 1" in err


def test_an_explicit_width_is_kept():
    formatter = cli._deferred(argparse.HelpFormatter)("cairn", width=30, max_help_position=24)
    assert (formatter._width, formatter._max_help_position) == (30, 10)
    stock = argparse.HelpFormatter("cairn", width=30, max_help_position=24)
    assert (stock._width, stock._max_help_position) == (30, 10)


_PROBE = """
import sys
from cairn import cli
parser = cli.build_parser("recall")
parser.parse_args(["recall", "x"])
built = "shutil" in sys.modules
parser.format_help()
print(built, "shutil" in sys.modules)
"""


def test_building_and_parsing_never_ask_the_terminal_and_help_does():
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, CAIRN_SEMANTIC="off"))
    # Negative control in the same run: laying out help does read the width (shutil).
    assert done.stdout.split() == ["False", "True"]


# -- a routed command's parser alone ------------------------------------------------------


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


@pytest.mark.parametrize("command", ["recall", "search", "explain"])
def test_a_recall_group_command_builds_its_own_parser_only(command):
    assert _commands(cli.build_parser(command)) == [command]


def test_control_help_and_other_groups_commands_build_every_parser_of_the_group():
    every = _commands(cli.build_parser(None))
    assert every[every.index("recall"):every.index("recall") + 3] == ["recall", "search", "explain"]
    # A group without register_one (records) registers all its commands, as before.
    assert {"remember", "show", "list"} <= set(_commands(cli.build_parser("show")))


@pytest.mark.parametrize("command", ["recall", "search", "explain"])
def test_the_command_alone_parses_as_with_every_command(command):
    argv = ["--db", "x.db", command, "what runs billing", "--limit", "2"]
    alone = vars(cli.build_parser(command).parse_args(argv))
    whole = cli.build_parser(None)
    assert {"recall", "search", "explain"} <= set(_commands(whole))  # the control: every parser is there
    assert alone == vars(whole.parse_args(argv))
