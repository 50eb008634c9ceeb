"""The episode ranker's per-question shortcuts give the long way's numbers and order
(recall/episodes.py): the phrase check without a generator, ties ordered by two stable
sorts instead of one sort on (-score, key)."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from cairn.recall import episodes
from cairn.recall.episodes import PROFILE, rank_episodes


def long_phrase(doc, pairs, idf, total_idf, p):
    """The phrase bonus as it was first written."""
    if not pairs:
        return 0.0
    counts = doc.counts
    adjacent = set(pairwise(doc.stems)) if any(a in counts and b in counts for a, b in pairs) else set()
    bonus = sum(p.phrase_bonus * (idf.get(a, 0) + idf.get(b, 0)) / total_idf for a, b in pairs if (a, b) in adjacent)
    return min(bonus, p.phrase_cap)


@pytest.mark.parametrize("text", ["quinc tree by the wall", "tree quinc", "the quinc and the tree", "medlar only", ""])
@pytest.mark.parametrize("pairs", [[], [("quinc", "tree")], [("medlar", "tree"), ("quinc", "tree")]])
def test_the_phrase_bonus_is_the_long_ways_value_and_type(text, pairs):
    doc = episodes._Text(text)
    idf = {"quinc": 2.5, "tree": 1.25, "medlar": 3.0}
    quick = episodes._phrase(doc, pairs, idf, 6.75, PROFILE)
    slow = long_phrase(doc, pairs, idf, 6.75, PROFILE)
    assert (quick, type(quick)) == (slow, type(slow))  # the int 0 of no bonus shows as 0 in explain


def test_equal_scores_keep_the_earlier_turn_first(cairn):
    same = "the quince tree by the greenhouse needs pruning"
    lines = [json.dumps({"id": f"t{n}", "speaker": "Ana", "text": same if n % 3 == 0 else f"other words {n}",
                         "time": "2026-05-01T10:00:00Z"}) for n in range(30)]
    cairn.ingest(lines, origin="chat")
    found = rank_episodes(cairn.store, cairn.space, "the quince tree", limit=48)
    order = [int(cairn.get(s.id).evidence.source_id[1:]) for s in found]
    ties = [(a, b) for (a, b), (x, y) in zip(pairwise(order), pairwise(found), strict=True) if x.score == y.score]
    assert len(ties) >= 3  # control: there are ties to order
    assert all(a < b for a, b in ties)
    assert all(x.score >= y.score for x, y in pairwise(found))
