"""Claude Code session transcripts written by the tests, in the shape the public
documentation describes: one JSON object a line, ``type`` user/assistant with ``uuid``,
``parentUuid``, ``timestamp``, ``sessionId``, ``cwd`` and ``message.content`` a string or
a list of parts (``text``, ``tool_use``, ``tool_result``); plus ``summary`` lines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

SESSION = "5f0c1b2e-sess"
CWD = "/home/ana/billing"
START = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def line(kind: str, n: int, content: Any, *, session: str = SESSION, at: datetime | None = None) -> str:
    when = at or START + timedelta(seconds=30 * n)
    role = "user" if kind == "user" else "assistant"
    obj = {
        "parentUuid": f"u{n - 1}" if n else None, "isSidechain": False, "userType": "external", "cwd": CWD,
        "sessionId": session, "version": "1.0.0", "type": kind,
        "message": {"role": role, "content": content}, "uuid": f"u{n}",
        "timestamp": when.isoformat().replace("+00:00", "Z"),
    }
    return json.dumps(obj, ensure_ascii=False)


def user(n: int, text: str, **kw) -> str:
    return line("user", n, text, **kw)


def assistant(n: int, text: str, *, tool: bool = False, **kw) -> str:
    parts: list[dict] = [{"type": "text", "text": text}]
    if tool:
        parts.append({"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": "pytest -q"}})
    return line("assistant", n, parts, **kw)


def tool_result(n: int, output: str, **kw) -> str:
    return line("user", n, [{"type": "tool_result", "tool_use_id": f"toolu_{n - 1}", "content": output}], **kw)


def summary(text: str, leaf: str) -> str:
    return json.dumps({"type": "summary", "summary": text, "leafUuid": leaf})


CHATTER = (
    "Run the tests again please.",
    "Show me the diff for the last commit.",
    "Why is the build slow today?",
    "Thanks, that worked.",
)
STATEMENTS = (
    "I prefer {n} retries for the sync job.",
    "Remember that the build agent {n} lives in the Berlin rack.",
    "We decided to shard table {n} by customer.",
)


def session(turns: int, *, first: int = 0) -> list[str]:
    """``turns`` lines numbered from ``first``: user and assistant alternate, every tenth
    user turn states something, every fifth assistant turn also calls a tool."""
    lines = []
    for n in range(first, first + turns):
        if n % 2 == 0:
            text = STATEMENTS[(n // 20) % 3].format(n=n) if n % 20 == 0 else CHATTER[(n // 2) % len(CHATTER)]
            lines.append(user(n, text))
        else:
            lines.append(assistant(n, f"Done with step {n}.", tool=n % 10 == 1))
    return lines
