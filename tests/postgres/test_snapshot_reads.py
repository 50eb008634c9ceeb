"""Reads inside one PostgreSQL snapshot: a record's relations come with the record (a
candidate, or a record read by id: one round trip, kept for the snapshot) and equal what
a read of their own returns; nothing kept outlives the snapshot."""

from __future__ import annotations

from dataclasses import replace

import psycopg

from cairn import Cairn
from cairn.model import RelationStatus
from testkit import Clock


def _seed(cairn: Cairn) -> list[str]:
    ids = [cairn.remember(f"The deploy window note number {n} for the billing service", kind="fact").memory.id
           for n in range(6)]
    cairn.relate(ids[1], "supersedes", ids[0])
    cairn.relate(ids[2], "corrects", ids[1])
    cairn.relate(ids[3], "qualifies", ids[1])
    cairn.relate(ids[4], "contradicts", ids[3])
    dropped = cairn.store.relations(cairn.space, record_id=ids[4])[0]
    with cairn.store.write() as tx:  # an inactive relation: left out of the active reads
        tx.put_relation(replace(dropped, status=RelationStatus.REMOVED))
    return ids


def test_relations_read_with_the_candidates_equal_their_own_reads(pg_url):
    with Cairn(pg_url, now=Clock()) as cairn:
        ids = _seed(cairn)
        store, space = cairn.store, cairn.space
        alone = {i: store.relations(space, record_id=i) for i in ids}
        keys = store.term_postings("deploy", 100)
        with store.snapshot() as view:
            loaded = view.load_ranked(space, keys, claims_only=True, limit=10)
            prefetched = dict(getattr(view, "_cache"))  # noqa: B009 - what the load brought along
            together = {i: view.relations(space, record_id=i) for i in ids}
    assert sorted(m.id for m in loaded) == sorted(ids)
    assert {k[2] for k in prefetched if k[0] == "relations"} == set(ids)
    assert together == alone
    assert len(alone[ids[1]]) == 3 and alone[ids[5]] == [] and alone[ids[4]] == []


def test_a_snapshot_keeps_nothing_for_the_next(pg_url):
    """Negative control for the cache: a relation written by another connection while a
    snapshot is open is not seen in it (one consistent state), and is in the next one."""
    with Cairn(pg_url, now=Clock()) as cairn:
        ids = _seed(cairn)
        store, space = cairn.store, cairn.space
        keys = store.term_postings("deploy", 100)
        with store.snapshot() as view:
            view.load_ranked(space, keys, claims_only=True, limit=10)
            before = view.relations(space, record_id=ids[5])
            with Cairn(pg_url, now=Clock()) as other:
                other.relate(ids[5], "qualifies", ids[0])
            assert view.relations(space, record_id=ids[5]) == before == []
        with store.snapshot() as view:
            view.load_ranked(space, keys, claims_only=True, limit=10)
            assert [r.to_id for r in view.relations(space, record_id=ids[5])] == [ids[0]]
        assert getattr(store, "_cache") is None  # noqa: B009
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM relations WHERE from_id = %s", (ids[5],)).fetchone() == (1,)


def test_relations_read_with_records_by_id_equal_their_own_reads(pg_url):
    with Cairn(pg_url, now=Clock()) as cairn:
        ids = _seed(cairn)
        store, space = cairn.store, cairn.space
        alone = {i: store.relations(space, record_id=i) for i in ids}
        asked = [ids[1], ids[4], ids[5], "no-such-record"]
        with store.snapshot() as view:
            found = view.get_memories(space, asked)
            prefetched = {k[2]: v for k, v in getattr(view, "_cache").items() if k[0] == "relations"}  # noqa: B009
        assert set(found) == set(asked[:3])
        assert prefetched == {**{i: alone[i] for i in asked[:3]}, "no-such-record": []}
        assert len(prefetched[ids[1]]) == 3 and prefetched[ids[4]] == []  # its one relation was removed
        assert store.get_memories(space, asked) == found  # outside a snapshot: the same records
