"""archive remove: explicit, event-logged with the source's hash, a tombstone kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn import Cairn
from cairn.errors import Refused, UndoRefused
from testkit.archive import catalog_lines


def test_remove_deletes_the_copy_keeps_a_tombstone_and_logs_the_hash(cairn: Cairn, archived):
    entry, path = archived
    removed = cairn.archive_remove(entry.source_id)
    assert not path.exists()
    (doc,) = catalog_lines(cairn)
    assert doc["status"] == "removed" and doc["sha256"] == entry.sha256 and doc["source_id"] == entry.source_id
    (event,) = [e for e in cairn.history() if e.id == removed.event.id]
    assert event.data["archive_removed"]["sha256"] == entry.sha256
    assert cairn.archive_verify().ok  # a tombstone has no file to check, by design


def test_a_removed_source_cannot_be_rehydrated_or_removed_again(cairn: Cairn, archived):
    entry, _ = archived
    cairn.archive_remove(entry.source_id)
    with pytest.raises(Refused, match="removed"):
        cairn.archive_show(entry.source_id, turns="1..1")
    with pytest.raises(Refused, match="already removed"):
        cairn.archive_remove(entry.source_id)


def test_undo_cannot_bring_bytes_back_but_adding_the_original_does(cairn: Cairn, archived, chat: Path):
    entry, path = archived
    removed = cairn.archive_remove(entry.source_id)
    with pytest.raises(UndoRefused):
        cairn.undo(removed.event.id)
    again = cairn.archive_add(chat)
    assert not again.deduplicated and again.entry == entry  # the tombstone is revived, not duplicated
    assert len(catalog_lines(cairn)) == 1 and path.read_bytes() == chat.read_bytes()
    assert cairn.archive_verify().ok


def test_nothing_is_removed_without_the_command(cairn: Cairn, archived, chat: Path):
    entry, path = archived
    cairn.ingest_archived(chat)
    cairn.archive_verify()
    cairn.archive_show(entry.source_id, turns="1..5")
    assert path.exists() and catalog_lines(cairn)[0]["status"] == "verified"


def test_cli_remove(cli, chat: Path):
    sid = cli("--json", "archive", "add", str(chat)).json()["entry"]["source_id"]
    r = cli("--json", "archive", "remove", sid)
    assert r.code == 0, r.err
    assert r.json()["entry"]["status"] == "removed" and r.json()["event"]
    unknown = cli("archive", "remove", "nosuchsource")
    assert unknown.code == 1 and "nosuchsource" in unknown.err


def test_a_store_without_a_file_has_no_archive(chat: Path, tmp_path: Path, monkeypatch):
    from testkit.memstore import MemStore

    monkeypatch.chdir(tmp_path)
    with Cairn(store=MemStore()) as engine:
        with pytest.raises(Refused, match="beside a database file"):
            engine.archive_add(chat)
        with pytest.raises(Refused, match="beside a database file"):
            engine.labels_import('{"topics": {"a": []}}')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sources"]  # nothing created beside the cwd
