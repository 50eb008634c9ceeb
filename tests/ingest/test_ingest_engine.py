"""Ingest through the engine: one verbatim episode per turn, idempotent, all or nothing."""

from __future__ import annotations

import json
import re

import pytest

from cairn.errors import InvalidInput
from cairn.model import Basis, Kind, Method, parse_time
from testkit.transcripts import TURNS, jsonl, locomo_conversation


def episodes(cairn):
    return list(cairn.store.iter_memories(cairn.space, kinds=("episode",)))


def by_turn(cairn):
    return {m.evidence.source_id: m for m in episodes(cairn)}


def test_each_turn_becomes_a_verbatim_episode_with_transcript_evidence(cairn, transcript):
    result = cairn.ingest(transcript)
    assert result.episodes == 3 and result.skipped == 0
    turns = by_turn(cairn)
    assert set(turns) == {"t1", "t2", "t3"}
    first = turns["t1"]
    assert first.kind is Kind.EPISODE
    assert first.content == TURNS[0]["text"]
    assert first.aliases == ("Ana",)
    assert first.evidence.basis is Basis.TRANSCRIPT and first.evidence.method is Method.LOCAL
    assert first.evidence.at == parse_time(TURNS[0]["time"]) == first.updated_at
    assert first.origin == "chat"  # the file's name when no origin is given
    assert turns["t2"].aliases == ("assistant",)  # "role" stands in for "speaker"


def test_identical_turns_are_never_deduplicated(cairn, transcript):
    cairn.ingest(transcript)
    same = [m for m in episodes(cairn) if m.content == "Noted."]
    assert len(same) == 2 and len({m.id for m in same}) == 2
    # Negative control: the same words as a claim in one origin are stored once.
    first = cairn.remember("Noted as a fact.", kind="fact", origin="chat")
    second = cairn.remember("Noted as a fact.", kind="fact", origin="chat")
    assert second.deduplicated and second.memory.id == first.memory.id


def test_one_transaction_one_event_per_ingest(cairn, transcript):
    before = cairn.store.count_events(cairn.space)
    result = cairn.ingest(transcript)
    assert cairn.store.count_events(cairn.space) == before + 1
    assert sorted(result.event.changed_ids) == sorted(result.ids)
    assert result.event.data == {"source": result.source, "episodes": 3, "skipped": 0}
    assert cairn.store.get_source(cairn.space, result.source)["kind"] == "conversation"


def test_reingest_is_idempotent_and_writes_nothing(cairn, transcript, fingerprint):
    cairn.ingest(transcript)
    before = fingerprint()
    again = cairn.ingest(transcript)
    assert (again.episodes, again.skipped, again.event) == (0, 3, None)
    assert fingerprint() == before


def test_reingest_adds_only_new_turns_and_never_replaces_old_ones(cairn, transcript, tmp_path):
    cairn.ingest(transcript)
    longer = tmp_path / "chat.jsonl"
    changed = dict(TURNS[0], text="A different text under the same id.")
    extra = {"id": "t4", "speaker": "Ana", "text": "And the restore test on Monday.", "time": "2026-10-01T09:02:00Z"}
    longer.write_text(jsonl(changed, *TURNS[1:], extra), encoding="utf-8")
    result = cairn.ingest(longer)
    assert (result.episodes, result.skipped) == (1, 3)
    turns = by_turn(cairn)
    assert turns["t1"].content == TURNS[0]["text"]  # verbatim, never replaced
    assert turns["t4"].content == extra["text"]


def test_the_same_turn_ids_in_another_origin_are_new_episodes(cairn, transcript):
    cairn.ingest(transcript, origin="one")
    result = cairn.ingest(transcript, origin="two")
    assert result.episodes == 3
    assert sorted(m.origin for m in episodes(cairn)) == ["one"] * 3 + ["two"] * 3


def test_lines_can_be_given_directly(cairn):
    result = cairn.ingest(jsonl(*TURNS).splitlines(), origin="inline")
    assert result.episodes == 3 and result.origins == ("inline",)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "not JSON"),
        (json.dumps(["a list"]), "expected an object"),
        (json.dumps({"speaker": "Ana", "text": "x", "time": "2026-10-01"}), '"id"'),
        (json.dumps({"id": "z", "text": "x", "time": "2026-10-01"}), '"role"'),
        (json.dumps({"id": "z", "speaker": "Ana", "text": "  ", "time": "2026-10-01"}), '"text"'),
        (json.dumps({"id": "z", "speaker": "Ana", "text": "x", "time": "yesterday"}), '"time"'),
        (json.dumps({"id": "z", "speaker": "Ana", "text": "x"}), '"time"'),
        (json.dumps({"id": "t1", "speaker": "Ana", "text": "x", "time": "2026-10-01"}), "appears twice"),
    ],
)
def test_a_bad_line_refuses_the_whole_ingest_naming_the_line(cairn, tmp_path, fingerprint, line, reason):
    cairn.ingest(jsonl(TURNS[1]).splitlines(), origin="seed")  # the store is not empty
    path = tmp_path / "bad.jsonl"
    path.write_text(jsonl(*TURNS[:2]) + "\n" + line + "\n", encoding="utf-8")
    before = fingerprint()
    with pytest.raises(InvalidInput) as err:
        cairn.ingest(path)
    message = str(err.value)
    assert "line 4" in message and reason in message and "\n" not in message
    assert fingerprint() == before


def test_an_over_long_turn_is_refused(cairn, fingerprint):
    before = fingerprint()
    long_turn = {"id": "big", "speaker": "Ana", "text": "x" * 20_001, "time": "2026-10-01"}
    with pytest.raises(InvalidInput, match="turn big"):
        cairn.ingest([json.dumps(long_turn)])
    assert fingerprint() == before


def test_unknown_format_and_misplaced_sample_are_refused(cairn, transcript):
    with pytest.raises(InvalidInput, match="format"):
        cairn.ingest(transcript, format="csv")
    with pytest.raises(InvalidInput, match="sample"):
        cairn.ingest(transcript, sample=0)


def test_an_empty_file_is_refused(cairn, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no turns"):
        cairn.ingest(empty)


def test_secrets_in_a_turn_are_redacted_before_storage(cairn):
    turn = {"id": "s", "speaker": "Ana", "text": "my key is AKIAIOSFODNN7EXAMPLE ok", "time": "2026-10-01"}
    cairn.ingest([json.dumps(turn)], origin="o")
    assert "AKIAIOSFODNN7EXAMPLE" not in by_turn(cairn)["s"].content


# -- LoCoMo ------------------------------------------------------------------------------


def test_locomo_turns_take_their_session_time_and_keep_the_caption(cairn):
    result = cairn.ingest(locomo_conversation("conv-x"), format="locomo")
    assert result.origins == ("conv-x",) and result.episodes == 3
    turns = by_turn(cairn)
    assert turns["D1:1"].evidence.at == parse_time("2023-05-08T13:56:00Z")
    assert turns["D2:1"].evidence.at == parse_time("2023-06-03T10:05:00Z")
    assert turns["D1:2"].content == "Show me! [shares a photo of a lake]"
    assert turns["D1:2"].aliases == ("Ben",)


def test_a_locomo_list_ingests_each_conversation_in_its_own_origin(cairn, locomo_file):
    result = cairn.ingest(locomo_file, format="locomo")
    assert result.origins == ("conv-a", "conv-b") and result.episodes == 6
    assert cairn.ingest(locomo_file, format="locomo").episodes == 0  # same ids, same origins


def test_a_locomo_sample_is_picked_by_id_or_index(cairn, locomo_file):
    assert cairn.ingest(locomo_file, format="locomo", sample="conv-b").origins == ("conv-b",)
    assert cairn.ingest(locomo_file, format="locomo", sample=0).origins == ("conv-a",)
    with pytest.raises(InvalidInput, match="no conversation"):
        cairn.ingest(locomo_file, format="locomo", sample="conv-zzz")


def test_a_broken_locomo_session_time_refuses_the_ingest(cairn, fingerprint):
    bad = locomo_conversation()
    bad["conversation"]["session_2_date_time"] = "sometime in June"
    before = fingerprint()
    with pytest.raises(InvalidInput, match="session 2"):
        cairn.ingest(bad, format="locomo")
    assert fingerprint() == before


# -- progress ----------------------------------------------------------------------------


def test_progress_is_reported_to_a_callback(cairn):
    seen = []
    turns = [json.dumps({"id": str(n), "speaker": "A", "text": f"turn {n}", "time": "2026-10-01"}) for n in range(1200)]
    cairn.ingest(turns, origin="long", progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (500, 1200) and seen[-1] == (1200, 1200)


def test_no_progress_line_when_stderr_is_not_a_terminal(cairn, capsys):
    turns = [json.dumps({"id": str(n), "speaker": "A", "text": f"turn {n}", "time": "2026-10-01"}) for n in range(2100)]
    cairn.ingest(turns, origin="long")
    assert capsys.readouterr().err == ""


def test_a_long_ingest_shows_progress_when_stderr_is_a_terminal(cairn, capsys, monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    turns = [json.dumps({"id": str(n), "speaker": "A", "text": f"turn {n}", "time": "2026-10-01"}) for n in range(2100)]
    cairn.ingest(turns, origin="long")
    err = capsys.readouterr().err
    assert "\ringest [#######" in err and "] 500/2100 turns" in err
    assert re.search(r"\] 2100/2100 turns, \d+/s\n$", err)
    cairn.ingest(turns[:10], origin="short")  # short ingests stay quiet even on a terminal
    assert capsys.readouterr().err == ""
