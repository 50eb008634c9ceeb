"""The confidences recall attaches are read the short way (``Trust.confidences``: only the
ledger events of each result's history, in one query for all results) and must equal the
long way (``Trust.confidence`` of each record: its whole history decoded) for every record,
on every backend, including after later events and an undo."""

from __future__ import annotations

import json
from datetime import timedelta

from cairn import Cairn
from cairn.bench.scale import Generator
from cairn.engine.trust import LEDGER_REASONS, Ledger, Trust


def _build(cairn: Cairn, clock) -> dict[str, str]:
    """Claims with corrections, verdicts, confirmations, relations, reinforcement (one of
    them undone), a use report and applied maintenance; a conversation; a bulk import."""
    ids = {
        "port": cairn.remember("The staging database listens on port 5432", kind="fact", certainty="high").memory.id,
        "pg": cairn.remember("Use PostgreSQL 16 for billing", kind="decision").memory.id,
        "ttl": cairn.remember("The cache TTL is ten minutes", kind="fact").memory.id,
        "deploy": cairn.remember("Deploys run on Fridays", kind="fact", basis="summary", certainty="low").memory.id,
        "owner": cairn.remember("Billing owner is Dana", kind="fact").memory.id,
    }
    ids["pg17"] = cairn.remember("Use PostgreSQL 17 for billing", kind="decision",
                                 relates=[("corrects", ids["pg"])]).memory.id
    cairn.correct(ids["owner"], "Billing owner is Dana Ruiz")
    cairn.relate(ids["deploy"], "contradicts", ids["ttl"])
    cairn.feedback(ids["port"], "accurate", source="s1")
    cairn.feedback(ids["deploy"], "incorrect", source="s2")
    clock.at += timedelta(days=2)
    cairn.confirm(ids["ttl"])
    for day in range(3):
        clock.at += timedelta(days=1)
        cairn.reinforce(ids["port"], "explicit_reinforcement", source=f"agent-{day}")
        cairn.reinforce(ids["ttl"], "explicit_correction")
    undone = cairn.reinforce(ids["port"], "implicit_success", source="agent-9").event
    assert undone is not None
    cairn.undo(undone.id)
    recalled = cairn.recall("cache TTL")
    assert recalled.trace is not None
    cairn.report_use(recalled.trace, "used", [ids["ttl"]])
    clock.at += timedelta(days=40)
    cairn.apply_maintenance(dict(cairn.maintenance_plan()), auto=True)
    turns = [json.dumps({"id": f"t{i}", "speaker": "Ana" if i % 2 else "Ben",
                         "text": f"Turn {i}: Ana fixed the lake boat's engine with wrench {i}",
                         "time": "2026-05-02T10:00:00Z"}) for i in range(40)]
    cairn.ingest(turns, origin="chat")
    cairn.import_(list(Generator(60, 7).lines()))
    return ids


def _every_id(cairn: Cairn) -> list[str]:
    return [m.id for m in cairn.store.iter_memories(cairn.space)]


def _long_way(cairn: Cairn, ids: list[str]) -> dict:
    trust = Trust(cairn.scope)
    found = cairn.store.get_memories(cairn.space, ids)
    return {i: trust.confidence(m).to_dict() for i, m in found.items()}


def _short_way(cairn: Cairn, ids: list[str]) -> dict:
    return {i: c.to_dict() for i, c in Trust(cairn.scope).confidences(ids).items()}


def test_the_short_way_equals_the_long_way_for_every_record_on_each_backend(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        ids = _build(cairn, clock)
        every = _every_id(cairn)
        assert len(every) > 100  # claims, turns and the imported batch
        assert _short_way(cairn, every) == _long_way(cairn, every)
        # The store holds what the rules read: each kind of ground is exercised.
        named = {g["name"] for doc in _short_way(cairn, list(ids.values())).values() for g in doc["grounds"]}
        assert {"corrected", "contradicted", "verdict-accurate", "verdict-incorrect", "corroborations",
                "reinforcement"} <= named


def test_recall_results_carry_the_long_way_confidence(cairn, clock):
    _build(cairn, clock)
    asked = [("cache TTL", None), ("billing owner", None), ("PostgreSQL for billing", None),
             ("what did Ana fix with wrench 7", "episodes"), ("Ana lake boat engine", None)]
    for query, lane in asked:
        recalled = cairn.search(query, lane=lane, trace=False)
        assert recalled.confidence is not None and recalled.ids, query
        assert dict(recalled.confidence) == _long_way(cairn, recalled.ids)


def test_a_later_event_and_its_undo_are_read(cairn, clock):
    ids = _build(cairn, clock)
    target = [ids["owner"], ids["pg"]]
    first = _short_way(cairn, target)
    clock.at += timedelta(days=1)
    later = cairn.reinforce(ids["owner"], "explicit_reinforcement", source="agent-new").event
    assert later is not None
    moved = _short_way(cairn, target)
    assert moved == _long_way(cairn, target)
    assert moved[ids["owner"]] != first[ids["owner"]] and moved[ids["pg"]] == first[ids["pg"]]
    cairn.undo(later.id)
    back = _short_way(cairn, target)
    assert back == _long_way(cairn, target) == first


def test_the_ledger_events_of_a_history_are_its_events_with_those_reasons(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        ids = _build(cairn, clock)
        every = _every_id(cairn)
        found = backend.history_by_reason(cairn.space, every, LEDGER_REASONS)
        for i in every:
            whole = backend.events(cairn.space, record_id=i, newest_first=False)
            expected = [e.id for e in whole if e.reason.startswith(LEDGER_REASONS)]
            assert [e.id for e in found.get(i, [])] == expected
            assert Ledger(found.get(i, [])).state(i) == Ledger(whole).state(i)
        # Control: the undo is what cancels the undone reinforcement; a list missing the
        # undo reason would fold it back in and change the record's supports.
        port = ids["port"]
        partial = backend.history_by_reason(cairn.space, [port], ("reinforce ",))[port]
        assert Ledger(partial).state(port) != Ledger(found[port]).state(port)
        assert backend.history_by_reason(cairn.space, [], LEDGER_REASONS) == {}
        assert backend.history_by_reason(cairn.space, every, ()) == {}


def test_a_recalled_turn_does_not_decode_its_conversation(cairn, clock, monkeypatch):
    from cairn.store.sqlite import backend as sqlite_backend

    _build(cairn, clock)
    turns = [m.id for m in cairn.store.iter_memories(cairn.space, kinds=("episode",))][:5]
    decoded: list[str] = []
    real = sqlite_backend.event_from_dict

    def counting(data):
        event = real(data)
        decoded.append(event.reason)
        return event

    monkeypatch.setattr(sqlite_backend, "event_from_dict", counting)
    short = _short_way(cairn, turns)
    assert decoded == []  # no ledger event in a turn's history: nothing decoded
    long = _long_way(cairn, turns)
    assert short == long
    assert decoded and all(r.startswith("ingest") for r in decoded)  # control: the long way decodes the ingest
