"""The episode ranker's cheaper forms give what the long forms give (recall/episodes.py,
recall/episode_candidates.py).

A pass scores its turns as rows and makes a ScoredTurn only of the turns it hands out,
in the order two stable sorts (key, then score) give; the update lift works on those rows;
a list of candidates that fits its limit is loaded in one step. Each test holds the
short form to the long one, with a control that the case exercises it."""

from __future__ import annotations

import json

from cairn.recall import episode_candidates, episodes
from cairn.recall.episodes import PROFILE, parse_episode_query
from cairn.recall.tense import Tense

DAY = "2026-05-02T10:00:00Z"
TALK = [
    ("Ben", "We leave for Lisbon on the 14th"),
    ("Ana", "Great, I packed the quince jam for the trip"),
    ("Ben", "The quince jam stays in the fridge"),
    ("Ana", "Is the flight booked?"),
    ("Ben", "The airline moved our flight, we now leave on the 16th"),
    ("Ana", "Then the trip starts on the 16th"),
]


def ingest(cairn) -> None:
    cairn.ingest([json.dumps({"id": f"t{i}", "speaker": s, "text": t, "time": DAY}) for i, (s, t) in enumerate(TALK)],
                 origin="chat")


def scored_turns(cairn, question: str):
    """(parsed, turns, named) of the ranker's first pass, its lexical pass run."""
    view, space = cairn.store, cairn.space
    parsed = parse_episode_query(question)
    named = episodes.speaker_terms(view, space, parsed.terms)
    found = episodes.candidates(view, space, episodes.match_words(parsed, PROFILE.prefix_min, named),
                                PROFILE.candidate_cap)
    episodes.lexical_pass(parsed, found, named, view.space_document_count(space), PROFILE)
    return parsed, found + episodes._Neighbours(view, space).around(found, PROFILE.neighbour_fetch, 2), named


def long_way(parsed, turns, named, asked):
    """Every turn a ScoredTurn, sorted by (-score, key): what the rows stand for."""
    scored = episodes._final(parsed, turns, named, PROFILE, asked, matched_only=True)
    return sorted(scored, key=lambda s: (-s.score, s.turn.key))


def test_rows_sorted_and_made_scored_turns_are_the_long_way(cairn):
    ingest(cairn)
    parsed, turns, named = scored_turns(cairn, "when do we leave for Lisbon?")
    for asked in (Tense.PRESENT, Tense.PAST, None):
        rows = episodes._final_rows(parsed, turns, named, PROFILE, asked, matched_only=True)
        rows.sort(key=episodes._row_key)
        rows.sort(key=episodes._row_score, reverse=True)
        short = [episodes._scored_turn(row) for row in rows]
        assert short == long_way(parsed, turns, named, asked)
        assert len({s.score for s in short}) > 1  # control: there is an order to keep
    # Control: asked in the present, the rows carry the update lift (one turn lifted).
    present = [episodes._scored_turn(r) for r in episodes._final_rows(parsed, turns, named, PROFILE, Tense.PRESENT,
                                                                     matched_only=True)]
    assert ["mov our flight" in s.turn.text for s in present if s.updates] == [True]


def test_the_head_of_the_rows_is_the_head_of_the_long_way(cairn):
    # The first pass hands out only its best three; they are the best three of the long way.
    ingest(cairn)
    parsed, turns, named = scored_turns(cairn, "the quince jam, the trip, the flight to Lisbon")
    rows = episodes._final_rows(parsed, turns, named, PROFILE, Tense.PRESENT, matched_only=True)
    rows.sort(key=episodes._row_key)
    rows.sort(key=episodes._row_score, reverse=True)
    assert [episodes._scored_turn(r) for r in rows[:3]] == long_way(parsed, turns, named, Tense.PRESENT)[:3]
    assert len(rows) > 3  # control: there is a tail left unmade


def test_a_list_that_fits_its_limit_loads_as_the_chunked_read(cairn):
    ingest(cairn)
    cairn.remember("the quince jam recipe is a claim, not a turn", kind="fact")
    with cairn.store.snapshot() as view:
        keys = view.content_postings("quinc", 100)
        turns = view.episode_turns(cairn.space, keys, len(keys))
        assert len(keys) > len(turns) > 1  # control: a key among them is not a turn of the space
        fits = episode_candidates.load_turns(view, cairn.space, keys, len(keys))
        assert fits == turns
        # The same keys as the chunked read (a limit below their number) gives them.
        assert episode_candidates.load_turns(view, cairn.space, keys, len(turns)) == fits
        assert episode_candidates.load_turns(view, cairn.space, keys, 1) == fits[:1]
