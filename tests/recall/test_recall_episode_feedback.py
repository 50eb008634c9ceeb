"""Two rules of the episode lane's ranking (recall/episodes.py), each with its negative
control: a question about *when* favours the turn that says when, and pseudo-relevance
feedback lets the best turns of a first pass name related words that lift the turns
holding them (never a turn that holds none of the question's words)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cairn.recall.episodes import PROFILE, parse_episode_query, rank_episodes, says_when
from cairn.text import terms

DAY = "2026-05-02T10:00:00Z"


def ingest(cairn, *turns, origin="chat"):
    """turns: (id, speaker, text, time)"""
    lines = [json.dumps({"id": i, "speaker": s, "text": t, "time": at}) for i, s, t, at in turns]
    cairn.ingest(lines, origin=origin)
    return {m.id: m.evidence.source_id for m in cairn.store.iter_memories(cairn.space, kinds=("episode",))}


def ranked(cairn, turn_of, query, limit=5, profile=PROFILE):
    return [turn_of[h.id] for h in rank_episodes(cairn.store, cairn.space, query, limit=limit, profile=profile)]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("When did Ana go to the lake?", True),
        ("How long has Ana had her turtles?", True),
        ("What year did Ben move to Porto?", True),
        ("In which month did the trip happen?", True),
        ("What did Ana eat at the lake?", False),
        ("How did the trip go?", False),
        ("Which lake did Ana like?", False),
    ],
)
def test_a_question_about_when_is_recognised(question, asks):
    assert parse_episode_query(question).asks_time is asks


def test_a_turn_says_when_by_a_relative_day_a_weekday_a_month_or_a_year():
    for text in ("We went yesterday", "It was last week", "on Friday", "back in March", "in 2019", "two years ago"):
        assert says_when(terms(text)), text
    assert not says_when(terms("We went to the lake and swam"))  # control


def test_a_when_question_favours_the_turn_that_says_when(cairn):
    turn_of = ingest(
        cairn,
        ("plain", "Ana", "The lake trip was lovely.", DAY),
        ("dated", "Ana", "The lake trip was lovely, last weekend.", DAY),
    )
    assert ranked(cairn, turn_of, "When was Ana's lake trip?")[0] == "dated"
    # controls: a question that does not ask when, and the rule switched off, prefer the shorter turn
    assert ranked(cairn, turn_of, "How was Ana's lake trip?")[0] == "plain"
    off = dataclasses.replace(PROFILE, when_boost=0.0)
    assert ranked(cairn, turn_of, "When was Ana's lake trip?", profile=off)[0] == "plain"


def test_feedback_lifts_the_turn_that_shares_a_rare_word_with_the_best_one(cairn):
    turn_of = ingest(
        cairn,
        ("adopt", "Ana", "We finally adopted a tabby named Miso from the shelter.", DAY),
        ("adopt2", "Ben", "Adopting a tabby, how wonderful!", DAY),
        ("adopt3", "Ana", "Adopting the tabby took a month.", DAY),
        *((f"f{i}", "Ben", f"Bread note {i}.", DAY) for i in range(3)),
        ("stray", "Ana", "A tabby walked past.", DAY),
        *((f"g{i}", "Ben", f"Bread note {i}.", DAY) for i in range(3)),
        ("miso", "Ana", "Our tabby Miso sleeps on the radiator.", DAY),
        *((f"h{i}", "Ben", f"Bread note {i}.", DAY) for i in range(3)),
        ("other", "Ana", "Miso is also a soup I like.", "2026-09-02T10:00:00Z"),
        *((f"n{i}", "Ben", f"Weather note number {i}.", "2026-10-02T10:00:00Z") for i in range(30)),
    )
    found = ranked(cairn, turn_of, "who adopted a tabby", limit=10)
    assert set(found[:3]) == {"adopt", "adopt2", "adopt3"}
    assert found.index("miso") < found.index("stray")  # "miso", a rare word of the best turn, lifts it
    assert "other" not in found  # holding only a related word is not matching the question
    off = dataclasses.replace(PROFILE, feedback_terms=0)
    found = ranked(cairn, turn_of, "who adopted a tabby", limit=10, profile=off)
    assert found.index("stray") < found.index("miso")  # control: without feedback the shorter turn wins


def test_feedback_never_takes_a_common_word(cairn):
    # "Ana" and "lovely" are in most turns: neither may lift the other turns that hold "trip".
    turn_of = ingest(
        cairn,
        ("kayak", "Ana", "Ben, the kayak trip was lovely.", DAY),
        ("f1", "Ben", "Bread again today.", DAY),
        ("k2", "Ben", "A kayak trip, wow.", DAY),
        ("f2", "Ben", "Bread again tomorrow.", DAY),
        ("k3", "Ana", "The kayak trip was fun.", DAY),
        *((f"n{i}", "Ben", f"Ana, lovely note number {i} about nothing much.", DAY) for i in range(3)),
        ("trip", "Ben", "Ana, the trip was lovely and long, so long.", DAY),
        *((f"m{i}", "Ben", f"Ana, lovely note number {i} about nothing much.", DAY) for i in range(3)),
        ("bus", "Ana", "A bus trip to the coast.", DAY),
    )
    found = ranked(cairn, turn_of, "what about the kayak trip", limit=10)
    assert found.index("bus") < found.index("trip")
    loose = dataclasses.replace(PROFILE, feedback_max_share=1.0, feedback_weight=1.0)
    found = ranked(cairn, turn_of, "what about the kayak trip", limit=10, profile=loose)
    assert found.index("trip") < found.index("bus")  # control: were "lovely" a related word, it would lift "trip"


def test_the_same_speakers_turn_two_away_borrows_from_the_exchange(cairn):
    later = "2026-06-02T10:00:00Z"
    turn_of = ingest(
        cairn,
        ("r", "Ana", "Relaxing is hard for me.", DAY),
        ("b", "Ben", "Oh no.", DAY),
        ("c", "Ana", "Pottery helps, honestly.", DAY),
        ("y", "Ben", "Bye.", DAY),
        ("r2", "Ana", "Relaxing is hard for me.", later),
        ("x1", "Ben", "Oh no.", later),
        ("x2", "Ben", "Really.", later),
        ("c2", "Ana", "Pottery helps, honestly.", later),
    )

    def scores(profile):
        hits = rank_episodes(cairn.store, cairn.space, "How does Ana relax?", limit=10, profile=profile)
        return {turn_of[h.id]: h.score for h in hits}

    still = dataclasses.replace(PROFILE, time_weight=0.0)
    assert scores(still)["c"] > scores(still)["c2"]  # two turns after the relaxing turn, in its exchange
    off = dataclasses.replace(still, second_weight=0.0)
    assert scores(off)["c"] == pytest.approx(scores(off)["c2"])  # control: without the rule, level
