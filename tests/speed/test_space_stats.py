"""Document frequencies per space: a space's ranking depends on its own records only, and
the counts the store keeps in every write equal a recount of the index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.errors import InvalidInput
from cairn.recall import candidates
from cairn.recall.candidates import IndexStats

NOW = "2026-05-01T12:00:00Z"
RECORDS = (
    "Billing runs on PostgreSQL 16 in the Frankfurt region",
    "The billing team reviews invoices every Friday",
    "Grafana dashboards show the billing latency",
)
NOISE = [f"Billing note {i}: the region of invoice batch {i} is fine" for i in range(60)]


def _fill(path: Path, space: str, texts) -> None:
    with Cairn(path, space=space, now=NOW) as c:
        for text in texts:
            c.remember(text, kind="fact", origin="ops")


def _scores(path: Path, space: str, query: str) -> list[tuple[str, float, str]]:
    with Cairn(path, space=space, now=NOW) as c:
        doc = c.explain(query, limit=3)
        return sorted((c.get(cand["id"]).content, round(cand["raw"], 9), cand["reason"]) for cand in doc["candidates"])


def _recount(path: Path) -> tuple[dict, dict]:
    """Per-space document frequencies counted from the full-text index itself."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, memories_fts, instance)")
    df = {(s, t): n for s, t, n in conn.execute(
        "SELECT m.space, v.term, COUNT(DISTINCT v.doc) FROM temp.v v JOIN memories m ON m.rowid = v.doc GROUP BY 1, 2")}
    docs = dict(conn.execute(
        "SELECT space, COUNT(*) FROM memories WHERE rowid IN (SELECT rowid FROM memories_fts) GROUP BY space").fetchall())
    conn.close()
    return df, docs


def _kept(path: Path) -> tuple[dict, dict]:
    conn = sqlite3.connect(path)
    df = {(s, t): n for s, t, n in conn.execute("SELECT space, term, df FROM term_stats")}
    docs = dict(conn.execute("SELECT space, docs FROM space_stats").fetchall())
    conn.close()
    return df, docs


QUERIES = ("billing region", "who reviews invoices", "postgresql frankfurt")


@pytest.mark.parametrize("query", QUERIES)
def test_another_space_does_not_change_the_scores(tmp_path: Path, query: str):
    alone, shared = tmp_path / "alone.db", tmp_path / "shared.db"
    _fill(alone, "work", RECORDS)
    _fill(shared, "work", RECORDS)
    _fill(shared, "other", NOISE)  # the same words, many times, in another space
    got = _scores(shared, "work", query)
    assert got and any(raw > 0 for _, raw, _ in got)
    assert got == _scores(alone, "work", query)


def test_file_wide_frequencies_would_change_them(tmp_path: Path, monkeypatch):
    # Negative control: counting every space (as the index alone does) lets the other
    # space's records change this space's scores, so the test above can fail.
    monkeypatch.setattr(candidates.IndexStats, "__init__", _file_wide_init)
    alone, shared = tmp_path / "alone.db", tmp_path / "shared.db"
    _fill(alone, "work", RECORDS)
    _fill(shared, "work", RECORDS)
    _fill(shared, "other", NOISE)
    assert _scores(shared, "work", "billing region") != _scores(alone, "work", "billing region")


_original_init = IndexStats.__init__


def _file_wide_init(self, view, space=None):
    _original_init(self, view, None)


def test_the_kept_counts_equal_a_recount_after_every_kind_of_write(tmp_path: Path):
    path = tmp_path / "c.db"
    _fill(path, "work", RECORDS)
    _fill(path, "other", NOISE[:10])
    with Cairn(path, space="work", now=NOW) as c:
        target = c.remember("Kafka topics are retained for seven days", kind="fact", origin="ops").memory.id
        c.correct(target, "Kafka topics are retained for fourteen days")  # new terms replace old ones
        c.pin(target)  # rewritten, same terms
        grafana = c.recall("grafana dashboards", trace=False).results[0].id
        c.forget(grafana, purge=True)  # its terms leave the index
        with pytest.raises(InvalidInput):
            c.remember("", kind="fact")  # refused: nothing written, counts untouched
    kept, recount = _kept(path), _recount(path)
    assert kept[1] == recount[1]
    assert {k: v for k, v in kept[0].items() if v} == recount[0]
    assert kept[0][("work", "bill")] == 2 and kept[0][("other", "bill")] == 10
    assert kept[0][("work", "fourteen")] == 1 and kept[0].get(("work", "seven"), 0) == 0
    assert kept[0].get(("work", "grafana"), 0) == 0 and kept[1]["work"] == 3


def test_a_rolled_back_write_leaves_the_counts(tmp_path: Path):
    path = tmp_path / "c.db"
    _fill(path, "work", RECORDS)
    before = _kept(path)
    with Cairn(path, space="work", now=NOW) as c:
        memory = c.get(c.recall("billing postgresql", trace=False).results[0].id)
        with pytest.raises(RuntimeError), c.store.write() as tx:
            from dataclasses import replace

            tx.put_memory(replace(memory, id="f" * 24, content="zeppelin hangar"))
            assert tx.space_document_frequencies("work", ["zeppelin"]) == {"zeppelin": 1}  # seen inside
            raise RuntimeError("abort")
    assert _kept(path) == before


def test_the_migration_counts_an_existing_index(tmp_path: Path):
    path = tmp_path / "c.db"
    _fill(path, "work", RECORDS)
    _fill(path, "other", NOISE[:5])
    conn = sqlite3.connect(path)
    with conn:  # a file written before the counts existed
        conn.execute("DROP TABLE term_stats")
        conn.execute("DROP TABLE space_stats")
        conn.execute("DELETE FROM schema_migrations WHERE seq >= (SELECT seq FROM schema_migrations"
                     " WHERE name = '0010_space_term_stats')")  # it and every later one
    conn.close()
    with Cairn(path, space="work", now=NOW) as c:
        assert c.recall("billing postgresql", trace=False).results
    assert _kept(path) == _recount(path)
