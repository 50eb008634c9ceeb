"""The episode ranker's shortcuts give what the full scoring gives (recall/episodes.py).

The ranker names and rounds factors only for the turns it hands out, does not score a
turn that only lends context (it is never handed out), reads a neighbour once per
question, and reads each turn's text once per process (keyed by the text). Each test
compares a shortcut with the long way on a crafted conversation, with a control that the
case does exercise the shortcut."""

from __future__ import annotations

import dataclasses
import json
from typing import cast

from cairn.recall import episodes
from cairn.recall.episodes import PROFILE, parse_episode_query, rank_episodes
from cairn.recall.tense import tense
from cairn.store import ReadView

DAY1, DAY2 = "2026-05-02T10:00:00Z", "2026-05-09T10:00:00Z"
TURNS = [
    ("Ana", "What should we plant in the garden this spring?", DAY1),
    ("Ben", "Tomatoes, they grow well against the south wall", DAY1),
    ("Ana", "Sounds good to me", DAY1),
    ("Ben", "I also bought basil seeds yesterday", DAY1),
    ("Ana", "Lovely, basil and tomatoes go together", DAY1),
    ("Ben", "How did the tomato seedlings do?", DAY2),
    ("Ana", "They are tall now", DAY2),
    ("Ben", "Great news", DAY2),
    ("Ana", "The garden needs water every evening in this heat", DAY2),
    ("Ben", "I can water it on Friday", DAY2),
]
QUESTION = "What did Ben plant in the garden, tomatoes?"


def ingest(cairn, origin="chat"):
    lines = [json.dumps({"id": f"t{i}", "speaker": s, "text": t, "time": at}) for i, (s, t, at) in enumerate(TURNS)]
    cairn.ingest(lines, origin=origin)


def first_pass(cairn, query=QUESTION):
    """The ranker's first pass up to the final scores: (parsed, turns, named)."""
    view, space = cairn.store, cairn.space
    parsed = parse_episode_query(query)
    named = episodes.speaker_terms(view, space, parsed.terms)
    found = episodes.candidates(view, space, episodes.match_words(parsed, PROFILE.prefix_min, named), PROFILE.candidate_cap)
    episodes.lexical_pass(parsed, found, named, view.space_document_count(space), PROFILE)
    turns = found + episodes._Neighbours(view, space).around(found, PROFILE.neighbour_fetch, 2)
    return parsed, turns, named


def test_a_shorter_list_is_the_head_of_a_longer_one(cairn):
    # No speaker named: the limit does not decide whether a speaker's turns join the candidates.
    question = "what did they plant in the garden, tomatoes?"
    ingest(cairn)
    longer = rank_episodes(cairn.store, cairn.space, question, limit=50)
    assert len(longer) > 3  # control: there is a tail to leave out
    for limit in (1, 3, len(longer)):
        assert rank_episodes(cairn.store, cairn.space, question, limit=limit) == longer[:limit]


def test_turns_that_only_lend_context_are_left_out_as_the_full_scoring_leaves_them_out(cairn):
    ingest(cairn)
    parsed, turns, named = first_pass(cairn)
    everything = episodes.final_scores(parsed, turns, named, PROFILE, tense(QUESTION))
    assert any(not s.factors["matched"] for s in everything)  # control: context-only turns score
    full = sorted((s for s in everything if s.factors["matched"]), key=lambda s: (-s.score, s.id))
    quick = episodes._final(parsed, turns, named, PROFILE, tense(QUESTION), matched_only=True)
    assert [s.result() for s in sorted(quick, key=lambda s: (-s.score, s.turn.id))] == full


def test_context_only_turns_are_handed_out_when_asked_for(cairn):
    ingest(cairn)
    every = dataclasses.replace(PROFILE, hand_out_context=True)
    found = rank_episodes(cairn.store, cairn.space, QUESTION, limit=50, profile=every)
    assert any(not s.factors["matched"] for s in found)
    assert all(s.factors["matched"] for s in rank_episodes(cairn.store, cairn.space, QUESTION, limit=50))


class CountingView:
    """A read view that counts the neighbour reads and the places each one asked for."""

    def __init__(self, view):
        self.view = view
        self.asked: list[list[tuple[str, int]]] = []

    def neighbour_turns(self, space, positions):
        self.asked.append(list(positions))
        return self.view.neighbour_turns(space, positions)


def test_neighbours_read_once_are_the_neighbours_one_read_returns(cairn):
    ingest(cairn, origin="zeta")  # two conversations, the later-named one written first:
    ingest(cairn, origin="alpha")  # the order of places is not the order of keys
    _, turns, _ = first_pass(cairn)
    found = [t for t in turns if t.coverage > 0]
    some, rest = found[:1], found
    view = CountingView(cairn.store)
    near = episodes._Neighbours(cast(ReadView, view), cairn.space)
    near.around(some, PROFILE.neighbour_fetch, 2)
    second = near.around(rest, PROFILE.neighbour_fetch, 2)
    fresh = episodes._Neighbours(cairn.store, cairn.space).around(rest, PROFILE.neighbour_fetch, 2)
    assert [t.id for t in second] == [t.id for t in fresh]
    assert len(second) > 2  # control: the second call has neighbours to give
    # No place is read twice; and one read of every place returns them in the same order.
    asked = [place for read in view.asked for place in read]
    assert len(asked) == len(set(asked))
    wanted = sorted({(t.origin, t.turn) for t in fresh})
    assert [r.id for r in cairn.store.neighbour_turns(cairn.space, wanted[::-1])] == [t.id for t in fresh]


def test_a_turn_text_is_read_by_its_content_in_a_bounded_cache():
    before = episodes._text("plant tomato garden")
    assert episodes._text("plant tomato garden") is before
    edited = episodes._text("plant basil garden")
    assert edited is not before and "basil" in edited.counts and "basil" not in before.counts
    assert episodes._text.cache_info().maxsize == episodes.TEXT_CACHE
