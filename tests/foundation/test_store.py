"""The SQLite store: pragmas, permissions, migrations (from a blank database and from the
initial schema), refusal of newer schemas, malformed rows that are reported and skipped
without disabling the store, and the episode turn positions."""

from __future__ import annotations

import json
import sqlite3
import stat

import pytest

from cairn import Cairn, SchemaTooNew
from cairn.model import memory_to_dict
from cairn.store import MIGRATIONS, SCHEMA_VERSION, Store
from cairn.store.migrations import check_version


def test_pragmas_wal_and_full_sync(cairn):
    conn = cairn.store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_new_file_is_0600_and_new_folder_0700(tmp_path):
    path = tmp_path / "fresh" / "deeper" / "c.db"
    Cairn(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_existing_folder_permissions_are_left_alone(tmp_path):
    # Negative control: Cairn only tightens folders it creates (never e.g. a shared /tmp).
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    Cairn(folder / "c.db").close()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_migrations_from_blank_record_every_step(db_path):
    Cairn(db_path).close()
    conn = sqlite3.connect(db_path)
    rows = conn.execute("SELECT seq, name FROM schema_migrations ORDER BY seq").fetchall()
    assert rows == [(i + 1, name) for i, (name, _) in enumerate(MIGRATIONS)]
    assert len(rows) == SCHEMA_VERSION


def test_reopening_does_not_rerun_migrations(db_path):
    Cairn(db_path).close()
    Cairn(db_path).close()
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION


def test_failed_migration_leaves_no_trace(db_path, monkeypatch):
    from cairn.store import migrations

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, ("0099_broken", broken)])
    with pytest.raises(RuntimeError):
        Store.open(db_path)
    conn = sqlite3.connect(db_path)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in names  # the DDL rolled back with its bookkeeping row
    assert conn.execute("SELECT MAX(seq) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION


def _schema_dump(path):
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
    finally:
        conn.close()


def test_newer_schema_is_refused_before_any_ddl(db_path, cli):
    Cairn(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO schema_migrations VALUES (?, '0999_future', '2030-01-01T00:00:00Z')", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    before = _schema_dump(db_path)
    with pytest.raises(SchemaTooNew) as err:
        Cairn(db_path)
    assert err.value.found == SCHEMA_VERSION + 1 and err.value.known == SCHEMA_VERSION
    result = cli("list")
    assert result.code == 1
    assert "newer" in result.err and result.err.count("\n") == 1
    assert _schema_dump(db_path) == before


def test_current_schema_is_accepted(db_path):
    # Negative control for the refusal above.
    Cairn(db_path).close()
    conn = sqlite3.connect(db_path)
    assert len(check_version(conn)) == SCHEMA_VERSION


def _corrupt(db_path, memory_id, data: str):
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET data = ? WHERE id = ?", (data, memory_id))
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: "{not json", "bad JSON"),
        (lambda d: json.dumps({**d, "created_at": "2026-02-30T00:00:00Z"}), "impossible time"),
        (lambda d: json.dumps({**d, "kind": "rumour"}), "unknown kind"),
        (lambda d: json.dumps({**d, "status": "maybe"}), "unknown status"),
    ],
)
def test_malformed_row_is_reported_and_skipped(db_path, clock, mutate, expected):
    with Cairn(db_path, now=clock) as c:
        good = c.remember("The staging host runs Debian 12", kind="fact").memory
        bad = c.remember("The build uses make and Python 3.11", kind="fact").memory
        original = memory_to_dict(bad)
    _corrupt(db_path, bad.id, mutate(original))
    with Cairn(db_path, now=clock) as c:
        report = c.status()
        assert [p["id"] for p in report["problems"]] == [bad.id]
        assert expected in report["problems"][0]["problem"]
        assert [m.id for m in c.list().memories] == [good.id]  # skipped by reads
        # ... and the rest of the store keeps working, writes included.
        c.remember("A third fact still goes in", kind="fact")
        assert c.list().total == 3  # counts rows; the malformed one is still there for repair


def test_status_reports_no_problems_on_a_healthy_store(cairn):
    cairn.remember("The staging host runs Debian 12", kind="fact")
    assert cairn.status()["problems"] == []


def test_non_durable_write_restores_full_sync(cairn):
    with cairn.store.write(durable=False) as tx:
        assert tx.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL inside
    assert cairn.store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again
    with pytest.raises(RuntimeError):
        with cairn.store.write(durable=False):
            raise RuntimeError("rolled back")
    assert cairn.store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2


# -- episode turn positions (migration 0002_episode_turns) ---------------------------


def _turns(path) -> list[tuple[str, str, int | None]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT origin, kind, turn FROM memories ORDER BY rowid").fetchall()
    finally:
        conn.close()


def _chat(*texts: str) -> list[str]:
    return [
        json.dumps({"id": f"t{i}", "speaker": "Ana", "text": text, "time": f"2026-10-0{i + 1}T09:00:00Z"})
        for i, text in enumerate(texts)
    ]


def _interleaved(c) -> None:
    """Two conversations whose turns interleave in insertion order, and a claim between."""
    c.ingest(_chat("first turn of a", "second turn of a"), origin="a")
    c.remember("A plain claim in between", kind="fact", origin="a")
    c.ingest(_chat("first turn of b"), origin="b")
    c.ingest(_chat("first turn of a", "second turn of a", "third turn of a"), origin="a")  # one new turn


EXPECTED_TURNS = [("a", "episode", 1), ("a", "episode", 2), ("a", "fact", None), ("b", "episode", 1), ("a", "episode", 3)]


def test_new_episodes_get_their_position_in_their_conversation(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        _interleaved(c)
        assert c.store.schema_version() == SCHEMA_VERSION
    assert _turns(db_path) == EXPECTED_TURNS


def _downgrade_to_initial(path) -> None:
    """The schema as the first release wrote it: no turn column, one migration row."""
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX memories_by_turn")
    conn.execute("ALTER TABLE memories DROP COLUMN turn")
    conn.execute("DROP INDEX memories_by_trust")
    for column in ("evidence_at", "layer", "revision", "purged_at", "reinforced_at", "last_confirmed_at"):
        conn.execute(f"ALTER TABLE memories DROP COLUMN {column}")
    conn.execute("DELETE FROM schema_migrations WHERE seq > 1")
    conn.commit()
    conn.close()


def test_migration_from_the_initial_schema_backfills_turns_in_insertion_order(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        _interleaved(c)
    _downgrade_to_initial(db_path)
    conn = sqlite3.connect(db_path)
    assert "turn" not in {r[1] for r in conn.execute("PRAGMA table_info(memories)")}  # control: really the old schema
    conn.close()
    with Cairn(db_path, now=clock) as c:
        assert c.store.schema_version() == SCHEMA_VERSION
        assert c.status()["schema"] == SCHEMA_VERSION
    assert _turns(db_path) == EXPECTED_TURNS


def test_neighbouring_turns_are_found_by_position_not_by_row(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        _interleaved(c)
        # Row order puts b's turn before a's third turn; the position says a's second.
        [before] = c.store.neighbour_turns("default", [("a", 2)])
        assert before.terms.split()[:2] == ["second", "turn"] and before.origin == "a"
        assert c.store.neighbour_turns("default", [("a", 4), ("c", 1)]) == []


def test_status_reports_the_schema_the_database_holds(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        c.remember("The staging host runs Debian 12", kind="fact")
        assert c.status()["schema"] == SCHEMA_VERSION
    _downgrade_to_initial(db_path)
    with Cairn(db_path, now=clock, read_only=True) as reader:  # read-only: nothing migrates
        assert reader.status()["schema"] == 1  # what the file holds, not the code's newest


def test_the_storage_doc_names_every_migration():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "storage.md").read_text(encoding="utf-8")
    assert [name for name, _ in MIGRATIONS if f"`{name}`" not in doc] == []
    assert "`0999_future`" not in doc  # control: the check is by exact name
