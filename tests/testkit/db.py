"""Digests of a database file, to prove what an operation wrote (or that it wrote nothing).
They read the SQLite file directly, beneath the engine, so a test sees every row.

- ``db_fingerprint``: every row of every table; a missing file digests as ``"absent"``.
- ``records_fingerprint``: every record table, not ``traces``: equal means no record or
  event changed (a recall may still have written its trace).
- ``full_fingerprint``: the record tables, traces and migrations: equal means nothing at
  all was written.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

RECORD_TABLES = ("memories", "events", "event_records", "relations", "memories_fts", "feedback_receipts", "sources")

# The rows a write leaves, table by table, each read in a fixed order: two stores written
# alike read the same (the bulk paths' tests compare a fast path with the plain one).
STORE_ROWS: dict[str, str] = {
    "memories": "SELECT rowid, space, id, origin, kind, status, created_at, updated_at, content_hash, data, turn"
                " FROM memories ORDER BY rowid",
    "memories_fts": "SELECT rowid, content, aliases FROM memories_fts ORDER BY rowid",
    "term_stats": "SELECT space, term, df FROM term_stats ORDER BY space, term",
    "space_stats": "SELECT space, docs FROM space_stats ORDER BY space",
    "relations": "SELECT rowid, space, id, data FROM relations ORDER BY rowid",
    "events": "SELECT seq, space, id, at, actor, reason, data FROM events ORDER BY seq",
    "event_records": "SELECT space, record_id, event_seq FROM event_records ORDER BY 1, 2, 3",
}


def db_fingerprint(path: Path) -> str:
    """A digest of every row of every table: equal before and after means nothing was written."""
    if not path.exists():
        return "absent"
    conn = sqlite3.connect(path)
    try:
        digest = hashlib.sha256()
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        for table in tables:
            if table.startswith("memories_fts_"):
                continue  # FTS shadow tables are covered through memories_fts itself
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
                digest.update(repr((table, row)).encode())
        return digest.hexdigest()
    finally:
        conn.close()


def _digest(path: Path, tables: Iterable[str]) -> str:
    conn = sqlite3.connect(path)
    try:
        digest = hashlib.sha256()
        for table in tables:
            for row in conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid"):
                digest.update(repr((table, row)).encode())
        return digest.hexdigest()
    finally:
        conn.close()


def records_fingerprint(path: Path) -> str:
    """Digest of every record table (not ``traces``): equal means no record/event changed."""
    return _digest(path, RECORD_TABLES)


def full_fingerprint(path: Path) -> str:
    """Digest of every table, traces included: equal means nothing at all was written."""
    return _digest(path, (*RECORD_TABLES, "traces", "schema_migrations"))


def trace_count(path: Path) -> int:
    """How many recall traces the database holds."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
    finally:
        conn.close()


@contextmanager
def query_plans(view: Any) -> Iterator[list[str]]:
    """Inside the block, every query ``view`` (a SQLite read view) runs also has its
    ``EXPLAIN QUERY PLAN`` appended to the yielded list; the view's connection is given back
    after."""
    plans: list[str] = []
    real = view.conn

    class Planned:
        def execute(self, sql: str, args: Any = ()) -> Any:
            plans.append(str(real.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()))
            return real.execute(sql, args)

    view.conn = Planned()
    try:
        yield plans
    finally:
        view.conn = real
