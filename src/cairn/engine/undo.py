"""Undo: a compensating event that restores what an earlier event changed.

Refused, with the reason, when any record the event touched changed since (compared on
everything but ``reinforced_at``, which confirmation moves without an event and which
undo carries forward instead of reverting). Undoing an undo restores the undone state.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import UndoRefused
from ..model import (
    Actor,
    Change,
    Event,
    Memory,
    RelationStatus,
    Status,
    memory_from_dict,
    memory_to_dict,
    relation_from_dict,
    relation_to_dict,
)
from .mutation import Mutation
from .scope import Part


def _settled(snapshot: dict | None) -> dict | None:
    return None if snapshot is None else {k: v for k, v in snapshot.items() if k != "reinforced_at"}


def _later(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


class Undo(Part):
    def undo(self, ref: str, *, actor: Actor = Actor.MANUAL) -> Event:
        event_id = self.scope.resolve_id(ref, "events")
        with self.scope.mutation(actor, f"undo {event_id}") as m:
            event = m.tx.get_event(self.space, event_id)
            if event is None:
                raise UndoRefused(event_id, "the event is unreadable; see `cairn status`")
            if not event.changes:
                raise UndoRefused(event_id, "it changed no records")
            for change in event.changes:
                if change.table == "memory":
                    self._undo_memory(m, event_id, change)
                else:
                    self._undo_relation(m, event_id, change)
            m.data["undoes"] = event_id
        assert m.event is not None  # an undo restores at least one record, so it wrote its event
        return m.event

    def _undo_memory(self, m: Mutation, event_id: str, change: Change) -> None:
        current = m.tx.get_memory(self.space, change.id)
        if current is None:
            raise UndoRefused(event_id, f"memory {change.id} is missing or unreadable")
        if current.purged_at is not None and (change.after or {}).get("purged_at") is None:
            raise UndoRefused(event_id, f"memory {change.id} was purged since; its content is gone")
        if current.purged_at is not None:
            raise UndoRefused(event_id, f"a purge cannot be undone: the content of {change.id} is erased")
        if _settled(memory_to_dict(current)) != _settled(change.after):
            raise UndoRefused(event_id, f"memory {change.id} changed since (now at revision {current.revision})")
        if change.before is None:
            # The event created the record: undoing it forgets it (history keeps it).
            restored: Memory = replace(current, status=Status.FORGOTTEN)
        else:
            restored = memory_from_dict(change.before)
        restored = replace(
            restored,
            revision=current.revision + 1,
            reinforced_at=_later(current.reinforced_at, restored.reinforced_at),
        )
        m.put(current, restored)

    def _undo_relation(self, m: Mutation, event_id: str, change: Change) -> None:
        current = m.tx.get_relation(self.space, change.id)
        if current is None:
            raise UndoRefused(event_id, f"relation {change.id} is missing or unreadable")
        if relation_to_dict(current) != change.after:
            raise UndoRefused(event_id, f"relation {change.id} changed since")
        restored = (
            replace(current, status=RelationStatus.REMOVED) if change.before is None else relation_from_dict(change.before)
        )
        m.put_relation(current, restored)
