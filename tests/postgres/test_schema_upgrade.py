"""A database written at the oldest schema (0001) gains ``term_postings`` on opening:
filled from the index it already holds, it answers as the GIN index does."""

from __future__ import annotations

import psycopg

from cairn import Cairn
from cairn.store.postgres import schema
from cairn.text import index_text
from testkit import Clock


def test_postings_are_filled_from_the_index_of_an_oldest_schema_database(pg_url, monkeypatch):
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    with Cairn(pg_url, now=Clock()) as cairn:
        assert cairn.store.schema_version() == 1
        for n in range(5):
            cairn.remember(f"Deploy note {n} about the billing ledger", kind="fact", aliases=["ledger book"])
        cairn.remember("An unrelated note on lunch", kind="fact")
    monkeypatch.undo()
    ledger, book = index_text("ledger"), index_text("book")
    with Cairn(pg_url, now=Clock()) as cairn:
        assert cairn.store.schema_version() == 2
        with psycopg.connect(pg_url) as conn:
            gin = [r[0] for r in conn.execute("SELECT key FROM memory_index WHERE lexemes @@ %s::tsquery ORDER BY key DESC",
                                              (f"'{ledger}' | '_{ledger}'",))]
        assert cairn.store.term_postings(ledger, 10) == gin and len(gin) == 5
        assert len(cairn.store.term_postings(book, 10)) == 5  # a term held in the aliases only
        assert cairn.store.term_postings(index_text("zeppelin"), 10) == []  # negative control
        cairn.remember("One more ledger note", kind="fact")  # and kept up from then on
        assert len(cairn.store.term_postings(ledger, 10)) == 6
