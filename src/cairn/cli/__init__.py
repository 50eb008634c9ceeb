"""The ``cairn`` command line: a thin adapter over :class:`cairn.Cairn`.

``cairn [--db PATH] [--space NAME] [--now ISO-8601] [--json] COMMAND …``

Exit status: 0 done; 1 refused or invalid (one line on stderr, nothing written);
2 usage error (argparse). Errors are translated to exit codes here and nowhere else.
Commands live in one module per group; each module has ``register(subparsers)``.

Start-up cost. A host hook runs one ``cairn`` process per user prompt, so a command
imports only what it needs: :data:`GROUPS` names the group modules, :data:`ROUTES`
says which group holds each command, and :func:`main` imports and registers only the
group of the command on the line (``cairn recall`` never imports the benchmarks, the MCP
server or the extractors). The engine is imported when a handler needs a database.
Without a command, with ``--help`` or with a command no route names, every group is
registered, so help and argparse's error messages list every command. A group missing
from :data:`ROUTES` is registered for every command: correct, only slower.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import CairnError

if TYPE_CHECKING:
    from .common import Output

# Group modules of this package, in help order.
GROUPS = ("records", "learn", "recall", "ingest", "relations", "bench", "mcp")

# Command -> the group module that registers it (kept whole by tests/speed/test_startup.py).
ROUTES = {
    **dict.fromkeys(("remember", "show", "list", "forget", "pin", "unpin", "history", "undo", "export", "import",
                     "status"), "records"),
    **dict.fromkeys(("apply", "candidates", "correct", "feedback"), "learn"),
    **dict.fromkeys(("recall", "search", "explain"), "recall"),
    "ingest": "ingest",
    **dict.fromkeys(("relate", "timeline"), "relations"),
    "bench": "bench",
    "mcp": "mcp",
}

_GLOBAL_VALUED = ("--db", "--space", "--now")


def group(name: str) -> ModuleType:
    """The command group module ``name`` (imported on first use)."""
    return importlib.import_module(f"{__name__}.{name}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: every group, or only the group that routes ``command``."""
    parser = argparse.ArgumentParser(
        prog="cairn",
        description="Cairn: long-term memory for AI agents, with evidence, time and corrections.",
        epilog="Run `cairn COMMAND --help` for a command's options.",
    )
    parser.add_argument("--db", help=f"database file (default: $CAIRN_DB, else {_default_db()})")
    parser.add_argument("--space", default=os.environ.get("CAIRN_SPACE", "default"), help="isolation space (default: default)")
    parser.add_argument("--now", help="fix the clock to this ISO-8601 time")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _groups_for(command):
        group(name).register(sub)
    return parser


def _groups_for(command: str | None) -> tuple[str, ...]:
    if command is None or command not in ROUTES:
        return GROUPS
    routed = set(ROUTES.values())
    return tuple(name for name in GROUPS if name == ROUTES[command] or name not in routed)


def _default_db() -> str:
    # The engine module holds the default; read it only to print help.
    from ..engine.scope import default_db_path

    return str(default_db_path())


def command_in(argv: list[str]) -> str | None:
    """The command word of ``argv`` (the first word that is not a global option or its
    value), or None when there is none or help is asked for before it."""
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word in ("-h", "--help"):
            return None
        if word in _GLOBAL_VALUED:
            skip = True
            continue
        if word.startswith("-"):
            continue
        return word
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_in(argv))
    args = parser.parse_args(argv)
    try:
        if args.needs_db:
            from ..engine.facade import Cairn

            with Cairn(args.db, space=args.space, now=args.now) as cairn:
                output: Output = args.handler(cairn, args)
        else:
            output = args.handler(None, args)
    except CairnError as err:
        return _fail(str(err))
    except KeyboardInterrupt:
        return _fail("interrupted; nothing was written by the unfinished operation")
    except Exception as err:  # noqa: BLE001 - one line, never a traceback, for users
        if os.environ.get("CAIRN_DEBUG"):
            raise
        return _fail(f"internal error: {type(err).__name__}: {err} (set CAIRN_DEBUG=1 for a traceback)")
    for line in output.stderr:
        print(line, file=sys.stderr)
    try:
        if args.json:
            import json

            print(json.dumps(output.doc, ensure_ascii=False, sort_keys=False))
        elif output.text:
            print(output.text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return output.exit_code


def _fail(message: str) -> int:
    print(f"cairn: {' '.join(message.split())}", file=sys.stderr)
    return 1


def run() -> None:
    sys.exit(main())
