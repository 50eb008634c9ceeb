"""learn --archive: a Claude Code session is preserved, learned, and every episode it
produced leads back to its byte-exact line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput
from testkit.archive import SESSION, claude_lines, store_root


def session_lines() -> list[dict]:
    lines = claude_lines()
    lines.append({"sessionId": SESSION, "type": "user", "uuid": "u5", "timestamp": "2026-02-01T10:00:05Z",
                  "message": {"role": "user", "content": "I prefer the offline tablet for every glacier survey."}})
    return lines


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / f"{SESSION}.jsonl"
    # Unusual spacing: a re-serialised line could not pass for the original.
    path.write_bytes(b"".join(json.dumps(o, separators=(" ,", ":  ")).encode() + b"\n" for o in session_lines()))
    return path


def test_round_trip_learn_recall_show_around(cli, session: Path):
    learned = cli("--json", "learn", str(session), "--archive")
    assert learned.code == 0, learned.err
    assert learned.json()["archive"] == SESSION
    recalled = cli("--json", "recall", "which logger did we choose", "--lane", "episodes")
    assert recalled.code == 0, recalled.err
    top = recalled.json()["results"][0]
    assert top["content"] == "Which logger did we choose?"
    shown = cli("--json", "archive", "show", "-", "--around", top["id"])
    assert shown.code == 0, shown.err
    (record,) = shown.json()["records"]
    lines = session.read_bytes().split(b"\n")
    assert record["raw"].encode("utf-8") == lines[1]  # the byte-exact line of that turn
    assert shown.json()["channels"]["visible"] == [{"turn": 2, "text": "user: Which logger did we choose?"}]


def test_learned_tool_output_is_rehydrated_in_the_tool_channel_only(cairn: Cairn, session: Path):
    cairn.learn_archived(session)
    _, r = cairn.archive_show(SESSION, turns="3..4")
    assert r is not None
    channels = r.channels()
    assert [t for t, _ in channels["tool"]] == [3, 4] and channels["visible"] == []
    assert channels["reasoning"] == [(3, "Check the notes first.")]


def test_a_learn_refused_takes_the_new_entry_back(cairn: Cairn, session: Path):
    with pytest.raises(InvalidInput):
        cairn.learn_archived(session, extractor="rules", origin="\x00bad")
    assert cairn.archive_entries() == []
    assert not list((store_root(cairn) / "raw").rglob("*.jsonl"))


def test_dry_run_and_archive_do_not_mix(cli, session: Path):
    r = cli("learn", str(session), "--archive", "--dry-run")
    assert r.code == 1 and "dry run" in r.err
