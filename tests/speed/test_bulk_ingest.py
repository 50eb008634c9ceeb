"""Bulk writes: the fast path stores exactly what the one-at-a-time path stores.

``put_memories`` / ``append_events`` (and the import, ingest and ``remember_many`` built
on them) must leave the database row for row as ``put_memory`` / ``append_event`` called
in order would: records and their rowids and turn positions, the full-text index, the
per-space term statistics, the event log and its links by record.
"""

from __future__ import annotations

import io
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput
from cairn.model import Actor, Basis, Change, Event, Evidence, Kind, Memory, Method, Status, memory_to_dict
from cairn.model.codec import imported_memory_from_dict
from cairn.store.sqlite import Store
from testkit.db import STORE_ROWS, query_plans

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)

TABLES = {**{name: sql for name, sql in STORE_ROWS.items() if name != "relations"},
          "sequence": "SELECT name, seq FROM sqlite_sequence ORDER BY name"}


def _rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def _memory(n: int, space: str = "a", kind: Kind = Kind.FACT, origin: str = "ops", **extra) -> Memory:
    at = NOW - timedelta(days=n)
    texts = ("Billing runs on PostgreSQL 16 in Frankfurt", "Ana prefers tea over coffee", "我喜欢喝咖啡",
             "The deploy pipeline caches docker images", "Großere Änderungen im München Büro")
    return Memory(id=f"m{n:05d}", space=space, origin=origin, kind=kind, content=f"{texts[n % len(texts)]} {n}",
                  aliases=(f"alias{n % 3}",) if n % 2 else (),
                  evidence=Evidence(basis=Basis.USER_STATEMENT, method=Method.MANUAL, at=at),
                  created_at=at, updated_at=at, **extra)


def _mixed() -> tuple[list[Memory], list[Memory]]:
    """(stored first, then the batch): claims and episodes in two spaces and origins, a
    forgotten and a purged record, a record met twice in the batch and one already stored."""
    before = [_memory(0), _memory(1, kind=Kind.EPISODE, origin="chat")]
    batch = [_memory(n, space="a" if n % 3 else "b") for n in range(2, 30)]
    batch += [_memory(n, kind=Kind.EPISODE, origin="chat" if n % 2 else "chat2") for n in range(30, 40)]
    batch.append(_memory(40, status=Status.FORGOTTEN))
    batch.append(replace(_memory(41, status=Status.FORGOTTEN), content="", aliases=(), purged_at=NOW))
    batch.append(replace(batch[3], content="Billing moved to PostgreSQL 17", revision=2))  # met twice
    batch.append(replace(before[0], status=Status.CONFIRMED, revision=2))  # already stored
    batch += [_memory(n) for n in range(42, 50)]
    return before, batch


def _events(memories: list[Memory], prefix: str = "e") -> list[Event]:
    return [Event(id=f"{prefix}{n:04d}", space=m.space, at=NOW, actor=Actor.MANUAL, reason="test",
                  changes=(Change("memory", m.id, None, memory_to_dict(m)),))
            for n, m in enumerate(memories)]


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "one-by-one"])
def test_put_memories_and_append_events_store_what_the_single_calls_store(tmp_path, bulk):
    before, batch = _mixed()
    paths = {}
    for name, fast in (("slow", False), ("fast", bulk)):
        path = paths[name] = tmp_path / f"{name}.db"
        store = Store.open(path, now=NOW)
        with store.write() as tx:
            for memory in before:
                tx.put_memory(memory)
            tx.append_event(_events(before, "b")[0])
        with store.write() as tx:
            if fast:
                tx.put_memories(batch)
                tx.append_events(_events(batch))
            else:
                for memory in batch:
                    tx.put_memory(memory)
                for event in _events(batch):
                    tx.append_event(event)
        store.close()
    slow, fast = _rows(paths["slow"]), _rows(paths["fast"])
    assert {name: len(rows) for name, rows in slow.items()}["memories"] == len(before) + len(batch) - 2
    for name in TABLES:
        assert fast[name] == slow[name], name


def test_the_fast_store_is_not_equal_to_a_different_one(tmp_path):
    """Negative control of the comparison: one record more is seen, table by table."""
    before, batch = _mixed()
    for name, extra in (("one.db", []), ("two.db", [_memory(99)])):
        store = Store.open(tmp_path / name, now=NOW)
        with store.write() as tx:
            tx.put_memories(before + batch + extra)
        store.close()
    one, two = _rows(tmp_path / "one.db"), _rows(tmp_path / "two.db")
    assert [n for n in TABLES if one[n] != two[n]] == ["memories", "memories_fts", "term_stats", "space_stats"]


def _export_lines(n: int) -> list[str]:
    with Cairn(":memory:", now=NOW) as c:
        for i in range(n):
            c.remember(f"Service {i} runs on host{i % 7} in region {i % 3}", kind="fact", origin=f"o{i % 4}",
                       aliases=[f"svc{i}"] if i % 2 else [])
        out = io.StringIO()
        c.export(out)
    return out.getvalue().splitlines(keepends=True)


def test_import_in_bulk_stores_what_one_record_at_a_time_stores(tmp_path):
    lines = _export_lines(40)
    with Cairn(tmp_path / "fast.db", now=NOW) as c:
        counts = c.import_(lines)
    assert (counts.records, counts.events) == (40, 40)
    # The slow path: each line through the model and put_memory / append_event, in order.
    from cairn.engine.transfer import Transfer

    with Cairn(tmp_path / "slow.db", now=NOW) as c:
        part = Transfer(c.scope)
        parsed = [part._parse_line(n, raw) for n, raw in enumerate(lines, 1)]
        with c.store.write() as tx:
            for kind, value, _ in parsed:
                if kind == "memory":  # a line in stored form is parsed to its body: through the model here
                    tx.put_memory(value if isinstance(value, Memory) else imported_memory_from_dict(value))
            for kind, value, _ in parsed:
                if kind == "event":
                    tx.append_event(value)
    assert _rows(tmp_path / "fast.db") == _rows(tmp_path / "slow.db")


def test_import_keeps_a_line_in_another_spelling_readable_and_canonical_on_export(tmp_path):
    """A line whose body is the stored form in another spelling (spaces, key order) is
    kept as given; one whose values are not canonical (a time with an offset) is encoded
    from the model. Either way export writes the canonical form."""
    import json

    lines = [line for line in _export_lines(3) if '"type":"memory"' in line]
    spaced = json.dumps(json.loads(lines[0]), indent=1)
    doc = json.loads(lines[1])
    doc["data"]["created_at"] = doc["data"]["created_at"].replace("Z", "+00:00")
    offset = json.dumps(doc)
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        assert c.import_([spaced.replace("\n", " ") + "\n", offset + "\n", lines[2]]).records == 3
        out = io.StringIO()
        c.export(out)
    assert out.getvalue().splitlines(keepends=True)[:3] == lines


def test_import_of_the_same_record_twice_keeps_the_first_line(tmp_path):
    lines = [line for line in _export_lines(2) if '"type":"memory"' in line]
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        counts = c.import_([lines[0], lines[0], lines[1]])
        assert (counts.records, counts.skipped) == (2, 1)
        assert c.import_(lines).skipped == 2  # idempotent


# -- remember_many ------------------------------------------------------------------


CLAIMS: list[dict[str, Any]] = [
    {"text": "Billing runs on PostgreSQL 16 in Frankfurt", "kind": "fact", "origin": "ops"},
    {"text": "Ana prefers tea over coffee", "kind": "preference", "aliases": ["Ana"]},
    {"text": "The deploy key is sk-live-1234567890abcdefghijklmnop", "kind": "fact", "origin": "ops"},
    {"text": "We decided to ship on Fridays", "kind": "decision", "at": "2026-04-01T09:00:00Z"},
]


def _table_without_ids(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT m.kind, m.origin, m.status, m.content_hash, f.content, f.aliases FROM memories m"
                            " JOIN memories_fts f ON f.rowid = m.rowid ORDER BY m.rowid").fetchall()
        stats = conn.execute("SELECT space, term, df FROM term_stats ORDER BY 1, 2").fetchall()
    finally:
        conn.close()
    return rows + stats


def test_remember_many_stores_what_remember_stores(tmp_path):
    with Cairn(tmp_path / "one.db", now=NOW) as c:
        for claim in CLAIMS:
            c.remember(claim["text"], **{k: v for k, v in claim.items() if k != "text"})
    with Cairn(tmp_path / "many.db", now=NOW) as c:
        done = c.remember_many(CLAIMS)
        assert done.added == 4 and len(done.ids) == 4
        assert done.event is not None and len(done.event.changes) == 4  # one event for the call
        assert "sk-live" not in c.get(done.ids[2]).content  # redacted before storage
    assert _table_without_ids(tmp_path / "many.db") == _table_without_ids(tmp_path / "one.db")


def test_remember_many_deduplicates_against_the_store_and_within_the_call(tmp_path):
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        standing = c.remember("Ana prefers tea over coffee", kind="preference").id
        done = c.remember_many(["Ana prefers tea over coffee.", "Ben likes jazz", "ben likes jazz"], kind="preference")
        assert [r.deduplicated for r in done.results] == [True, False, True]
        assert done.ids[0] == standing and done.ids[2] == done.ids[1]
        assert done.added == 1
        # Another kind or origin is another claim.
        again = c.remember_many([{"text": "Ben likes jazz", "kind": "fact"}, {"text": "Ben likes jazz", "origin": "x"}],
                                kind="preference")
        assert again.added == 2


def test_remember_many_dedups_onto_the_oldest_current_record_as_remember_does(tmp_path):
    clock = [NOW - timedelta(days=3)]
    with Cairn(tmp_path / "x.db", now=lambda: clock[0]) as c:
        gone = c.remember("The deploy runs at noon", kind="fact").id
        c.forget(gone)
        clock[0] += timedelta(days=1)
        older = c.remember("The deploy runs at noon", kind="fact").id  # the forgotten one stands no more
        clock[0] += timedelta(days=1)
        with c.store.write() as tx:  # a second current copy, as an import may leave
            twin = replace(c.get(older), id="twin-of-older", created_at=clock[0])
            tx.put_memory(twin)
        clock[0] = NOW
        many = c.remember_many(["The deploy runs at noon", "The deploy runs at noon!"], kind="fact")
        one = c.remember("The deploy runs at noon", kind="fact")
        assert many.ids == (older, older) and one.memory.id == older
        assert [r.deduplicated for r in many.results] == [True, True]
        # Control: neither the forgotten record nor another kind takes the claim.
        assert c.remember_many(["The deploy runs at noon"], kind="decision").added == 1


def test_the_bulk_duplicate_read_finds_what_the_single_read_finds(backend):
    stored = [_memory(n, space="a", origin="ops" if n % 2 else "dev") for n in range(12)]
    with backend.write() as tx:
        tx.put_memories(stored)
        tx.put_memory(_memory(99, space="b"))  # another space: never found
    from cairn.store import content_hash
    keys = [(m.origin, content_hash(m.content)) for m in stored[:7]] + [("ops", "no-such-hash")]
    with backend.snapshot() as view:
        single = sorted(m.id for o, d in keys for m in view.memories_with_hash("a", o, d))
        bulk = sorted(m.id for m in view.memories_with_hashes("a", keys + keys))  # repeated keys: once
        assert bulk == single == sorted(m.id for m in stored[:7])
        assert view.memories_with_hashes("a", []) == []
        many = [(m.origin, content_hash(m.content)) for m in stored] * 80  # over one chunk of keys
        assert sorted(m.id for m in view.memories_with_hashes("a", many)) == sorted(m.id for m in stored)


@pytest.mark.parametrize(("claims", "field"), [
    (["fine claim", {"text": "", "kind": "fact"}], "claim 2: text"),
    (["fine claim", {"text": "x y z", "kind": "opinion"}], "claim 2: kind"),
    ([{"text": "fine claim", "colour": "red"}], "claim 1"),
    ([{"text": "late", "at": "2030-01-01T00:00:00Z"}], "claim 1: at"),
    ([42], "claim 1"),
])
def test_remember_many_refuses_the_whole_call_on_one_bad_claim(tmp_path, claims, field):
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        c.remember("Something already here", kind="fact")
        with pytest.raises(InvalidInput) as err:
            c.remember_many(claims, kind="fact")
        assert err.value.field == field
        assert c.status()["memories"] == 1 and c.status()["events"] == 1  # nothing written


def test_remember_many_needs_a_kind(tmp_path):
    with Cairn(tmp_path / "x.db", now=NOW) as c, pytest.raises(InvalidInput, match="kind"):
        c.remember_many(["a claim without a kind"])


def test_ingest_in_bulk_numbers_turns_and_keeps_the_stats_exact(tmp_path):
    turns = [f'{{"id": "t{i}", "speaker": "{"Ana" if i % 2 else "Ben"}", "text": "turn {i} about hiking", '
             f'"time": "2026-04-0{1 + i % 9}T10:00:00Z"}}' for i in range(30)]
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        c.ingest(turns[:10], origin="chat")
        c.ingest(turns, origin="chat")  # the first ten are skipped, the rest follow them
    conn = sqlite3.connect(tmp_path / "x.db")
    order = conn.execute("SELECT turn, json_extract(data, '$.evidence.source_id') FROM memories ORDER BY rowid").fetchall()
    kept = dict(((s, t), n) for s, t, n in conn.execute("SELECT space, term, df FROM term_stats"))
    conn.close()
    assert order == [(i + 1, f"t{i}") for i in range(30)]
    assert kept[("default", "hik")] == 30 and kept[("default", "ana")] == 15


# -- the decoded-event cache ----------------------------------------------------------


def _history_contents(c: Cairn, ref: str) -> list[str]:
    return [str((ch.after or {}).get("content")) for e in c.store.events(c.space, record_id=ref, newest_first=False)
            for ch in e.changes if ch.id == ref]


def test_a_record_history_read_twice_is_the_same_and_a_purge_is_seen(tmp_path):
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        done = c.remember_many(["The vault code is 1234 for the shed", "Ana likes tea"], kind="fact")
        ref = done.ids[0]
        first = _history_contents(c, ref)
        assert first == _history_contents(c, ref) == ["The vault code is 1234 for the shed"]
        c.forget(ref, purge=True)  # rewrites the events in place, through this store
        assert "vault" not in " ".join(_history_contents(c, ref))


def test_a_purge_by_another_process_is_seen(tmp_path):
    path = tmp_path / "x.db"
    with Cairn(path, now=NOW) as reader:
        ref = reader.remember("The vault code is 1234 for the shed", kind="fact").id
        assert "vault" in " ".join(_history_contents(reader, ref))  # now kept decoded
        with Cairn(path, now=NOW) as other:
            other.forget(ref, purge=True)
        assert "vault" not in " ".join(_history_contents(reader, ref))


def test_a_rolled_back_event_is_never_served(tmp_path):
    path = tmp_path / "x.db"
    with Cairn(path, now=NOW) as c:
        ref = c.remember("Ana likes tea", kind="fact").id
        with pytest.raises(RuntimeError), c.store.write() as tx:
            tx.append_event(_events([c.get(ref)], "rolled")[0])
            assert len(c.store.events(c.space, record_id=ref)) == 2  # seen inside the transaction
            raise RuntimeError("roll back")
        c.pin(ref)  # the next event takes the rolled-back sequence number
        reasons = [e.reason for e in c.store.events(c.space, record_id=ref, newest_first=False)]
        assert reasons == ["remember fact", "pin"]


def test_the_bulk_duplicate_read_is_an_index_search_not_a_scan_of_the_space(tmp_path):
    store = Store.open(tmp_path / "x.db")
    try:
        with store.snapshot() as view, query_plans(view) as plans:
            view.memories_with_hashes("a", [("ops", "h1"), ("dev", "h2")])
        assert plans and all("content_hash=?" in plan for plan in plans), plans
    finally:
        store.close()
