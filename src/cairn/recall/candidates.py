"""Corpus access of the lexical lane: candidate fetching and corpus statistics, read
through the store's lexical-index primitives (:class:`cairn.store.ReadView`).

Candidates are chosen by **IDF-weighted overlap**: for each query term, the keys of the
records whose index holds it are read straight from the index (no per-row relevance in
the store, which costs about twice as much per posting); each record scores the summed
IDF × query weight of the terms it holds; the best ``pool`` records of the space (ties in
posting order, each term's newest first) go on to Cairn's own BM25F scoring. Cost grows
with the postings of the query's terms, so each term contributes at most
``SCAN_PER_TERM`` postings — its newest matches. Only a term found in thousands of
records hits that bound; the outcome says when it did.

Document frequencies and the record count are the space's own (the store keeps them per
space in every write), read for all the query's terms at once: one space's content never
changes another's ranking. The postings span every space of the file; records of other
spaces are dropped when loaded.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from itertools import chain, repeat
from operator import add
from typing import NamedTuple

from ..model import Memory
from ..store import ReadView
from ..text import normalize, terms
from . import kept
from .phrase import PHRASE, Span, holds
from .query import ParsedQuery
from .score import feature_df, idf

SCAN_PER_TERM = 3000  # postings read per term (its newest matches)
POOL = 48  # candidates handed to Cairn's own scoring
PHRASE_SCAN = 64  # FTS phrase hits verified per span
KEPT_SPACES = 64  # spaces whose record count is kept (cairn.recall.kept)
KEPT_TERMS = 16384  # document frequencies (and prefix reads) kept per space
KEPT_POSTINGS = 65536  # postings kept, all terms together (a few MB at most)
KEPT_SPANS = 4096  # phrase frequencies kept per space
KEPT_WEIGHTS = 4096  # scoring weights and plans kept per space


class IndexStats:
    """Document frequencies from the store's index, counted within ``space``: a space's
    ranking depends on its own records only. ``space=None`` counts every space of the
    file (``docs`` is then the store's O(1) upper bound of the record count)."""

    def __init__(self, view: ReadView, space: str | None = None) -> None:
        self.view = view
        self.space = space
        # The count and the frequencies are kept while the store's data is unchanged
        # (cairn.recall.kept): a recall reads only the terms no recall before it asked.
        counts = kept.table(view, "docs", KEPT_SPACES)
        if space not in counts:
            counts[space] = view.document_count() if space is None else view.space_document_count(space)
        self.docs: int = counts[space]
        self._cache: dict[str, int] = kept.table(view, ("df", space), KEPT_TERMS)
        # Per-feature weights and per-query plans of score.lexical: functions of the
        # frequencies above, kept with them, so that the recall's later looks at excluded
        # records (cairn.recall.pipeline) and a lane asked again score with the plan the
        # lane made instead of making it anew.
        self.memo: dict = kept.table(view, ("weights", space), KEPT_WEIGHTS)

    def prefetch(self, terms: Iterable[str]) -> None:
        """Read the frequencies of ``terms`` in one go (one query per space, not per term)."""
        wanted = [t for t in dict.fromkeys(terms) if t not in self._cache]
        if wanted and self.space is not None:
            self._cache.update(self.view.space_document_frequencies(self.space, wanted))

    def df(self, term: str) -> int:
        if term not in self._cache:
            if self.space is None:
                self._cache[term] = self.view.document_frequency(term)
            else:
                self._cache.update(self.view.space_document_frequencies(self.space, [term]))
        return self._cache[term]

    def extensions(self, prefix: str, limit: int) -> list[str]:
        known = kept.table(self.view, "extensions", KEPT_TERMS)
        found = known.get((prefix, limit))
        if found is None:
            found = known[(prefix, limit)] = self.view.terms_with_prefix(prefix, limit)
        return found


class Fetched(NamedTuple):
    memories: list[Memory]
    postings: int  # postings read
    bounded: tuple[str, ...]  # terms whose postings were cut at SCAN_PER_TERM

    def to_dict(self) -> dict:
        return {"postings": self.postings, "bounded_terms": list(self.bounded)}


def fetch(view: ReadView, space: str, query: ParsedQuery, stats: IndexStats, *, claims: bool, pool: int = POOL,
          include_retired: bool = False) -> Fetched:
    """The ``pool`` records of ``space`` with the highest IDF-weighted overlap. Records a
    retention policy retired are not candidates unless ``include_retired``: the store
    skips them on their status, so they take no place in the pool."""
    overlap: dict[Hashable, float] = {}
    postings, bounded = 0, []
    stats.prefetch(w for f in query.features for t in (f.term, *f.variants) for w in t.split())
    known, weight_kept = kept.weighed(view, "postings", KEPT_POSTINGS)
    # A phrase variant reads the records holding its rarest word.
    read = [[min(t.split(), key=stats.df) if " " in t else t for t in (f.term, *f.variants)] for f in query.features]
    wanted = [t for t in dict.fromkeys(t for forms in read for t in forms) if t not in known]
    if wanted:  # every term not kept, in one read (one round trip on a server store)
        for term, rows in view.terms_postings(wanted, SCAN_PER_TERM + 1).items():
            known[term] = rows
            weight_kept[0] += len(rows) + 1
    for feature, forms in zip(query.features, read, strict=True):
        found = []
        for term in forms:
            rows = known[term]
            if len(rows) > SCAN_PER_TERM:
                rows = rows[:SCAN_PER_TERM]
                bounded.append(term)
            postings += len(rows)
            found.append(rows)
        # One term's postings are distinct already; a term and its variants may share records.
        keys = found[0] if len(found) == 1 else list(dict.fromkeys(chain.from_iterable(found)))
        if not keys:
            continue
        weight = idf(feature_df(feature, stats), stats.docs) * feature.weight
        if not overlap:
            overlap = dict.fromkeys(keys, weight)  # what 0.0 + weight gives each, in one step (weight > 0)
            continue
        # overlap[key] = overlap.get(key, 0.0) + weight for each key, in key order, run in C:
        # the keys are distinct, so no sum reads a value this update wrote.
        overlap.update(zip(keys, map(add, map(overlap.get, keys, repeat(0.0)), repeat(weight)), strict=True))
    # Higher overlap first; equal overlaps keep posting order (each term's newest first):
    # the sort is stable, reversed or not, so the order is deterministic. A full sort of a
    # few thousand keys runs in C and costs a quarter of heapq.nlargest's Python loop,
    # whose result it equals by definition.
    ranked = sorted(overlap, key=overlap.__getitem__, reverse=True)
    head = ranked[: pool * 4]
    skip = not include_retired
    loaded = view.load_ranked(space, head, claims_only=claims, limit=pool, skip_retired=skip)
    if len(loaded) < pool and len(ranked) > len(head):
        # Other spaces (or episodes, or retired records) filled the head: read on down the full order.
        rest = ranked[len(head) :]
        loaded += view.load_ranked(space, rest, claims_only=claims, limit=pool - len(loaded), skip_retired=skip)
    return Fetched(loaded, postings, tuple(bounded))


def index_frequency(view: ReadView, space: str, ceiling: int = PHRASE.ceiling, scan: int = PHRASE_SCAN):
    """How many records of ``space`` hold a span (counting stops at ceiling + 1).

    The store's phrase match over stemmed terms finds a superset; each hit is verified
    with the exact whole-word rule of :mod:`cairn.recall.phrase`. At most ``scan`` hits
    are verified per span.
    """

    known = kept.table(view, ("phrase", space, ceiling, scan), KEPT_SPANS)

    def count(span: Span) -> int:
        found = known.get(span)
        if found is None:
            found = known[span] = _count(span)
        return found

    def _count(span: Span) -> int:
        words = terms(" ".join(span))
        # A recurring span verifies on its first few hits: read ceiling + 1 of them first,
        # and the whole scan only when they did not all pass the exact rule. Hits are
        # counted in the store's order either way, so the count is the one a full read
        # gives (a short first read proves nothing: the store drops unreadable rows).
        n = 0
        for limit in dict.fromkeys((min(ceiling + 1, scan), scan)):
            n = 0
            for content, aliases in view.phrase_texts(space, words, limit):
                texts = [normalize(content), *(normalize(a) for a in aliases)]
                if holds(texts, span):
                    n += 1
                    if n > ceiling:
                        return n
        return n

    return count
