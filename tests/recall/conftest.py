"""Fixtures of the recall tests: quick record creation at a given time, and a digest of
the record/event tables only (a recall may write its trace, nothing else)."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

RECORD_TABLES = ("memories", "events", "event_records", "relations", "memories_fts", "feedback_receipts", "sources")


def records_fingerprint(path: Path) -> str:
    """Digest of every table except ``traces`` (and the FTS shadow tables)."""
    conn = sqlite3.connect(path)
    try:
        digest = hashlib.sha256()
        for table in RECORD_TABLES:
            for row in conn.execute(f"SELECT rowid, * FROM {table} ORDER BY rowid"):
                digest.update(repr((table, row)).encode())
        return digest.hexdigest()
    finally:
        conn.close()


def trace_count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def mem(cairn, clock):
    """``mem(text, kind="fact", days_ago=0, **remember_options) -> id``."""

    def make(text: str, kind: str = "fact", days_ago: float = 0, **options) -> str:
        saved = clock.at
        clock.at = saved - timedelta(days=days_ago)
        try:
            return cairn.remember(text, kind=kind, **options).memory.id
        finally:
            clock.at = saved

    return make
