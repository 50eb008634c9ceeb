"""Recall writes nothing but its trace (docs/recall.md, "Traces"): records and events stay
byte-identical, traces are written by default, explain themselves, and are pruned
defensively after the retention window."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import timedelta

from cairn.model import format_time
from cairn.recall.gates import GATES, Reason
from cairn.recall.traces import RETENTION_DAYS, prune, read_traces
from testkit.db import full_fingerprint as db_fingerprint
from testkit.db import records_fingerprint, trace_count


def test_recall_leaves_records_and_events_byte_identical(cairn, mem, db_path):
    mem("The API service is deployed with Docker Compose", aliases=["deployment"])
    mem("The sprint board lives in Linear", kind="project_state", days_ago=30)
    before = records_fingerprint(db_path)
    export_before = io.StringIO()
    cairn.export(export_before)
    for query in ("api deployment", "sprint board", "ok", "nothing like this"):
        cairn.recall(query)
        cairn.search(query)
        cairn.explain(query)
    cairn.recall("sprint board", include_dormant=True, lane="all", known_at="2026-10-01", as_of="2026-10-01")
    assert records_fingerprint(db_path) == before
    export_after = io.StringIO()
    cairn.export(export_after)
    assert export_after.getvalue() == export_before.getvalue()  # export carries no traces
    assert trace_count(db_path) == 9


def test_no_trace_and_explain_write_nothing_at_all(cairn, mem, db_path):
    mem("The API service is deployed with Docker Compose")
    before = db_fingerprint(db_path)
    recalled = cairn.recall("api deployed", trace=False)
    cairn.explain("api deployed")
    assert recalled.trace is None and recalled.ids
    assert db_fingerprint(db_path) == before


def test_trace_records_features_selected_and_every_rejection_with_a_reason(cairn, mem):
    hit = mem("SQLite authentication uses a password file")
    other = mem("PostgreSQL authentication uses scram")
    gone = mem("SQLite authentication used to be disabled")
    cairn.forget(gone)
    recalled = cairn.recall("SQLite authentication")
    trace = read_traces(cairn.store, cairn.space)[0]
    assert trace["id"] == recalled.trace
    assert trace["query"]["features"] == ["sqlit", "authentication"]
    assert trace["selected"] == [hit]
    rejected = {r["id"]: r["reason"] for r in trace["rejected"]}
    assert set(rejected) == {other, gone}
    assert rejected[gone] == Reason.FORGOTTEN.value
    assert Reason(rejected[other]) in GATES  # rejected on relevance, and says which gate
    assert all(r["reason"] in {x.value for x in Reason} for r in trace["rejected"])


def test_rank_cut_entries_carry_a_reason_too(cairn, mem):
    ids = [mem(f"Zeppelin hangar inspection entry {i}") for i in range(5)]
    recalled = cairn.recall("zeppelin hangar inspection")
    trace = read_traces(cairn.store, cairn.space)[0]
    rejected = {r["id"]: r["reason"] for r in trace["rejected"]}
    assert set(rejected) == set(ids) - set(recalled.ids)
    assert set(rejected.values()) == {"rank-cut"}


def test_trace_never_holds_a_secret_of_the_query(cairn, mem):
    mem("The deploy token lives in the vault")
    cairn.recall("deploy token password=hunter2-very-secret")
    raw = json.dumps(read_traces(cairn.store, cairn.space))
    assert "hunter2" not in raw


def test_traces_are_pruned_after_the_retention_window(cairn, mem, clock):
    mem("The API service is deployed with Docker Compose")
    first = cairn.recall("api deployed").trace
    clock.at += timedelta(days=RETENTION_DAYS - 1)
    second = cairn.recall("api deployed").trace
    assert {t["id"] for t in read_traces(cairn.store, cairn.space)} == {first, second}
    clock.at += timedelta(days=2)
    third = cairn.recall("api deployed").trace
    assert {t["id"] for t in read_traces(cairn.store, cairn.space)} == {second, third}


def _insert(db_path, space, trace_id, at, body):
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("INSERT INTO traces (space, id, at, data) VALUES (?, ?, ?, ?)", (space, trace_id, at, body))
    conn.close()


def test_pruning_is_defensive(cairn, db_path, clock):
    old = format_time(clock.at - timedelta(days=30))
    good = "a" * 24
    rows = {
        good: ("default", old, json.dumps({"kind": "recall", "id": good})),
        "not-a-trace-id": ("default", old, json.dumps({"kind": "recall", "id": "not-a-trace-id"})),
        "b" * 24: ("default", "2026-02-30T00:00:00Z", json.dumps({"kind": "recall", "id": "b" * 24})),  # impossible date
        "c" * 24: ("default", old, json.dumps({"kind": "something-else", "id": "c" * 24})),
        "d" * 24: ("default", old, "{not json"),
        "e" * 24: ("elsewhere", old, json.dumps({"kind": "recall", "id": "e" * 24})),  # another space
        "f" * 24: ("default", format_time(clock.at - timedelta(days=1)), json.dumps({"kind": "recall", "id": "f" * 24})),
    }
    for trace_id, (space, at, body) in rows.items():
        _insert(db_path, space, trace_id, at, body)
    with cairn.store.write() as tx:
        removed = prune(tx, "default", clock.at)
    assert removed == 1
    conn = sqlite3.connect(db_path)
    left = {r[0] for r in conn.execute("SELECT id FROM traces")}
    conn.close()
    assert left == set(rows) - {good}


def test_read_only_store_recalls_without_a_trace(cairn, mem, db_path, clock):
    from cairn import Cairn

    mem("The API service is deployed with Docker Compose")
    before = db_fingerprint(db_path)
    with Cairn(db_path, now=clock, read_only=True) as reader:
        recalled = reader.recall("api deployed")
    assert recalled.ids and recalled.trace is None
    assert db_fingerprint(db_path) == before


def test_a_trace_can_be_read_back_by_id_in_its_space_only(cairn, mem):
    from cairn.recall.traces import get_trace

    mem("The API service is deployed with Docker Compose")
    trace_id = cairn.recall("api deployed").trace
    found = get_trace(cairn.store, cairn.space, trace_id)
    assert found is not None and found["id"] == trace_id
    assert get_trace(cairn.store, "elsewhere", trace_id) is None
    assert get_trace(cairn.store, cairn.space, "0" * 24) is None
