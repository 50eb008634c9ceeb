"""``import_`` writes a chunk of records without looking their ids up first when none of
them repeats another of the chunk (SQLite: ``put_docs_if_new``); were one of them stored
already, nothing of that attempt is written and the chunk is looked up and written as
before. Either way the store must end exactly as the look-up path leaves it: rows with
their rowids, the full-text index, term statistics, relations, events and the counts of
the import. The controls: the look-up is really skipped for a new chunk, and really taken
when an id is stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cairn import Cairn
from cairn.bench.scale import NOW, Generator
from cairn.engine import transfer
from cairn.store.sqlite.backend import Tx
from testkit.db import STORE_ROWS

TABLES = STORE_ROWS

LINES = list(Generator(400).lines())  # claims, then the relations among them
MEMORY_LINES = [line for line in LINES if line.startswith('{"type":"memory"')]


def _dump(path: Path) -> dict[str, list]:
    conn = sqlite3.connect(path)
    try:
        return {table: conn.execute(sql).fetchall() for table, sql in TABLES.items()}
    finally:
        conn.close()


def _run(path: Path, batches: list[list[str]]) -> tuple[list[Any], dict[str, list]]:
    with Cairn(path, now=NOW) as cairn:
        counts = [cairn.import_(batch).to_dict() for batch in batches]
    return counts, _dump(path)


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batches: list[list[str]]) -> dict[str, int]:
    """Import ``batches`` with and without the shortcut and compare; return how often the
    records of a chunk were looked up on the shortcut's side."""
    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 40)
    looked = {"memories": 0}
    present_ids = Tx.present_ids

    def counting(self, table, space, ids):
        looked[table] = looked.get(table, 0) + 1
        return present_ids(self, table, space, ids)

    with monkeypatch.context() as plain:
        plain.delattr(Tx, "put_docs_if_new")
        expected = _run(tmp_path / "plain.db", batches)
    monkeypatch.setattr(Tx, "present_ids", counting)
    got = _run(tmp_path / "fast.db", batches)
    assert got[0] == expected[0]
    for table in TABLES:
        assert got[1][table] == expected[1][table], table
    assert expected[1]["memories"] and expected[1]["memories_fts"] and expected[1]["term_stats"]
    return looked


def test_new_records_are_written_without_a_look_up(tmp_path, monkeypatch) -> None:
    looked = _both(tmp_path, monkeypatch, [LINES[:200], LINES[200:]])
    assert looked["memories"] == 0


def test_a_stored_record_in_a_chunk_writes_nothing_of_the_attempt(tmp_path, monkeypatch) -> None:
    # Every seventh record imported first: most later chunks hold a stored id somewhere
    # (first, middle or last line), and their attempt must leave no row, index entry or
    # term count behind.
    looked = _both(tmp_path, monkeypatch, [MEMORY_LINES[::7], LINES, MEMORY_LINES[-1:]])
    assert looked["memories"] > 0


def test_a_record_twice_in_a_chunk_or_across_chunks(tmp_path, monkeypatch) -> None:
    again = [*MEMORY_LINES[:30], MEMORY_LINES[3], *MEMORY_LINES[30:90], MEMORY_LINES[50], *MEMORY_LINES[10:12]]
    # The repeat keeps its id with another text: the first line stands either way.
    changed = json.loads(MEMORY_LINES[5])
    changed["data"]["content"] = "a different text under the same id"
    looked = _both(tmp_path, monkeypatch, [[*again, json.dumps(changed)]])
    assert looked["memories"] > 0


def test_a_row_ignored_for_another_reason_is_not_lost(tmp_path, monkeypatch) -> None:
    """The attempt's ``OR IGNORE`` also passes over a row the table refuses for another
    reason than its id (here a NOT NULL column): that too undoes the attempt, and the
    chunk is written by the look-up path, every record of it."""
    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 40)
    put_docs_if_new = Tx.put_docs_if_new
    answers = []

    def with_a_null(self, rows):
        doc, text = rows[0]
        answers.append(put_docs_if_new(self, [({**doc, "origin": None}, text), *rows[1:]]))
        return answers[-1]

    monkeypatch.setattr(Tx, "put_docs_if_new", with_a_null)
    with Cairn(tmp_path / "x.db", now=NOW) as cairn:
        assert cairn.import_(MEMORY_LINES[:80]).records == 80
    assert answers == [False, False]
    rows = _dump(tmp_path / "x.db")
    assert len(rows["memories"]) == len(rows["memories_fts"]) == 80
    assert [r[0] for r in rows["memories"]] == list(range(1, 81))
    assert [r[2] for r in rows["memories"]] == [json.loads(line)["data"]["id"] for line in MEMORY_LINES[:80]]
    assert rows["space_stats"] == [("default", 80)]
