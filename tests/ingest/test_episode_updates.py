"""A fact updated later in a conversation: asked in the present tense, the update first.

An update rarely repeats what it updates ("the airline moved our flight, we now leave on the
16th" never says "Lisbon" again), so plain relevance puts the stale statement first. A later
turn that says something changed and shares a word of the question with an earlier,
stronger turn of the same speaker is placed just above it. Controls: the past tense,
``--as-of`` before the update, another speaker, a later turn that says no change.
"""

from __future__ import annotations

import json

import pytest

NOW = "2026-06-01T00:00:00Z"

CASES = {
    "trip": (
        [("a1", "Maya", "I finally booked the flights for Lisbon, we leave on the 14th of March."),
         ("a2", "Jonas", "Nice. Did you get the window seats?"),
         ("a3", "Maya", "Change of plans: the airline moved our flight, we now leave on the 16th of March.")],
        "when does Maya leave for Lisbon", "a3", "a1"),
    "phone": (
        [("b1", "Sam", "My new phone number is 0612 345 678, save it."),
         ("b2", "Lia", "Done, thanks."),
         ("b3", "Sam", "Scratch that, I got a different number after all: 0698 111 222.")],
        "what is Sam's phone number", "b3", "b1"),
    "offsite": (
        [("c1", "Ravi", "The team offsite will be in Porto this year."),
         ("c2", "Kim", "Porto sounds great."),
         ("c3", "Ravi", "Budget cuts: the offsite moves to Braga instead.")],
        "where is the team offsite", "c3", "c1"),
    "ci": (
        [("e1", "Omar", "We're using Jenkins for the CI pipeline."),
         ("e2", "Ida", "Fine by me."),
         ("e3", "Omar", "We switched the CI pipeline to GitHub Actions last week.")],
        "what do we use for CI", "e3", "e1"),
}


def ingest(cli, tmp_path, turns, name="chat.jsonl") -> None:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": i, "speaker": s, "text": t, "time": f"2026-0{1 + k}-10T09:00:00Z"}) + "\n"
                            for k, (i, s, t) in enumerate(turns)), encoding="utf-8")
    assert cli("--now", NOW, "ingest", str(path)).code == 0


def turns(cli, query: str, *options: str) -> list[str]:
    result = cli("--now", NOW, "--json", "recall", query, "--lane", "episodes", "--no-trace", *options)
    assert result.code == 0, result.err
    return [r["evidence"]["source_id"] for r in result.json()["results"]]


@pytest.mark.parametrize("case", sorted(CASES))
def test_asked_in_the_present_the_update_comes_first(cli, tmp_path, case):
    said, question, update, stale = CASES[case]
    ingest(cli, tmp_path, said)
    found = turns(cli, question)
    assert found.index(update) < found.index(stale), found


def test_asked_in_the_past_the_earlier_statement_keeps_its_place(cli, tmp_path):
    said, _, update, stale = CASES["ci"]
    ingest(cli, tmp_path, said)
    found = turns(cli, "what did we use for CI before")
    assert found.index(stale) < found.index(update), found


def test_as_of_before_the_update_the_earlier_statement_keeps_its_place(cli, tmp_path):
    said, question, update, stale = CASES["trip"]
    ingest(cli, tmp_path, said)
    assert turns(cli, question, "--as-of", "2026-02-01T00:00:00Z")[:1] == [stale]


def test_an_update_by_someone_else_is_not_placed_above(cli, tmp_path):
    said, question, _, stale = CASES["offsite"]
    rumour = [said[0], said[1], ("c3", "Kim", "I heard the offsite moves to Braga instead.")]
    ingest(cli, tmp_path, rumour)
    assert turns(cli, question)[:1] == [stale]


def test_a_later_turn_that_says_no_change_is_not_placed_above(cli, tmp_path):
    said, question, _, stale = CASES["offsite"]
    ingest(cli, tmp_path, [said[0], said[1], ("c3", "Ravi", "The offsite has a great view of the river.")])
    assert turns(cli, question)[:1] == [stale]


def test_the_lifted_turn_says_so_in_explain(cli, tmp_path):
    said, question, update, _ = CASES["trip"]
    ingest(cli, tmp_path, said)
    doc = cli("--now", NOW, "--json", "explain", question, "--lane", "episodes").json()
    lifted = [c for c in doc["candidates"] if c.get("factors", {}).get("update")]
    assert [c["turn"] for c in lifted] == [update]
