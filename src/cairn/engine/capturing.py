"""Learning from a conversation transcript (``cairn learn``) and reinforcement events.

:meth:`Capturing.learn` reads a transcript (:mod:`cairn.learn.transcripts`), and for the
turns not yet stored in its origin:

1. proposes claims from the *user* turns with an extractor (``rules`` by default, any
   plug-in of ``cairn.extractors``), offering it as correction candidates the records the
   new turns mention — chosen by the engine, as for any batch. Extraction runs before
   anything is written: an extractor that fails leaves the store as it was;
2. applies the claims as one consolidation batch through the write policy (one event):
   evidence ``user_statement`` from the source, the method the extractor's
   (``local`` for rules, ``model`` for a model). A correction naming a stored record is a
   ``replaces``, decided by the authority policy. A source longer than one batch holds
   is split into consecutive batches of at most 64 claims;
3. stores the new turns as episodes (one event, idempotent per turn id, as ``ingest``);
4. a correction of a statement made earlier in the same source (stated, then corrected,
   before either was stored) stores both and declares ``corrects`` from the newer to the
   older (one event), so recall returns the newer marked ``corrected``;
5. records reinforcement events: ``explicit_correction`` (−1.0) on a stored record a user
   correction named, ``explicit_reinforcement`` (+1.0) on a stored record the user stated
   again. ``neutral_exposure`` is recorded only when asked for.

The claims are applied before the episodes are stored, and each batch's source id is
derived from the turns it was read from: a run that fails part-way (a refused batch, a
crash) is completed by running it again, without applying anything twice. Re-running
on the same file adds nothing; on a grown file only the new turns are read. The episodes'
event notes (``data["learn"]``) which batch read which turns: when such a batch was undone
since, while its episodes stand, the next learn reads those turns again, in the same
chunks, so the batches get their old source ids back (which undo frees for re-applying).

:meth:`Capturing.reinforce` records one reinforcement event on one record: an event that
changes nothing (its record's snapshot before and after are equal) and carries
``{"reinforcement": {...}}`` in its data; :func:`reinforcements` reads them back. They feed
maintenance; they never change confidence or ranking by themselves.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import wire
from ..errors import InvalidInput, Refused
from ..learn.batch import MAX_CLAIMS, MAX_SOURCE_TEXT, Batch, ClaimSpec, SourceSpec
from ..learn.ingest import Conversation, Turn, TurnError
from ..learn.ingest import _digest as turns_digest
from ..learn.signals import prompt_key
from ..model import Actor, Basis, Event, Kind, Memory, Method, Role, SourceKind, format_time
from .ingesting import Ingesting
from .learning import Applied, Learning, applied_and_standing, undone_ids
from .progress import chosen, staged_bars
from .relations import Relations
from .scope import Part
from .validate import LIMITS, as_time, clean_aliases, clean_content, clean_origin, redact_text

if TYPE_CHECKING:
    from ..learn.extractors import Extractor
    from ..learn.transcripts import Problem, Transcript

USER_SPEAKERS = frozenset({"user", "human"})  # whose turns are the user's testimony; any other speaker is not
OUTCOMES: dict[str, float] = {
    "explicit_reinforcement": 1.0,
    "implicit_success": 0.2,
    "neutral_exposure": 0.0,
    "explicit_correction": -1.0,
}
LEARN_COUNTS = wire.LEARN_COUNTS
__all__ = ["Capturing", "Learned", "ReinforceResult", "Reinforcement", "prompt_key", "reinforcements"]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Learned:
    """The result of one ``learn``. ``counts`` holds every key of :data:`LEARN_COUNTS`."""

    origin: str
    format: str
    extractor: str
    dry_run: bool
    counts: dict[str, int]
    claims: tuple[ClaimSpec, ...]  # what the extractor proposed (replaces resolved to ids or #N)
    problems: tuple[Problem, ...]
    rejected: tuple[str, ...]
    events: tuple[Event, ...] = ()
    applied: tuple[Applied, ...] = ()

    def to_dict(self) -> wire.LearnDoc:
        """The wire form (``learn --json``)."""
        return wire.learned(origin=self.origin, format=self.format, extractor=self.extractor, dry_run=self.dry_run,
                            counts=self.counts, claims=self.claims, problems=self.problems, rejected=self.rejected,
                            events=self.events)


@dataclass(frozen=True, slots=True)
class Reinforcement:
    memory: str
    outcome: str
    weight: float
    at: datetime
    event: str
    source: str | None = None
    session: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, object]:
        """A plain JSON form (times as ISO-8601 UTC)."""
        return {"memory": self.memory, "outcome": self.outcome, "weight": self.weight, "at": format_time(self.at),
                "event": self.event, "source": self.source, "session": self.session, "note": self.note}


@dataclass
class _Plan:
    batches: list[Batch] = field(default_factory=list)
    links: list[tuple[int, int]] = field(default_factory=list)  # (correcting claim, corrected claim) global indexes


class Capturing(Part):
    def __init__(self, scope, ingesting: Ingesting, learning: Learning, relations: Relations) -> None:
        super().__init__(scope)
        self._ingesting = ingesting
        self._learning = learning
        self._relations = relations

    # -- learn -----------------------------------------------------------------------

    def learn(
        self,
        path: str | os.PathLike[str],
        *,
        format: str = "auto",
        extractor_name: str = "rules",
        origin: str | None = None,
        dry_run: bool = False,
        progress: Progress | bool | None = None,
        model_settings: dict | None = None,
        data: dict | None = None,
        injected: Mapping[str, Sequence[str]] | None = None,
    ) -> Learned:
        # ``data`` is kept in the episodes' event beside the learn note (the archive's link).
        # ``injected``: a host's ledger, prompt_key(prompt) -> ids of the memories recalled
        # for that prompt; with it, a user turn's reaction to the answer is linked to them.
        model = self._extractor(extractor_name, model_settings)
        transcript = _storable(self._read(path, format))
        place = clean_origin(origin if origin is not None else (transcript.name or Path(path).stem or "transcript"))
        with self.store.snapshot() as view:
            present = view.episode_source_ids(self.space, place)
            undone = self._undone_chunks(view, place) if present else []
        new = [t for t in transcript.turns if t.id not in present]
        by_id = {t.id: t for t in transcript.turns}
        # Turns stored by an earlier learn whose claims were undone since: read again, in the
        # very chunks they were read in, so their batches get their old source ids back.
        again = [chunk for chunk in ([by_id[i] for i in ids if i in by_id] for ids in undone) if chunk]
        limit = min(MAX_SOURCE_TEXT, int(getattr(model, "max_source_chars", MAX_SOURCE_TEXT)))
        fresh = _chunks([t for t in new if t.speaker.lower() in USER_SPEAKERS], limit)
        chunks = again + fresh
        report = _progress(progress, len(new))
        total = sum(len(c) for c in chunks)
        if report:
            report("extract", 0, total)
        method = _method(model)
        groups, rejected = self._propose(model, chunks, place, method)
        proposed = [c for _, group in groups for c in group]
        if report:
            report("extract", total, total)
        plan = _split(groups)
        counts = dict.fromkeys(LEARN_COUNTS, 0)
        counts.update(skipped_turns=len(transcript.turns) - len(new), problems=len(transcript.problems),
                      rejected=len(rejected), corrections=sum(1 for c in proposed if c.replaces))
        claims = tuple(proposed)
        if dry_run or not (new or again):
            return Learned(place, transcript.format, model.name, dry_run, {**counts, "episodes": len(new) if dry_run else 0},
                           claims, transcript.problems, tuple(rejected))
        # What the episodes' event notes: which batches read which turns (of this run's new turns).
        marks = [{"sources": [b.source.id for b in plan.batches if _part_of(b.source.id, source.id)],
                  "turns": [t.id for t in chunk]} for (source, _), chunk in zip(groups[len(again):], fresh, strict=True)]
        return self._write(transcript, new, place, model.name, plan, counts, claims, rejected, report,
                           {**(data or {}), "learn": {"origin": place, "chunks": marks}}, injected or {})

    def _undone_chunks(self, view, place: str) -> list[list[str]]:
        """Turn ids of every chunk an earlier learn of ``place`` read whose batch was
        applied and has been undone since, while its episodes still stand."""
        events = view.events(self.space)  # one read of the log; a re-learn of a long origin reads it once
        undone = undone_ids(events)
        applies: dict[str, list[str]] = {}  # batch source id -> the events that applied it
        for event in events:
            source = event.data.get("source")
            if isinstance(source, str) and event.reason.startswith("apply "):
                applies.setdefault(source, []).append(event.id)
        found = []
        for event in reversed(events):  # oldest first: chunks come back in the order they were read
            mark = event.data.get("learn")
            if not isinstance(mark, dict) or mark.get("origin") != place or event.id in undone:
                continue
            for chunk in mark.get("chunks", []):
                # Undone: some batch of the chunk was applied, and every apply of it undone
                # (the rule of `applied_and_standing`, on the log read once).
                ids = [applies[s] for s in chunk.get("sources", []) if s in applies]
                if any(all(i in undone for i in applied) for applied in ids):
                    found.append([str(i) for i in chunk.get("turns", [])])
        return found

    def _write(self, transcript: Transcript, new: list[Turn], place: str, name: str, plan: _Plan, counts: dict,
               claims: tuple[ClaimSpec, ...], rejected: list[str], report: Progress | None, note: dict,
               injected: Mapping[str, Sequence[str]]) -> Learned:
        """Claims first, then episodes. Each batch's source id is derived from the turns it
        was read from, so a run that failed part-way is finished by running it again: a
        batch that already stands is not applied twice, and the turns whose episodes were
        not yet stored are still new."""
        events: list[Event] = []
        applied: list[Applied] = []
        landed: list[tuple[str, str, str]] = []  # per claim, in order: (outcome, record id, reason)
        sources: list[str] = []  # per claim, in order: the batch source it was applied from
        for batch in plan.batches:
            if not batch.claims:
                continue
            sources += [batch.source.id] * len(batch.claims)
            if self._standing(batch.source.id):
                landed += [("already-applied", "", "")] * len(batch.claims)
                continue
            result = self._learning.apply(batch, succession=True)
            applied.append(result)
            for key in counts:
                if key in result.counts:
                    counts[key] += result.counts[key]
            landed += [(o.outcome, o.id, o.reason) for o in result.outcomes]
            if result.event is not None:
                events.append(result.event)
        if new:
            conversation = Conversation(place, tuple(new), turns_digest(new))
            ingest_progress = (lambda done, total: report("episodes", done, total)) if report else False
            ingested = self._ingesting.ingest_conversation(conversation, place, actor=Actor.SYSTEM,
                                                           progress=ingest_progress, label=transcript.format, data=note)
            if ingested.event:
                events.insert(0, ingested.event)
            counts["episodes"] = ingested.episodes
        created = {o.id for r in applied for o in r.outcomes if o.outcome == "added"}
        link_event = self._link(plan.links, landed)
        if link_event is not None:
            events.append(link_event)
        session = transcript.name or place
        reinforced, corrected = self._reinforcements(claims, landed, created, sources, session)
        if injected:
            reinforced += self._signals(transcript, {t.id for t in new}, injected, session, corrected)
        counts["reinforcements"] = len(reinforced)
        events += reinforced
        if report:
            report("done", 1, 1)
        return Learned(place, transcript.format, name, False, counts, claims, transcript.problems, tuple(rejected),
                       tuple(events), tuple(applied))

    def _standing(self, source_id: str) -> bool:
        with self.store.snapshot() as view:
            if view.get_source(self.space, source_id) is None:
                return False
            return applied_and_standing(view, self.space, source_id)

    def _read(self, path: str | os.PathLike[str], format: str) -> Transcript:
        # Imported when used (as are the extractors): a `cairn recall` process per prompt
        # should not pay for the transcript readers.
        from ..learn.transcripts import FORMATS, read_transcript

        if format not in FORMATS:
            raise InvalidInput("format", f"{format!r} (one of: {', '.join(FORMATS)})")
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InvalidInput("file", f"cannot read {str(path)!r}: {getattr(err, 'strerror', None) or err}") from None
        try:
            transcript = read_transcript(text, format, default_time=self.now())
        except TurnError as err:
            raise InvalidInput(f"learn {err.where}", err.reason) from None
        future = [t.id for t in transcript.turns if t.time > self.now()]
        if future:
            raise InvalidInput("learn", f"turn {future[0]} lies after now: evidence cannot come from the future")
        return transcript

    def _extractor(self, name: str, settings: dict | None) -> Extractor:
        from ..learn.extractors import extractor

        if name == "model" and settings:
            # Imported here: the HTTP client costs start-up time every other command would pay.
            from ..learn.extractors.model import ModelExtractor

            return ModelExtractor.configured(**settings)
        return extractor(name)

    def _propose(self, model: Extractor, chunks: list[list[Turn]], place: str,
                 method: Method) -> tuple[list[tuple[SourceSpec, list[ClaimSpec]]], list[str]]:
        """The claims of the user turns, read chunk by chunk (a source text has a size limit),
        numbered across chunks, ``#N`` references included."""
        from ..learn.extractors import Candidate, extract_turns

        groups: list[tuple[SourceSpec, list[ClaimSpec]]] = []
        claims: list[ClaimSpec] = []
        rejected: list[str] = []
        for chunk in chunks:
            source = _source(chunk, place, method)
            mentioned = self._learning.mentioned_by(_wire(source), succession=True)
            candidates = [Candidate(m.id, m.kind, m.content) for m in mentioned]
            proposal = extract_turns(model, source, [t.text for t in chunk], candidates)
            rejected += proposal.rejected
            kinds = {c.ref: c.kind for c in candidates}
            group = _numbered(proposal.batch.claims, len(claims), rejected, kinds)
            claims += group
            groups.append((source, group))
        return groups, rejected

    def _link(self, links: list[tuple[int, int]], landed: list[tuple[str, str, str]]) -> Event | None:
        """Declare ``corrects`` for corrections of a statement made earlier in the same source."""
        pairs = []
        for newer, older in links:
            if newer < len(landed) and older < len(landed):
                (new_outcome, new_id, _), (_, old_id, _) = landed[newer], landed[older]
                if new_outcome == "added" and new_id != old_id:
                    pairs.append((new_id, old_id))
        if not pairs:
            return None
        with self.scope.mutation(Actor.SYSTEM, f"learn: {len(pairs)} correction(s) within one source") as m:
            for new_id, old_id in pairs:
                newer_record = m.tx.get_memory(self.space, new_id)
                if newer_record is None:
                    continue
                m.put_relation(None, self._relations.checked_relation(m.tx, newer_record, Role.CORRECTS, old_id))
        return m.event

    def _reinforcements(self, claims: Sequence[ClaimSpec], landed, created: set[str], sources: Sequence[str],
                        session: str) -> tuple[list[Event], set[str]]:
        """Explicit user signals on records held before this run, and the records an
        explicit correction was recorded on. Keyed by the batch they were applied from:
        a batch applied again after an undo records nothing twice."""
        out = []
        corrected: set[str] = set()
        for claim, (outcome, record, _), source in zip(claims, landed, sources, strict=False):
            if record in created:
                continue
            if claim.replaces and not claim.replaces.startswith("#") and outcome in ("replaced", "withheld"):
                corrected.add(claim.replaces)
                out.append(self._reinforce_once(claim.replaces, "explicit_correction", source, session,
                                                "corrected in a learned transcript"))
            elif outcome in ("duplicate", "reaffirmed") and not claim.replaces:
                target = self.store.get_memory(self.space, record)
                if target is not None and target.active:
                    out.append(self._reinforce_once(record, "explicit_reinforcement", source, session,
                                                    "stated again in a learned transcript"))
        return [e for e in out if e is not None], corrected

    def _signals(self, transcript: Transcript, new: set[str], injected: Mapping[str, Sequence[str]], session: str,
                 corrected: set[str]) -> list[Event]:
        """Reinforcement events from the user's reactions to an answer (see docs/learning.md).

        For each new user turn, the memories recalled for the user turn just before it (the
        host's ledger, by prompt key) are what the answer in between stood on. The turn
        says it worked (+0.2), approves it (+1.0), or corrects one of them (-1.0); each is
        recorded on the one memory it concerns, or on none. Keyed by the session and the
        turn id: a replay, even under another origin, records nothing twice."""
        out: list[Event] = []
        previous: Turn | None = None
        replies: list[str] = []  # the assistant's words since the previous user turn
        for turn in transcript.turns:
            if turn.speaker.lower() not in USER_SPEAKERS:
                replies.append(turn.text)
                continue
            ids = injected.get(prompt_key(previous.text), ()) if previous is not None else ()
            if turn.id in new and ids:
                event = self._signal(turn, list(ids), replies, f"{session}/{turn.id}", session, corrected)
                if event is not None:
                    out.append(event)
            previous, replies = turn, []
        return out

    def _signal(self, turn: Turn, ids: list[str], replies: list[str], key: str, session: str,
                corrected: set[str]) -> Event | None:
        from ..learn.extractors import Candidate
        from ..learn.extractors.rules import correction_target, read_turn
        from ..learn.signals import read_signal

        found = self.store.get_memories(self.space, ids)
        held = [found[i] for i in dict.fromkeys(ids) if i in found and found[i].active and found[i].kind is not Kind.EPISODE]
        candidates = [Candidate(m.id, m.kind, m.content) for m in held]
        if not candidates:
            return None
        outcome = read_signal(turn.text)
        if outcome is not None:
            # Seed 003: one memory linked to the outcome. One recalled: that one; several:
            # the one the answer (and the reaction) clearly repeats, else none.
            target = candidates[0].ref if len(candidates) == 1 else correction_target(
                "\n".join([*replies, turn.text]), None, candidates)
            note = "the answer it stood on worked" if outcome == "implicit_success" else "the user approved the answer"
            return self._reinforce_once(target, outcome, key, session, note, at=turn.time) if target else None
        for statement in read_turn(turn.text):
            if not statement.correction:
                continue
            # A correction of what was recalled: the one memory whose terms it repeats.
            target = correction_target(turn.text, statement.kind, candidates)
            if target is not None and target not in corrected:
                corrected.add(target)
                return self._reinforce_once(target, "explicit_correction", key, session,
                                            "the user corrected what was recalled", at=turn.time)
        return None

    def _reinforce_once(self, memory_id: str, outcome: str, source: str, session: str, note: str,
                        at: datetime | None = None) -> Event | None:
        """:meth:`reinforce`, unless the same outcome from the same source is already on the record."""
        held = self.reinforcements(memory_id)
        if any(r.outcome == outcome and r.source == source for r in held):
            return None
        return self.reinforce(memory_id, outcome, source=source, session=session, note=note, at=at,
                              actor=Actor.SYSTEM).event

    # -- reinforcement ---------------------------------------------------------------

    def reinforce(self, ref: str, outcome: str, *, source: str | None = None, session: str | None = None,
                  note: str | None = None, at: datetime | str | None = None, neutral: bool = False,
                  actor: Actor = Actor.MANUAL) -> ReinforceResult:
        if outcome not in OUTCOMES:
            raise InvalidInput("outcome", f"{outcome!r} (one of: {', '.join(OUTCOMES)})")
        if outcome == "neutral_exposure" and not neutral:
            return ReinforceResult(False, "neutral-exposure-off")
        if outcome == "neutral_exposure" and not session:
            # Counted at most once per record per session: without a session it cannot be.
            raise InvalidInput("session", "neutral_exposure needs the session it was seen in (once per record per session)")
        when = as_time(at, "at") or self.now()
        if when > self.now():
            raise InvalidInput("at", "a reinforcement cannot come from the future")
        for name, value in (("source", source), ("session", session), ("note", note)):
            if value is not None and (not isinstance(value, str) or len(value) > 500 or "\x00" in value):
                raise InvalidInput(name, "must be a string of at most 500 characters")
        memory_id = self.scope.resolve_id(ref)
        with self.scope.mutation(actor, f"reinforce {outcome}") as m:
            memory = m.tx.get_memory(self.space, memory_id)
            if memory is None or memory.purged_at is not None:
                raise Refused(f"memory {memory_id} is purged or unreadable")
            if memory.kind is Kind.EPISODE:
                raise Refused(f"memory {memory_id} is an episode: reinforcement concerns claims")
            if outcome == "neutral_exposure" and _exposed(m.tx.events(self.space, record_id=memory_id), session):
                return ReinforceResult(False, "neutral-exposure-once-per-session")
            # The event belongs to the record's history: its snapshot, unchanged.
            m.changes.append(_unchanged(memory))
            m.data["reinforcement"] = {
                "memory": memory_id, "outcome": outcome, "weight": OUTCOMES[outcome], "at": when.isoformat(),
                "source": redact_text(source) if source else None, "session": redact_text(session) if session else None,
                "note": redact_text(note) if note else None,
            }
        return ReinforceResult(True, "recorded", m.event)

    def reinforcements(self, ref: str) -> list[Reinforcement]:
        memory_id = self.scope.resolve_id(ref)
        return reinforcements(self.store.events(self.space, record_id=memory_id, newest_first=False), memory_id)


@dataclass(frozen=True, slots=True)
class ReinforceResult:
    recorded: bool
    reason: str  # recorded | neutral-exposure-off | neutral-exposure-once-per-session
    event: Event | None = None

    def to_dict(self) -> wire.ReinforceDoc:
        """The wire form (``reinforce --json``)."""
        return wire.reinforced(recorded=self.recorded, reason=self.reason, event=self.event)


def reinforcements(events: Sequence[Event], memory_id: str | None = None) -> list[Reinforcement]:
    """The reinforcement events among ``events`` (of one record when ``memory_id`` is given),
    skipping those undone."""
    undone = {e.data.get("undoes") for e in events}
    out = []
    for event in events:
        data = event.data.get("reinforcement")
        if not isinstance(data, dict) or event.id in undone:
            continue
        if memory_id is not None and data.get("memory") != memory_id:
            continue
        out.append(Reinforcement(data["memory"], data["outcome"], float(data["weight"]), datetime.fromisoformat(data["at"]),
                                 event.id, data.get("source"), data.get("session"), data.get("note")))
    return out


def _exposed(events: Sequence[Event], session: str | None) -> bool:
    """Whether a standing (not undone) neutral exposure of this session is recorded."""
    undone = {e.data.get("undoes") for e in events}
    return any((e.data.get("reinforcement") or {}).get("outcome") == "neutral_exposure"
               and (e.data.get("reinforcement") or {}).get("session") == redact_text(session or "")
               and e.id not in undone for e in events)


def _unchanged(memory: Memory):
    from ..model import Change, memory_to_dict

    snapshot = memory_to_dict(memory)
    return Change("memory", memory.id, snapshot, snapshot)


# -- helpers ----------------------------------------------------------------------------------


def _storable(transcript: Transcript) -> Transcript:
    """The transcript without turns too long to be stored as an episode, each reported as
    a problem: a pasted log must not block the rest of the conversation."""
    from ..learn.transcripts import Problem

    too_long = [t for t in transcript.turns
                if max(len(t.text.strip()), len(redact_text(t.text.strip()))) > LIMITS.episode_max]
    if not too_long:
        return transcript
    problems = tuple(Problem(f"turn {t.id}", f"longer than {LIMITS.episode_max} characters; not stored") for t in too_long)
    dropped = {t.id for t in too_long}
    kept = tuple(t for t in transcript.turns if t.id not in dropped)
    return replace(transcript, turns=kept, problems=transcript.problems + problems)


def _chunks(turns: list[Turn], limit: int = MAX_SOURCE_TEXT) -> list[list[Turn]]:
    """Consecutive user turns whose joined text fits one source (and the extractor's
    ``max_source_chars``, when it declares one: a model's context is smaller)."""
    chunks: list[list[Turn]] = []
    size = 0
    for turn in turns:
        length = len(turn.text) + 2
        if not chunks or size + length > limit:
            chunks.append([])
            size = 0
        chunks[-1].append(turn)
        size += length
    return chunks


def _source(turns: list[Turn], place: str, method: Method) -> SourceSpec:
    digest = hashlib.sha256("\n".join([place, *(t.id for t in turns)]).encode("utf-8")).hexdigest()
    text = "\n\n".join(t.text for t in turns)[:MAX_SOURCE_TEXT]
    at = max(t.time for t in turns)
    return SourceSpec(f"learn-{digest[:24]}", text, SourceKind.CONVERSATION, Basis.USER_STATEMENT, method, at, place)


def _numbered(proposed: Sequence[ClaimSpec], offset: int, rejected: list[str],
              kinds: dict[str, Kind] | None = None) -> list[ClaimSpec]:
    """A chunk's claims numbered after ``offset``, ``#N`` references renumbered alike. A
    claim breaking a content limit is left out here, with its reason, rather than refused
    by the batch: one over-long proposal must not block the rest of a transcript on every
    run. A correction of a claim left out names nothing."""
    # (`named` below: a batch refuses two claims replacing one record.)
    kept: list[ClaimSpec] = []
    moved: dict[int, int] = {}  # index in the proposal -> index in the run
    named: dict[str, int] = {}  # stored record -> the claim of this chunk that replaces it
    for claim in proposed:
        try:
            clean_content(claim.content, claim.kind)
            clean_aliases(claim.aliases)
        except InvalidInput as err:
            rejected.append(f"claim {offset + len(kept)} ({claim.kind.value}): {err.reason}")
            continue
        held = (kinds or {}).get(claim.replaces or "")
        if held is not None and held is not claim.kind:
            # A batch refuses a change of kind; left out here, so the rest still applies.
            rejected.append(f"claim {offset + len(kept)} ({claim.kind.value}): replaces a {held.value} record")
            continue
        ref = claim.replaces
        if ref is not None and ref.startswith("#"):
            target = moved.get(int(ref[1:]))
            ref = None if target is None else f"#{target}"
        elif ref is not None and ref in named:
            # Corrected twice in one chunk: a batch names a record once, so the later
            # correction corrects the earlier one (which holds the record by then).
            ref = f"#{named[ref]}"
        elif ref is not None:
            named[ref] = offset + len(kept)
        moved[claim.index] = offset + len(kept)
        kept.append(replace(claim, index=offset + len(kept), replaces=ref))
    return kept


def _method(model: Extractor) -> Method:
    """The evidence method of an extractor's claims: what it declares (``method = "local"``
    for rules that run here), else ``model`` — a plug-in Cairn cannot vouch for is not
    taken for a local rule."""
    declared = getattr(model, "method", Method.MODEL)
    return Method.LOCAL if declared in (Method.LOCAL, "local") else Method.MODEL


def _part_of(batch_id: str, chunk_id: str) -> bool:
    """Whether a batch's source id is the chunk's, or one of its parts (``-2``, ``-3`` …)."""
    return batch_id == chunk_id or (batch_id.startswith(chunk_id + "-") and batch_id[len(chunk_id) + 1:].isdigit())


def _wire(source: SourceSpec) -> dict:
    return {"id": source.id, "text": source.text, "kind": source.kind.value, "basis": source.basis.value,
            "method": source.method.value, "at": source.at.isoformat() if source.at else None, "origin": source.origin}


def _split(groups: list[tuple[SourceSpec, list[ClaimSpec]]]) -> _Plan:
    """One batch per chunk of the source, split again at MAX_CLAIMS claims (the parts'
    source ids end in ``-2``, ``-3`` …). A ``#N`` reference becomes an addition plus a
    ``corrects`` link, declared once both records exist."""
    plan = _Plan()
    for source, claims in groups:
        plain = []
        for claim in claims:
            if claim.replaces and claim.replaces.startswith("#"):
                plan.links.append((claim.index, int(claim.replaces[1:])))
                claim = replace(claim, replaces=None)
            plain.append(claim)
        parts = [plain[i:i + MAX_CLAIMS] for i in range(0, len(plain), MAX_CLAIMS)] or [[]]
        for number, part in enumerate(parts, 1):
            spec = source if number == 1 else replace(source, id=f"{source.id}-{number}")
            plan.batches.append(Batch(spec, tuple(replace(c, index=i) for i, c in enumerate(part))))
    return plan


def _progress(progress, total: int) -> Progress | None:
    return chosen(progress, total, lambda: staged_bars("learn", {"extract": "user turns", "episodes": "turns"}),
                  minimum=500)


