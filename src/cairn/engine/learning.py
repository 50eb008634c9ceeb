"""Consolidation batches, literal corrections and explicit feedback (see docs/evidence.md).

* :meth:`Learning.apply` — one batch, one transaction, one event. The host assigns
  the evidence from the batch's source (basis, method, source id, time), never from the
  claims; the engine chooses the records the source mentions; the authority policy
  decides each replacement; mentioned records left standing are confirmed (``reinforced_at``,
  no event).
* :meth:`Learning.correct` — a literal manual correction (manual_correction/manual
  evidence, feedback cleared, aliases kept unless dropped); undo restores the exact prior record.
* :meth:`Learning.feedback` — an explicit verdict with a replay-safe receipt.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime

from .. import wire
from ..errors import InvalidInput, Refused
from ..learn.batch import Batch, ClaimSpec, SourceSpec, load_batch, parse_batch, parse_source
from ..learn.consolidate import ClaimOutcome, Context, Plan, fingerprint, may_mention, plan_batch, select_mentioned
from ..model import (
    NO_FEEDBACK,
    Actor,
    Basis,
    Event,
    Evidence,
    Feedback,
    Kind,
    Memory,
    Method,
    Relation,
    Role,
    Source,
    Status,
    Verdict,
    VerdictSlot,
    source_to_dict,
)
from ..policy import feedback as verdicts
from ..policy.aging import confirmation_anchor
from ..policy.authority import Incoming, may_correct
from ..store import ReadView, WriteTx, content_hash
from ..text import content_terms
from .labelling import batch_labels, label_plan, require
from .mutation import Mutation, new_id
from .scope import MIN_PREFIX, Part
from .validate import as_time, choice, clean_aliases, clean_content, clean_origin, redact_text

ACTOR_OF_METHOD = {Method.MODEL: Actor.MODEL, Method.AGENT: Actor.AGENT, Method.MANUAL: Actor.MANUAL, Method.LOCAL: Actor.SYSTEM}
COUNT_KEYS = wire.APPLY_COUNTS  # the counts an apply reports, as its wire document lists them


@dataclass(frozen=True, slots=True)
class Applied:
    """The result of one batch. ``counts`` holds every key of :data:`COUNT_KEYS`."""

    event: Event | None  # None when no record changed (confirmations write no event)
    source: str
    counts: dict[str, int]
    outcomes: list[ClaimOutcome]
    mentioned: list[str]  # the records the source mentions: what its claims may replace

    def to_dict(self) -> wire.ApplyDoc:
        """The wire form (``apply --json``)."""
        return wire.applied(self.event, source=self.source, counts=self.counts, claims=self.outcomes,
                            candidates=self.mentioned)
    confirmed: list[str]


@dataclass(frozen=True, slots=True)
class Corrected:
    memory: Memory
    event: Event

    @property
    def id(self) -> str:
        """The id of the record corrected (a correction keeps the id)."""
        return self.memory.id

    def to_dict(self) -> wire.CorrectDoc:
        """The wire form (``correct --json``)."""
        return wire.corrected(self.memory, self.event)


@dataclass(frozen=True, slots=True)
class FeedbackResult:
    applied: bool
    reason: str  # applied | repeated | one of policy.feedback.IGNORE_REASONS
    event: Event | None = None
    quarantined: tuple[str, ...] = ()

    def to_dict(self) -> wire.FeedbackDoc:
        """The wire form (``feedback --json``)."""
        return wire.feedback(applied=self.applied, reason=self.reason, event=self.event, quarantined=self.quarantined)


class Learning(Part):
    # -- batches -------------------------------------------------------------------------

    def apply(self, batch: Batch | dict | str, *, succession: bool = False) -> Applied:
        """Apply one consolidation batch (a :class:`Batch`, its wire dict, or JSON text).

        With ``succession`` (``cairn learn``), a replacement the authority policy allows is
        written as a new record declared to correct the old one, in the same event (see
        :mod:`cairn.learn.consolidate`), so that recall marks it ``corrected``.

        Refused with :class:`InvalidInput` / :class:`Refused` and nothing written when the
        batch is malformed, a claim breaks a limit, ``replaces`` names a record outside the
        candidate set, two claims name one record, or a claim tries to change kind.
        """
        if isinstance(batch, str):
            batch = load_batch(batch)
        elif not isinstance(batch, Batch):
            batch = parse_batch(batch)
        require(self.scope, batch_labels(batch))
        now = self.now()
        source = self._clean_source(batch.source, now)
        claims = [self._clean_claim(c) for c in batch.claims]
        reason = f"apply {source.kind.value} {source.id}"
        with self.scope.mutation(ACTOR_OF_METHOD[source.method], reason) as m:
            if m.tx.get_source(self.space, source.id) is not None and applied_and_standing(m.tx, self.space, source.id):
                raise Refused(f"source {source.id!r} was already applied; a new source needs a new id")
            said = self._mentioned(m.tx, source)
            mentioned = _heads(m.tx, self.space, said) if succession else said
            claims = [self._resolve_target(m.tx, c, mentioned, source.origin) for c in claims]
            incoming = Incoming(Evidence(source.basis, source.method, source.id, source.at), source.kind)
            ctx = Context(self.space, source.origin, incoming, now, new_id, succession)
            plan = plan_batch(claims, mentioned, self._standing(m.tx, claims, source.origin), ctx)
            if succession:
                # A chain's head offered for an older record the source mentions is not
                # confirmed by that mention: only what the source itself repeats is.
                plan.confirm = [i for i in plan.confirm if i in {s.id for s in said}]
            label_plan(plan, batch)
            counts, confirmed = self._write_plan(m, plan, source)
            m.tx.put_source(self.space, source_to_dict(_source_value(self.space, source, batch.source.text)))
        return Applied(m.event, source.id, counts, plan.outcomes, [c.id for c in mentioned], confirmed)

    def _write_plan(self, m: Mutation, plan: Plan, source: SourceSpec) -> tuple[dict[str, int], list[str]]:
        """Write the planned changes, then the confirmations (after: a record this batch
        changed is confirmed on top of that change), and describe both in the event."""
        for before, after in plan.writes.values():
            m.put(before, after)
        for newer, older in plan.corrects:
            # The newer record is this batch's own: no relation of it exists yet, so
            # neither a duplicate nor a cycle can be declared here.
            m.put_relation(None, Relation(new_id(), self.space, newer, Role.CORRECTS, older, self.now()))
        assert source.at is not None  # set by _clean_source
        confirmed = self._confirm(m.tx, plan.confirm, source.at)
        counts = {**dict.fromkeys(COUNT_KEYS, 0), **plan.counts, "confirmed": len(confirmed)}
        outcomes = [wire.claim_outcome(o) for o in plan.outcomes]
        m.data.update(counts, source=source.id, withheld_reasons=plan.withheld_reasons, claims=outcomes)
        if plan.corrects:
            m.data["corrects"] = [list(pair) for pair in plan.corrects]
        if counts["withheld"]:
            m.reason += f"; weaker replacements withheld={counts['withheld']}"
        return counts, confirmed

    def _standing(self, tx: WriteTx, claims: list[ClaimSpec], origin: str) -> dict:
        """(kind, fingerprint) -> the origin's records already holding that text."""
        standing: dict = {}
        for claim in claims:
            key = (claim.kind, fingerprint(claim.content))
            if key not in standing:
                found = tx.memories_with_hash(self.space, origin, content_hash(claim.content))
                standing[key] = [s for s in found if s.kind is claim.kind]
        return standing

    def mentioned_by(self, source: object, *, succession: bool = False) -> list[Memory]:
        """The records a source would be offered (read-only): what ``replaces`` may name."""
        spec = self._clean_source(parse_source(source), self.now())
        said = self._mentioned(self.store, spec)
        return _heads(self.store, self.space, said) if succession else said

    def _mentioned(self, view: ReadView, source: SourceSpec) -> list[Memory]:
        """Prefilter with the full-text index (a mentioned record shares at least one term
        with the source, and its indexed terms bound its containment), then measure
        containment exactly on the few rows that may qualify. (With ``succession``, a
        mentioned record that a live record corrects stands for the head of its chain.)"""
        terms = sorted(set(content_terms(source.text)))
        source_terms = frozenset(terms)
        rows = view.mentioning(self.space, source.origin, terms)
        ids = {i for i, indexed in rows if may_mention(indexed, source_terms)}
        found = view.get_memories(self.space, sorted(ids)).values()
        return select_mentioned(found, text=source.text, origin=source.origin, source_kind=source.kind)

    def _clean_source(self, spec: SourceSpec, now: datetime) -> SourceSpec:
        at = spec.at or now
        if at > now:
            raise InvalidInput("source.at", f"{at.isoformat()} lies after now: evidence cannot come from the future")
        return replace(spec, id=redact_text(spec.id), origin=clean_origin(spec.origin), at=at)

    def _clean_claim(self, claim: ClaimSpec) -> ClaimSpec:
        where = f"claims[{claim.index}]"
        try:
            content = clean_content(claim.content, claim.kind)
        except InvalidInput as err:
            raise InvalidInput(f"{where}.content", err.reason) from None
        try:
            aliases = clean_aliases(claim.aliases)
        except InvalidInput as err:
            raise InvalidInput(f"{where}.aliases", err.reason) from None
        return replace(claim, content=content, aliases=aliases)

    def _resolve_target(self, tx: WriteTx, claim: ClaimSpec, mentioned: list[Memory], origin: str) -> ClaimSpec:
        """``replaces`` must name one of the mentioned records (full id or unique prefix ≥6)."""
        ref = claim.replaces
        if ref is None:
            return claim
        field = f"claims[{claim.index}].replaces"
        ids = [c.id for c in mentioned]
        matches = [i for i in ids if i == ref] or ([i for i in ids if i.startswith(ref)] if len(ref) >= MIN_PREFIX else [])
        if len(matches) == 1:
            return replace(claim, replaces=matches[0])
        if len(matches) > 1:
            raise InvalidInput(field, f"prefix {ref!r} matches several candidates")
        found = tx.ids_with_prefix("memories", self.space, ref, limit=2) if len(ref) >= MIN_PREFIX else []
        record = tx.get_memory(self.space, found[0]) if len(found) == 1 else None
        if record is None:
            raise InvalidInput(field, f"no memory {ref!r} in this space")
        if record.origin != origin:
            raise InvalidInput(field, f"{record.id} belongs to origin {record.origin!r}, not the source's {origin!r}")
        if not record.active:
            raise InvalidInput(field, f"{record.id} is {record.status.value}: only active records may be replaced")
        raise InvalidInput(field, f"{record.id} is not among the records this source mentions (its candidates)")

    def _confirm(self, tx: WriteTx, ids: list[str], at: datetime) -> list[str]:
        """Move ``reinforced_at`` forward on mentioned records left standing. Not a change: no
        event, no revision, and never backwards; pinned records already have freshness 1."""
        moved = []
        for memory_id in ids:
            current = tx.get_memory(self.space, memory_id)
            if current is None or not current.active or current.pinned or at <= confirmation_anchor(current):
                continue
            tx.put_memory(replace(current, reinforced_at=at))
            moved.append(memory_id)
        return moved

    # -- literal correction ----------------------------------------------------------

    def correct(self, ref: str, text: str, *, drop_aliases: bool = False) -> Corrected:
        """Replace a record's text with the user's literal correction (priority 4).

        Feedback is cleared (it judged the old text); aliases are kept (they name the
        subject, which a correction rarely changes) unless ``drop_aliases``; the record
        keeps its id, layer and validity. A quarantined (conflicted) record may be corrected:
        that is one of the ways out. Forgotten, retired, purged records and episodes are
        refused.
        """
        memory = self.scope.get(ref)
        content = clean_content(text, memory.kind)
        with self.scope.mutation(Actor.MANUAL, "correct") as m:
            current = m.tx.get_memory(self.space, memory.id)
            if current is None or current.purged_at is not None:
                raise Refused(f"memory {memory.id} is purged or unreadable")
            if current.kind is Kind.EPISODE:
                raise Refused(f"memory {memory.id} is an episode: episodes are verbatim and never corrected")
            if current.status in (Status.FORGOTTEN, Status.RETIRED):
                raise Refused(f"memory {memory.id} is {current.status.value}; undo that first")
            now = self.now()
            refusal = may_correct(current, now)
            if refusal:
                raise Refused(f"correction of {memory.id} refused: {refusal}")
            action = f"manual-{new_id()}"
            after = replace(
                current,
                content=content,
                aliases=() if drop_aliases else current.aliases,
                feedback=NO_FEEDBACK,
                status=Status.PROVISIONAL,
                evidence=Evidence(Basis.MANUAL_CORRECTION, Method.MANUAL, action, now),
                updated_at=now,
                revision=current.revision + 1,
            )
            m.put(current, after)
            m.data["correction"] = action
        assert m.event is not None  # the record changed, so the event was written
        return Corrected(after, m.event)

    # -- explicit feedback -------------------------------------------------------------

    def feedback(
        self, ref: str, verdict: Verdict | str, source: str | None = None, *, at: datetime | str | None = None
    ) -> FeedbackResult:
        """Record an explicit verdict from ``source`` (default: a fresh manual action id).

        Replay-safe: a second verdict from the same source on the same memory is ignored.
        ``incorrect`` quarantines the record and its exact duplicates in its origin.
        """
        verdict = choice(Verdict, verdict, "verdict")
        memory_id = self.scope.resolve_id(ref)
        source_id = self._clean_feedback_source(source)
        when = as_time(at, "at") or self.now()
        if when > self.now():
            raise InvalidInput("at", "a verdict cannot come from the future")
        with self.scope.mutation(Actor.MANUAL, f"feedback {verdict.value}") as m:
            memory = m.tx.get_memory(self.space, memory_id)
            if memory is None:
                raise Refused(f"memory {memory_id} is unreadable; see `cairn status`")
            decision = verdicts.decide(
                memory,
                verdict,
                source_id=source_id,
                at=when,
                replayed=m.tx.get_receipt(self.space, source_id, memory_id) is not None,
                latest_receipt_at=self._latest_receipt(m.tx, memory_id, verdict.slot),
            )
            match decision:
                case verdicts.Ignore(reason=reason):
                    return FeedbackResult(False, reason)
                case verdicts.Repeat():
                    m.tx.put_receipt(self.space, source_id, memory_id, verdict.value, when)
                    return FeedbackResult(False, "repeated")
                case verdicts.Apply(slot=slot, quarantine=quarantine):
                    quarantined = self._apply_verdict(m, memory, slot, quarantine)
                    m.tx.put_receipt(self.space, source_id, memory_id, verdict.value, when)
                    m.data.update(verdict=verdict.value, source=source_id, quarantined=list(quarantined))
        return FeedbackResult(True, "applied", m.event, quarantined)

    def _apply_verdict(self, m: Mutation, memory: Memory, slot: VerdictSlot, quarantine: bool) -> tuple[str, ...]:
        """Write the slot; on `incorrect` quarantine the record and its exact duplicates
        (same origin, same kind, same normalised text) — never another origin's."""
        targets = [memory]
        if quarantine:
            same = m.tx.memories_with_hash(self.space, memory.origin, content_hash(memory.content))
            targets += [d for d in same if d.id != memory.id and d.kind is memory.kind and d.active]
        for target in targets:
            feedback = _with_slot(target.feedback, slot)
            status = Status.CONFLICTED if quarantine else target.status
            confirmed = target.last_confirmed_at
            if slot.verdict is Verdict.ACCURATE and (confirmed is None or slot.at > confirmed):
                # An `accurate` verdict is an explicit confirmation that the state still holds:
                # it answers a passed checkpoint. It moves no evidence clock.
                confirmed = slot.at
            m.put(
                target,
                replace(target, feedback=feedback, status=status, last_confirmed_at=confirmed, revision=target.revision + 1),
            )
        return tuple(t.id for t in targets) if quarantine else ()

    def _latest_receipt(self, tx: WriteTx, memory_id: str, slot: str) -> datetime | None:
        return tx.latest_receipt(self.space, memory_id, [v.value for v in Verdict if v.slot == slot])

    def _clean_feedback_source(self, source: str | None) -> str:
        if source is None:
            return f"manual-{new_id()}"
        if not isinstance(source, str) or not 1 <= len(source.strip()) <= 200 or any(ord(c) < 32 for c in source):
            raise InvalidInput("source", "must be 1-200 printable characters")
        return redact_text(source.strip())

    def parse_feedback_message(self, text: str) -> verdicts.FeedbackMessage | None:
        """A whole user message that is exactly one verdict statement, else ``None``
        (see :func:`cairn.policy.feedback.parse_message`). Nothing is written."""
        return verdicts.parse_message(text)



def _heads(view: ReadView, space: str, memories: list[Memory]) -> list[Memory]:
    """Each record replaced by the live head of its ``corrects``/``supersedes`` chain (in
    order, once each). Where records are corrected by new records that keep the old ones
    (succession), a correction names the subject's current state, never an older one:
    with both offered, the old and the new text would compete and the correction could
    fork the chain."""
    out: dict[str, Memory] = {}
    for memory in memories:
        head, seen = memory, {memory.id}
        while True:
            newer = [r.from_id for r in view.relations(space, record_id=head.id)
                     if r.to_id == head.id and r.role in (Role.CORRECTS, Role.SUPERSEDES) and r.from_id not in seen]
            live = [m for m in view.get_memories(space, newer).values() if m.active and m.purged_at is None] if newer else []
            if not live:
                break
            head = max(live, key=lambda m: (m.created_at, m.id))
            seen.add(head.id)
        if head.origin == memory.origin and head.kind is not Kind.EPISODE:
            out.setdefault(head.id, head)
    return list(out.values())


def _with_slot(feedback: Feedback, slot) -> Feedback:
    return replace(feedback, **{slot.verdict.slot: slot})


def _source_value(space: str, spec: SourceSpec, raw_text: str) -> Source:
    digest = hashlib.sha256(raw_text.encode("utf-8")).hexdigest()
    assert spec.at is not None  # set by _clean_source
    return Source(spec.id, space, spec.kind, digest, spec.at, spec.origin, spec.basis, spec.method)


def applied_and_standing(tx: ReadView, space: str, source_id: str, events: list[Event] | None = None) -> bool:
    """Whether an event that applied ``source_id`` still stands. An apply that was undone
    (and the undo not itself undone) leaves the source free to be applied again;
    an apply that changed no record wrote no event and stands. Reads the event log, which
    happens only when a source id is met a second time (``events``: the space's events,
    newest first, when the caller has read them already)."""
    if events is None:
        events = tx.events(space)  # newest first
    applied = [e for e in events if e.data.get("source") == source_id and e.reason.startswith("apply ")]
    if not applied:
        return True
    undone = undone_ids(events)
    return any(e.id not in undone for e in applied)


def undone_ids(events: list[Event]) -> set[str]:
    """Ids of events whose effect is currently undone: an undo undoes its target, and
    undoing that undo restores it."""
    state: dict[str, bool] = {}  # event id -> currently undone
    by_id = {e.id: e for e in events}
    for event in reversed(events):  # oldest first
        target = event.data.get("undoes")
        if isinstance(target, str):
            state[target] = True
            # Undoing an undo restores what the first undo reverted.
            inner = by_id.get(target)
            if inner is not None and isinstance(inner.data.get("undoes"), str):
                state[inner.data["undoes"]] = False
    return {i for i, undone in state.items() if undone}
