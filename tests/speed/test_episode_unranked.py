"""Matches read unranked when every one is a candidate, the store's order read only for a
tie (recall/episode_candidates.py ``every_match``, recall/episodes.py ``_StoreOrder``);
resolution takes the episode lane's records (recall/pipeline.py ``READ_AS_IS``).

When no more turns hold the question's words than the cap, the store's ranking changes
which turns are scored in no way; the order they come in decides only which of equally
strong turns have their neighbours read, and which of two turns at one place is kept.
Each test holds the shortcut to the long way, with a control that the shortcut was taken
(or that the tie it guards against changes the outcome)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cairn import Cairn
from cairn.recall import episode_candidates, episodes, pipeline
from cairn.recall.episodes import _Neighbours, _StoreOrder, _Turn, match_words, rank_episodes
from cairn.store.sqlite import backend as sqlite_backend
from testkit import Clock

from .test_episode_kept import TALK, Fresh, lines


def _key(turn: Any) -> Any:
    return turn.key  # an SQLite rowid: keys order like insertion


WORDS = [("quinc", False), ("greenhous", False), ("prun", True)]  # ten of TALK[:12] hold one


def test_each_backend_gives_every_match_unranked_in_key_order(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        cairn.ingest(lines(TALK[:12]), origin="chat")
        ranked = backend.episode_match_keys(cairn.space, WORDS, 50)
        assert len(ranked) == 10  # control: ten turns match
        for limit in (11, 50):
            assert backend.episode_match_set(cairn.space, WORDS, limit) == sorted(ranked)
        few = backend.episode_match_set(cairn.space, WORDS, 3)
        assert len(few) == 3 and set(few) <= set(ranked) and few == sorted(few)  # more match than asked for
        assert backend.episode_match_set(cairn.space, [], 50) == []


def test_every_match_is_the_ranked_read_in_key_order_or_none(cairn):
    cairn.ingest(lines(TALK[:12]), origin="chat")
    with cairn.store.snapshot() as view:
        ranked = episode_candidates.turn_candidates(view, cairn.space, WORDS, 50)
        every = episode_candidates.every_match(view, cairn.space, WORDS, 50)
        assert every is not None and sorted(ranked, key=_key) == every
        assert [t.key for t in ranked] != [t.key for t in every]  # control: the store's order is another
        assert episode_candidates.every_match(view, cairn.space, WORDS, 10) is not None  # exactly the cap
        assert episode_candidates.every_match(view, cairn.space, WORDS, 9) is None  # more match than the cap
        assert episode_candidates.every_match(Fresh(view), cairn.space, WORDS, 50) is None  # a view that keeps nothing


class _Reversed:
    """An order whose store ranks the candidates last key first (a tie's other way)."""

    exact = False

    def __init__(self) -> None:
        self.asked = 0

    def restore(self, turns):
        self.asked += 1
        return sorted(turns, key=_key, reverse=True)


def _seeds(view, space) -> list[_Turn]:
    seeds = [_Turn.of(row) for row in view.neighbour_turns(space, [("chat", 4), ("chat", 9)])]
    for t in seeds:
        t.lexical = 1.0  # equal: a tie at a cut of one
    return sorted(seeds, key=_key)


def test_a_tie_at_the_cut_reads_the_neighbours_of_the_turn_the_store_ranks_first(cairn):
    cairn.ingest(lines(TALK[:12]), origin="chat")
    with cairn.store.snapshot() as view:
        seeds = _seeds(view, cairn.space)
        order = _Reversed()
        places = {t.turn for t in _Neighbours(view, cairn.space, order).around(seeds, 1, 1)}  # type: ignore[arg-type]
        assert order.asked == 1 and places == {8, 10}  # the store's first: turn 9
        # Control: in the order given (no store order to ask), the first in key order wins.
        assert {t.turn for t in _Neighbours(view, cairn.space).around(seeds, 1, 1)} == {3, 5}
        # No tie at the cut: the order is not asked for.
        seeds[1].lexical = 0.5
        order = _Reversed()
        assert {t.turn for t in _Neighbours(view, cairn.space, order).around(seeds, 1, 1)} == {3, 5}  # type: ignore[arg-type]
        assert order.asked == 0


def test_two_candidates_at_one_place_are_put_in_the_store_order(cairn, monkeypatch):
    cairn.ingest(lines(TALK[:12]), origin="chat")
    with cairn.store.snapshot() as view:
        order = _StoreOrder(view, cairn.space)
        order.read(WORDS, 50, False)
        assert not order.exact  # read unranked
        turns = [_Turn.of(row) for row in view.neighbour_turns(cairn.space, [("chat", 2), ("chat", 3)])]
        assert order.settled(turns) is turns  # distinct places: as they are
        twin = _Turn.of(view.neighbour_turns(cairn.space, [("chat", 2)])[0])
        restored: list[int] = []

        def restore(given):
            restored.append(len(given))
            return list(reversed(given))

        monkeypatch.setattr(order, "restore", restore)
        assert order.settled([*turns, twin]) == [twin, *reversed(turns)] and restored == [3]


def test_the_store_order_restored_is_the_order_of_the_ranked_reads(cairn):
    cairn.ingest(lines(TALK[:12]), origin="chat")
    with cairn.store.snapshot() as view:
        order = _StoreOrder(view, cairn.space)
        first = order.read(WORDS, 50, False)
        extra = order.read([("water", False), ("bed", False)], 50, False)
        turns = [_Turn.of(row) for row in first] + [_Turn.of(row) for row in extra if row not in first]
        ranked = episode_candidates.turn_candidates(view, cairn.space, WORDS, 50)
        again = episode_candidates.turn_candidates(view, cairn.space, [("water", False), ("bed", False)], 50)
        expected = [t.key for t in ranked] + [t.key for t in again if t not in ranked]
        assert [t.key for t in order.restore(turns)] == expected
        assert [t.key for t in turns] != expected  # control: read unranked, they came in another order


def _painters() -> list[str]:
    # Forty turns of Ana's that the lane scores alike ("painter" and "painting" share a
    # strong stem) and the store does not (the question's "painting" is two of its terms in
    # "painting", one in "painter"): the later twenty rank first in the store. Each is
    # followed by a turn of Ben's, said at its own time.
    out = []
    for n in range(40):
        out.append(json.dumps({"id": f"a{n}", "speaker": "Ana", "text": "I like the painter" if n < 20 else
                               "I like the painting", "time": f"2026-05-{1 + n % 28:02d}T10:00:00Z"}))
        out.append(json.dumps({"id": f"b{n}", "speaker": "Ben", "text": f"Sure, number {n}",
                               "time": f"2026-06-{1 + n % 28:02d}T11:{n:02d}:00Z"}))
    return out


def test_rankings_with_ties_are_those_of_the_ranked_reads(cairn, monkeypatch):
    cairn.ingest(_painters(), origin="chat")
    questions = ["what did Ben say about the painting", "painting"]
    restored: list[int] = []
    restore = _StoreOrder.restore

    def counted(self, turns):
        restored.append(len(turns))
        return restore(self, turns)

    monkeypatch.setattr(_StoreOrder, "restore", counted)
    with cairn.store.snapshot() as view:
        quick = [rank_episodes(view, cairn.space, q, limit=48) for q in questions]
        slow = [rank_episodes(Fresh(view), cairn.space, q, limit=48) for q in questions]
    assert quick == slow and all(quick)
    assert restored  # control: a tie at the cut asked for the store's order
    # Control: the tie matters; the turns taken in key order instead give another ranking.
    monkeypatch.setattr(_StoreOrder, "restore", lambda self, turns: sorted(turns, key=_key))
    with cairn.store.snapshot() as view:
        assert [rank_episodes(view, cairn.space, q, limit=48) for q in questions] != slow


@pytest.mark.parametrize("lane", ["episodes", "claims"])
def test_resolution_reads_no_record_the_lane_read(cairn, monkeypatch, lane):
    cairn.ingest(lines(TALK[:12]), origin="chat")
    cairn.remember("the quince tree by the south wall was planted in 2019", kind="fact")
    reads: list[str] = []
    get_memory = sqlite_backend._Reads.get_memory

    def counted(self, space, memory_id):
        reads.append(memory_id)
        return get_memory(self, space, memory_id)

    monkeypatch.setattr(sqlite_backend._Reads, "get_memory", counted)
    question = "the quince tree by the south wall"
    handed = cairn.search(question, lane=lane, trace=False).to_dict()
    assert handed["results"] and reads == []
    monkeypatch.setattr(pipeline, "READ_AS_IS", frozenset())  # control: nothing handed over
    read = cairn.search(question, lane=lane, trace=False).to_dict()
    assert read == handed and reads  # the same answer, each hit read again


def test_match_words_of_a_question_reach_the_unranked_read(cairn):
    # The lane's own words (prefixes among them) read unranked give the ranked read's turns.
    cairn.ingest(lines(TALK), origin="chat")
    words = match_words("who pruned the medlar in the greenhouse")
    assert any(prefix for _, prefix in words)
    with cairn.store.snapshot() as view:
        every = episode_candidates.every_match(view, cairn.space, words, 200)
        ranked = episode_candidates.turn_candidates(view, cairn.space, words, 200)
    assert every is not None and {t.key for t in every} == {t.key for t in ranked} and len(every) == len(ranked)


def test_a_store_with_more_matches_than_the_cap_is_ranked_by_the_store(db_path):
    with Cairn(db_path, now=Clock()) as cairn:
        cairn.ingest([json.dumps({"id": f"q{n}", "speaker": "Ana", "text": f"quince number {n}",
                                  "time": "2026-05-01T10:00:00Z"}) for n in range(30)], origin="chat")
        with cairn.store.snapshot() as view:
            order = _StoreOrder(view, cairn.space)
            rows = order.read([("quinc", False)], 10, False)
            assert order.exact and len(rows) == 10  # the store's best ten, in its order
            assert [r.key for r in rows] == [t.key for t in episode_candidates.turn_candidates(
                view, cairn.space, [("quinc", False)], 10)]
    assert episodes.PROFILE.candidate_cap == 200  # the cap the lane reads with
