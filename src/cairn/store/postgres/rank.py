"""Okapi BM25 exactly as SQLite's FTS5 ``bm25()`` computes it, in Cairn's own code.

The SQLite store asks FTS5 to order its lexical candidates by ``bm25()``; the PostgreSQL
store gets its candidates from a GIN index and orders them here, with the same formula
over the same statistics, so that both backends hand the recall pipeline the same
candidates in the same order. The formula (FTS5's ``fts5_bm25``, k1 = 1.2, b = 0.75):

* ``idf(p) = ln((N - n(p) + 0.5) / (n(p) + 0.5))``, floored at 1e-6, where ``N`` is the
  number of indexed records (every space) and ``n(p)`` the records matching phrase ``p``
  (within the queried column when the query names one);
* ``f(p)`` the weighted count of ``p``'s occurrences in the record (each occurrence adds
  its column's weight);
* ``D`` the record's term count over every column, ``avgdl`` the mean over every record;
* ``score = -sum_p idf(p) * f(p) * (k1 + 1) / (f(p) + k1 * (1 - b + b * D / avgdl))``:
  lower is better, as in FTS5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

K1 = 1.2
B = 0.75


def idf(rows: int, hits: int) -> float:
    value = math.log((rows - hits + 0.5) / (hits + 0.5)) if rows else 0.0
    return value if value > 0.0 else 1e-6


def occurrences(terms: Sequence[str], word: str, prefix: bool) -> int:
    """How often ``word`` (or, with ``prefix``, any term starting with it) occurs."""
    if prefix:
        return sum(1 for t in terms if t.startswith(word))
    return sum(1 for t in terms if t == word)


def bm25(freqs: Sequence[float], idfs: Sequence[float], length: int, avgdl: float) -> float:
    """FTS5's score (lower is better) of one record: ``freqs[i]`` the weighted count of
    phrase ``i`` in it, ``idfs[i]`` that phrase's idf, ``length`` its term count."""
    norm = K1 * (1 - B + B * length / avgdl) if avgdl > 0 else K1
    score = 0.0
    for freq, weight in zip(freqs, idfs, strict=True):
        score += weight * (freq * (K1 + 1.0)) / (freq + norm)
    return -1.0 * score
