"""What maintenance and retention read without decoding every record: the store's record
facts (the same on every backend as the decoded records say, read from an index in
SQLite) and the ledger folded from the trust events alone (the same as from the whole log)."""

from __future__ import annotations

from datetime import timedelta

from cairn import Cairn
from cairn.engine.trust import LEDGER_REASONS, Ledger
from cairn.model import Status
from cairn.store.protocol import facts_of


def _varied(cairn: Cairn, clock) -> dict[str, str]:
    ids = {
        "plain": cairn.remember("The staging host runs Debian 12", kind="fact").memory.id,
        "pinned": cairn.remember("Billing owner is Dana", kind="fact", pin=True).memory.id,
        "state": cairn.remember("The migration is in phase one", kind="project_state").memory.id,
        "purged": cairn.remember("A secret that was pasted", kind="fact").memory.id,
        "forgotten": cairn.remember("An old note", kind="fact").memory.id,
        "confirmed": cairn.remember("The cache TTL is ten minutes", kind="fact").memory.id,
    }
    cairn.forget(ids["forgotten"])
    cairn.forget(ids["purged"], purge=True)
    clock.at += timedelta(days=3)
    cairn.confirm(ids["confirmed"])
    return ids


def test_record_facts_agree_with_the_decoded_records_on_each_backend(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        ids = _varied(cairn, clock)
        facts = {f.id: f for f in backend.record_facts(cairn.space)}
        decoded = {m.id: facts_of(m) for m in backend.iter_memories(cairn.space)}
        assert set(facts) == set(ids.values()) - {ids["forgotten"], ids["purged"]}  # out of every policy
        assert all(facts[i] == decoded[i] for i in facts)
        assert facts[ids["pinned"]].pinned and not facts[ids["plain"]].pinned
        assert facts[ids["confirmed"]].reinforced_at == clock.at.timestamp()  # control: a moved clock is read
        only = backend.record_facts(cairn.space, kinds=("project_state",), statuses=("provisional",))
        assert [f.id for f in only] == [ids["state"]]


def test_sqlite_reads_the_facts_from_the_index_and_skips_a_malformed_row(cairn, clock):
    ids = _varied(cairn, clock)
    sql = ("EXPLAIN QUERY PLAN SELECT id, revision, layer, evidence_at, reinforced_at FROM memories"
           " INDEXED BY memories_by_trust WHERE space = 'default' AND status NOT IN ('retired', 'forgotten')")
    assert "memories_by_trust" in str(cairn.store.conn.execute(sql).fetchall())
    with cairn.store.write() as tx:
        tx.conn.execute("UPDATE memories SET data = 'not json' WHERE id = ?", (ids["plain"],))
    assert ids["plain"] not in {f.id for f in cairn.store.record_facts(cairn.space)}
    assert ids["state"] in {f.id for f in cairn.store.record_facts(cairn.space)}  # control


def test_the_ledger_of_trust_events_alone_is_the_ledger_of_the_whole_log(cairn, clock):
    up = cairn.remember("Releases are cut on Mondays", kind="fact").memory
    down = cairn.remember("The cache TTL is ten minutes", kind="fact").memory
    for _ in range(2):
        cairn.reinforce(up.id, "explicit_reinforcement")
        cairn.reinforce(down.id, "explicit_correction")
    cairn.reinforce(up.id, "neutral_exposure", session="s1", neutral=True)
    recalled = cairn.recall("cache TTL")
    cairn.report_use(recalled.trace, "used", [down.id])
    undone = cairn.reinforce(up.id, "implicit_success").event
    assert undone is not None
    cairn.undo(undone.id)
    clock.at += timedelta(days=1)
    cairn.apply_maintenance(dict(cairn.maintenance_plan()), auto=True)
    cairn.apply_maintenance(dict(cairn.maintenance_plan()))
    whole = Ledger(cairn.store.events(cairn.space, newest_first=False))
    trust = Ledger(cairn.store.events_by_reason(cairn.space, LEDGER_REASONS))
    assert trust.states == whole.states
    assert whole.states[up.id].stability == "stable" and whole.states[down.id].reports == ["used"]
    assert [s.outcome for s in whole.states[up.id].supports].count("implicit_success") == 0  # undone
    assert cairn.get(down.id).status is Status.CONFLICTED  # the manual plan applied the contested mark
    # Control: a prefix list that misses one writer's reason does miss its events.
    partial = Ledger(cairn.store.events_by_reason(cairn.space, ("use report ",)))
    assert partial.states != whole.states


def test_a_confirmed_record_is_not_overdue(cairn, clock):
    kept = cairn.remember("Backups run nightly at two", kind="fact").memory
    other = cairn.remember("Deploys happen on Tuesdays", kind="fact").memory
    clock.at += timedelta(days=60)
    cairn.confirm(kept.id)
    clock.at += timedelta(days=31)
    due = {o["id"] for o in cairn.maintenance_plan()["ops"] if o["op"] == "review_due"}
    assert other.id in due and kept.id not in due  # its cadence counts from the confirmation
