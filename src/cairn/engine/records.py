"""Record operations of the facade: remember, show, list, forget (and purge), pin,
alias, confirm, history and status.

Rules kept here:

* evidence cannot be later than now: ``remember(at=...)`` in the future is refused, as
  ``apply`` refuses a future source and ``correct`` a record whose evidence is newer;
* dedup within one origin on a normalised form (case, whitespace, trailing punctuation:
  the store's content hash), so a near-duplicate returns the standing record;
* a new claim that shares its subject and attribute with a current record of the same
  kind and origin is stored, and the result names that record in ``similar`` so the caller
  can declare ``supersedes``/``corrects`` (or ask ``replaces_similar``; see :mod:`.similar`);
* ``confirm`` moves the confirmation clock (``reinforced_at``) only: no event, no
  revision, never backwards, never for a project state (whose states go stale silently).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import cast

from .. import wire
from ..errors import InvalidInput, Refused
from ..model import (
    Actor,
    Basis,
    Certainty,
    Event,
    Evidence,
    Kind,
    Layer,
    Memory,
    Method,
    Relation,
    Role,
    Status,
    format_time,
    memory_from_dict,
    memory_to_dict,
)
from ..model.codec import change_from_dict, evidence_problem
from ..policy.aging import confirmation_anchor, freshness
from ..policy.priority import record_priority
from ..recall.rank import rank_factors
from ..store import WriteTx, content_hash
from ..wire import ProblemDoc, StatusDoc
from .bulk import bulk
from .labelling import memory_labels, require
from .mutation import new_id
from .relations import Relations
from .scope import Part, Scope
from .similar import find_similar, replacements
from .trust import Trust
from .validate import as_time, choice, clean_aliases, clean_content, clean_origin, optional_choice, redact_text


@dataclass(frozen=True, slots=True)
class Remembered:
    """The outcome of ``remember``: the record (new, or the one already standing), the
    event written (None when nothing was), and the current records of the same kind and
    origin that the new claim seems to replace (``similar``: a hint, nothing was changed)."""

    memory: Memory
    event: Event | None  # None when identical content already stood in this origin
    deduplicated: bool = False
    similar: tuple[Memory, ...] = ()
    # With replaces_similar: the similar records now superseded, or — when the write
    # policy withholds the replacement — (id, reason) of each that stands, the new claim
    # then stored quarantined (conflicted).
    replaced: tuple[str, ...] = ()
    withheld: tuple[tuple[str, str], ...] = ()

    @property
    def id(self) -> str:
        """The id of the record remembered (or of the one already standing)."""
        return self.memory.id

    def to_dict(self) -> wire.RememberDoc:
        """The wire form (``remember --json``)."""
        return wire.remembered(self.memory, self.event, deduplicated=self.deduplicated, similar=self.similar,
                               replaced=self.replaced, withheld=self.withheld)


@dataclass(frozen=True, slots=True)
class RememberedMany:
    """The outcome of ``remember_many``: one :class:`Remembered` per claim given, in order
    (a deduplicated one holds the record already standing — in the store, or earlier in
    the same call), and the one event written (None when every claim was already stored).

    Unlike ``remember`` it runs no look-alike search (``similar`` is empty: that search
    is a hint for a claim written by hand, and one index query per record) and declares
    no relations; everything else — validation, redaction, labels, dedup — is the same."""

    results: tuple[Remembered, ...]
    event: Event | None

    @property
    def ids(self) -> tuple[str, ...]:
        """The id of each claim's record (new or standing), in order."""
        return tuple(r.id for r in self.results)

    @property
    def added(self) -> int:
        """Records written by this call."""
        return sum(1 for r in self.results if not r.deduplicated)

    def to_dict(self) -> dict[str, object]:
        """The wire form: each claim's ``remember`` document, the count written, the event."""
        return {"results": [r.to_dict() for r in self.results], "added": self.added,
                "event": None if self.event is None else self.event.id}


@dataclass(frozen=True, slots=True)
class TextChange:
    """One event that changed a record's text: a correction, an undo of one, a purge."""

    event: str
    at: datetime
    reason: str
    before: str
    after: str

    def to_dict(self) -> dict[str, str]:
        """The wire form: the event, its time and reason, both texts (bounded excerpts)."""
        return {"event": self.event, "at": format_time(self.at), "reason": self.reason,
                "before": wire.excerpt_text(self.before), "after": wire.excerpt_text(self.after)}


@dataclass(frozen=True, slots=True)
class Confirmed:
    """The outcome of ``confirm``: whether the confirmation clock moved, and why not."""

    memory: Memory
    moved: bool
    reason: str  # "confirmed", or why the clock stayed where it was

    @property
    def id(self) -> str:
        """The id of the record confirmed."""
        return self.memory.id

    def to_dict(self) -> wire.ConfirmDoc:
        """The wire form (``confirm --json``)."""
        return wire.confirmed(self.memory, moved=self.moved, reason=self.reason)


@dataclass(frozen=True, slots=True)
class Quality:
    """How far a record counts at read time: freshness and dormancy (from its age, kind and
    layer), its replacement priority and the ranking weights of its evidence and verdicts."""

    freshness: float
    aging: bool
    dormant: bool
    age_days: float
    confirmed_at: datetime  # the freshness anchor: max(updated_at, reinforced_at)
    reinforced: bool  # later evidence confirmed it (the anchor moved past updated_at)
    priority: int
    evidence_weight: float
    utility: float
    accuracy: float

    def to_dict(self, memory: Memory) -> wire.QualityDoc:
        """The wire form (the ``quality`` of ``show --json``); ``memory`` is the record it
        describes (its evidence basis and method are part of the document)."""
        return wire.quality(self, memory)


@dataclass(frozen=True, slots=True)
class Shown:
    """One record with its read-time quality and every relation touching it."""

    memory: Memory
    quality: Quality
    relations: list[Relation]
    confidence: dict | None = None  # its confidence document (level and grounds)

    @property
    def id(self) -> str:
        """The id of the record shown."""
        return self.memory.id

    def to_dict(self) -> wire.ShowDoc:
        """The wire form (``show --json``)."""
        return wire.shown(self.memory, self.quality, self.relations)


@dataclass(frozen=True, slots=True)
class Page:
    memories: list[Memory]
    page: int
    pages: int
    total: int

    def to_dict(self) -> wire.ListDoc:
        """The wire form (``list --json``)."""
        return wire.memory_page(self.memories, page=self.page, pages=self.pages, total=self.total)


class Records(Part):
    """remember, show, list, forget (and purge), pin/unpin, history, status."""

    def __init__(self, scope: Scope, relations: Relations) -> None:
        super().__init__(scope)
        self.relations = relations  # remember(relates=...) declares relations through it

    def remember(
        self,
        text: str,
        *,
        kind: Kind | str,
        origin: str = "",
        basis: Basis | str = Basis.USER_STATEMENT,
        method: Method | str = Method.MANUAL,
        source: str | None = None,
        at: datetime | str | None = None,
        certainty: Certainty | str | None = None,
        valid_from: datetime | str | None = None,
        valid_to: datetime | str | None = None,
        expected_resolution_at: datetime | str | None = None,
        aliases=(),
        pin: bool = False,
        actor: Actor | str = Actor.MANUAL,
        reason: str | None = None,
        relates: Iterable[tuple[Role | str, str]] | None = None,
        replaces_similar: bool = False,
        topics: Iterable[str] = (),
        entities: Iterable[str] = (),
    ) -> Remembered:
        """Store one claim (or one episode). Identical content in the same origin is not
        stored twice: the standing record is returned instead (episodes excepted).

        ``replaces_similar``: the new claim supersedes the similar records it finds (see
        ``Remembered.similar``) when the write policy lets this evidence replace each of
        them; when it withholds any, nothing is superseded and the new claim is stored
        quarantined (``conflicted``), as a withheld batch variant is.

        ``relates``: ``[(role, older_ref), ...]`` relations declared from this record to
        older ones, written in the same event (checked as ``relate`` checks them; when the
        content was already stored, they are declared from the standing record)."""
        memory = self.new_claim(
            text, kind=kind, origin=origin, basis=basis, method=method, source=source, at=at, certainty=certainty,
            valid_from=valid_from, valid_to=valid_to, expected_resolution_at=expected_resolution_at, aliases=aliases,
            pin=pin, topics=topics, entities=entities)
        kind, content, now = memory.kind, memory.content, memory.created_at
        require(self.scope, [("remember", memory_labels(memory))])
        actor = choice(Actor, actor, "actor")
        links = self.relations.check_relates(relates)
        if replaces_similar and links:
            raise InvalidInput("replaces_similar", "declares relations itself; give it or explicit relations, not both")
        standing = None
        similar: tuple[Memory, ...] = ()
        replaced: tuple[str, ...] = ()
        withheld: tuple[tuple[str, str], ...] = ()
        with self.scope.mutation(actor, reason or f"remember {kind.value}") as m:
            if kind is not Kind.EPISODE:
                found = m.tx.memories_with_hash(self.space, memory.origin, content_hash(content))
                standing = next((s for s in found if s.active and s.kind is kind), None)
            if standing is None:
                if kind is not Kind.EPISODE and not links:
                    similar = find_similar(m.tx, self.space, memory)
                if replaces_similar and similar:
                    links, withheld = replacements(memory, similar, now)
                    replaced = tuple(to_id for _, to_id in links)
                    if withheld:
                        memory = replace(memory, status=Status.CONFLICTED)
                m.put(None, memory)
            for role, to_id in links:
                m.put_relation(None, self.relations.checked_relation(m.tx, standing or memory, role, to_id))
        if standing is not None:
            return Remembered(standing, m.event, deduplicated=True)
        return Remembered(memory, m.event, similar=similar, replaced=replaced, withheld=withheld)

    def new_claim(
        self,
        text: str,
        *,
        kind: Kind | str,
        origin: str = "",
        basis: Basis | str = Basis.USER_STATEMENT,
        method: Method | str = Method.MANUAL,
        source: str | None = None,
        at: datetime | str | None = None,
        certainty: Certainty | str | None = None,
        valid_from: datetime | str | None = None,
        valid_to: datetime | str | None = None,
        expected_resolution_at: datetime | str | None = None,
        aliases=(),
        pin: bool = False,
        topics: Iterable[str] = (),
        entities: Iterable[str] = (),
        origins: dict[str, str] | None = None,
    ) -> Memory:
        """The record ``remember`` would store for these arguments: validated (one-line
        :class:`InvalidInput` on a defect), secrets redacted, evidence not later than now.
        Nothing is read or written. ``origins``: cleaned origins by the text given, kept
        across the claims of one bulk call (many claims share a few origins, and cleaning
        one redacts it)."""
        kind = choice(Kind, kind, "kind")
        content = clean_content(text, kind)
        now = self.now()
        evidence_at = as_time(at, "at") or now
        if evidence_at > now:
            raise InvalidInput("at", f"evidence cannot be later than now ({evidence_at.isoformat()} > {now.isoformat()})")
        if origins is not None and isinstance(origin, str):
            cleaned = origins.get(origin)
            if cleaned is None:
                cleaned = origins[origin] = clean_origin(origin)
        else:
            cleaned = clean_origin(origin)
        memory = Memory(
            id=new_id(),
            space=self.space,
            origin=cleaned,
            kind=kind,
            content=content,
            aliases=clean_aliases(aliases),
            layer=Layer.PINNED if pin else Layer.DURABLE,
            evidence=Evidence(
                basis=choice(Basis, basis, "basis"),
                method=choice(Method, method, "method"),
                source_id=redact_text(source) if source else None,
                at=evidence_at,
            ),
            certainty=optional_choice(Certainty, certainty, "certainty"),
            valid_from=as_time(valid_from, "valid_from"),
            valid_to=as_time(valid_to, "valid_to"),
            expected_resolution_at=as_time(expected_resolution_at, "expected_resolution_at"),
            created_at=now,
            # updated_at is the replacement-authority gate: it carries the evidence time.
            updated_at=evidence_at,
            # Most claims carry no labels: the empty default is not walked (same tuple).
            topics=tuple(dict.fromkeys(t.strip() for t in topics)) if topics else (),
            entities=tuple(dict.fromkeys(e.strip() for e in entities)) if entities else (),
        )
        if problem := evidence_problem(memory.evidence.basis, memory.evidence.method):
            raise InvalidInput("method", problem)
        if memory.valid_from and memory.valid_to and memory.valid_to < memory.valid_from:
            raise InvalidInput("valid_to", "lies before valid_from")
        return memory

    @bulk
    def remember_many(self, claims: builtins.list[dict], *, actor: Actor | str = Actor.MANUAL,
                      reason: str | None = None) -> RememberedMany:
        """Store many claims (or episodes) in one transaction and one event: the bulk
        form of :meth:`remember` (see :class:`RememberedMany`). Each claim is the keyword
        arguments of :meth:`new_claim`; every one is validated before anything is written,
        and a defect refuses the whole call naming the claim."""
        memories = []
        origins: dict[str, str] = {}
        for number, claim in enumerate(claims, 1):
            try:
                memories.append(self.new_claim(**claim, origins=origins))
            except InvalidInput as err:
                raise InvalidInput(f"claim {number}: {err.field}", err.reason) from None
        require(self.scope, ((f"claim {n}", memory_labels(m)) for n, m in enumerate(memories, 1)))
        actor = choice(Actor, actor, "actor")
        results: builtins.list[tuple[Memory, bool]] = []
        with self.scope.mutation(actor, reason or f"remember {len(memories)} records") as m:
            # Dedup as remember does (same normalised content, kind and origin, current),
            # against the store and against the claims before it in this call.
            # The store is asked once for every (origin, hash) of the call, not once a claim.
            digests = {id(memory): content_hash(memory.content) for memory in memories if memory.kind is not Kind.EPISODE}
            fresh: dict[tuple[str, str, str], Memory] = {}
            stored = sorted(m.tx.memories_with_hashes(self.space, [(memory.origin, digests[id(memory)])
                                                                    for memory in memories if id(memory) in digests]),
                            key=lambda s: (s.created_at, s.id), reverse=True)  # the oldest current one stands
            for s in stored:
                if s.active:
                    fresh[(s.origin, s.kind.value, content_hash(s.content))] = s
            new: builtins.list[Memory] = []
            for memory in memories:
                if memory.kind is Kind.EPISODE:
                    new.append(memory)
                    results.append((memory, False))
                    continue
                key = (memory.origin, memory.kind.value, digests[id(memory)])
                standing = fresh.get(key)
                if standing is None:
                    fresh[key] = memory
                    new.append(memory)
                results.append((standing or memory, standing is not None))
            # The ids were minted by new_claim for this call, and the hashes are those just
            # computed for the dedup: the store neither looks the ids up nor hashes again.
            m.put_many(new, minted=True, digests=[digests.get(id(memory)) for memory in new])
        return RememberedMany(tuple(Remembered(memory, m.event, deduplicated=dup) for memory, dup in results), m.event)

    def quality(self, memory: Memory) -> Quality:
        """Read-time quality of one record (nothing is written)."""
        now = self.now()
        f = freshness(memory, now)
        weights = rank_factors(memory, 1.0, now)  # the ranking's own factors, one definition
        return Quality(
            freshness=round(f.freshness, 4),
            aging=f.aging,
            dormant=f.dormant,
            age_days=round(f.age_days, 2),
            confirmed_at=f.anchor,
            # The anchor moved past the evidence date by later confirmation.
            reinforced=f.anchor > memory.updated_at,
            priority=record_priority(memory),
            # Ranking weight from the evidence alone: `accurate` has its own factor.
            evidence_weight=round(weights.evidence_weight, 4),
            utility=weights.utility,
            accuracy=weights.accuracy,
        )

    def show(self, ref: str) -> Shown:
        memory = self.scope.get(ref)
        return Shown(memory, self.quality(memory), self.store.relations(self.space, record_id=memory.id),
                     Trust(self.scope).confidence(memory).to_dict())

    def list(
        self,
        *,
        status: Status | str | None = None,
        kind: Kind | str | None = None,
        origin: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> Page:
        status = optional_choice(Status, status, "status")
        kind = optional_choice(Kind, kind, "kind")
        origin = None if origin is None else clean_origin(origin)
        if not isinstance(page, int) or page < 1:
            raise InvalidInput("page", "must be a positive integer")
        if not isinstance(per_page, int) or not 1 <= per_page <= 1000:
            raise InvalidInput("per_page", "must be 1-1000")
        statuses = (status.value,) if status else None
        kinds = (kind.value,) if kind else None
        if origin is None:
            total = self.store.count_memories(self.space, statuses=statuses, kinds=kinds)
        else:
            # The store pages by status and kind; an origin is sifted here, in one pass.
            mine = [m for m in self.store.iter_memories(self.space, statuses=statuses, kinds=kinds) if m.origin == origin]
            total = len(mine)
        pages = max(1, math.ceil(total / per_page))
        if page > pages:
            raise InvalidInput("page", f"no such page: {page} (there {'is' if pages == 1 else 'are'} {pages})")
        if origin is not None:
            rows = mine[(page - 1) * per_page : page * per_page]
        else:
            rows = list(self.store.iter_memories(
                self.space, statuses=statuses, kinds=kinds, limit=per_page, offset=(page - 1) * per_page))
        return Page(rows, page, pages, total)

    def forget(self, ref: str, *, purge: bool = False, actor: Actor | str = Actor.MANUAL) -> Event:
        """Mark a record forgotten (content kept for history), or with ``purge`` erase its
        content from the record, the full-text index and every event snapshot."""
        memory_id = self.scope.resolve_id(ref)
        actor = choice(Actor, actor, "actor")
        with self.scope.mutation(actor, "purge" if purge else "forget") as m:
            current = m.tx.get_memory(self.space, memory_id)
            if current is None:
                raise Refused(f"memory {memory_id} is unreadable; see `cairn status`")
            if purge:
                if current.purged_at is not None:
                    raise Refused(f"memory {memory_id} is already purged")
                after = replace(
                    current, content="", aliases=(), status=Status.FORGOTTEN, purged_at=self.now(), revision=current.revision + 1
                )
                self._erase_from_events(m.tx, memory_id)
                m.put(_erased(current), after)
            else:
                if current.status is Status.FORGOTTEN:
                    raise Refused(f"memory {memory_id} is already forgotten")
                m.put(current, replace(current, status=Status.FORGOTTEN, revision=current.revision + 1))
        assert m.event is not None  # the record changed, so its event was written
        return m.event

    def _erase_from_events(self, tx: WriteTx, memory_id: str) -> None:
        for event in tx.events(self.space, record_id=memory_id, newest_first=False):
            changes = []
            for change in event.changes:
                if change.table == "memory" and change.id == memory_id:
                    erased = {"before": _erase_snapshot(change.before), "after": _erase_snapshot(change.after)}
                    change = change_from_dict({"table": "memory", "id": change.id, **erased})
                changes.append(change)
            tx.rewrite_event(replace(event, changes=tuple(changes)))

    def pin(self, ref: str) -> Event:
        return self._set_layer(ref, Layer.PINNED)

    def unpin(self, ref: str) -> Event:
        return self._set_layer(ref, Layer.DURABLE)

    def _set_layer(self, ref: str, layer: Layer) -> Event:
        memory_id = self.scope.resolve_id(ref)
        with self.scope.mutation(Actor.MANUAL, "pin" if layer is Layer.PINNED else "unpin") as m:
            current = m.tx.get_memory(self.space, memory_id)
            if current is None:
                raise Refused(f"memory {memory_id} is unreadable; see `cairn status`")
            if current.layer is layer:
                raise Refused(f"memory {memory_id} is already {layer.value}")
            if current.purged_at is not None:
                raise Refused(f"memory {memory_id} is purged")
            if layer is Layer.PINNED and current.status in (Status.FORGOTTEN, Status.RETIRED):
                raise Refused(f"memory {memory_id} is {current.status.value}; undo that before pinning it")
            # Pinning is not evidence: updated_at (the authority gate) does not move.
            m.put(current, replace(current, layer=layer, revision=current.revision + 1))
        assert m.event is not None  # the record changed, so its event was written
        return m.event

    def alias(self, ref: str, action: str, word: str) -> Event:
        """Add or remove one alias (a search term) of a record, as one undoable event."""
        if action not in ("add", "remove"):
            raise InvalidInput("action", f"{action!r} (one of: add, remove)")
        (cleaned,) = clean_aliases([word])
        memory_id = self.scope.resolve_id(ref)
        with self.scope.mutation(Actor.MANUAL, f"alias {action}") as m:
            current = m.tx.get_memory(self.space, memory_id)
            if current is None:
                raise Refused(f"memory {memory_id} is unreadable; see `cairn status`")
            if current.purged_at is not None:
                raise Refused(f"memory {memory_id} is purged")
            held = [a.casefold() for a in current.aliases]
            if action == "add":
                if cleaned.casefold() in held:
                    raise Refused(f"memory {memory_id} already has the alias {cleaned!r}")
                aliases = clean_aliases([*current.aliases, cleaned])
            else:
                if cleaned.casefold() not in held:
                    raise Refused(f"memory {memory_id} has no alias {cleaned!r}")
                aliases = tuple(a for a in current.aliases if a.casefold() != cleaned.casefold())
            # An alias is a search term, not evidence: updated_at (the authority gate) stays.
            m.put(current, replace(current, aliases=aliases, revision=current.revision + 1))
            m.data["alias"] = cleaned
        assert m.event is not None  # the record changed, so its event was written
        return m.event

    def confirm(self, ref: str, *, source: str | None = None) -> Confirmed:
        """Say a record still holds: its confirmation clock moves to now (see the module
        docstring). ``source`` names who checked it; one source confirms a record once."""
        memory_id = self.scope.resolve_id(ref)
        source_id = _clean_source(source)
        now = self.now()
        with self.store.write() as tx:
            current = tx.get_memory(self.space, memory_id)
            if current is None:
                raise Refused(f"memory {memory_id} is unreadable; see `cairn status`")
            if not current.active:
                raise Refused(f"memory {memory_id} is {current.status.value}: only a current record can be confirmed")
            if current.kind is Kind.PROJECT_STATE:
                raise Refused(f"memory {memory_id} is a project state: states go stale silently, so a confirmation"
                              " does not renew them; remember the current state instead")
            if current.kind is Kind.EPISODE:
                raise Refused(f"memory {memory_id} is an episode: a verbatim turn is not a claim to confirm")
            receipt = f"confirm:{source_id}" if source_id else None
            if receipt and tx.get_receipt(self.space, receipt, memory_id) is not None:
                return Confirmed(current, False, f"already confirmed by {source_id}")
            if current.pinned:
                return Confirmed(current, False, "pinned: already at full freshness")
            if now <= confirmation_anchor(current):
                return Confirmed(current, False, "already confirmed at or after now")
            after = replace(current, reinforced_at=now)
            tx.put_memory(after)  # no event, no revision: the confirmation clock only
            if receipt:
                tx.put_receipt(self.space, receipt, memory_id, "confirmed", now)
        return Confirmed(after, True, "confirmed")

    def text_changes(self, ref: str, *, limit: int = 20) -> builtins.list[TextChange]:
        """The events that changed record ``ref``'s text (a correction keeps the id), oldest
        first, with the text before and after each, at most ``limit`` of the newest."""
        if not isinstance(limit, int) or limit < 1:
            raise InvalidInput("limit", "must be a positive integer")
        memory_id = self.scope.resolve_id(ref)
        found: builtins.list[TextChange] = []
        for event in self.store.events(self.space, record_id=memory_id):
            for change in event.changes:
                if change.table != "memory" or change.id != memory_id or change.before is None or change.after is None:
                    continue
                before, after = str(change.before.get("content", "")), str(change.after.get("content", ""))
                if before != after:
                    found.append(TextChange(event.id, event.at, event.reason, before, after))
            if len(found) >= limit:
                break
        return found[::-1]

    def history(self, ref: str | None = None, *, limit: int = 20) -> builtins.list[Event]:
        if not isinstance(limit, int) or limit < 1:
            raise InvalidInput("limit", "must be a positive integer")
        record_id = self.scope.resolve_id(ref) if ref else None
        return self.store.events(self.space, record_id=record_id, limit=limit)

    def status(self) -> StatusDoc:
        problems = self.store.problems()
        return {
            "schema": self.store.schema_version(),
            "path": self.scope.path,
            "space": self.space,
            "memories": self.store.count_memories(self.space),
            "by_status": {s.value: self.store.count_memories(self.space, statuses=(s.value,)) for s in Status},
            "events": self.store.count_events(self.space),
            "relations": len(self.store.relations(self.space, active_only=False)),
            "integrity": self.store.integrity(),
            "problems": [cast(ProblemDoc, p) for p in problems if p["space"] == self.space],
            "problems_elsewhere": sum(1 for p in problems if p["space"] != self.space),
        }


def _clean_source(source: str | None) -> str | None:
    if source is None:
        return None
    if not isinstance(source, str) or not 1 <= len(source.strip()) <= 200 or any(ord(c) < 32 for c in source):
        raise InvalidInput("source", "must be 1-200 printable characters")
    return redact_text(source.strip())


def _erase_snapshot(snapshot: dict | None) -> dict | None:
    if snapshot is None:
        return None
    return {**snapshot, "content": "", "aliases": []}


def _erased(memory: Memory) -> Memory:
    return memory_from_dict(_erase_snapshot(memory_to_dict(memory)))
