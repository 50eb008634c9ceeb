"""The warm path of the read commands: a running ``cairn mcp`` answers ``recall``,
``search``, ``explain``, ``show``, ``list``, ``history``, ``timeline`` and ``trace``
(:data:`cairn.cli.WARM_COMMANDS`) for a fresh ``cairn`` process.

Most of such a process's time is importing the engine (docs/benchmarks.md, "Process
start-up"). The MCP server already has it loaded and listens beside the database for the
per-prompt hook (:mod:`cairn.host.warm`); a read command asks there first, with its
command line, its folder and the environment that shapes it, and prints what the server
computed — the output, the error line and the exit status the command would have given:

* the client (:func:`ask`) sends the request only for :data:`~cairn.cli.WARM_COMMANDS`
  without ``--help``, on a database file (not a PostgreSQL URL), unless
  ``CAIRN_WARM=off``; it finds the database as the command would (``--db``, else
  ``$CAIRN_DB``, else the data folder);
* the server (:func:`answer`) declines — and the command runs in its own process, as
  before — when anything could make its answer differ: an environment variable of
  :data:`SHAPING` set otherwise than in the server's process, a command line it cannot
  parse (usage errors and help are printed by the command's own process), another
  database than the one it serves.

The command runs through the same :func:`cairn.cli.execute` and :func:`cairn.cli.rendered`
as in its own process, on its own connection; a recall's trace is written by the server,
in the same database.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, NoReturn

from . import _Parser

# Environment variables that change what a read command does or prints. ($CAIRN_DB is
# not compared: the command resolves its database itself, and the server answers only
# for the one it serves.)
SHAPING = ("CAIRN_SPACE", "CAIRN_DEFAULT_LANE", "CAIRN_SEMANTIC", "CAIRN_BUSY_TIMEOUT", "CAIRN_DEBUG")
WAIT = 120.0  # seconds a command waits for the server's answer (a recall on a large store)


def ask(argv: list[str]) -> tuple[int, str, str] | None:
    """(exit status, stdout, stderr) as a warm server computed them, or None: run here."""
    if os.environ.get("CAIRN_WARM", "").strip().lower() == "off" or "-h" in argv or "--help" in argv:
        return None
    db = _database(argv)
    if db is None:
        return None
    from ..host.warm import exchange

    request = {"kind": "cli", "argv": argv, "cwd": os.getcwd(), "db": str(db),
               "env": {name: os.environ.get(name) for name in SHAPING}}
    doc = exchange(db, request, time.time() + WAIT)
    if doc is None:
        return None
    code, out, err = doc.get("exit"), doc.get("stdout"), doc.get("stderr")
    if not isinstance(code, int) or not isinstance(out, str) or not isinstance(err, str):
        return None
    return code, out, err


def _database(argv: list[str]) -> Path | None:
    """The database file the command line names, as an absolute path (None for a URL or
    an empty value: those run here)."""
    named: str | None = None
    for i, word in enumerate(argv):
        if word == "--db" and i + 1 < len(argv):
            named = argv[i + 1]
        elif word.startswith("--db="):
            named = word[len("--db="):]
    if named is None:
        named = os.environ.get("CAIRN_DB") or None
    if named is not None and (not named.strip() or "://" in named):
        return None
    if named is None:
        from ..engine.paths import default_db_path

        try:
            return Path(os.path.abspath(default_db_path()))
        except Exception:  # noqa: BLE001 - no data folder: the command says so itself
            return None
    return Path(os.path.abspath(os.path.expanduser(named)))


class _Declined(Exception):
    """The server's parse of a command line failed: the command's own process reports it."""


class _Strict(_Parser):
    """The command line's parser, raising instead of printing and exiting: a server
    thread must neither write to its own output nor end its process."""

    def error(self, message: str) -> NoReturn:
        raise _Declined(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Declined(message or "")


def answer(request: dict[str, Any], served: Path) -> dict[str, Any] | None:
    """The server's side: run the command line of ``request`` on ``served`` and return
    ``{"exit", "stdout", "stderr"}``, or None to decline (see the module docstring)."""
    from . import WARM_COMMANDS, build_parser, command_in, execute, rendered

    argv, cwd, env, db = request.get("argv"), request.get("cwd"), request.get("env"), request.get("db")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and isinstance(cwd, str)
            and isinstance(env, dict) and isinstance(db, str)):
        return None
    if any(env.get(name) != os.environ.get(name) for name in SHAPING):
        return None
    command = command_in(argv)
    if command not in WARM_COMMANDS:
        return None

    try:
        args = build_parser(command, parser_class=_Strict).parse_args(argv)
    except _Declined:
        return None
    where = Path(os.path.abspath(os.path.join(cwd, os.path.expanduser(args.db)))) if args.db else Path(db)
    if where != Path(os.path.abspath(served)):
        return None
    args.db = str(where)
    output, error = execute(args)
    code, out, err = rendered(args, output, error)
    return {"exit": code, "stdout": out, "stderr": err}
