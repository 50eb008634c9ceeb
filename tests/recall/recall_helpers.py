"""Helpers of the recall tests: digests of the database to prove what a recall wrote."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

RECORD_TABLES = ("memories", "events", "event_records", "relations", "memories_fts", "feedback_receipts", "sources")


def _digest(path: Path, tables) -> str:
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
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
    finally:
        conn.close()
