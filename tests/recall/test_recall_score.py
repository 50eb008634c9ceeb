"""Lexical relevance (docs/recall.md, stage 4): BM25F with field weights content 1 / aliases 0.8,
length normalisation, IDF, literal weights; the FTS path and the in-memory path agree."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cairn.model import Kind, Memory
from cairn.recall.candidates import IndexStats
from cairn.recall.query import parse_query
from cairn.recall.score import SCORE, ListStats, idf, is_rare, lexical

T = datetime(2026, 11, 1, tzinfo=UTC)


def m(i: str, content: str, aliases: tuple[str, ...] = ()) -> Memory:
    return Memory(id=i, space="default", origin="", kind=Kind.FACT, content=content, created_at=T, updated_at=T, aliases=aliases)


FILLER = [m(f"f{i}", f"unrelated note number {i} about lunch and coffee") for i in range(20)]


def score(query: str, target: Memory, corpus: list[Memory] | None = None) -> float:
    corpus = (corpus or FILLER) + [target]
    return lexical(parse_query(query), target, ListStats(corpus)).score


def test_content_match_outweighs_the_same_match_in_an_alias():
    in_content = m("a", "zeppelin hangar")
    in_alias = m("b", "hangar", aliases=("zeppelin",))
    assert score("zeppelin", in_content) > score("zeppelin", in_alias) > 0


def test_alias_weight_is_the_profile_weight():
    assert SCORE.content_weight == 1.0 and SCORE.alias_weight == 0.8


def test_shorter_record_scores_higher_for_the_same_match():
    short = m("a", "zeppelin hangar")
    long = m("b", "zeppelin hangar " + " ".join(f"word{i}" for i in range(40)))
    assert score("zeppelin", short) > score("zeppelin", long)


def test_rare_term_contributes_more_than_a_common_one():
    corpus = FILLER + [m("x", "coffee zeppelin")]
    target = m("t", "coffee zeppelin")
    q_stats = ListStats(corpus + [target])
    lex = lexical(parse_query("coffee zeppelin"), target, q_stats)
    assert idf(q_stats.df("zeppelin"), q_stats.docs) > idf(q_stats.df("coffee"), q_stats.docs)
    assert lex.score > 0


def test_literal_weight_raises_the_score(monkeypatch):
    target = m("t", "timeout is 30 seconds")
    weighted = score("timeout 30", target)
    monkeypatch.setattr("cairn.recall.query.LITERAL_WEIGHT", 1.0)
    assert weighted > score("timeout 30", target) > 0


def test_coverage_is_idf_weighted_share_of_features_present():
    target = m("t", "zeppelin hangar")
    lex = lexical(parse_query("zeppelin hangar"), target, ListStats(FILLER + [target]))
    assert lex.coverage == pytest.approx(1.0)
    half = lexical(parse_query("zeppelin blimp"), target, ListStats(FILLER + [target]))
    assert 0 < half.coverage < 1


def test_a_common_alias_does_not_name_a_topic_but_a_rare_one_does():
    tagged = [m(f"t{i}", f"note {i}", aliases=("infra",)) for i in range(6)]
    stats = ListStats(FILLER + tagged)
    assert not is_rare("infra", stats)
    lex = lexical(parse_query("infra"), tagged[0], stats)
    assert lex.in_aliases == {"infra"} and lex.rare_alias == frozenset() and lex.coverage == 0
    solo = m("s", "note", aliases=("zeppelin",))
    lex = lexical(parse_query("zeppelin"), solo, ListStats(FILLER + [solo]))
    assert lex.rare_alias == {"zeppelin"} and lex.coverage == 1


def test_fts_path_and_in_memory_path_score_a_record_the_same(cairn):
    ids = [
        cairn.remember(text, kind="fact", aliases=aliases).memory.id
        for text, aliases in [
            ("The staging host runs Docker Compose", ("deployment",)),
            ("Docker images are rebuilt nightly", ()),
            ("The billing database is PostgreSQL 16", ("billing",)),
            ("Staging deploys need a green CI run", ()),
        ]
    ]
    records = list(cairn.store.iter_memories(cairn.space))
    query = parse_query("docker staging deployment")
    index, in_memory = IndexStats(cairn.store), ListStats(records)
    for record in records:
        assert lexical(query, record, index).score == pytest.approx(lexical(query, record, in_memory).score)
    assert len(ids) == 4
