"""Lexical relevance of one memory to a parsed query (docs/recall.md, stage 4).

BM25F over two fields — content weight 1, aliases 0.8 — with per-field length
normalisation, IDF from corpus statistics, and query-feature weights (literals weigh
more). The same function scores a record whether it came from the store's index
(:func:`cairn.recall.candidates.fetch`) or from an in-memory list (``known_at`` recall scores the records rebuilt from the event
log): only the :class:`CorpusStats` differ.

Besides the score, :class:`Lexical` reports which features matched where, the
coverage, and which alias-only matches were *rare* enough to name a topic (an alias
shared by many records is a tag, not a name). The gates read those.

**Coverage** is the weighted share of the query's features a record holds. A feature's
weight must mean the same in a store of one record and of a million, so it is not the
store's IDF alone: it starts from a **rarity prior** — a word in the shipped table of
common English words (``common_words.txt``: "want", "long", "use", "way"), the kind a
which/what question asks for and the verb that follows it ("what tea do I *drink*", the
asker's word: answered by "a pot of Assam") weigh
``common_weight``, any other word 1 — times the store's own rarity of the term, counted
as if ``prior_docs`` more records lacked it (a term in both records of a two-record store
still weighs 0.8, a term in 14 of 20 records 0.3, and in a large store the pseudo-records
vanish). A word no record holds has no store rarity to speak of and keeps its prior: in
a two-record store, "how does Omar want his eggs cooked" is about Omar and eggs, not
about "want". A CJK bigram no record holds is
most often two characters across a word boundary (么时 of 什么时候): it weighs
``unknown_cjk_weight``.

A query feature may carry **variants** (:mod:`cairn.recall.variants`: ``postgres`` →
``postgresql``, ``lint`` → ``linter``): their occurrences count as the feature's own.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple, Protocol

from ..model import Memory
from ..text import index_text
from .query import Feature, ParsedQuery


@dataclass(frozen=True, slots=True, repr=False, eq=False)
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
    common_weight: float = 0.35  # coverage weight of a common English word (the prior)
    prior_docs: int = 20  # records that lack every term, added to the store's count for coverage
    unknown_cjk_weight: float = 0.25  # a CJK bigram no record holds: most often a cross-word pair


SCORE = ScoreProfile()


@cache
def common_words() -> frozenset[str]:
    """The shipped table of common words, in index form (see ``common_words.txt``)."""
    # Read beside this module: importlib.resources would cost a recall process ~10 ms of imports.
    text = Path(__file__).with_name("common_words.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


class CorpusStats(Protocol):
    """Document frequencies of the corpus the candidates come from."""

    docs: int

    def df(self, term: str) -> int: ...


class ListStats:
    """Statistics of an in-memory list of records (the ``known_at`` path and tests);
    also the vocabulary :mod:`cairn.recall.variants` reads."""

    def __init__(self, records: Iterable[Memory]) -> None:
        counts: Counter[str] = Counter()
        n = 0
        for memory in records:
            n += 1
            counts.update(set(field_terms(memory.content)) | set(field_terms(" ".join(memory.aliases))))
        self.docs = n
        self._df = counts
        self.memo: dict = {}  # per-feature weights (see _weights)

    def df(self, term: str) -> int:
        return self._df.get(term, 0)

    def extensions(self, prefix: str, limit: int) -> list[str]:
        return sorted(t for t in self._df if t.startswith(prefix) and t != prefix)[:limit]


class Lexical(NamedTuple):
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
    """Match terms of one field (stopwords included: they count for length): the terms
    of :func:`cairn.text.terms`, read from :func:`cairn.text.index_text` (their
    space-joined form, built without a token object per word; no term holds a space)."""
    return index_text(text).split()


@lru_cache(maxsize=8192)
def _field_counts(text: str) -> tuple[Counter[str], int]:
    """(term counts, length) of one field, read-only. Tokenising is most of a candidate's
    scoring cost and a record's text never changes, so a process that recalls again
    (a server, a benchmark) tokenises each recently seen text once; bounded, so memory
    stays flat whatever the store's size. The terms are interned: the same few thousand
    words recur across texts, and each kept count would otherwise hold its own copy of
    every word it counts (most of the cache's weight)."""
    counts = Counter(map(sys.intern, field_terms(text)))
    return counts, sum(counts.values())


def held_terms(text: str) -> Counter[str]:
    """The match terms of ``text`` with their counts (the kept tokenisation; read-only)."""
    return _field_counts(text)[0]


_NO_FIELD: tuple[Counter[str], int] = (Counter(), 0)  # an empty field, read-only


def _phrase_count(text: str, words: tuple[str, ...]) -> int:
    """How often ``words`` follow each other, in that order, in the terms of ``text``."""
    terms = field_terms(text)
    n = len(words)
    return sum(1 for i in range(len(terms) - n + 1) if tuple(terms[i : i + n]) == words)


def idf(df: int, docs: int) -> float:
    """BM25 IDF, never negative (a term in every record still counts a little)."""
    docs = max(docs, df, 1)
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


def is_rare(term: str, stats: CorpusStats, profile: ScoreProfile = SCORE) -> bool:
    return stats.df(term) <= max(profile.rare_alias_floor, profile.rare_alias_fraction * stats.docs)


def feature_df(feature: Feature, stats: CorpusStats) -> int:
    """Records holding the feature or one of its variants (an upper bound: the sum)."""
    df = stats.df(feature.term) + sum(_df(v, stats) for v in feature.variants)
    return min(df, max(stats.docs, 1))


def _df(term: str, stats: CorpusStats) -> int:
    """Records holding ``term``; for a phrase variant, those holding its rarest word (a bound)."""
    return min(stats.df(t) for t in term.split()) if " " in term else stats.df(term)


def coverage_weight(feature: Feature, df: int, docs: int, profile: ScoreProfile = SCORE) -> float:
    """The feature's weight in coverage: the rarity prior times the store's own rarity,
    the latter counted as if ``prior_docs`` more records lacked the term, so that a
    small store's counts lean on the prior (see the module docstring)."""
    if feature.answer_type or feature.asked or feature.term in common_words():
        prior = profile.common_weight
    elif feature.cjk and df == 0:
        prior = profile.unknown_cjk_weight
    else:
        prior = 1.0
    if df <= 1:
        return prior * feature.weight  # held by one record or none: as rare as a word can be
    pseudo = docs + profile.prior_docs
    return prior * idf(df, pseudo) / idf(1, pseudo) * feature.weight


def _weights(feature: Feature, stats: CorpusStats, profile: ScoreProfile) -> tuple[int, float, float]:
    """(document frequency, scoring weight, coverage weight) of a feature; the same for
    every candidate of one recall, so kept on the statistics object when it has a memo."""
    memo: dict | None = getattr(stats, "memo", None)
    key = (feature, profile)
    if memo is not None and key in memo:
        return memo[key]
    df = feature_df(feature, stats)
    weight = idf(df, stats.docs) * feature.weight
    if feature.answer_type:
        weight *= profile.common_weight  # "which *database*": the kind asked for is weak evidence
    found = (df, weight, coverage_weight(feature, df, stats.docs, profile))
    if memo is not None:
        memo[key] = found
    return found


class _Planned(NamedTuple):
    """What :func:`lexical` needs of one feature, the same for every candidate of a recall."""

    term: str
    spellings: tuple[str, ...]  # the term, then its single-term variants
    phrases: tuple[tuple[str, ...], ...]  # phrase variants, as their terms (cairn.recall.variants)
    weight: float  # scoring weight (IDF x feature weight)
    share: float  # coverage weight
    rare: bool  # an alias-only match of it names a topic (see is_rare)
    counted: bool  # counts in coverage (numbers do not when the query has words)


def _plan(query: ParsedQuery, stats: CorpusStats, profile: ScoreProfile) -> tuple[_Planned, ...]:
    """The per-feature constants of ``query`` under ``stats``; kept on the statistics
    object when it has a memo (one recall's statistics: the same query scores every
    candidate). The memo holds the query and the profile themselves, so an entry found
    by their ids is theirs, never that of objects that reused a freed id."""
    memo: dict | None = getattr(stats, "memo", None)
    key = ("plan", id(query), id(profile))
    if memo is not None:
        found = memo.get(key)
        if found is not None and found[0] is query and found[1] is profile:
            return found[2]
    prefetch = getattr(stats, "prefetch", None)
    if prefetch is not None:
        prefetch(w for f in query.features for t in (f.term, *f.variants) for w in t.split())  # one read, not one per term
    words_only = any(not f.numeric for f in query.features)
    rare_max = max(profile.rare_alias_floor, profile.rare_alias_fraction * stats.docs)
    planned = []
    for feature in query.features:
        df, weight, share = _weights(feature, stats, profile)
        spellings = (feature.term, *(v for v in feature.variants if " " not in v))
        phrases = tuple(tuple(v.split()) for v in feature.variants if " " in v)
        planned.append(_Planned(feature.term, spellings, phrases, weight, share, df <= rare_max,
                                not (words_only and feature.numeric)))
    plan = tuple(planned)
    if memo is not None:
        memo[key] = (query, profile, plan)
    return plan


def lexical(query: ParsedQuery, memory: Memory, stats: CorpusStats, profile: ScoreProfile = SCORE) -> Lexical:
    """Score ``memory`` against ``query``. Pure apart from ``stats`` lookups.

    Coverage counts a feature found in the content, in a rare alias, or in the origin
    (an explicit origin may name the subject; it adds nothing to the score). Numbers are
    left out of coverage when the query has words too: a number is often the very value
    that changed, so its absence is no evidence against a record. A word no record holds
    still counts, at its prior weight: the query asked about it, and nothing here
    answers that part.
    """
    return _scored(_plan(query, stats, profile), memory, profile)


def scorer(query: ParsedQuery, stats: CorpusStats, profile: ScoreProfile = SCORE) -> Callable[[Memory], Lexical]:
    """:func:`lexical` of ``query`` under ``stats`` as a function of the record: the
    query's plan is looked up once, not once per candidate. The same numbers as
    :func:`lexical` (the same code scores both)."""
    plan = _plan(query, stats, profile)
    return lambda memory: _scored(plan, memory, profile)


_NONE: frozenset[str] = frozenset()


def _scored(plan: tuple[_Planned, ...], memory: Memory, profile: ScoreProfile) -> Lexical:
    content, c_len = _field_counts(memory.content)
    aliases, a_len = _field_counts(" ".join(memory.aliases)) if memory.aliases else _NO_FIELD
    origin = _field_counts(memory.origin)[0] if memory.origin else _NO_FIELD[0]
    c_norm = 1 - profile.b + profile.b * c_len / profile.content_avg_terms
    a_norm = 1 - profile.b + profile.b * a_len / profile.alias_avg_terms
    k1 = profile.k1
    content_weight, alias_weight = profile.content_weight, profile.alias_weight
    score = total = covered = 0.0
    in_content, in_aliases, rare, in_origin = set(), set(), set(), set()
    for f in plan:
        term = f.term
        if len(f.spellings) == 1:
            tf_c, tf_a, named = content.get(term, 0), aliases.get(term, 0), term in origin
        else:
            tf_c = sum(content.get(t, 0) for t in f.spellings)
            tf_a = sum(aliases.get(t, 0) for t in f.spellings)
            named = any(t in origin for t in f.spellings)
        if f.phrases:
            tf_c += sum(_phrase_count(memory.content, words) for words in f.phrases if words[0] in content)
        if tf_c:
            in_content.add(term)
        if tf_a:
            in_aliases.add(term)
            if not tf_c and f.rare:
                rare.add(term)
        if named:
            in_origin.add(term)
        if f.counted:
            total += f.share
            if tf_c or term in rare or named:
                covered += f.share
        if tf_c or tf_a:
            tf = content_weight * tf_c / c_norm + (alias_weight * tf_a / a_norm if aliases else 0.0)
            if tf:
                score += f.weight * tf * (k1 + 1) / (tf + k1)
    return Lexical(
        score=score,
        in_content=frozenset(in_content) if in_content else _NONE,
        in_aliases=frozenset(in_aliases) if in_aliases else _NONE,
        rare_alias=frozenset(rare) if rare else _NONE,
        in_origin=frozenset(in_origin) if in_origin else _NONE,
        coverage=covered / total if total else 0.0,
    )
