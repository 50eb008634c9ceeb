"""The ``cairn`` command line: a thin adapter over :class:`cairn.Cairn`.

``cairn [--db PATH] [--space NAME] [--now ISO-8601] [--json] COMMAND …``

Exit status: 0 done; 1 refused or invalid (one line on stderr, nothing written);
2 usage error (argparse). Errors are translated to exit codes here and nowhere else.
Commands live in one module per group; each module has ``register(subparsers)``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..engine import Cairn, default_db_path
from ..errors import CairnError
from . import archive, bench, host, ingest, labels, learn, mcp, recall, records, relations
from .common import Output

GROUPS = (records, learn, recall, ingest, relations, host, bench, mcp, archive, labels)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn",
        description="Cairn: long-term memory for AI agents, with evidence, time and corrections.",
        epilog="Run `cairn COMMAND --help` for a command's options.",
    )
    parser.add_argument("--db", help=f"database file (default: $CAIRN_DB, else {default_db_path()})")
    parser.add_argument("--space", default=os.environ.get("CAIRN_SPACE", "default"), help="isolation space (default: default)")
    parser.add_argument("--now", help="fix the clock to this ISO-8601 time")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.needs_db:
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
