"""Parsing of conversations into turns: JSONL transcripts and the LoCoMo format.

Pure: text or decoded JSON in, :class:`Conversation` values out; nothing is stored here.
The engine (``cairn.engine.ingesting``) turns each :class:`Turn` into one verbatim
``episode`` record.

* **JSONL**: one object a line, ``{"id", "speaker" or "role", "text", "time"}``; blank
  lines are ignored; ids must be unique within the file.
* **LoCoMo**: one conversation object (``{"sample_id", "conversation": {"speaker_a",
  "session_N_date_time", "session_N": [{"speaker", "dia_id", "text", "blip_caption"?}]}}``)
  or the list of them. A turn has no time of its own: it takes its session's time. A
  shared image's caption stays with the turn (``caption``), since it is part of what the
  speaker showed.

Every defect raises :class:`TurnError` naming the line (JSONL) or the turn (LoCoMo), so
that the caller can refuse the whole ingest before writing anything.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

from ..model import BadTime, parse_time
from ..text import MONTHS

ID_MAX = 200
SPEAKER_MAX = 200


class TurnError(ValueError):
    """One unreadable turn: ``where`` is ``"line 3"`` or ``"turn D2:7"``."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class Turn(NamedTuple):
    """One turn read. A named tuple rather than a frozen dataclass: just as immutable, and
    made four times faster (a frozen dataclass sets each field through ``object.__setattr__``),
    which counts when a transcript has thousands of turns."""

    id: str  # the turn's id in its source: becomes the episode's evidence.source_id
    speaker: str
    text: str  # verbatim
    time: datetime
    caption: str | None = None  # caption of an image the speaker shared (LoCoMo)


@dataclass(frozen=True, slots=True)
class Conversation:
    name: str  # the conversation's own name (LoCoMo sample_id), "" when it has none
    turns: tuple[Turn, ...]
    sha256: str  # of the canonical JSON of the turns: identifies the source


def _digest(turns: Iterable[Turn]) -> str:
    canon = [[t.id, t.speaker, t.text, t.time.isoformat(), t.caption] for t in turns]
    return hashlib.sha256(json.dumps(canon, ensure_ascii=False).encode("utf-8")).hexdigest()


def _text_field(obj: dict, key: str, where: str, *, limit: int | None = None) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise TurnError(where, f'"{key}" must be a non-empty string')
    if "\x00" in value:
        raise TurnError(where, f'"{key}" contains a NUL character')
    if limit is not None and len(value) > limit:
        raise TurnError(where, f'"{key}" is longer than {limit} characters')
    return value


# -- JSONL ------------------------------------------------------------------------------


def parse_jsonl(lines: Iterable[str], name: str = "") -> Conversation:
    """Turns of a JSONL transcript; raises :class:`TurnError` at the first bad line."""
    turns: list[Turn] = []
    seen: set[str] = set()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise TurnError(f"line {number}", f"not JSON ({err.msg})") from None
        turn = _plain_turn(obj) if type(obj) is dict else None
        if turn is None:
            if not isinstance(obj, dict):
                raise TurnError(f"line {number}", 'expected an object {"id", "speaker" or "role", "text", "time"}')
            turn = _jsonl_turn(obj, f"line {number}")
        if turn.id in seen:
            raise TurnError(f"line {number}", f"turn id {turn.id!r} appears twice")
        seen.add(turn.id)
        turns.append(turn)
    if not turns:
        raise TurnError("file", "no turns")
    return Conversation(name, tuple(turns), _digest(turns))


def _plain_turn(obj: dict) -> Turn | None:
    """:func:`_jsonl_turn` for the common turn, whose fields are all texts within their
    limits, checked inline (a transcript has thousands of turns); None for any other
    turn, which then takes the general path and its reasons."""
    raw_id, text, raw_time = obj.get("id"), obj.get("text"), obj.get("time")
    raw_speaker = obj["speaker"] if "speaker" in obj else obj.get("role")
    if not (type(raw_id) is str and type(raw_speaker) is str and type(text) is str and type(raw_time) is str
            and len(raw_id) <= ID_MAX and len(raw_speaker) <= SPEAKER_MAX):
        return None
    turn_id, speaker = raw_id.strip(), raw_speaker.strip()
    if not (turn_id and speaker and text.strip() and raw_time.strip()) or "\x00" in raw_id or "\x00" in raw_speaker \
            or "\x00" in text:
        return None
    try:
        time = parse_time(raw_time)
    except BadTime:
        return None
    return Turn(turn_id, speaker, text, time)


def _jsonl_turn(obj: dict, where: str) -> Turn:
    raw_id = obj.get("id")
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)  # numbered transcripts are common; the id is kept as text
    turn_id = _text_field({"id": raw_id}, "id", where, limit=ID_MAX).strip()
    key = "speaker" if "speaker" in obj else "role"
    speaker = _text_field(obj, key, where, limit=SPEAKER_MAX).strip()
    text = _text_field(obj, "text", where)
    raw_time = obj.get("time")
    if not isinstance(raw_time, str):
        raise TurnError(where, '"time" must be an ISO-8601 string')
    try:
        time = parse_time(raw_time)
    except BadTime:
        raise TurnError(where, f'"time" is not an ISO-8601 time: {raw_time!r}') from None
    return Turn(turn_id, speaker, text, time)


# -- LoCoMo -----------------------------------------------------------------------------

_LOCOMO_TIME = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)
_SESSION_KEY = re.compile(r"^session_(\d+)$")


def parse_locomo_time(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime; ValueError otherwise."""
    m = _LOCOMO_TIME.match(text or "")
    if not m or m.group(5).lower() not in MONTHS:
        raise ValueError(f"not a LoCoMo session time: {text!r}")
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return datetime(int(m.group(6)), MONTHS[m.group(5).lower()], int(m.group(4)), hour, int(m.group(2)), tzinfo=UTC)


def parse_locomo(data, sample: str | int | None = None) -> list[Conversation]:
    """Conversations of a LoCoMo object or list; ``sample`` picks one by sample_id or index."""
    if isinstance(data, dict):
        items = [data]
    elif isinstance(data, list):
        items = data
    else:
        raise TurnError("file", "a LoCoMo file holds one conversation object or a list of them")
    if sample is not None:
        items = [_pick(items, sample)]
    return [parse_locomo_conversation(item, n) for n, item in enumerate(items)]


def _pick(items: list, sample: str | int) -> dict:
    text = str(sample)
    for item in items:
        if isinstance(item, dict) and item.get("sample_id") == text:
            return item
    if text.isdigit() and int(text) < len(items):
        return items[int(text)]
    raise TurnError("file", f"no conversation {text!r} (give a sample_id or an index below {len(items)})")


def parse_locomo_conversation(item, index: int = 0) -> Conversation:
    """One LoCoMo conversation, sessions in numeric order, turns in file order."""
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        raise TurnError(f"conversation {index}", 'expected {"sample_id", "conversation": {...}}')
    conv = item["conversation"]
    sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
    turns: list[Turn] = []
    seen: set[str] = set()
    for number in sessions:
        where = f"session {number}"
        try:
            time = parse_locomo_time(conv.get(f"session_{number}_date_time", ""))
        except ValueError as err:
            raise TurnError(where, str(err)) from None
        if not isinstance(conv[f"session_{number}"], list):
            raise TurnError(where, "expected a list of turns")
        for position, raw in enumerate(conv[f"session_{number}"], 1):
            turn = _locomo_turn(raw, time, f"{where} turn {position}")
            if turn.id in seen:
                raise TurnError(f"turn {turn.id}", "appears twice")
            seen.add(turn.id)
            turns.append(turn)
    if not turns:
        raise TurnError(f"conversation {index}", "no turns")
    name = item.get("sample_id")
    return Conversation(name if isinstance(name, str) else "", tuple(turns), _digest(turns))


def _locomo_turn(raw, time: datetime, where: str) -> Turn:
    if not isinstance(raw, dict):
        raise TurnError(where, "not an object")
    turn_id = _text_field(raw, "dia_id", where, limit=ID_MAX).strip()
    where = f"turn {turn_id}"
    speaker = _text_field(raw, "speaker", where, limit=SPEAKER_MAX).strip()
    text = _text_field(raw, "text", where)
    caption = raw.get("blip_caption")
    caption = caption.strip() if isinstance(caption, str) and caption.strip() else None
    return Turn(turn_id, speaker, text, time, caption)
