"""The episode lane's candidates are read in bounded time (recall/episode_candidates.py).

Below the bound (the words held by at most ``EXACT`` turns of the space, summed) the
candidates are the store's own ranked matches, so the ranking is the one the lane always
gave; above it, postings are read per word, at most ``SCAN`` each, and a common word's not
at all when rarer words fill the cap. The bounds are made small here so that a store of a
few hundred turns crosses them."""

from __future__ import annotations

import json

import pytest

from cairn import Cairn
from cairn.recall import episode_candidates, episodes
from cairn.recall.episode_candidates import turn_candidates
from cairn.recall.episodes import rank_episodes
from testkit import Clock

COMMON = "garden"  # in every turn but the planted ones


def ingest(cairn: Cairn, turns: int, origin: str = "chat") -> None:
    """``turns`` turns about the garden; turn 7 and the last but three hold rare words."""
    lines = []
    for n in range(turns):
        if n == 7:
            text = "the quince tree by the greenhouse needs pruning"
        elif n == turns - 3:
            text = "I pruned the quince and the medlar yesterday"
        else:
            text = f"the {COMMON} looks fine today, row {n % 13} of the beds, {('sunny', 'rainy', 'windy')[n % 3]}"
        speaker = ("Ana", "Ben")[n % 2]
        lines.append(json.dumps({"id": f"t{n}", "speaker": speaker, "text": text,
                                 "time": f"2026-05-{1 + n // 200:02d}T10:{(n // 60) % 60:02d}:{n % 60:02d}Z"}))
    cairn.ingest(lines, origin=origin)


class Counting:
    """A read view that counts what the candidate reads return."""

    def __init__(self, view):
        self.view = view
        self.postings = 0
        self.turns = 0
        self.ranked_all = 0

    def __getattr__(self, name):
        return getattr(self.view, name)

    def content_postings(self, term, limit):
        found = self.view.content_postings(term, limit)
        self.postings += len(found)
        return found

    def episode_turns(self, space, keys, limit, skip_retired=False):
        found = self.view.episode_turns(space, keys, limit, skip_retired)
        self.turns += len(found)
        return found

    def episode_matches(self, space, words, cap, skip_retired=False):
        self.ranked_all += 1
        return self.view.episode_matches(space, words, cap, skip_retired)


QUESTIONS = ["what about the garden beds on sunny days", "who pruned the quince in the garden",
             "the medlar and the quince tree", "how were rows in the garden"]


def test_below_the_bound_the_ranking_is_the_one_the_stores_ranked_matches_give(cairn, monkeypatch):
    ingest(cairn, 300)
    view = Counting(cairn.store)
    new = [rank_episodes(view, cairn.space, q, limit=48) for q in QUESTIONS]
    assert view.ranked_all > 0 and view.postings == 0  # control: the store ranked every match
    monkeypatch.setattr(episodes, "turn_candidates", lambda v, space, words, cap, skip_retired=False:
                        v.episode_matches(space, words, cap, skip_retired))
    old = [rank_episodes(cairn.store, cairn.space, q, limit=48) for q in QUESTIONS]
    assert new == old
    assert len(cairn.store.episode_matches(cairn.space, [(COMMON, False)], episodes.PROFILE.candidate_cap)) == 200
    assert all(new)  # control: the cap cut the common word's matches, and every question found turns


def test_over_the_bound_a_common_word_is_not_read_when_rarer_words_fill_the_cap(cairn, monkeypatch):
    monkeypatch.setattr(episode_candidates, "SCAN", 20)
    monkeypatch.setattr(episode_candidates, "EXACT", 20)
    ingest(cairn, 300)
    view = Counting(cairn.store)
    words = [(COMMON, False), ("quinc", False), ("prun", False)]  # index forms of quince, pruned
    found = turn_candidates(view, cairn.space, words, cap=2)
    assert view.ranked_all == 0  # the store did not rank every match of the common word
    assert [cairn.get(t.id).evidence.source_id for t in found] == ["t297", "t7"]  # equal overlap: newest first
    assert view.postings == 4  # quince twice, pruning and pruned once each: garden never read


def test_over_the_bound_the_rows_read_do_not_grow_with_the_store(tmp_path, monkeypatch):
    monkeypatch.setattr(episode_candidates, "SCAN", 25)
    monkeypatch.setattr(episode_candidates, "EXACT", 25)
    read = []
    for size in (200, 800):
        with Cairn(tmp_path / f"{size}.db", now=Clock()) as cairn:
            ingest(cairn, size)
            view = Counting(cairn.store)
            ranked = rank_episodes(view, cairn.space, "what about the garden beds on sunny days", limit=5)
            assert view.ranked_all == 0 and ranked  # control: the bounded way, and it found turns
            read.append((view.postings, view.turns))
    assert read[0] == read[1]
    assert read[0][0] <= 3 * 25  # garden, bed, sunny: at most SCAN postings each


def test_when_every_word_is_common_the_newest_holders_are_the_candidates(cairn, monkeypatch):
    monkeypatch.setattr(episode_candidates, "SCAN", 10)
    monkeypatch.setattr(episode_candidates, "EXACT", 10)
    ingest(cairn, 120)
    found = turn_candidates(cairn.store, cairn.space, [(COMMON, False)], cap=5)
    assert [cairn.get(t.id).evidence.source_id for t in found] == ["t119", "t118", "t116", "t115", "t114"]


def test_a_prefix_word_reaches_the_terms_it_starts_and_retired_turns_are_left_out(cairn, monkeypatch):
    monkeypatch.setattr(episode_candidates, "SCAN", 10)
    monkeypatch.setattr(episode_candidates, "EXACT", 10)
    ingest(cairn, 120)
    found = turn_candidates(cairn.store, cairn.space, [(COMMON, False), ("pru", True)], cap=5)
    assert {cairn.get(t.id).evidence.source_id for t in found[:2]} == {"t7", "t117"}
    retired = found[0].id
    cairn.store.conn.execute("UPDATE memories SET status = 'retired' WHERE id = ?", (retired,))
    live = turn_candidates(cairn.store, cairn.space, [(COMMON, False), ("pru", True)], cap=5, skip_retired=True)
    assert retired not in [t.id for t in live] and len(live) == 5


def test_the_bounded_reads_look_rows_up_by_key(cairn):
    ingest(cairn, 40)
    seen: list[str] = []
    cairn.store.conn.set_trace_callback(seen.append)
    try:
        keys = cairn.store.content_postings(COMMON, 10)
        turns = cairn.store.episode_turns(cairn.space, keys[::-1], 4)
    finally:
        cairn.store.conn.set_trace_callback(None)
    assert keys == sorted(keys, reverse=True) and len(keys) == 10
    assert [t.key for t in turns] == keys[::-1][:4]
    plans = [row[3] for sql in seen if "FROM memories" in sql for row in cairn.store.conn.execute("EXPLAIN QUERY PLAN " + sql)]
    # The table by its primary key, FTS5 by a MATCH or a rowid: neither is walked whole.
    assert "SEARCH memories USING INTEGER PRIMARY KEY (rowid=?)" in plans, plans
    assert not any(step.startswith("SCAN memories ") or step == "SCAN memories" for step in plans), plans
    assert all(step.split(":", 1)[1] for step in plans if "VIRTUAL TABLE" in step), plans


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_bounded_way_ranks_alike_on_both_backends(tmp_path, pg_url, monkeypatch, question):
    monkeypatch.setattr(episode_candidates, "SCAN", 20)
    monkeypatch.setattr(episode_candidates, "EXACT", 20)
    answers = []
    for target in (tmp_path / "a.db", pg_url):
        with Cairn(target, now=Clock()) as cairn:
            ingest(cairn, 150)
            found = rank_episodes(cairn.store, cairn.space, question, limit=10)
            answers.append([(cairn.get(s.id).evidence.source_id, round(s.score, 9)) for s in found])
    assert answers[0] == answers[1] and answers[0]


@pytest.mark.parametrize("side", ["sqlite", "postgres"])
def test_a_speaker_is_told_from_the_words_newest_hits(tmp_path, request, monkeypatch, side):
    from cairn.store.postgres import backend as pg
    from cairn.store.sqlite import backend as lite

    target = tmp_path / "a.db" if side == "sqlite" else request.getfixturevalue("pg_url")
    with Cairn(target, now=Clock()) as cairn:
        ingest(cairn, 60)
        lines = [json.dumps({"id": f"n{n}", "speaker": "Cleo", "text": f"ana and ben water the {COMMON} {n}",
                             "time": "2026-06-01T10:00:00Z"}) for n in range(8)]
        cairn.ingest(lines, origin="later")
        assert cairn.store.names_speaker(cairn.space, "ana") and cairn.store.names_speaker(cairn.space, "cleo")
        assert not cairn.store.names_speaker(cairn.space, COMMON)
        # The bound: "ana" is said in the eight newest turns, spoken only in older ones.
        for module in (lite, pg):
            monkeypatch.setattr(module, "SPEAKER_SCAN", 8)
        assert not cairn.store.names_speaker(cairn.space, "ana") and cairn.store.names_speaker(cairn.space, "cleo")
