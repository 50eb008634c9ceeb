"""Every mutation writes its new state and one event in one transaction; undo appends
a compensating event, refuses when a touched record changed since, and can be undone."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import timedelta

import pytest

from cairn import UndoRefused
from cairn.errors import StoreError
from cairn.model import Actor, Layer, Status


def test_each_mutation_writes_exactly_one_event_with_snapshots(cairn):
    r = cairn.remember("Deploys go through the release branch", kind="decision")
    assert cairn.store.count_events("default") == 1
    ev = r.event
    assert ev.actor is Actor.MANUAL and ev.changes[0].before is None
    assert ev.changes[0].after["content"] == "Deploys go through the release branch"
    e2 = cairn.pin(r.memory.id)
    assert cairn.store.count_events("default") == 2
    assert e2.changes[0].before["layer"] == "durable" and e2.changes[0].after["layer"] == "pinned"


def test_state_and_event_commit_together_or_not_at_all(cairn, monkeypatch):
    from cairn.store.sqlite import Tx

    def failing_append(self, event):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Tx, "append_event", failing_append)
    with pytest.raises((sqlite3.Error, StoreError)):  # the driver's error, or the store's translation of it
        cairn.remember("This write must vanish entirely", kind="fact")
    monkeypatch.undo()
    assert cairn.list().total == 0
    assert cairn.store.count_events("default") == 0


def test_undo_forget_restores_and_history_lists_it(cairn, clock):
    m = cairn.remember("Use ruff for linting", kind="decision").memory
    clock.at += timedelta(minutes=1)
    forget = cairn.forget(m.id)
    assert cairn.get(m.id).status is Status.FORGOTTEN
    clock.at += timedelta(minutes=1)
    undo = cairn.undo(forget.id[:8])
    restored = cairn.get(m.id)
    assert restored.status is Status.PROVISIONAL and restored.revision == 3
    assert undo.data == {"undoes": forget.id}
    assert [e.id for e in cairn.history(m.id)] == [undo.id, forget.id, cairn.history(m.id)[-1].id]


def test_undo_of_creation_forgets_the_record(cairn):
    r = cairn.remember("A claim made in error", kind="fact")
    cairn.undo(r.event.id)
    assert cairn.get(r.memory.id).status is Status.FORGOTTEN


def test_undo_is_refused_when_the_record_changed_since(cairn):
    m = cairn.remember("Use ruff for linting", kind="decision").memory
    forget = cairn.forget(m.id)
    cairn.undo(forget.id)  # record changed after the forget ...
    with pytest.raises(UndoRefused) as err:
        cairn.undo(forget.id)  # ... so undoing the forget again is refused
    assert "changed since" in str(err.value)


def test_undo_is_allowed_when_nothing_changed_since(cairn):
    # Negative control for the refusal: an untouched record can be undone.
    m = cairn.remember("Use ruff for linting", kind="decision").memory
    pin = cairn.pin(m.id)
    cairn.remember("An unrelated record", kind="fact")
    cairn.undo(pin.id)
    assert cairn.get(m.id).layer is Layer.DURABLE


def test_undoing_an_undo_restores_the_undone_state(cairn):
    m = cairn.remember("Use ruff for linting", kind="decision").memory
    pin = cairn.pin(m.id)
    undo = cairn.undo(pin.id)
    assert cairn.get(m.id).layer is Layer.DURABLE
    cairn.undo(undo.id)
    assert cairn.get(m.id).layer is Layer.PINNED


def test_undo_ignores_and_carries_forward_reinforced_at(cairn, clock):
    m = cairn.remember("Prefer tabs in Makefiles", kind="preference").memory
    pin = cairn.pin(m.id)
    # Confirmation moves reinforced_at without an event (as consolidation does).
    later = clock.at + timedelta(days=3)
    with cairn.store.write() as tx:
        tx.put_memory(replace(cairn.get(m.id), reinforced_at=later))
    cairn.undo(pin.id)  # not refused although reinforced_at differs from the snapshot
    restored = cairn.get(m.id)
    assert restored.layer is Layer.DURABLE and restored.reinforced_at == later


def test_undo_refused_for_unknown_and_ambiguous_event(cairn):
    from cairn import NotFound

    cairn.remember("One claim here", kind="fact")
    with pytest.raises(NotFound):
        cairn.undo("ffffffffffff")


def test_history_is_newest_first_and_limited(cairn):
    ids = [cairn.remember(f"Claim number {i} about things", kind="fact").event.id for i in range(5)]
    assert [e.id for e in cairn.history(limit=3)] == ids[::-1][:3]


def test_relation_events_appear_in_both_records_history(cairn, clock):
    from cairn.engine.mutation import new_id
    from cairn.model import Relation, Role

    old = cairn.remember("The office is in Berlin", kind="fact").memory
    new = cairn.remember("The office moved to Hamburg", kind="fact").memory
    with cairn.scope.mutation(Actor.MANUAL, "relate") as m:
        m.put_relation(None, Relation(new_id(), "default", new.id, Role.CORRECTS, old.id, clock.at))
    assert m.event.id in [e.id for e in cairn.history(old.id)]
    assert m.event.id in [e.id for e in cairn.history(new.id)]
    unrelated = cairn.remember("The team uses Matrix for chat", kind="fact").memory
    assert m.event.id not in [e.id for e in cairn.history(unrelated.id)]  # negative control
