"""Record operations of the facade: remember, show, list, forget (and purge), pin,
history and status."""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import cast

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
    memory_from_dict,
    memory_to_dict,
)
from ..model.codec import change_from_dict, evidence_problem
from ..policy.aging import freshness
from ..policy.priority import record_priority
from ..recall.rank import rank_factors
from ..store import WriteTx, content_hash
from ..wire import ProblemDoc, StatusDoc
from .mutation import new_id
from .relations import Relations
from .scope import Part, Scope
from .validate import as_time, choice, clean_aliases, clean_content, clean_origin, optional_choice, redact_text


@dataclass(frozen=True, slots=True)
class Remembered:
    memory: Memory
    event: Event | None  # None when identical content already stood in this origin
    deduplicated: bool = False


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


@dataclass(frozen=True, slots=True)
class Shown:
    """One record with its read-time quality and every relation touching it."""

    memory: Memory
    quality: Quality
    relations: list[Relation]


@dataclass(frozen=True, slots=True)
class Page:
    memories: list[Memory]
    page: int
    pages: int
    total: int


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
    ) -> Remembered:
        """Store one claim (or one episode). Identical content in the same origin is not
        stored twice: the standing record is returned instead (episodes excepted).

        ``relates``: ``[(role, older_ref), ...]`` relations declared from this record to
        older ones, written in the same event (checked as ``relate`` checks them; when the
        content was already stored, they are declared from the standing record)."""
        kind = choice(Kind, kind, "kind")
        content = clean_content(text, kind)
        now = self.now()
        evidence_at = as_time(at, "at") or now
        memory = Memory(
            id=new_id(),
            space=self.space,
            origin=clean_origin(origin),
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
        )
        if problem := evidence_problem(memory.evidence.basis, memory.evidence.method):
            raise InvalidInput("method", problem)
        if memory.valid_from and memory.valid_to and memory.valid_to < memory.valid_from:
            raise InvalidInput("valid_to", "lies before valid_from")
        actor = choice(Actor, actor, "actor")
        links = self.relations.check_relates(relates)
        standing = None
        with self.scope.mutation(actor, reason or f"remember {kind.value}") as m:
            if kind is not Kind.EPISODE:
                found = m.tx.memories_with_hash(self.space, memory.origin, content_hash(content))
                standing = next((s for s in found if s.active and s.kind is kind), None)
            if standing is None:
                m.put(None, memory)
            for role, to_id in links:
                m.put_relation(None, self.relations.checked_relation(m.tx, standing or memory, role, to_id))
        if standing is not None:
            return Remembered(standing, m.event, deduplicated=True)
        return Remembered(memory, m.event)

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
        return Shown(memory, self.quality(memory), self.store.relations(self.space, record_id=memory.id))

    def list(
        self, *, status: Status | str | None = None, kind: Kind | str | None = None, page: int = 1, per_page: int = 20
    ) -> Page:
        status = optional_choice(Status, status, "status")
        kind = optional_choice(Kind, kind, "kind")
        if not isinstance(page, int) or page < 1:
            raise InvalidInput("page", "must be a positive integer")
        if not isinstance(per_page, int) or not 1 <= per_page <= 1000:
            raise InvalidInput("per_page", "must be 1-1000")
        statuses = (status.value,) if status else None
        kinds = (kind.value,) if kind else None
        total = self.store.count_memories(self.space, statuses=statuses, kinds=kinds)
        pages = max(1, math.ceil(total / per_page))
        rows = list(
            self.store.iter_memories(self.space, statuses=statuses, kinds=kinds, limit=per_page, offset=(page - 1) * per_page)
        )
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
            # Pinning is not evidence: updated_at (the authority gate) does not move.
            m.put(current, replace(current, layer=layer, revision=current.revision + 1))
        assert m.event is not None  # the record changed, so its event was written
        return m.event

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


def _erase_snapshot(snapshot: dict | None) -> dict | None:
    if snapshot is None:
        return None
    return {**snapshot, "content": "", "aliases": []}


def _erased(memory: Memory) -> Memory:
    return memory_from_dict(_erase_snapshot(memory_to_dict(memory)))
