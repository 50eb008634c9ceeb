"""Lexical relevance of one memory to a parsed query (docs/recall.md, stage 4).

BM25F over two fields — content weight 1, aliases 0.8 — with per-field length
normalisation, IDF from corpus statistics, and query-feature weights (literals weigh
more). The same function scores a record whether it came from the store's index
(:func:`cairn.recall.candidates.fetch`) or from an in-memory list (``known_at`` recall scores the records rebuilt from the event
log): only the :class:`CorpusStats` differ.

Besides the score, :class:`Lexical` reports which features matched where, the
IDF-weighted coverage, and which alias-only matches were *rare* enough to name a topic
(an alias shared by many records is a tag, not a name). The gates read those.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from ..model import Memory
from ..text import tokenize
from .query import ParsedQuery


@dataclass(frozen=True, slots=True)
class ScoreProfile:
    """BM25F constants. Average field lengths are fixed reference lengths rather
    than corpus averages, so the index path and the in-memory path score a record the same."""

    k1: float = 1.2
    b: float = 0.75
    content_weight: float = 1.0
    alias_weight: float = 0.8
    content_avg_terms: float = 14.0
    alias_avg_terms: float = 3.0
    rare_alias_fraction: float = 0.01  # an alias term names a topic if in ≤1 % of records ...
    rare_alias_floor: int = 3  # ... or in at most this many


SCORE = ScoreProfile()


class CorpusStats(Protocol):
    """Document frequencies of the corpus the candidates come from."""

    docs: int

    def df(self, term: str) -> int: ...


class ListStats:
    """Statistics of an in-memory list of records (the ``known_at`` path and tests)."""

    def __init__(self, records: Iterable[Memory]) -> None:
        counts: Counter[str] = Counter()
        n = 0
        for memory in records:
            n += 1
            counts.update(set(field_terms(memory.content)) | set(field_terms(" ".join(memory.aliases))))
        self.docs = n
        self._df = counts

    def df(self, term: str) -> int:
        return self._df.get(term, 0)


@dataclass(frozen=True, slots=True)
class Lexical:
    score: float
    in_content: frozenset[str]  # features found in the content
    in_aliases: frozenset[str]  # features found in the aliases
    rare_alias: frozenset[str]  # alias-only features whose term is rare enough to name a topic
    in_origin: frozenset[str]  # features named by the record's origin
    coverage: float  # IDF-weighted share of the query's features present (rare aliases count)

    @property
    def present(self) -> frozenset[str]:
        """Features that count as evidence for the gates: content, or a rare alias."""
        return self.in_content | self.rare_alias


def field_terms(text: str) -> list[str]:
    """Match terms of one field (stopwords included: they count for length)."""
    return [t.term for t in tokenize(text)]


def idf(df: int, docs: int) -> float:
    """BM25 IDF, never negative (a term in every record still counts a little)."""
    docs = max(docs, df, 1)
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def is_rare(term: str, stats: CorpusStats, profile: ScoreProfile = SCORE) -> bool:
    return stats.df(term) <= max(profile.rare_alias_floor, profile.rare_alias_fraction * stats.docs)


def lexical(query: ParsedQuery, memory: Memory, stats: CorpusStats, profile: ScoreProfile = SCORE) -> Lexical:
    """Score ``memory`` against ``query``. Pure apart from ``stats`` lookups.

    Coverage counts a feature found in the content, in a rare alias, or in the origin
    (an explicit origin may name the subject; it adds nothing to the score). Numbers are
    left out of coverage when the query has words too: a number is often the very value
    that changed, so its absence is no evidence against a record. A word no record holds
    still counts: the query asked about it, and nothing here answers that part.
    """
    content = Counter(field_terms(memory.content))
    aliases = Counter(field_terms(" ".join(memory.aliases)))
    origin = set(field_terms(memory.origin)) if memory.origin else set()
    c_norm = 1 - profile.b + profile.b * sum(content.values()) / profile.content_avg_terms
    a_norm = 1 - profile.b + profile.b * sum(aliases.values()) / profile.alias_avg_terms
    words_only = any(not f.numeric for f in query.features)
    score = total = covered = 0.0
    in_content, in_aliases, rare, in_origin = set(), set(), set(), set()
    for feature in query.features:
        weight = idf(stats.df(feature.term), stats.docs) * feature.weight
        tf_c, tf_a = content.get(feature.term, 0), aliases.get(feature.term, 0)
        if tf_c:
            in_content.add(feature.term)
        if tf_a:
            in_aliases.add(feature.term)
            if not tf_c and is_rare(feature.term, stats, profile):
                rare.add(feature.term)
        if feature.term in origin:
            in_origin.add(feature.term)
        if not (words_only and feature.numeric):
            total += weight
            if tf_c or feature.term in rare or feature.term in origin:
                covered += weight
        tf = profile.content_weight * tf_c / c_norm + (profile.alias_weight * tf_a / a_norm if aliases else 0.0)
        if tf:
            score += weight * tf * (profile.k1 + 1) / (tf + profile.k1)
    return Lexical(
        score=score,
        in_content=frozenset(in_content),
        in_aliases=frozenset(in_aliases),
        rare_alias=frozenset(rare),
        in_origin=frozenset(in_origin),
        coverage=covered / total if total else 0.0,
    )
