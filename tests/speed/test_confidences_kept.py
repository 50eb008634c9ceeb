"""A recall's confidences reuse the relations and ledger histories read while the store's
data is unchanged, and read them again after any write (this connection's or another's)."""

from __future__ import annotations

from datetime import timedelta

from cairn import Cairn
from cairn.engine.trust import Trust


def _reads(cairn, ids: list[str]) -> tuple[dict, list[str]]:
    seen: list[str] = []
    cairn.store.conn.set_trace_callback(seen.append)
    try:
        found = {i: c.to_dict() for i, c in Trust(cairn.scope).confidences(ids).items()}
    finally:
        cairn.store.conn.set_trace_callback(None)
    return found, [s for s in seen if "FROM events" in s or "FROM relations" in s]


def _long_way(cairn, ids: list[str]) -> dict:
    trust = Trust(cairn.scope)
    return {i: trust.confidence(m).to_dict() for i, m in cairn.store.get_memories(cairn.space, ids).items()}


def test_kept_histories_and_relations_are_read_again_after_a_write(cairn, clock, db_path):
    a = cairn.remember("The cache TTL is ten minutes", kind="fact").memory.id
    b = cairn.remember("The cache TTL is five minutes", kind="fact").memory.id
    ids = [a, b]
    first, reads = _reads(cairn, ids)
    assert reads and first == _long_way(cairn, ids)
    again, reads = _reads(cairn, ids)
    assert again == first and reads == []  # nothing changed: nothing read again
    cairn.recall("cache TTL")  # a traced recall writes only its trace: still kept
    assert _reads(cairn, ids)[1] == []
    clock.at += timedelta(days=1)
    cairn.reinforce(a, "explicit_reinforcement", source="agent-1")  # this connection's write
    moved, reads = _reads(cairn, ids)
    assert reads and moved == _long_way(cairn, ids) and moved[a] != first[a]
    with Cairn(db_path, now=clock) as other:  # another connection's write
        other.relate(b, "contradicts", a)
    related, reads = _reads(cairn, ids)
    assert reads and related == _long_way(cairn, ids) and related[a] != moved[a]
