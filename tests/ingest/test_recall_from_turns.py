"""A plain question after ``cairn ingest`` is answered from what was said.

Conversation turns are episodes, not claims. When no claim answers a question and the
caller asked (rather than a host injecting), with the lane left to its default, recall
answers from the turns that do — in the episode lane's order, up to the limit, labelled as
episodes — and says so in its note. A lane the caller chose, ``--inject``, a question no turn
answers, and a question a claim answers are the controls.
"""

from __future__ import annotations

import json

import pytest

NOW = "2026-02-03T00:00:00Z"
TRIP = [
    ("t1", "Maya", "Morning! I finally booked the flights for Lisbon, we leave on the 14th of March.", "2026-01-10T09:00:00Z"),
    ("t2", "Jonas", "Nice. Did you get the window seats?", "2026-01-10T09:01:00Z"),
    ("t3", "Maya", "Yes, 14A and 14B. The hotel is near the Alfama district.", "2026-01-10T09:02:00Z"),
    ("t4", "Jonas", "By the way my sister Lena started her new job at Siemens last week.", "2026-01-10T09:03:00Z"),
    ("t5", "Maya", "Good for her! Is she still living in Munich?", "2026-01-10T09:04:00Z"),
    ("t6", "Jonas", "No, she moved to Berlin for the job.", "2026-01-10T09:05:00Z"),
    ("t7", "Jonas", "Our dog Pixel has been limping, so we took him to the vet on Tuesday.", "2026-01-17T18:03:00Z"),
    ("t8", "Maya", "Change of plans: the airline moved our flight, we now leave on the 16th of March.", "2026-02-02T10:00:00Z"),
]


@pytest.fixture
def trip(cli, tmp_path):
    path = tmp_path / "trip.jsonl"
    path.write_text("".join(json.dumps({"id": i, "speaker": s, "text": t, "time": at}) + "\n" for i, s, t, at in TRIP),
                    encoding="utf-8")
    assert cli("--now", NOW, "ingest", str(path)).code == 0
    return cli


def asked(cli, query: str, *options: str) -> tuple[list[str], str | None]:
    result = cli("--now", NOW, "--json", "recall", query, "--no-trace", *options)
    assert result.code == 0, result.err
    doc = result.json()
    return [r["evidence"]["source_id"] or r["id"] for r in doc["results"]], doc["note"]


def test_a_plain_question_is_answered_from_the_turns(trip):
    turns, note = asked(trip, "what happened to the dog")
    assert turns == ["t7"]
    assert note is not None and "from the conversations" in note


def test_a_changed_fact_comes_with_the_turn_that_changed_it(trip):
    turns, _ = asked(trip, "when does Maya leave for Lisbon")
    assert "t1" in turns and "t8" in turns  # the booking and the moved flight, both dated


def test_a_question_about_a_speaker_is_read_as_the_episode_lane_reads_it(trip):
    # The claims gates want "Jonas" in the text; the turns are *said by* Jonas.
    turns, _ = asked(trip, "where does Jonas's sister live now")
    assert "t6" in turns and "t4" in turns


@pytest.mark.parametrize("options", [("--lane", "claims"), ("--inject",)])
def test_a_chosen_lane_or_an_injection_keeps_to_claims(trip, options):
    turns, note = asked(trip, "what happened to the dog", *options)
    assert turns == []
    # Pointed to, not shown: the episode lane, or with the semantic extra's default lane the
    # fusion of words and meaning the turns would have come from.
    assert note is not None and ("--lane episodes" in note or "--lane hybrid-episodes" in note)


def test_no_turn_answers_an_unrelated_question(trip):
    assert asked(trip, "what is the wifi password") == ([], "nothing matched the query")
    assert asked(trip, "who is the dentist")[0] == []


def test_a_claim_that_answers_is_not_joined_by_turns(trip):
    remembered = trip("--now", NOW, "--json", "remember", "Pixel the dog is insured with PetCover", "--kind", "fact")
    assert remembered.code == 0, remembered.err
    turns, note = asked(trip, "which insurance does the dog have")
    assert turns == [remembered.json()["id"]] and note is None
