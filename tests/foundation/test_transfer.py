"""Export/import: JSONL of records, relations and events; import is idempotent and
all-or-nothing; export -> import -> export is byte-identical."""

from __future__ import annotations

import io
import json

import pytest

from cairn import Cairn
from cairn.engine import Transferred
from cairn.errors import BadImportLine
from testkit.db import db_fingerprint


def _populate(c: Cairn):
    a = c.remember("Use PostgreSQL 16 for billing", kind="decision", origin="acme", aliases=["billing-db"]).memory
    b = c.remember("Préfère les réponses courtes 简短", kind="preference").memory
    c.pin(a.id)
    f = c.forget(b.id)
    c.undo(f.id)
    c.remember("A record to purge later", kind="fact")
    return a, b


def _export(c: Cairn) -> str:
    out = io.StringIO()
    c.export(out)
    return out.getvalue()


def test_round_trip_is_byte_identical(tmp_path, clock):
    with Cairn(tmp_path / "a.db", now=clock) as src:
        _populate(src)
        first = _export(src)
    with Cairn(tmp_path / "b.db", now=clock) as dst:
        counts = dst.import_(io.StringIO(first))
        assert counts == Transferred(records=3, events=6, relations=0, skipped=0)
        second = _export(dst)
    assert second == first
    types = [json.loads(line)["type"] for line in first.splitlines()]
    assert types == sorted(types, key=["memory", "relation", "event"].index)


def test_import_is_idempotent(tmp_path, clock):
    with Cairn(tmp_path / "a.db", now=clock) as src:
        _populate(src)
        dump = _export(src)
    with Cairn(tmp_path / "b.db", now=clock) as dst:
        dst.import_(io.StringIO(dump))
        fp = db_fingerprint(tmp_path / "b.db")
        counts = dst.import_(io.StringIO(dump))
        assert counts.records == counts.events == 0 and counts.skipped == 9
        assert db_fingerprint(tmp_path / "b.db") == fp


def test_imported_records_are_searchable_and_undoable(tmp_path, clock):
    with Cairn(tmp_path / "a.db", now=clock) as src:
        a, _ = _populate(src)
        dump = _export(src)
    with Cairn(tmp_path / "b.db", space="other", now=clock) as dst:
        dst.import_(io.StringIO(dump))
        assert dst.get(a.id).space == "other"
        assert dst.store.term_postings("postgresql", 5) and dst.recall("postgresql").ids == [a.id]
        pin_event = [e for e in dst.history(a.id) if e.reason == "pin"][0]
        dst.undo(pin_event.id)


@pytest.mark.parametrize(
    "line, needle",
    [
        ("{not json", "not JSON"),
        ('{"type": "memo", "data": {}}', "expected"),
        ('{"type": "memory", "data": {"id": "x"}}', "missing"),
        ('{"type": "memory", "data": {"id": "x", "space": "s", "origin": "", "kind": "fact", "content": "c", '
         '"status": "provisional", "layer": "durable", "created_at": "2026-02-31", "updated_at": "2026-01-01", '
         '"revision": 1}}', "impossible"),
    ],
)
def test_malformed_import_line_writes_nothing(cli, db_path, tmp_path, clock, line, needle):
    with Cairn(tmp_path / "a.db", now=clock) as src:
        _populate(src)
        good = _export(src).splitlines()
    cli("remember", "Existing record before import", "--kind", "fact")
    bad_file = tmp_path / "bad.jsonl"
    bad_file.write_text("\n".join([good[0], line, *good[1:]]) + "\n")
    before = db_fingerprint(db_path)
    result = cli("import", str(bad_file))
    assert result.code == 1 and "line 2" in result.err and needle in result.err
    assert db_fingerprint(db_path) == before
    with pytest.raises(BadImportLine):
        with Cairn(db_path) as c:
            c.import_(io.StringIO(line))


def test_cli_export_to_file_and_import(cli, db_path, tmp_path):
    cli("remember", "Exported through the CLI", "--kind", "fact")
    target = tmp_path / "dump.jsonl"
    assert cli("--json", "export", str(target)).json() == {"records": 1, "events": 1, "relations": 0}
    other = tmp_path / "other.db"
    from cairn.cli import main

    assert main(["--db", str(other), "import", str(target)]) == 0


def _related(c: Cairn) -> None:
    """Records, a relation and events enough to span several small chunks."""
    first = c.remember("The staging database is db-stage-2", kind="fact").memory
    second = c.remember("The staging database is db-stage-3 since the move", kind="fact").memory
    c.relate(second.id, "supersedes", first.id)
    for n in range(6):
        c.remember(f"Chunked note number {n} about the import path", kind="fact")


def test_an_import_written_in_chunks_stores_what_one_chunk_stores(tmp_path, clock, monkeypatch):
    from cairn.engine import transfer

    with Cairn(tmp_path / "a.db", now=clock) as src:
        _related(src)
        dump = _export(src)
    lines = dump.splitlines(keepends=True)
    # Every kind of line repeated in a later chunk: the first line stands, as in one chunk.
    doubled = "".join(lines + [lines[0], lines[-1]])
    with Cairn(tmp_path / "one.db", now=clock) as whole:
        expected = whole.import_(io.StringIO(doubled))
        one = _export(whole)
    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 3)
    with Cairn(tmp_path / "many.db", now=clock) as chunked:
        counts = chunked.import_(io.StringIO(doubled))
        many = _export(chunked)
    assert counts == expected and counts.skipped == 2 and counts.relations == 1
    assert many == one == dump


def test_a_bad_line_in_a_later_chunk_leaves_the_store_as_it_was(tmp_path, clock, monkeypatch):
    from cairn.engine import transfer

    with Cairn(tmp_path / "a.db", now=clock) as src:
        _related(src)
        dump = _export(src)
    monkeypatch.setattr(transfer, "IMPORT_CHUNK", 3)
    with Cairn(tmp_path / "b.db", now=clock) as dst:
        dst.remember("Already here before the import", kind="fact")
        before = db_fingerprint(tmp_path / "b.db")
        bad = len(dump.splitlines()) + 1
        assert bad > 3 * 3  # the bad line comes after several chunks were written
        with pytest.raises(BadImportLine, match=f"line {bad}:"):
            dst.import_(io.StringIO(dump + "not json\n"))
        # The chunks before it were written in the transaction; the bad line rolled them back.
        assert db_fingerprint(tmp_path / "b.db") == before


def test_blank_and_indented_lines_and_the_json_document_import_as_the_plain_file(tmp_path, clock):
    with Cairn(tmp_path / "a.db", now=clock) as src:
        _related(src)
        dump = _export(src)
    lines = dump.splitlines(keepends=True)
    spaced = ["\n", " \t \n", *("  " + line for line in lines[:3]), *lines[3:], "\r\n", "   "]
    document = json.dumps({"records": 8, "relations": 1, "events": 9, "lines": [json.loads(line) for line in lines]})
    for name, given in (("spaced", spaced), ("document", [document])):
        with Cairn(tmp_path / f"{name}.db", now=clock) as dst:
            counts = dst.import_(given)
            assert (counts.records, counts.relations, counts.skipped) == (8, 1, 0), name
            assert _export(dst) == dump, name
