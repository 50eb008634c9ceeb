"""Bulk writes that skip work must store exactly what the plain path stores.

* An import line already in stored form is written without the model round trip
  (``_in_stored_form`` instead of parse -> model -> dict): the check must say yes only
  when the round trip would give the very same body, and a mixed file imported both ways
  leaves the same rows and exports the same bytes.
* A bulk write's event splices in the JSON of the snapshots its records were stored as:
  the event row is byte for byte what encoding the whole event writes.
"""

from __future__ import annotations

import copy
import io
import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.engine import transfer
from cairn.errors import BadImportLine
from cairn.model import (
    Actor,
    Basis,
    Certainty,
    Change,
    Event,
    Evidence,
    Feedback,
    Kind,
    Layer,
    Memory,
    Method,
    Status,
    Verdict,
    VerdictSlot,
    event_to_dict,
    memory_to_dict,
)
from cairn.model.codec import imported_memory_from_dict
from cairn.store.sqlite import Store
from cairn.store.sqlite.backend import dumps, event_text

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)


def _records() -> list[Memory]:
    """Records using every field of the stored form, in the default space."""
    at = NOW - timedelta(days=3)
    base = Memory(id="a" * 24, space="default", origin="ops", kind=Kind.FACT, content="Billing runs on PostgreSQL 16",
                  created_at=at, updated_at=at, evidence=Evidence(Basis.USER_STATEMENT, Method.MANUAL, "s1", at))
    return [
        base,
        replace(base, id="b" * 24, content="Ana prefers tea — not coffee ☕", aliases=("Ana", "ana-k"),
                kind=Kind.PREFERENCE, status=Status.CONFIRMED, layer=Layer.PINNED, certainty=Certainty.HIGH,
                valid_from=at - timedelta(days=9), valid_to=at + timedelta(microseconds=250),
                reinforced_at=at + timedelta(hours=1), revision=3, last_confirmed_at=at + timedelta(hours=2),
                feedback=Feedback(VerdictSlot(Verdict.USEFUL, "r1", at), VerdictSlot(Verdict.INCORRECT, "r2", at))),
        replace(base, id="c" * 24, kind=Kind.EPISODE, origin="chat", content="the move is done", aliases=("Ana",),
                evidence=Evidence(Basis.TRANSCRIPT, Method.LOCAL, "t1", at + timedelta(microseconds=1))),
        replace(base, id="d" * 24, kind=Kind.PROJECT_STATE, content="Migration in progress", status=Status.RETIRED,
                expected_resolution_at=NOW + timedelta(days=30), evidence=Evidence()),
        replace(base, id="e" * 24, content="", status=Status.FORGOTTEN, purged_at=NOW - timedelta(days=1)),
        replace(base, id="f" * 24, content="Deploys on Fridays", status=Status.FORGOTTEN, kind=Kind.DECISION),
        replace(base, id="0" * 24, content="Quarantined claim", status=Status.CONFLICTED, origin=""),
    ]


def test_the_stored_form_check_agrees_with_the_model_round_trip():
    docs = [memory_to_dict(m) for m in _records()]
    docs.append({**memory_to_dict(_records()[0]), "topics": ["billing"], "entities": ["ana"]})
    for doc in docs:
        assert transfer._in_stored_form(doc), doc["id"]
        assert memory_to_dict(imported_memory_from_dict(copy.deepcopy(doc))) == doc  # what the yes stands for


def _variants(doc: dict) -> list[tuple[str, dict]]:
    """Bodies the model reads into a different form (or refuses): each must be a no."""
    def edit(**changes) -> dict:
        return {**copy.deepcopy(doc), **changes}

    evidence, at = doc["evidence"], doc["created_at"]
    return [
        ("offset time", edit(created_at=doc["created_at"].replace("Z", "+00:00"))),
        ("zero microseconds", edit(updated_at=doc["updated_at"].replace("Z", ".000000Z"))),
        ("impossible date", edit(created_at="2026-02-30T10:00:00Z")),
        ("date only", edit(valid_from="2026-04-01")),
        ("bool revision", edit(revision=True)),
        ("float revision", edit(revision=1.0)),
        ("revision 0", edit(revision=0)),
        ("unknown kind", edit(kind="rumour")),
        ("enum spelt in capitals", edit(status="Confirmed")),
        ("null basis", edit(evidence={**evidence, "basis": None})),
        ("forged correction", edit(evidence={**evidence, "basis": "manual_correction", "method": "agent"})),
        ("evidence missing", {k: v for k, v in copy.deepcopy(doc).items() if k != "evidence"}),
        ("evidence null", edit(evidence=None)),
        ("extra evidence key", edit(evidence={**evidence, "note": "x"})),
        ("unknown key", edit(colour="blue")),
        ("optional key missing", {k: v for k, v in copy.deepcopy(doc).items() if k != "valid_to"}),
        ("empty topics", edit(topics=[])),
        ("topics not strings", edit(topics=[1])),
        ("alias not a string", edit(aliases=["Ana", 2])),
        ("aliases a tuple-like string", edit(aliases="Ana")),
        ("verdict in the wrong slot", edit(feedback={"utility": {"verdict": "accurate", "source_id": "r", "at": at},
                                                      "accuracy": None})),
        ("slot without source", edit(feedback={"utility": {"verdict": "useful", "source_id": None, "at": at},
                                               "accuracy": None})),
        ("feedback missing a slot", edit(feedback={"utility": None})),
        ("valid_to before valid_from", edit(valid_from="2026-04-02T00:00:00Z", valid_to="2026-04-01T23:59:59.500000Z")),
        ("certainty unknown", edit(certainty="certain")),
        ("id not a string", edit(id=7)),
        ("content null", edit(content=None)),
        ("unhashable enum", edit(layer=["pinned"])),
    ]


@pytest.mark.parametrize("name", [name for name, _ in _variants(memory_to_dict(_records()[0]))])
def test_a_body_the_model_would_change_or_refuse_is_not_taken_as_stored(name):
    doc = dict(_variants(memory_to_dict(_records()[0])))[name]
    assert not transfer._in_stored_form(doc)
    try:
        changed = memory_to_dict(imported_memory_from_dict(copy.deepcopy(doc))) != doc
    except Exception:
        changed = True
    assert changed, "control: the model keeps this body as it is, so the check could have said yes"


def _export_of(records: list[Memory]) -> list[str]:
    with Cairn(":memory:", now=NOW) as c:
        with c.store.write() as tx:
            tx.put_memories(records)
            tx.append_events([Event(id=f"e{n}", space="default", at=NOW, actor=Actor.MANUAL, reason="seed",
                                    changes=(Change("memory", m.id, None, memory_to_dict(m)),))
                              for n, m in enumerate(records)])
        c.remember("Ana moved to Lisbon", kind="fact", origin="people")
        out = io.StringIO()
        c.export(out)
    return out.getvalue().splitlines(keepends=True)


def _mixed_file() -> list[str]:
    """Lines in stored form, in another spelling, and not in stored form (the model
    re-encodes those), with relations and events around them."""
    lines = _export_of(_records())
    memory_lines = [i for i, line in enumerate(lines) if line.startswith('{"type":"memory"')]
    doc = json.loads(lines[memory_lines[1]])  # another spelling of the stored form: kept as given
    body = json.dumps(dict(reversed(doc["data"].items())), indent=1).replace("\n", " ")
    lines[memory_lines[1]] = '{"type":"memory","data":' + body + "}\n"
    doc = json.loads(lines[memory_lines[2]])
    doc["data"]["created_at"] = doc["data"]["created_at"].replace("Z", "+00:00")  # not canonical
    lines[memory_lines[2]] = json.dumps(doc) + "\n"
    doc = json.loads(lines[memory_lines[3]])
    del doc["data"]["certainty"]  # a default the model fills in
    lines[memory_lines[3]] = json.dumps(doc, ensure_ascii=True) + "\n"
    doc = json.loads(lines[memory_lines[4]])
    doc["data"]["space"] = "elsewhere"  # imported into this space: re-encoded
    lines[memory_lines[4]] = json.dumps(doc) + "\n"
    return lines + [lines[memory_lines[0]]]  # and one record twice: the first line stands


def _rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("memories", "memories_fts", "term_stats", "space_stats", "events", "event_records",
                              "relations")}
    finally:
        conn.close()


def test_a_mixed_file_imports_to_the_same_rows_and_export_with_and_without_the_fast_path(tmp_path, monkeypatch):
    lines = _mixed_file()
    exports, counts = {}, {}
    for name in ("fast", "plain"):
        if name == "plain":
            monkeypatch.setattr(transfer, "_in_stored_form", lambda doc: False)
        with Cairn(tmp_path / f"{name}.db", now=NOW) as c:
            result = c.import_(lines)
            counts[name] = (result.records, result.events, result.relations, result.skipped)
            out = io.StringIO()
            c.export(out)
            exports[name] = out.getvalue()
    assert counts["fast"] == counts["plain"] == (8, 8, 0, 1)
    assert exports["fast"] == exports["plain"]
    fast, plain = _rows(tmp_path / "fast.db"), _rows(tmp_path / "plain.db")
    # The line in another spelling is kept as given on the fast path (its values are
    # the canonical ones): apart from that body, every row is the same.
    respelt = {r[2] for r in fast["memories"] if r[9] != dumps(json.loads(r[9]))}
    assert respelt == {json.loads(_mixed_file()[1])["data"]["id"]}
    strip = lambda rows: [r[:9] + (json.loads(r[9]),) + r[10:] for r in rows]  # noqa: E731
    assert strip(fast["memories"]) == strip(plain["memories"])
    assert {k: v for k, v in fast.items() if k != "memories"} == {k: v for k, v in plain.items() if k != "memories"}


def test_the_plain_path_really_is_taken_when_the_check_says_no(tmp_path, monkeypatch):
    """Control of the comparison above: with the check off, no line's own text is kept."""
    monkeypatch.setattr(transfer, "_in_stored_form", lambda doc: False)
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        c.import_(_mixed_file())
    assert all(r[9] == dumps(json.loads(r[9])) for r in _rows(tmp_path / "x.db")["memories"])


def test_a_spliced_event_is_byte_for_byte_the_encoded_event():
    records = _records()
    docs = [memory_to_dict(m) for m in records]
    event = Event(id="e1", space="default", at=NOW, actor=Actor.AGENT, reason="bulk — «test»",
                  changes=(*(Change("memory", m.id, None, d) for m, d in zip(records, docs, strict=True)),
                           Change("memory", "x", docs[0], None), Change("relation", "r", None, {"id": "r"})),
                  data={"episodes": 3, "note": "naïve"})
    texts = {id(d): dumps(d) for d in docs[1:]}  # the first one is encoded as usual
    assert event_text(event, texts) == dumps(event_to_dict(event))
    assert event_text(event, {}) == dumps(event_to_dict(event))
    wrong = {id(docs[1]): dumps(docs[2])}
    assert event_text(event, wrong) != dumps(event_to_dict(event))  # control: the texts are really used


def test_ingest_and_remember_many_store_events_that_decode_and_encode_to_the_same_bytes(tmp_path):
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        c.ingest(['{"id": "t1", "speaker": "Ana", "text": "the move is done ☕", "time": "2026-04-01T10:00:00Z"}',
                  '{"id": "t2", "speaker": "Bo", "text": "great", "time": "2026-04-01T10:01:00.5Z"}'], origin="chat")
        c.remember_many([{"text": "Billing runs on PostgreSQL 16", "kind": "fact"},
                         {"text": "Ana prefers tea", "kind": "preference", "aliases": ["Ana"]}])
        events = c.store.events(c.space, newest_first=False)
    conn = sqlite3.connect(tmp_path / "x.db")
    stored = [r[0] for r in conn.execute("SELECT data FROM events ORDER BY seq")]
    conn.close()
    assert len(stored) == 2 and [dumps(event_to_dict(e)) for e in events] == stored


def test_a_store_written_with_put_docs_equals_one_written_with_put_stored(tmp_path):
    records = _records()
    for name, docs in (("docs", True), ("stored", False)):
        store = Store.open(tmp_path / f"{name}.db", now=NOW)
        with store.write() as tx:
            rows = [(memory_to_dict(m), dumps(memory_to_dict(m))) for m in records]
            if docs:
                tx.put_docs(rows + rows[:1])  # met twice: the second goes through put_memory
            else:
                tx.put_stored([(m, text) for m, (_, text) in zip([*records, records[0]], rows + rows[:1], strict=True)])
        store.close()
    assert _rows(tmp_path / "docs.db") == _rows(tmp_path / "stored.db")


def test_a_bulk_call_pauses_the_collector_and_always_turns_it_back_on(tmp_path):
    import gc

    seen = []
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        real = c.store.write

        def watched(*args, **kwargs):
            seen.append(gc.isenabled())
            return real(*args, **kwargs)

        c.store.write = watched  # type: ignore[method-assign]
        assert gc.isenabled()
        c.remember_many([{"text": "Billing runs on PostgreSQL 16", "kind": "fact"}])
        c.import_(_export_of(_records()[:2]))
        c.ingest(['{"id": "t1", "speaker": "Ana", "text": "done", "time": "2026-04-01T10:00:00Z"}'], origin="chat")
        assert seen == [False, False, False] and gc.isenabled()
        with pytest.raises(BadImportLine):
            c.import_(["not json\n"])
        assert gc.isenabled()  # on again after an error
        gc.disable()
        try:
            c.remember_many([{"text": "Ana prefers tea", "kind": "preference"}])
            assert not gc.isenabled()  # the caller's choice stands
        finally:
            gc.enable()


def test_a_speaker_is_redacted_once_an_ingest_and_on_every_turn(tmp_path):
    from cairn.engine import ingesting

    calls: list[str] = []
    real = ingesting.redact_text

    def counted(text: str) -> str:
        calls.append(text)
        return real(text)

    secret = "sk-live-1234567890abcdefghijklmnop"
    turns = [f'{{"id": "t{n}", "speaker": "{secret if n % 2 else "Ana"}", "text": "turn {n}", "time": "2026-04-01T10:0{n}:00Z"}}'
             for n in range(6)]
    with Cairn(tmp_path / "x.db", now=NOW) as c:
        ingesting.redact_text = counted
        try:
            result = c.ingest(turns, origin="chat")
        finally:
            ingesting.redact_text = real
        aliases = [c.get(i).aliases for i in result.ids]
    assert aliases[0] == ("Ana",) and all(a == aliases[1] for a in aliases[1::2])
    assert secret not in aliases[1][0] and "REDACTED" in aliases[1][0]  # every turn of that speaker redacted
    assert calls.count(secret) == 1 and calls.count("Ana") == 1  # once per speaker, not per turn


def _schema(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        conn.close()


def _integrity(path: Path) -> str:
    """PRAGMA integrity_check: unlike quick_check, it matches every index entry to its row."""
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _import_spied(path: Path, lines: list[str], monkeypatch) -> list[str]:
    """Import ``lines`` into the store at ``path``; the indexes built again before COMMIT."""
    from cairn.store.sqlite.backend import Tx

    rebuilt: list[str] = []
    restore = Tx._restore_indexes

    def spy(tx: Tx) -> None:
        rebuilt.extend(tx._deferred)
        restore(tx)

    monkeypatch.setattr(Tx, "_restore_indexes", spy)
    with Cairn(path, now=NOW) as c:
        c.import_(lines)
    return rebuilt


def test_an_import_into_an_empty_store_builds_its_indexes_after_and_stores_the_same(tmp_path, monkeypatch):
    from cairn.store.sqlite.backend import Tx

    lines = _mixed_file() + _related_lines()
    Cairn(tmp_path / "fresh.db", now=NOW).close()
    rebuilt = _import_spied(tmp_path / "deferred.db", lines, monkeypatch)
    # Control: the indexes really were dropped and built again on this path.
    assert sorted(sql.split()[2] for sql in rebuilt) == sorted(
        name for names in Tx._DEFERRABLE.values() for name in names)
    monkeypatch.setattr(Tx, "defer_indexes", lambda tx: False)
    with Cairn(tmp_path / "kept.db", now=NOW) as c:
        c.import_(lines)
    assert _rows(tmp_path / "deferred.db") == _rows(tmp_path / "kept.db")
    exports = []
    for name in ("deferred", "kept"):
        with Cairn(tmp_path / f"{name}.db", now=NOW) as c:
            out = io.StringIO()
            c.export(out)
            exports.append(out.getvalue())
            assert _integrity(tmp_path / f"{name}.db") == "ok"
    assert exports[0] == exports[1]
    assert _schema(tmp_path / "deferred.db") == _schema(tmp_path / "kept.db") == _schema(tmp_path / "fresh.db")


def _related_lines() -> list[str]:
    """An export of records with a relation and undoable events, from a store of its own."""
    with Cairn(":memory:", now=NOW) as c:
        first = c.remember("The staging database is db-stage-2", kind="fact").memory
        second = c.remember("The staging database is db-stage-3 since the move", kind="fact").memory
        c.relate(second.id, "supersedes", first.id)
        out = io.StringIO()
        c.export(out)
    return out.getvalue().splitlines(keepends=True)


def test_an_error_in_an_import_into_an_empty_store_leaves_it_as_it_was_indexes_included(tmp_path, monkeypatch):
    from testkit.db import db_fingerprint

    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 3)
    path = tmp_path / "empty.db"
    Cairn(path, now=NOW).close()
    rows, schema = db_fingerprint(path), _schema(path)
    lines = _mixed_file()
    bad = len(lines) + 1
    with pytest.raises(BadImportLine, match=f"line {bad}:"):
        _import_spied(path, [*lines, "not json\n"], monkeypatch)
    assert db_fingerprint(path) == rows and _schema(path) == schema
    assert {"memories_by_trust", "memories_by_status", "events_by_id"} <= {r[1] for r in schema}


def test_an_import_into_a_store_holding_records_keeps_its_indexes_up_to_date(tmp_path, monkeypatch):
    path = tmp_path / "held.db"
    with Cairn(path, now=NOW) as c:
        c.remember("Already here before the import", kind="fact")
    assert _import_spied(path, _mixed_file(), monkeypatch) == []
    assert _integrity(path) == "ok"
