"""An import into an empty PostgreSQL store drops the secondary indexes it would update
row by row and builds them before commit: the store ends as the same import with every
index kept up to date leaves it (rows, statistics, postings, export), with the same
indexes; an import that fails leaves the store, indexes included, as it was."""

from __future__ import annotations

import io

import psycopg
import pytest

from cairn import Cairn
from cairn.engine import transfer
from cairn.errors import BadImportLine
from cairn.store.postgres.backend import PgTx
from testkit import Clock

from .test_bulk_copy import _state


def _indexes(url: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                            " ORDER BY indexname").fetchall()


def _constraints(url: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint"
                            " WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2").fetchall()


def _rows(url: str) -> tuple | None:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_index),"
                            " (SELECT count(*) FROM term_postings), (SELECT count(*) FROM events),"
                            " (SELECT count(*) FROM relations), (SELECT count(*) FROM term_df)").fetchone()


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> str:
    """An export with records, episodes, a relation, a purged record and the event log."""
    from .test_bulk_copy import _seed

    folder = tmp_path_factory.mktemp("dump")
    memories, events = _seed(folder)
    with Cairn(folder / "src.db", now=Clock()) as c:
        with c.store.write() as tx:
            tx.put_memories(memories)
            tx.append_events(events)
        bulk = {m.content: m.id for m in memories if m.content.startswith("Bulk record")}
        c.relate(bulk["Bulk record 2 on billing ledger exports, release 2"], "supersedes",
                 bulk["Bulk record 1 on billing ledger exports, release 1"])
        out = io.StringIO()
        c.export(out)
    return out.getvalue()


def test_an_import_into_an_empty_store_ends_as_the_indexed_path_with_the_same_indexes(pg_server, monkeypatch, dump,
                                                                                     tmp_path):
    rebuilt: list[str] = []
    finish = PgTx._finish

    def spy(tx: PgTx) -> None:
        rebuilt.extend(tx._deferred)
        finish(tx)

    monkeypatch.setattr(PgTx, "_finish", spy)
    deferred, kept = pg_server.new_database(), pg_server.new_database()
    states = []
    with Cairn(deferred, now=Clock()) as c:
        c.import_(io.StringIO(dump))
        states.append(_state(c))
    # Control: this path really dropped and rebuilt them, the GIN index of lexemes and the
    # index tables' keys among them.
    assert "memory_index_lexemes" in " ".join(rebuilt) and len(rebuilt) == 9
    assert [line.split()[5] for line in rebuilt[-3:]] == list(PgTx._CONSTRAINT_ORDER)
    monkeypatch.setattr(PgTx, "defer_indexes", lambda tx: False)
    with Cairn(kept, now=Clock()) as c:
        c.import_(io.StringIO(dump))
        states.append(_state(c))
    with Cairn(tmp_path / "lite.db", now=Clock()) as c:  # and as SQLite: PostgreSQL's own put_docs
        c.import_(io.StringIO(dump))
        states.append(_state(c))
    assert states[0] == states[1] == states[2]
    assert "\n".join(states[0]["export"]) + "\n" == dump  # export after import: byte-identical
    assert len(states[0]["export"]) > 40 and all(states[0]["answers"])
    assert _indexes(deferred) == _indexes(kept)
    assert _constraints(deferred) == _constraints(kept)
    assert {name for names in PgTx._DEFERRABLE_CONSTRAINTS.values() for name in names} <= {
        name for _, name, _ in _constraints(deferred)}
    assert {name for names in PgTx._DEFERRABLE.values() for name in names} <= {name for name, _ in _indexes(deferred)}
    assert _rows(deferred) == _rows(kept)


def test_a_failed_import_into_an_empty_store_leaves_it_as_it_was_indexes_included(pg_url, monkeypatch, dump):
    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 10)
    Cairn(pg_url, now=Clock()).close()
    indexes, constraints, rows = _indexes(pg_url), _constraints(pg_url), _rows(pg_url)
    lines = dump.splitlines(keepends=True)
    assert len(lines) > 30  # several chunks were written before the bad line
    with Cairn(pg_url, now=Clock()) as c, pytest.raises(BadImportLine, match=f"line {len(lines) + 1}:"):
        c.import_(io.StringIO(dump + "not json\n"))
    assert _indexes(pg_url) == indexes and _constraints(pg_url) == constraints and _rows(pg_url) == rows
    assert "memory_index_key_fkey" in {name for _, name, _ in constraints}
    assert "memory_index_lexemes" in {name for name, _ in indexes}


def test_an_import_into_a_store_holding_records_drops_no_index(pg_url, dump):
    with Cairn(pg_url, now=Clock()) as c:
        c.remember("Already here before the import", kind="fact")
        with c.store.write() as tx:
            assert isinstance(tx, PgTx) and tx.defer_indexes() is False
        c.import_(io.StringIO(dump))


def test_a_key_the_rebuild_finds_broken_rolls_the_whole_import_back(pg_url, monkeypatch, dump):
    # The deferred primary key of term_postings checks, once, what it checked row by row:
    # a posting written twice (here forced) fails the import at its end, leaving nothing.
    from cairn.errors import StoreError
    from cairn.store.postgres import backend

    Cairn(pg_url, now=Clock()).close()
    indexes, constraints, rows = _indexes(pg_url), _constraints(pg_url), _rows(pg_url)
    real = backend.posting_terms
    monkeypatch.setattr(backend, "posting_terms", lambda found, *rest: real(found, *rest) + real(found, *rest)[:1])
    with Cairn(pg_url, now=Clock()) as c, pytest.raises(StoreError, match="could not create unique index .term_postings_pkey"):
        c.import_(io.StringIO(dump))
    assert _indexes(pg_url) == indexes and _constraints(pg_url) == constraints and _rows(pg_url) == rows
    monkeypatch.setattr(backend, "posting_terms", real)  # control: the same import, postings once each
    with Cairn(pg_url, now=Clock()) as c:
        assert c.import_(io.StringIO(dump)).records > 20
