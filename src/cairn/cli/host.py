"""CLI commands of the host loop: ``triage``, ``hook claude-code EVENT`` and ``setup claude-code``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.paths import default_db_path
from ..errors import InvalidInput
from .common import Output, add_command

if TYPE_CHECKING:
    from ..engine import Cairn

# The hook runs once per user prompt: this module imports neither the engine nor the wire
# forms at start-up, and a prompt the hook stays silent on never imports them.


def register(sub) -> None:
    """Add this group's subcommands to the `cairn` parser."""
    p = add_command(
        sub, "triage", "decide RETRIEVE, ASK or SKIP for a user message", cmd_triage,
        description="Decide whether MESSAGE needs earlier context (deterministic, no model):\n"
                    "  RETRIEVE  a discriminating intent can be formed: prints it (names, identifiers,\n"
                    "            topic words and time cues, verbatim);\n"
                    "  ASK       it refers to earlier work but names no anchor: prints the one to ask for;\n"
                    "  SKIP      self-contained or context-free, or nothing in this space could be relevant.\n"
                    "Reads term statistics only; writes nothing. MESSAGE '-' reads standard input.",
    )
    p.add_argument("message", help="the user's message ('-' reads it from standard input)")
    p.add_argument("--attachment", action="append", default=[], metavar="FILE",
                   help="a file the user attached or pasted; takes part in the decision, never as an instruction")

    p = add_command(
        sub, "hook", "run as an agent host's hook (Claude Code)", cmd_hook, needs_db=False,
        description="Run one hook event of an agent host, reading the host's JSON on standard input.\n"
                    "  claude-code user-prompt-submit  triage the prompt and inject the recalled digest\n"
                    "  claude-code session-end|pre-compact|stop  learn from the transcript's new lines\n"
                    "Never blocks the host: any error, a missing database or a run over --timeout exits 0\n"
                    "with no output, and the reason is appended to hook.log in DB.hooks/ beside the database.",
    )
    p.add_argument("host", choices=("claude-code",), help="the agent host (claude-code)")
    p.add_argument("event", choices=("user-prompt-submit", "session-end", "pre-compact", "stop"), help="the hook event")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time budget (default $CAIRN_HOOK_TIMEOUT, else 1 s for prompts, 30 s for learning)")

    p = add_command(
        sub, "setup", "connect an agent host to Cairn (hooks and MCP server)", cmd_setup, needs_db=False,
        description="Merge Cairn's hooks (per-prompt recall, learning at session end) and its MCP server into\n"
                    "Claude Code's settings, keeping everything else there. A changed file is backed up first\n"
                    "(NAME.cairn-backup). Running it twice changes nothing; --uninstall removes exactly what it added.\n"
                    "  --project (default): .claude/settings.json and .mcp.json in the current folder\n"
                    "  --user: ~/.claude/settings.json and ~/.claude.json",
    )
    p.add_argument("host", choices=("claude-code",), help="the agent host (claude-code)")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--user", dest="scope", action="store_const", const="user", help="for every project of this user")
    scope.add_argument("--project", dest="scope", action="store_const", const="project", help="for this project (default)")
    p.add_argument("--dry-run", action="store_true", help="print the changes as a diff; write nothing")
    p.add_argument("--uninstall", action="store_true", help="remove Cairn's hooks and MCP server entry")


def cmd_triage(cairn: Cairn, args) -> Output:
    from .. import wire

    message = sys.stdin.read() if args.message == "-" else args.message
    attachments = []
    for name in args.attachment:
        try:
            attachments.append(Path(name).read_text(encoding="utf-8", errors="replace")[:200_000])
        except OSError as err:
            raise InvalidInput("attachment", f"{name}: {err.strerror or err}") from None
    result = cairn.triage(message, attachments)
    doc = wire.triaged(result)
    if doc["decision"] == "RETRIEVE":
        text = f"RETRIEVE  {doc['intent']}\n  {doc['reason']}"
    elif doc["decision"] == "ASK":
        text = f"ASK  which {doc['missing']}?\n  {doc['reason']}"
    else:
        text = f"SKIP\n  {doc['reason']}"
    return Output(doc, text)


def _db(args) -> Path:
    db = getattr(args, "db", None)
    if db == "":
        raise InvalidInput("--db", "empty path")
    return Path(db).expanduser() if db else default_db_path()


def cmd_hook(_: None, args) -> Output:
    from ..host.claude_code import run_hook  # the hook pays only for what it uses

    timeout = args.timeout
    if timeout is None and os.environ.get("CAIRN_HOOK_TIMEOUT"):
        try:
            timeout = float(os.environ["CAIRN_HOOK_TIMEOUT"])
        except ValueError:
            timeout = None
    try:
        db = _db(args)
        buffer = getattr(sys.stdin, "buffer", None)  # a text stream without bytes beneath (tests, embedding)
        stdin = buffer.read((1 << 20) + 1) if buffer is not None else sys.stdin.read((1 << 20) + 1).encode("utf-8")
    except Exception:  # noqa: BLE001 - a hook never fails the host
        return Output({}, "")
    doc = run_hook(args.event, db=db, space=args.space, stdin=stdin, timeout=timeout, now=args.now)
    if doc is None:
        return Output({}, "")  # silence: an empty wire.HookOutputDoc
    return Output(doc, _json(doc))


def _json(doc) -> str:
    import json

    return json.dumps(doc, ensure_ascii=False)


def cmd_setup(_: None, args) -> Output:
    from .. import wire
    from ..host import setup

    command = [_cairn_executable()]
    if getattr(args, "db", None) == "":
        raise InvalidInput("--db", "empty path")
    if getattr(args, "db", None):
        command += ["--db", str(Path(args.db).expanduser().resolve())]
    if args.space != "default":
        command += ["--space", args.space]
    scope = args.scope or "project"
    changes = setup.plan(scope=scope, cairn=command, project=Path.cwd(), home=Path.home(), uninstall=args.uninstall)
    done = [(c, None) for c in changes] if args.dry_run else setup.apply(changes)
    doc: wire.SetupDoc = {
        "scope": scope, "dry_run": args.dry_run, "uninstall": args.uninstall,
        "changes": [{"path": str(c.path), "action": c.action, "backup": str(b) if b else None} for c, b in done],
    }
    if args.dry_run:
        text = "\n".join(c.diff() for c in changes if c.action != "unchanged") or "nothing to change"
    else:
        text = "\n".join(f"{c['action']:9} {c['path']}" + (f" (backup {c['backup']})" if c["backup"] else "")
                         for c in doc["changes"])
    return Output(doc, text)


def _cairn_executable() -> str:
    """The absolute path of the running ``cairn`` (hooks run without the user's PATH)."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if argv0 and os.path.basename(argv0) == "cairn" and os.path.exists(argv0):
        return str(Path(argv0).resolve())
    import shutil  # imported here: the hook (this module's hot path) never needs it

    found = shutil.which("cairn")
    return str(Path(found).resolve()) if found else "cairn"
