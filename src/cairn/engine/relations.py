"""Declared relations and the history of a subject (see docs/time.md).

* :meth:`Relations.relate` declares ``FROM ROLE TO`` — from the newer record to the
  older one, roles ``corrects``, ``supersedes``, ``contradicts``, ``qualifies`` — as one
  event (undoable, in history, exported). Stored memory rows are never rewritten by a
  relation. Refusals raise :class:`~cairn.errors.RelationRefused` with one code each:

  ============== ===========================================================
  code           refused because
  ============== ===========================================================
  self-reference FROM and TO are the same record
  cycle          a ``corrects``/``supersedes`` path already leads TO → FROM
  cross-space    an end exists only in another space of the same database
  purged         an end was erased by ``forget --purge``
  duplicate      the same relation is already active (``contradicts`` either way)
  ============== ===========================================================

* :meth:`Relations.timeline` returns the successive states of one subject in time
  order, with their validity and the relations between them.

The direction (which record is newer) is the caller's assertion, as every judgement of
meaning is; the engine checks only consistency.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .. import wire
from ..errors import InvalidInput, NotFound, RelationRefused
from ..model import Actor, Event, Memory, Relation, Role, format_time, relation_to_dict
from ..policy.temporal import temporal_status
from ..store import ReadView, WriteTx
from ..text import content_terms
from .mutation import new_id
from .scope import Part
from .validate import TIMELINE_MAX, choice

CHAIN_ROLES = frozenset({Role.CORRECTS, Role.SUPERSEDES})  # the roles that replace the older record


def parse_role(value: object) -> Role:
    """A role from its member or its spelling (any case, blanks ignored)."""
    return choice(Role, value if isinstance(value, Role) else str(value).strip().lower(), "role")


class Timeline(NamedTuple):
    query: str
    states: list[dict]
    relations: list[dict]

    def to_dict(self) -> wire.TimelineDoc:
        """The wire form (``timeline --json``)."""
        return wire.timeline(self.query, self.states, self.relations)


class Relations(Part):
    def relate(self, from_ref: str, role: Role | str, to_ref: str, *, actor: Actor | str = Actor.MANUAL,
               reason: str | None = None) -> Event:
        """Declare ``from_ref ROLE to_ref`` (newer → older) as one event; see the module
        docstring for the refusals."""
        role = parse_role(role)
        actor = choice(Actor, actor, "actor")
        from_id = self._relation_end(from_ref)
        to_id = self._relation_end(to_ref)
        with self.scope.mutation(actor, reason or f"relate {role.value}") as m:
            newer = m.tx.get_memory(self.space, from_id)
            if newer is None:
                raise NotFound("readable memory", from_ref)
            m.put_relation(None, self.checked_relation(m.tx, newer, role, to_id))
        assert m.event is not None  # a relation was written, so its event was too
        return m.event

    def check_relates(self, relates: Iterable[tuple[Role | str, str]] | None) -> list[tuple[Role, str]]:
        """Validate ``remember(relates=[(role, to_ref), ...])`` before anything is written."""
        if relates is None:
            return []
        out = []
        for item in relates:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise InvalidInput("relates", "expected (role, to_ref) pairs")
            out.append((parse_role(item[0]), self._relation_end(item[1])))
        return out

    def _relation_end(self, ref: str) -> str:
        """Resolve one end in this space; an id that exists only in another space of the
        same database is refused as ``cross-space`` (relations never cross spaces)."""
        try:
            return self.scope.resolve_id(ref)
        except NotFound:
            elsewhere = self._spaces_holding(ref)
            if elsewhere:
                raise RelationRefused(
                    "cross-space", f"{ref!r} is a record of space {elsewhere[0]!r}, not of {self.space!r}"
                ) from None
            raise

    def _spaces_holding(self, ref: str) -> list[str]:
        """Other spaces of this database holding a memory whose id starts with ``ref``."""
        return self.store.spaces_holding((ref or "").strip().lower(), besides=self.space)

    def checked_relation(self, tx: WriteTx, newer: Memory, role: Role, to_id: str) -> Relation:
        """The relation ``newer ROLE to_id`` if the rules allow it, else RelationRefused."""
        if newer.id == to_id:
            raise RelationRefused("self-reference", f"{newer.id} cannot {role.value} itself")
        older = tx.get_memory(self.space, to_id)
        if older is None:
            raise NotFound("readable memory", to_id)
        for end in (newer, older):
            if end.purged_at is not None:
                raise RelationRefused("purged", f"{end.id} was purged; its content no longer exists")
        for existing in tx.relations(self.space, record_id=newer.id):
            same_way = existing.from_id == newer.id and existing.to_id == to_id
            other_way = existing.from_id == to_id and existing.to_id == newer.id
            if existing.role is role and (same_way or (role is Role.CONTRADICTS and other_way)):
                raise RelationRefused("duplicate", f"{newer.id} already {role.value} {to_id} (relation {existing.id})")
        if role in CHAIN_ROLES:
            path = _chain_path(tx, self.space, start=to_id, goal=newer.id)
            if path:
                shown = " → ".join(path)
                raise RelationRefused("cycle", f"{to_id} already corrects/supersedes {newer.id} ({shown})")
        return Relation(id=new_id(), space=self.space, from_id=newer.id, role=role, to_id=to_id, created_at=self.now())

    # -- timeline ----------------------------------------------------------------------

    def timeline(self, query: str, *, limit: int = TIMELINE_MAX) -> Timeline:
        """The successive states of one subject, oldest first: the records holding every
        content term of ``query``, joined by the records related to them, each with its
        validity, its state now, and the relations between them. Writes nothing."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query", "empty")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= TIMELINE_MAX:
            raise InvalidInput("limit", f"{limit!r}; give 1-{TIMELINE_MAX}")
        words = content_terms(query)
        if not words:
            raise InvalidInput("query", f"{query!r} names no subject (only stopwords)")
        with self.store.snapshot() as view:
            seeds = [i for i, _ in view.search_all(self.space, list(dict.fromkeys(words)), limit)]
            members, relations = _component(view, self.space, seeds, limit)
            memories = view.get_memories(self.space, sorted(members))
        depth = _chain_depths(relations)
        ordered = sorted(memories.values(), key=lambda m: _state_time(m, depth.get(m.id, 0)))
        now = self.now()
        successors: dict[str, list[str]] = {}
        for r in relations:
            if r.role in CHAIN_ROLES and r.from_id in memories and memories[r.from_id].active:
                successors.setdefault(r.to_id, []).append(r.from_id)
        states = [_state(m, now, successors.get(m.id, [])) for m in ordered if m.purged_at is None]
        return Timeline(query.strip(), states, [relation_to_dict(r) for r in relations])


def _chain_path(view: ReadView, space: str, *, start: str, goal: str) -> list[str]:
    """A path start → … → goal over active corrects/supersedes relations (newer → older),
    or [] when there is none. Breadth first, so the reported path is a shortest one."""
    parents: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for r in view.relations(space, record_id=node):
                if r.role in CHAIN_ROLES and r.from_id == node and r.to_id not in parents:
                    parents[r.to_id] = node
                    if r.to_id == goal:
                        path: list[str] = []
                        step: str | None = goal
                        while step is not None:
                            path.append(step)
                            step = parents[step]
                        return path[::-1]
                    following.append(r.to_id)
        frontier = following
    return []


def _component(view: ReadView, space: str, seeds: list[str], limit: int) -> tuple[set[str], list[Relation]]:
    """The seeds and every record connected to them by an active relation (bounded)."""
    members: set[str] = set(seeds)
    relations: dict[str, Relation] = {}
    frontier = list(seeds)
    while frontier and len(members) < limit:
        following = []
        for node in frontier:
            for r in view.relations(space, record_id=node):
                relations[r.id] = r
                for end in (r.from_id, r.to_id):
                    if end not in members and len(members) < limit:
                        members.add(end)
                        following.append(end)
        frontier = following
    kept = [r for r in relations.values() if r.from_id in members and r.to_id in members]
    return members, sorted(kept, key=lambda r: (r.created_at, r.id))


def _state_time(memory: Memory, depth: int = 0):
    """When a state began: its valid_from when asserted, else when Cairn recorded it. States
    that began at one instant (written together) follow their relations: a record comes
    after every record its corrects/supersedes chain replaces. Only then the id."""
    return (memory.valid_from or memory.created_at, depth, memory.created_at, memory.id)


def _chain_depths(relations: list[Relation]) -> dict[str, int]:
    """For each record, the length of the longest corrects/supersedes path below it (0 for
    a record that replaces nothing). Cycles, which only an import can bring, are cut."""
    older: dict[str, list[str]] = {}
    for r in relations:
        if r.role in CHAIN_ROLES:
            older.setdefault(r.from_id, []).append(r.to_id)
    depth: dict[str, int] = {}

    def walk(node: str, path: frozenset[str]) -> int:
        if node not in depth:
            below = [walk(o, path | {node}) + 1 for o in older.get(node, []) if o not in path and o != node]
            depth[node] = max(below, default=0)
        return depth[node]

    for node in older:
        walk(node, frozenset())
    return depth


def _state(memory: Memory, now, replaced_by: list[str]) -> dict:
    temporal = temporal_status(memory, now=now, as_of=None)
    current = memory.active and not replaced_by and "past-state" not in temporal.markers
    if memory.valid_from is not None and memory.valid_from > now:
        current = False  # a state that has not begun yet is not the present one
    return {
        "id": memory.id,
        "kind": memory.kind.value,
        "status": memory.status.value,
        "content": memory.content,
        "valid_from": None if memory.valid_from is None else format_time(memory.valid_from),
        "valid_to": None if memory.valid_to is None else format_time(memory.valid_to),
        "recorded_at": format_time(memory.created_at),
        "current": current,
        "markers": list(temporal.markers),
        "replaced_by": replaced_by,  # active records that correct or supersede this one
    }
