"""A claims recall that finds nothing asks the episode lane at most once.

Its silence note counts the turns that would answer, and (asked, lane left to its
default) it answers from them: both come from one ranking of the episode lane, whose
candidates the answer reuses. A space without any episode is not asked at all. Each
shortcut is checked against the plain path: the same output, and the lane asked again
as soon as the space holds turns.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from cairn.recall import pipeline
from cairn.recall.lanes.episodes import EpisodesLane
from testkit import timeless

NOW = datetime.fromisoformat("2026-02-03T00:00:00+00:00")
TURNS = [
    {"id": "t1", "speaker": "Maya", "text": "I finally booked the flights for Lisbon, we leave on the 14th of March.",
     "time": "2026-01-10T09:00:00Z"},
    {"id": "t2", "speaker": "Jonas", "text": "Our dog Pixel has been limping, so we took him to the vet on Tuesday.",
     "time": "2026-01-17T18:03:00Z"},
    {"id": "t3", "speaker": "Maya", "text": "The airline moved our flight, we now leave on the 16th of March.",
     "time": "2026-02-02T10:00:00Z"},
]
QUESTIONS = ["what happened to the dog", "when does Maya leave for Lisbon", "what is the wifi password"]


@pytest.fixture
def asked(monkeypatch) -> list[str]:
    """The episode lane's calls, by question."""
    calls: list[str] = []
    plain = EpisodesLane.candidates

    def counted(self, view, request, query, scan):
        calls.append(request.query)
        return plain(self, view, request, query, scan)

    monkeypatch.setattr(EpisodesLane, "candidates", counted)
    return calls


def _full(cairn, question: str) -> tuple[dict, dict]:
    got = cairn.recall(question, trace=False)
    # With the semantic extra the turns come from a fusion, whose notes time its search.
    return got.to_dict(), timeless(cairn.explain(question))


def test_an_answer_from_turns_asks_the_episode_lane_once(cairn, clock, asked):
    clock.at = NOW
    cairn.ingest(TURNS)
    got = cairn.recall("what happened to the dog", trace=False)
    assert [r.memory.evidence.source_id for r in got.results] == ["t2"]
    assert got.note is not None and "from the conversations" in got.note
    assert asked == ["what happened to the dog"]  # twice when the answer ranks the turns again


def test_the_answer_from_turns_is_the_one_a_second_ranking_gives(cairn, clock, asked, monkeypatch):
    clock.at = NOW
    cairn.ingest(TURNS)
    reused = [_full(cairn, q) for q in QUESTIONS]
    assert len(asked) == 6  # once per recall and once per explain of each question
    plain_run = pipeline.run
    monkeypatch.setattr("cairn.engine.recalling.run", lambda view, request, given=None, **notes: plain_run(view, request))
    asked.clear()
    assert [_full(cairn, q) for q in QUESTIONS] == reused
    assert len(asked) == 10  # the plain path: an answer from turns (two questions) ranks them again


def test_a_space_without_turns_is_not_asked_until_it_holds_one(cairn, clock, asked):
    clock.at = NOW
    cairn.remember("The build server runs in Berlin", kind="fact")
    got = cairn.recall("what happened to the dog", trace=False)
    assert got.results == [] and asked == []
    cairn.ingest(TURNS)  # a write: the kept answer to "does this space hold turns" is dropped
    got = cairn.recall("what happened to the dog", trace=False)
    assert [r.memory.evidence.source_id for r in got.results] == ["t2"]
    assert asked == ["what happened to the dog"]


def test_a_store_without_the_probe_asks_the_lane(cairn, clock, asked, monkeypatch):
    clock.at = NOW
    cairn.remember("The build server runs in Berlin", kind="fact")
    from cairn.store.sqlite.backend import _Reads

    monkeypatch.delattr(_Reads, "holds_episodes")
    assert cairn.recall("what happened to the dog", trace=False).results == []
    assert asked == ["what happened to the dog"]
