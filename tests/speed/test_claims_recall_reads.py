"""The reads claims recall makes on every call stay indexed and bounded: a record's
relations are read through the from/to indexes (never a walk of every relation of the
space), and return the same rows, in the same order, as the definition says."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from cairn.model import Role


def _plan(conn: sqlite3.Connection, statements: list[str]) -> list[str]:
    """The query plan of each traced read of the relations table (values inlined by the trace)."""
    return [row[3] for sql in statements if "FROM relations" in sql
            for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]


def test_relations_of_one_record_use_both_indexes_and_keep_their_order(cairn, clock):
    ids = [cairn.remember(f"The build server number {n} runs in Berlin", kind="fact").memory.id for n in range(4)]
    a, b, c, d = ids
    for older, role, newer in ((b, "corrects", a), (a, "contradicts", c), (d, "supersedes", b)):
        clock.at += timedelta(minutes=1)  # relations are ordered by when they were declared
        cairn.relate(older, role, newer)
    seen: list[str] = []
    cairn.store.conn.set_trace_callback(seen.append)
    try:
        rels = cairn.store.relations(cairn.space, record_id=a)
    finally:
        cairn.store.conn.set_trace_callback(None)
    # Both sides, each relation once, oldest first (created_at, then id).
    assert [(r.from_id, r.role, r.to_id) for r in rels] == [(b, Role.CORRECTS, a), (a, Role.CONTRADICTS, c)]
    assert [(r.from_id, r.to_id) for r in cairn.store.relations(cairn.space, record_id=b)] == [(b, a), (d, b)]
    everything = cairn.store.relations(cairn.space)
    per_record = {r.id for i in ids for r in cairn.store.relations(cairn.space, record_id=i)}
    assert sorted(r.id for r in everything) == sorted(per_record)
    plan = _plan(cairn.store.conn, seen)
    assert any("relations_from (space=? AND from_id=?)" in step for step in plan), plan
    assert any("relations_to (space=? AND to_id=?)" in step for step in plan), plan
    assert not any(step.startswith("SCAN relations") for step in plan), plan


def test_term_postings_are_the_newest_matches_newest_first(cairn):
    for n in range(30):
        cairn.remember(f"Deploy note {n}: the relay cluster in region {n % 3}", kind="fact")
    conn = cairn.store.conn
    plain = [r[0] for r in conn.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH '\"relay\"' ORDER BY rowid DESC")]
    assert len(plain) == 30
    assert cairn.store.term_postings("relay", 12) == plain[:12]
    assert cairn.store.term_postings("relay", 100) == plain
    assert cairn.store.term_postings("nowhere", 5) == []


def test_load_ranked_keeps_order_and_filters_as_the_row_columns_say(cairn, db_path, clock):
    from cairn import Cairn
    from cairn.store.sqlite import backend

    mine = [cairn.remember(f"Relay note {n} for the cluster", kind="fact").memory.id for n in range(6)]
    episode = cairn.remember("turn 1: relay cluster talk", kind="episode", basis="transcript", method="local").memory.id
    with Cairn(db_path, space="other", now=clock) as other:
        theirs = other.remember("Relay note for the other cluster", kind="fact").memory.id
    conn = cairn.store.conn
    rowid = {i: r for i, r in conn.execute("SELECT id, rowid FROM memories")}
    conn.execute("UPDATE memories SET status = 'retired' WHERE id = ?", (mine[1],))
    conn.execute("UPDATE memories SET data = 'not json' WHERE id = ?", (mine[3],))
    conn.execute("UPDATE memories SET data = CAST(x'7b22636166e9227d' AS TEXT) WHERE id = ?", (mine[4],))  # not UTF-8
    keys = [rowid[i] for i in (mine[5], theirs, mine[1], episode, mine[3], mine[0], mine[2], mine[4])] + [10_000]
    skipped = backend.SKIPPED[0]
    got = cairn.store.load_ranked(cairn.space, keys, claims_only=True, limit=10, skip_retired=True)
    assert [m.id for m in got] == [mine[5], mine[0], mine[2]]  # key order; other space, retired, episode out
    assert backend.SKIPPED[0] == skipped + 2  # each unreadable body is counted, once
    wide = cairn.store.load_ranked(cairn.space, keys, claims_only=False, limit=10)
    assert [m.id for m in wide] == [mine[5], mine[1], episode, mine[0], mine[2]]
    assert [m.id for m in cairn.store.load_ranked(cairn.space, keys, claims_only=False, limit=2)] == [mine[5], mine[1]]
    # Rows left out of the first read are made up by reading on.
    short = cairn.store.load_ranked(cairn.space, keys, claims_only=True, limit=2, skip_retired=True)
    assert [m.id for m in short] == [mine[5], mine[0]]


def test_scoring_reads_the_frequencies_of_a_query_in_one_statement(cairn):
    from cairn.recall.candidates import IndexStats
    from cairn.recall.query import parse_query
    from cairn.recall.score import lexical

    record = cairn.remember("The relay cluster in Berlin rotates its signing key", kind="fact").memory
    seen: list[str] = []
    with cairn.store.snapshot() as view:
        stats = IndexStats(view, cairn.space)
        cairn.store.conn.set_trace_callback(seen.append)
        try:
            lexical(parse_query("relay cluster signing key rotation"), record, stats)
        finally:
            cairn.store.conn.set_trace_callback(None)
    assert len([s for s in seen if "FROM term_stats" in s]) == 1, seen


def test_a_recall_after_another_reads_only_what_no_recall_before_it_read(cairn):
    """What the first recall derived (record count, frequencies, prefix reads, postings,
    rows, relations) is kept while the data is unchanged: the same question again makes
    only the snapshot's own statements; a write brings the reads back."""
    for n in range(12):
        cairn.remember(f"The relay cluster {n} rotates its signing key weekly", kind="fact")
    cairn.remember("Berlin office moved to the third floor", kind="fact")
    question = "how often does the relay rotate the signing key"

    def statements() -> list[str]:
        seen: list[str] = []
        cairn.store.conn.set_trace_callback(seen.append)
        try:
            assert cairn.recall(question, trace=False, lane="claims").ids
        finally:
            cairn.store.conn.set_trace_callback(None)
        return [s for s in seen if not s.startswith("--")]  # FTS5's own inner statements left out

    first = statements()
    again = statements()
    assert len(first) >= 10, first
    reads = [s for s in again if s.split()[0] not in ("BEGIN", "COMMIT", "PRAGMA")]
    lane = ("memories_fts", "term_stats", "space_stats", "rowid IN", "turn IS NOT NULL")
    assert not [s for s in reads if any(part in s for part in lane)], reads
    # What is left is the results' confidence, read by the engine's trust part in its own
    # snapshot: the records, then each one's events and relations.
    assert len(reads) <= 1 + 2 * 3, reads
    cairn.remember("The relay cluster 99 rotates its signing key daily", kind="fact")
    after = statements()
    assert [part for part in lane[:4] if any(part in s for s in after)] == list(lane[:4]), after  # read again
