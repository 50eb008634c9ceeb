"""archive verify: every failure is named, and a failing source is never rehydrated.

Each case damages a clean archive one way (beneath the engine, as the world would) and
asserts the code verify names; the control is the same archive undamaged."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.errors import ArchiveFailed
from cairn.model import Actor, Change, Event
from testkit.archive import catalog_lines, rewrite, store_root, write_catalog


def tamper_byte(cairn: Cairn, entry, path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[10] ^= 0x01  # one bit, same size
    rewrite(path, bytes(data))


def truncate(cairn: Cairn, entry, path: Path) -> None:
    rewrite(path, path.read_bytes()[:-7])


def wrong_size(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, byte_size=entry.byte_size + 1)


def symlink_swap(cairn: Cairn, entry, path: Path) -> None:
    copy = path.parent.parent / "copy.jsonl"
    copy.write_bytes(path.read_bytes())  # the same bytes, behind a link
    os.chmod(path, 0o600)
    path.unlink()
    path.symlink_to(copy)


def missing(cairn: Cairn, entry, path: Path) -> None:
    os.chmod(path, 0o600)
    path.unlink()


def duplicate_id(cairn: Cairn, entry, path: Path) -> None:
    docs = catalog_lines(cairn)
    write_catalog(cairn, docs + [{**docs[0], "sha256": "0" * 64}])


def escape_dotdot(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, preserved_path="../../" + path.name)


def escape_absolute(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, preserved_path=str(path))


def escape_through_symlinked_dir(cairn: Cairn, entry, path: Path) -> None:
    outside = store_root(cairn).parent.parent / "outside"
    outside.mkdir()
    (outside / path.name).write_bytes(path.read_bytes())
    os.chmod(outside / path.name, 0o400)
    (store_root(cairn) / "raw" / "via").symlink_to(outside, target_is_directory=True)
    edit_catalog(cairn, preserved_path=f"raw/via/{path.name}")


def writable(cairn: Cairn, entry, path: Path) -> None:
    os.chmod(path, 0o644)


def record_count(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, record_count=entry.record_count - 1)


def time_range(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, ended_at="2031-01-01T00:00:00Z")


def schema(cairn: Cairn, entry, path: Path) -> None:
    edit_catalog(cairn, title="a title the catalog must never hold")


def store_mode(cairn: Cairn, entry, path: Path) -> None:
    os.chmod(store_root(cairn), 0o755)


def linked_records(cairn: Cairn, entry, path: Path) -> None:
    """An episode linked to the source whose turn the file does not hold."""
    episode = cairn.remember("a turn that never was", kind="episode", source="t99").memory
    snapshot = {"kind": "episode", "evidence": {"source_id": "t99"}}
    event = Event(id="e" * 24, space=cairn.space, at=cairn.now(), actor=Actor.SYSTEM, reason="ingest (test)",
                  changes=(Change("memory", episode.id, None, snapshot),),
                  data={"archive": {"source_id": entry.source_id, "sha256": entry.sha256, "turns": [1, 1]}})
    with cairn.store.write() as tx:
        tx.append_event(event)


def edit_catalog(cairn: Cairn, **fields) -> None:
    write_catalog(cairn, [{**doc, **fields} for doc in catalog_lines(cairn)])


CASES: dict[str, tuple[Callable, str]] = {
    "tampered byte": (tamper_byte, "hash"),
    "truncation": (truncate, "size"),
    "wrong size": (wrong_size, "size"),
    "symlink swap": (symlink_swap, "not-regular"),
    "missing file": (missing, "missing"),
    "duplicate catalog id": (duplicate_id, "duplicate-id"),
    "path escaping with ..": (escape_dotdot, "containment"),
    "absolute path": (escape_absolute, "containment"),
    "path through a symlinked directory": (escape_through_symlinked_dir, "containment"),
    "writable file": (writable, "writable"),
    "record count": (record_count, "record-count"),
    "time range": (time_range, "time-range"),
    "content field in the catalog": (schema, "schema"),
    "store not private": (store_mode, "store-mode"),
    "linked turn absent": (linked_records, "linked-records"),
}


def test_a_clean_archive_verifies(cairn: Cairn, archived):
    entry, _ = archived
    result = cairn.archive_verify()
    assert result.ok and result.checked == (entry.source_id,)
    _, rehydrated = cairn.archive_show(entry.source_id, turns="1..2")
    assert rehydrated is not None and len(rehydrated.records) == 2


@pytest.mark.parametrize("name", list(CASES))
def test_each_failure_is_named(cairn: Cairn, archived, name: str):
    entry, path = archived
    damage, code = CASES[name]
    damage(cairn, entry, path)
    result = cairn.archive_verify()
    assert not result.ok
    assert code in {f.code for f in result.failures}, [str(f) for f in result.failures]


@pytest.mark.parametrize("name", [n for n in CASES if n != "content field in the catalog"])
def test_a_verify_failure_blocks_rehydration(cairn: Cairn, archived, name: str):
    entry, path = archived
    damage, code = CASES[name]
    damage(cairn, entry, path)
    with pytest.raises(ArchiveFailed) as caught:
        cairn.archive_show(entry.source_id, turns="1..1")
    assert any(f":{' '}{code}:" in line or f": {code}:" in line for line in caught.value.failures)


def test_a_content_field_makes_the_entry_unreadable(cairn: Cairn, archived):
    """A catalog line with a title is not an entry: nothing can be rehydrated through it."""
    entry, path = archived
    schema(cairn, entry, path)
    assert cairn.archive_entries() == []


def test_identity_names_a_session_mismatch(cairn: Cairn, claude: Path):
    entry = cairn.archive_add(claude).entry
    assert cairn.archive_verify().ok
    edit_catalog(cairn, source_id="someone-else")
    result = cairn.archive_verify()
    assert "identity" in {f.code for f in result.failures}
    with pytest.raises(ArchiveFailed):
        cairn.archive_show("someone-else", turns="1..1")
    assert entry.source_id != "someone-else"


def test_verify_one_entry_and_cli_exit_status(cli, cairn: Cairn, archived, chat: Path, tmp_path: Path):
    entry, path = archived
    other = tmp_path / "other.jsonl"
    other.write_bytes(chat.read_bytes().replace(b"Ana", b"Ada"))
    second = cairn.archive_add(other).entry
    ok = cli("--json", "archive", "verify")
    assert ok.code == 0 and ok.json()["ok"] is True and len(ok.json()["checked"]) == 2
    tamper_byte(cairn, entry, path)
    bad = cli("--json", "archive", "verify")
    assert bad.code == 1
    assert [(f["source_id"], f["code"]) for f in bad.json()["failures"]] == [(entry.source_id, "hash")]
    assert cli("archive", "verify", second.source_id).code == 0  # the other source is still sound
    shown = cli("archive", "show", entry.source_id, "--turns", "1..1")
    assert shown.code == 1 and "hash" in shown.err and "We picked" not in shown.out + shown.err
