"""The episode lane and the look-alike search count documents within the space, as the
claims lane does: what another space holds never changes a space's scores or hints."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.recall.episodes import PROFILE, parse_episode_query, rank_episodes, term_counts

NOW = "2026-05-01T12:00:00Z"
CONVERSATION = [
    ("Ana", "I went hiking in the mountains with my dog last weekend"),
    ("Ben", "Which trail did you take for the hiking trip?"),
    ("Ana", "The north ridge trail, the dog loved the river"),
    ("Ben", "I prefer kayaking on the river to hiking"),
    ("Ana", "We should go kayaking together in the summer"),
] * 3
NOISE = [("Cy", f"hiking note {n}: the river trail was closed for the dog show") for n in range(80)]
SMALL = dataclasses.replace(PROFILE, candidate_cap=4, df_bound=1000)  # a cut: the counts are read


def _ingest(c: Cairn, turns, origin: str) -> None:
    lines = [f'{{"id": "{origin}-{i}", "speaker": "{who}", "text": "{text}", "time": "2026-04-0{1 + i % 9}T10:00:00Z"}}'
             for i, (who, text) in enumerate(turns)]
    c.ingest(lines, origin=origin)


def _scores(path: Path, query: str, view_of=lambda store: store) -> list[tuple[str, float]]:
    """Scores of every matching turn (no cut: which turns a cut keeps follows the index's
    own relevance order, see docs/benchmarks.md)."""
    with Cairn(path, space="a", now=NOW) as c:
        hits = rank_episodes(view_of(c.store), "a", query, limit=10)
        return [(c.get(h.id).content, round(h.score, 9)) for h in hits]


def _counts(path: Path, query: str, view_of=lambda store: store) -> dict[str, int]:
    with Cairn(path, space="a", now=NOW) as c:
        return term_counts(view_of(c.store), "a", parse_episode_query(query), frozenset(), SMALL)


def _stores(tmp_path: Path) -> tuple[Path, Path]:
    alone, beside = tmp_path / "alone.db", tmp_path / "beside.db"
    for path in (alone, beside):
        with Cairn(path, space="a", now=NOW) as c:
            _ingest(c, CONVERSATION, "chat")
    with Cairn(beside, space="b", now=NOW) as c:
        _ingest(c, NOISE, "other")
    return alone, beside


class FileWide:
    """A read view whose counts span every space (what the lane used before): the control."""

    def __init__(self, store) -> None:
        self.store = store

    def __getattr__(self, name):
        return getattr(self.store, name)

    def space_document_count(self, space: str) -> int:
        return self.store.document_count()

    def space_document_frequencies(self, space: str, terms) -> dict[str, int]:
        return {t: self.store.document_frequency(t) for t in terms}


@pytest.mark.parametrize("query", ["hiking with the dog", "kayaking on the river", "which trail"])
def test_episode_scores_do_not_depend_on_another_space(tmp_path, query):
    alone, beside = _stores(tmp_path)
    scores = _scores(alone, query)
    assert scores and scores == _scores(beside, query)


@pytest.mark.parametrize("query", ["hiking with the dog", "kayaking on the river"])
def test_control_file_wide_counts_would_change_them(tmp_path, query):
    alone, beside = _stores(tmp_path)
    assert _scores(alone, query, FileWide) != _scores(beside, query, FileWide)


@pytest.mark.parametrize("query", ["hiking with the dog", "kayaking on the river"])
def test_word_counts_of_a_cut_are_the_space_own(tmp_path, query):
    alone, beside = _stores(tmp_path)
    counts = _counts(alone, query)
    assert counts == _counts(beside, query) and max(counts.values()) >= 3
    assert _counts(alone, query, FileWide) != _counts(beside, query, FileWide)  # the control


def test_look_alike_search_counts_words_within_the_space(tmp_path):
    """Another space holding the claim's every word a thousand times over does not make
    the search "too broad" here (with file-wide counts it would find nothing)."""
    path = tmp_path / "x.db"
    with Cairn(path, space="b", now=NOW) as c:
        c.remember_many([f"use postgresql for billing, ledger {n}" for n in range(1100)], kind="fact")
    with Cairn(path, space="a", now=NOW) as c:
        old = c.remember("Use PostgreSQL 17 for billing", kind="fact", origin="ops")
        new = c.remember("Use PostgreSQL 18 for billing", kind="fact", origin="ops")
        assert [m.id for m in new.similar] == [old.id]
