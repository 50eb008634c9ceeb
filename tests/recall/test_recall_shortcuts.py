"""The shortcuts of the claims recall path give exactly what the plain computation gives:
per-recall memos never hand one query's (or profile's) numbers to another, and whatever
is kept per process is keyed by content, so a changed record is never read stale."""

from __future__ import annotations

import gc
from dataclasses import replace
from datetime import UTC, datetime

from cairn.model import Kind, Memory
from cairn.recall.query import parse_query
from cairn.recall.score import SCORE, ListStats, lexical

T = datetime(2026, 11, 1, tzinfo=UTC)


def m(i: str, content: str, aliases: tuple[str, ...] = (), origin: str = "") -> Memory:
    return Memory(id=i, space="default", origin=origin, kind=Kind.FACT, content=content, created_at=T, updated_at=T,
                  aliases=aliases)


CORPUS = [m(f"f{i}", f"unrelated note number {i} about lunch and coffee") for i in range(20)] + [
    m("a", "the zeppelin hangar moved to Berlin in 2024", aliases=("airship",)),
    m("b", "coffee beans for the hangar crew", origin="zeppelin"),
    m("c", "lunch", aliases=("zeppelin hangar", "zeppelin")),
]


def test_one_stats_object_scores_each_query_as_a_fresh_one_would():
    shared = ListStats(CORPUS)
    for text in ("zeppelin hangar", "coffee lunch 2024", "airship", "zeppelin hangar"):
        query = parse_query(text)
        for record in CORPUS[-3:]:
            assert lexical(query, record, shared) == lexical(query, record, ListStats(CORPUS))


def test_a_query_that_reuses_a_freed_id_gets_its_own_weights():
    shared = ListStats(CORPUS)
    target = CORPUS[-3]
    for text in ("zeppelin", "coffee hangar", "berlin airship", "lunch coffee"):
        query = parse_query(text)
        got = lexical(query, target, shared)
        assert got == lexical(query, target, ListStats(CORPUS)), text
        del query
        gc.collect()  # the next query may be allocated at the freed address


def test_another_profile_on_the_same_stats_is_not_served_the_first_ones_weights():
    shared = ListStats(CORPUS)
    query = parse_query("zeppelin hangar")
    target = CORPUS[-3]
    plain = lexical(query, target, shared)
    heavier = replace(SCORE, k1=2.0)
    assert lexical(query, target, shared, heavier) == lexical(query, target, ListStats(CORPUS), heavier) != plain
