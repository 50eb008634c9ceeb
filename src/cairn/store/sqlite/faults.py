"""Damage on purpose, for the hardening drills (``cairn.bench.drills``): the few raw SQL
writes that make a database Cairn must refuse or read around. Never used by the engine.

* :func:`foreign_database` — a SQLite file of another program (one table of its own);
* :func:`from_a_newer_cairn` — a Cairn database stamped with a migration this code does
  not know, switched to the rollback journal so that a WAL switch would show;
* :func:`malform_rows` — replace the JSON body of a few rows with an unreadable value.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from ..migrations import MIGRATIONS

# SQL literals of bodies no reader can parse: invalid UTF-8, a BLOB, a number, bad JSON,
# JSON of the wrong shape, NULL (refused by NOT NULL, leaving the file as it was).
UNREADABLE = ("CAST(x'7b22e9227d' AS TEXT)", "x'7b7d'", "42", "'{not json'", "'[1]'", "NULL", "'{\"id\": 5}'")


def foreign_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    finally:
        conn.close()


def from_a_newer_cairn(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("INSERT INTO schema_migrations (seq, name, applied_at) VALUES (?, 'from_the_future', '2030-01-01')",
                     (len(MIGRATIONS) + 1,))
        conn.commit()
    finally:
        conn.close()


def malform_rows(path: Path, rng: random.Random, rows: int = 2) -> None:
    table = rng.choice(["memories", "events", "relations"])
    conn = sqlite3.connect(path)
    try:
        conn.execute(f"UPDATE {table} SET data = {rng.choice(UNREADABLE)} WHERE rowid IN"
                     f" (SELECT rowid FROM {table} ORDER BY random() LIMIT ?)", (rows,))
        conn.commit()
    except sqlite3.Error:
        pass  # NOT NULL: the database stays as it was, still a valid case
    finally:
        conn.close()
