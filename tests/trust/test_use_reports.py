"""Use reports: joined to the trace, classified, aggregated; refused for unknown/expired
traces and foreign refs; never a ranking input."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput, NotFound, Refused
from cairn.mcp.registry import call


@pytest.fixture
def store(cairn):
    old = cairn.remember("The billing database runs PostgreSQL 16", kind="decision").memory
    port = cairn.remember("The billing database listens on port 5432", kind="fact").memory
    return cairn, old, port


def test_wrong_on_a_record_never_corrected_is_disputed_then_stale_once_corrected(store):
    cairn, old, port = store
    recalled = cairn.recall("billing database")
    assert old.id in recalled.ids
    first = cairn.report_use(recalled.trace, "wrong", [old.id[:8]])
    assert first.classes == {old.id: "disputed"}
    cairn.remember("The billing database runs PostgreSQL 17", kind="decision", relates=[("corrects", old.id)])
    second = cairn.report_use(recalled.trace, "wrong", [old.id])
    assert second.classes == {old.id: "stale"}
    joined = [e.data["use_report"]["trace"] for e in cairn.history(old.id) if "use_report" in e.data]
    assert joined == [recalled.trace] * 2  # both reports sit in the record's history, joined to the trace


def test_unused_on_everything_returned_is_an_irrelevant_digest(store):
    cairn, old, port = store
    recalled = cairn.recall("billing database", limit=5)
    assert len(recalled.ids) == 2
    assert set(cairn.report_use(recalled.trace, "unused", recalled.ids).classes.values()) == {"irrelevant-digest"}
    assert set(cairn.report_use(recalled.trace, "unused", recalled.ids[:1]).classes.values()) == {"unused"}
    assert cairn.report_use(recalled.trace, "used", recalled.ids[:1]).classes == {recalled.ids[0]: None}


def test_unknown_expired_and_foreign_refs_are_refused_and_nothing_is_written(store, clock):
    cairn, old, port = store
    other = cairn.remember("Lunch is at noon on Fridays", kind="fact").memory
    recalled = cairn.recall("billing database")
    events = cairn.store.count_events("default")
    with pytest.raises(NotFound):
        cairn.report_use("0" * 24, "used", [old.id])
    with pytest.raises(InvalidInput, match="not one of the records"):
        cairn.report_use(recalled.trace, "used", [other.id])
    with pytest.raises(InvalidInput):
        cairn.report_use(recalled.trace, "liked", [old.id])
    clock.at += timedelta(days=15)
    with pytest.raises((NotFound, Refused)):
        cairn.report_use(recalled.trace, "used", [old.id])
    assert cairn.store.count_events("default") == events


def test_reports_never_change_ranking(store):
    cairn, old, port = store
    before = cairn.recall("billing database", limit=5)
    for _ in range(5):
        cairn.report_use(before.trace, "wrong", [before.ids[0]])
    after = cairn.recall("billing database", limit=5)
    assert after.ids == before.ids


def test_summary_aggregates_by_lane_kind_age_basis_without_text(store):
    cairn, old, port = store
    recalled = cairn.recall("billing database", limit=5)
    cairn.report_use(recalled.trace, "used", [port.id])
    cairn.report_use(recalled.trace, "wrong", [old.id])
    s = cairn.report_summary()
    assert s["reports"] == 2
    assert s["kind"]["fact"]["use_rate"] == 1.0 and s["kind"]["decision"]["use_rate"] == 0.0
    assert [r["reports"] for r in s["lane"].values()] == [2]  # one lane: the recall's own
    assert s["age"]["<7d"]["reports"] == 2
    assert s["basis"]["user_statement"]["reports"] == 2 and s["failure_classes"] == {"disputed": 1}
    text = json.dumps(s)
    assert "PostgreSQL" not in text and "billing" not in text
    assert cairn.report_summary(since=cairn.now() + timedelta(seconds=1))["reports"] == 0


def test_round_trip_through_the_cli_and_mcp(store, cli, db_path):
    cairn, old, port = store
    recalled = cli("--json", "recall", "billing database").json()
    done = cli("--json", "report", recalled["trace"], "wrong", old.id)
    assert done.code == 0 and done.json()["refs"] == [{"id": old.id, "failure_class": "disputed"}]
    refused = cli("report", "f" * 24, "used", old.id)
    assert refused.code == 1 and refused.err.count("\n") == 1
    with Cairn(db_path) as engine:
        mcp_recall = call(engine, "memory_recall", {"query": "billing database"})
        reply = call(engine, "memory_report_use", {"trace": mcp_recall.doc["trace"], "verdict": "used",
                                                   "ids": [port.id]})
        bad = call(engine, "memory_report_use", {"trace": "f" * 24, "verdict": "used", "ids": [port.id]})
    assert not reply.error and reply.doc["refs"] == [{"id": port.id, "failure_class": None}]
    assert bad.error and "recall trace" in bad.text
    summary = cli("--json", "report", "--summary").json()
    assert summary["reports"] == 2
