"""archive add: a byte-exact, read-only copy in a private store, one metadata-only
catalog entry, the same bytes once, and nothing written for a refused source."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.archive.catalog import FIELDS
from cairn.errors import InvalidInput, Refused
from testkit.archive import SESSION, TURNS, catalog_lines, store_root


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_copy_is_byte_exact_read_only_and_private(cairn: Cairn, chat: Path):
    added = cairn.archive_add(chat)
    preserved = store_root(cairn) / added.entry.preserved_path
    assert preserved.read_bytes() == chat.read_bytes()
    assert preserved.name == chat.name  # copied without renaming
    assert mode(preserved) == 0o400
    probe = preserved.parent
    while probe != store_root(cairn).parent.parent:
        assert mode(probe) == 0o700, probe
        probe = probe.parent
    assert not added.deduplicated


def test_catalog_entry_has_exactly_the_metadata_fields(cairn: Cairn, chat: Path):
    cairn.archive_add(chat)
    (doc,) = catalog_lines(cairn)
    assert tuple(doc) == FIELDS
    assert doc["record_count"] == len(TURNS)
    assert doc["byte_size"] == chat.stat().st_size
    assert (doc["started_at"], doc["ended_at"]) == ("2026-01-02T03:04:05Z", "2026-01-02T03:08:00Z")
    assert doc["original_path"] == str(chat.absolute())
    assert (doc["copy_mode"], doc["status"], doc["schema_version"]) == ("read-only", "verified", 1)


def test_catalog_never_contains_content(cairn: Cairn, chat: Path, claude: Path):
    cairn.archive_add(chat)
    cairn.archive_add(claude)
    text = (store_root(cairn) / "catalog.jsonl").read_text(encoding="utf-8").lower()
    words = {w.strip(".,;:!?").lower() for turn in TURNS for w in turn["text"].split() if len(w) > 4}
    words |= {"logger", "tablet", "thinking", "notes.md", "ignore", "field kit"}
    leaked = sorted(w for w in words if w in text)
    assert leaked == []
    # The control: the same grep finds words that the catalog does hold.
    assert "conversation-jsonl" in text and SESSION in text


def test_same_bytes_twice_are_one_entry(cairn: Cairn, chat: Path, tmp_path: Path):
    first = cairn.archive_add(chat)
    twin = tmp_path / "elsewhere.jsonl"
    twin.write_bytes(chat.read_bytes())
    second = cairn.archive_add(twin)
    assert second.deduplicated and second.entry == first.entry
    assert len(catalog_lines(cairn)) == 1
    other = tmp_path / "changed.jsonl"
    other.write_bytes(chat.read_bytes() + b"\n")  # one more byte: other bytes, another entry
    assert not cairn.archive_add(other).deduplicated
    assert len(catalog_lines(cairn)) == 2


def test_session_names_the_entry_and_a_contradicting_id_is_refused(cairn: Cairn, claude: Path):
    with pytest.raises(InvalidInput, match="session"):
        cairn.archive_add(claude, source_id="another-id")
    assert not (store_root(cairn) / "catalog.jsonl").exists()
    entry = cairn.archive_add(claude).entry
    assert (entry.source_id, entry.source_type, entry.record_count) == (SESSION, "claude-code-jsonl", 5)


def test_a_source_id_naming_other_bytes_is_refused(cairn: Cairn, chat: Path, tmp_path: Path):
    cairn.archive_add(chat, source_id="survey")
    other = tmp_path / "other.jsonl"
    other.write_bytes(chat.read_bytes().replace(b"Ana", b"Ada"))
    before = catalog_lines(cairn)
    with pytest.raises(Refused, match="already names other bytes"):
        cairn.archive_add(other, source_id="survey")
    assert catalog_lines(cairn) == before


@pytest.mark.parametrize("content, reason", [
    (b'{"id": "t1", "speaker": "Ana", "text": "hi", "time": "2030-01-01T00:00:00Z"}\nnot json\n', "line 2"),
    (b"", "no records"),
    (b'["a"]', "message 1"),
])
def test_an_unreadable_source_is_refused_and_nothing_written(cairn: Cairn, tmp_path: Path, content: bytes, reason: str):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    with pytest.raises(InvalidInput, match=reason):
        cairn.archive_add(bad)
    root = store_root(cairn)
    assert not (root / "catalog.jsonl").exists() and not (root / "raw").exists()


def test_a_symlinked_source_is_not_followed(cairn: Cairn, chat: Path, tmp_path: Path):
    link = tmp_path / "link.jsonl"
    link.symlink_to(chat)
    with pytest.raises(InvalidInput, match="symbolic link"):
        cairn.archive_add(link)
    assert cairn.archive_add(chat).entry.record_count == len(TURNS)  # control: the file itself is accepted


def test_cli_add_list_and_json(cli, chat: Path):
    r = cli("--json", "archive", "add", str(chat))
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["deduplicated"] is False and tuple(doc["entry"]) == FIELDS
    r = cli("--json", "archive", "add", str(chat))
    assert r.json()["deduplicated"] is True
    listed = cli("--json", "archive", "list").json()
    assert [e["source_id"] for e in listed["entries"]] == [doc["entry"]["source_id"]]
    missing = cli("archive", "add", str(chat.parent / "absent.jsonl"))
    assert missing.code == 1 and len(missing.err.strip().splitlines()) == 1


def test_original_may_disappear_after_preservation(cairn: Cairn, chat: Path):
    entry = cairn.archive_add(chat).entry
    original = chat.read_bytes()
    chat.unlink()
    assert cairn.archive_verify().ok
    _, rehydrated = cairn.archive_show(entry.source_id, turns="1..5")
    assert rehydrated is not None
    assert b"\n".join(r.raw for r in rehydrated.records) == original.replace(b"\r\n", b"\n").rstrip(b"\n")
    assert json.loads(rehydrated.records[0].raw)["id"] == "t1"


def test_docs_quote_the_catalog_fields_and_every_verify_code():
    from cairn.archive.verify import CODES

    text = (Path(__file__).parents[2] / "docs" / "archive.md").read_text(encoding="utf-8")
    assert all(f'"{name}"' in text for name in FIELDS)
    assert all(f"`{code}`" in text for code in CODES)
