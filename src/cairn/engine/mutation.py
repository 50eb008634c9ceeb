"""One change, one transaction, one event.

:class:`Mutation` collects the record changes of one operation inside an open write
transaction; when the ``with`` block ends without error it appends exactly one event
holding before/after snapshots of every changed record, and the transaction commits.
An operation that changes nothing writes no event.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..model import (
    Actor,
    Change,
    Event,
    Memory,
    Relation,
    memory_to_dict,
    relation_to_dict,
)
from ..store import WriteTx, dumps


def new_id() -> str:
    """Opaque, stable, 24 lowercase hex characters (96 random bits)."""
    return os.urandom(12).hex()  # what secrets.token_hex does, without importing it (start-up)


@dataclass
class Mutation:
    tx: WriteTx
    space: str
    actor: Actor
    reason: str
    at: datetime
    data: dict = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    event: Event | None = None
    # Stored JSON of snapshots written by put_many, by id() of the snapshot dict (each
    # dict is held by its Change until the event is written, so no id is reused).
    _texts: dict[int, str] = field(default_factory=dict, repr=False)

    def put(self, before: Memory | None, after: Memory) -> Memory:
        """Write ``after`` and record the change from ``before`` (``None``: created)."""
        if after.space != self.space:
            raise ValueError("a mutation never crosses spaces")
        self.tx.put_memory(after)
        self.changes.append(
            Change("memory", after.id, None if before is None else memory_to_dict(before), memory_to_dict(after))
        )
        return after

    def put_lifecycle(self, before: Memory, after: Memory) -> Memory:
        """As :meth:`put` for a change of lifecycle only (status, revision, clocks): the
        record's text is not re-indexed (``WriteTx.put_lifecycle``)."""
        if after.space != self.space or (after.id, after.content, after.aliases) != (before.id, before.content, before.aliases):
            raise ValueError("a lifecycle change keeps the record's space, id and text")
        self.tx.put_lifecycle(after)
        self.changes.append(Change("memory", after.id, memory_to_dict(before), memory_to_dict(after)))
        return after

    def put_many(self, created: Sequence[Memory], *, minted: bool = False,
                 digests: Sequence[str | None] | None = None) -> None:
        """Write new records in bulk (``put(None, m)`` for each, in order), encoding each
        record once for both its row and its event snapshot.

        ``minted``: every id was just made by :func:`new_id` for this call (ingest,
        ``remember_many``), so the store need not look them up: 96 random bits do not
        meet a stored id (were one ever to, the store's unique key refuses the bulk insert
        and the whole transaction rolls back, rather than overwriting a record; a batch too
        small for PostgreSQL's ``COPY`` still goes one record at a time, as before).
        ``digests``: each record's ``content_hash`` where the caller holds it already."""
        docs = []
        for memory in created:
            if memory.space != self.space:
                raise ValueError("a mutation never crosses spaces")
            docs.append(memory_to_dict(memory))
        put_stored = getattr(self.tx, "put_stored", None)  # both stores' bulk shape
        defer_checkpoint = getattr(self.tx, "defer_checkpoint", None)  # the SQLite store's (see there)
        if defer_checkpoint is not None:
            defer_checkpoint()
        if put_stored is not None:
            encode = getattr(self.tx, "memory_json", dumps)  # the SQLite store's faster dumps of such a dict
            texts = [encode(doc) for doc in docs]
            put_stored(list(zip(created, texts, strict=True)), absent=minted, digests=digests)
            # The event repeats each snapshot: its text is spliced in, not encoded again.
            self._texts.update(zip(map(id, docs), texts, strict=True))
        else:
            self.tx.put_memories(created)
        self.changes += [Change("memory", memory.id, None, doc) for memory, doc in zip(created, docs, strict=True)]

    def put_relation(self, before: Relation | None, after: Relation) -> Relation:
        if after.space != self.space:
            raise ValueError("a mutation never crosses spaces")
        self.tx.put_relation(after)
        self.changes.append(
            Change("relation", after.id, None if before is None else relation_to_dict(before), relation_to_dict(after))
        )
        return after

    def finish(self) -> Event | None:
        if not self.changes:
            return None
        self.event = Event(
            id=new_id(),
            space=self.space,
            at=self.at,
            actor=self.actor,
            reason=self.reason,
            changes=tuple(self.changes),
            data=self.data,
        )
        append_encoded = getattr(self.tx, "append_encoded", None) if self._texts else None
        if append_encoded is not None:
            append_encoded(self.event, self._texts)
        else:
            self.tx.append_event(self.event)
        return self.event
