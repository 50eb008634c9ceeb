"""One malformed stored row (not UTF-8, a BLOB, a number, not JSON, not the model's shape)
in records, relations or events is skipped and counted by every read path and listed by
``status``; it never stops the other rows from being read."""

from __future__ import annotations

import json
import sqlite3

import pytest

from cairn import Cairn

from .conftest import one_line_refusal

BAD_VALUES = {
    "bad-utf8": "CAST(x'7b22636166e9227d' AS TEXT)",  # {"caf\xe9"} : invalid UTF-8 text
    "blob": "x'7b7d'",
    "integer": "42",
    "bad-json": "'{not json'",
    "wrong-shape": "'[1, 2, 3]'",
}
READS = [("status",), ("list",), ("recall", "staging host"), ("search", "staging host"), ("export",),
         ("history",), ("timeline", "staging"), ("explain", "staging host")]


@pytest.fixture
def store(tmp_path):
    """A database with two good records, one relation and their events."""
    path = tmp_path / "c.db"
    with Cairn(path) as cairn:
        old = cairn.remember("The staging host runs Debian 11", kind="fact").memory
        new = cairn.remember("The staging host runs Debian 12", kind="fact").memory
        cairn.relate(new.id, "supersedes", old.id)
    return path, old.id, new.id


def _spoil(path, table: str, value_sql: str, *, new_row: bool) -> None:
    conn = sqlite3.connect(path)
    if new_row:  # a third row whose body is damaged, beside intact ones
        if table == "memories":
            conn.execute("INSERT INTO memories (space, id, origin, kind, status, created_at, updated_at, content_hash, data)"
                         f" VALUES ('default', 'badbadbadbad000000000000', '', 'fact', 'provisional', '2026-01-01',"
                         f" '2026-01-01', 'x', {value_sql})")
        elif table == "events":
            conn.execute("INSERT INTO events (space, id, at, actor, reason, data)"
                         f" VALUES ('default', 'badevent0000000000000000', '2026-01-01', 'manual', 'x', {value_sql})")
        else:
            conn.execute("INSERT INTO relations (space, id, from_id, role, to_id, status, created_at, data)"
                         f" VALUES ('default', 'badrel000000000000000000', 'a', 'corrects', 'b', 'active', '2026-01-01',"
                         f" {value_sql})")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("table", ["memories", "events", "relations"])
@pytest.mark.parametrize("kind", list(BAD_VALUES))
def test_every_read_command_survives_a_malformed_row(run, store, table, kind):
    path, _, new_id = store
    _spoil(path, table, BAD_VALUES[kind], new_row=True)
    for argv in READS:
        result = run("--db", str(path), *argv)
        assert result.code == 0, (argv, result.err)
        assert "internal error" not in result.err
    shown = run("--db", str(path), "show", new_id[:10])
    assert shown.code == 0 and "Debian 12" in shown.out
    found = run("--db", str(path), "--json", "search", "staging host").json()
    assert new_id in json.dumps(found)


@pytest.mark.parametrize("table", ["memories", "events", "relations"])
@pytest.mark.parametrize("kind", list(BAD_VALUES))
def test_status_lists_the_malformed_row(run, store, table, kind):
    path, _, _ = store
    _spoil(path, table, BAD_VALUES[kind], new_row=True)
    doc = run("--db", str(path), "--json", "status").json()
    assert [p["table"] for p in doc["problems"]] == [table]


def test_status_of_an_intact_store_lists_nothing(run, store):
    path, _, _ = store  # the negative control of the two tests above
    doc = run("--db", str(path), "--json", "status").json()
    assert doc["problems"] == [] and doc["memories"] == 2


def test_reads_that_skip_rows_say_so(run, store):
    path, _, _ = store
    _spoil(path, "memories", BAD_VALUES["bad-utf8"], new_row=True)
    result = run("--db", str(path), "list")
    assert result.code == 0 and "skipped 1 malformed stored row" in result.err
    clean = run("--db", str(path), "status")
    assert "malformed rows" in clean.out


def test_the_api_counts_what_it_skipped(store):
    path, _, _ = store
    _spoil(path, "memories", BAD_VALUES["blob"], new_row=True)
    with Cairn(path) as cairn:
        assert cairn.skipped_rows == 0
        assert len(cairn.list().memories) == 2
        assert cairn.skipped_rows == 1


def test_show_of_the_malformed_record_is_a_clear_refusal(run, store):
    path, _, _ = store
    _spoil(path, "memories", BAD_VALUES["bad-utf8"], new_row=True)
    result = run("--db", str(path), "show", "badbadbadbad")
    assert one_line_refusal(result) and "readable memory" in result.err


@pytest.mark.parametrize("kind", ["bad-json", "bad-utf8", "blob"])
def test_the_episode_lane_reads_around_a_malformed_turn(run, tmp_path, kind):
    path = tmp_path / "talk.jsonl"
    path.write_text(
        '{"id": "t1", "speaker": "Ana", "text": "I moved to Lisbon in May", "time": "2026-05-01T10:00:00Z"}\n'
        '{"id": "t2", "speaker": "Ben", "text": "Lisbon has great trams", "time": "2026-05-01T10:01:00Z"}\n'
        '{"id": "t3", "speaker": "Ana", "text": "I adopted a cat named Miso", "time": "2026-05-02T09:00:00Z"}\n'
    )
    db = tmp_path / "c.db"
    assert run("--db", str(db), "ingest", str(path), "--origin", "chat").code == 0
    conn = sqlite3.connect(db)
    conn.execute(f"UPDATE memories SET data = {BAD_VALUES[kind]} WHERE json_extract(data, '$.evidence.source_id') = 't2'")
    conn.commit()
    conn.close()
    for query in ("what did Ana say about Lisbon", "Ana cat", "trams"):
        for lane in ("episodes", "all"):
            result = run("--db", str(db), "recall", query, "--lane", lane)
            assert result.code == 0 and "internal error" not in result.err, (query, lane, result.err)
    found = run("--db", str(db), "--json", "search", "Miso cat", "--lane", "episodes").json()
    assert "Miso" in json.dumps(found)
