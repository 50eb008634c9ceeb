"""Ingest of conversations as verbatim ``episode`` records.

Contract of :meth:`Ingesting.ingest`:

* each turn becomes one ``episode`` record: content = the turn's text verbatim (plus
  ``[shares <caption>]`` when the speaker shared an image), alias = the speaker,
  evidence ``transcript``/``local`` with ``source_id`` = the turn's id and ``at`` = the
  turn's time (which also sets ``updated_at``, as for any evidence time);
* episodes are never replaced and never deduplicated across turns: two turns with the
  same words are two records;
* re-ingesting is idempotent: a turn whose id already has an episode in that origin is
  skipped (whatever became of that episode since: forgotten turns are not revived);
* the store numbers each new episode's position in its origin (the turn order), which the
  episode lane uses to find neighbouring turns;
* one transaction and one event for the whole ingest; a defect anywhere — a turn timed
  later than now among them — refuses the whole ingest with a one-line reason naming the
  line or turn, and nothing is written;
* a progress line on stderr for long ingests when stderr is a terminal.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import wire
from ..errors import InvalidInput
from ..learn.ingest import Conversation, Turn, TurnError, parse_jsonl, parse_locomo
from ..model import (
    Actor,
    Basis,
    Event,
    Evidence,
    Kind,
    Memory,
    Method,
    Source,
    SourceKind,
    format_time,
    source_to_dict,
)
from .bulk import bulk
from .mutation import new_id
from .progress import chosen, stderr_bar
from .scope import Part
from .validate import LIMITS, choice, clean_content, clean_origin, redact_text

FORMATS = ("jsonl", "locomo")
PROGRESS_MIN_TURNS = 2000  # below this an ingest takes well under a second: no progress line

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Ingested:
    source: str  # id of the source row describing what was ingested
    episodes: int  # episodes written by this ingest
    skipped: int  # turns already present in their origin (idempotent re-ingest)
    origins: tuple[str, ...]
    event: Event | None  # None when every turn was already present
    ids: tuple[str, ...] = ()  # ids of the new episodes, in turn order
    generated: tuple[str, ...] = ()  # turn fields Cairn filled in because the input lacked them ("id", "time")

    def to_dict(self) -> wire.IngestDoc:
        """The wire form (``ingest --json``)."""
        return wire.ingested(source=self.source, episodes=self.episodes, skipped=self.skipped, origins=self.origins,
                             event=self.event)


def episode_content(turn: Turn) -> str:
    """The stored text of a turn: verbatim, with the shared image's caption kept beside it."""
    return turn.text if turn.caption is None else f"{turn.text} [shares {turn.caption}]"


class Ingesting(Part):
    @bulk
    def ingest(
        self,
        path_or_lines,
        format: str = "jsonl",
        origin: str | None = None,
        *,
        sample: str | int | None = None,
        actor: Actor | str = Actor.MANUAL,
        progress: Progress | bool | None = None,
        data: dict | None = None,
    ) -> Ingested:
        """Store a conversation's turns as episodes (see the module docstring).

        ``path_or_lines``: a file path, an iterable of JSONL lines, or (LoCoMo) a decoded
        conversation object or list. ``sample`` picks one LoCoMo conversation by
        sample_id or index; without it every conversation of a list is ingested, each in
        its own origin. ``progress``: a callback ``(done, total)``, ``False`` for none,
        ``None`` for a stderr line when stderr is a terminal and the ingest is long.
        ``data`` is kept in the event beside the counts (the archive's link to the source).
        """
        if format not in FORMATS:
            raise InvalidInput("format", f"{format!r} (one of: {', '.join(FORMATS)})")
        if sample is not None and format != "locomo":
            raise InvalidInput("sample", "only the locomo format holds several conversations")
        actor = choice(Actor, actor, "actor")
        generated: set[str] = set()
        if format == "jsonl" and isinstance(path_or_lines, Iterable) and not isinstance(
            path_or_lines, (str, bytes, dict, os.PathLike)
        ):
            path_or_lines = self._turn_lines(list(path_or_lines), generated)
        default_name, conversations = self._read_conversations(path_or_lines, format, sample)
        if not any(c.turns for c in conversations):
            raise InvalidInput("conversation", "holds no turns to ingest")
        base = clean_origin(origin) if origin is not None else ""
        planned = self._plan(conversations, base, default_name)
        total = sum(len(c.turns) for _, c in planned)
        report = self._progress(progress, total)
        source = self._source(conversations, planned)
        written: list[str] = []
        skipped = 0
        speakers: dict[str, tuple[str, ...]] = {}
        with self.scope.mutation(actor, f"ingest {total} turns ({format})") as m:
            for place, conversation in planned:
                present = m.tx.episode_source_ids(self.space, place)  # turn ids already stored here
                episodes = []
                for turn in conversation.turns:
                    if turn.id in present:
                        skipped += 1
                    else:
                        episodes.append(self._episode(turn, place, speakers))
                    if report and (len(written) + len(episodes) + skipped) % 500 == 0:
                        report(len(written) + len(episodes) + skipped, total)
                m.put_many(episodes, minted=True)  # one bulk write per conversation, in turn order
                written += [e.id for e in episodes]
            if written:
                if m.tx.get_source(self.space, source.id) is None:
                    m.tx.put_source(self.space, source_to_dict(source))
                m.data.update({**(data or {}), "source": source.id, "episodes": len(written), "skipped": skipped})
        if report:
            report(total, total)
        return Ingested(source.id, len(written), skipped, tuple(p for p, _ in planned), m.event, tuple(written),
                        tuple(sorted(generated)))

    # -- steps -------------------------------------------------------------------------

    def _turn_lines(self, items: list, generated: set[str]) -> list[str]:
        """Turns given as Python values, as JSONL lines: a dict is a turn, in the JSONL
        shape or the chat shape ``{"role", "content"}``. A missing ``id`` is generated
        from the turn's position and text (so re-ingesting the same list is idempotent), a
        missing ``time`` is now; the result's ``generated`` says which were filled in."""
        lines: list[str] = []
        for number, item in enumerate(items, 1):
            if isinstance(item, str):
                lines.append(item)
                continue
            if not isinstance(item, dict):
                raise InvalidInput(f"ingest turn {number}", f"a {type(item).__name__}; give a dict or a JSONL line")
            turn = dict(item)
            if "text" not in turn and "content" in turn:
                turn["text"] = turn.pop("content")
            if not isinstance(turn.get("text"), str):
                raise InvalidInput(f"ingest turn {number}", 'needs "text" (or "content") as a string')
            if turn.get("id") is None:
                speaker = str(turn.get("speaker", turn.get("role", "")))
                digest = hashlib.sha256(f"{speaker}\n{turn['text']}".encode()).hexdigest()[:8]
                turn["id"] = f"turn-{number}-{digest}"
                generated.add("id")
            if turn.get("time") is None:
                turn["time"] = format_time(self.now())
                generated.add("time")
            try:
                lines.append(json.dumps(turn, ensure_ascii=False))
            except (TypeError, ValueError):
                raise InvalidInput(f"ingest turn {number}", "holds a value that is not JSON data") from None
        return lines

    def _read_conversations(self, path_or_lines, format: str, sample) -> tuple[str, list[Conversation]]:
        """Parse everything first: a defect must refuse the ingest before any write."""
        name = ""
        try:
            if isinstance(path_or_lines, (str, os.PathLike)):
                path = Path(path_or_lines)
                name = path.stem
                try:
                    raw = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as err:
                    raise InvalidInput("file", f"cannot read {str(path)!r}: {getattr(err, 'strerror', None) or err}") from None
                if format == "jsonl":
                    return name, [parse_jsonl(raw.splitlines(), name)]
                try:
                    data = json.loads(raw)
                except json.JSONDecodeError as err:
                    raise InvalidInput("file", f"{str(path)!r} is not JSON (line {err.lineno}: {err.msg})") from None
                return name, parse_locomo(data, sample)
            if format == "locomo":
                return name, parse_locomo(path_or_lines, sample)
            if isinstance(path_or_lines, (dict, bytes)) or not isinstance(path_or_lines, Iterable):
                raise InvalidInput("lines", "JSONL input is a path or an iterable of lines")
            return name, [parse_jsonl(path_or_lines)]
        except TurnError as err:
            raise InvalidInput(f"ingest {err.where}", err.reason) from None

    def _plan(self, conversations: list[Conversation], base: str, default_name: str) -> list[tuple[str, Conversation]]:
        """The origin of each conversation: the caller's, else the conversation's name."""
        planned = []
        for index, conversation in enumerate(conversations):
            own = conversation.name or default_name or "conversation"
            if len(conversations) == 1:
                place = base or own
            else:
                place = f"{base}/{conversation.name or index}" if base else (conversation.name or f"{own}-{index}")
            planned.append((clean_origin(place), conversation))
        now = self.now()
        for _, conversation in planned:
            for turn in conversation.turns:
                if len(episode_content(turn).strip()) > LIMITS.episode_max:
                    raise InvalidInput(f"ingest turn {turn.id}", f"longer than {LIMITS.episode_max} characters")
                if turn.time > now:
                    # A turn's time is its episode's evidence time: never later than now.
                    raise InvalidInput(f"ingest turn {turn.id}",
                                       f"time {turn.time.isoformat()} is later than now: evidence cannot be later than now")
        return planned

    def _source(self, conversations: list[Conversation], planned) -> Source:
        digest = hashlib.sha256("\n".join(f"{p}\t{c.sha256}" for p, c in planned).encode()).hexdigest()
        latest = max(t.time for c in conversations for t in c.turns)
        return Source(id=digest[:24], space=self.space, kind=SourceKind.CONVERSATION, sha256=digest, at=latest,
                      origin=planned[0][0] if len(planned) == 1 else "", basis=Basis.TRANSCRIPT, method=Method.LOCAL)

    def _episode(self, turn: Turn, origin: str, speakers: dict[str, tuple[str, ...]] | None = None) -> Memory:
        """``speakers``: the aliases of the speakers met so far in this ingest (a
        conversation has a few speakers and many turns: each is redacted once)."""
        aliases = speakers.get(turn.speaker) if speakers is not None else None
        if aliases is None:
            ok = LIMITS.alias_min <= len(turn.speaker) <= LIMITS.alias_max
            aliases = (redact_text(turn.speaker),) if ok else ()
            if speakers is not None:
                speakers[turn.speaker] = aliases
        return Memory(
            id=new_id(),
            space=self.space,
            origin=origin,
            kind=Kind.EPISODE,
            content=clean_content(episode_content(turn), Kind.EPISODE),
            aliases=aliases,
            evidence=Evidence(basis=Basis.TRANSCRIPT, method=Method.LOCAL, source_id=redact_text(turn.id), at=turn.time),
            created_at=self.now(),
            updated_at=turn.time,
        )

    @staticmethod
    def _progress(progress, total: int) -> Progress | None:
        return chosen(progress, total, lambda: stderr_bar("ingest", "turns"), minimum=PROGRESS_MIN_TURNS)

    # -- turns read by a transcript reader ----------------------------------------------

    @bulk
    def ingest_conversation(
        self, conversation: Conversation, origin: str, *, actor: Actor = Actor.SYSTEM,
        progress: Progress | bool | None = None, label: str = "transcript", data: dict | None = None,
    ) -> Ingested:
        """Store the turns of a conversation already read (``cairn learn``'s transcript
        readers) in ``origin``, under the contract of :meth:`ingest`: one event, turns
        already stored skipped. ``data`` is kept in the event beside the counts (``cairn
        learn`` notes there which of its batches read which turns)."""
        planned = self._plan([conversation], clean_origin(origin), "")
        place = planned[0][0]
        report = self._progress(progress, len(conversation.turns))
        source = self._source([conversation], planned)
        written: list[str] = []
        speakers: dict[str, tuple[str, ...]] = {}
        with self.scope.mutation(actor, f"ingest {len(conversation.turns)} turns ({label})") as m:
            present = m.tx.episode_source_ids(self.space, place)
            episodes = []
            for done, turn in enumerate(conversation.turns, 1):
                if turn.id not in present:
                    episodes.append(self._episode(turn, place, speakers))
                if report and done % 500 == 0:
                    report(done, len(conversation.turns))
            m.put_many(episodes, minted=True)
            written += [e.id for e in episodes]
            if written:
                if m.tx.get_source(self.space, source.id) is None:
                    m.tx.put_source(self.space, source_to_dict(source))
                m.data.update({**(data or {}), "source": source.id, "episodes": len(written),
                               "skipped": len(conversation.turns) - len(written)})
        if report:
            report(len(conversation.turns), len(conversation.turns))
        return Ingested(source.id, len(written), len(conversation.turns) - len(written), (place,), m.event, tuple(written))
