"""Declared relations: positive declarations, every refusal with its own code, and the
event properties (undo, history, export/import, rows never rewritten)."""

from __future__ import annotations

import io
import sqlite3
from datetime import timedelta
from itertools import pairwise

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput, NotFound, RelationRefused
from cairn.model import RelationStatus, Role
from testkit.db import db_fingerprint


def memory_rows(path) -> list:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_relate_declares_one_event_and_never_rewrites_rows(cairn, mem, db_path, role):
    old = mem("The office is on the fourth floor")
    new = mem("The office is on the fifth floor")
    rows = memory_rows(db_path)
    event = cairn.relate(new[:8], role, old[:8])
    assert [c.table for c in event.changes] == ["relation"]
    after = event.changes[0].after
    assert (after["from"], after["role"], after["to"], after["status"]) == (new, role, old, "active")
    assert memory_rows(db_path) == rows  # stored rows are never rewritten by a relation
    assert [r.id for r in cairn.store.relations(cairn.space, record_id=old)] == [event.changes[0].id]
    [latest] = cairn.history(limit=1)
    assert latest.id == event.id and latest.reason == f"relate {role}"  # in the event log


def test_relation_is_in_history_of_both_ends_through_show(cairn, mem):
    old, new = mem("Deploys happen on Fridays"), mem("Deploys happen on Tuesdays")
    cairn.relate(new, "corrects", old)
    for ref in (old, new):
        rels = cairn.show(ref).relations
        assert [(r.from_id, r.role.value, r.to_id) for r in rels] == [(new, "corrects", old)]


def refuse(cairn, db_path, code, *args):
    before = db_fingerprint(db_path)
    with pytest.raises(RelationRefused) as err:
        cairn.relate(*args)
    assert err.value.code == code
    assert db_fingerprint(db_path) == before  # nothing written
    return err.value


def test_self_reference_is_refused(cairn, mem, db_path):
    a = mem("The build uses Make")
    for role in Role:
        refuse(cairn, db_path, "self-reference", a, role.value, a[:7])


@pytest.mark.parametrize("length", [2, 3, 5])
def test_cycle_of_any_length_is_refused(cairn, mem, db_path, length):
    ids = [mem(f"Version note number {i} of the release plan") for i in range(length)]
    for older, newer in pairwise(ids):
        cairn.relate(newer, "supersedes" if newer == ids[1] else "corrects", older)
    for role in ("corrects", "supersedes"):
        err = refuse(cairn, db_path, "cycle", ids[0], role, ids[-1])
        assert ids[0] in err.reason and ids[-1] in err.reason


def test_non_chain_roles_close_no_cycle_and_removed_edges_do_not_count(cairn, mem):
    a, b = mem("The cache lives in Redis"), mem("The cache lives in Memcached")
    cairn.relate(b, "qualifies", a)
    cairn.relate(a, "qualifies", b)  # negative control: qualifies is not a chain role
    event = cairn.relate(b, "corrects", a)
    cairn.undo(event.id)
    cairn.relate(a, "corrects", b)  # the removed b→a edge no longer closes a cycle
    held = {(r.from_id, r.role.value, r.to_id, r.status.value) for r in cairn.show(a).relations}
    assert held == {(b, "qualifies", a, "active"), (a, "qualifies", b, "active"), (a, "corrects", b, "active")}


def test_cross_space_is_refused_in_one_database(db_path, clock):
    with Cairn(db_path, space="alice", now=clock) as alice, Cairn(db_path, space="bob", now=clock) as bob:
        theirs = alice.remember("Alice keeps her notes in Obsidian", kind="fact").memory.id
        mine = bob.remember("Bob keeps his notes in Notion", kind="fact").memory.id
        before = db_fingerprint(db_path)
        for args in ((mine, "corrects", theirs), (theirs, "corrects", mine), (mine, "contradicts", theirs[:8])):
            with pytest.raises(RelationRefused) as err:
                bob.relate(*args)
            assert err.value.code == "cross-space"
        with pytest.raises(RelationRefused) as err:
            bob.remember("Bob keeps notes in Notion now", kind="fact", relates=[("corrects", theirs)])
        assert err.value.code == "cross-space"
        assert db_fingerprint(db_path) == before
        with pytest.raises(NotFound):  # negative control: an id nowhere is not-found, not cross-space
            bob.relate(mine, "corrects", "f" * 24)


def test_purged_end_is_refused_either_side(cairn, mem, db_path):
    a, b, c = mem("Lunch is at noon"), mem("Lunch is at one"), mem("Lunch is at two")
    cairn.forget(a, purge=True)
    refuse(cairn, db_path, "purged", b, "corrects", a)
    refuse(cairn, db_path, "purged", a, "corrects", b)
    cairn.forget(c)  # negative control: forgotten (not purged) records may still be related
    cairn.relate(b, "corrects", c)


def test_duplicate_is_refused_and_contradicts_is_symmetric(cairn, mem, db_path):
    a, b = mem("The team meets on Mondays"), mem("The team meets on Wednesdays")
    cairn.relate(b, "corrects", a)
    refuse(cairn, db_path, "duplicate", b, "corrects", a)
    cairn.relate(b, "contradicts", a)
    refuse(cairn, db_path, "duplicate", a, "contradicts", b)
    cairn.relate(b, "qualifies", a)  # another role between the same pair is allowed


def test_unknown_role_and_unknown_id_are_invalid_not_refused(cairn, mem, db_path):
    a, b = mem("Tabs are preferred"), mem("Spaces are preferred")
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput):
        cairn.relate(b, "replaces", a)
    with pytest.raises(NotFound):
        cairn.relate(b, "corrects", "0123456789ab")
    assert db_fingerprint(db_path) == before


def test_undo_removes_the_relation_and_undo_of_undo_restores_it(cairn, mem, clock):
    a, b = mem("The printer is on floor 2"), mem("The printer is on floor 3")
    event = cairn.relate(b, "corrects", a)
    clock.at += timedelta(minutes=1)
    undo = cairn.undo(event.id)
    assert cairn.store.relations(cairn.space, record_id=a) == []
    [removed] = cairn.store.relations(cairn.space, record_id=a, active_only=False)
    assert removed.status is RelationStatus.REMOVED
    cairn.undo(undo.id)
    assert [r.status for r in cairn.store.relations(cairn.space, record_id=a)] == [RelationStatus.ACTIVE]


def test_export_import_carries_relations(cairn, mem, tmp_path, clock):
    a, b = mem("The VPN endpoint is vpn1"), mem("The VPN endpoint is vpn2")
    cairn.relate(b, "supersedes", a)
    out = io.StringIO()
    assert cairn.export(out).relations == 1
    with Cairn(tmp_path / "other.db", now=clock) as other:
        assert other.import_(io.StringIO(out.getvalue())).relations == 1
        [r] = other.store.relations(other.space)
        assert (r.from_id, r.role, r.to_id) == (b, Role.SUPERSEDES, a)
        again = io.StringIO()
        other.export(again)
        assert again.getvalue() == out.getvalue()


def test_remember_with_relations_is_one_event(cairn, mem):
    a = mem("The staging host is stg-1")
    b = mem("The staging host might be stg-2")
    result = cairn.remember("The staging host is stg-3", kind="fact", relates=[("corrects", a), ("contradicts", b[:8])])
    assert sorted(c.table for c in result.event.changes) == ["memory", "relation", "relation"]
    rels = cairn.store.relations(cairn.space, record_id=result.memory.id)
    assert {(r.role.value, r.to_id) for r in rels} == {("corrects", a), ("contradicts", b)}
    cairn.undo(result.event.id)  # one undo withdraws the record and its relations together
    assert cairn.store.relations(cairn.space, record_id=result.memory.id) == []


def test_remember_relation_refusal_writes_nothing(cairn, mem, db_path):
    a = mem("The release train leaves monthly")
    cairn.forget(a, purge=True)
    before = db_fingerprint(db_path)
    with pytest.raises(RelationRefused) as err:
        cairn.remember("The release train leaves weekly", kind="fact", relates=[("corrects", a)])
    assert err.value.code == "purged"
    with pytest.raises(InvalidInput):
        cairn.remember("The release train leaves weekly", kind="fact", relates=[("fixes", a)])
    assert db_fingerprint(db_path) == before


def test_remember_duplicate_content_declares_from_the_standing_record(cairn, mem):
    a = mem("The linter is ruff")
    b = mem("The linter is flake8")
    again = cairn.remember("The linter is flake8", kind="fact", relates=[("corrects", a)])
    assert again.deduplicated and again.memory.id == b
    assert [c.table for c in again.event.changes] == ["relation"]
    plain = cairn.remember("The linter is flake8", kind="fact")  # negative control
    assert plain.deduplicated and plain.event is None
