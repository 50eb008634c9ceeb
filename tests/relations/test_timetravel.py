"""Record time: records and relations as Cairn held them at a past moment."""

from __future__ import annotations

from datetime import timedelta

from cairn.model import Status
from cairn.store.timetravel import memory_known_at, records_known_at, relations_known_at


def test_records_known_at_rebuilds_each_state_from_the_log(cairn, mem, clock):
    t0 = clock.at
    a = mem("The CI runner is GitHub Actions")
    clock.at = t0 + timedelta(days=1)
    b = mem("The CI runner is Buildkite")
    clock.at = t0 + timedelta(days=2)
    cairn.forget(a)
    view = cairn.store
    assert [m.id for m in records_known_at(view, cairn.space, t0 - timedelta(seconds=1))] == []
    at0 = records_known_at(view, cairn.space, t0)
    assert [(m.id, m.status) for m in at0] == [(a, Status.PROVISIONAL)]
    at1 = {m.id: m.status for m in records_known_at(view, cairn.space, t0 + timedelta(days=1, hours=1))}
    assert at1 == {a: Status.PROVISIONAL, b: Status.PROVISIONAL}  # the later forget is not yet known
    at2 = {m.id: m.status for m in records_known_at(view, cairn.space, t0 + timedelta(days=3))}
    assert at2 == {a: Status.FORGOTTEN, b: Status.PROVISIONAL}
    known = memory_known_at(view, cairn.space, a, t0 + timedelta(days=1))
    assert known is not None and known.status is Status.PROVISIONAL
    assert memory_known_at(view, cairn.space, b, t0) is None


def test_purged_content_is_not_rebuilt(cairn, mem, clock):
    a = mem("The backup key is kept offline")
    clock.at += timedelta(days=1)
    cairn.forget(a, purge=True)
    assert records_known_at(cairn.store, cairn.space, clock.at - timedelta(hours=1)) == []


def test_relations_known_at_follow_declaration_and_undo(cairn, mem, clock):
    t0 = clock.at
    a, b = mem("Standup is at nine"), mem("Standup is at ten")
    clock.at = t0 + timedelta(days=1)
    event = cairn.relate(b, "corrects", a)
    clock.at = t0 + timedelta(days=2)
    cairn.undo(event.id)
    assert relations_known_at(cairn.store, cairn.space, t0) == []
    [r] = relations_known_at(cairn.store, cairn.space, t0 + timedelta(days=1))
    assert (r.from_id, r.to_id) == (b, a)
    assert relations_known_at(cairn.store, cairn.space, t0 + timedelta(days=3)) == []
    assert len(relations_known_at(cairn.store, cairn.space, t0 + timedelta(days=3), active_only=False)) == 1
