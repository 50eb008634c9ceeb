"""The episode lane's rules, each with a negative control (recall/episodes.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cairn.recall.episodes import PROFILE, parse_episode_query, rank_episodes, strong_stem, subject


def ingest(cairn, *turns, origin="chat"):
    """turns: (id, speaker, text, time)"""
    lines = [json.dumps({"id": i, "speaker": s, "text": t, "time": at}) for i, s, t, at in turns]
    cairn.ingest(lines, origin=origin)
    return {m.id: m.evidence.source_id for m in cairn.store.iter_memories(cairn.space, kinds=("episode",))}


def ranked(cairn, turn_of, query, limit=5, profile=PROFILE):
    return [turn_of[h.id] for h in rank_episodes(cairn.store, cairn.space, query, limit=limit, profile=profile)]


DAY = "2026-05-02T10:00:00Z"


def test_a_named_speaker_selects_turns_not_greetings(cairn):
    turn_of = ingest(
        cairn,
        ("a1", "Ana", "Kayaks are wonderful on a calm lake.", DAY),
        ("b1", "Ben", "Ana, kayaks are overrated, honestly.", DAY),
        ("x", "Ben", "Unrelated words about the weather.", DAY),
    )
    assert ranked(cairn, turn_of, "What does Ana think about kayaks?")[0] == "a1"
    assert ranked(cairn, turn_of, "What does Ben think about kayaks?")[0] == "b1"  # control


def test_an_owner_is_not_the_subject_of_the_question():
    named = frozenset({"ana", "ben"})
    assert subject(parse_episode_query("What did Ben say about Ana's kayak?"), named) == "ben"
    assert subject(parse_episode_query("What did Ana say about Ben's kayak?"), named) == "ana"
    assert subject(parse_episode_query("What is Ana's kayak like?"), named) == "ana"  # only an owner: still her


def test_a_neighbour_lends_relevance_to_the_answer_that_shares_no_word(cairn):
    turn_of = ingest(
        cairn,
        ("q", "Ben", "What do you do to relax after work?", DAY),
        ("a", "Ana", "Mostly pottery, it calms me down.", DAY),
        ("far", "Ana", "Pottery class is on Tuesdays.", "2026-09-02T10:00:00Z"),
    )

    def scores(profile=PROFILE):
        hits = rank_episodes(cairn.store, cairn.space, "How does Ana relax?", limit=5, profile=profile)
        return {turn_of[h.id]: h.score for h in hits}

    # Both Ana turns hold no word of the question; the answer borrows from the question before it.
    assert scores()["a"] > 2 * scores()["far"]
    no_context = dataclasses.replace(PROFILE, neighbour_weight=0.0, answer_weight=0.0, session_weight=0.0, time_weight=0.0,
                                      second_weight=0.0)
    assert scores(no_context)["a"] == scores(no_context)["far"]  # control: without context, only her name


def test_a_named_month_favours_turns_of_that_month(cairn):
    turn_of = ingest(
        cairn,
        ("may", "Ana", "We went camping by the river.", "2023-05-20T10:00:00Z"),
        ("june", "Ana", "We went camping by the river.", "2023-06-20T10:00:00Z"),
    )
    assert ranked(cairn, turn_of, "When did Ana go camping in June?")[0] == "june"
    assert ranked(cairn, turn_of, "When did Ana go camping in May 2023?")[0] == "may"  # control


def test_the_stronger_stem_joins_word_families_but_not_compounds(cairn):
    assert strong_stem("painter") == strong_stem("paint") == "paint"
    assert strong_stem("mentorship") == "mentor"
    assert strong_stem("family") == strong_stem("fami") == "fami"  # "families" is indexed "family", "family" "fami"
    assert strong_stem("fully") == "full" and strong_stem("early") == "earl"
    assert strong_stem("paintball") != "paint" and strong_stem("art") == "art"
    turn_of = ingest(
        cairn,
        ("p", "Ana", "My painting of the harbour is finished.", DAY),
        ("b", "Ana", "We played paintball all afternoon.", DAY),
    )
    hits = rank_episodes(cairn.store, cairn.space, "Is Ana a painter?", limit=5)
    lexical = {turn_of[h.id]: h.factors["lexical"] for h in hits}
    assert lexical["p"] > 0 and lexical.get("b", 0.0) == 0.0  # paintball is no painter: context only


def test_a_context_free_query_returns_nothing(cairn):
    turn_of = ingest(cairn, ("t", "Ana", "ok thanks, continue", DAY))
    assert ranked(cairn, turn_of, "ok thanks") == []
    assert ranked(cairn, turn_of, "continue please") == []


def test_claims_are_not_episodes(cairn):
    turn_of = ingest(cairn, ("t", "Ana", "The backup job runs on Sunday.", DAY))
    cairn.remember("The backup job runs on Sunday night.", kind="fact")
    hits = rank_episodes(cairn.store, cairn.space, "backup job Sunday", limit=5)
    assert [turn_of.get(h.id) for h in hits] == ["t"]


def test_the_lane_writes_nothing_respects_the_limit_and_is_deterministic(cairn, fingerprint):
    turns = [(f"t{n}", "Ana", f"garden note {n} about tomatoes", DAY) for n in range(12)]
    turn_of = ingest(cairn, *turns)
    before = fingerprint()
    first = ranked(cairn, turn_of, "tomatoes in the garden", limit=4)
    assert len(first) == 4 and first == ranked(cairn, turn_of, "tomatoes in the garden", limit=4)
    assert fingerprint() == before
    assert ranked(cairn, turn_of, "tomatoes", limit=0) == []


def test_other_spaces_are_never_searched(db_path, clock):
    from cairn import Cairn

    with Cairn(db_path, space="alpha", now=clock) as alpha, Cairn(db_path, space="beta", now=clock) as beta:
        ingest(alpha, ("t", "Ana", "The tomatoes are ripe.", DAY))
        assert rank_episodes(beta.store, beta.space, "ripe tomatoes", limit=5) == []
        assert len(rank_episodes(alpha.store, alpha.space, "ripe tomatoes", limit=5)) == 1


@pytest.mark.parametrize("query", ["", "   ", "the of and", "?!"])
def test_empty_or_stopword_queries_return_nothing(cairn, query):
    ingest(cairn, ("t", "Ana", "The tomatoes are ripe.", DAY))
    assert rank_episodes(cairn.store, cairn.space, query, limit=5) == []


def test_word_counts_come_from_the_space_index_when_the_candidates_are_cut(cairn):
    from cairn.recall.episodes import term_counts

    turns = [(f"w{n}", "Ana", f"the weather today, note {n}", DAY) for n in range(60)]
    turn_of = ingest(cairn, *turns, ("k", "Ana", "the weather was fine for the kayak", DAY))
    small = dataclasses.replace(PROFILE, candidate_cap=5, df_bound=40)
    counts = term_counts(cairn.store, cairn.space, parse_episode_query("weather kayak"), frozenset(), small)
    assert counts == {strong_stem("weather"): 40, "kayak": 1}  # bounded at df_bound, exact below it
    assert ranked(cairn, turn_of, "weather kayak", profile=small)[0] == "k"


def test_ties_go_to_the_earlier_turn_not_to_the_random_id(cairn):
    turns = [(f"t{n}", "Ana", "the same tomato note", DAY) for n in range(6)]
    turn_of = ingest(cairn, *turns)
    hits = rank_episodes(cairn.store, cairn.space, "tomato note", limit=6)
    assert len({round(h.score, 9) for h in hits}) == 1  # a genuine tie
    assert [turn_of[h.id] for h in hits] == [f"t{n}" for n in range(6)]


def test_a_named_day_favours_turns_of_that_day(cairn):
    turn_of = ingest(
        cairn,
        ("third", "Ana", "We went camping by the river.", "2023-05-03T10:00:00Z"),
        ("twentieth", "Ana", "We went camping by the river.", "2023-05-20T10:00:00Z"),
    )
    assert ranked(cairn, turn_of, "Where did Ana camp on 20 May, 2023?")[0] == "twentieth"
    assert ranked(cairn, turn_of, "Where did Ana camp on May 3rd?")[0] == "third"  # control
    assert parse_episode_query("what may 2023 bring").days == frozenset()  # a year is no day


def test_the_reply_to_a_question_borrows_more_than_the_turn_before_it(cairn):
    turn_of = ingest(
        cairn,
        ("before", "Ana", "Mostly tea and biscuits today.", DAY),
        ("q", "Ben", "What do you do to relax after work?", DAY),
        ("reply", "Ana", "Mostly pottery, it calms me down.", DAY),
    )

    def scores(profile):
        hits = rank_episodes(cairn.store, cairn.space, "How does Ana relax?", limit=5, profile=profile)
        return {turn_of[h.id]: h.score for h in hits}

    still = dataclasses.replace(PROFILE, time_weight=0.0)
    assert scores(still)["reply"] > scores(still)["before"]
    even = dataclasses.replace(still, answer_weight=still.neighbour_weight)
    assert scores(even)["reply"] == pytest.approx(scores(even)["before"])  # control: no question, no difference
