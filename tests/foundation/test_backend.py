"""The storage seam: the engine runs on any backend through the protocols alone, every
backend implements every protocol method, a driver error on a read reaches the user as
one line, and a store refuses a thread other than the one that opened it."""

from __future__ import annotations

import inspect
import sqlite3
import threading

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput, StoreError
from cairn.store import Backend, ReadView, Store, Tx, WriteTx
from testkit.memstore import MemStore


def test_cairn_remembers_shows_and_recalls_on_each_backend(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        kept = cairn.remember("The staging deploy uses Docker Compose on the zeppelin host", kind="fact").memory
        cairn.remember("Ana prefers tea in the morning", kind="preference")
        shown = cairn.show(kept.id[:8])
        assert shown.memory.content == kept.content
        [created] = cairn.history(kept.id)
        assert created.changed_ids == [kept.id]
        assert cairn.recall("zeppelin host deploy").ids[0] == kept.id
        assert cairn.recall("quokka").ids == []  # negative control: no topic, no result
        assert cairn.status()["memories"] == 2


def test_the_fake_backend_is_reached_through_the_protocol_alone(clock):
    store = MemStore()
    assert not hasattr(store, "conn")  # no driver behind it: only protocol methods exist
    with Cairn(store=store, now=clock) as cairn:
        first = cairn.remember("The backup job runs every Sunday night", kind="fact").memory
        second = cairn.remember("The backup job now runs every Saturday night", kind="fact").memory
        cairn.relate(second.id, "supersedes", first.id)
        assert [e.reason for e in cairn.history(first.id)] == ["relate supersedes", "remember fact"]
        assert cairn.recall("backup job night").ids[0] == second.id
        cairn.forget(second.id)
        assert second.id not in cairn.recall("backup job night").ids
    assert store.closed


def test_a_failed_write_on_the_fake_leaves_nothing(clock):
    store = MemStore()
    with Cairn(store=store, now=clock) as cairn:
        with pytest.raises(RuntimeError), store.write() as tx:
            tx.put_source("default", {"id": "s1", "kind": "conversation", "sha256": "0", "at": "x"})
            raise RuntimeError("rolled back")
        assert store.get_source("default", "s1") is None
        assert cairn.status()["memories"] == 0


def test_a_path_and_a_store_together_are_refused(tmp_path):
    with pytest.raises(InvalidInput):
        Cairn(tmp_path / "c.db", store=MemStore())


@pytest.mark.parametrize("option", [{"read_only": True}, {"busy_timeout": 1.0}])
def test_opening_options_with_a_store_are_refused_not_ignored(option):
    # read_only would otherwise promise a recall that writes no trace, and not keep it.
    store = MemStore()
    with pytest.raises(InvalidInput, match="open the store with them"):
        Cairn(store=store, **option)
    with Cairn(store=store) as cairn:  # control: the store alone is accepted
        assert cairn.status()["memories"] == 0


# -- every backend implements every protocol method ---------------------------------


def _members(protocol) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for cls in protocol.__mro__:
        if cls in (object,) or cls.__name__ in ("Protocol", "Generic"):
            continue
        for name, value in vars(cls).items():
            if not name.startswith("_") and callable(value):
                names.setdefault(name, list(inspect.signature(value).parameters))
    return names


def _missing(impl, protocol) -> list[str]:
    out = []
    for name, params in _members(protocol).items():
        found = getattr(impl, name, None)
        if found is None:
            out.append(name)
        elif list(inspect.signature(found).parameters) != params:
            out.append(f"{name}{tuple(params)} != {tuple(inspect.signature(found).parameters)}")
    return out


@pytest.mark.parametrize(
    "impl, protocol",
    [(Store, Backend), (Tx, WriteTx), (MemStore, Backend), (MemStore, WriteTx)],
    ids=["sqlite-store", "sqlite-tx", "fake-store", "fake-tx"],
)
def test_each_backend_implements_the_whole_protocol(impl, protocol):
    assert len(_members(protocol)) > 30
    assert _missing(impl, protocol) == []


def test_the_protocol_check_sees_a_missing_method():
    # Negative control: a backend lacking one read is reported by name.
    class Partial(MemStore):
        term_postings = None  # type: ignore[assignment]

    assert _missing(Partial, ReadView) == ["term_postings"]


# -- errors at the boundary ---------------------------------------------------------------


def _drop_index(db_path):
    conn = sqlite3.connect(db_path)
    conn.execute("DROP TABLE memories_fts")
    conn.commit()
    conn.close()


def test_a_failing_read_raises_a_store_error(db_path, clock):
    with Cairn(db_path, now=clock) as cairn:
        cairn.remember("The staging host runs Debian 12", kind="fact")
    _drop_index(db_path)
    with Cairn(db_path, now=clock) as cairn, pytest.raises(StoreError, match="memories_fts"):
        cairn.recall("staging host")


def test_a_failing_read_is_one_line_through_the_cli_exit_1(cli, db_path):
    assert cli("remember", "The staging host runs Debian 12", "--kind", "fact").code == 0
    assert cli("recall", "staging host").code == 0  # control: the same read works before
    _drop_index(db_path)
    result = cli("recall", "staging host")
    assert result.code == 1
    assert result.err.count("\n") == 1 and "cannot use database" in result.err
    assert "internal error" not in result.err


def test_an_error_after_sqlite_rolled_back_by_itself_is_the_one_raised(db_path):
    # On a full disk or an I/O error SQLite ends the transaction itself; the store's own
    # ROLLBACK must not then fail and put a raw sqlite3 error in place of the real one.
    store = Store.open(db_path)
    try:
        with pytest.raises(StoreError, match="disk is full"), store.write() as tx:
            tx.conn.execute("ROLLBACK")  # what SQLite does itself on SQLITE_FULL
            raise StoreError("database or disk is full")
        with pytest.raises(RuntimeError), store.write():  # control: an ordinary failure still rolls back
            raise RuntimeError("rolled back")
        with store.snapshot() as view:
            view.conn.execute("ROLLBACK")  # a read transaction ended under the snapshot
        assert store.count_memories("default") == 0
    finally:
        store.close()


# -- threads ----------------------------------------------------------------------------


def _in_thread(fn):
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            box["error"] = err

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    return box


def test_another_thread_gets_a_clear_store_error(cairn):
    cairn.remember("The staging host runs Debian 12", kind="fact")
    box = _in_thread(lambda: cairn.list().total)
    assert isinstance(box.get("error"), StoreError)
    assert "another thread" in str(box["error"]) and "one engine per thread" in str(box["error"])
    assert cairn.list().total == 1  # the owning thread is unaffected


def test_an_engine_per_thread_works(cairn, db_path, clock):
    # Negative control: the documented model (one engine per thread) reads and writes.
    cairn.remember("The staging host runs Debian 12", kind="fact")

    def own_engine():
        with Cairn(db_path, now=clock) as mine:
            mine.remember("The build uses make", kind="fact")
            return mine.list().total

    assert _in_thread(own_engine) == {"value": 2}


def _relations_batch() -> list:
    from datetime import UTC, datetime

    from cairn.model import Relation, RelationStatus, Role

    at = datetime(2026, 3, 1, tzinfo=UTC)
    made = [Relation(f"rel-{n:03d}", "default", f"new-{n}", Role.SUPERSEDES, f"old-{n}", at) for n in range(7)]
    # The same id again, removed: the later one stands, as with one put_relation after another.
    again = Relation("rel-002", "default", "other", Role.CONTRADICTS, "else", at, RelationStatus.REMOVED)
    return [*made, again, Relation("rel-x", "elsewhere", "a", Role.CORRECTS, "b", at)]


def test_a_batch_of_relations_stores_what_one_at_a_time_stores(backend):
    batch = _relations_batch()
    with backend.write() as tx:
        tx.put_relation(batch[0])  # already there before the batch
        tx.put_relations(batch)
    batched = {space: backend.relations(space, active_only=False) for space in ("default", "elsewhere")}
    with backend.write() as tx:
        for relation in batch:
            tx.put_relation(relation)
    assert {space: backend.relations(space, active_only=False) for space in ("default", "elsewhere")} == batched
    assert backend.get_relation("default", "rel-002") == batch[7]
    assert len(batched["default"]) == 7 and len(batched["elsewhere"]) == 1


def test_present_ids_finds_exactly_the_stored_ids_of_the_space(backend, clock):
    with backend.write() as tx:
        tx.put_relations(_relations_batch())
    asked = ["rel-001", "rel-00", "rel-0011", "rel-x", "nope", "rel-006"]
    assert backend.present_ids("relations", "default", asked) == {"rel-001", "rel-006"}
    assert backend.present_ids("relations", "elsewhere", asked) == {"rel-x"}
    assert backend.present_ids("relations", "default", []) == set()
    many = [f"rel-{n:03d}" for n in range(1200)]  # past one statement's chunk
    assert len(backend.present_ids("relations", "default", many)) == 7
    with pytest.raises(ValueError):
        backend.present_ids("traces", "default", asked)
