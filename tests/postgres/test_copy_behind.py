"""A bulk write on PostgreSQL sends its index entries and postings from a thread while
the caller goes on: whatever the transaction does next waits for them, so a read in the
same transaction sees them, and their error fails the write and rolls it back whole."""

from __future__ import annotations

import io
import time

import pytest

from cairn import Cairn
from cairn.errors import StoreError
from cairn.model import memory_to_dict
from cairn.store.postgres import backend
from cairn.store.postgres.backend import PgTx
from cairn.store.sqlite.backend import dumps
from cairn.text import index_text
from testkit import Clock

from .test_import_empty import _rows


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    from .test_bulk_copy import _seed

    return _seed(tmp_path_factory.mktemp("behind"))


def _late(monkeypatch) -> None:
    """The thread's COPY statements start late: a read that did not wait would come first."""
    real = PgTx._copy_entries

    def late(self, *args):
        time.sleep(0.3)
        real(self, *args)

    monkeypatch.setattr(PgTx, "_copy_entries", late)


def _ledger_postings_in_one_transaction(url: str, memories: list) -> tuple[int, int]:
    """(postings of "ledger" read in the transaction right after the bulk write, records
    holding the term)."""
    holding = sum("ledger" in index_text(m.content).split() for m in memories if m.purged_at is None)
    with Cairn(url, now=Clock()) as cairn, cairn.store.write() as tx:
        assert isinstance(tx, PgTx)
        tx.put_stored([(m, dumps(memory_to_dict(m))) for m in memories], absent=True)
        return len(tx.term_postings("ledger", 1000)), holding


def test_a_read_in_the_same_transaction_sees_the_entries_copied_behind(pg_url, seeded, monkeypatch):
    _late(monkeypatch)
    found, holding = _ledger_postings_in_one_transaction(pg_url, seeded[0])
    assert holding > 10 and found == holding


def test_a_read_that_did_not_wait_would_miss_them(pg_server, seeded, monkeypatch):
    # Negative control: with the wait removed, the same read comes before the late COPY.
    _late(monkeypatch)
    monkeypatch.setattr(backend, "_settled", lambda self: None)
    found, holding = _ledger_postings_in_one_transaction(pg_server.new_database(), seeded[0])
    assert holding > 10 and found == 0


@pytest.fixture(scope="module")
def dump(tmp_path_factory, seeded) -> str:
    memories, events = seeded
    with Cairn(tmp_path_factory.mktemp("dump") / "src.db", now=Clock()) as c:
        with c.store.write() as tx:
            tx.put_memories(memories)
            tx.append_events(events)
        out = io.StringIO()
        c.export(out)
    return out.getvalue()


def test_an_error_of_the_copy_behind_fails_the_import_and_leaves_the_store_as_it_was(pg_url, dump, monkeypatch):
    Cairn(pg_url, now=Clock()).close()
    before = _rows(pg_url)
    monkeypatch.setattr(backend, "tsvector_text", lambda found: "'unterminated")  # the server refuses it
    with Cairn(pg_url, now=Clock()) as c, pytest.raises(StoreError, match="tsvector"):
        c.import_(io.StringIO(dump))
    assert _rows(pg_url) == before == (0, 0, 0, 0, 0, 0)
    monkeypatch.undo()  # control: the same import with the entries as the server reads them
    with Cairn(pg_url, now=Clock()) as c:
        assert c.import_(io.StringIO(dump)).records > 20
    assert _rows(pg_url)[0] > 20  # type: ignore[index]
