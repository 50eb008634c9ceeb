"""``cairn setup claude-code``: merge Cairn's hooks and MCP server into Claude Code's settings.

Two scopes, as Claude Code has them:

* ``--project`` (default): hooks in ``.claude/settings.json``, the MCP server in ``.mcp.json``,
  both at the project root (the current folder);
* ``--user``: hooks in ``~/.claude/settings.json``, the MCP server in ``~/.claude.json``.

What is there is kept: other hooks, other MCP servers, every other key. Cairn's entries are
recognised by their command (``… hook claude-code EVENT``), so a second run changes nothing
and ``--uninstall`` removes exactly those entries (and the ``cairn`` MCP server, if it is the
one setup wrote). A file is backed up (``NAME.cairn-backup``) before its first change;
``--dry-run`` prints the diff and writes nothing. A settings file that is not a JSON object
is refused, untouched.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

HOOKS = (  # (Claude Code event, our event, timeout in seconds)
    ("UserPromptSubmit", "user-prompt-submit", 5),
    ("PreCompact", "pre-compact", 60),
    ("SessionEnd", "session-end", 60),
)
SERVER_NAME = "cairn"
OURS = re.compile(r"(?:^|[/\s'\"])cairn['\"]?(?:\s+.*)?\s+hook\s+claude-code\s+[a-z-]+\s*$")


@dataclass(frozen=True, slots=True)
class Change:
    path: Path
    before: str | None  # None: the file did not exist
    after: str | None  # None: the file is to be removed (never: we only rewrite)

    @property
    def action(self) -> str:
        if self.before == self.after:
            return "unchanged"
        return "created" if self.before is None else "updated"

    def diff(self) -> str:
        return "".join(difflib.unified_diff(
            (self.before or "").splitlines(keepends=True), (self.after or "").splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null", tofile=str(self.path),
        ))


def plan(*, scope: str, cairn: list[str], project: Path, home: Path, uninstall: bool = False) -> list[Change]:
    """The changes setup would make; ``cairn`` is the command that runs Cairn (with its
    global options, e.g. ``[".../cairn", "--db", "/path/cairn.db"]``)."""
    if scope == "user":
        settings, servers = home / ".claude" / "settings.json", home / ".claude.json"
    elif scope == "project":
        settings, servers = project / ".claude" / "settings.json", project / ".mcp.json"
    else:
        raise InvalidInput("scope", f"{scope!r} (user or project)")
    changes = []
    before, doc = _read(settings)
    _merge_hooks(doc, cairn, uninstall)
    changes.append(Change(settings, before, _render(doc, before)))
    before, doc = _read(servers)
    _merge_server(doc, cairn, uninstall, servers)
    changes.append(Change(servers, before, _render(doc, before)))
    return changes


def apply(changes: list[Change]) -> list[tuple[Change, Path | None]]:
    """Write each changed file (after a backup of its previous content); unchanged files
    are not touched. Returns each change with its backup path."""
    done = []
    for change in changes:
        backup = None
        if change.action != "unchanged" and change.after is not None:
            change.path.parent.mkdir(parents=True, exist_ok=True)
            if change.before is not None:
                backup = change.path.with_name(change.path.name + ".cairn-backup")
                backup.write_text(change.before, encoding="utf-8")
            tmp = change.path.with_name(change.path.name + ".cairn-tmp")
            tmp.write_text(change.after, encoding="utf-8")
            if change.path.exists():
                os.chmod(tmp, change.path.stat().st_mode & 0o777)
            os.replace(tmp, change.path)
        done.append((change, backup))
    return done


def hook_command(cairn: list[str], event: str) -> str:
    return " ".join(shlex.quote(part) for part in [*cairn, "hook", "claude-code", event])


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInput(str(path), f"cannot be read ({type(err).__name__})") from None
    if not text.strip():
        return text, {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidInput(str(path), f"is not valid JSON ({err.msg} at line {err.lineno}); nothing was changed") from None
    if not isinstance(doc, dict):
        raise InvalidInput(str(path), "is not a JSON object; nothing was changed")
    return text, doc


def _render(doc: dict[str, Any], before: str | None) -> str | None:
    if before is not None:
        try:
            if json.loads(before or "{}") == doc:
                return before  # unchanged: keep the user's own formatting byte for byte
        except ValueError:
            pass
    elif not doc:
        return None  # nothing to write where nothing was
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _merge_hooks(doc: dict[str, Any], cairn: list[str], uninstall: bool) -> None:
    hooks = doc.get("hooks")
    if hooks is None:
        if uninstall:
            return
        hooks = doc["hooks"] = {}
    if not isinstance(hooks, dict):
        raise InvalidInput("hooks", "the settings' hooks are not an object; nothing was changed")
    for claude_event, event, timeout in HOOKS:
        groups = hooks.get(claude_event, [])
        if not isinstance(groups, list):
            raise InvalidInput(f"hooks.{claude_event}", "is not a list; nothing was changed")
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not _is_ours(h)]
                if inner:
                    kept.append({**group, "hooks": inner})
                elif not group["hooks"]:
                    kept.append(group)
            else:
                kept.append(group)
        if not uninstall:
            kept.append({"hooks": [{"type": "command", "command": hook_command(cairn, event), "timeout": timeout}]})
        if kept:
            hooks[claude_event] = kept
        else:
            hooks.pop(claude_event, None)
    if uninstall and not hooks:
        doc.pop("hooks")


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and bool(OURS.search(hook["command"]))


def _merge_server(doc: dict[str, Any], cairn: list[str], uninstall: bool, path: Path) -> None:
    servers = doc.get("mcpServers")
    if servers is None:
        if uninstall:
            return
        servers = doc["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise InvalidInput(f"{path}: mcpServers", "is not an object; nothing was changed")
    ours = {"type": "stdio", "command": cairn[0], "args": [*cairn[1:], "mcp"]}
    present = servers.get(SERVER_NAME)
    if uninstall:
        if isinstance(present, dict) and present.get("args", [""])[-1:] == ["mcp"] and "cairn" in str(present.get("command")):
            del servers[SERVER_NAME]
        if not servers:
            doc.pop("mcpServers")
        return
    if present is not None and present != ours and not (
        isinstance(present, dict) and "cairn" in str(present.get("command")) and present.get("args", [""])[-1:] == ["mcp"]
    ):
        raise InvalidInput(f"{path}: mcpServers.{SERVER_NAME}",
                           "is another server's entry; rename it first (nothing was changed)")
    servers[SERVER_NAME] = ours
