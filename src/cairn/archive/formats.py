"""Reading an archived source into records, without trusting or changing it.

A source is a byte string of one of the :data:`SOURCE_TYPES`. Reading it yields one
:class:`Record` per turn-like unit (a JSONL line, or one message of an OpenAI-style JSON
document), numbered from 1 in file order: that number is the *turn* that ``archive show
--turns A..B`` names. Each record keeps its exact bytes (for JSONL, the line without its
end-of-line), its id and time when the format has them, and its text split by channel:

* ``visible`` — what the user and the assistant said to each other;
* ``context`` — system and developer context, host-added summaries;
* ``reasoning`` — internal reasoning (thinking parts);
* ``tool`` — tool calls and tool output;
* ``external`` — anything else the source recorded (unknown record types, attachments).

Every defect raises :class:`FormatError` naming the record, so that ``archive add``
refuses a source it could not rehydrate later, and ``archive verify`` names the failure.
Pure: bytes in, values out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from ..model import BadTime, parse_time

SOURCE_TYPES = ("conversation-jsonl", "claude-code-jsonl", "openai-chat-json")
CHANNELS = ("visible", "context", "reasoning", "tool", "external")

_CONTEXT_ROLES = frozenset({"system", "developer"})
_TOOL_ROLES = frozenset({"tool", "function", "tool_result", "tool_call"})
_REASONING_ROLES = frozenset({"reasoning", "thinking"})
_TIME_KEYS = ("time",)


class FormatError(ValueError):
    """The source is not readable as its type: ``where`` names the record or the file."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Record:
    turn: int  # 1-based position in the source
    line: str  # the record's text (JSONL: the line without its line ending), decoded from UTF-8
    exact: bool  # whether ``line`` is a slice of the file (False: a JSON message re-serialised)
    id: str | None
    time: datetime | None
    session: str | None  # the source identity the record embeds (Claude Code's sessionId)

    @property
    def raw(self) -> bytes:
        """The record's exact bytes: valid UTF-8 decodes and encodes back unchanged."""
        return self.line.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Reading:
    records: tuple[Record, ...]
    started_at: datetime | None
    ended_at: datetime | None
    session: str | None  # the one embedded identity, or None when the source embeds none


def detect(data: bytes) -> str:
    """The most likely source type of ``data`` (used when ``--source-type`` is not given)."""
    head = data.lstrip()[:1]
    if head == b"[":
        return "openai-chat-json"
    first = next((line for line in data.splitlines() if line.strip()), b"")
    try:
        obj = json.loads(first)
    except (ValueError, UnicodeDecodeError):
        obj = None
        if head == b"{":  # a JSON document spread over lines, e.g. {"messages": [...]} indented
            try:
                obj = json.loads(data)
            except (ValueError, UnicodeDecodeError):
                return "conversation-jsonl"
    if isinstance(obj, dict) and isinstance(obj.get("messages"), list):
        return "openai-chat-json"
    if isinstance(obj, dict) and "type" in obj and ("uuid" in obj or "sessionId" in obj or obj.get("type") == "summary"):
        return "claude-code-jsonl"
    return "conversation-jsonl"


def read(data: bytes, source_type: str) -> Reading:
    """Every record of ``data`` read as ``source_type``; raises :class:`FormatError`."""
    if source_type not in SOURCE_TYPES:
        raise FormatError("source type", f"{source_type!r} (one of: {', '.join(SOURCE_TYPES)})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError("file", f"not UTF-8 ({err.reason} at byte {err.start})") from None
    if source_type == "openai-chat-json":
        records = _openai(text)
    else:
        reader = _claude_record if source_type == "claude-code-jsonl" else _conversation_record
        records = []
        # The hot loop of a whole-file verify: a location string is built only on error.
        for number, line in enumerate(text.split("\n"), 1):
            if line.endswith("\r"):
                line = line[:-1]
            if not line or line.isspace():
                continue
            try:
                obj = _object(line)
                records.append(reader(len(records) + 1, line, obj))
            except _Defect as defect:
                raise FormatError(f"line {number}", str(defect)) from None
    if not records:
        raise FormatError("file", "no records")
    times = [r.time for r in records if r.time is not None]
    sessions = {r.session for r in records if r.session is not None}
    if len(sessions) > 1:
        raise FormatError("file", f"records name {len(sessions)} different sessions")
    return Reading(tuple(records), min(times, default=None), max(times, default=None),
                   next(iter(sessions)) if sessions else None)


class _Defect(ValueError):
    """A defect of one record; the caller adds where it is."""


_decode = json.JSONDecoder().raw_decode


def _object(line: str) -> dict:
    start = len(line) - len(line.lstrip()) if line[0].isspace() else 0
    try:
        obj, end = _decode(line, start)
    except ValueError as err:
        raise _Defect(f"not JSON ({err})") from None
    if end != len(line) and not line[end:].isspace():
        raise _Defect(f"not JSON (extra data at column {end + 1})")
    if not isinstance(obj, dict):
        raise _Defect("not a JSON object")
    return obj


def channels(record: Record, source_type: str) -> dict[str, list[str]]:
    """The record's text split by channel (read again from its bytes: only the few
    records of a rehydrated range pay for it, never a whole-file verify)."""
    try:
        obj = _object(record.line)
    except _Defect as defect:
        raise FormatError(f"turn {record.turn}", str(defect)) from None
    out: dict[str, list[str]] = {}
    if source_type == "claude-code-jsonl":
        _claude_channels(obj, out)
    elif source_type == "openai-chat-json":
        _openai_channels(obj, out)
    else:
        who = obj.get("speaker", obj.get("role"))
        out[_role_channel(str(obj.get("role", who)))] = [f"{who}: {obj.get('text')}"]
    return out


def _time(obj: dict, keys: tuple[str, ...]) -> datetime | None:
    for key in keys:
        value = obj.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            try:  # the common case, without parse_time's normalisation steps
                parsed = datetime.fromisoformat(value)
                return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
            except ValueError:
                pass
            try:
                return parse_time(value)
            except BadTime:
                raise _Defect(f'"{key}" is not an ISO-8601 time: {value!r}') from None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(value, UTC)
        raise _Defect(f'"{key}" is not a time')
    return None


def _id(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    return str(value) if isinstance(value, (str, int)) else None


def _role_channel(role: str) -> str:
    role = role.strip().lower()
    if role in _CONTEXT_ROLES:
        return "context"
    if role in _TOOL_ROLES:
        return "tool"
    if role in _REASONING_ROLES:
        return "reasoning"
    return "visible"


def _conversation_record(turn: int, line: str, obj: dict) -> Record:
    """Cairn's JSONL: ``{"id", "speaker" or "role", "text", "time"}``."""
    who = obj.get("speaker", obj.get("role"))
    if not isinstance(who, str) or not isinstance(obj.get("text"), str):
        raise _Defect('expected "speaker" or "role" and "text" strings')
    return Record(turn, line, True, _id(obj.get("id")), _time(obj, _TIME_KEYS), None)


def _parts(content: object, speaker: str, channels: dict[str, list[str]]) -> None:
    """Split a message's content (a string or a list of typed parts) by channel."""
    if isinstance(content, str):
        channels.setdefault("visible", []).append(f"{speaker}: {content}")
        return
    if not isinstance(content, list):
        return
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            channels.setdefault("visible", []).append(f"{speaker}: {part.get('text', '')}")
        elif kind in ("thinking", "redacted_thinking", "reasoning"):
            channels.setdefault("reasoning", []).append(str(part.get("thinking", part.get("text", ""))))
        elif kind in ("tool_use", "tool_result", "function_call", "tool_call"):
            body = part.get("input", part.get("content", part.get("arguments", "")))
            label = part.get("name", kind)
            channels.setdefault("tool", []).append(f"{label}: {body if isinstance(body, str) else json.dumps(body)}")
        else:
            channels.setdefault("external", []).append(json.dumps(part, ensure_ascii=False))


def _claude_record(turn: int, line: str, obj: dict) -> Record:
    """A Claude Code session line: ``type``, ``uuid``, ``timestamp``, ``sessionId``, ``message``."""
    if not isinstance(obj.get("type"), str):
        raise _Defect('expected a "type" string')
    session = obj.get("sessionId")
    if session is not None and not isinstance(session, str):
        raise _Defect('"sessionId" is not a string')
    return Record(turn, line, True, _id(obj.get("uuid", obj.get("leafUuid"))), _time(obj, ("timestamp",)), session)


def _claude_channels(obj: dict, channels: dict[str, list[str]]) -> None:
    kind = obj.get("type")
    message = obj.get("message")
    if kind in ("user", "assistant") and isinstance(message, dict):
        if obj.get("isMeta"):
            channels.setdefault("context", []).append(json.dumps(message.get("content"), ensure_ascii=False))
        else:
            _parts(message.get("content"), str(kind), channels)
    elif kind in ("summary", "system"):
        channels["context"] = [str(obj.get("summary", obj.get("content", "")))]
    else:
        channels["external"] = [str(kind)]


def _openai(data: str) -> list[Record]:
    """An OpenAI-style chat document: a list of messages or ``{"messages": [...]}``. A
    message is not a byte range of the file, so its record is re-serialised (``exact``
    False): the preserved file itself stays byte-exact and is what verify hashes."""
    try:
        doc = json.loads(data)
    except ValueError as err:
        raise FormatError("file", f"not JSON ({err})") from None
    messages = doc.get("messages") if isinstance(doc, dict) else doc
    if not isinstance(messages, list):
        raise FormatError("file", 'expected a list of messages or {"messages": [...]}')
    records = []
    for position, message in enumerate(messages):
        where = f"message {position + 1}"
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise FormatError(where, 'expected an object with a "role"')
        raw = json.dumps(message, ensure_ascii=False)
        ident = _id(message.get("id")) or f"m{position}"
        try:
            at = _time(message, ("timestamp", "created_at", "created"))
        except _Defect as defect:
            raise FormatError(where, str(defect)) from None
        records.append(Record(position + 1, raw, False, ident, at, None))
    return records


def _openai_channels(message: dict, channels: dict[str, list[str]]) -> None:
    role = str(message.get("role"))
    channel = _role_channel(role)
    if channel == "visible":
        _parts(message.get("content"), role, channels)
    else:
        channels[channel] = [json.dumps(message.get("content"), ensure_ascii=False)]
    for call in message.get("tool_calls") or ():
        channels.setdefault("tool", []).append(json.dumps(call, ensure_ascii=False))
