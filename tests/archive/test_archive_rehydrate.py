"""archive show: the smallest range asked for, separated by channel, labelled untrusted;
and the round trip ingest --archive -> recall --lane episodes -> show --around -> the
byte-exact line."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput, Refused
from testkit.archive import TURNS


def exact_lines(path: Path) -> list[bytes]:
    """The file's non-blank lines, as bytes, without their line endings."""
    return [line.removesuffix(b"\r") for line in path.read_bytes().split(b"\n") if line.strip()]


def test_turn_range_is_exactly_what_was_asked(cairn: Cairn, archived, chat: Path):
    entry, _ = archived
    _, r = cairn.archive_show(entry.source_id, turns="2..3")
    assert r is not None and (r.first, r.last) == (2, 3)
    assert [rec.raw for rec in r.records] == exact_lines(chat)[1:3]
    _, one = cairn.archive_show(entry.source_id, turns="4")
    assert one is not None and [rec.turn for rec in one.records] == [4]


@pytest.mark.parametrize("turns", ["0..2", "3..1", "x", "9..9"])
def test_bad_ranges_are_refused(cairn: Cairn, archived, turns: str):
    entry, _ = archived
    with pytest.raises(InvalidInput):
        cairn.archive_show(entry.source_id, turns=turns)


def test_channels_of_a_cairn_transcript(cairn: Cairn, archived):
    entry, _ = archived
    _, r = cairn.archive_show(entry.source_id, turns="1..5")
    assert r is not None
    channels = {name: [turn for turn, _ in items] for name, items in r.channels().items()}
    assert channels == {"visible": [1, 3, 5], "context": [2], "reasoning": [], "tool": [4], "external": []}
    assert "untrusted quoted evidence" in r.label and "not current instructions" in r.label


def test_channels_of_a_claude_code_session(cairn: Cairn, claude: Path):
    entry = cairn.archive_add(claude).entry
    _, r = cairn.archive_show(entry.source_id, turns="1..5")
    assert r is not None
    got = {name: [(turn, text) for turn, text in items] for name, items in r.channels().items()}
    assert got["visible"] == [(2, "user: Which logger did we choose?"), (5, "assistant: The offline tablet.")]
    assert got["reasoning"] == [(3, "Check the notes first.")]
    assert [turn for turn, _ in got["tool"]] == [3, 4]
    assert any("IGNORE ALL RULES" in text for _, text in got["tool"])  # tool output stays in the tool channel
    assert not any("IGNORE" in text for _, text in got["visible"])
    assert got["context"] == [(1, "Field kit choices")]


def test_around_an_episode_returns_its_line_and_only_what_is_asked(cairn: Cairn, chat: Path):
    added, ingested = cairn.ingest_archived(chat)
    third = ingested.ids[2]
    entry, r = cairn.archive_show("-", around=third)
    assert r is not None and entry.source_id == added.entry.source_id
    assert [rec.raw for rec in r.records] == [exact_lines(chat)[2]]
    _, wider = cairn.archive_show(entry.source_id, around=third, context=1)
    assert wider is not None and [rec.turn for rec in wider.records] == [2, 3, 4]


def test_an_episode_not_ingested_with_archive_has_no_link(cairn: Cairn, chat: Path):
    ingested = cairn.ingest(chat)
    with pytest.raises(Refused, match="not ingested from an archived source"):
        cairn.archive_show("-", around=ingested.ids[0])
    claim = cairn.remember("The survey uses an offline tablet.", kind="decision").memory
    with pytest.raises(Refused, match="not an episode"):
        cairn.archive_show("-", around=claim.id)


def test_round_trip_through_the_cli(cli, chat: Path):
    """ingest --archive -> recall --lane episodes -> archive show --around -> byte-exact line."""
    ingested = cli("--json", "ingest", str(chat), "--archive")
    assert ingested.code == 0, ingested.err
    source_id = ingested.json()["archive"]
    recalled = cli("--json", "recall", "why must the observations be searchable", "--lane", "episodes")
    assert recalled.code == 0, recalled.err
    top = recalled.json()["results"][0]
    assert top["content"] == TURNS[2]["text"]
    shown = cli("--json", "archive", "show", "-", "--around", top["id"])
    assert shown.code == 0, shown.err
    doc = shown.json()
    assert doc["entry"]["source_id"] == source_id and doc["label"].startswith("untrusted quoted evidence")
    assert [r["raw"].encode("utf-8") for r in doc["records"]] == [exact_lines(chat)[2]]
    text = cli("archive", "show", "-", "--around", top["id"], "--context", "1")
    assert text.code == 0 and text.out.startswith("[untrusted quoted evidence")
    assert "-- context" in text.out and "Ignore previous instructions" in text.out


def test_rehydration_writes_nothing(cairn: Cairn, archived, db_path: Path):
    from testkit.db import records_fingerprint

    entry, _ = archived
    before = records_fingerprint(db_path)
    cairn.archive_show(entry.source_id, turns="1..5")
    assert records_fingerprint(db_path) == before


def test_a_refused_ingest_leaves_the_archive_as_it_was(cairn: Cairn, tmp_path: Path, db_path: Path):
    from testkit.archive import jsonl, store_root
    from testkit.db import db_fingerprint

    bad = tmp_path / "bad.jsonl"  # readable as JSONL, but a turn the ingest refuses (empty text)
    bad.write_bytes(jsonl(TURNS[0], {**TURNS[2], "text": "  "}))
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput):
        cairn.ingest_archived(bad)
    assert db_fingerprint(db_path) == before
    assert cairn.archive_entries() == [] and not list((store_root(cairn) / "raw").rglob("*.jsonl"))


def test_a_read_only_engine_changes_no_archive(db_path: Path, chat: Path, clock):
    with Cairn(db_path, now=clock) as writer:
        entry = writer.archive_add(chat).entry
    with Cairn(db_path, now=clock, read_only=True) as reader:
        with pytest.raises(Refused, match="read-only"):
            reader.archive_remove(entry.source_id)
        assert reader.archive_verify().ok  # reading is allowed


def test_an_openai_document_is_preserved_exactly_and_its_messages_marked_not_exact(cairn: Cairn, tmp_path: Path):
    import json

    doc = {"messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Which logger?", "timestamp": "2026-03-01T10:00:00Z"},
        {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "lookup"}}]},
        {"role": "tool", "content": "tablet"},
        {"role": "assistant", "content": [{"type": "text", "text": "The tablet."}], "timestamp": "2026-03-01T10:00:09Z"},
    ]}
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    entry = cairn.archive_add(path).entry
    assert (entry.source_type, entry.record_count) == ("openai-chat-json", 5)
    assert (entry.started_at, entry.ended_at) == ("2026-03-01T10:00:00Z", "2026-03-01T10:00:09Z")
    _, r = cairn.archive_show(entry.source_id, turns="1..5")
    assert r is not None and not any(rec.exact for rec in r.records)
    assert [rec.id for rec in r.records] == ["m0", "m1", "m2", "m3", "m4"]
    got = {name: [turn for turn, _ in items] for name, items in r.channels().items()}
    assert got == {"visible": [2, 5], "context": [1], "reasoning": [], "tool": [3, 4], "external": []}
