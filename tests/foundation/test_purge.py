"""forget keeps the content for history; forget --purge erases it from the record, the
full-text index and every event snapshot."""

from __future__ import annotations

import sqlite3

import pytest

from cairn import Refused, UndoRefused
from cairn.model import Status
from cairn.store.sqlite import dumps

SECRETLESS = "The quarterly numbers live in the finance-reports bucket"


def _everything(db_path) -> str:
    conn = sqlite3.connect(db_path)
    try:
        parts = []
        for table in ("memories", "events", "memories_fts"):
            parts += [repr(r) for r in conn.execute(f"SELECT * FROM {table}")]
        return "\n".join(parts)
    finally:
        conn.close()


def test_forget_keeps_content_for_history(cairn, db_path):
    m = cairn.remember(SECRETLESS, kind="fact").memory
    cairn.forget(m.id)
    assert cairn.get(m.id).status is Status.FORGOTTEN
    assert "finance" in _everything(db_path)  # negative control for the purge below


def test_purge_erases_content_from_record_index_and_every_event(cairn, db_path):
    m = cairn.remember(SECRETLESS, kind="fact", aliases=["finance-reports"]).memory
    cairn.pin(m.id)
    cairn.forget(m.id)
    other = cairn.remember("The finance team meets on Mondays", kind="fact").memory
    cairn.forget(m.id, purge=True)
    dump = _everything(db_path)
    assert "quarterly" not in dump and "bucket" not in dump and "finance-reports" not in dump
    purged = cairn.get(m.id)
    assert purged.content == "" and purged.aliases == () and purged.purged_at is not None
    assert purged.status is Status.FORGOTTEN
    # The index no longer finds it, while other records are still indexed.
    assert [i for i, _ in cairn.store.fts_match("default", "quarterly", 10)] == []
    assert [i for i, _ in cairn.store.fts_match("default", "financ", 10)] == [other.id]
    # The events remain (history keeps its shape), minus the content.
    assert len(cairn.history(m.id)) == 4


def test_purge_cannot_be_undone_and_blocks_older_undos(cairn):
    r = cairn.remember(SECRETLESS, kind="fact")
    purge = cairn.forget(r.memory.id, purge=True)
    with pytest.raises(UndoRefused):
        cairn.undo(purge.id)
    with pytest.raises(UndoRefused):
        cairn.undo(r.event.id)


def test_purge_twice_is_refused(cairn):
    m = cairn.remember(SECRETLESS, kind="fact").memory
    cairn.forget(m.id, purge=True)
    with pytest.raises(Refused):
        cairn.forget(m.id, purge=True)


def test_dumps_is_compact_utf8():
    assert dumps({"a": "é"}) == '{"a":"é"}'
