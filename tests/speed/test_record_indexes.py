"""The indexes on ``memories`` that every write pays for, and the reads they serve.

Migration ``0016_leaner_record_indexes`` drops ``memories_by_id`` and ``memories_by_hash``:
an older store migrates (its reads answer as before), and the reads that used the dropped
indexes are still searches of an index or of rowids, never a walk of the space.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cairn import Cairn
from cairn.store import SCHEMA_VERSION
from cairn.store.sqlite import Store
from testkit.db import query_plans


def _indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memories'"
                                           " AND name NOT LIKE 'sqlite_autoindex%'")}
    finally:
        conn.close()


def _fill(c: Cairn) -> None:
    c.remember("Billing runs on PostgreSQL 16 in Frankfurt", kind="fact", origin="ops")
    c.remember("Billing runs on PostgreSQL 16 in Frankfurt", kind="fact", origin="dev")
    c.ingest(['{"id": "t1", "speaker": "Ana", "text": "the billing move is done", "time": "2026-04-01T10:00:00Z"}'],
             origin="chat")


def test_an_older_store_drops_the_two_indexes_and_answers_as_before(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        _fill(c)
    conn = sqlite3.connect(db_path)  # the schema as 0015 left it
    conn.execute("CREATE INDEX memories_by_id ON memories (id)")
    conn.execute("CREATE INDEX memories_by_hash ON memories (space, origin, content_hash)")
    conn.execute("DELETE FROM schema_migrations WHERE name = '0016_leaner_record_indexes'")
    conn.commit()
    conn.close()
    assert {"memories_by_id", "memories_by_hash"} <= _indexes(db_path)  # control: really the old schema
    with Cairn(db_path, now=clock) as c:
        assert c.store.schema_version() == SCHEMA_VERSION
        again = c.remember("billing runs on postgresql 16 in frankfurt.", kind="fact", origin="ops")
        assert again.deduplicated  # the dedup read by (origin, hash) still finds its record
        assert c.store.episode_source_ids(c.space, "chat") == {"t1"}
        assert c.ingest(['{"id": "t1", "speaker": "Ana", "text": "the billing move is done",'
                         ' "time": "2026-04-01T10:00:00Z"}'], origin="chat").skipped == 1
    assert _indexes(db_path) == {"memories_by_status", "memories_by_turn", "memories_by_content", "memories_by_trust"}


def test_the_reads_that_used_the_dropped_indexes_search_rather_than_walk(tmp_path):
    store = Store.open(tmp_path / "x.db")
    try:
        with store.snapshot() as view, query_plans(view) as plans:
            view.memories_with_hash("a", "ops", "h1")
            view.episode_source_ids("a", "chat")
            view.mentioning("a", "ops", ["billing", "frankfurt"])
        assert len(plans) == 3
        assert "memories_by_content (space=? AND content_hash=?)" in plans[0], plans[0]
        assert "memories_by_turn (space=? AND origin=?" in plans[1], plans[1]
        assert "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)" in plans[2], plans[2]
        assert not any("SCAN memories " in plan or "SCAN m " in plan for plan in plans), plans
    finally:
        store.close()
