"""``ingest`` and ``remember_many`` skip work the plain bulk write does, and must store
exactly what it stores:

* the ids they mint (``new_id``) are not looked up in the store (``minted``): a batch
  of fresh ids is written straight in. Were a minted id ever to meet a stored one, the
  write is refused and nothing changes; it never overwrites the stored record.
* ``remember_many`` hands the store the content hashes it computed for its dedup
  (``digests``), and cleans each distinct origin text once per call;
* a creation's change in a bulk event is written from its parts, not encoded as a dict.

The comparisons run on SQLite and PostgreSQL: rows, full-text index, term statistics,
event log byte for byte (SQLite), and on both the export, the event log, the document
frequencies, the turns and the search answers.
"""

from __future__ import annotations

import io
import itertools
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn import Cairn
from cairn.engine import ingesting, mutation, records
from cairn.engine.mutation import Mutation
from cairn.engine.validate import clean_origin
from cairn.errors import InvalidInput, StoreError
from cairn.model import Actor, Change, Event, event_to_dict
from cairn.store.sqlite.backend import dumps, event_text
from cairn.text import index_text
from testkit import Clock
from testkit.db import STORE_ROWS

TABLES = {name: sql for name, sql in STORE_ROWS.items() if name != "relations"}

ORIGINS = ["ops", " ops ", "repo-1", "https://bob:hunter2secret@git.example.com/x", "repo-1", "", "ops"]
CLAIMS: list[dict[str, Any]] = [
    {"text": f"Service {n} runs on host{n % 5} — région {n % 3}", "kind": "fact", "origin": ORIGINS[n % len(ORIGINS)],
     **({"aliases": [f"svc{n}"]} if n % 4 == 0 else {})}
    for n in range(30)
]
CLAIMS += [
    {"text": "Service 3 runs on host3 — région 0.", "kind": "fact", "origin": "ops"},  # a duplicate of an earlier one
    {"text": "Ana prefers tea over coffee", "kind": "preference", "at": "2026-04-01T09:00:00Z"},
    {"text": "The deploy key is sk-live-1234567890abcdefghijklmnop", "kind": "fact", "origin": "repo-1"},
    {"text": "We talked about the move", "kind": "episode", "origin": "chat"},
]
TURNS = [f'{{"id": "t{n}", "speaker": "{"Ana" if n % 2 else "Bo"}", "text": "turn {n}: the move to Lisbon ☕ {n % 4}",'
         f' "time": "2026-04-01T10:{n:02d}:00Z"}}' for n in range(12)]


def _count_ids(patch: pytest.MonkeyPatch) -> None:
    """Ids from a counter, so that two runs mint the same ids in the same order."""
    counter = itertools.count()
    for module in (ingesting, mutation, records):
        patch.setattr(module, "new_id", lambda: f"{next(counter):024x}")


@pytest.fixture
def counted_ids(monkeypatch) -> None:
    _count_ids(monkeypatch)


def _plain(monkeypatch) -> None:
    """The plain bulk write: every id looked up, every hash computed by the store."""
    put_many = Mutation.put_many
    monkeypatch.setattr(Mutation, "put_many", lambda self, created, **_: put_many(self, created))


def _write(cairn: Cairn) -> None:
    cairn.remember_many(CLAIMS)
    cairn.ingest(TURNS, origin="chat", progress=False)
    cairn.ingest(TURNS[:6], origin="chat", progress=False)  # already there: skipped
    cairn.ingest(TURNS + ['{"id": "t99", "speaker": "Ana", "text": "one more", "time": "2026-04-01T11:00:00Z"}'],
                 origin="chat", progress=False)  # one new turn among stored ones
    cairn.ingest(TURNS, origin="chat-2", progress=False)
    cairn.remember_many(CLAIMS[:10] + [{"text": "A new claim in a second call", "kind": "fact", "origin": "ops"}])


def _state(cairn: Cairn) -> dict:
    store, space = cairn.store, cairn.space
    out = io.StringIO()
    cairn.export(out)
    memories = list(store.iter_memories(space))
    terms = sorted({t for m in memories for t in index_text(m.content + " " + " ".join(m.aliases)).split()})
    return {
        "export": out.getvalue().splitlines(),
        "events": [event_to_dict(e) for e in store.events(space, newest_first=False)],
        "documents": store.space_document_count(space),
        "frequencies": store.space_document_frequencies(space, terms),
        "turns": [(t.id, t.turn) for t in store.speaker_turns(space, "ana", 50)],
        "answers": [cairn.search(q, trace=False).ids for q in ("host3 région", "move Lisbon", "tea coffee", "deploy key")],
    }


def _rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def _targets(tmp_path: Path, backend: str, request) -> Iterator[tuple[str, Any]]:
    for name in ("plain", "fast"):
        if backend == "sqlite":
            yield name, tmp_path / f"{name}.db"
        else:
            yield name, request.getfixturevalue("pg_server").new_database()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_minted_ids_and_kept_hashes_store_what_the_plain_bulk_write_stores(tmp_path, monkeypatch, request, backend):
    states, targets = {}, {}
    for name, target in _targets(tmp_path, backend, request):
        with monkeypatch.context() as patch:
            _count_ids(patch)
            if name == "plain":
                _plain(patch)
            with Cairn(target, now=Clock()) as c:
                _write(c)
                states[name] = _state(c)
        targets[name] = target
    plain, fast = states["plain"], states["fast"]
    assert len(plain["export"]) > 60 and plain["turns"] and all(plain["answers"])
    assert "hunter2secret" not in "".join(plain["export"])
    for part in plain:
        assert fast[part] == plain[part], part
    if backend == "sqlite":
        assert _rows(targets["fast"]) == _rows(targets["plain"])


def test_the_comparison_sees_a_wrong_hash(tmp_path, monkeypatch, counted_ids):
    """Negative control: the store writes the hash it is handed; a wrong one is seen in
    the rows (and in the dedup of the second call, which finds nothing to keep)."""
    with Cairn(tmp_path / "plain.db", now=Clock()) as c:
        _write(c)
    put_many = Mutation.put_many

    def shifted(self, created, *, minted=False, digests=None):
        wrong = None if digests is None else [*digests[1:], digests[0]]
        put_many(self, created, minted=minted, digests=wrong)

    monkeypatch.setattr(Mutation, "put_many", shifted)
    with Cairn(tmp_path / "wrong.db", now=Clock()) as c:
        c.remember_many(CLAIMS)
    hashes = [r[8] for r in _rows(tmp_path / "plain.db")["memories"] if r[4] != "episode"][: len(CLAIMS) - 2]
    conn = sqlite3.connect(tmp_path / "wrong.db")
    wrong = [r[0] for r in conn.execute("SELECT content_hash FROM memories WHERE kind != 'episode' ORDER BY rowid")]
    conn.close()
    assert wrong[: len(hashes)] != hashes


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_minted_id_that_meets_a_stored_one_is_refused_and_changes_nothing(tmp_path, monkeypatch, request, backend):
    target = tmp_path / "x.db" if backend == "sqlite" else request.getfixturevalue("pg_url")
    with Cairn(target, now=Clock()) as c:
        stored = c.remember("Billing runs on PostgreSQL 16", kind="fact").memory
        before = _state(c)
        ids = iter([stored.id] + [f"{n:024x}" for n in range(1, 100)])
        monkeypatch.setattr(ingesting, "new_id", lambda: next(ids))
        with pytest.raises(StoreError):
            c.ingest(TURNS, origin="chat", progress=False)
        monkeypatch.setattr(records, "new_id", lambda: stored.id)
        with pytest.raises(StoreError):
            c.remember_many([{"text": f"Claim {n} about the ledger", "kind": "fact"} for n in range(10)])
        assert _state(c) == before
        assert c.store.get_memory(c.space, stored.id) == stored


def test_control_the_plain_write_overwrites_the_record_a_repeated_id_names(tmp_path, monkeypatch):
    """Negative control: without ``minted`` the store looks the id up and writes the new
    record over the stored one, which is what the refusal above prevents."""
    _plain(monkeypatch)
    with Cairn(tmp_path / "x.db", now=Clock()) as c:
        stored = c.remember("Billing runs on PostgreSQL 16", kind="fact").memory
        monkeypatch.setattr(ingesting, "new_id", lambda: stored.id)
        c.ingest(TURNS[:1], origin="chat", progress=False)
        overwritten = c.store.get_memory(c.space, stored.id)
        assert overwritten is not None and overwritten.content.startswith("turn 0")


def test_remember_many_cleans_each_origin_as_remember_does(tmp_path):
    origins = ORIGINS + ["repo-1 ", "https://bob:hunter2secret@git.example.com/x"]
    with Cairn(tmp_path / "x.db", now=Clock()) as c:
        result = c.remember_many([{"text": f"Origin claim number {n}", "kind": "fact", "origin": o}
                                  for n, o in enumerate(origins)])
        assert [r.memory.origin for r in result.results] == [clean_origin(o) for o in origins]
        assert "[REDACTED:" in result.results[3].memory.origin and result.results[1].memory.origin == "ops"
        with pytest.raises(InvalidInput, match="claim 3: origin"):
            c.remember_many([{"text": "First claim", "kind": "fact", "origin": "ops"},
                             {"text": "Second claim", "kind": "fact", "origin": "ops"},
                             {"text": "Third claim", "kind": "fact", "origin": "ops\x01"}])


def test_a_creation_written_from_its_parts_is_byte_for_byte_the_encoded_change():
    """Ids and tables a head could misquote (quotes, backslashes, non-ASCII, a lone
    surrogate); beside them a change with a before snapshot, which is encoded whole."""
    docs = [{"id": n, "content": "naïve \"quoted\" \\ ☕"} for n in range(5)]
    ids = ['plain', 'quo"te', "back\\slash", "naïve ☕ 東京", "lone \ud800 surrogate"]
    changes = [Change("memory", i, None, d) for i, d in zip(ids, docs, strict=True)]
    changes.append(Change("memory", "x", {"id": "x"}, {"id": "x", "v": 2}))
    event = Event(id="e1", space="default", at=Clock()(), actor=Actor.AGENT, reason="r", changes=tuple(changes), data={})
    texts = {id(c.after): dumps(c.after) for c in changes}
    assert event_text(event, texts) == dumps(event_to_dict(event))
    assert event_text(event, {id(docs[0]): dumps(docs[1])}) != dumps(event_to_dict(event))  # control: texts used
