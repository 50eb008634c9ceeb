"""A bulk write's COMMIT (ingest, ``remember_many``) leaves the WAL unfolded up to
``BULK_CHECKPOINT_PAGES``; every other write keeps SQLite's automatic checkpoint as the
connection has it, and so does the connection after the bulk write, failed or not.

Whether a commit folded the WAL is read from the database file itself: in WAL mode only
a checkpoint writes to it. The connection's own threshold is set to a few pages here, so
that a small write crosses it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import cast

import pytest

from cairn import Cairn
from cairn.engine import ingesting
from cairn.errors import StoreError
from cairn.store.sqlite import Store
from cairn.store.sqlite.backend import BULK_CHECKPOINT_PAGES, Tx
from testkit import Clock

TURNS = [f'{{"id": "t{n}", "speaker": "Ana", "text": "turn {n} about the move to Lisbon", "time": "2026-04-01T10:{n:02d}:00Z"}}'
         for n in range(20)]
PLAIN_PAGES = 5


def _file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _conn(c: Cairn) -> sqlite3.Connection:
    return cast(Store, c.store).conn


def _threshold(c: Cairn) -> int:
    return int(_conn(c).execute("PRAGMA wal_autocheckpoint").fetchone()[0])


def _opened(path: Path) -> Cairn:
    c = Cairn(path, now=Clock())
    _conn(c).execute(f"PRAGMA wal_autocheckpoint = {PLAIN_PAGES}")
    c.remember("Billing runs on PostgreSQL 16", kind="fact")  # a plain write: folded, past 5 pages
    return c


def test_a_bulk_commit_leaves_the_wal_unfolded_and_a_plain_one_folds_it(tmp_path):
    path = tmp_path / "x.db"
    with _opened(path) as c:
        folded = _file(path)
        c.ingest(TURNS, origin="chat", progress=False)
        c.remember_many([{"text": f"Claim {n} about the ledger", "kind": "fact"} for n in range(20)])
        assert _file(path) == folded  # neither commit wrote to the database file
        assert _threshold(c) == PLAIN_PAGES
        c.remember("Ana prefers tea over coffee", kind="preference")
        assert _file(path) != folded  # the plain write folded everything the bulk ones left
    assert BULK_CHECKPOINT_PAGES > 1000  # above SQLite's own default


def test_control_without_the_deferral_the_bulk_commit_folds(tmp_path, monkeypatch):
    monkeypatch.setattr(Tx, "defer_checkpoint", lambda self: None)
    path = tmp_path / "x.db"
    with _opened(path) as c:
        folded = _file(path)
        c.ingest(TURNS, origin="chat", progress=False)
        assert _file(path) != folded


def test_a_failed_bulk_write_keeps_the_connections_threshold(tmp_path, monkeypatch):
    with _opened(tmp_path / "x.db") as c:
        stored = c.store.iter_memories(c.space).__next__()
        monkeypatch.setattr(ingesting, "new_id", lambda: stored.id)  # a minted id meets a stored one
        with pytest.raises(StoreError):
            c.ingest(TURNS, origin="chat", progress=False)
        assert _threshold(c) == PLAIN_PAGES
        monkeypatch.undo()
        c.ingest(TURNS, origin="chat", progress=False)
        assert _threshold(c) == PLAIN_PAGES
        assert c.store.space_document_count(c.space) == 1 + len(TURNS)
