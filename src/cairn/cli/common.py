"""Shared pieces of the CLI adapters: the output value, argument helpers, rendering."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from enum import Enum
from typing import Any


class Output:
    """What a command produced: ``doc`` for ``--json`` (a document of :mod:`cairn.wire`,
    printed as it is), ``text`` for people, extra lines for stderr, and the exit code.

    A plain class, not a dataclass: this module is on every command's path, the hook's
    included, and ``dataclasses`` brings ``inspect`` and ``ast`` with it (a tenth of a
    skipped prompt's start-up)."""

    __slots__ = ("doc", "text", "exit_code", "stderr")

    def __init__(self, doc: Mapping[str, Any], text: str = "", exit_code: int = 0,
                 stderr: list[str] | None = None) -> None:
        self.doc = doc
        self.text = text
        self.exit_code = exit_code
        self.stderr = stderr if stderr is not None else []

    def __repr__(self) -> str:
        return f"Output(doc={self.doc!r}, text={self.text!r}, exit_code={self.exit_code!r}, stderr={self.stderr!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Output):
            return NotImplemented
        return (self.doc, self.text, self.exit_code, self.stderr) == (other.doc, other.text, other.exit_code, other.stderr)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was


def add_command(
    sub, name: str, help_text: str, handler, *, description: str | None = None, needs_db: bool = True
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=help_text,
        description=description or help_text,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=handler, needs_db=needs_db)
    # The global options are also accepted after the command (`cairn list --json`).
    globals_ = parser.add_argument_group("global options (also accepted before the command)")
    globals_.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS,
                          help="database file (default: $CAIRN_DB, else the user data directory)")
    globals_.add_argument("--space", metavar="NAME", default=argparse.SUPPRESS,
                          help="isolation space (default: $CAIRN_SPACE, else default)")
    globals_.add_argument("--now", metavar="ISO-8601", default=argparse.SUPPRESS, help="fix the clock to this time")
    globals_.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print one JSON object")
    return parser


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def word(text: str) -> str:
    """A word of a closed vocabulary as typed, in any case and with ``-`` for ``_``
    (``--kind Preference``, ``--kind project-state``)."""
    return text.strip().lower().replace("-", "_")


class Progress:
    """A progress line on stderr for long work (export, import), only on a terminal and
    only past ``every`` items, so scripts and pipes see nothing."""

    def __init__(self, what: str, *, every: int = 1000, stream=None) -> None:
        self.what = what
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self.shown = False
        self.count = 0
        self.active = self.stream.isatty()

    def tick(self, n: int = 1) -> None:
        self.count += n
        if self.active and self.count % self.every == 0:
            print(f"\r{self.what}: {self.count} lines", end="", file=self.stream, flush=True)
            self.shown = True

    def done(self) -> None:
        if self.shown:
            print(f"\r{self.what}: {self.count} lines, done", file=self.stream, flush=True)


def span(start: str | None, end: str | None) -> str:
    """A validity interval in words: an open end is said, not drawn as an ellipsis."""
    if start and end:
        return f"valid {start} → {end}"
    if start:
        return f"valid from {start}"
    if end:
        return f"valid until {end}"
    return "no validity interval"


def one_of(vocabulary: type[Enum]) -> str:
    """A closed vocabulary as help text ("fact | preference | ..."), read from its enum."""
    return " | ".join(str(member.value) for member in vocabulary)


def short(memory_id: str) -> str:
    return memory_id[:10]


def one_line(text: str, width: int = 96) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
