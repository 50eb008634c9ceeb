"""Corpus access of the lexical lane: candidate fetching and corpus statistics from the
SQLite FTS5 index (DESIGN §5.2). Read-only SQL on the view's connection.

Candidates are chosen by **IDF-weighted overlap**: for each query term, the ids of the
records whose index holds it are read straight from FTS5 (no per-row bm25 in SQL, which
costs about twice as much per posting); each record scores the summed IDF × query weight
of the terms it holds; the best ``pool`` records of the space (ties in posting order,
each term's newest first) go on
to Cairn's own BM25F scoring. Cost grows with the postings of the query's terms, so each
term contributes at most ``SCAN_PER_TERM`` postings — its newest matches. Only a term
found in thousands of records hits that bound; the outcome says when it did.

Document frequencies come from the same reads (a term's posting count, when complete) or
from a TEMP ``fts5vocab`` table (created in the connection's temp schema: the database
file is never touched). The index spans every space of the file, so frequencies are
file-wide — a number, never a record, crosses spaces.
"""

from __future__ import annotations

import heapq
import json
import unicodedata
from dataclasses import dataclass

from ..model import Memory, memory_from_dict
from ..text import normalize, terms
from .phrase import PHRASE, Span, holds
from .query import ParsedQuery
from .score import idf

SCAN_PER_TERM = 3000  # ours: postings read per term (its newest matches)
POOL = 48  # ours: candidates handed to Cairn's own scoring
PHRASE_SCAN = 64  # ours: FTS phrase hits verified per span


class IndexStats:
    """Document frequencies from the FTS5 index. ``docs`` is the highest memory rowid
    (rows are never deleted), an O(1) stand-in for the record count."""

    def __init__(self, view) -> None:
        self.conn = view.conn
        self.docs = int(self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM memories").fetchone()[0])
        self._cache: dict[str, int] = {}
        self._vocab = False

    def learn(self, term: str, df: int) -> None:
        """Record an exact document frequency found by another read."""
        self._cache[term] = df

    def df(self, term: str) -> int:
        if term not in self._cache:
            if not self._vocab:
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_fts_vocab USING fts5vocab(main, memories_fts, row)"
                )
                self._vocab = True
            row = self.conn.execute("SELECT doc FROM temp.cairn_fts_vocab WHERE term = ?", (fts_form(term),)).fetchone()
            self._cache[term] = int(row[0]) if row else 0
        return self._cache[term]


def fts_form(term: str) -> str:
    """The form FTS5's unicode61 tokenizer stores a term in (diacritics removed)."""
    decomposed = unicodedata.normalize("NFD", term)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class Fetched:
    memories: list[Memory]
    postings: int  # postings read
    bounded: tuple[str, ...]  # terms whose postings were cut at SCAN_PER_TERM

    def to_dict(self) -> dict:
        return {"postings": self.postings, "bounded_terms": list(self.bounded)}


def fetch(view, space: str, query: ParsedQuery, stats: IndexStats, *, claims: bool, pool: int = POOL) -> Fetched:
    """The ``pool`` records of ``space`` with the highest IDF-weighted overlap."""
    overlap: dict[int, float] = {}
    postings, bounded = 0, []
    for feature in query.features:
        rows = view.conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (quoted(fts_form(feature.term)), SCAN_PER_TERM + 1),
        ).fetchall()
        if len(rows) > SCAN_PER_TERM:
            rows = rows[:SCAN_PER_TERM]
            bounded.append(feature.term)
        else:
            stats.learn(feature.term, len(rows))
        postings += len(rows)
        if not rows:
            continue
        weight = idf(stats.df(feature.term), stats.docs) * feature.weight
        for (rowid,) in rows:
            overlap[rowid] = overlap.get(rowid, 0.0) + weight
    # Higher overlap first; equal overlaps keep posting order (each term's newest first),
    # which both nlargest and sorted preserve, so the order is deterministic.
    head = heapq.nlargest(pool * 4, overlap, key=overlap.__getitem__)
    loaded = _load(view, space, head, claims=claims, pool=pool)
    if len(loaded) < pool and len(overlap) > len(head):
        # Other spaces (or episodes) filled the head: read on down the full order.
        seen = set(head)
        rest = [r for r in sorted(overlap, key=overlap.__getitem__, reverse=True) if r not in seen]
        loaded += _load(view, space, rest, claims=claims, pool=pool - len(loaded))
    return Fetched(loaded, postings, tuple(bounded))


def _load(view, space: str, ranked: list[int], *, claims: bool, pool: int) -> list[Memory]:
    """Load ranked rowids in order, keeping this space's rows (claims: no episodes)."""
    out: list[Memory] = []
    step = pool * 2
    for start in range(0, len(ranked), step):
        chunk = ranked[start : start + step]
        marks = ",".join("?" * len(chunk))
        # Filter space and kind here, not in SQL: with them in the WHERE clause the planner
        # may scan the space's index instead of looking the rowids up.
        rows = {
            rowid: data
            for rowid, row_space, kind, data in view.conn.execute(
                f"SELECT rowid, space, kind, data FROM memories WHERE rowid IN ({marks})", chunk
            )
            if row_space == space and not (claims and kind == "episode")
        }
        for rowid in chunk:
            if rowid in rows:
                try:
                    out.append(memory_from_dict(json.loads(rows[rowid])))
                except ValueError:
                    continue  # malformed rows are reported by `cairn status`, never fatal here
                if len(out) >= pool:
                    return out
    return out


def index_frequency(view, space: str, ceiling: int = PHRASE.ceiling, scan: int = PHRASE_SCAN):
    """How many records of ``space`` hold a span (counting stops at ceiling + 1).

    FTS5 phrase matching over stemmed terms finds a superset; each hit is verified with
    the exact whole-word rule of :mod:`cairn.recall.phrase`. At most ``scan`` hits are
    verified per span. CROSS JOIN pins FTS5 as the outer loop: with a plain JOIN the
    planner may walk every record of the space and probe the index per row.
    """

    def count(span: Span) -> int:
        phrase = '"' + " ".join(fts_form(t) for t in terms(" ".join(span))) + '"'
        rows = view.conn.execute(
            "SELECT json_extract(m.data, '$.content'), json_extract(m.data, '$.aliases')"
            " FROM memories_fts CROSS JOIN memories m ON m.rowid = memories_fts.rowid"
            " WHERE memories_fts MATCH ? AND m.space = ? LIMIT ?",
            (phrase, space, scan),
        )
        n = 0
        for content, aliases in rows:
            texts = [normalize(content or ""), *(normalize(a) for a in json.loads(aliases or "[]"))]
            if holds(texts, span):
                n += 1
                if n > ceiling:
                    break
        return n

    return count
