"""Record-time reconstruction: what Cairn held at a past moment (``known_at``; see docs/time.md).

Called by the recall pipeline when ``known_at`` is given (it then scores these records
instead of the current ones) and by relation resolution and ``timeline``. The contract:

    records_known_at(view, space, at) -> list[Memory]
    relations_known_at(view, space, at, *, active_only=True) -> list[Relation]

Each record (relation) as it stood at ``at``, rebuilt from the event log: the ``after``
snapshot of the last event, in log order, among the events at or before ``at`` that
touched it. So a later correction, forget or relation does not erase what was known
before it. A record whose snapshot was erased by ``forget --purge`` is left out (its
content no longer exists anywhere). A record no event ever touched (written before the
log existed) counts as known from its ``created_at``. Read-only.
"""

from __future__ import annotations

from datetime import datetime

from ..model import (
    MalformedRecord,
    Memory,
    Relation,
    RelationStatus,
    memory_from_dict,
    relation_from_dict,
)
from .protocol import ReadView


def _snapshots(view: ReadView, space: str, at: datetime, table: str) -> tuple[dict[str, dict | None], set[str]]:
    """The last ``after`` snapshot per record id of ``table`` among events at or before
    ``at`` (log order), and every id of that table the log mentions at all."""
    known: dict[str, dict | None] = {}
    mentioned: set[str] = set()
    for event in view.events(space, newest_first=False):
        for change in event.changes:
            if change.table != table:
                continue
            mentioned.add(change.id)
            if event.at <= at:
                known[change.id] = change.after
    return known, mentioned


def records_known_at(view: ReadView, space: str, at: datetime) -> list[Memory]:
    """Every record of ``space`` as Cairn held it at ``at`` (oldest first).

    Only the records that an event after ``at`` touched can differ from their current
    state; each of those is rebuilt from its own events (the index by record). Every
    other record stands as stored, if Cairn held it then: its events all precede ``at``,
    so its stored state is its last snapshot. The cost grows with the records and the
    events after ``at``, not with the whole history.
    """
    later = {c.id for e in view.events_after(space, at) for c in e.changes if c.table == "memory"}
    out: list[Memory] = []
    for memory in view.iter_memories(space):
        if memory.id in later or memory.purged_at is not None or not memory.content:
            continue
        # Known then: created by then, or logged (only by then: no event after ``at``).
        if memory.created_at <= at or view.events(space, record_id=memory.id, limit=1):
            out.append(memory)
    for memory_id in sorted(later):
        then = memory_known_at(view, space, memory_id, at)
        if then is not None and then.purged_at is None and then.content:
            out.append(then)
    out.sort(key=lambda m: (m.created_at, m.id))
    return out


def memory_known_at(view: ReadView, space: str, memory_id: str, at: datetime) -> Memory | None:
    """One record as it stood at ``at``, or None when Cairn did not hold it then."""
    snapshot = None
    touched = False
    for event in view.events(space, record_id=memory_id, newest_first=False):
        for change in event.changes:
            if change.table == "memory" and change.id == memory_id:
                touched = True
                if event.at <= at:
                    snapshot = change.after
    if not touched:
        current = view.get_memory(space, memory_id)
        return current if current is not None and current.created_at <= at else None
    if not snapshot or snapshot.get("purged_at") is not None or not snapshot.get("content"):
        return None
    try:
        return memory_from_dict({**snapshot, "space": space})
    except MalformedRecord:
        return None


def relations_known_at(view: ReadView, space: str, at: datetime, *, active_only: bool = True) -> list[Relation]:
    """The relations of ``space`` as they stood at ``at`` (oldest first)."""
    known, mentioned = _snapshots(view, space, at, "relation")
    out: list[Relation] = []
    for snapshot in known.values():
        if not snapshot:
            continue
        try:
            relation = relation_from_dict({**snapshot, "space": space})
        except MalformedRecord:
            continue
        if not active_only or relation.status is RelationStatus.ACTIVE:
            out.append(relation)
    out += [
        r for r in view.relations(space, active_only=active_only) if r.id not in mentioned and r.created_at <= at
    ]
    out.sort(key=lambda r: (r.created_at, r.id))
    return out
