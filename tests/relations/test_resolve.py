"""resolve() on its own: the contract the recall pipeline relies on."""

from __future__ import annotations

from datetime import timedelta

from cairn.model import Relation, Role
from cairn.recall.resolve import Resolved, resolve


def run(cairn, ids, **kw):
    kw.setdefault("include_history", False)
    kw.setdefault("now", cairn.now())
    return resolve(cairn.store, cairn.space, ids, **kw)


def test_records_without_relations_come_back_unchanged(cairn, mem):
    ids = [mem(f"Plain record number {i}") for i in range(4)]
    assert run(cairn, ids) == [Resolved(i) for i in ids]
    assert run(cairn, ids[::-1], include_history=True) == [Resolved(i) for i in ids[::-1]]


def test_each_id_is_placed_once_and_the_chain_head_takes_the_best_rank(cairn, mem, clock):
    a = mem("Chain record alpha")
    clock.at += timedelta(hours=1)
    b = mem("Chain record beta", relates=[("corrects", a)])
    other = mem("Unrelated record gamma")
    got = run(cairn, [other, a, b])
    assert [r.id for r in got] == [other, b]
    assert got[1] == Resolved(b, ("corrected",), (a,), (), None, a)


def test_branching_corrections_resolve_to_the_newest(cairn, mem, clock):
    a = mem("Branch record root")
    clock.at += timedelta(hours=1)
    b = mem("Branch record first fix", relates=[("corrects", a)])
    clock.at += timedelta(hours=1)
    c = mem("Branch record second fix", relates=[("corrects", a)])
    assert [r.id for r in run(cairn, [a])] == [c]
    assert run(cairn, [b])[0].id == b  # b itself was never corrected


def test_a_cycle_in_imported_data_does_not_hang(cairn, mem):
    a, b = mem("Cycle record one"), mem("Cycle record two")
    with cairn.store.write() as tx:  # bypasses relate's checks, as a hand-edited import could
        for i, (x, y) in enumerate(((a, b), (b, a))):
            tx.put_relation(Relation(f"cyc{i}", cairn.space, x, Role.CORRECTS, y, cairn.now()))
    got = run(cairn, [a, b])
    assert len(got) == 1 and got[0].id in (a, b)


def test_forgotten_intermediate_still_leads_to_the_live_head(cairn, mem, clock):
    a = mem("Hop record start")
    clock.at += timedelta(hours=1)
    b = mem("Hop record middle", relates=[("corrects", a)])
    clock.at += timedelta(hours=1)
    c = mem("Hop record end", relates=[("corrects", b)])
    cairn.forget(b)
    assert [r.id for r in run(cairn, [a])] == [c]
    cairn.forget(c)  # no live successor left: the original stands
    assert [r.id for r in run(cairn, [a])] == [a]


def test_supersedes_waits_for_its_successor_to_begin(cairn, mem):
    a = mem("Price record current level")
    future = (cairn.now() + timedelta(days=30)).isoformat()
    b = mem("Price record next level", valid_from=future, relates=[("supersedes", a)])
    assert [r.id for r in run(cairn, [a])] == [a]
    later = cairn.now() + timedelta(days=31)
    assert [r.id for r in run(cairn, [a], as_of=later)] == [b]
    c = mem("Price record corrected level", valid_from=future, relates=[("corrects", a)])
    assert [r.id for r in run(cairn, [a])] == [c]  # a correction applies whenever one asks


def test_known_at_uses_relations_known_then(cairn, mem, clock):
    t0 = clock.at
    a, b = mem("Known record old"), mem("Known record new")
    clock.at = t0 + timedelta(days=1)
    cairn.relate(b, "supersedes", a)
    assert [r.id for r in run(cairn, [a], known_at=t0)] == [a]
    assert [r.id for r in run(cairn, [a], known_at=t0 + timedelta(days=2))] == [b]


def test_decision_rationale_only_for_a_direct_supersedes(cairn, mem, clock):
    d1 = mem("Decision record first", kind="decision")
    clock.at += timedelta(hours=1)
    d2 = mem("Decision record second", kind="decision", relates=[("supersedes", d1)])
    clock.at += timedelta(hours=1)
    d3 = mem("Decision record third", kind="decision", relates=[("supersedes", d2)])
    got = run(cairn, [d1, d2])
    assert [(r.id, r.markers, r.superseded_by) for r in got] == [
        (d3, ("corrected",), None), (d2, ("historical-rationale",), d3)]
    assert [r.id for r in run(cairn, [d1])] == [d3]  # two hops: no multi-hop rationale
    assert [r.id for r in run(cairn, [d1], include_history=True)] == [d3, d1]
