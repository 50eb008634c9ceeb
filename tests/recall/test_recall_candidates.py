"""Candidate fetching from FTS5 (IDF-weighted overlap, bounded postings, space-scoped)."""

from __future__ import annotations

from cairn import Cairn
from cairn.recall import candidates
from cairn.recall.candidates import IndexStats, fetch
from cairn.recall.query import parse_query


def test_best_overlap_first_and_absent_terms_fetch_nothing(cairn, mem):
    both = mem("zeppelin hangar doors")
    one = mem("zeppelin museum tickets")
    got = fetch(cairn.store, cairn.space, parse_query("zeppelin hangar quokka"), IndexStats(cairn.store), claims=True)
    assert [m.id for m in got.memories] == [both, one]
    assert got.postings == 3 and got.bounded == ()


def test_document_frequency_read_from_postings_matches_the_vocabulary(cairn, mem):
    for i in range(4):
        mem(f"zeppelin note {i}")
    learned = IndexStats(cairn.store)
    fetch(cairn.store, cairn.space, parse_query("zeppelin"), learned, claims=True)
    assert learned.df("zeppelin") == IndexStats(cairn.store).df("zeppelin") == 4


def test_postings_per_term_are_bounded_and_reported(cairn, mem, monkeypatch):
    ids = [mem(f"zeppelin note {i}") for i in range(6)]
    monkeypatch.setattr(candidates, "SCAN_PER_TERM", 3)
    got = fetch(cairn.store, cairn.space, parse_query("zeppelin"), IndexStats(cairn.store), claims=True)
    assert got.bounded == ("zeppelin",) and got.postings == 3
    assert [m.id for m in got.memories] == ids[::-1][:3]  # the newest postings
    assert cairn.explain("zeppelin")["scan"]["bounded_terms"] == ["zeppelin"]


def test_other_spaces_never_starve_this_space(cairn, mem, db_path, clock):
    with Cairn(db_path, space="crowd", now=clock) as other:
        for i in range(120):
            other.remember(f"zeppelin hangar doors crowd {i}", kind="fact")
    mine = mem("zeppelin hangar")
    got = fetch(cairn.store, cairn.space, parse_query("zeppelin hangar doors"), IndexStats(cairn.store), claims=True)
    assert [m.id for m in got.memories] == [mine]


def test_claims_lane_leaves_episodes_out(cairn, mem):
    claim = mem("zeppelin hangar")
    mem("turn 1: zeppelin hangar", kind="episode", basis="transcript", method="local")
    got = fetch(cairn.store, cairn.space, parse_query("zeppelin hangar"), IndexStats(cairn.store), claims=True)
    assert [m.id for m in got.memories] == [claim]


def test_vocabulary_lookup_works_on_a_read_only_store_and_writes_nothing(cairn, mem, db_path, clock):
    from testkit.db import full_fingerprint

    mem("zeppelin hangar")
    before = full_fingerprint(db_path)
    with Cairn(db_path, now=clock, read_only=True) as reader:
        stats = IndexStats(reader.store)
        assert stats.df("zeppelin") == 1 and stats.df("quokka") == 0
    assert full_fingerprint(db_path) == before
