"""The episode lane keeps what it read while the store's data is unchanged, and gives what
a fresh read gives (recall/episode_candidates.py, recall/episodes.py, lanes/episodes.py).

Inside a read snapshot the ranker keeps the turns read by key, the turns found at each
place, whether a word names a speaker, a speaker's turns, the counts and the postings
(cairn.recall.kept); the lane keeps the records of its pool. Each test compares a ranking
made with kept values to one made by a view that keeps nothing, with a control that the
kept values were used, and that a commit (an ingest, a purge) empties them."""

from __future__ import annotations

import json
import sqlite3

from cairn import Cairn
from cairn.recall import episode_candidates, episodes
from cairn.recall.episodes import rank_episodes
from testkit import Clock

QUESTIONS = ["what did Ana say about the quince tree", "who pruned the medlar", "the greenhouse beds",
             "when did Ben water the garden"]


def lines(texts: list[str], start: int = 0, day: int = 1) -> list[str]:
    return [json.dumps({"id": f"t{start + n}", "speaker": ("Ana", "Ben")[(start + n) % 2], "text": text,
                        "time": f"2026-05-{day:02d}T10:{(start + n) % 60:02d}:00Z"}) for n, text in enumerate(texts)]


TALK = [
    "What should we plant by the greenhouse?",
    "The quince tree, it likes the south wall",
    "I pruned the medlar yesterday",
    "Did you water the garden beds?",
    "Yes, the beds by the greenhouse got water on Friday",
    "The quince tree needs pruning in winter",
] * 8


class Fresh:
    """A read view that keeps nothing: every value is read again."""

    def __init__(self, view):
        self.view = view

    def __getattr__(self, name):
        return getattr(self.view, name)

    def state_memo(self):
        return None


class Counting:
    """A read view that counts the turns it reads (by key, and at places)."""

    def __init__(self, view):
        self.view = view
        self.by_key = 0
        self.at_places = 0

    def __getattr__(self, name):
        return getattr(self.view, name)

    def episode_turns(self, space, keys, limit, skip_retired=False):
        self.by_key += len(keys)
        return self.view.episode_turns(space, keys, limit, skip_retired)

    def neighbour_turns(self, space, positions):
        self.at_places += len(positions)
        return self.view.neighbour_turns(space, positions)


def ranked(cairn: Cairn, wrap=lambda v: v, include_retired: bool = True) -> list:
    with cairn.store.snapshot() as view:
        return [rank_episodes(wrap(view), cairn.space, q, limit=48, include_retired=include_retired) for q in QUESTIONS]


def test_kept_values_give_the_ranking_a_fresh_read_gives(cairn):
    cairn.ingest(lines(TALK), origin="chat")
    first = ranked(cairn)
    counting: list[Counting] = []

    def counted(view):
        counting.append(Counting(view))
        return counting[-1]

    again = ranked(cairn, counted)
    fresh = ranked(cairn, Fresh)
    assert first == again == fresh
    assert all(first)  # control: every question found turns
    # Control: the second time nothing was read again, every turn and place was kept.
    assert sum(c.by_key for c in counting) == 0 and sum(c.at_places for c in counting) == 0
    with cairn.store.snapshot() as view:
        memo = view.state_memo()
        assert memo is not None and any(isinstance(k, tuple) and k[0] == "episode turns" for k in memo)


def test_an_ingest_empties_what_was_kept(cairn):
    cairn.ingest(lines(TALK), origin="chat")
    before = ranked(cairn)
    # New turns after the last: their places were read empty (the neighbours of the
    # last turns), and they hold the questions' words.
    cairn.ingest(lines(["Ana grafted a second quince tree onto the medlar", "the greenhouse beds are new"],
                       start=len(TALK), day=2), origin="chat")
    after = ranked(cairn)
    assert after == ranked(cairn, Fresh)
    # Control: the new turns are ranked (kept values did not hide them).
    assert {s.id for found in after for s in found} - {s.id for found in before for s in found}


def test_a_purge_empties_what_was_kept(cairn):
    cairn.ingest(lines(TALK), origin="chat")
    before = ranked(cairn)
    top = before[1][0].id
    cairn.forget(top, purge=True)
    after = ranked(cairn)
    assert after == ranked(cairn, Fresh)
    assert after != before  # control: the purged turn's words no longer find it


def test_the_filtered_keys_are_kept_apart_from_the_unfiltered(cairn, monkeypatch):
    # Reads that leave retired turns out and reads that keep them keep their turns in
    # separate tables: a turn left out by one is not taken as absent by the other. Small
    # bounds, so that the candidates come from postings (retired turns among them).
    monkeypatch.setattr(episode_candidates, "SCAN", 10)
    monkeypatch.setattr(episode_candidates, "EXACT", 10)
    cairn.ingest(lines(TALK), origin="chat")
    with cairn.store.snapshot() as view:
        quince = view.content_postings("quinc", 100)
    cairn.store.conn.execute(f"UPDATE memories SET status = 'retired' WHERE rowid IN ({','.join('?' * 4)})",
                             quince[:4])
    cairn.store.conn.commit()
    for include_retired in (False, True, False, True):
        assert ranked(cairn, include_retired=include_retired) == ranked(cairn, Fresh, include_retired=include_retired)
    live, every = ranked(cairn, include_retired=False), ranked(cairn)
    assert live != every  # control: the retired turns are left out of one and ranked in the other


def test_turns_read_by_key_are_kept_by_outcome(cairn):
    cairn.ingest(lines(TALK), origin="chat")
    cairn.remember("the quince tree is a claim, not a turn", kind="fact")
    with cairn.store.snapshot() as view:
        keys = view.content_postings("quinc", 100)
        counting = Counting(view)
        first = episode_candidates.load_turns(counting, cairn.space, keys, 5)
        read_first = counting.by_key
        again = episode_candidates.load_turns(counting, cairn.space, keys, 5)
        assert again == first == view.episode_turns(cairn.space, keys, 5)
        assert read_first > 0 and counting.by_key == read_first  # control: the second call read nothing
        # The claim's key is among the postings and is kept as "not a turn of this space".
        assert len(keys) > len([t for t in view.episode_turns(cairn.space, keys, len(keys))])


def test_a_malformed_turn_body_reads_as_the_careful_read_reads_it(cairn, db_path):
    cairn.ingest(lines(TALK[:6]), origin="chat")
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET data = '{not json' WHERE json_extract(data, '$.evidence.source_id') = 't2'")
    conn.commit()
    conn.close()
    with Cairn(db_path, now=Clock()) as again:
        places = [("chat", n) for n in range(1, 8)]
        turns = again.store.neighbour_turns(again.space, places)
        assert len(turns) == 6  # the malformed turn is still read, from the index
        times = {t.turn: t.at for t in turns}
        assert times[3] == "" and times[2] == "2026-05-01T10:01:00Z"  # only its time is unreadable
        keys = [t.key for t in sorted(turns, key=lambda t: t.turn)]
        assert [t.at for t in again.store.episode_turns(again.space, keys, 10)] == [times[n] for n in range(1, 7)]


def test_what_is_kept_for_one_space_is_not_read_for_another(db_path, monkeypatch):
    # "ana" names a speaker in space a and is only a word of the text in space b: what is
    # kept about the word (and the turns read) belongs to the space it was read for. Small
    # bounds: the candidates come from postings, which hold both spaces' turns.
    monkeypatch.setattr(episode_candidates, "SCAN", 10)
    monkeypatch.setattr(episode_candidates, "EXACT", 10)
    with Cairn(db_path, space="b", now=Clock()) as b:
        # The same conversation's name and places as in a: a turn read at a place of one
        # space is not the turn at that place of the other.
        b.ingest([json.dumps({"id": f"b{n}", "speaker": "Cy", "text": f"ana said: {text}",
                              "time": "2026-05-03T10:00:00Z"}) for n, text in enumerate(TALK[:12])], origin="chat")
    with Cairn(db_path, space="a", now=Clock()) as a:
        a.ingest(lines(TALK), origin="chat")
        question = "what did ana say about the quince tree"
        with a.store.snapshot() as view:
            kept = [rank_episodes(view, space, question, limit=48) for space in ("a", "b", "a", "b")]
            fresh = [rank_episodes(Fresh(view), space, question, limit=48) for space in ("a", "b")]
        assert kept == fresh * 2
        assert kept[0] and kept[1] and {s.id for s in kept[0]}.isdisjoint(s.id for s in kept[1])  # control
        # Control: the word names a speaker in a only.
        assert any(s.factors["speaker"] > 1 for s in kept[0]) and all(s.factors["speaker"] == 1 for s in kept[1])


def test_the_turns_kept_at_a_place_are_those_of_the_space_asked_for(db_path):
    with Cairn(db_path, space="b", now=Clock()) as b:
        b.ingest(lines(TALK[:6]), origin="chat")  # the same conversation name and places as in a
    with Cairn(db_path, space="a", now=Clock()) as a:
        a.ingest(lines(TALK[:6]), origin="chat")
        with a.store.snapshot() as view:
            got, fresh = {}, {}
            for space in ("a", "b"):
                seed = episodes._Turn.of(view.neighbour_turns(space, [("chat", 1)])[0])
                seed.lexical = 1.0  # a candidate whose neighbours are read
                got[space] = {t.id for t in episodes._Neighbours(view, space).around([seed], 1, 2)}
                fresh[space] = {t.id for t in view.neighbour_turns(space, [("chat", 2), ("chat", 3)])}
        assert got == fresh
        assert len(got["a"]) == 2 and got["a"].isdisjoint(got["b"])  # control: each space's own turns


def test_each_backend_gives_the_keys_of_its_ranked_matches(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        cairn.ingest(lines(TALK[:12]), origin="chat")
        words = [("quinc", False), ("greenhous", False), ("prun", True)]
        for cap in (1, 3, 50):
            keys = backend.episode_match_keys(cairn.space, words, cap)
            assert keys == [t.key for t in backend.episode_matches(cairn.space, words, cap)]
            assert len(keys) == min(cap, 10)  # control: ten turns hold one of the words
