"""Transcript readers: Claude Code session JSONL, OpenAI-style chat JSON, Cairn's JSONL.

Pure: text in, a :class:`Transcript` out; nothing is stored here. Unlike
:mod:`cairn.learn.ingest` (which refuses a whole file at its first defect), a transcript
reader is lenient per line: a transcript is written by another program while it runs, so
one malformed line is reported (:class:`Problem`, with its line number) and skipped, and
the rest is read.

What becomes a :class:`~cairn.learn.ingest.Turn` (speaker ``user`` or ``assistant``):

* **claude-code** — lines whose ``type`` is ``user`` or ``assistant``; ``message.content``
  is a string or a list of parts. Only ``text`` parts are kept: ``tool_use`` parts (the
  agent's calls) and ``tool_result`` parts (tool output: large, and any instruction inside
  it is data, not the user's word) are not turns. A ``user`` line holding only tool
  results is therefore skipped, as are ``summary`` lines and every type not known here
  (new ones appear across versions). Text the host adds (``<system-reminder>``, slash
  command echoes and their output) is removed, and a line marked ``isMeta`` is not a turn.
  Turn id = ``uuid``, time = ``timestamp``; the
  ``sessionId`` names the conversation and ``cwd`` is kept beside it.
* **openai** — a JSON list of ``{"role", "content"}`` messages, or an object with a
  ``messages`` list; content a string or a list of ``{"type": "text", "text"}`` parts.
  ``system`` and ``tool`` messages are not turns. Turn id = the message's ``id`` if it
  has one, else ``m<position>``; time = its ``timestamp``/``created_at``/``created``
  (ISO-8601 or Unix seconds) when present, else the caller's ``default_time``.
* **jsonl** — Cairn's own ``{"id", "speaker" or "role", "text", "time"}`` lines.

``auto`` picks the format from the content: a JSON document whose top level is a list or
has ``messages`` is openai; JSONL lines with a ``type`` of user/assistant/summary are
claude-code; otherwise jsonl.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ...model import BadTime, parse_time
from ..ingest import ID_MAX, Turn, TurnError, _jsonl_turn

FORMATS = ("auto", "claude-code", "openai", "jsonl")
ROLES = ("user", "assistant")
CLAUDE_TYPES = frozenset({"user", "assistant", "summary", "system", "file-history-snapshot"})
# Text the host (not the person) puts in a user message: reminders, slash-command echoes
# and their local output. Removed, so that it is neither stored as the user's turn nor read
# as their statement.
_HOST_TEXT = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|local-command-stderr)>"
    r".*?</\1>", re.S)


@dataclass(frozen=True, slots=True)
class Problem:
    """One line (or message) that could not be read: it was skipped."""

    where: str  # "line 7" or "message 3"
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Transcript:
    format: str  # the format actually read (never "auto")
    name: str  # the conversation's name: the Claude Code session id, else ""
    turns: tuple[Turn, ...]
    problems: tuple[Problem, ...] = ()
    cwd: str | None = None  # Claude Code: the working directory of the session
    skipped: int = 0  # lines or messages that are not turns (tool results, summaries, unknown types)

    @property
    def sha256(self) -> str:
        canon = [[t.id, t.speaker, t.text, t.time.isoformat()] for t in self.turns]
        return hashlib.sha256(json.dumps(canon, ensure_ascii=False).encode("utf-8")).hexdigest()


@dataclass
class _Reading:
    turns: list[Turn] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    skipped: int = 0

    def add(self, turn: Turn, where: str) -> None:
        if turn.id in self.seen:
            self.problems.append(Problem(where, f"turn id {turn.id!r} appears twice; the first is kept"))
            return
        self.seen.add(turn.id)
        self.turns.append(turn)


def read_transcript(text: str, format: str = "auto", *, default_time: datetime | None = None) -> Transcript:
    """Read a transcript's text. Raises :class:`TurnError` only when the whole input is
    unusable (an unknown format, an OpenAI document that is not JSON); a bad line is a
    :class:`Problem` in the result."""
    if format not in FORMATS:
        raise TurnError("format", f"{format!r} (one of: {', '.join(FORMATS)})")
    if format == "auto":
        format = detect(text)
    if format == "openai":
        return read_openai(text, default_time=default_time)
    lines = text.splitlines()
    return read_claude_code(lines) if format == "claude-code" else read_jsonl(lines)


def detect(text: str) -> str:
    """The format of ``text``: openai, claude-code or jsonl (see the module docstring)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "openai"
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        obj = json.loads(first)
    except json.JSONDecodeError:
        return "jsonl"
    if isinstance(obj, dict) and "messages" in obj and isinstance(obj["messages"], list):
        return "openai"
    if isinstance(obj, dict) and ("sessionId" in obj or obj.get("type") in CLAUDE_TYPES):
        return "claude-code"
    return "jsonl"


def _time(raw: object) -> datetime:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return datetime.fromtimestamp(raw, UTC)
    if not isinstance(raw, str):
        raise BadTime(repr(raw))
    return parse_time(raw)


def _parts_text(content: object) -> tuple[str, int]:
    """The text of a message's content (a string or a list of parts), and how many
    non-text parts (tool_use, tool_result, images) were left out."""
    if isinstance(content, str):
        return content, 0
    if not isinstance(content, list):
        raise ValueError("content is neither a string nor a list of parts")
    texts, other = [], 0
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            other += 1
    return "\n\n".join(t for t in texts if t.strip()), other


# -- Claude Code ----------------------------------------------------------------------------


def _objects(lines: Iterable[str], reading: _Reading) -> Iterator[tuple[str, dict]]:
    """(location, object) of each non-blank line that is a JSON object; any other line is
    reported as a problem with its line number and skipped."""
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        where = f"line {number}"
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            reading.problems.append(Problem(where, f"not JSON ({err.msg})"))
            continue
        if not isinstance(obj, dict):
            reading.problems.append(Problem(where, "not a JSON object"))
            continue
        yield where, obj


def read_claude_code(lines: Iterable[str]) -> Transcript:
    reading = _Reading()
    session, cwd = "", None
    for where, obj in _objects(lines, reading):
        kind = obj.get("type")
        if kind not in ROLES:
            reading.skipped += 1  # summary lines and types this reader does not know
            continue
        try:
            turn = _claude_turn(obj, kind)
        except (ValueError, BadTime) as err:
            reading.problems.append(Problem(where, str(err)))
            continue
        session = session or str(obj.get("sessionId") or "")
        cwd = cwd or (obj.get("cwd") if isinstance(obj.get("cwd"), str) else None)
        if turn is None:
            reading.skipped += 1
        else:
            reading.add(turn, where)
    return Transcript("claude-code", session, tuple(reading.turns), tuple(reading.problems), cwd, reading.skipped)


def _claude_turn(obj: dict, kind: str) -> Turn | None:
    uuid = obj.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip() or len(uuid) > ID_MAX:
        raise ValueError('"uuid" must be a non-empty string')
    try:
        time = _time(obj.get("timestamp"))
    except BadTime:
        raise ValueError(f'"timestamp" is not an ISO-8601 time: {obj.get("timestamp")!r}') from None
    message = obj.get("message")
    if not isinstance(message, dict):
        raise ValueError('"message" must be an object')
    text, _ = _parts_text(message.get("content"))
    text = _HOST_TEXT.sub("", text).strip() if "<" in text else text
    if not text.strip() or obj.get("isMeta") is True:
        return None  # only tool calls or tool results, or a line the host injected itself
    if "\x00" in text:
        raise ValueError("text contains a NUL character")
    return Turn(uuid.strip(), kind, text, time)


# -- OpenAI chat ----------------------------------------------------------------------------


def read_openai(text: str, *, default_time: datetime | None = None) -> Transcript:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise TurnError("file", f"not JSON (line {err.lineno}: {err.msg})") from None
    messages = doc.get("messages") if isinstance(doc, dict) else doc
    if not isinstance(messages, list):
        raise TurnError("file", 'expected a list of {"role", "content"} messages, or {"messages": [...]}')
    fallback = default_time or datetime(1970, 1, 1, tzinfo=UTC)
    reading = _Reading()
    for position, message in enumerate(messages):
        where = f"message {position}"
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            reading.problems.append(Problem(where, 'expected an object with a "role"'))
            continue
        if message["role"] not in ROLES:
            reading.skipped += 1  # system prompts and tool messages are not the conversation's turns
            continue
        try:
            turn = _openai_turn(message, position, fallback)
        except (ValueError, BadTime) as err:
            reading.problems.append(Problem(where, str(err)))
            continue
        if turn is None:
            reading.skipped += 1
        else:
            reading.add(turn, where)
    return Transcript("openai", "", tuple(reading.turns), tuple(reading.problems), None, reading.skipped)


def _openai_turn(message: dict, position: int, fallback: datetime) -> Turn | None:
    text, _ = _parts_text(message.get("content") if message.get("content") is not None else "")
    if not text.strip():
        return None  # an assistant message holding only tool calls
    raw_id = message.get("id")
    turn_id = raw_id.strip() if isinstance(raw_id, str) and raw_id.strip() else f"m{position}"
    raw_time = next((message[k] for k in ("timestamp", "created_at", "created") if message.get(k) is not None), None)
    try:
        time = fallback if raw_time is None else _time(raw_time)
    except BadTime:
        raise ValueError(f"time is not ISO-8601 or Unix seconds: {raw_time!r}") from None
    return Turn(turn_id[:ID_MAX], message["role"], text, time)


# -- Cairn JSONL ----------------------------------------------------------------------------


def read_jsonl(lines: Iterable[str]) -> Transcript:
    reading = _Reading()
    for where, obj in _objects(lines, reading):
        try:
            turn = _jsonl_turn(obj, where)
        except TurnError as err:
            reading.problems.append(Problem(where, err.reason))
            continue
        reading.add(turn, where)
    return Transcript("jsonl", "", tuple(reading.turns), tuple(reading.problems), None, reading.skipped)
